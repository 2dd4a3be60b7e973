"""``meteorx report``: a self-contained HTML report (X-Ray style) of one or more systems."""

from __future__ import annotations

import argparse
from typing import Any

from meteorx.cli.arg_types import MAX_RESAMPLES, non_negative_int, resample_count
from meteorx.cli.arguments import add_config_args, add_input_args, add_run_args, add_seed_arg


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "report",
        help="write a self-contained HTML report: scores, distributions, alignment grids",
        description="Score one or more systems and write one HTML file (no network access "
        "needed to view it): system scores with 95%% bootstrap intervals and paired "
        "bootstrap p-values against the first system, score histograms, a scatter of the "
        "first two systems' segment scores, and every segment's alignment grid (links "
        "coloured by stage), sorted by the score difference between the first two systems.",
    )
    add_input_args(parser)
    add_config_args(parser)
    parser.add_argument(
        "--output", "-o", required=True, metavar="FILE.html", help="where to write the report"
    )
    parser.add_argument("--title", default="meteorx report", help="page title")
    parser.add_argument(
        "--expanded",
        type=non_negative_int,
        default=10,
        metavar="K",
        help="segments whose alignment grids are open when the page loads (default 10)",
    )
    parser.add_argument(
        "--n-bootstrap",
        type=resample_count,
        default=1000,
        metavar="N",
        help=f"bootstrap resamples (1000, at most {MAX_RESAMPLES:,})",
    )
    add_seed_arg(parser)
    add_run_args(parser)
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    import sys

    from meteorx import significance as sig
    from meteorx.api import build_scorer
    from meteorx.cli.configuration import config_from_args, testset_from_args
    from meteorx.cli.evaluate import score_testset
    from meteorx.cli.output import check_writable, write_file
    from meteorx.report import SystemSummary, render_report
    from meteorx.stats import sum_stats

    check_writable(args.output)
    scorer = build_scorer(config_from_args(args))
    testset = testset_from_args(args)
    results = score_testset(scorer, testset, jobs=args.jobs, quiet=args.quiet)
    stage_names = list(scorer.config.block_names)
    names = _display_names([name for name, _ in testset.systems])
    rows = [sig.stats_matrix([r.stats for r in system], len(stage_names)) for system in results]
    rule = scorer.config.system_score  # (the mean of segment scores for nltk)
    summaries = []
    for k, (name, system) in enumerate(zip(names, results, strict=True)):
        total = scorer.system(sum_stats(r.stats for r in system), [r.score for r in system])
        interval = sig.bootstrap_ci(rows[k], scorer.params, args.n_bootstrap, args.seed, rule)
        p_value = None
        if k > 0:
            p_value = sig.paired_bootstrap(
                rows[0], rows[k], scorer.params, args.n_bootstrap, args.seed, rule
            ).p_value
        summaries.append(
            SystemSummary(
                name=name,
                score=total.score,
                precision=total.precision,
                recall=total.recall,
                fragmentation=total.fragmentation,
                penalty=total.penalty,
                ci=(interval.lower, interval.upper),
                p_value=p_value,
            )
        )
    sig_text = scorer.signature(
        refs=testset.n_refs, resampling=[f"bs:{args.n_bootstrap}", f"seed:{args.seed}"]
    )
    note = (
        f"95% intervals: bootstrap over segments ({args.n_bootstrap} resamples, seed "
        f"{args.seed}). p: paired bootstrap against the baseline (the first system); "
        "* = p < 0.05."
    )
    page = render_report(
        names,
        results,
        summaries,
        stage_names,
        sig_text,
        seg_ids=testset.seg_ids,
        docs=testset.docs,
        title=args.title,
        significance_note=note,
        expanded=args.expanded,
    )
    write_file(args.output, page)
    print(f"meteorx: wrote {args.output} ({len(page) // 1024} KiB)", file=sys.stderr)
    return 0


def _display_names(names: list[str]) -> list[str]:
    """File names without their folders when that keeps them distinct."""
    import os

    short = [os.path.basename(n) or n for n in names]
    return short if len(set(short)) == len(short) else names
