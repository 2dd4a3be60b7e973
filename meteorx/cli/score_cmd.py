"""``meteorx score``: score systems, print segment/document/system scores."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from meteorx.cli.arguments import (
    add_config_args,
    add_input_args,
    add_output_args,
    add_run_args,
    add_significance_args,
)
from meteorx.cli.parser import EPILOG

if TYPE_CHECKING:
    from meteorx.metric import Scorer


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "score",
        help="score hypothesis files against reference files",
        description="Score one or more hypothesis files (one segment a line, or TSV/JSONL/"
        "SGML) against one or more references. Prints each segment's score, document "
        "scores when the input has documents, the system score (from summed statistics) "
        "and a signature naming every setting. With several systems, --paired-bs/--paired-ar "
        "compare each with the first.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_args(parser)
    add_config_args(parser)
    add_output_args(parser)
    parser.add_argument(
        "--stats-out",
        metavar="FILE",
        help="also write every segment's sufficient statistics (TSV with the signature and "
        "parameters; '-' = stdout only) for 'meteorx combine'",
    )
    parser.add_argument(
        "--scr",
        metavar="PREFIX",
        help="also write the jar's -sgml score files PREFIX-seg.scr, PREFIX-doc.scr, "
        "PREFIX-sys.scr (and PREFIX-signature.txt)",
    )
    add_significance_args(parser)
    add_run_args(parser)
    parser.add_argument(
        "--stream",
        action="store_true",
        help="print each segment's score as soon as it is computed (constant memory; "
        "plain-text input, one --hyp, --format text/tsv; a bad line or a line-count "
        "mismatch is reported where it is found, after the scores before it)",
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from meteorx.api import build_scorer
    from meteorx.cli.configuration import config_from_args, report_setup, testset_from_args
    from meteorx.cli.evaluate import (
        add_significance,
        build_report,
        resampling_fields,
        score_testset,
        write_report,
    )

    check_score_args(args)
    if args.stream:
        check_stream_args(args)  # before the scorer loads its resources
    scorer = build_scorer(config_from_args(args))
    if args.verbose:
        report_setup(scorer)
    assume_english = args.preset is None and args.config is None and args.lang is None
    if args.stream:
        if assume_english:
            _warn_if_not_english(_head(args.ref[0] if args.ref else args.hyp[0]))
        return run_stream(
            scorer,
            args.hyp[0],
            args.ref,
            fmt=args.format,
            precision=args.precision,
            system_only=args.system_only,
            jobs=args.jobs,
            max_chars=args.max_segment_chars,
        )
    testset = testset_from_args(args)
    if assume_english:
        _warn_if_not_english([r[0] for r in testset.refs[:_SAMPLE] if r])
    # Scores and statistics only: no alignments to carry between processes.
    results = score_testset(scorer, testset, jobs=args.jobs, quiet=args.quiet, detail=False)
    report = build_report(
        [name for name, _ in testset.systems],
        [[r.stats for r in system] for system in results],
        scorer.params,
        list(scorer.config.block_names),
        scorer.signature(refs=testset.n_refs, resampling=resampling_fields(args)),
        testset.seg_ids,
        testset.docs,
        testset.setid,
        results=results,
        system_score=scorer.config.system_score,
    )
    add_significance(report, args)
    write_report(report, args)
    return 0


def check_stream_args(args: argparse.Namespace) -> None:
    """Raise :class:`~meteorx.errors.InputError` if the arguments cannot be streamed.

    Streaming takes plain-text input with one hypothesis file and prints text or TSV;
    everything that needs all segments at once (JSON, confidence intervals, paired
    tests, statistics and ``.scr`` files) is refused with the option's name.
    """
    from meteorx.errors import InputError

    problems = []
    if getattr(args, "input_format", "text") != "text":
        problems.append(f"--input-format {args.input_format} (only text streams)")
    if len(getattr(args, "hyp", None) or []) != 1:
        problems.append("several --hyp files (give one)")
    if getattr(args, "format", "text") not in ("text", "tsv"):
        problems.append(f"--format {args.format} (text or tsv stream)")
    for option in ("confidence", "paired_bs", "paired_ar", "stats_out", "scr"):
        if getattr(args, option, None):
            problems.append("--" + option.replace("_", "-"))
    if problems:
        raise InputError("--stream cannot be combined with " + "; ".join(problems))


def run_stream(
    scorer: Scorer,
    hyp_path: str,
    ref_paths: Sequence[str],
    *,
    fmt: str = "text",
    precision: int = 6,
    system_only: bool = False,
    jobs: int = 1,
    out: TextIO | None = None,
    err: TextIO | None = None,
    max_chars: int = 0,
) -> int:
    """``meteorx score --stream``: score one plain-text system and print as it goes.

    Returns the exit code (0). Errors are :class:`~meteorx.errors.InputError` (the
    command line prints them); an empty-line warning goes to ``err`` at the end, as
    the batch path words it.
    """
    import sys

    from meteorx.streaming import score_files, write_stream

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    stream = score_files(scorer, hyp_path, ref_paths, jobs=jobs, detail=False, max_chars=max_chars)
    summary = write_stream(
        stream, out, fmt=fmt, precision=precision, system_only=system_only, name=hyp_path
    )
    if not summary.segments:
        print("meteorx: warning: the input has no segments; the score is 0", file=err)
    if summary.empty:
        print(f"meteorx: warning: {hyp_path}: {summary.empty} empty line(s) score 0", file=err)
    return 0


def check_score_args(args: argparse.Namespace) -> None:
    """Argument problems found before any work: standard input named twice, output
    files that cannot be created (a missing or read-only folder)."""
    from meteorx.cli.evaluate import check_report_files
    from meteorx.inputs import check_stdin_once

    check_stdin_once([*args.hyp, *args.ref])
    check_report_files(args)


#: Lines looked at to guess whether text assumed to be English is English.
_SAMPLE = 50


def _head(path: str) -> list[str]:
    """The first lines of a file (none for stdin, which must not be consumed here)."""
    if path == "-":
        return []
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return [line for _, line in zip(range(_SAMPLE), handle, strict=False)]
    except OSError:
        return []  # the reader reports it


def _warn_if_not_english(lines: list[str]) -> None:
    """One line on stderr when no language was given and the text is clearly not English."""
    import sys

    from meteorx.defaults import looks_english

    if not looks_english(lines):
        print(
            "meteorx: warning: no --lang given, so English is assumed (meteor-1.5-en), but "
            "the text does not look English; pass --lang CODE (e.g. --lang pt) for its "
            "recommended configuration",
            file=sys.stderr,
        )
