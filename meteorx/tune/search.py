"""The search: objective values of grids of α β γ δ and stage weights, and the rounds
of grid and line searches that maximise them."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from meteorx.config_models import MeteorConfig
from meteorx.scoring import final_score, fmean, fragmentation, penalty, precision_recall
from meteorx.stats import Layout, Stats
from meteorx.tune.data import StatsBank
from meteorx.tune.objectives import _TIE, Objective, _dot

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Setting:
    """α β γ δ and stage weights."""

    alpha: float
    beta: float
    gamma: float
    delta: float
    weights: tuple[float, ...]

    def describe(self, stage_names: Sequence[str]) -> str:
        ws = " ".join(f"{n}={w:g}" for n, w in zip(stage_names, self.weights, strict=True))
        return (
            f"alpha={self.alpha:g} beta={self.beta:g} gamma={self.gamma:g} "
            f"delta={self.delta:g} weights: {ws}"
        )


@dataclass(frozen=True)
class _Rows:
    """Statistics rows as the formula reads them, and their fragmentation (which
    depends on none of the tuned settings)."""

    counts: Stats  # fields are arrays (Layout.view)
    frag: FloatArray  # NaN where nothing was aligned: no penalty there, as in the formula


def _rows(rows: FloatArray, perfect_rule: bool, aligned_blocks: int | None) -> _Rows:
    counts = Layout.of_width(rows.shape[-1]).view(rows)
    return _Rows(counts, fragmentation(counts, perfect_rule, aligned_blocks))


def _frag_power(frag: FloatArray, beta: float) -> FloatArray:
    """frag**beta, 0 where frag is NaN (nothing aligned: the score is the Fmean, which
    is 0 unless soft credit counted something)."""
    aligned = frag == frag
    return np.where(aligned, np.power(np.where(aligned, frag, 0.0), beta), 0.0)


class Evaluator:
    """Objective values of parameter grids on one part of the segments.

    With one reference, a segment's score is ``F(α, δ, w) · (1 − γ·frag^β)`` (the
    penalty never exceeds 1, so the clamp at 0 is inactive, and a segment with nothing
    aligned scores F: 0, unless soft credit counted near misses). The segment-level
    objectives then need, per (δ, w, α, β), only a few vectors: DARR τ compares
    ``A − γ·B`` with 0 for every pair (A and B are differences of F and F·frag^β between
    the two translations), and Pearson r has a closed form in γ. Several references
    (each segment keeps its best) take the general path, which scores every segment.
    """

    def __init__(self, bank: StatsBank, objective: Objective, perfect_rule: bool) -> None:
        self.bank = bank
        self.objective = objective
        self.perfect_rule = perfect_rule
        self.aligned_blocks = bank.config.aligned_blocks
        self.fmean_form = bank.config.fmean
        self._prepared_cache: dict[int, tuple[_Rows, dict[Any, Any]]] = {}
        self.evaluations = 0

    def _prepared(self, stats: FloatArray) -> tuple[_Rows, dict[Any, Any]]:
        key = id(stats)
        if key not in self._prepared_cache:
            part = stats[:, :, self.objective.segments, :]
            if not self.objective.needs_segments and stats.shape[0] == 1:
                part = part.sum(axis=2)  # one reference: system sums are fixed
            self._prepared_cache[key] = (_rows(part, self.perfect_rule, self.aligned_blocks), {})
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
        fast = single_ref and obj.needs_segments and np.nanmax(parts.frag, initial=0.0) <= 1.0
        best_value = -math.inf
        best = Setting(alphas[0], betas[0], gammas[0], deltas[0], weights)
        for delta in deltas:
            precision, recall = precision_recall(parts.counts, delta, weights)
            for alpha in alphas:
                mean = fmean(precision, recall, alpha, self.fmean_form)
                if fast:
                    values = self._fast_values(mean, parts.frag, cache, betas, g)
                elif not obj.needs_segments and single_ref:
                    values = self._system_values(mean, parts.frag, betas, g)
                else:
                    values = self._general_values(
                        stats, mean, parts.frag, delta, weights, alpha, betas, g
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
                    cache[key] = (_frag_power(frag_flat[b], beta), _frag_power(frag_flat[w], beta))
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
                cache[key] = _frag_power(frag_flat[idx], beta)
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
        # fmean, frag: (1, systems) -> scores (nb, ng, 1, systems)
        beta = np.asarray(betas, dtype=np.float64)[:, None, None, None]
        scores = final_score(fmean, penalty(frag, beta, gammas[None, :, None, None]))
        return self.objective.from_system_scores(scores[:, :, 0])

    # Several references (or an unusual fragmentation): score every segment.
    def _general_values(
        self,
        stats: FloatArray,
        mean: FloatArray,
        frag: FloatArray,
        delta: float,
        weights: tuple[float, ...],
        alpha: float,
        betas: Sequence[float],
        gammas: FloatArray,
    ) -> FloatArray:
        obj = self.objective
        # scores (n_beta, n_gamma, refs, systems, segments)
        beta = np.asarray(betas, dtype=np.float64).reshape((-1, 1) + (1,) * frag.ndim)
        scores = final_score(mean, penalty(frag, beta, gammas.reshape((-1,) + (1,) * frag.ndim)))
        if obj.needs_segments:
            # each segment's best reference
            return obj.from_segment_scores(scores.max(axis=2))
        part = stats[:, :, obj.segments, :]
        best_ref = scores.argmax(axis=2)  # (nb, ng, systems, segments)
        onehot = (best_ref[:, :, None] == np.arange(stats.shape[0])[:, None, None]).astype(
            np.float64
        )
        summed = np.einsum("bgrsn,rsnk->bgsk", onehot, part)
        system = _rows(summed, self.perfect_rule, self.aligned_blocks)
        sys_p, sys_r = precision_recall(system.counts, delta, weights)  # (nb, ng, systems)
        sys_f = fmean(sys_p, sys_r, alpha, self.fmean_form)
        sys_pen = penalty(system.frag, beta.reshape(-1, 1, 1), gammas[None, :, None])
        return obj.from_system_scores(final_score(sys_f, sys_pen))

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
    messages: list[str] = []
    base_weights = config.block_weights
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
    return list(config.block_names)


def evaluate(bank: StatsBank, objective: Objective, setting: Setting, perfect_rule: bool) -> float:
    """The objective of one setting (convenience for reports)."""
    return Evaluator(bank, objective, perfect_rule).value(setting)
