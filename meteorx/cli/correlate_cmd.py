"""``meteorx correlate``: how well configurations (and baselines) agree with human
judgments, with bootstrap intervals and a paired test against the first."""

from __future__ import annotations

import argparse
from typing import Any

from meteorx.cli.arguments import (
    add_judgment_args,
    add_norm_arg,
    add_plugin_arg,
    add_resamples_arg,
    add_run_args,
    add_seed_arg,
)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "correlate",
        help="measure configurations against human judgments (intervals, paired test)",
        description="Score every system once per configuration and measure the agreement "
        "with human judgments: at segment level WMT's DARR Kendall tau (DA), Kendall tau "
        "over pairs of one segment's translations (MQM, error counts), tie-calibrated "
        "pairwise accuracy (WMT23's acc-eq) or tau-b (one system); at system level "
        "Pearson r, Spearman rho and pairwise accuracy. 95%% intervals come from a "
        "bootstrap over segments (whole documents with --docs); each metric is compared "
        "with the first by a paired bootstrap on the same resamples (two-sided p: how "
        "often the resampled difference, centred, is at least the observed one). A paired "
        "bootstrap rather than a permutation test: it reuses the resamples of the "
        "intervals, works for every measure, and does not assume the metrics score on one "
        "scale.",
        epilog="example:\n  meteorx correlate --preset meteorx --preset li --lang en \\\n"
        "    --baseline chrf,bleu --hyp-dir systems/ --ref ref.txt --human judgments.tsv",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    metrics = parser.add_argument_group("metrics (in the order given; the first is the baseline)")
    metrics.add_argument(
        "--preset",
        "-p",
        action=_InOrder,
        metavar="NAME",
        help="a named configuration (repeatable)",
    )
    metrics.add_argument(
        "--config", "-c", action=_InOrder, metavar="FILE.yaml",
        help="a YAML configuration (repeatable; reported under the file's stem)",
    )  # fmt: skip
    metrics.add_argument(
        "--lang", "-l", metavar="CODE", help="language, applied to every configuration"
    )
    add_norm_arg(metrics, "normalisation, applied to every configuration")
    metrics.add_argument(
        "--baseline",
        metavar="LIST",
        help="sacreBLEU metrics scored on the same segments: chrf, bleu (comma-separated; "
        "needs sacreBLEU: pip install sacrebleu); they follow the configurations",
    )
    add_plugin_arg(parser)
    add_judgment_args(parser)
    add_statistics_args(parser)
    parser.add_argument(
        "--format", "-f", choices=["text", "json"], default="text", help="output format"
    )
    add_run_args(parser)
    parser.set_defaults(func=run)
    return parser


class _InOrder(argparse.Action):
    """--preset and --config append (name, preset or file) to ``metrics``, in order."""

    def __call__(self, parser: Any, namespace: Any, value: Any, option: Any = None) -> None:
        from pathlib import Path

        name = value if self.dest == "preset" else Path(value).stem
        namespace.metrics = [*(getattr(namespace, "metrics", None) or []), (name, value)]


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from meteorx import metaeval
    from meteorx import tune as T
    from meteorx.baselines import baseline_metric, parse_baselines
    from meteorx.cli.judgments import judged_data_from_args, judged_data_log, judgments_of
    from meteorx.defaults import configure
    from meteorx.errors import InputError

    baselines = parse_baselines(args.baseline)
    specs = getattr(args, "metrics", None) or []
    if not specs and not baselines:
        raise InputError("nothing to measure: give --preset, --config or --baseline")
    names = [n for n, _ in specs]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise InputError(f"two configurations are named {duplicate!r}")
    configs = [
        (name, configure(value, language=args.lang, normalize=args.norm, hint="pass --lang"))
        for name, value in specs
    ]
    data, seg_what = judged_data_from_args(args)
    judgments, measure = judgments_of(data, args.segment_measure, args.darr_threshold)
    judged_data_log(args, data, seg_what)
    metrics: list[metaeval.Metric] = []
    progress = False if args.quiet else None
    for name, config in configs:
        bank = T.StatsBank(config, data, jobs=args.jobs, show_progress=progress)
        metrics.append(bank.metric(name))
    for key in baselines:
        metrics.append(baseline_metric(key, data.hyps, data.refs))
    figures, comparisons = metaeval.evaluate(
        metrics, judgments, measure, samples=args.samples, seed=args.seed
    )
    if args.format == "json":
        payload = {
            "segment_measure": _measure_name(measure),
            "samples": args.samples,
            "seed": args.seed,
            "resampling": "documents" if data.docs else "segments",
            "metrics": {
                name: {
                    level: {
                        **{m: _clean(f.value) for m, f in values.items()},
                        **{
                            key: value
                            for m, f in values.items()
                            for key, value in _extra(level, m, f, values).items()
                        },
                    }
                    for level, values in per.items()
                    if values
                }
                for name, per in figures.items()
            },
            "comparisons": [
                {
                    "metric": c.metric,
                    "baseline": c.baseline,
                    "measure": c.measure,
                    "delta": _clean(c.delta),
                    "ci": [_clean(c.ci[0]), _clean(c.ci[1])],
                    "p": _clean(c.p),
                }
                for c in comparisons
            ],
        }
        if isinstance(measure, metaeval.AccEq):
            payload["epsilon"] = {m.name: _epsilon(measure, m) for m in metrics}
        sys.stdout.write(json.dumps(payload, indent=1) + "\n")
        return 0
    resampled = "documents" if data.docs else "segments"
    write_table(sys.stdout, figures, comparisons, measure, args.samples, args.seed, resampled)
    return 0


def write_table(
    out: Any,
    figures: dict[str, Any],
    comparisons: list[Any],
    measure: Any,
    samples: int,
    seed: int,
    resampled: str,
) -> None:
    """The figures as a text table (one row per metric), then the paired tests."""
    import math

    out.write(
        f"segment: {_measure_name(measure)}; system: Pearson r, Spearman rho, pairwise "
        f"accuracy; 95% intervals from {samples} bootstrap resamples of the {resampled} "
        f"(seed {seed})\n"
    )
    columns: list[tuple[str, str]] = [("segment", m) for m in _first_keys(figures, "segment")]
    columns += [("system", m) for m in _first_keys(figures, "system")]
    width = max([16, *(len(name) + 1 for name in figures)])
    head = "metric".ljust(width) + "".join(
        f" {_label(level, m, figures):>24s}" for level, m in columns
    )
    out.write(head + "\n")
    for name, per in figures.items():
        cells = []
        for level, m in columns:
            f = per[level].get(m)
            cells.append(
                f" {f.value:+.3f} [{f.ci[0]:+.3f}, {f.ci[1]:+.3f}]".rjust(25)
                if f is not None and math.isfinite(f.value)
                else " " + "-".rjust(24)
            )
        out.write(name.ljust(width) + "".join(cells) + "\n")
    if comparisons:
        out.write(f"\npaired bootstrap against {comparisons[0].baseline}:\n")
        for c in comparisons:
            out.write(
                f"  {c.metric.ljust(width)} {c.measure:9s} delta {c.delta:+.3f} "
                f"[{c.ci[0]:+.3f}, {c.ci[1]:+.3f}]  p = {c.p:.3f}\n"
            )


def add_statistics_args(parser: argparse.ArgumentParser) -> None:
    """--samples and --seed of the bootstrap."""
    stats = parser.add_argument_group("statistics")
    add_resamples_arg(stats, "--samples", 1000, "bootstrap resamples")
    add_seed_arg(stats)


def _measure_name(measure: Any) -> str:
    from meteorx import metaeval

    if measure is None:
        return "none (no segment judgments)"
    if isinstance(measure, metaeval.PairTau) and measure.threshold:
        return f"WMT DARR Kendall tau (pairs more than {measure.threshold:g} apart)"
    if isinstance(measure, metaeval.PairTau):
        return "Kendall tau over the pairs of one segment's translations the humans rank"
    if isinstance(measure, metaeval.AccEq):
        return "tie-calibrated pairwise accuracy (acc-eq)"
    return "Kendall tau-b over all translations"


def _first_keys(figures: dict[str, Any], level: str) -> list[str]:
    for per in figures.values():
        if per[level]:
            return list(per[level])
    return []


def _label(level: str, measure: str, figures: dict[str, Any]) -> str:
    n = next(per[level][measure].n for per in figures.values() if measure in per[level])
    short = {"pearson": "sys r", "spearman": "sys rho", "accuracy": "sys acc"}.get(measure)
    return f"{short or measure} (n={n})"


def _clean(value: float) -> float | None:
    import math

    return value if math.isfinite(value) else None


def _extra(level: str, measure: str, figure: Any, values: dict[str, Any]) -> dict[str, Any]:
    """The interval and n of the level's first measure (``ci``, ``n``), and
    ``MEASURE_ci`` for the others."""
    interval = [_clean(figure.ci[0]), _clean(figure.ci[1])]
    if measure == next(iter(values)):
        return {"ci": interval, "n": figure.n}
    return {f"{measure}_ci": interval}


def _epsilon(measure: Any, metric: Any) -> float:
    import numpy as np

    measure.values(metric.segment, np.ones((1, metric.segment.shape[1])))
    return float(measure.epsilon)
