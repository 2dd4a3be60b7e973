"""The ``meteorx`` command: argument parsing and dispatch, nothing else.

Each subcommand lives in its own module under ``meteorx/cli/`` exposing
``add_parser(subparsers)``, which registers the subcommand and sets ``func`` (a
function taking the parsed arguments and returning the exit code). Every expected
failure is a :class:`~meteorx.errors.MeteorxError`, printed on one line (exit 2).
Command modules import their heavy dependencies inside ``run`` so start-up stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn, TextIO

# pydantic scans every installed distribution for its own plugins (observability
# hooks) the first time a model validates: 20-40 ms of each run's start-up, for hooks
# the command never uses. The command line turns that off unless the user set it.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from meteorx import __version__, engine
from meteorx.cli.common import EPILOG, ClosedStdout, is_stdout_failure, stdout_failed
from meteorx.errors import MeteorxError, MeteorxWarning


class _Parser(argparse.ArgumentParser):
    """An argument error is one line, like every other error (``--help`` shows usage);
    subcommand parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (also used to generate help text in the docs)."""
    from meteorx.cli import (
        combine_cmd,
        explain_cmd,
        info_cmd,
        report_cmd,
        resources_cmd,
        score_cmd,
        tune_cmd,
    )

    parser = _Parser(
        prog="meteorx",
        description="METEOR for every language: score hypotheses against references.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"meteorx {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    score_cmd.add_parser(sub)
    explain_cmd.add_parser(sub)
    report_cmd.add_parser(sub)
    tune_cmd.add_parser(sub)
    combine_cmd.add_parser(sub)
    info_cmd.add_parsers(sub)  # config, presets, plugins, languages

    resources_cmd.add_parser(sub)  # resources install / list
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
    if issubclass(category, MeteorxWarning):
        print(f"meteorx: warning: {message}", file=file or sys.stderr)
    else:
        _python_show_warning(message, category, filename, lineno, file, line)


_python_show_warning = warnings.showwarning


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``meteorx`` console script."""
    warnings.showwarning = _show_warning
    if sys.stdout is None:  # started with standard output closed
        sys.stdout = ClosedStdout()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        engine.requested()  # a bad $METEORX_ENGINE fails here, before any output
        code = int(args.func(args))
        sys.stdout.flush()  # a full disk shows here, not in the interpreter's exit
        return code
    except MeteorxError as error:
        print(f"meteorx: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except OSError as error:
        if is_stdout_failure(error):
            return stdout_failed(error)
        raise


if __name__ == "__main__":
    sys.exit(main())
