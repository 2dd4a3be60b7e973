"""``meteorx explain``: the alignment and the calculation of chosen segments."""

from __future__ import annotations

import argparse
from typing import Any

from meteorx.cli.arguments import add_config_args, add_max_chars_arg


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "explain",
        help="show the alignment and the calculation of segments",
        description="Print, per segment, which words matched by which stage and the "
        "calculation: P, R, Fmean, chunks, matches, fragmentation, penalty, score.",
    )
    parser.add_argument("--hyp", "-H", required=True, metavar="FILE", help="hypothesis file")
    parser.add_argument(
        "--ref", "-r", action="append", required=True, metavar="FILE", help="reference file(s)"
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--line",
        "-n",
        type=int,
        action="append",
        metavar="N",
        help="explain line N (1-based; repeatable)",
    )
    which.add_argument("--worst", type=int, metavar="K", help="explain the K lowest-scoring lines")
    add_config_args(parser)
    add_max_chars_arg(parser)
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from meteorx.api import build_scorer
    from meteorx.cli.configuration import config_from_args
    from meteorx.errors import InputError
    from meteorx.explain import explain_segment
    from meteorx.inputs import read_aligned

    scorer = build_scorer(config_from_args(args))
    (hyps,), refs = read_aligned([args.hyp], args.ref, args.max_segment_chars)
    if args.line:
        for n in args.line:
            if not 1 <= n <= len(hyps):
                raise InputError(f"--line {n} is outside 1..{len(hyps)}")
        wanted = [n - 1 for n in args.line]
    else:
        wanted = list(range(len(hyps)))
    if args.worst is not None and args.worst < 1:
        raise InputError(f"--worst needs a positive number, got {args.worst}")
    results = {i: scorer.segment(hyps[i], [r[i] for r in refs]) for i in wanted}
    if args.worst:
        wanted = sorted(wanted, key=lambda i: (results[i].score, i))[: args.worst]
    for k, i in enumerate(wanted):
        if k:
            print()
        title = f"== line {i + 1} =="
        if len(refs) > 1:
            title += f" (best of {len(refs)} references: reference {results[i].ref_index + 1})"
        print(explain_segment(scorer, results[i], title=title))
    return 0
