"""``meteorx tune``: fit α β γ δ and stage weights to human judgments; write a config."""

from __future__ import annotations

import argparse
from typing import Any

from meteorx.cli.arg_types import MAX_SEED, non_negative_int, positive_int, seed_number
from meteorx.cli.arguments import add_config_args, add_judgment_args, add_run_args
from meteorx.cli.correlate_cmd import add_statistics_args


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
    add_judgment_args(parser)
    search = parser.add_argument_group("search")
    search.add_argument(
        "--objective",
        choices=["seg-tau", "seg-pearson", "sys-pearson"],
        help="what to maximise (default: seg-tau with --human, else sys-pearson)",
    )
    search.add_argument(
        "--split",
        choices=["none", "half"],
        default="none",
        help="half: tune on one half of the segments, report the other (held out)",
    )
    search.add_argument(
        "--split-seed",
        type=seed_number,
        default=1,
        metavar="N",
        help=f"seed of --split and --folds, 0..{MAX_SEED} (default 1)",
    )
    search.add_argument(
        "--folds",
        type=non_negative_int,
        default=5,
        metavar="K",
        help="held-out figures (default 5; 0: none): split the segments (whole documents "
        "with --docs) into K folds, tune on all folds but one and score that one, then "
        "measure the out-of-fold scores at segment level as 'meteorx correlate' does, "
        "with intervals, next to the defaults and --baseline",
    )
    search.add_argument(
        "--baseline",
        metavar="LIST",
        help="sacreBLEU metrics printed next to the held-out figures: chrf, bleu",
    )
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
    add_statistics_args(parser)
    add_run_args(parser)
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from meteorx import __version__
    from meteorx import tune as T
    from meteorx.baselines import parse_baselines
    from meteorx.cli.configuration import config_from_args
    from meteorx.cli.judgments import judged_data_from_args, judged_data_log
    from meteorx.cli.output import check_writable, write_file
    from meteorx.errors import InputError

    check_writable(args.output)
    baselines = parse_baselines(args.baseline)
    config = config_from_args(args)
    data, seg_what = judged_data_from_args(args)
    human_seg = data.human_seg
    objective = args.objective or ("seg-tau" if human_seg else "sys-pearson")
    if objective.startswith("seg") and not human_seg:
        raise InputError(f"--objective {objective} needs segment judgments (--human)")
    log = judged_data_log(args, data, seg_what, system_judgments=True)
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
    tuned = tuned.model_copy(update={"plugins": _plugins_to_write(config, args.output, log)})
    part_text = (
        f"tuned on half of the segments ({len(tune_part)}, split seed {args.split_seed}"
        + (", whole documents" if data.docs else "")
        + f"), {len(held_out)} held out"
        if held_out
        else f"tuned on all {len(tune_part)} segments"
        + (f"; {args.folds}-fold held-out figures reported" if args.folds >= 2 else "")
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
    write_file(args.output, T.config_yaml(tuned, header))
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
    if args.folds >= 2:
        held_out_report(args, config, bank, data, objective, baselines, log)
    out.write(f"wrote {args.output}\n")
    return 0


def _plugins_to_write(config: Any, output: str, log: Any) -> tuple[str, ...]:
    """The ``plugins:`` of the written configuration: the plugins given in this run
    that it uses, files relative to the output's folder (where a path can be), so that
    ``meteorx score --config`` needs no --plugin."""
    import contextlib
    import os

    from meteorx.registry import get_registry, is_plugin_file, plugin_reference

    folder = os.path.dirname(os.path.abspath(output))
    written: list[str] = []
    for info in get_registry().local_plugins(config):
        reference = plugin_reference(info.name)
        if reference is None:
            log(f"plugin {info.name!r} was registered from Python: {output} needs it again")
            continue
        if is_plugin_file(reference):
            with contextlib.suppress(ValueError):  # on another drive: kept absolute
                reference = os.path.relpath(reference, folder)
        written.append(reference)
    return tuple(written)


def held_out_report(
    args: argparse.Namespace,
    config: Any,
    bank: Any,
    data: Any,
    objective: str,
    baselines: list[str],
    log: Any,
) -> None:
    """k-fold figures: each fold scored with the setting tuned on the other folds, the
    out-of-fold segment scores measured with ``correlate``'s code, next to the
    configuration as it is and the baselines. System level only for those two: the
    out-of-fold scores come from K settings, so they have no one system score."""
    import sys

    import numpy as np

    from meteorx import metaeval
    from meteorx import tune as T
    from meteorx.baselines import baseline_metric
    from meteorx.cli.correlate_cmd import write_table
    from meteorx.cli.judgments import judgments_of
    from meteorx.errors import InputError

    out = sys.stdout
    if not data.human_seg:
        out.write("held-out figures: none (they need segment judgments, --human)\n")
        return
    folds = [
        f for f in T.fold_segments(data.n_segments, data.docs, args.folds, args.split_seed) if f
    ]
    default = bank.metric(f"{config.name} (default)")
    held = np.array(default.segment)
    for k, fold in enumerate(folds, 1):
        train = sorted(set(range(data.n_segments)) - set(fold))
        try:
            target = T.Objective(objective, data, train, args.darr_threshold)
        except InputError as error:  # a fold with nothing to tune on
            log(f"fold {k}: not tuned ({error})")
            continue
        result = T.tune(
            config, bank, target, tune_weights=not args.fixed_weights, rounds=args.rounds
        )
        held[:, fold] = bank.metric("fold", result.best).segment[:, fold]
        log(f"fold {k}/{len(folds)}: {result.best.describe(list(config.block_names))}")
    nan_system = lambda w: np.full((len(w), len(data.systems)), np.nan)  # noqa: E731
    metrics = [
        default,
        metaeval.Metric(f"tuned, {len(folds)}-fold held out", held, nan_system),
        *(baseline_metric(key, data.hyps, data.refs) for key in baselines),
    ]
    judgments, measure = judgments_of(data, args.segment_measure, args.darr_threshold)
    figures, comparisons = metaeval.evaluate(
        metrics, judgments, measure, samples=args.samples, seed=args.seed
    )
    out.write(f"\nheld out ({len(folds)} folds, split seed {args.split_seed}):\n")
    resampled = "documents" if data.docs else "segments"
    write_table(out, figures, comparisons, measure, args.samples, args.seed, resampled)
