"""The ``paraphrase`` matcher's candidates against a plain implementation of Meteor 1.5's
paraphrase matching, on every xray segment (both systems) with the English table.

The matcher finds the same links much faster (no n-gram sets: a filter on each
paraphrase's first two words, then checks); the scorer's beam search breaks ties by
candidate order, so the test compares lists, order included. It skips, saying why,
without the shared data or pycocoevalcap's table. The compiled table goes to the user
cache (compiling the English table takes seconds).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from meteorx.errors import ResourceError
from meteorx.languages import resolve_language
from meteorx.metric import Scorer
from meteorx_plugins.paraphrase import ParaphraseMatcher, ParaphraseOptions, find_paraphrase_table
from meteorx_plugins.paraphrase.table import ParaphraseTable
from tests.conftest import read_lines, require_data

Span = tuple[int, int, int, int]


def _words(tokens: Sequence[str]) -> tuple[str, ...]:
    # a token with a space (or an empty one) matches no word of the table
    return tuple(t if t and " " not in t else "\x00" for t in tokens)


def _phrases(table: ParaphraseTable, words: tuple[str, ...]) -> list[tuple[int, int, list[str]]]:
    """Table phrases in ``words`` by start then length, with their paraphrases in table
    order (Meteor 1.5's trie walk)."""
    return [(k, n, list(table.group(v)[0])) for k, n, v in table.occurrences(words)]


def _where(words: tuple[str, ...], longest: int) -> dict[str, list[int]]:
    """Every n-gram of ``words`` (up to ``longest`` words) -> where it starts."""
    found: dict[str, list[int]] = {}
    for size in range(1, min(longest, len(words)) + 1):
        for m in range(len(words) - size + 1):
            found.setdefault(" ".join(words[m : m + size]), []).append(m)
    return found


def reference_candidates(
    table: ParaphraseTable, hyp: Sequence[str], ref: Sequence[str]
) -> list[Span]:
    """Meteor 1.5's ``ParaphraseMatcher``, plainly: (1) for each reference phrase, each of
    its paraphrases in table order, each place in the hypothesis where it occurs; (2) the
    same from the hypothesis side; grouped by reference position, (1) before (2)."""
    hyp_words, ref_words = _words(hyp), _words(ref)
    ref_phrases, hyp_phrases = _phrases(table, ref_words), _phrases(table, hyp_words)
    longest = max(
        (t.count(" ") + 1 for _, _, ts in ref_phrases + hyp_phrases for t in ts), default=0
    )
    in_hyp, in_ref = _where(hyp_words, longest), _where(ref_words, longest)
    first = [
        (m, t.count(" ") + 1, k, n)
        for k, n, targets in ref_phrases
        for t in targets
        for m in in_hyp.get(t, [])
    ]
    second = [
        (m, n, k, t.count(" ") + 1)
        for m, n, targets in hyp_phrases
        for t in targets
        for k in in_ref.get(t, [])
    ]
    return sorted(first + second, key=lambda span: span[2])  # stable


@pytest.fixture(scope="module")
def matcher() -> ParaphraseMatcher:
    english = resolve_language("en")
    try:
        find_paraphrase_table(english)
    except ResourceError as error:
        pytest.skip(str(error))
    return ParaphraseMatcher(ParaphraseOptions(), english)


@pytest.mark.data
@pytest.mark.slow
def test_xray_candidates_match_the_plain_algorithm(matcher: ParaphraseMatcher) -> None:
    base = require_data("meteor15-examples")
    scorer = Scorer({"language": "en", "normalize": "meteor", "stages": [{"matcher": "exact"}]})
    refs = [scorer.tokenize(line) for line in read_lines(base / "xray.reference")]
    prepared = {}
    total = 0
    for system in ("system1", "system2"):
        hyps = [scorer.tokenize(line) for line in read_lines(base / f"xray.{system}.hyp")]
        for i, (hyp, ref) in enumerate(zip(hyps, refs, strict=True)):
            if ref not in prepared:  # the scorer reuses prepared references likewise
                prepared[ref] = matcher.prepare(ref)
            ours = [tuple(span) for span in matcher.candidates(matcher.prepare(hyp), prepared[ref])]
            assert ours == reference_candidates(matcher.table, hyp, ref), (system, i)
            total += len(ours)
    assert total > 50_000  # the table links plenty of phrases in this data


def test_odd_tokens_against_the_plain_algorithm(matcher: ParaphraseMatcher) -> None:
    """Tokens with spaces, empty tokens, repeated phrases and sentence ends."""
    cases = [
        (["the", "united", "states", "of", "america"], ["the", "us", "of", "america"]),
        (["in order to", "win", ""], ["to", "win", "the", "game", "in", "order", "to"]),
        (["a", "lot", "of", "a", "lot", "of"], ["many", "many", "a", "lot"]),
        (["the", "the", "the"], ["the"]),
        ([], ["the", "us"]),
        (["the", "us"], []),
    ]
    for hyp, ref in cases:
        ours = [tuple(s) for s in matcher.candidates(matcher.prepare(hyp), matcher.prepare(ref))]
        assert ours == reference_candidates(matcher.table, hyp, ref), (hyp, ref)
