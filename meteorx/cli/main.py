"""The ``meteorx`` command: argument parsing and dispatch, nothing else.

Each subcommand lives in its own module under ``meteorx/cli/`` exposing
``add_parser(subparsers)``, which registers the subcommand and sets ``func`` (a
function taking the parsed arguments and returning the exit code). Every expected
failure is a :class:`~meteorx.errors.MeteorxError`, printed on one line (exit 2).
Command modules import their heavy dependencies inside ``run`` so start-up stays fast,
and this module imports only what the interpreter has loaded before it: everything
else is imported inside :func:`main`'s ``try``, where Ctrl-C is caught.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

# pydantic scans every installed distribution for its own plugins (observability
# hooks) the first time a model validates: 20-40 ms of each run's start-up, for hooks
# the command never uses. The command line turns that off unless the user set it.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


#: Each subcommand and the module under ``meteorx/cli/`` that registers it, in the order
#: ``--help`` lists them (``info_cmd`` registers four, ``resources_cmd`` one with its own
#: subcommands).
COMMANDS = {
    "score": "score_cmd",
    "explain": "explain_cmd",
    "report": "report_cmd",
    "tune": "tune_cmd",
    "correlate": "correlate_cmd",
    "combine": "combine_cmd",
    "config": "info_cmd",
    "presets": "info_cmd",
    "plugins": "info_cmd",
    "languages": "info_cmd",
    "resources": "resources_cmd",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (also used to generate help text in the docs): with a known
    ``command``, only that subcommand's (a run imports only its own command module),
    else every subcommand's, for ``--help`` and for the error naming the choices."""
    import argparse
    import importlib

    from meteorx import __version__
    from meteorx.cli.parser import EPILOG, Parser

    parser = Parser(
        prog="meteorx",
        description="METEOR for every language: score hypotheses against references.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"meteorx {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = [COMMANDS[command]] if command in COMMANDS else dict.fromkeys(COMMANDS.values())
    for name in wanted:
        module = importlib.import_module(f"meteorx.cli.{name}")
        module.add_parser(sub)
    return parser


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """meteorx's own warnings as one line on stderr; others as Python shows them."""
    from meteorx.errors import MeteorxWarning

    if issubclass(category, MeteorxWarning):
        print(f"meteorx: warning: {message}", file=file or sys.stderr)
    else:
        _python_show_warning(message, category, filename, lineno, file, line)


_python_show_warning = warnings.showwarning


def _show_notices(show: bool) -> None:
    """meteorx's notices (INFO on the ``meteorx`` logger: a resource cache being built)
    as ``meteorx: ...`` lines on the stderr of the moment; ``--quiet`` silences them."""
    import logging

    class Notices(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if sys.stderr is not None:
                with contextlib.suppress(OSError, ValueError):
                    print(f"meteorx: {record.getMessage()}", file=sys.stderr, flush=True)

    logger = logging.getLogger("meteorx")
    handler = next((h for h in logger.handlers if h.name == "meteorx-notices"), None)
    if handler is None:
        handler = Notices()
        handler.name = "meteorx-notices"
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    handler.setLevel(logging.INFO if show else logging.CRITICAL + 1)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``meteorx`` console script (and ``python -m meteorx``).

    Ctrl-C exits with 130 and no traceback from the first instant: the command's
    modules are imported here, inside the ``try``.
    """
    try:
        from meteorx.cli.output import standard_streams

        with standard_streams():
            return _run(argv)
    except KeyboardInterrupt:
        return 130


def _run(argv: Sequence[str] | None) -> int:
    """Parse the arguments and run the command; every expected failure is one line
    on stderr and exit code 2."""
    from meteorx import engine
    from meteorx.cli.configuration import load_plugin_args
    from meteorx.cli.output import is_stdout_failure, stdout_failed
    from meteorx.errors import MeteorxError

    warnings.showwarning = _show_warning
    try:
        given = list(sys.argv[1:] if argv is None else argv)
        parser = build_parser(given[0] if given else None)
        args = parser.parse_args(given)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        engine.requested()  # a bad $METEORX_ENGINE fails here, before any output
        _show_notices(not getattr(args, "quiet", False))
        load_plugin_args(args)  # --plugin: before the command resolves any name
        code = int(args.func(args))
        sys.stdout.flush()  # a full disk shows here, not in the interpreter's exit
        return code
    except MeteorxError as error:
        print(f"meteorx: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        if is_stdout_failure(error):
            return stdout_failed(error)
        raise


if __name__ == "__main__":
    sys.exit(main())
