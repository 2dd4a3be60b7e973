"""A long, randomised run of the property tests, outside the default test run.

    python fuzz/long_properties.py --examples 5000            # every configuration
    python fuzz/long_properties.py --examples 20000 --only li-en-optimal

For each configuration it searches, with hypothesis (random, not derandomised), for:
a score outside [0, 1]; an error other than MeteorxError; an identical non-empty
hypothesis not scoring 1.0 (Meteor 1.5 presets); and a word that matches nothing
*raising* the score when inserted on either side. Each counterexample found is
shrunk by hypothesis and printed; the exit status is the number of properties that
failed. tests/test_properties.py runs the same properties briefly, derandomised.

Meteor 1.5's beam search is a heuristic: an inserted word can shift which candidate
matches survive the beam, so the jar itself is not monotone (two counterexamples are
pinned in tests/test_hardening_inputs.py). For the presets named after the jar, a
monotonicity counterexample is therefore run through the jar (tests/oracle/jar.py,
when Java and the jar are installed): if the jar prints the same two scores it is
reported as the jar's behaviour and not counted; otherwise it is a meteorx bug.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meteorx.errors import MeteorxError
from meteorx.metric import Scorer

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

#: The jar's arguments for the presets that are Meteor 1.5 (see the module docstring).
JAR_ARGS = {"meteor-1.5-pt": ["-l", "pt"], "meteor-1.5-en-norm": ["-l", "en", "-norm"]}

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

    last_failure: list[tuple[list[str], list[str], list[str], list[str], float, float]] = []

    @opts
    @given(hyp=words, ref=words, index=st.integers(0, 20), side=st.sampled_from(["hyp", "ref"]))
    def monotone(hyp: list[str], ref: list[str], index: int, side: str) -> None:
        before = scorer.segment(hyp, [ref]).score
        hyp2, ref2 = (insert(hyp, index), ref) if side == "hyp" else (hyp, insert(ref, index))
        after = scorer.segment(hyp2, [ref2]).score
        if after > before + 1e-12:
            last_failure[:] = [(hyp, ref, hyp2, ref2, before, after)]
        assert after <= before + 1e-12, f"score rose from {before!r} to {after!r}"

    failed = 0
    for prop in (in_range, identical, monotone):
        try:
            prop()
            print(f"[{name}] {prop.__name__}: ok ({examples} examples)", flush=True)
        except Exception:
            print(f"[{name}] {prop.__name__}: COUNTEREXAMPLE", flush=True)
            print(traceback.format_exc(limit=0), flush=True)
            if (
                prop is monotone
                and name in JAR_ARGS
                and last_failure
                and jar_agrees(name, *last_failure[0])
            ):
                continue
            failed += 1
    return failed


def jar_agrees(
    name: str,
    hyp: list[str],
    ref: list[str],
    hyp2: list[str],
    ref2: list[str],
    before: float,
    after: float,
) -> bool:
    """Whether the jar prints the same two scores as meteorx for a counterexample."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.oracle import jar

    reason = jar.unavailable_reason()
    if reason:
        print(f"[{name}] monotone: not checked against the jar ({reason})", flush=True)
        return False
    with tempfile.TemporaryDirectory() as folder:
        hyp_file = Path(folder, "hyp")
        ref_file = Path(folder, "ref")
        hyp_file.write_text(f"{' '.join(hyp)}\n{' '.join(hyp2)}\n", encoding="utf-8")
        ref_file.write_text(f"{' '.join(ref)}\n{' '.join(ref2)}\n", encoding="utf-8")
        scores = jar.run_jar(hyp_file, ref_file, JAR_ARGS[name], use_cache=False).segment_scores
    same = all(abs(a - b) <= 1e-12 for a, b in zip(scores, (before, after), strict=True))
    verdict = "the jar's own behaviour (not counted)" if same else "a meteorx BUG"
    print(
        f"[{name}] monotone: the jar gives {scores[0]!r} -> {scores[1]!r}, meteorx "
        f"{before!r} -> {after!r}: {verdict}",
        flush=True,
    )
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--only", nargs="+", choices=sorted(CONFIGS))
    args = parser.parse_args()
    return sum(run(name, args.examples) for name in (args.only or CONFIGS))


if __name__ == "__main__":
    sys.exit(main())
