"""``meteorx.compat.pycocoevalcap.Meteor`` against the real ``pycocoevalcap`` class (the jar).

Captions are built from the xray data: 600 items, each a hypothesis cut to at most
16 words, with three or four references (the reference line, the other system's line,
a neighbouring reference line, and for every other item the reference cut shorter),
so several references per item compete. Every segment score and the corpus score must
agree within 1e-4.

Full English parity needs the synonym and paraphrase matchers and the ``meteor``
tokenizer (the jar's ``-norm``); the test skips, saying which is missing, without them.
"""

from __future__ import annotations

from typing import Any

import pytest

from meteorx.compat.pycocoevalcap import CompatInputError, Meteor
from meteorx.errors import InputError, MeteorxError
from meteorx.registry import get_registry
from tests.conftest import require_full_english
from tests.oracle import jar

N_ITEMS = 600


def _missing_plugins() -> str | None:
    registry = get_registry()
    missing = [f"matcher {m!r}" for m in ("synonym", "paraphrase") if m not in registry.matchers]
    if "meteor" not in registry.tokenizers:
        missing.append("tokenizer 'meteor'")
    if missing:
        return "needs " + ", ".join(missing) + " (see `meteorx plugins`)"
    return None


def _cut(line: str, n: int) -> str:
    return " ".join(line.split()[:n])


def caption_items(xray: dict[str, list[str]]) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    ref, s1, s2 = xray["ref"], xray["system1"], xray["system2"]
    gts: dict[int, list[str]] = {}
    res: dict[int, list[str]] = {}
    for k in range(N_ITEMS):
        i = (k * 4) % len(ref)  # spread over the file
        refs = [_cut(ref[i], 16), _cut(s2[i], 16), _cut(ref[(i + 1) % len(ref)], 16)]
        if k % 2:
            refs.append(_cut(ref[i], 9))
        gts[1000 + k] = refs
        res[1000 + k] = [_cut(s1[i], 16)]
    return gts, res


@pytest.fixture(scope="module")
def meteor() -> Meteor:
    reason = _missing_plugins()
    if reason:
        pytest.skip(reason)
    require_full_english()
    return Meteor()


@pytest.mark.jar
@pytest.mark.data
@pytest.mark.slow
def test_parity_with_pycocoevalcap(meteor: Meteor, xray: dict[str, list[str]]) -> None:
    reason = jar.unavailable_reason()
    if reason:
        pytest.skip(reason)
    real_module = pytest.importorskip("pycocoevalcap.meteor.meteor")
    gts, res = caption_items(xray)
    real = real_module.Meteor()
    try:
        want_score, want_scores = real.compute_score(gts, res)
    finally:
        del real
    score, scores = meteor.compute_score(gts, res)
    assert len(scores) == len(want_scores) == N_ITEMS
    differ = [
        (key, got, want)
        for key, got, want in zip(gts, scores, want_scores, strict=True)
        if abs(got - want) > 1e-4
    ]
    assert not differ, f"{len(differ)} of {N_ITEMS} differ, e.g. {differ[:5]}"
    assert score == pytest.approx(want_score, abs=1e-4)


def test_contract(meteor: Meteor) -> None:
    gts = {"a": ["a man rides a horse", "a person on a horse"], 7: ["two dogs play"]}
    res = {7: ["two dogs are playing"], "a": ["a man riding a horse"]}
    score, scores = meteor.compute_score(gts, res)
    assert isinstance(score, float)
    assert len(scores) == 2
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert meteor.method() == "METEOR"
    assert meteor._score("a man riding a horse", gts["a"]) == scores[0]


def test_identical_caption_scores_one(meteor: Meteor) -> None:
    score, scores = meteor.compute_score({1: ["A dog runs."]}, {1: ["a dog runs ."]})
    assert scores == [1.0]
    assert score == 1.0


def test_wrapper_text_handling(meteor: Meteor) -> None:
    # '|||' is deleted from the candidate and splits a reference, as with the jar.
    one, _ = meteor.compute_score({1: ["a cat ||| a dog"]}, {1: ["a ||| dog"]})
    two, _ = meteor.compute_score({1: ["a cat", "a dog"]}, {1: ["a dog"]})
    assert one == two


@pytest.mark.parametrize(
    ("gts", "res", "message"),
    [
        ({1: ["x"]}, {2: ["x"]}, "same ids"),
        ({1: ["x"]}, {1: ["x", "y"]}, "exactly one caption"),
        ({1: ["x"]}, {1: "x"}, "exactly one caption"),
        ({1: []}, {1: ["x"]}, "no reference captions"),
        ({1: ["x\ny"]}, {1: ["x"]}, "line break"),
        ({1: [3]}, {1: ["x"]}, "list of strings"),
        ({1: ["x"]}, {1: [None]}, "must be a string"),
    ],
)
def test_bad_input(meteor: Meteor, gts: Any, res: Any, message: str) -> None:
    with pytest.raises(CompatInputError, match=message) as info:
        meteor.compute_score(gts, res)
    assert isinstance(info.value, InputError)
    assert isinstance(info.value, AssertionError)
    assert isinstance(info.value, MeteorxError)


def test_empty_input(meteor: Meteor) -> None:
    assert meteor.compute_score({}, {}) == (0.0, [])
