"""The ``meteorx`` command: argument parsing and dispatch, nothing else.

Each subcommand lives in its own function taking the parsed arguments; every expected
failure is a :class:`~meteorx.errors.MeteorxError`, printed on one line (exit 2).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from meteorx import __version__
from meteorx.errors import MeteorxError

EPILOG = """examples:
  meteorx score --hyp hyp.txt --ref ref.txt --preset meteor-1.5-en --norm lower
  meteorx score --hyp hyp.txt --ref ref.txt --preset li --lang pt --format json
  meteorx score --hyp hyp.txt --ref ref.txt --config my.yaml
  meteorx config --preset li --lang de        (show the resolved configuration)
  meteorx presets | plugins | languages

Configuration precedence: preset < --config file (which may 'extends' a preset) <
--lang/--norm. Documentation: README.md and docs/ in the source distribution."""


def _add_config_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--preset",
        "-p",
        metavar="NAME",
        help="a named configuration (see 'meteorx presets'); default: meteor-1.5-en",
    )
    group.add_argument(
        "--config", "-c", metavar="FILE.yaml", help="a YAML configuration (may 'extends' a preset)"
    )
    parser.add_argument(
        "--lang",
        "-l",
        metavar="CODE",
        help="language (ISO 639-1, e.g. en, pt, de); overrides the config",
    )
    parser.add_argument(
        "--norm",
        choices=["none", "lower", "meteor", "meteor-nopunct"],
        help="normalisation: none; lower = lowercase + whitespace tokens (the jar's -lower); "
        "meteor = the jar's -norm tokenisation; meteor-nopunct = -norm -noPunct",
    )


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (also used to generate help text in the docs)."""
    parser = argparse.ArgumentParser(
        prog="meteorx",
        description="METEOR for every language: score hypotheses against references.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"meteorx {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    score = sub.add_parser(
        "score",
        help="score hypothesis files against reference files",
        description="Score one or more hypothesis files (one segment a line) against one or "
        "more reference files. Prints each segment's score, the system score (from summed "
        "statistics) and a signature naming every setting.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    score.add_argument(
        "--hyp",
        "-H",
        action="append",
        required=True,
        metavar="FILE",
        help="hypothesis file ('-' for stdin); repeat for several systems",
    )
    score.add_argument(
        "--ref",
        "-r",
        action="append",
        required=True,
        metavar="FILE",
        help="reference file; repeat for several references (each segment keeps its best)",
    )
    _add_config_args(score)
    score.add_argument(
        "--format", "-f", choices=["text", "json", "tsv"], default="text", help="output format"
    )
    score.add_argument(
        "--system-only", action="store_true", help="print only system scores, not segments"
    )
    score.add_argument(
        "--precision", type=int, default=6, metavar="N", help="decimals in text/tsv output"
    )
    score.set_defaults(func=_run("score"))

    explain = sub.add_parser(
        "explain",
        help="show the alignment and the calculation of segments",
        description="Print, per segment, which words matched by which stage and the "
        "calculation: P, R, Fmean, chunks, matches, fragmentation, penalty, score.",
    )
    explain.add_argument("--hyp", "-H", required=True, metavar="FILE", help="hypothesis file")
    explain.add_argument(
        "--ref", "-r", action="append", required=True, metavar="FILE", help="reference file(s)"
    )
    which = explain.add_mutually_exclusive_group()
    which.add_argument("--line", "-n", type=int, action="append", metavar="N",
                       help="explain line N (1-based; repeatable)")
    which.add_argument("--worst", type=int, metavar="K", help="explain the K lowest-scoring lines")
    _add_config_args(explain)
    explain.set_defaults(func=_run("explain"))

    config = sub.add_parser(
        "config",
        help="print the resolved configuration as YAML",
        description="Print the configuration that 'score' would use, after presets, "
        "'extends' chains and command-line overrides are applied.",
    )
    _add_config_args(config)
    config.set_defaults(func=_run("config"))

    presets = sub.add_parser("presets", help="list the named configurations")
    presets.set_defaults(func=_run("presets"))
    plugins = sub.add_parser("plugins", help="list installed plugins and what they provide")
    plugins.set_defaults(func=_run("plugins"))
    languages = sub.add_parser(
        "languages", help="list languages (ISO 639-1) with their stages and resources"
    )
    languages.set_defaults(func=_run("languages"))
    return parser


def _run(name: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from meteorx.cli import commands

        func: Callable[[argparse.Namespace], int] = getattr(commands, f"cmd_{name}")
        return func(args)

    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``meteorx`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except MeteorxError as error:
        print(f"meteorx: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
