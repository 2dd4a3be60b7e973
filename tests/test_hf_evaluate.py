"""``meteorx.compute`` and the Hugging Face ``evaluate`` module in ``metrics/meteorx``.

The ``evaluate`` tests load the module from this repository with the offline switches
set (nothing is fetched from the hub) and skip, saying so, when ``evaluate`` is not
installed (``pip install -e ".[evaluate]"``).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

import meteorx.api as api
from meteorx.errors import ConfigError, InputError
from meteorx.metric import Scorer
from tests.conftest import REPO

for _name in ("HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
    os.environ.setdefault(_name, "1")

MODULE = REPO / "metrics" / "meteorx"
PREDICTIONS = ["the cat sat on the mat", "a quick brown fox jumped", ""]
REFERENCES = [
    ["the cat sat on the mat", "a cat sat"],
    ["the quick brown fox jumps over the dog"],
    ["nothing here"],
]


# -- meteorx.compute (no evaluate needed) ----------------------------------------------


def test_compute_is_the_corpus_score() -> None:
    got = api.compute(PREDICTIONS, REFERENCES, config="li", language="en", segment_scores=True)
    want = Scorer("li", language="en").corpus(PREDICTIONS, REFERENCES)
    assert got["meteor"] == want.score
    assert got["scores"] == [s.score for s in want.segments]
    assert set(got) == {"meteor", "scores"}


def test_compute_mean_and_single_references() -> None:
    single = [r[0] for r in REFERENCES]
    got = api.compute(PREDICTIONS, single, preset="li", language="en", aggregate="mean")
    scorer = Scorer("li", language="en")
    scores = [scorer.segment(p, r).score for p, r in zip(PREDICTIONS, single, strict=True)]
    assert got == {"meteor": sum(scores) / len(scores)}


def test_compute_default_is_the_jar_english_with_norm() -> None:
    cfg = api.build_scorer().config
    assert cfg.name == "meteor-1.5-en"
    assert cfg.normalize.shorthand == "meteor"
    assert api.build_scorer("li", language="de").config.normalize.shorthand == "none"


@pytest.mark.wordnet  # meteor-2005 has a synonym stage
def test_compute_overrides_and_signature() -> None:
    got = api.compute(
        ["on the mat sat the cat"],
        ["the cat sat on the mat"],
        config="meteor-2005",
        alpha=0.9,
        beta=3.0,
        gamma=0.5,
        signature=True,
    )
    assert round(got["meteor"], 4) == 0.9375
    assert "|a:0.9|b:3|g:0.5|" in got["signature"]


@pytest.mark.wordnet  # the NLTK mode matches WordNet synonyms
def test_nltk_mode_gives_evaluates_documented_example() -> None:
    got = api.compute(
        [
            "It is a guide to action which ensures that the military always obeys the "
            "commands of the party"
        ],
        ["It is a guide to action that ensures that the military will forever heed Party commands"],
        config="nltk",
        aggregate="mean",
    )
    assert round(got["meteor"], 4) == 0.6944  # evaluate's "meteor" docstring


@pytest.mark.wordnet  # the NLTK mode matches WordNet synonyms
def test_aggregate_follows_the_configuration() -> None:
    preds = ["the cat sat on the mat", "a dog barked loudly"]
    refs = ["the cat sat on a mat", "the dog barked"]
    nltk = Scorer("nltk")
    mean = sum(nltk.segment(p, r).score for p, r in zip(preds, refs, strict=True)) / 2
    assert api.compute(preds, refs, config="nltk") == {"meteor": mean}
    assert api.compute(preds, refs, config="nltk")["meteor"] == nltk.corpus(preds, refs).score
    corpus = nltk.rescore(nltk.corpus(preds, refs).stats).score
    assert api.compute(preds, refs, config="nltk", aggregate="corpus") == {"meteor": corpus}


@pytest.mark.parametrize(
    ("predictions", "references", "kwargs", "error", "message"),
    [
        (["a"], ["a", "b"], {}, InputError, "1 predictions but 2 references"),
        ("a b", ["a"], {}, InputError, "predictions must be a list"),
        ([1], ["a"], {}, InputError, r"predictions\[0\] must be a string"),
        (["a"], [[]], {}, InputError, "empty list"),
        (["a"], [[1]], {}, InputError, "string or a list of strings"),
        (["a"], "a", {}, InputError, "references must be a list"),
        ([], [], {}, InputError, "no predictions"),
        (["a"], ["a"], {"aggregate": "median"}, InputError, "aggregate"),
        (["a"], ["a"], {"config": "li", "preset": "li"}, InputError, "either config or preset"),
        (["a"], ["a"], {"config": "nope"}, ConfigError, "unknown preset"),
        (["a"], ["a"], {"config": "li", "alpha": 2.0}, ConfigError, "alpha"),
    ],
)
def test_compute_errors(
    predictions: Any, references: Any, kwargs: dict[str, Any], error: type, message: str
) -> None:
    kwargs.setdefault("language", "en")
    with pytest.raises(error, match=message):
        api.compute(predictions, references, **kwargs)


def test_compute_is_exported_from_the_package() -> None:
    import meteorx

    if not hasattr(meteorx, "compute"):
        pytest.skip("meteorx/__init__.py does not export compute yet (meteorx.api.compute)")
    assert meteorx.compute(["a b"], ["a b"], config="li", language="en") == {"meteor": 1.0}


# -- the evaluate module ----------------------------------------------------------------


@pytest.fixture(scope="module")
def evaluate_module() -> Any:
    evaluate = pytest.importorskip(
        "evaluate", reason="Hugging Face evaluate is not installed (pip install evaluate)"
    )
    return evaluate


def test_evaluate_loads_offline_and_matches(evaluate_module: Any) -> None:
    metric = evaluate_module.load(str(MODULE))
    got = metric.compute(predictions=PREDICTIONS, references=REFERENCES)
    assert set(got) == {"meteor"}
    assert got == api.compute(PREDICTIONS, REFERENCES)
    single = [r[0] for r in REFERENCES]
    got = metric.compute(
        predictions=PREDICTIONS, references=single, config="li", language="en", segment_scores=True
    )
    assert got == api.compute(PREDICTIONS, single, config="li", language="en", segment_scores=True)


def test_evaluate_config_name_is_a_preset(evaluate_module: Any) -> None:
    metric = evaluate_module.load(str(MODULE), "meteor-1.5-pt")
    got = metric.compute(predictions=["o gato sentou"], references=["o gato sentou-se"])
    assert got == api.compute(["o gato sentou"], ["o gato sentou-se"], preset="meteor-1.5-pt")


def test_evaluate_add_batch(evaluate_module: Any) -> None:
    metric = evaluate_module.load(str(MODULE))
    for p, r in zip(PREDICTIONS, REFERENCES, strict=True):
        metric.add_batch(predictions=[p], references=[r])
    assert metric.compute(config="li", language="en") == api.compute(
        PREDICTIONS, REFERENCES, config="li", language="en"
    )


def test_evaluate_passes_our_errors_through(evaluate_module: Any) -> None:
    metric = evaluate_module.load(str(MODULE))
    with pytest.raises(ConfigError, match="unknown preset"):
        metric.compute(predictions=["a"], references=["a"], config="nope")


def test_evaluate_load_settings_are_defaults(evaluate_module: Any) -> None:
    """``evaluate.load(path, config=..., language=...)`` is not silently ignored."""
    metric = evaluate_module.load(str(MODULE), config="li", language="de", signature=True)
    predictions, references = ["die Katzen saßen"], ["die Katze saß"]
    got = metric.compute(predictions=predictions, references=references)
    assert got == api.compute(predictions, references, config="li", language="de", signature=True)
    assert "|preset:li|lang:de|" in got["signature"]
    # A configuration given to compute wins over the loaded one (no "both" error).
    got = metric.compute(predictions=predictions, references=references, preset="meteor-1.5-nl")
    assert "|preset:meteor-1.5-nl|" in got["signature"]
    with pytest.raises(TypeError, match=r"unknown argument.*'langauge'"):
        evaluate_module.load(str(MODULE), langauge="de")
