"""Coverage-guided fuzzing of configurations through the METEOR formula, with atheris.

    pip install atheris
    python fuzz/fuzz_formula.py --engine compiled -max_total_time=600 -max_len=256 corpus
    python fuzz/fuzz_formula.py --engine python -max_total_time=600 -max_len=256 corpus

Each input is turned (atheris' ``FuzzedDataProvider``) into a configuration: α β γ δ
(any float, often an edge: 0, 1, 5e-324, the smallest normal, 1 − 2⁻⁵³, huge, NaN,
infinite, negative), the Fmean form, the units, the perfect-match rule, soft credit,
one to four stages of any weight (subnormals, 0, 1 among them), and a statistics record
that could have been counted with them (whole counts, function words and matches within
the words, chunks within the matched words). Checked:

* the configuration validates (:func:`meteorx.config.validate_config`) or raises a
  :class:`~meteorx.errors.ConfigError`; nothing else;
* for a valid one, :func:`meteorx.scoring.breakdown_of` of the record and of the record
  summed with itself, and the same records as NumPy rows (the vectorised path that
  tuning and significance tests take) give a finite precision, recall, Fmean and score in
  [0, 1], the same floats on both paths, and no NumPy warning (but the harmonic form's
  1/P overflowing to infinity for a subnormal P, whose Fmean is then 0 on both paths);
* a scorer built from it (light stages: nothing to load) scores one fuzzed segment pair
  on the chosen engine within [0, 1] (``compiled``: the C extensions; ``python``: the
  pure-Python twins).

A crash is written to ``crash-<sha1>``; reproduce with
``python fuzz/fuzz_formula.py --engine ENGINE crash-<sha1>``.
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

#: Edge values for α β γ δ and the weights.
EDGES = [0.0, 1.0, 0.5, 5e-324, 1e-320, 2.2250738585072014e-308, 1 - 2**-53, 2**-53,
         0.9, 3.0, 1e308, math.inf, math.nan, -0.0, -1.0, 1.0000000000000002]  # fmt: skip
WORDS = ["the", "The", "cat", "cats", "a", "of", "sat", "mat", ",", "café", "猫"]
MATCHERS = ["exact", "stem", "case"]

_state: dict[str, Any] = {}


def _setup(engine: str) -> None:
    """Import meteorx (instrumented when called under atheris)."""
    import numpy as np

    from meteorx import engine as seam
    from meteorx.config import validate_config
    from meteorx.errors import ConfigError, MeteorxError
    from meteorx.metric import Scorer
    from meteorx.scoring import Parameters, breakdown_of, formula
    from meteorx.stats import Layout, Stats

    if engine == "python":  # fuzz/_engine.py set METEORX_ENGINE=python
        assert seam.active() == "python", "compiled path still in use"
    _state.update(
        np=np,
        validate_config=validate_config,
        ConfigError=ConfigError,
        MeteorxError=MeteorxError,
        Scorer=Scorer,
        Parameters=Parameters,
        breakdown_of=breakdown_of,
        formula=formula,
        Layout=Layout,
        Stats=Stats,
        scorers={},
    )


def _number(fdp: Any, low: float = 0.0, high: float = 1.0) -> float:
    kind = fdp.ConsumeIntInRange(0, 3)
    if kind == 0:
        return float(fdp.PickValueInList(EDGES))
    if kind == 1:
        return float(fdp.ConsumeFloat())
    return float(fdp.ConsumeFloatInRange(low, high))


def _configuration(fdp: Any) -> dict[str, Any]:
    stages = []
    for i in range(fdp.ConsumeIntInRange(1, 4)):
        stage: dict[str, Any] = {"matcher": fdp.PickValueInList(MATCHERS), "name": f"s{i}"}
        stage["weight"] = _number(fdp)
        stages.append(stage)
    data: dict[str, Any] = {
        "language": fdp.PickValueInList(["en", "pt", "zh"]),
        "stages": stages,
        "alpha": _number(fdp),
        "beta": _number(fdp, 0.0, 10.0),
        "gamma": _number(fdp),
        "delta": _number(fdp),
        "fmean": fdp.PickValueInList(["harmonic", "nltk"]),
        "units": fdp.PickValueInList(["words", "characters"]),
        "perfect_match_rule": fdp.ConsumeBool(),
        "function_words": fdp.PickValueInList(["none", "builtin"]),
        "aligner": fdp.PickValueInList(["meteor-1.5", "optimal"]),
    }
    if fdp.ConsumeBool():
        data["soft_credit"] = {"weight": _number(fdp), "cutoff": _number(fdp)}
    return data


def _record(fdp: Any, blocks: int) -> Any:
    """A statistics record that could have been counted with ``blocks`` blocks."""

    def side() -> tuple[int, int, list[int], list[int]]:
        length = fdp.ConsumeIntInRange(0, 40)
        function = fdp.ConsumeIntInRange(0, length)
        content_left, function_left = length - function, function
        content, functions = [], []
        for _ in range(blocks):
            c = fdp.ConsumeIntInRange(0, content_left)
            f = fdp.ConsumeIntInRange(0, function_left)
            content_left, function_left = content_left - c, function_left - f
            content.append(c)
            functions.append(f)
        return length, function, content, functions

    hyp_len, hyp_function, hyp_content, hyp_fw = side()
    ref_len, ref_function, ref_content, ref_fw = side()
    hyp_words = sum(hyp_content) + sum(hyp_fw)
    ref_words = sum(ref_content) + sum(ref_fw)
    chunks = fdp.ConsumeIntInRange(min(1, hyp_words, ref_words), min(hyp_words, ref_words))
    return _state["Stats"](
        hyp_len, ref_len, hyp_function, ref_function, tuple(hyp_content), tuple(ref_content),
        tuple(hyp_fw), tuple(ref_fw), chunks, hyp_words, ref_words,
    )  # fmt: skip


def _check_breakdown(values: Any, where: str) -> None:
    precision, recall, fmean, _, _, score = values
    for name, value in (("P", precision), ("R", recall), ("Fmean", fmean), ("score", score)):
        assert math.isfinite(value) and 0.0 <= value <= 1.0, (where, name, value)


def check(data: bytes) -> None:
    """Validate a fuzzed configuration and put records through its formula."""
    import atheris  # type: ignore[import-untyped]

    if not _state:
        _setup("compiled" if "--engine=python" not in sys.argv else "python")
    fdp = atheris.FuzzedDataProvider(data)
    settings = _configuration(fdp)
    try:
        config = _state["validate_config"](settings)
    except _state["ConfigError"] as error:
        assert "\n" not in str(error), str(error)[:300]
        return
    params = _state["Parameters"](
        alpha=config.alpha, beta=config.beta, gamma=config.gamma, delta=config.delta,
        weights=config.block_weights, perfect_match_rule=config.perfect_match_rule,
        fmean_form=config.fmean, aligned_blocks=config.aligned_blocks,
    )  # fmt: skip
    np = _state["np"]
    record = _record(fdp, len(config.block_names))
    layout = _state["Layout"](len(config.block_names))
    for stats in (record, record + record):
        one = _state["breakdown_of"](stats, params)
        values = (one.precision, one.recall, one.fmean, one.fragmentation, one.penalty, one.score)
        _check_breakdown(values, "record")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a NumPy warning is a finding, but for the
            # harmonic form's 1/P overflowing to inf for a subnormal P (its Fmean is 0)
            warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
            rows = np.array([layout.row(stats)], dtype=float)
            many = _state["formula"](layout.view(rows), params)
        # the vectorised path sees a row as one segment: compare with segments = 1
        single = _state["formula"](replace(stats, segments=1), params)
        for a, b in zip(many, single, strict=True):
            same = float(np.asarray(a).reshape(-1)[0])
            assert same == b or (math.isnan(same) and math.isnan(b)), ("rows", many, single)
    if not {stage.matcher for stage in config.stages} <= {"exact", "stem", "case"}:
        return
    hyp = " ".join(fdp.PickValueInList(WORDS) for _ in range(fdp.ConsumeIntInRange(0, 6)))
    ref = " ".join(fdp.PickValueInList(WORDS) for _ in range(fdp.ConsumeIntInRange(0, 6)))
    key = config.model_dump_json()
    scorer = _state["scorers"].get(key)
    try:
        if scorer is None:
            if len(_state["scorers"]) > 64:
                _state["scorers"].clear()
            scorer = _state["scorers"][key] = _state["Scorer"](config)
        result = scorer.segment(hyp, ref)
    except _state["MeteorxError"]:
        return  # e.g. no Snowball stemmer for zh
    b = result.breakdown
    _check_breakdown((b.precision, b.recall, b.fmean, 0, 0, b.score), "scorer")


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _engine import fuzz

    fuzz(_setup, check)


if __name__ == "__main__":
    main()
