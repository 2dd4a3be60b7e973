"""Tuning α β γ δ and the stage weights to agree with human judgments.

The expensive part of METEOR — matching and alignment — does not depend on α β γ δ,
and with Meteor 1.5's aligner not on the stage weights either (its search uses fixed
weights, 1.0 for exact stages and 0.5 for the others). So every (system, segment,
reference) is aligned **once**, its sufficient statistics are stored in an array, and
each candidate setting only re-applies the formula (vectorised with numpy). Aligners
whose choices depend on the weights (``optimal``) are re-run once per distinct weight
vector tried, and cached.

Agreement measures, as WMT computes them:

* ``seg-tau`` — segment-level "DARR" Kendall-like τ: for each segment, every pair of
  systems whose human scores differ by more than a threshold (25 DA points) and whose
  outputs differ; τ = (concordant − discordant) / (concordant + discordant), a metric
  tie counting as discordant.
* ``seg-pearson`` — Pearson r between segment scores and human segment scores.
* ``sys-pearson`` — Pearson r between system scores (summed statistics) and human
  system scores (given, or the mean of the human segment scores).

Search: a coarse grid over α β γ δ (δ only when the configuration has function words;
without them δ cancels out), a finer grid around the best point, then a line search
over each stage weight but the first (fixed at 1, as in Meteor 1.5), repeated until
nothing improves. Segments can be split in two halves (by document when document ids
are given): tune on one, report on both, so the gain can be judged on held-out data.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import yaml

from meteorx.config import MeteorConfig
from meteorx.errors import InputError
from meteorx.inputs import read_lines
from meteorx.scorer import Scorer
from meteorx.scoring import Parameters
from meteorx.significance import stats_matrix

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

OBJECTIVES = ("seg-tau", "seg-pearson", "sys-pearson")
#: Aligners known to choose links independently of the configured stage weights.
WEIGHT_FREE_ALIGNERS = frozenset({"meteor-1.5", "nltk"})

_SEGMENT_COLUMNS = ("segment", "seg", "line", "segment_index", "seg_index", "index", "seg_id")
_SCORE_COLUMNS = ("score", "raw", "z", "human")


# -- human judgments and data -------------------------------------------------------


def read_human_segments(
    path: str,
    score_column: str | None = None,
    segment_base: int | None = None,
    lower_is_better: bool = False,
) -> tuple[dict[tuple[str, int], float], str]:
    """Segment judgments ``(system, 0-based segment) -> score`` from a TSV file.

    The file has columns system, segment, score (a header row names them; without a
    header the first three columns are used, segments 1-based). The segment column is
    the first of ``segment seg line segment_index …`` present; numbers are 1-based
    unless the column name contains "index" (override with ``segment_base``). The
    score column is ``score_column`` or the first of ``score raw z human``. Returns the
    judgments and a description of the columns used.
    """
    lines = [ln for ln in read_lines(path) if ln.strip()]
    if not lines:
        raise InputError(f"{path}: no human judgments")
    first = lines[0].split("\t")
    has_header = not _is_number(first[2] if len(first) > 2 else "")
    if has_header:
        header = [h.strip() for h in first]
        rows = lines[1:]
        sys_col = header.index("system") if "system" in header else 0
        seg_name = next((c for c in _SEGMENT_COLUMNS if c in header), None)
        if seg_name is None:
            raise InputError(f"{path}: no segment column (one of {', '.join(_SEGMENT_COLUMNS)})")
        if score_column is not None:
            if score_column not in header:
                raise InputError(
                    f"{path}: no column {score_column!r}; columns: {', '.join(header)}"
                )
            score_name = score_column
        else:
            found = next((c for c in _SCORE_COLUMNS if c in header), None)
            if found is None:
                raise InputError(f"{path}: no score column; name one with --human-score-column")
            score_name = found
        seg_col, score_col = header.index(seg_name), header.index(score_name)
        base = segment_base if segment_base is not None else (0 if "index" in seg_name else 1)
    else:
        rows = lines
        sys_col, seg_col, score_col = 0, 1, 2
        seg_name, score_name = "column 2", "column 3"
        base = segment_base if segment_base is not None else 1
    sign = -1.0 if lower_is_better else 1.0
    out: dict[tuple[str, int], float] = {}
    for number, line in enumerate(rows, 2 if has_header else 1):
        fields = line.split("\t")
        try:
            system = fields[sys_col]
            segment = int(fields[seg_col]) - base
            value = float(fields[score_col])
        except (IndexError, ValueError):
            raise InputError(f"{path}, line {number}: expected system, segment, score") from None
        if segment < 0:
            raise InputError(f"{path}, line {number}: segment {segment + base} below {base}")
        if not math.isnan(value):
            out[(system, segment)] = sign * value
    what = f"segment column {seg_name!r} ({base}-based), score column {score_name!r}" + (
        ", lower is better (negated)" if lower_is_better else ""
    )
    return out, what


def read_human_systems(
    path: str, key: str | None = None, lower_is_better: bool = False
) -> dict[str, float]:
    """System-level human scores: JSON ``{system: number | {key: number}}`` (or
    ``{"systems": {...}}``), or TSV ``system<TAB>score``."""
    text = "\n".join(read_lines(path))
    sign = -1.0 if lower_is_better else 1.0
    out: dict[str, float] = {}
    if text.lstrip().startswith("{"):
        data = json.loads(text)
        if isinstance(data.get("systems"), dict):
            data = data["systems"]
        for system, value in data.items():
            if isinstance(value, dict):
                k = key or next((c for c in ("z", "score", "raw") if c in value), None)
                if k is None or k not in value:
                    raise InputError(f"{path}: system {system!r} has no {key or 'z/score/raw'}")
                value = value[k]
            if isinstance(value, (int, float)):
                out[str(system)] = sign * float(value)
        return out
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("\t")
        if len(fields) < 2 or not _is_number(fields[-1]):
            if number == 1:
                continue  # a header
            raise InputError(f"{path}, line {number}: expected system<TAB>score")
        out[fields[0]] = sign * float(fields[-1])
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_documents(path: str, n_segments: int) -> list[str]:
    """Document id of every segment: a file with one id per line (first column), or
    WMT-style ``docid first_line(1-based) n_lines`` ranges."""
    lines = [ln for ln in read_lines(path) if ln.strip()]
    fields = [ln.split("\t") for ln in lines]
    if len(lines) != n_segments and all(
        len(f) >= 3 and f[1].isdigit() and f[2].isdigit() for f in fields
    ):
        docs = [""] * n_segments
        for f in fields:
            start, count = int(f[1]) - 1, int(f[2])
            for i in range(start, min(n_segments, start + count)):
                docs[i] = f[0]
        if any(not d for d in docs):
            raise InputError(f"{path}: the document ranges do not cover all {n_segments} lines")
        return docs
    if len(lines) != n_segments:
        raise InputError(f"{path} has {len(lines)} lines for {n_segments} segments")
    return [f[0] for f in fields]


def discover_systems(hyp_dir: str, pattern: str = "*") -> dict[str, Path]:
    """``system name -> file`` for the files in ``hyp_dir`` (name = file name without
    its last extension: ``Online-A.en`` -> ``Online-A``, ``NMT.txt`` -> ``NMT``)."""
    folder = Path(hyp_dir)
    if not folder.is_dir():
        raise InputError(f"--hyp-dir {hyp_dir}: not a directory")
    out = {}
    for path in sorted(folder.glob(pattern)):
        if path.is_file() and not path.name.startswith("."):
            out[path.stem if path.suffix else path.name] = path
    if not out:
        raise InputError(f"no hypothesis files in {hyp_dir} matching {pattern!r}")
    return out


@dataclass
class TuningData:
    """Systems' outputs, references and human judgments, aligned by segment."""

    systems: list[str]
    hyps: list[list[str]]  # [system][segment]
    refs: list[list[str]]  # [reference][segment]
    human_seg: dict[tuple[str, int], float] = field(default_factory=dict)
    human_sys: dict[str, float] | None = None
    docs: list[str] | None = None
    skipped: list[str] = field(default_factory=list)  # systems without human scores

    @property
    def n_segments(self) -> int:
        return len(self.refs[0]) if self.refs else 0


def load_tuning_data(
    hyp_dir: str,
    ref_paths: Sequence[str],
    human_seg: dict[tuple[str, int], float] | None = None,
    human_sys: dict[str, float] | None = None,
    docs_path: str | None = None,
    pattern: str = "*",
) -> TuningData:
    """Read every system of ``hyp_dir`` that has human judgments, and the references."""
    if not human_seg and not human_sys:
        raise InputError("tuning needs human judgments (--human and/or --human-sys)")
    refs = [read_lines(p) for p in ref_paths]
    if not refs:
        raise InputError("tuning needs at least one --ref")
    n = len(refs[0])
    for path, lines in zip(ref_paths, refs, strict=True):
        if len(lines) != n:
            raise InputError(f"{path} has {len(lines)} lines, {ref_paths[0]} has {n}")
    judged = {s for s, _ in (human_seg or {})} | set(human_sys or {})
    names, hyps, skipped = [], [], []
    for name, file in discover_systems(hyp_dir, pattern).items():
        if name not in judged:
            skipped.append(name)
            continue
        lines = read_lines(file)
        if len(lines) != n:
            raise InputError(f"{file} has {len(lines)} lines but the references have {n}")
        names.append(name)
        hyps.append(lines)
    if not names:
        raise InputError(
            f"no system in {hyp_dir} has human judgments (file names, without extension, "
            "must match the system column)"
        )
    for system, segment in human_seg or {}:
        if segment >= n:
            raise InputError(
                f"human judgment for {system!r} segment {segment} (0-based) is beyond the "
                f"{n} reference lines; check the segment numbering (--segment-base)"
            )
    docs = read_documents(docs_path, n) if docs_path else None
    return TuningData(names, hyps, refs, dict(human_seg or {}), human_sys, docs, skipped)


def split_segments(
    n_segments: int, docs: Sequence[str] | None, seed: int = 1
) -> tuple[list[int], list[int]]:
    """Two halves of the segments (whole documents stay together), at random."""
    rng = random.Random(seed)
    if docs is None:
        units = [[i] for i in range(n_segments)]
    else:
        grouped: dict[str, list[int]] = {}
        for i, d in enumerate(docs):
            grouped.setdefault(d, []).append(i)
        units = list(grouped.values())
    rng.shuffle(units)
    first: list[int] = []
    second: list[int] = []
    for unit in units:
        (first if len(first) <= len(second) else second).extend(unit)
    return sorted(first), sorted(second)


# -- statistics ---------------------------------------------------------------------


class StatsBank:
    """Sufficient statistics of every (reference, system, segment), aligned once.

    ``stats(weights)`` returns an array of shape (references, systems, segments, row);
    with a weight-free aligner every weight vector shares one alignment.
    """

    def __init__(
        self,
        config: MeteorConfig,
        data: TuningData,
        jobs: int = 1,
        show_progress: bool | None = None,
    ) -> None:
        self.config = config
        self.data = data
        self.jobs = jobs
        self.show_progress = show_progress  # None: a bar when stderr is a terminal
        self.weight_free = config.aligner.name in WEIGHT_FREE_ALIGNERS
        self._cache: dict[tuple[float, ...], FloatArray] = {}
        self.alignments = 0

    def _key(self, weights: tuple[float, ...]) -> tuple[float, ...]:
        return () if self.weight_free else tuple(round(w, 6) for w in weights)

    def stats(self, weights: tuple[float, ...]) -> FloatArray:
        key = self._key(weights)
        if key not in self._cache:
            self._cache[key] = self._align(weights)
        return self._cache[key]

    def _align(self, weights: tuple[float, ...]) -> FloatArray:
        from meteorx.parallel import progress_bar, score_pairs

        stages = [
            stage.model_copy(update={"weight": w})
            for stage, w in zip(self.config.stages, weights, strict=True)
        ]
        scorer = Scorer(self.config.model_copy(update={"stages": tuple(stages)}))
        data = self.data
        pairs = [
            (hyp, [ref[i]]) for ref in data.refs for hyps in data.hyps for i, hyp in enumerate(hyps)
        ]
        label = "aligning" if self.weight_free else f"aligning (weights {list(weights)})"
        with progress_bar(len(pairs), label, enabled=self.show_progress) as bar:
            results = score_pairs(scorer, pairs, jobs=self.jobs, progress=bar, detail=False)
        self.alignments += 1
        n_stages = len(self.config.stages)
        matrix = stats_matrix([r.stats for r in results], n_stages)
        return matrix.reshape(len(data.refs), len(data.systems), data.n_segments, -1)


# -- vectorised scoring of parameter grids ------------------------------------------


@dataclass(frozen=True)
class _Parts:
    """Parameter-free quantities of a statistics array (last axis = row)."""

    hyp_c: FloatArray  # (…, stages) content matches, hyp side
    ref_c: FloatArray
    hyp_f: FloatArray
    ref_f: FloatArray
    hyp_len: FloatArray
    ref_len: FloatArray
    hyp_fn: FloatArray
    ref_fn: FloatArray
    frag: FloatArray  # nan-free: 0 where undefined (the score is 0 there anyway)


def _parts(rows: FloatArray, perfect_rule: bool) -> _Parts:
    n_stages = (rows.shape[-1] - 7) // 4
    blocks = rows[..., 4 : 4 + 4 * n_stages].reshape(*rows.shape[:-1], n_stages, 4)
    chunks, hyp_mw, ref_mw = rows[..., -3], rows[..., -2], rows[..., -1]
    matched = (hyp_mw + ref_mw) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        frag = np.where(matched > 0, chunks / np.where(matched > 0, matched, 1.0), 0.0)
    if perfect_rule:
        hyp_m = blocks[..., 0].sum(-1) + blocks[..., 2].sum(-1)
        ref_m = blocks[..., 1].sum(-1) + blocks[..., 3].sum(-1)
        perfect = (hyp_m == rows[..., 0]) & (ref_m == rows[..., 1]) & (chunks == 1)
        frag = np.where(perfect, 0.0, frag)
    return _Parts(
        blocks[..., 0],
        blocks[..., 1],
        blocks[..., 2],
        blocks[..., 3],
        rows[..., 0],
        rows[..., 1],
        rows[..., 2],
        rows[..., 3],
        frag,
    )


def _precision_recall(
    p: _Parts, delta: float, weights: Sequence[float]
) -> tuple[FloatArray, FloatArray]:
    w = np.asarray(weights, dtype=np.float64)
    # Explicit sums, not matmul: tiny BLAS calls crawl when BLAS threads compete for
    # the CPUs (and they do, next to worker processes).
    hyp_w = delta * (p.hyp_c * w).sum(-1) + (1.0 - delta) * (p.hyp_f * w).sum(-1)
    ref_w = delta * (p.ref_c * w).sum(-1) + (1.0 - delta) * (p.ref_f * w).sum(-1)
    hyp_len = delta * (p.hyp_len - p.hyp_fn) + (1.0 - delta) * p.hyp_fn
    ref_len = delta * (p.ref_len - p.ref_fn) + (1.0 - delta) * p.ref_fn
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(hyp_len != 0, hyp_w / np.where(hyp_len != 0, hyp_len, 1.0), 0.0)
        recall = np.where(ref_len != 0, ref_w / np.where(ref_len != 0, ref_len, 1.0), 0.0)
    return precision, recall


#: Score differences below this are ties (floating-point noise, not a preference).
_TIE = 1e-12


def _fmean(precision: FloatArray, recall: FloatArray, alpha: float) -> FloatArray:
    ok = (precision > 0) & (recall > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            ok,
            1.0
            / ((1.0 - alpha) / np.where(ok, precision, 1.0) + alpha / np.where(ok, recall, 1.0)),
            0.0,
        )


def _grid_scores(
    precision: FloatArray,
    recall: FloatArray,
    frag_pow: FloatArray,
    alpha: float,
    gammas: FloatArray,
) -> FloatArray:
    """Scores for one α and every (β, γ): shape (n_beta, n_gamma, *precision.shape).

    ``frag_pow`` holds frag**β for every β, shape (n_beta, *precision.shape).
    """
    fmean = _fmean(precision, recall, alpha)
    shape_g = (1, len(gammas)) + (1,) * precision.ndim
    penalty = gammas.reshape(shape_g) * frag_pow[:, None]
    return np.maximum(fmean * (1.0 - penalty), 0.0)


# -- objectives ---------------------------------------------------------------------


def _dot(a: FloatArray, b: FloatArray) -> float:
    return float(np.multiply(a, b).sum())


def _pearson_rows(x: FloatArray, y: FloatArray) -> FloatArray:
    """Pearson r of every row of ``x`` (…, m) with ``y`` (m,); undefined -> 0."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean()
    denom = np.sqrt((xc * xc).sum(axis=-1) * float((yc * yc).sum()))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (xc * yc).sum(axis=-1) / denom
    return np.where(np.isfinite(r), r, 0.0)


def darr_pairs(
    data: TuningData, segments: Iterable[int], threshold: float = 25.0
) -> tuple[IntArray, IntArray]:
    """WMT DARR pairs among ``segments``: flat indices (system * n + segment) of the
    better and the worse translation of each pair."""
    n = data.n_segments
    index = {name: k for k, name in enumerate(data.systems)}
    by_segment: dict[int, list[tuple[int, float]]] = {}
    for (system, seg), value in data.human_seg.items():
        if system in index:
            by_segment.setdefault(seg, []).append((index[system], value))
    better, worse = [], []
    for seg in segments:
        judged = by_segment.get(seg, [])
        for a in range(len(judged)):
            for b in range(a + 1, len(judged)):
                (sa, ha), (sb, hb) = judged[a], judged[b]
                if abs(ha - hb) <= threshold:
                    continue
                if data.hyps[sa][seg] == data.hyps[sb][seg]:
                    continue  # identical outputs: no metric can separate them
                hi, lo = (sa, sb) if ha > hb else (sb, sa)
                better.append(hi * n + seg)
                worse.append(lo * n + seg)
    return np.asarray(better, dtype=np.int64), np.asarray(worse, dtype=np.int64)


class Objective:
    """One agreement measure on one part of the segments, for batches of settings."""

    def __init__(
        self,
        kind: str,
        data: TuningData,
        segments: Sequence[int],
        darr_threshold: float = 25.0,
    ) -> None:
        if kind not in OBJECTIVES:
            raise InputError(f"unknown objective {kind!r}; use one of: {', '.join(OBJECTIVES)}")
        self.kind = kind
        self.segments = np.asarray(sorted(segments), dtype=np.int64)
        n = data.n_segments
        self.needs_segments = kind != "sys-pearson"
        self.size = 0
        if kind == "seg-tau":
            self.better, self.worse = darr_pairs(data, self.segments.tolist(), darr_threshold)
            self.size = len(self.better)
            if not self.size:
                raise InputError(
                    "no DARR pairs: seg-tau needs segment judgments of several systems per "
                    f"segment differing by more than {darr_threshold:g}"
                )
        elif kind == "seg-pearson":
            index = {name: k for k, name in enumerate(data.systems)}
            wanted = set(self.segments.tolist())
            items = [
                (index[s] * n + seg, v)
                for (s, seg), v in sorted(data.human_seg.items())
                if s in index and seg in wanted
            ]
            if len(items) < 3:
                raise InputError("seg-pearson needs segment judgments")
            self.flat = np.asarray([i for i, _ in items], dtype=np.int64)
            self.target = np.asarray([v for _, v in items], dtype=np.float64)
            self.size = len(items)
        else:
            human = data.human_sys
            if human is None:  # the mean human segment score over this part
                wanted = set(self.segments.tolist())
                sums: dict[str, list[float]] = {}
                for (s, seg), v in data.human_seg.items():
                    if seg in wanted:
                        sums.setdefault(s, []).append(v)
                human = {s: sum(v) / len(v) for s, v in sums.items()}
            keep = [k for k, s in enumerate(data.systems) if s in human]
            if len(keep) < 3:
                raise InputError("sys-pearson needs human scores for at least 3 systems")
            self.systems = np.asarray(keep, dtype=np.int64)
            self.target = np.asarray([human[data.systems[k]] for k in keep], dtype=np.float64)
            self.size = len(keep)
        self.n_segments = n

    def from_segment_scores(self, scores: FloatArray) -> FloatArray:
        """Objective values from segment scores (…, systems, segments of this part)."""
        flat = scores.reshape(*scores.shape[:-2], -1)
        n_part = len(self.segments)
        if self.kind == "seg-tau":
            b = self._remap(self.better, n_part)
            w = self._remap(self.worse, n_part)
            concordant = np.count_nonzero(flat[..., b] - flat[..., w] > _TIE, axis=-1)
            tau: FloatArray = (2.0 * concordant - self.size) / self.size
            return tau
        f = self._remap(self.flat, n_part)
        return _pearson_rows(flat[..., f], self.target)

    def from_system_scores(self, scores: FloatArray) -> FloatArray:
        """Objective values from system scores (…, systems)."""
        return _pearson_rows(scores[..., self.systems], self.target)

    def _remap(self, flat: IntArray, n_part: int) -> IntArray:
        # Flat (system * n + segment) -> (system * n_part + position in this part).
        position = np.full(self.n_segments, -1, dtype=np.int64)
        position[self.segments] = np.arange(n_part)
        system, segment = np.divmod(flat, self.n_segments)
        return system * n_part + position[segment]


# -- evaluation of settings ---------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """α β γ δ and stage weights."""

    alpha: float
    beta: float
    gamma: float
    delta: float
    weights: tuple[float, ...]

    def parameters(self, perfect_match_rule: bool) -> Parameters:
        return Parameters(
            self.alpha, self.beta, self.gamma, self.delta, self.weights, perfect_match_rule
        )

    def describe(self, stage_names: Sequence[str]) -> str:
        ws = " ".join(f"{n}={w:g}" for n, w in zip(stage_names, self.weights, strict=True))
        return (
            f"alpha={self.alpha:g} beta={self.beta:g} gamma={self.gamma:g} "
            f"delta={self.delta:g} weights: {ws}"
        )


class Evaluator:
    """Objective values of parameter grids on one part of the segments.

    With one reference, a segment's score is ``F(α, δ, w) · (1 − γ·frag^β)`` (the
    penalty never exceeds 1, so the clamp at 0 is inactive, and segments with nothing
    matched have F = 0). The segment-level objectives then need, per (δ, w, α, β),
    only a few vectors: DARR τ compares ``A − γ·B`` with 0 for every pair (A and B are
    differences of F and F·frag^β between the two translations), and Pearson r has a
    closed form in γ. Several references (each segment keeps its best) take the
    general path, which scores every segment.
    """

    def __init__(self, bank: StatsBank, objective: Objective, perfect_rule: bool) -> None:
        self.bank = bank
        self.objective = objective
        self.perfect_rule = perfect_rule
        self._prepared_cache: dict[int, tuple[_Parts, dict[Any, Any]]] = {}
        self.evaluations = 0

    def _prepared(self, stats: FloatArray) -> tuple[_Parts, dict[Any, Any]]:
        key = id(stats)
        if key not in self._prepared_cache:
            part = stats[:, :, self.objective.segments, :]
            if not self.objective.needs_segments and stats.shape[0] == 1:
                part = part.sum(axis=2)  # one reference: system sums are fixed
            self._prepared_cache[key] = (_parts(part, self.perfect_rule), {})
        return self._prepared_cache[key]

    def grid(
        self,
        weights: tuple[float, ...],
        deltas: Sequence[float],
        alphas: Sequence[float],
        betas: Sequence[float],
        gammas: Sequence[float],
    ) -> tuple[float, Setting]:
        """The best value and setting over the product grid (the first best wins ties)."""
        stats = self.bank.stats(weights)
        parts, cache = self._prepared(stats)
        g = np.asarray(gammas, dtype=np.float64)
        obj = self.objective
        single_ref = stats.shape[0] == 1
        fast = single_ref and obj.needs_segments and float(parts.frag.max(initial=0.0)) <= 1.0
        best_value = -math.inf
        best = Setting(alphas[0], betas[0], gammas[0], deltas[0], weights)
        for delta in deltas:
            precision, recall = _precision_recall(parts, delta, weights)
            for alpha in alphas:
                fmean = _fmean(precision, recall, alpha)
                if fast:
                    values = self._fast_values(fmean, parts.frag, cache, betas, g)
                elif not obj.needs_segments and single_ref:
                    values = self._system_values(fmean, parts.frag, betas, g)
                else:
                    values = self._general_values(
                        stats, precision, recall, parts.frag, delta, weights, alpha, betas, g
                    )
                self.evaluations += values.size
                k = int(np.argmax(values))
                if values.flat[k] > best_value + 1e-12:
                    bi, gi = np.unravel_index(k, values.shape)
                    best_value = float(values.flat[k])
                    best = Setting(alpha, betas[int(bi)], gammas[int(gi)], delta, weights)
        return best_value, best

    # One reference, segment-level objectives.
    def _fast_values(
        self,
        fmean: FloatArray,
        frag: FloatArray,
        cache: dict[Any, Any],
        betas: Sequence[float],
        gammas: FloatArray,
    ) -> FloatArray:
        obj = self.objective
        f_flat = fmean.reshape(-1)  # (systems * part segments)
        frag_flat = frag.reshape(-1)
        out = np.empty((len(betas), len(gammas)))
        n_part = len(obj.segments)
        if obj.kind == "seg-tau":
            if "pairs" not in cache:
                cache["pairs"] = (obj._remap(obj.better, n_part), obj._remap(obj.worse, n_part))
            b, w = cache["pairs"]
            fb, fw = f_flat[b], f_flat[w]
            a = fb - fw
            for bi, beta in enumerate(betas):
                key = ("tau", beta)
                if key not in cache:
                    cache[key] = (np.power(frag_flat[b], beta), np.power(frag_flat[w], beta))
                pb, pw = cache[key]
                slope = fb * pb - fw * pw
                diff = a[None, :] - gammas[:, None] * slope[None, :]
                concordant = np.count_nonzero(diff > _TIE, axis=1)
                out[bi] = (2.0 * concordant - obj.size) / obj.size
            return out
        # seg-pearson: s = F - gamma * G with G = F * frag**beta; r in closed form.
        if "flat" not in cache:
            cache["flat"] = obj._remap(obj.flat, n_part)
        idx = cache["flat"]
        f = f_flat[idx]
        h = obj.target - obj.target.mean()
        ss_h = _dot(h, h)
        fc = f - f.mean()
        for bi, beta in enumerate(betas):
            key = ("pearson", beta)
            if key not in cache:
                cache[key] = np.power(frag_flat[idx], beta)
            gv = f * cache[key]
            gc = gv - gv.mean()
            cov = _dot(fc, h) - gammas * _dot(gc, h)
            var = _dot(fc, fc) - 2.0 * gammas * _dot(fc, gc) + gammas**2 * _dot(gc, gc)
            with np.errstate(divide="ignore", invalid="ignore"):
                r = cov / np.sqrt(np.maximum(var, 0.0) * ss_h)
            out[bi] = np.where(np.isfinite(r), r, 0.0)
        return out

    # One reference, system level: statistics summed once, tiny arrays.
    def _system_values(
        self, fmean: FloatArray, frag: FloatArray, betas: Sequence[float], gammas: FloatArray
    ) -> FloatArray:
        # fmean, frag: (1, systems)
        frag_pow = np.power(frag[None], np.asarray(betas)[:, None, None])  # (nb, 1, S)
        scores = fmean[None, None] * (1.0 - gammas[None, :, None, None] * frag_pow[:, None])
        scores = np.maximum(scores, 0.0)[:, :, 0]  # (nb, ng, S)
        return self.objective.from_system_scores(scores)

    # Several references (or an unusual fragmentation): score every segment.
    def _general_values(
        self,
        stats: FloatArray,
        precision: FloatArray,
        recall: FloatArray,
        frag: FloatArray,
        delta: float,
        weights: tuple[float, ...],
        alpha: float,
        betas: Sequence[float],
        gammas: FloatArray,
    ) -> FloatArray:
        obj = self.objective
        frag_pow = np.stack([np.power(frag, b) for b in betas])
        scores = _grid_scores(precision, recall, frag_pow, alpha, gammas)
        if obj.needs_segments:
            # (n_beta, n_gamma, refs, systems, segments) -> each segment's best reference.
            return obj.from_segment_scores(scores.max(axis=2))
        part = stats[:, :, obj.segments, :]
        best_ref = scores.argmax(axis=2)  # (nb, ng, systems, segments)
        onehot = (best_ref[:, :, None] == np.arange(stats.shape[0])[:, None, None]).astype(
            np.float64
        )
        summed = np.einsum("bgrsn,rsnk->bgsk", onehot, part)
        sys_parts = _parts(summed, self.perfect_rule)
        sys_p, sys_r = _precision_recall(sys_parts, delta, weights)  # (nb, ng, systems)
        fm = _fmean(sys_p, sys_r, alpha)
        beta_arr = np.asarray(betas, dtype=np.float64)[:, None, None]
        penalty = gammas[None, :, None] * np.power(sys_parts.frag, beta_arr)
        return obj.from_system_scores(np.maximum(fm * (1.0 - penalty), 0.0))

    def value(self, setting: Setting) -> float:
        """The objective of one setting."""
        v, _ = self.grid(
            setting.weights, [setting.delta], [setting.alpha], [setting.beta], [setting.gamma]
        )
        return v


# -- the search ---------------------------------------------------------------------


def _frange(lo: float, hi: float, step: float) -> list[float]:
    n = round((hi - lo) / step)
    return [round(lo + k * step, 6) for k in range(n + 1)]


COARSE = {
    "alpha": _frange(0.0, 1.0, 0.1),
    "beta": [0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0],
    "gamma": _frange(0.0, 1.0, 0.1),
    "delta": _frange(0.0, 1.0, 0.1),
}
WEIGHT_GRID = _frange(0.0, 1.0, 0.1)
WEIGHT_GRID_REALIGN = _frange(0.0, 1.0, 0.25)


def _around(value: float, step: float, count: int, lo: float, hi: float | None) -> list[float]:
    out = []
    for k in range(-count, count + 1):
        v = round(value + k * step, 6)
        if v >= lo and (hi is None or v <= hi):
            out.append(v)
    return out


@dataclass
class TuneResult:
    """What the search found, and how it went."""

    base: Setting
    best: Setting
    objective: str
    tune_before: float
    tune_after: float
    evaluations: int
    alignments: int
    seconds: float  # the search (alignments of other weight vectors included)
    align_seconds: float = 0.0  # the first alignment pass
    log: list[str] = field(default_factory=list)


def tune(
    config: MeteorConfig,
    bank: StatsBank,
    objective: Objective,
    tune_weights: bool = True,
    tune_delta: bool | None = None,
    rounds: int = 3,
    log: Callable[[str], None] | None = None,
) -> TuneResult:
    """Search α β γ δ and stage weights maximising ``objective``."""
    import time

    messages: list[str] = []
    base_weights = tuple(s.weight for s in config.stages)
    aligned = time.perf_counter()
    bank.stats(base_weights)  # align first, so the search time below is the search's
    align_seconds = time.perf_counter() - aligned
    start = time.perf_counter()

    def say(text: str) -> None:
        messages.append(text)
        if log is not None:
            log(text)

    evaluator = Evaluator(bank, objective, config.perfect_match_rule)
    base = Setting(config.alpha, config.beta, config.gamma, config.delta, base_weights)
    if tune_delta is None:
        tune_delta = config.function_words != "none"
    before = evaluator.value(base)
    say(f"start: {objective.kind} = {before:.4f}")
    best_value, best = before, base
    deltas_coarse = COARSE["delta"] if tune_delta else [base.delta]
    weight_grid = WEIGHT_GRID if bank.weight_free else WEIGHT_GRID_REALIGN
    for round_number in range(1, rounds + 1):
        improved = False
        # 1. coarse grid over alpha beta gamma (delta), then a finer one around the best.
        if round_number == 1:  # later rounds only refine around the best point
            value, setting = evaluator.grid(
                best.weights, deltas_coarse, COARSE["alpha"], COARSE["beta"], COARSE["gamma"]
            )
            if value > best_value + 1e-12:
                best_value, best, improved = value, setting, True
        fine = evaluator.grid(
            best.weights,
            _around(best.delta, 0.025, 3, 0.0, 1.0) if tune_delta else [best.delta],
            _around(best.alpha, 0.025, 3, 0.0, 1.0),
            _around(best.beta, 0.05 if best.beta < 1 else 0.125, 3, 0.0, None),
            _around(best.gamma, 0.025, 3, 0.0, 1.0),
        )
        if fine[0] > best_value + 1e-12:
            best_value, best, improved = fine[0], fine[1], True
        say(f"round {round_number}: grid -> {best_value:.4f} ({best.describe(_names(config))})")
        # 2. line search over each stage weight but the first.
        if tune_weights:
            for stage in range(1, len(best.weights)):
                for w in weight_grid:
                    weights = tuple(w if k == stage else x for k, x in enumerate(best.weights))
                    if weights == best.weights:
                        continue
                    candidate = replace(best, weights=weights)
                    v = evaluator.value(candidate)
                    if v > best_value + 1e-12:
                        best_value, best, improved = v, candidate, True
            say(
                f"round {round_number}: weights -> {best_value:.4f} "
                f"({best.describe(_names(config))})"
            )
        if not improved:
            break
    return TuneResult(
        base=base,
        best=best,
        objective=objective.kind,
        tune_before=before,
        tune_after=best_value,
        evaluations=evaluator.evaluations,
        alignments=bank.alignments,
        seconds=time.perf_counter() - start,
        align_seconds=align_seconds,
        log=messages,
    )


def _names(config: MeteorConfig) -> list[str]:
    return [s.stage_name for s in config.stages]


def evaluate(bank: StatsBank, objective: Objective, setting: Setting, perfect_rule: bool) -> float:
    """The objective of one setting (convenience for reports)."""
    return Evaluator(bank, objective, perfect_rule).value(setting)


# -- the tuned configuration --------------------------------------------------------


def tuned_config(config: MeteorConfig, setting: Setting, name: str | None = None) -> MeteorConfig:
    """``config`` with the tuned α β γ δ and stage weights (values rounded to 4 places)."""
    stages = tuple(
        stage.model_copy(update={"weight": round(w, 4)})
        for stage, w in zip(config.stages, setting.weights, strict=True)
    )
    return config.model_copy(
        update={
            "name": name or f"{config.name}+tuned",
            "alpha": round(setting.alpha, 4),
            "beta": round(setting.beta, 4),
            "gamma": round(setting.gamma, 4),
            "delta": round(setting.delta, 4),
            "stages": stages,
        }
    )


_ALWAYS_WRITTEN = (
    "name", "language", "normalize", "stages", "alpha", "beta", "gamma", "delta",
    "function_words", "perfect_match_rule", "aligner",
)  # fmt: skip


def config_yaml(config: MeteorConfig, header: Sequence[str] = ()) -> str:
    """A standalone YAML file for ``config`` (loadable with ``--config`` or as a preset),
    preceded by ``header`` as comment lines."""
    full = config.model_dump(mode="json", exclude_none=True)
    # The settings that define the metric are always written out; any other field only
    # when it differs from the model's default (so the file keeps loading if fields
    # with defaults are added to the model later).
    data = {key: full[key] for key in _ALWAYS_WRITTEN if key in full}
    data["stages"] = [s.model_dump(exclude_none=True) for s in config.stages]
    aligner = config.aligner.model_dump(mode="json", exclude_defaults=True)
    data["aligner"] = {"name": config.aligner.name, **aligner}
    for key, value in config.model_dump(mode="json", exclude_defaults=True).items():
        data.setdefault(key, value)
    comments = "".join(f"# {line}\n".replace("# \n", "#\n") for line in header)
    return comments + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", text).strip("-") or "tuned"
