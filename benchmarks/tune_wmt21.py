"""Tune METEOR's parameters on real human judgments, judged on held-out segments.

For each language pair: align every system output once, split the segments in two
halves (whole documents, seed 1), tune α β γ δ and the stage weights on the first half
(``meteorx.tune``), then report agreement with humans for the default and the tuned
parameters on both halves — the held-out half is the honest number. With
``--write-configs`` the tuned configurations are written to ``configs/tuned/``
(usable as ``--preset tuned/<pair>``).

Data (see the READMEs under the shared data folder):

* ``wmt21-dev/de-en``, ``ja-en``: segment DA (raw for DARR τ, z for Pearson) and
  system z; objective: segment DARR τ.
* ``wmt21-dev/en-de``: system z only (reference A, as in the README's anchors);
  objective: system Pearson r.
* ``pt/wmt22_chat_en-ptbr_mqm``: segment MQM; objective: DARR τ (pairs differing by
  more than 25 MQM points). The tuned parameters are also applied, without re-tuning,
  to two other English→Portuguese sets: FAPESP (minus error counts, every pair of
  different counts) and MAIA chat (HTER, lower is better; Pearson).

    python benchmarks/tune_wmt21.py [--data ../shared/data] [--jobs 2] [--write-configs]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from meteorx import tune as T  # noqa: E402
from meteorx.config import MeteorConfig, load_config  # noqa: E402
from meteorx.errors import InputError  # noqa: E402

TO_ENGLISH: dict[str, Any] = {
    # Meteor 1.5's English defaults (-l en -norm) without the paraphrase stage.
    "extends": "meteor-1.5-en",
    "normalize": "meteor",
    "stages": [
        {"matcher": "exact", "weight": 1.0},
        {"matcher": "stem", "weight": 0.6},
        {"matcher": "synonym", "weight": 0.8},
    ],
}
TO_GERMAN: dict[str, Any] = {
    # Meteor 1.5's German defaults (-l de -norm) without the paraphrase stage, with the
    # jar's German function-word list.
    "extends": "meteor-1.5-de",
    "normalize": "meteor",
    "function_words": "meteor-1.5",
    "stages": [{"matcher": "exact", "weight": 1.0}, {"matcher": "stem", "weight": 0.8}],
}
TO_PORTUGUESE: dict[str, Any] = {
    # Meteor 1.5's Portuguese defaults (-l pt -lower). With delta = 0.5 the function-word
    # list changes nothing, so the default scores equal the preset's; it lets the search
    # move delta.
    "extends": "meteor-1.5-pt",
    "normalize": "lower",
    "function_words": "builtin",
}

#: The README's anchor values for the Meteor 1.5 jar (seg DARR τ / seg Pearson; sys r).
ANCHORS = {
    "de-en": "jar: seg τ .015, seg r .233, sys r .389 (chrF: .069/.235/.353)",
    "ja-en": "jar: seg τ .094, seg r .272, sys r .806 (chrF: .119/.280/.832)",
    "en-de": "jar: sys r .512 (exact+stem) (chrF: .536)",
}


@dataclass
class Task:
    name: str
    folder: str
    base: dict[str, Any]
    objective: str
    refs: list[str]
    human_seg: str | None = None
    raw_column: str | None = None  # DARR
    pearson_column: str | None = None  # segment Pearson
    human_sys: str | None = None
    docs: str | None = None
    hyp_dir: str = "hyp"
    threshold: float = 25.0
    description: str = ""
    transfer: list[dict[str, Any]] = field(default_factory=list)


TASKS = [
    Task("de-en", "wmt21-dev/de-en", TO_ENGLISH, "seg-tau", ["ref.A.en"], "human_seg.tsv",
         "raw", "z", "human_sys.json", "docs.tsv",
         description="Meteor 1.5 English (exact stem synonym) tuned on WMT21 de-en DA"),
    Task("ja-en", "wmt21-dev/ja-en", TO_ENGLISH, "seg-tau", ["ref.A.en"], "human_seg.tsv",
         "raw", "z", "human_sys.json", "docs.tsv",
         description="Meteor 1.5 English (exact stem synonym) tuned on WMT21 ja-en DA"),
    Task("en-de", "wmt21-dev/en-de", TO_GERMAN, "sys-pearson", ["ref.A.de"],
         human_sys="human_sys.json",
         description="Meteor 1.5 German (exact stem) tuned on WMT21 en-de system z"),
    Task("en-pt", "pt/wmt22_chat_en-ptbr_mqm", TO_PORTUGUESE, "seg-tau", ["refs.txt"],
         "human_scores_seg.tsv", "score", "score", docs="docids.txt", hyp_dir="hyps",
         description="Meteor 1.5 Portuguese (exact stem) tuned on WMT22 chat en-pt MQM",
         transfer=[
             {"name": "FAPESP (-errors)", "folder": "pt/lalic_fapesp_en-ptbr_errors",
              "objective": "seg-tau", "threshold": 0.0, "lower": False},
             {"name": "MAIA (HTER)", "folder": "pt/maia_chat_en-ptbr_mtpe",
              "objective": "seg-pearson", "threshold": 0.0, "lower": True},
         ]),
]  # fmt: skip


def _data(root: Path, task: Task, column: str | None) -> T.TuningData:
    folder = root / task.folder
    seg = {}
    if task.human_seg and column:
        seg, _ = T.read_human_segments(str(folder / task.human_seg), score_column=column)
    sys_scores = T.read_human_systems(str(folder / task.human_sys)) if task.human_sys else None
    return T.load_tuning_data(
        str(folder / task.hyp_dir),
        [str(folder / r) for r in task.refs],
        seg,
        sys_scores,
        str(folder / task.docs) if task.docs else None,
        "*.txt" if task.hyp_dir == "hyps" else "*",
    )


def _measures(task: Task) -> list[tuple[str, str | None]]:
    """(objective, human column) pairs to report."""
    out: list[tuple[str, str | None]] = []
    if task.human_seg:
        out += [("seg-tau", task.raw_column), ("seg-pearson", task.pearson_column)]
    if task.human_sys or task.human_seg:
        out.append(("sys-pearson", task.raw_column))
    return out


def run_task(root: Path, task: Task, jobs: int, write: bool) -> list[str]:
    config: MeteorConfig = load_config(task.base)
    data = _data(root, task, task.raw_column)
    bank = T.StatsBank(config, data, jobs=jobs, show_progress=False)
    started = time.perf_counter()
    bank.stats(tuple(s.weight for s in config.stages))
    align_seconds = time.perf_counter() - started
    first, second = T.split_segments(data.n_segments, data.docs, seed=1)
    target = T.Objective(task.objective, data, first, task.threshold)
    result = T.tune(config, bank, target)
    lines = [
        f"## {task.name}: {len(data.systems)} systems x {data.n_segments} segments; "
        f"objective {task.objective} on half A ({len(first)} segments), "
        f"held-out half B ({len(second)})",
        f"   alignment {align_seconds:.0f} s (once), search {result.seconds:.1f} s "
        f"({result.evaluations} settings)",
        f"   default: {result.base.describe([s.stage_name for s in config.stages])}",
        f"   tuned:   {result.best.describe([s.stage_name for s in config.stages])}",
    ]
    if task.name in ANCHORS:
        lines.append(f"   anchors (all segments): {ANCHORS[task.name]}")
    lines.append(f"   {'measure':12s} {'all: default':>13s} {'A: default':>11s} "
                 f"{'A: tuned':>9s} {'B: default':>11s} {'B: tuned':>9s}")  # fmt: skip
    header: list[str] = []
    everything = list(range(data.n_segments))
    for measure, column in _measures(task):
        measure_data = data if column == task.raw_column else _data(root, task, column)
        try:
            T.Objective(measure, measure_data, everything, task.threshold)
        except InputError:
            continue  # e.g. system-level r with two systems
        cells = []
        for part, setting in (
            (everything, result.base),
            (first, result.base),
            (first, result.best),
            (second, result.base),
            (second, result.best),
        ):
            objective = T.Objective(measure, measure_data, part, task.threshold)
            cells.append(T.evaluate(bank, objective, setting, config.perfect_match_rule))
        label = f"{measure}" + (f" ({column})" if column and measure != "sys-pearson" else "")
        lines.append(f"   {label:18s} {cells[0]:+.4f}      {cells[1]:+.4f}    {cells[2]:+.4f}"
                     f"      {cells[3]:+.4f}    {cells[4]:+.4f}")  # fmt: skip
        header.append(f"  {label:18s} held-out half: {cells[3]:+.4f} -> {cells[4]:+.4f} "
                      f"(tuning half: {cells[1]:+.4f} -> {cells[2]:+.4f})")  # fmt: skip
    for other in task.transfer:
        folder = root / other["folder"]
        seg, _ = T.read_human_segments(str(folder / "human_scores_seg.tsv"),
                                       lower_is_better=other["lower"])  # fmt: skip
        odata = T.load_tuning_data(str(folder / "hyps"), [str(folder / "refs.txt")], seg,
                                   None, None, "*.txt")  # fmt: skip
        obank = T.StatsBank(config, odata, jobs=jobs, show_progress=False)
        objective = T.Objective(other["objective"], odata, range(odata.n_segments),
                                other["threshold"])  # fmt: skip
        before = T.evaluate(obank, objective, result.base, config.perfect_match_rule)
        after = T.evaluate(obank, objective, result.best, config.perfect_match_rule)
        lines.append(f"   transfer to {other['name']}, {other['objective']}, all "
                     f"{odata.n_segments} segments: {before:+.4f} -> {after:+.4f}")  # fmt: skip
        header.append(f"  transfer, {other['name']} {other['objective']}: "
                      f"{before:+.4f} -> {after:+.4f}")  # fmt: skip
    if write:
        tuned = T.tuned_config(config, result.best, f"tuned-{task.name}")
        text = T.config_yaml(tuned, [
            task.description,
            "",
            "Written by benchmarks/tune_wmt21.py (meteorx tune): alpha beta gamma delta and",
            "the stage weights but the first, searched on half of the segments (whole",
            f"documents, seed 1) of {task.folder} for {task.objective}; base configuration:",
            f"  {task.base}",
            "Agreement with human judgments, default -> tuned parameters:",
            *header,
            "Gains on held-out data are small; see the benchmark's output before relying",
            "on this configuration for anything but this kind of data.",
        ])  # fmt: skip
        path = REPO / "configs" / "tuned" / f"{task.name}.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        lines.append(f"   wrote {path.relative_to(REPO)}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
    parser.add_argument("--data", type=Path, default=default, help="shared data folder")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="alignment processes")
    parser.add_argument("--pairs", nargs="*", default=[t.name for t in TASKS])
    parser.add_argument("--write-configs", action="store_true",
                        help="write configs/tuned/<pair>.yaml")  # fmt: skip
    args = parser.parse_args()
    for task in TASKS:
        if task.name not in args.pairs:
            continue
        if not (args.data / task.folder).is_dir():
            print(f"## {task.name}: skipped, no data at {args.data / task.folder}")
            continue
        for line in run_task(args.data, task, args.jobs, args.write_configs):
            print(line, flush=True)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
