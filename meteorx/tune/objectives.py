"""Agreement with human judgments (WMT's measures), for batches of settings at once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from meteorx.errors import InputError
from meteorx.metaeval import identical_outputs, rescaled, segment_pairs
from meteorx.tune.data import TuningData

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

OBJECTIVES = ("seg-tau", "seg-pearson", "sys-pearson")

#: Score differences below this are ties (floating-point noise, not a preference).
_TIE = 1e-12


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
    """WMT DARR pairs among ``segments`` (:func:`meteorx.metaeval.segment_pairs`):
    flat indices (system * n + segment) of the better and the worse translation."""
    better, worse, segment = segment_pairs(
        data.human_matrix(segments), threshold, identical_outputs(data.hyps)
    )
    n = data.n_segments
    return better * n + segment, worse * n + segment


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
            # rescaled (exactly, by a power of two): judgments as large as 1e308 would
            # overflow the correlation's sums; r is the same
            self.target = rescaled(np.asarray([v for _, v in items], dtype=np.float64))
            self.size = len(items)
        else:
            human = data.human_sys
            if human is None:  # the mean human segment score over this part
                wanted = set(self.segments.tolist())
                sums: dict[str, list[float]] = {}
                values = rescaled(np.fromiter(data.human_seg.values(), dtype=np.float64))
                for (s, seg), v in zip(data.human_seg, values.tolist(), strict=True):
                    if seg in wanted:
                        sums.setdefault(s, []).append(v)
                human = {s: sum(v) / len(v) for s, v in sums.items()}
            keep = [k for k, s in enumerate(data.systems) if s in human]
            if len(keep) < 3:
                raise InputError("sys-pearson needs human scores for at least 3 systems")
            self.systems = np.asarray(keep, dtype=np.int64)
            self.target = rescaled(
                np.asarray([human[data.systems[k]] for k in keep], dtype=np.float64)
            )
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
