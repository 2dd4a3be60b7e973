#!/usr/bin/env python3
"""How well do Portuguese MT metrics agree with human judgments, segment by segment?

Data (``$METEORX_DATA`` or ``<repo>/../shared/data``, see ``pt/README.md``):

* ``pt/wmt22_chat_en-ptbr_mqm``: WMT22 chat task, 2 systems x 659 segments, MQM;
* ``pt/lalic_fapesp_en-ptbr_errors``: FAPESP science news, NMT vs PBSMT, 2 x 300
  segments, minus the number of annotated errors.

Measures, as in WMT's segment-level evaluation (DARR):

* **Kendall τ** over pairs of the two systems' translations of the same segment:
  ``(concordant - discordant) / (concordant + discordant)``; pairs the humans tie are
  left out and pairs the *metric* ties count as discordant;
* **Pearson r** between metric and human scores over all judged segments.

``--folds`` also prints τ on the even- and odd-numbered segments separately (the
halves used for the 2-fold cross-validation reported in the preset's documentation).

Metrics:

* ``meteorx:<preset>``: meteorx, each ``--config`` (default: the ``pt`` preset);
* ``jar``: Meteor 1.5 ``-l pt -lower`` on text tokenised with sacreBLEU's 13a tokenizer
  (through ``tests/oracle/jar.py``, cached; needs pycocoevalcap and Java);
* ``nltk``: NLTK's ``meteor_score`` on the same 13a tokens (needs WordNet; the folder is
  built by ``meteorx_plugins.nltk_compat.build_nltk_data`` from a system WordNet if
  NLTK has none);
* ``chrF``, ``BLEU``: sacreBLEU's sentence-level scores.

Usage: python benchmarks/pt_human_agreement.py [--config pt --config FILE.yaml]
       [--skip jar,nltk] [--folds] [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import _agreement_data as agreement  # noqa: E402

DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
DATASETS = ("wmt22_chat_en-ptbr_mqm", "lalic_fapesp_en-ptbr_errors")
#: Values measured before this benchmark existed (for comparison in the output).
PREVIOUS = {
    "wmt22_chat_en-ptbr_mqm": {"jar": 0.459, "nltk": 0.406, "chrF": 0.538},
    "lalic_fapesp_en-ptbr_errors": {"jar": 0.604, "nltk": 0.713, "chrF": 0.634},
}


@dataclass
class Dataset:
    name: str
    refs: list[str]
    systems: dict[str, list[str]]
    human: dict[tuple[str, int], float]  # (system, segment) -> score, higher = better

    @property
    def segments(self) -> int:
        return len(self.refs)


def _lines(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return handle.read().split("\n")


def load_dataset(name: str, data: Path = DATA) -> Dataset:
    folder = data / "pt" / name
    refs = _lines(folder / "refs.txt")
    while refs and refs[-1] == "":
        refs.pop()
    systems = {
        path.name.removesuffix(".txt"): _lines(path)[: len(refs)]
        for path in sorted((folder / "hyps").glob("*.txt"))
        if not path.name.endswith(".tok.txt")
    }
    human: dict[tuple[str, int], float] = {}
    with open(folder / "human_scores_seg.tsv", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader)
        for row in reader:
            human[(row[0], int(row[1]))] = float(row[2])
    return Dataset(name, refs, systems, human)


# -- agreement ----------------------------------------------------------------------------


def kendall_tau(
    scores: Mapping[str, Sequence[float]], data: Dataset, subset: str = "all"
) -> tuple[float, int]:
    """WMT DARR-style τ over same-segment system pairs, and the number of pairs used."""
    names = sorted(data.systems)
    segments = sorted({i for _, i in data.human})
    concordant = discordant = 0
    for i in segments:
        if (subset == "even" and i % 2) or (subset == "odd" and not i % 2):
            continue
        judged = [s for s in names if (s, i) in data.human]
        for a_pos, a in enumerate(judged):
            for b in judged[a_pos + 1 :]:
                h = data.human[(a, i)] - data.human[(b, i)]
                if h == 0:
                    continue
                m = scores[a][i] - scores[b][i]
                if m != 0 and (m > 0) == (h > 0):
                    concordant += 1
                else:
                    discordant += 1
    n = concordant + discordant
    return ((concordant - discordant) / n if n else math.nan), n


def pearson(scores: Mapping[str, Sequence[float]], data: Dataset) -> float:
    xs: list[float] = []
    ys: list[float] = []
    for (system, i), h in data.human.items():
        xs.append(float(scores[system][i]))
        ys.append(h)
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else math.nan


# -- metrics -------------------------------------------------------------------------------


Skip = agreement.Skip

Metric = Callable[[Dataset], dict[str, list[float]]]


@dataclass
class Timing:
    setup_s: float = 0.0
    segments: int = 0
    scoring_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def meteorx_metric(config: str, timing: Timing) -> Metric:
    from meteorx.metric import Scorer

    start = time.perf_counter()
    scorer = Scorer(config)
    timing.setup_s = time.perf_counter() - start

    def run(data: Dataset) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for system, hyps in data.systems.items():
            begin = time.perf_counter()
            out[system] = [scorer.segment(h, r).score for h, r in zip(hyps, data.refs, strict=True)]
            timing.scoring_s += time.perf_counter() - begin
            timing.segments += len(hyps)
        return out

    return run


def jar_metric(data: Dataset) -> dict[str, list[float]]:
    from tests.oracle import jar as oracle

    reason = oracle.unavailable_reason()
    if reason:
        raise Skip(reason)
    tok = agreement.tok13a()
    out: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        ref_path = Path(tmp) / "ref.txt"
        ref_path.write_text("\n".join(tok(r) for r in data.refs) + "\n", encoding="utf-8")
        for system, hyps in data.systems.items():
            hyp_path = Path(tmp) / f"{system}.txt"
            hyp_path.write_text("\n".join(tok(h) for h in hyps) + "\n", encoding="utf-8")
            result = oracle.run_jar(hyp_path, ref_path, ["-l", "pt", "-lower"])
            if len(result.segment_scores) != len(hyps):
                raise Skip(f"the jar returned {len(result.segment_scores)} scores for {len(hyps)}")
            out[system] = list(result.segment_scores)
    return out


def nltk_metric(data: Dataset) -> dict[str, list[float]]:
    systems = list(data.systems)
    scores = agreement.nltk_sentence_scores(data.refs, [data.systems[s] for s in systems])
    return dict(zip(systems, scores, strict=True))


def chrf_metric(data: Dataset) -> dict[str, list[float]]:
    import sacrebleu

    return {
        system: [
            sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(hyps, data.refs, strict=True)
        ]
        for system, hyps in data.systems.items()
    }


def bleu_metric(data: Dataset) -> dict[str, list[float]]:
    import sacrebleu

    return {
        system: [
            sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, data.refs, strict=True)
        ]
        for system, hyps in data.systems.items()
    }


# -- main ------------------------------------------------------------------------------------


def _label(config: str) -> str:
    return Path(config).stem if config.endswith((".yaml", ".yml")) else config


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--config",
        action="append",
        metavar="PRESET|FILE",
        help="meteorx configuration to evaluate (repeatable; default: pt)",
    )
    parser.add_argument(
        "--skip", default="", metavar="LIST", help="comma-separated: jar, nltk, chrF, BLEU"
    )
    parser.add_argument("--folds", action="store_true", help="also print τ on even/odd halves")
    parser.add_argument("--json", metavar="OUT", help="write every number as JSON")
    args = parser.parse_args(argv)

    missing = [n for n in DATASETS if not (DATA / "pt" / n / "human_scores_seg.tsv").is_file()]
    if missing:
        print(f"data not found under {DATA / 'pt'}: {', '.join(missing)} (set METEORX_DATA)")
        return 2
    datasets = [load_dataset(n) for n in DATASETS]
    skip = {s.strip().lower() for s in args.skip.split(",") if s.strip()}

    metrics: list[tuple[str, Metric]] = []
    timings: dict[str, Timing] = {}
    for config in args.config or ["pt"]:
        timing = timings[config] = Timing()
        metrics.append((f"meteorx:{_label(config)}", meteorx_metric(config, timing)))
    baselines: list[tuple[str, Metric]] = [
        ("jar", jar_metric),
        ("nltk", nltk_metric),
        ("chrF", chrf_metric),
        ("BLEU", bleu_metric),
    ]
    metrics.extend((name, fn) for name, fn in baselines if name.lower() not in skip)

    results: dict[str, dict[str, dict[str, float]]] = {}
    for name, fn in metrics:
        for data in datasets:
            try:
                scores = fn(data)
            except Skip as why:
                print(f"skipped {name} on {data.name}: {why}", file=sys.stderr)
                continue
            tau, pairs = kendall_tau(scores, data)
            row = {"tau": tau, "pairs": float(pairs), "pearson": pearson(scores, data)}
            if args.folds:
                row["tau_even"] = kendall_tau(scores, data, "even")[0]
                row["tau_odd"] = kendall_tau(scores, data, "odd")[0]
            results.setdefault(name, {})[data.name] = row

    short = {
        "wmt22_chat_en-ptbr_mqm": "WMT22 chat (MQM)",
        "lalic_fapesp_en-ptbr_errors": "FAPESP (errors)",
    }
    header = "| metric | " + " | ".join(f"{short[d]} τ | r" for d in DATASETS) + " |"
    print(header)
    print("|---|" + "---|---|" * len(DATASETS))
    for name, per in results.items():
        cells = []
        for d in DATASETS:
            found = per.get(d)
            cells.append(f"{found['tau']:.3f} | {found['pearson']:.3f}" if found else "— | —")
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.folds:
        print("\nτ on even / odd segment halves:")
        for name, per in results.items():
            parts = [
                f"{short[d]} {per[d]['tau_even']:.3f} / {per[d]['tau_odd']:.3f}"
                for d in DATASETS
                if d in per
            ]
            print(f"  {name}: " + "; ".join(parts))
    print()
    for d in DATASETS:
        pairs = next((int(per[d]["pairs"]) for per in results.values() if d in per), 0)
        prev = ", ".join(f"{k} {v:.3f}" for k, v in PREVIOUS[d].items())
        print(f"{short[d]}: {pairs} informative pairs; previously measured τ: {prev}")
    for config, t in timings.items():
        if t.segments:
            print(
                f"meteorx:{_label(config)}: set-up {t.setup_s:.2f} s, "
                f"{t.segments / t.scoring_s:.0f} segments/s ({t.segments} segments)"
            )
    if args.json:
        payload = {
            "results": results,
            "speed": {
                c: {"setup_s": t.setup_s, "segments": t.segments, "scoring_s": t.scoring_s}
                for c, t in timings.items()
            },
        }
        Path(args.json).write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
