"""Coverage-guided fuzzing of the public Python API with atheris (libFuzzer).

    pip install atheris
    python fuzz/fuzz_api.py --engine compiled -max_total_time=600 -max_len=512 -timeout=20 corpus
    python fuzz/fuzz_api.py --engine python -max_total_time=600 -max_len=512 -timeout=20 corpus

Each input is turned (atheris' ``FuzzedDataProvider``) into one call of an entry point
with arguments of any type and value: strings (with lone surrogates too), token lists,
nested lists and tuples, dicts, sets, generators, ``None``, booleans, huge integers,
floats (NaN, infinities, subnormals), bytes; configurations as preset names, dicts
(fuzzed keys and values, ``extends``) or anything else; languages as codes, malformed
tags or other types; ``normalize`` as shorthands or mappings. The entry points:
``meteorx.score``, ``meteorx.corpus_score``, ``meteorx.compute``, ``Scorer(...)``,
``Scorer.segment``, ``Scorer.corpus``, ``Scorer.rescore`` (of a fuzzed ``Stats``
record) and the compat layers (``meteorx.compat.nltk``, ``meteorx.compat.pycocoevalcap``).

Checked: a call returns a score in [0, 1] (every segment score and the corpus score
too) or raises a :class:`~meteorx.errors.MeteorxError` with a one-line message of
bounded length; any other exception, a hang past ``-timeout`` or a crash of the
interpreter is a finding. A crash is written to ``crash-<sha1>``; reproduce with
``python fuzz/fuzz_api.py --engine ENGINE crash-<sha1>``.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: Words the text generator draws from: matches, stems, case, punctuation, scripts.
WORDS = ["the", "The", "cat", "cats", "sat", "on", "mat", "café", "cafe\u0301", ",", ".",
         "gato", "azul", "猫", "กิน", "שלום", "", " ", "\t", "\u200b", "ǅ", "İ"]  # fmt: skip
PRESETS = [None, "li", "meteorx", "nltk", "meteor-2005", "meteor-1.5-other", "no-such",
           "x.yaml", "", "pt", "tuned/en-de"]  # fmt: skip
LANGUAGES = [None, "en", "pt", "zh", "ja", "th", "ko", "he", "de", "pt-BR", "en_US",
             "pt--BR", "pt-", "xx", "English", "cz", " pt ", "zh-Hant-TW", ""]  # fmt: skip
NORMALIZE = [None, "none", "lower", "meteor", "meteor-nopunct", "bogus",
             {"tokenizer": "whitespace"}, {"lowercase": True, "punctuation": "drop"},
             {"unicode": "nfkc"}, {"tokenizer": 5}, {}]  # fmt: skip
CONFIG_KEYS = ["extends", "language", "stages", "alpha", "beta", "gamma", "delta", "fmean",
               "units", "perfect_match_rule", "normalize", "function_words", "aligner",
               "soft_credit", "system_score", "name", "weight", "matcher", "stem"]  # fmt: skip
MAX_MESSAGE = 2000

_state: dict[str, Any] = {}


def _setup(engine: str) -> None:
    """Import meteorx (instrumented when called under atheris) and build a few scorers."""
    import meteorx
    from meteorx import engine as seam
    from meteorx.compat import nltk as nltk_compat
    from meteorx.compat import pycocoevalcap
    from meteorx.errors import MeteorxError
    from meteorx.metric import CorpusResult, Scorer, SegmentResult
    from meteorx.stats import Stats

    if engine == "python":  # fuzz/_engine.py set METEORX_ENGINE=python
        assert seam.active() == "python", "compiled path still in use"
    warnings.simplefilter("ignore")  # warnings are not findings (and would flood stderr)
    scorers = [Scorer("li", language="en"), Scorer(language="pt"), Scorer(language="zh")]
    _state.update(
        meteorx=meteorx,
        Scorer=Scorer,
        scorers=scorers,
        Stats=Stats,
        MeteorxError=MeteorxError,
        SegmentResult=SegmentResult,
        CorpusResult=CorpusResult,
        nltk=nltk_compat,
        coco=pycocoevalcap,
    )


def _text(fdp: Any) -> Any:
    """A string: words of :data:`WORDS`, or arbitrary Unicode (lone surrogates too)."""
    if fdp.ConsumeBool():
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 40))
    return " ".join(fdp.PickValueInList(WORDS) for _ in range(fdp.ConsumeIntInRange(0, 8)))


def _value(fdp: Any, depth: int = 0) -> Any:
    """A value of any kind, nested up to three levels."""
    kind = fdp.ConsumeIntInRange(0, 15 if depth < 3 else 9)
    if kind <= 2:
        return _text(fdp)
    if kind == 3:
        return None
    if kind == 4:
        return fdp.ConsumeBool()
    if kind == 5:
        return fdp.PickValueInList([0, 1, -1, 2**31, 2**63, 10**400, -(10**400)])
    if kind == 6:
        return fdp.PickValueInList(
            [0.0, -0.0, 0.5, 1.0, 1.5, 5e-324, math.nan, math.inf, -math.inf, 1e308]
        )
    if kind == 7:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 8))
    if kind == 8:
        return fdp.ConsumeFloat()
    if kind == 9:
        return fdp.ConsumeInt(4)
    n = fdp.ConsumeIntInRange(0, 4)
    if kind in (10, 11):
        return [_value(fdp, depth + 1) for _ in range(n)]
    if kind == 12:
        return tuple(_value(fdp, depth + 1) for _ in range(n))
    if kind == 13:
        return {_key(fdp): _value(fdp, depth + 1) for _ in range(n)}
    if kind == 14:
        return {_text(fdp) for _ in range(n)}
    items = [_value(fdp, depth + 1) for _ in range(n)]
    return (item for item in items)  # a one-shot iterator


def _key(fdp: Any) -> Any:
    return fdp.PickValueInList(CONFIG_KEYS) if fdp.ConsumeBool() else _value(fdp, 3)


def _refs(fdp: Any) -> Any:
    """References: mostly well-formed (a string, a list of strings or of token lists)."""
    kind = fdp.ConsumeIntInRange(0, 3)
    if kind == 0:
        return _text(fdp)
    if kind == 1:
        return [_text(fdp) for _ in range(fdp.ConsumeIntInRange(0, 3))]
    if kind == 2:
        return [_text(fdp).split() for _ in range(fdp.ConsumeIntInRange(0, 3))]
    return _value(fdp)


def _config(fdp: Any) -> Any:
    kind = fdp.ConsumeIntInRange(0, 4)
    if kind <= 1:
        return fdp.PickValueInList(PRESETS)
    if kind == 2:
        return {_key(fdp): _value(fdp) for _ in range(fdp.ConsumeIntInRange(0, 4))}
    if kind == 3:
        stages = [{"matcher": fdp.PickValueInList(["exact", "stem", "case"]),
                   "weight": _number(fdp)} for _ in range(fdp.ConsumeIntInRange(1, 3))]  # fmt: skip
        return {"extends": fdp.PickValueInList(["li", "meteorx"]), "stages": stages,
                "language": fdp.PickValueInList(LANGUAGES)}  # fmt: skip
    return _value(fdp)


def _number(fdp: Any) -> Any:
    return fdp.ConsumeFloatInRange(0.0, 1.0) if fdp.ConsumeBool() else _value(fdp)


def _option(fdp: Any, choices: list[Any]) -> Any:
    return fdp.PickValueInList(choices) if fdp.ConsumeBool() else _value(fdp)


def _stats(fdp: Any) -> Any:
    n = fdp.ConsumeIntInRange(0, 4)
    counts = [fdp.ConsumeIntInRange(0, 6) if fdp.ConsumeBool() else _value(fdp) for _ in range(7)]
    blocks = [tuple(_count(fdp) for _ in range(n)) for _ in range(4)]
    return _state["Stats"](*counts[:4], *blocks, *counts[4:])


def _count(fdp: Any) -> Any:
    return fdp.ConsumeIntInRange(0, 3) if fdp.ConsumeBool() else _value(fdp, 3)


def _call(fdp: Any) -> tuple[str, Callable[[], Any]]:
    """One entry point with fuzzed arguments, not yet called."""
    mx = _state["meteorx"]
    scorer = fdp.PickValueInList(_state["scorers"])
    settings = {
        "language": _option(fdp, LANGUAGES),
        "normalize": _option(fdp, NORMALIZE),
    }
    which = fdp.ConsumeIntInRange(0, 9)
    if which == 0:
        hyp, refs, config = _text(fdp), _refs(fdp), _config(fdp)
        return "score", lambda: mx.score(hyp, refs, config, **settings)
    if which == 1:
        hyps, refs, config = _value(fdp), _value(fdp), _config(fdp)
        return "corpus_score", lambda: mx.corpus_score(hyps, refs, config, **settings)
    if which == 2:
        preds, refs = _value(fdp), _value(fdp)
        extra = {name: _number(fdp) for name in ("alpha", "beta", "gamma", "delta")
                 if fdp.ConsumeBool()}  # fmt: skip
        extra["aggregate"] = _option(fdp, [None, "corpus", "mean", "statistics"])
        config = _config(fdp)
        return "compute", lambda: mx.compute(
            preds, refs, config=config, segment_scores=True, **settings, **extra
        )
    if which == 3:
        config = _config(fdp)
        return "Scorer", lambda: _state["Scorer"](config, **settings).segment("the cat", "a cat")
    if which in (4, 5):
        hyp, refs = _value(fdp) if fdp.ConsumeBool() else _text(fdp), _refs(fdp)
        return "Scorer.segment", lambda: scorer.segment(hyp, refs)
    if which == 6:
        hyps = _value(fdp) if fdp.ConsumeBool() else [_text(fdp), _text(fdp)]
        refs = _value(fdp) if fdp.ConsumeBool() else [_refs(fdp), _refs(fdp)]
        return "Scorer.corpus", lambda: scorer.corpus(hyps, refs)
    if which == 7:
        stats = _stats(fdp) if fdp.ConsumeBool() else _value(fdp)
        return "Scorer.rescore", lambda: scorer.rescore(stats)
    if which == 8:
        refs, hyp = _value(fdp), _value(fdp)
        abg = {name: _number(fdp) for name in ("alpha", "beta", "gamma") if fdp.ConsumeBool()}
        return "compat.nltk", lambda: _state["nltk"].meteor_score(refs, hyp, **abg)
    gts, res = _value(fdp), _value(fdp)
    return "compat.pycocoevalcap", lambda: _coco(gts, res)


def _coco(gts: Any, res: Any) -> list[float]:
    meteor = _state.get("coco_meteor")
    if meteor is None:
        meteor = _state["coco_meteor"] = _state["coco"].Meteor("li", normalize="lower")
    score, scores = meteor.compute_score(gts, res)
    return [score, *scores]


def _scores(result: Any) -> Iterator[float]:
    """Every score a result holds."""
    if isinstance(result, (_state["SegmentResult"], _state["CorpusResult"])):
        yield result.score
        yield from (s.score for s in getattr(result, "segments", ()))
    elif isinstance(result, dict):
        yield result["meteor"]
        yield from result.get("scores", [])
    elif isinstance(result, list):
        yield from result
    elif isinstance(result, float):
        yield result
    else:  # a Breakdown (rescore)
        yield result.score


def check(data: bytes) -> None:
    """Make one API call from ``data``: a score in [0, 1] or a MeteorxError."""
    import atheris  # type: ignore[import-untyped]

    if not _state:
        _setup("compiled" if "--engine=python" not in sys.argv else "python")
    fdp = atheris.FuzzedDataProvider(data)
    name, call = _call(fdp)
    try:
        result = call()
    except _state["MeteorxError"] as error:
        message = str(error)
        assert "\n" not in message and len(message) <= MAX_MESSAGE, (name, message[:300])
        return
    for value in _scores(result):
        assert isinstance(value, float) and 0.0 <= value <= 1.0, (name, value)


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _engine import fuzz

    fuzz(_setup, check)


if __name__ == "__main__":
    main()
