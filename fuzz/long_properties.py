"""A long, randomised run of the property tests, outside the default test run.

    python fuzz/long_properties.py --examples 5000            # every configuration
    python fuzz/long_properties.py --examples 20000 --only li-en-optimal

For each configuration it searches, with hypothesis (random, not derandomised), for:
a score outside [0, 1]; an error other than MeteorxError; an identical non-empty
hypothesis not scoring 1.0 (Meteor 1.5 presets); and a word that matches nothing
*raising* the score when inserted on either side. Each counterexample found is
shrunk by hypothesis and printed; the exit status is the number of properties that
failed. tests/test_properties.py runs the same properties briefly, derandomised.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meteorx.errors import MeteorxError
from meteorx.scorer import Scorer

EN = [
    "the", "a", "an", "cat", "cats", "sat", "sit", "sitting", "on", "mat", "mats", "dog",
    "dogs", "run", "running", "ran", "big", "large", "house", "home", "is", "are", "was", "be",
    "quick", "fast", "brown", "fox", "jumps", "jumped", "over", "lazy", ",", ".", "'s", "in",
    "of", "to",
]
PT = [
    "o", "a", "um", "gato", "gatos", "sentou", "sentar", "no", "tapete", "tapetes", "cão",
    "cães", "casa", "casas", "grande", "de",
]
UNMATCHED = "qzxv"

CONFIGS: dict[str, tuple[Any, dict[str, Any], list[str], bool]] = {
    # name: (config, overrides, vocabulary, perfect-match rule)
    "li-en": ("li", {"language": "en"}, EN, True),
    "li-en-optimal": ({"extends": "li", "language": "en", "aligner": "optimal"}, {}, EN, True),
    "meteor-1.5-pt": ("meteor-1.5-pt", {}, PT, True),
    "meteor-1.5-en-norm": ("meteor-1.5-en", {"normalize": "meteor"}, EN, True),
    "meteor-2005-exact-stem": (
        {
            "extends": "meteor-2005",
            "stages": [
                {"matcher": "exact", "weight": 1.0},
                {"matcher": "stem", "weight": 1.0, "algorithm": "porter"},
            ],
        },
        {},
        EN,
        False,
    ),
    "meteor-2005": ("meteor-2005", {}, EN, False),
    "nltk": ("nltk", {}, EN, False),
}


def insert(tokens: list[str], index: int) -> list[str]:
    k = index % (len(tokens) + 1)
    return [*tokens[:k], UNMATCHED, *tokens[k:]]


def run(name: str, examples: int) -> int:
    config, overrides, vocab, perfect = CONFIGS[name]
    try:
        scorer = Scorer(config, **overrides)
    except MeteorxError as error:
        print(f"[{name}] skipped: {error}")
        return 0
    opts = settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    words = st.lists(st.sampled_from(vocab), max_size=12)
    text = st.one_of(
        st.text(alphabet=st.characters(codec="utf-8"), max_size=80),
        words.map(" ".join),
    )

    @opts
    @given(hyp=text, refs=st.lists(text, min_size=1, max_size=3))
    def in_range(hyp: str, refs: list[str]) -> None:
        try:
            result = scorer.segment(hyp, refs)
        except MeteorxError:
            return
        assert 0.0 <= result.score <= 1.0, result.score

    @opts
    @given(tokens=words)
    def identical(tokens: list[str]) -> None:
        result = scorer.segment(tokens, [tokens])
        if tokens and perfect:
            assert result.score == 1.0, result.score

    @opts
    @given(hyp=words, ref=words, index=st.integers(0, 20), side=st.sampled_from(["hyp", "ref"]))
    def monotone(hyp: list[str], ref: list[str], index: int, side: str) -> None:
        before = scorer.segment(hyp, [ref]).score
        if side == "hyp":
            after = scorer.segment(insert(hyp, index), [ref]).score
        else:
            after = scorer.segment(hyp, [insert(ref, index)]).score
        assert after <= before + 1e-12, f"score rose from {before!r} to {after!r}"

    failed = 0
    for prop in (in_range, identical, monotone):
        try:
            prop()
            print(f"[{name}] {prop.__name__}: ok ({examples} examples)", flush=True)
        except Exception:
            failed += 1
            print(f"[{name}] {prop.__name__}: COUNTEREXAMPLE", flush=True)
            print(traceback.format_exc(limit=0), flush=True)
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--only", nargs="+", choices=sorted(CONFIGS))
    args = parser.parse_args()
    return sum(run(name, args.examples) for name in (args.only or CONFIGS))


if __name__ == "__main__":
    sys.exit(main())
