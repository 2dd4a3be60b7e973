"""The development sets with human judgments, and how agreement with them is measured.

Shared by ``benchmarks/human_agreement.py`` (and usable by any other benchmark). The
data live under ``$METEORX_DATA`` (default ``<repo>/../shared/data``); each folder's
README says how its files are laid out and which measure WMT uses on them:

* ``wmt21-dev/de-en``, ``ja-en``: segment DA. Segment τ is WMT's "DARR": every pair of
  systems' translations of one segment whose raw DA scores differ by more than 25
  points, leaving out pairs of identical translations; a metric tie is discordant.
  System level: Pearson r against the official z.
* ``wmt21-dev/en-de``: system z only (reference A).
* ``pt/wmt22_chat_en-ptbr_mqm`` (MQM), ``pt/lalic_fapesp_en-ptbr_errors`` (minus the
  number of errors): τ over every pair of the two systems' translations of a segment
  whose human scores differ (identical translations left out, metric ties
  discordant). Two systems: no system level.
* ``pt/maia_chat_en-ptbr_mtpe``: one system, HTER against its post-edit (lower is
  better, negated here). No pairs of systems exist, so its segment τ is Kendall τ-b
  between metric and −HTER over all segments.
* ``mqm20/ted_en-de``, ``ted_zh-en``: expert MQM (negated penalty), 13 systems; segment
  τ over pairs of systems' translations of a segment as for the Portuguese MQM sets,
  system level against ``human_scores_sys.json``. The README's chrF anchor is τ-b over
  all items pooled; :func:`pooled_tau_b` computes that too (to check the loading).
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from meteorx import metaeval as M

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class Skip(Exception):
    """A metric that cannot run here (the message says why)."""


def tok13a() -> Callable[[str], str]:
    """sacreBLEU's 13a tokenizer, the tokenisation the anchors score on."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tokenizer: Callable[[str], str] = Tokenizer13a()  # type: ignore[no-untyped-call]
    return tokenizer


def nltk_sentence_scores(
    refs: Sequence[str], systems: Sequence[Sequence[str]]
) -> list[list[float]]:
    """NLTK's ``meteor_score`` of each system's lines against ``refs``, on 13a tokens
    (NLTK's WordNet built from a system WordNet when NLTK has none); Skip if impossible."""
    try:
        from nltk.corpus import wordnet
        from nltk.translate.meteor_score import meteor_score
    except ImportError as error:
        raise Skip(f"NLTK is not installed ({error})") from None
    try:
        wordnet.ensure_loaded()
    except LookupError:
        try:
            from meteorx_plugins.nltk_compat import build_nltk_data

            build_nltk_data()
            wordnet.ensure_loaded()
        except Exception as error:
            raise Skip(f"no WordNet for NLTK: {type(error).__name__}: {error}") from None
    tok = tok13a()
    ref_tokens = [tok(r).split() for r in refs]
    return [
        [meteor_score([r], tok(h).split()) for h, r in zip(hyps, ref_tokens, strict=True)]
        for hyps in systems
    ]


@dataclass
class DevSet:
    """One development set: outputs, one reference, human judgments, measures."""

    name: str  # short label, e.g. "wmt21 de-en"
    folder: str  # relative to the data root
    source: str  # source language code
    target: str  # target language code
    refs: list[str]
    systems: list[str]
    hyps: list[list[str]]  # [system][segment]
    #: (system index, segment) -> human score, higher = better (None: no segment data)
    seg_human: dict[tuple[int, int], float] | None
    #: seg Pearson target when it differs from seg_human (DA: z rather than raw)
    seg_pearson_human: dict[tuple[int, int], float] | None = None
    sys_human: dict[str, float] | None = None
    threshold: float = 0.0  # pairs must differ by more than this (DARR: 25)
    #: "pairs": τ over same-segment pairs of systems; "tau-b": τ-b over all items
    seg_measure: str = "pairs"
    notes: list[str] = field(default_factory=list)

    @property
    def n_segments(self) -> int:
        return len(self.refs)

    @property
    def language(self) -> str:
        return self.target


def _lines(path: Path) -> list[str]:
    """Lines of a UTF-8 file split on newlines only (not on U+2028 and friends)."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _wmt21(root: Path, pair: str) -> DevSet:
    folder = root / "wmt21-dev" / pair
    source, target = pair.split("-")
    refs = _lines(folder / f"ref.A.{target}")
    sys_json = json.loads((folder / "human_sys.json").read_text(encoding="utf-8"))
    names = sorted(p.name.removesuffix(f".{target}") for p in (folder / "hyp").iterdir())
    names = [n for n in names if n in sys_json]
    hyps = [_lines(folder / "hyp" / f"{n}.{target}") for n in names]
    index = {n: k for k, n in enumerate(names)}
    raw: dict[tuple[int, int], float] | None = None
    z: dict[tuple[int, int], float] | None = None
    if (folder / "human_seg.tsv").is_file():
        raw, z = {}, {}
        with open(folder / "human_seg.tsv", encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                if row["system"] in index:
                    key = (index[row["system"]], int(row["line"]) - 1)
                    raw[key] = float(row["raw"])
                    z[key] = float(row["z"])
    return DevSet(
        name=f"wmt21 {pair}",
        folder=f"wmt21-dev/{pair}",
        source=source,
        target=target,
        refs=refs,
        systems=names,
        hyps=hyps,
        seg_human=raw,
        seg_pearson_human=z,
        sys_human={n: float(sys_json[n]["z"]) for n in names},
        threshold=25.0,
    )


def _pt(root: Path, name: str, label: str, lower_is_better: bool = False) -> DevSet:
    folder = root / "pt" / name
    refs = _lines(folder / "refs.txt")
    names = sorted(
        p.name.removesuffix(".txt")
        for p in (folder / "hyps").glob("*.txt")
        if not p.name.endswith(".tok.txt")
    )
    hyps = [_lines(folder / "hyps" / f"{n}.txt")[: len(refs)] for n in names]
    index = {n: k for k, n in enumerate(names)}
    sign = -1.0 if lower_is_better else 1.0
    seg: dict[tuple[int, int], float] = {}
    with open(folder / "human_scores_seg.tsv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            value = float(row["score"])
            if row["system"] in index and not math.isnan(value):
                seg[(index[row["system"]], int(row["segment_index"]))] = sign * value
    return DevSet(
        name=label,
        folder=f"pt/{name}",
        source="en",
        target="pt",
        refs=refs,
        systems=names,
        hyps=hyps,
        seg_human=seg,
        seg_measure="tau-b" if len(names) == 1 else "pairs",
    )


def _mqm20(root: Path, pair: str) -> DevSet:
    folder = root / "mqm20" / f"ted_{pair}"
    source, target = pair.split("-")
    refs = _lines(folder / "refs.txt")
    names = sorted(p.name.removesuffix(".txt") for p in (folder / "hyps").glob("*.txt"))
    hyps = [_lines(folder / "hyps" / f"{n}.txt") for n in names]
    index = {n: k for k, n in enumerate(names)}
    seg: dict[tuple[int, int], float] = {}
    with open(folder / "human_scores_seg.tsv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["system"] in index:
                seg[(index[row["system"]], int(row["segment_index"]))] = float(row["score"])
    sys_json = json.loads((folder / "human_scores_sys.json").read_text(encoding="utf-8"))
    return DevSet(
        name=f"ted {pair}",
        folder=f"mqm20/ted_{pair}",
        source=source,
        target=target,
        refs=refs,
        systems=names,
        hyps=hyps,
        seg_human=seg,
        sys_human={n: float(sys_json[n]) for n in names if n in sys_json},
    )


#: Every development set: key -> loader. Keys are what ``--sets`` takes.
LOADERS = {
    "de-en": lambda root: _wmt21(root, "de-en"),
    "ja-en": lambda root: _wmt21(root, "ja-en"),
    "en-de": lambda root: _wmt21(root, "en-de"),
    "pt-chat": lambda root: _pt(root, "wmt22_chat_en-ptbr_mqm", "pt chat MQM"),
    "pt-fapesp": lambda root: _pt(root, "lalic_fapesp_en-ptbr_errors", "pt FAPESP errors"),
    "pt-maia": lambda root: _pt(root, "maia_chat_en-ptbr_mtpe", "pt MAIA HTER", True),
    "ted-en-de": lambda root: _mqm20(root, "en-de"),
    "ted-zh-en": lambda root: _mqm20(root, "zh-en"),
}
SET_FOLDERS = {
    "de-en": "wmt21-dev/de-en",
    "ja-en": "wmt21-dev/ja-en",
    "en-de": "wmt21-dev/en-de",
    "pt-chat": "pt/wmt22_chat_en-ptbr_mqm",
    "pt-fapesp": "pt/lalic_fapesp_en-ptbr_errors",
    "pt-maia": "pt/maia_chat_en-ptbr_mtpe",
    "ted-en-de": "mqm20/ted_en-de",
    "ted-zh-en": "mqm20/ted_zh-en",
}


def load(key: str, root: Path = DATA) -> DevSet:
    """The development set ``key`` (one of :data:`LOADERS`)."""
    data = LOADERS[key](root)
    for k, lines in enumerate(data.hyps):
        if len(lines) != data.n_segments:
            raise ValueError(
                f"{data.folder}: system {data.systems[k]} has {len(lines)} lines, "
                f"the reference {data.n_segments}"
            )
    return data


def missing(keys: Sequence[str], root: Path = DATA) -> list[str]:
    """The folders of ``keys`` absent under ``root``."""
    return [SET_FOLDERS[k] for k in keys if not (root / SET_FOLDERS[k]).is_dir()]


# -- measures (every one computed by meteorx.metaeval, as `meteorx correlate` does) ----


@dataclass
class Measures:
    """One set's segment and system measures, built once.

    Metric scores come as an array of shape (systems, segments)."""

    data: DevSet
    human: FloatArray  # (systems, segments): human segment scores, NaN where none
    segment: M.PairTau | M.TauB | None  # the set's segment measure
    better: IntArray  # flat item indices (system * segments + segment) of pair members
    worse: IntArray
    items: IntArray  # judged items (flat indices), for τ-b / Pearson
    pearson_human: FloatArray
    sys_index: IntArray  # systems with a system-level human score
    sys_human: FloatArray

    @property
    def n_pairs(self) -> int:
        return int(self.better.size)

    @property
    def has_segments(self) -> bool:
        return self.items.size > 0

    @property
    def has_system(self) -> bool:
        return self.sys_index.size >= 3

    @property
    def seg_count(self) -> int:
        """Pairs (pair measure) or items (τ-b): the n behind the segment τ."""
        return self.segment.n if self.segment is not None else 0


def measures(data: DevSet) -> Measures:
    n = data.n_segments
    human = np.full((len(data.systems), n), np.nan)
    pearson_human = np.full_like(human, np.nan)
    seg = data.seg_human or {}
    ph = data.seg_pearson_human or seg
    for (s, i), h in seg.items():
        human[s, i] = h
        pearson_human[s, i] = ph.get((s, i), math.nan)
    items = np.flatnonzero(~np.isnan(human.reshape(-1))).astype(np.int64)
    segment: M.PairTau | M.TauB | None = None
    better = worse = np.zeros(0, dtype=np.int64)
    if items.size and data.seg_measure == "pairs":
        segment = M.PairTau(human, data.threshold, M.identical_outputs(data.hyps))
        better = segment.better * n + segment.segment
        worse = segment.worse * n + segment.segment
    elif items.size:
        segment = M.TauB(human)
    sys_index = [k for k, name in enumerate(data.systems) if name in (data.sys_human or {})]
    sys_human = [(data.sys_human or {})[data.systems[k]] for k in sys_index]
    return Measures(
        data,
        human,
        segment,
        better,
        worse,
        items,
        pearson_human.reshape(-1)[items],
        np.asarray(sys_index, dtype=np.int64),
        np.asarray(sys_human, dtype=np.float64),
    )


def seg_tau(scores: FloatArray, m: Measures) -> float:
    """The set's segment-level τ (its README's convention)."""
    if m.segment is None or not m.segment.n:
        return math.nan
    return float(m.segment.values(scores.reshape(m.human.shape), np.ones((1, m.human.shape[1])))[0])


def pooled_tau_b(scores: FloatArray, m: Measures) -> float:
    """τ-b over every judged item pooled (the mqm20 README's chrF anchor)."""
    return M.kendall_tau_b(scores.reshape(-1)[m.items], m.human.reshape(-1)[m.items])


def pearson(x: FloatArray, y: FloatArray) -> float:
    """Pearson r over the pairs where neither side is NaN (NaN below three)."""
    keep = ~(np.isnan(x) | np.isnan(y))
    if np.count_nonzero(keep) < 3:
        return math.nan
    return float(M.pearson(x[keep], y[keep]))


def seg_pearson(scores: FloatArray, m: Measures) -> float:
    return pearson(scores.reshape(-1)[m.items], m.pearson_human)


def sys_pearson(system_scores: FloatArray, m: Measures) -> float:
    """Pearson r of per-system scores (array over all systems) with the human ones."""
    if not m.has_system:
        return math.nan
    return pearson(np.asarray(system_scores, dtype=np.float64)[m.sys_index], m.sys_human)
