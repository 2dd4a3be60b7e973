"""``meteorx tune``: fit α β γ δ and stage weights to human judgments; write a config."""

from __future__ import annotations

import argparse
from typing import Any

from meteorx.cli.common import add_config_args, add_run_args, positive_int


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "tune",
        help="tune alpha beta gamma delta and stage weights to human judgments",
        description="Align every system output once, then search alpha, beta, gamma, delta "
        "and the stage weights (all but the first) for the best agreement with human "
        "judgments, re-using the stored statistics: seg-tau = WMT DARR Kendall tau, "
        "seg-pearson, sys-pearson. With --split half, tune on one half of the segments "
        "(whole documents with --docs) and report both halves. Writes a YAML configuration "
        "that 'meteorx score --config' accepts.",
        epilog="example:\n  meteorx tune --preset li --lang en --norm lower \\\n"
        "    --human human_seg.tsv --human-score-column raw --hyp-dir hyp/ --ref ref.A.en \\\n"
        "    --docs docs.tsv --split half -o tuned.yaml",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_config_args(parser)
    data = parser.add_argument_group("data")
    data.add_argument(
        "--hyp-dir",
        required=True,
        metavar="DIR",
        help="one file per system, named SYSTEM.<ext> (SYSTEM as in the judgments)",
    )
    data.add_argument("--hyp-glob", default="*", metavar="PATTERN", help="files to use ('*')")
    data.add_argument(
        "--ref",
        "-r",
        action="append",
        required=True,
        metavar="FILE",
        help="reference file; repeat for several references",
    )
    data.add_argument(
        "--human",
        metavar="FILE.tsv",
        help="segment judgments: TSV system, segment, score (a header may name the columns)",
    )
    data.add_argument(
        "--human-score-column",
        metavar="NAME",
        help="score column of --human (default: the first of score, raw, z, human)",
    )
    data.add_argument(
        "--segment-base",
        type=int,
        choices=[0, 1],
        help="numbering of --human segments (default 1; 0 when the column is *index*)",
    )
    data.add_argument(
        "--human-sys",
        metavar="FILE",
        help="system judgments: JSON {system: score or {z: …}} or TSV system, score "
        "(default: the mean of the segment judgments)",
    )
    data.add_argument("--human-sys-key", metavar="KEY", help="key in --human-sys objects ('z')")
    data.add_argument(
        "--lower-is-better",
        action="store_true",
        help="human scores are errors or edit rates (e.g. HTER): negate them",
    )
    data.add_argument("--docs", metavar="FILE", help="document ids (keeps documents whole)")
    search = parser.add_argument_group("search")
    search.add_argument(
        "--objective",
        choices=["seg-tau", "seg-pearson", "sys-pearson"],
        help="what to maximise (default: seg-tau with --human, else sys-pearson)",
    )
    search.add_argument(
        "--darr-threshold",
        type=float,
        default=25.0,
        metavar="X",
        help="seg-tau: minimum human score difference of a pair (default 25, as in WMT DA)",
    )
    search.add_argument(
        "--split",
        choices=["none", "half"],
        default="none",
        help="half: tune on one half of the segments, report the other (held out)",
    )
    search.add_argument("--split-seed", type=int, default=1, metavar="N", help="split seed")
    search.add_argument(
        "--fixed-weights", action="store_true", help="keep the stage weights of the config"
    )
    search.add_argument(
        "--rounds", type=positive_int, default=3, metavar="N", help="search rounds (3)"
    )
    out = parser.add_argument_group("output")
    out.add_argument("--output", "-o", required=True, metavar="FILE.yaml", help="tuned config")
    out.add_argument("--name", help="configuration name written into the file (signatures)")
    out.add_argument(
        "--description", help="first comment line of the file (shown by 'meteorx presets')"
    )
    add_run_args(parser)
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    import math
    import sys
    from pathlib import Path

    from meteorx import __version__
    from meteorx import tune as T
    from meteorx.cli.common import check_writable, config_from_args
    from meteorx.errors import InputError, output_error

    check_writable(args.output)
    if not math.isfinite(args.darr_threshold) or args.darr_threshold < 0:
        raise InputError(f"--darr-threshold must be a number >= 0, got {args.darr_threshold}")
    config = config_from_args(args)
    human_seg: dict[tuple[str, int], float] = {}
    seg_what = ""
    if args.human:
        human_seg, seg_what = T.read_human_segments(
            args.human, args.human_score_column, args.segment_base, args.lower_is_better
        )
    human_sys = (
        T.read_human_systems(args.human_sys, args.human_sys_key, args.lower_is_better)
        if args.human_sys
        else None
    )
    objective = args.objective or ("seg-tau" if human_seg else "sys-pearson")
    if objective.startswith("seg") and not human_seg:
        raise InputError(f"--objective {objective} needs segment judgments (--human)")
    data = T.load_tuning_data(
        args.hyp_dir, args.ref, human_seg, human_sys, args.docs, args.hyp_glob
    )

    def log(text: str) -> None:
        if not args.quiet:
            print(f"meteorx: {text}", file=sys.stderr)

    log(
        f"{len(data.systems)} systems x {data.n_segments} segments, {len(data.refs)} "
        f"reference(s); {len(human_seg)} segment judgments ({seg_what or 'none'})"
        + (f"; system judgments for {len(human_sys)} systems" if human_sys else "")
    )
    if data.skipped:
        log(f"no human judgments, not used: {', '.join(data.skipped)}")
    everything = list(range(data.n_segments))
    if args.split == "half":
        tune_part, held_out = T.split_segments(data.n_segments, data.docs, args.split_seed)
    else:
        tune_part, held_out = everything, []
    measures = [objective] + [
        m for m in T.OBJECTIVES if m != objective and (human_seg or m == "sys-pearson")
    ]
    bank = T.StatsBank(config, data, jobs=args.jobs, show_progress=False if args.quiet else None)
    target = T.Objective(objective, data, tune_part, args.darr_threshold)
    result = T.tune(
        config, bank, target, tune_weights=not args.fixed_weights, rounds=args.rounds, log=log
    )
    stage_names = list(config.block_names)
    perfect = config.perfect_match_rule
    table: list[tuple[str, str, float, float]] = []
    for measure in measures:
        for label, part in (("tune", tune_part), ("held-out", held_out)):
            if not part:
                continue
            try:
                obj = T.Objective(measure, data, part, args.darr_threshold)
            except InputError:
                continue
            table.append(
                (
                    measure,
                    label,
                    T.evaluate(bank, obj, result.base, perfect),
                    T.evaluate(bank, obj, result.best, perfect),
                )
            )
    stem = T.safe_name(Path(args.output).stem)
    name = args.name or (stem if stem.startswith("tuned") else f"tuned-{stem}")
    tuned = T.tuned_config(config, result.best, name)
    part_text = (
        f"tuned on half of the segments ({len(tune_part)}, split seed {args.split_seed}"
        + (", whole documents" if data.docs else "")
        + f"), {len(held_out)} held out"
        if held_out
        else f"tuned on all {len(tune_part)} segments (no held-out part)"
    )
    header = [
        args.description or f"{config.name} tuned for {objective} on {args.hyp_dir}",
        "",
        f"Written by `meteorx tune` (meteorx {__version__}) from {config.name!r}.",
        f"Data: {len(data.systems)} systems x {data.n_segments} segments in {args.hyp_dir}; "
        f"references: {', '.join(args.ref)}",
        f"Human judgments: {args.human or '-'} ({seg_what or 'none'}); "
        f"system level: {args.human_sys or 'mean of segment judgments'}",
        f"Objective: {objective}"
        + (
            f" (DARR pairs differing by > {args.darr_threshold:g})"
            if objective == "seg-tau"
            else ""
        )
        + f"; {part_text}.",
        "Agreement before -> after (default parameters -> these):",
        *[f"  {m:12s} {lbl:9s} {b:+.4f} -> {a:+.4f}" for m, lbl, b, a in table],
    ]
    try:
        Path(args.output).write_text(T.config_yaml(tuned, header), encoding="utf-8")
    except OSError as error:
        raise output_error(args.output, error) from None
    out = sys.stdout
    out.write(f"objective: {objective} ({part_text})\n")
    out.write(f"default: {result.base.describe(stage_names)}\n")
    out.write(f"tuned:   {result.best.describe(stage_names)}\n")
    out.write(f"{'measure':12s} {'part':9s} {'default':>8s} {'tuned':>8s}\n")
    for m, lbl, b, a in table:
        out.write(f"{m:12s} {lbl:9s} {b:+8.4f} {a:+8.4f}\n")
    out.write(
        f"alignment: {result.alignments} pass(es), the first in {result.align_seconds:.1f} s; "
        f"search: {result.evaluations} settings in {result.seconds:.1f} s\n"
    )
    out.write(f"wrote {args.output}\n")
    return 0
