"""Tuning data: human judgments, documents, the systems' outputs, and their statistics.

Everything here is read or computed once per run: :class:`StatsBank` aligns every
(reference, system, segment) once and keeps the statistics rows (the search only
re-applies the formula to them).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from meteorx.config_models import MeteorConfig
from meteorx.errors import InputError, cut
from meteorx.inputs import read_lines
from meteorx.metaeval import Metric
from meteorx.metric import Scorer
from meteorx.registry import get_registry
from meteorx.significance import stats_matrix

FloatArray = npt.NDArray[np.float64]

_SEGMENT_COLUMNS = ("segment", "seg", "line", "segment_index", "seg_index", "index", "seg_id")
_SCORE_COLUMNS = ("score", "raw", "z", "human")


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
        _check_finite(value, f"{path}, line {number}")
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
        from meteorx.formats.input_checks import load_json

        data = load_json(text, path)
        if not isinstance(data, dict):
            raise InputError(f"{path}: expected a JSON object {{system: score, ...}}")
        if isinstance(data.get("systems"), dict):
            data = data["systems"]
        for system, value in data.items():
            if isinstance(value, dict):
                k = key or next((c for c in ("z", "score", "raw") if c in value), None)
                if k is None or k not in value:
                    raise InputError(f"{path}: system {system!r} has no {key or 'z/score/raw'}")
                value = value[k]
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                _check_finite(float(value), f"{path}, system {cut(str(system))!r}")
                out[str(system)] = sign * float(value)
        return out
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("\t")
        if len(fields) < 2 or not _is_number(fields[-1]):
            if number == 1:
                continue  # a header
            raise InputError(f"{path}, line {number}: expected system<TAB>score")
        _check_finite(float(fields[-1]), f"{path}, line {number}")
        out[fields[0]] = sign * float(fields[-1])
    return out


def _check_finite(value: float, where: str) -> None:
    """Refuse a human score that is NaN or infinite: no correlation can use it, and
    leaving the row out silently would tune on other data than the file holds."""
    if not math.isfinite(value):
        raise InputError(f"{where}: the human score {value} is not a finite number")


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

    def human_matrix(self, segments: Iterable[int] | None = None) -> FloatArray:
        """The segment judgments as an array (systems, segments), NaN where there is
        none (or the segment is not among ``segments``)."""
        out = np.full((len(self.systems), self.n_segments), np.nan)
        index = {name: k for k, name in enumerate(self.systems)}
        wanted = None if segments is None else set(segments)
        for (system, segment), value in self.human_seg.items():
            if system in index and (wanted is None or segment in wanted):
                out[index[system], segment] = value
        return out

    def units(self) -> npt.NDArray[np.int64] | None:
        """The document index of each segment (resampling keeps documents whole), or
        None without document ids."""
        if self.docs is None:
            return None
        _, index = np.unique(np.asarray(self.docs), return_inverse=True)
        return index.astype(np.int64)


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
    first, second = fold_segments(n_segments, docs, 2, seed)
    return first, second


def fold_segments(
    n_segments: int, docs: Sequence[str] | None, folds: int, seed: int = 1
) -> list[list[int]]:
    """``folds`` parts of the segments of about equal size, at random; the segments of
    one document stay in one part. Each shuffled document (or segment) goes to the
    smallest part so far (the first of equals)."""
    rng = random.Random(seed)
    if docs is None:
        units = [[i] for i in range(n_segments)]
    else:
        grouped: dict[str, list[int]] = {}
        for i, d in enumerate(docs):
            grouped.setdefault(d, []).append(i)
        units = list(grouped.values())
    rng.shuffle(units)
    parts: list[list[int]] = [[] for _ in range(folds)]
    for unit in units:
        min(parts, key=len).extend(unit)
    return [sorted(part) for part in parts]


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
        # An aligner whose choice ignores the stage weights aligns each segment once.
        self.weight_free = not get_registry().aligner(config.aligner.name).uses_weights
        self._cache: dict[tuple[float, ...], FloatArray] = {}
        self.alignments = 0

    def _key(self, weights: tuple[float, ...]) -> tuple[float, ...]:
        # (soft credit's weight, last when it is on, never changes the alignment)
        stages = weights[: len(self.config.stages)]
        return () if self.weight_free else tuple(round(w, 6) for w in stages)

    def stats(self, weights: tuple[float, ...]) -> FloatArray:
        key = self._key(weights)
        if key not in self._cache:
            self._cache[key] = self._align(weights)
        return self._cache[key]

    def metric(self, name: str, setting: Any = None) -> Metric:
        """The configuration's scores as a :class:`meteorx.metaeval.Metric`, with the
        α β γ δ and weights of ``setting`` (a :class:`meteorx.tune.Setting`; default:
        the configuration's own). Each segment keeps its best reference, as in scoring;
        a system's score is that of its summed statistics (or the mean of its segment
        scores under ``system_score: mean``), for any segment weights."""
        from meteorx.metaeval import mean_system_scores, summed_system_scores
        from meteorx.scoring import Parameters
        from meteorx.significance import scores_of_rows

        cfg = self.config
        if setting is None:
            values = (cfg.alpha, cfg.beta, cfg.gamma, cfg.delta, cfg.block_weights)
        else:
            values = (setting.alpha, setting.beta, setting.gamma, setting.delta, setting.weights)
        alpha, beta, gamma, delta, weights = values
        params = Parameters(
            alpha, beta, gamma, delta, tuple(weights), cfg.perfect_match_rule, cfg.fmean,
            cfg.aligned_blocks,
        )  # fmt: skip
        stats = self.stats(tuple(weights))  # (refs, systems, segments, row)
        per_ref = scores_of_rows(stats, params)
        best = per_ref.argmax(axis=0)  # the first best reference, as the scorer keeps
        rows = np.take_along_axis(stats, best[None, :, :, None], axis=0)[0]
        segment = np.take_along_axis(per_ref, best[None], axis=0)[0]
        if cfg.system_score == "mean":
            return Metric(name, segment, mean_system_scores(segment))
        return Metric(
            name, segment, summed_system_scores(rows, lambda r: scores_of_rows(r, params))
        )

    def _align(self, weights: tuple[float, ...]) -> FloatArray:
        from meteorx.parallel import score_pairs
        from meteorx.progress import progress_bar

        scorer = Scorer(self.config.with_block_weights(weights))
        data = self.data
        pairs = [
            (hyp, [ref[i]]) for ref in data.refs for hyps in data.hyps for i, hyp in enumerate(hyps)
        ]
        label = "aligning" if self.weight_free else f"aligning (weights {list(weights)})"
        with progress_bar(len(pairs), label, enabled=self.show_progress) as bar:
            results = score_pairs(scorer, pairs, jobs=self.jobs, progress=bar, detail=False)
        self.alignments += 1
        n_stages = len(self.config.block_names)
        matrix = stats_matrix([r.stats for r in results], n_stages)
        return matrix.reshape(len(data.refs), len(data.systems), data.n_segments, -1)
