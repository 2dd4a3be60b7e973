"""The paraphrase matcher's C twin (``meteorx_plugins.paraphrase._phrase_lookup``)
against its plain Python definition (the matcher built on the Python engine, which runs
``ParaphraseMatcher.python_prepare`` / ``python_candidates``): the same candidate lists,
element for element and in order (the scorer's beam search breaks ties by candidate
order).

Compared on every xray segment with the English table (skips, saying why, without the
shared data or pycocoevalcap's table), on generated token lists (odd tokens: with
spaces, empty, repeated, lone surrogates; sentences of 0 and 1 words) with the English
table and with small tables written here (sorted and unsorted, odd spacing, non-ASCII),
and with limits small enough that the C side forgets its words, groups and trie steps
in the middle of a run. Skips when the compiled engine does not run (not built, or
``METEORX_ENGINE=python``).
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meteorx import engine
from meteorx.errors import ResourceError
from meteorx.languages import resolve_language
from meteorx.metric import Scorer
from meteorx_plugins.paraphrase import ParaphraseMatcher, ParaphraseOptions, find_paraphrase_table
from meteorx_plugins.paraphrase.matcher import NATIVE
from meteorx_plugins.paraphrase.table import clear_loaded, load_table
from tests.conftest import read_lines, require_data

native = engine.compiled(NATIVE)
pytestmark = pytest.mark.skipif(
    native is None, reason=f"{NATIVE} does not run (not built, or METEORX_ENGINE=python)"
)

ENGLISH = resolve_language("en")
Tokens = list[str]

#: the Python-engine twin of each table's matchers (by table file)
_TWINS: dict[str, ParaphraseMatcher] = {}


def python_twin(m: ParaphraseMatcher) -> ParaphraseMatcher:
    """A matcher like ``m`` built on the pure-Python engine (one per table)."""
    key = str(m.table.path)
    twin = _TWINS.get(key)
    if twin is None:
        with engine.use("python"):
            twin = _TWINS[key] = ParaphraseMatcher(m.options, m.language)
        assert twin._native is None
    return twin


def both(m: ParaphraseMatcher, hyp: Tokens, ref: Tokens) -> tuple[list[Any], list[Any]]:
    """(C candidates, Python candidates) of one pair."""
    c = m.candidates(m.prepare(hyp), m.prepare(ref))
    py = python_twin(m)
    return c, py.candidates(py.prepare(hyp), py.prepare(ref))


def with_limits(m: ParaphraseMatcher, **limits: int) -> ParaphraseMatcher:
    """``m`` on a private C state with the given limits (not the shared one); also
    ``hash_bits``: word hashes cut to so few bits that they collide all the time."""
    table = m.table
    state = native.NativeTable(table._data, table._layout, table._directory)
    for name, value in limits.items():
        setattr(state, name, value)
    m._native = state
    return m


@pytest.fixture(scope="module")
def english() -> ParaphraseMatcher:
    try:
        find_paraphrase_table(ENGLISH)
    except ResourceError as error:
        pytest.skip(str(error))
    m = ParaphraseMatcher(ParaphraseOptions(), ENGLISH)
    assert m._native is not None
    return m


@pytest.fixture(scope="module")
def xray_tokens() -> tuple[list[tuple[str, ...]], list[list[tuple[str, ...]]]]:
    base = require_data("meteor15-examples")
    scorer = Scorer({"language": "en", "normalize": "meteor", "stages": [{"matcher": "exact"}]})
    refs = [scorer.tokenize(line) for line in read_lines(base / "xray.reference")]
    systems = [
        [scorer.tokenize(line) for line in read_lines(base / f"xray.{name}.hyp")]
        for name in ("system1", "system2")
    ]
    return refs, systems


def _xray_check(m: ParaphraseMatcher, refs: Any, systems: Any) -> int:
    py = python_twin(m)
    prepared: dict[tuple[str, ...], Any] = {}
    plain: dict[tuple[str, ...], Any] = {}
    total = 0
    for s, hyps in enumerate(systems):
        for i, (hyp, ref) in enumerate(zip(hyps, refs, strict=True)):
            if ref not in prepared:  # reused across systems, as the scorer does
                prepared[ref] = m.prepare(ref)
                plain[ref] = py.prepare(ref)
            c = m.candidates(m.prepare(hyp), prepared[ref])
            assert c == py.candidates(py.prepare(hyp), plain[ref]), (s, i)
            total += len(c)
    return total


@pytest.mark.data
@pytest.mark.slow
def test_xray_same_candidates(english: ParaphraseMatcher, xray_tokens: Any) -> None:
    assert _xray_check(english, *xray_tokens) > 50_000


@pytest.mark.data
@pytest.mark.slow
def test_xray_same_candidates_when_caches_are_forgotten(
    english: ParaphraseMatcher, xray_tokens: Any
) -> None:
    """Limits so small that words, groups and trie steps are dropped again and again
    (references prepared before a reset are prepared again when used)."""
    m = ParaphraseMatcher(ParaphraseOptions(), ENGLISH)
    with_limits(m, max_words=3_000, max_group_ints=20_000, max_steps=500)
    refs, systems = xray_tokens
    assert _xray_check(m, refs[:600], [hyps[:600] for hyps in systems]) > 5_000
    assert m._native.generation > 0


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("bits", [0, 3])
def test_xray_same_candidates_when_hashes_collide(xray_tokens: Any, bits: int) -> None:
    """Paraphrase lines are found by the hashes of their first two words and checked
    byte by byte: with hashes of 3 bits (or none), the same lists."""
    m = ParaphraseMatcher(ParaphraseOptions(), ENGLISH)
    with_limits(m, hash_bits=bits)
    assert m._native.hash_bits == bits
    refs, systems = xray_tokens
    size = 300 if bits == 0 else 1_000
    assert _xray_check(m, refs[:size], [hyps[:size] for hyps in systems]) > size


def test_hash_bits_only_before_first_use(english: ParaphraseMatcher) -> None:
    assert english._native.hash_bits == 32
    with pytest.raises(ValueError, match="before the first use"):
        english._native.hash_bits = 8
    m = ParaphraseMatcher(ParaphraseOptions(), ENGLISH)
    with_limits(m)
    with pytest.raises(ValueError):
        m._native.hash_bits = 33


_ODD = ["", " ", "a b", "in order", "\x00", "\t", "the\n", "é", "\ud800", "us "]


def _vocabulary(m: ParaphraseMatcher, size: int) -> list[str]:
    """Words of the table's phrases and paraphrases, for sentences full of links."""
    words: list[str] = []
    for word in ["the", "united", "states", "of", "america", "us", "a", "lot", "many"]:
        words.append(word)
        for key, value in m.table.first_word_index(word).items():
            words += key.split(" ")
            if value > 1:
                for line in m.table.group(value)[0][:3]:
                    words += line.split(" ")
            if len(words) > size:
                break
    return list(dict.fromkeys(words))[:size]


@pytest.fixture(scope="module")
def english_words(english: ParaphraseMatcher) -> list[str]:
    return _vocabulary(english, 60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_sentences_english(
    english: ParaphraseMatcher, english_words: list[str], data: st.DataObject
) -> None:
    word = st.sampled_from(english_words) | st.sampled_from(_ODD) | st.text(max_size=3)
    sentence = st.lists(word, max_size=14)
    hyp, ref = data.draw(sentence), data.draw(sentence)
    c, py = both(english, hyp, ref)
    assert c == py


def test_edge_sentences_english(english: ParaphraseMatcher) -> None:
    cases: list[tuple[Tokens, Tokens]] = [
        ([], []),
        ([], ["the", "us"]),
        (["the", "us"], []),
        (["the"], ["the"]),
        (["us"], ["the", "united", "states"]),
        (["the", "united", "states"], ["us"]),
        (["the", "the", "the", "the"], ["the", "the"]),
        (["a", "lot", "of", "a", "lot", "of"], ["many", "many", "a", "lot"]),
        (["in order to", "win", ""], ["to", "win", "the", "game", "in", "order", "to"]),
        (["\ud800", "the", "us", "\ud800"], ["the", "\ud800", "united", "states"]),
        (["the", "united", "\ud800", "states"], ["the", "us"]),
        (["", "", " "], ["", " ", "\x00"]),
    ]
    for hyp, ref in cases:
        c, py = both(english, hyp, ref)
        assert c == py, (hyp, ref)
    hyp, ref = ["the", "united", "states", "of", "america"], ["the", "us", "of", "america"]
    c, _ = both(english, hyp, ref)
    assert c  # the English table links these


def test_shared_state_and_fresh_matchers(english: ParaphraseMatcher) -> None:
    """Matchers of one table share its C state; a new one decodes nothing again."""
    again = ParaphraseMatcher(ParaphraseOptions(), ENGLISH)
    assert again._native is english._native is english.table.native(native)
    hyp, ref = ["the", "united", "states", "of", "america"], ["the", "us", "of", "america"]
    before = english._native.decoded
    first = english.candidates(english.prepare(hyp), english.prepare(ref))
    middle = english._native.decoded
    assert again.candidates(again.prepare(hyp), again.prepare(ref)) == first
    assert english._native.decoded == middle >= before


def test_decoded_groups_match_the_table(english: ParaphraseMatcher) -> None:
    s = english._native.prepare(["the", "united", "states", "of", "america"])
    spans = s.phrase_spans()
    assert spans
    for _, _, group in spans:
        lines = english.table.targets(group << 1)
        assert english._native.paraphrases(group) == [tuple(t.split(" ")) for t in lines]


# -- small tables written here ----------------------------------------------------------

_WORDS = ["a", "a!", "a-", "ab", "b", "ba", "é", "éa", "z", "x\x01"]


def _table_text(seed: int, n: int, sort: bool, odd: bool) -> bytes:
    import random

    rng = random.Random(seed)

    def phrase(most: int) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, most)))

    phrases = list({phrase(4) for _ in range(n)})
    if sort:
        phrases.sort(key=lambda p: p.encode())
    else:
        rng.shuffle(phrases)
    blocks = []
    for p in phrases:
        for _ in range(rng.randint(1, 3)):
            target = phrase(3)
            if odd and rng.random() < 0.2:
                target = rng.choice(["  ", "\t", " \x0c"]).join(target.split(" ")) + " "
            blocks.append(f"0.{rng.randint(1, 9)}\n{p}\n{target}\n")
    return "".join(blocks).encode("utf-8")


@pytest.fixture(scope="module")
def small_matchers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[ParaphraseMatcher]]:
    folder = tmp_path_factory.mktemp("tables")
    matchers = []
    mp = pytest.MonkeyPatch()
    mp.setenv("METEORX_CACHE_DIR", str(folder / "cache"))
    for seed, (sort, odd) in enumerate([(True, False), (False, False), (True, True)]):
        path = folder / f"t{seed}.gz"
        path.write_bytes(gzip.compress(_table_text(seed, 80, sort, odd)))
        matchers.append(ParaphraseMatcher(ParaphraseOptions(path=str(path)), ENGLISH))
    # one more with a non-UTF-8 byte in a paraphrase (decoded with U+FFFD, as in Python)
    path = folder / "bad.txt"
    path.write_bytes(b"0.1\na b\na \xff\n0.1\na b\nb\n0.2\nb\na \xef\xbf\xbd\n")
    matchers.append(ParaphraseMatcher(ParaphraseOptions(path=str(path)), ENGLISH))
    yield matchers
    mp.undo()
    clear_loaded()


_SMALL_TOKENS = [*_WORDS, "", " ", "a b", "\ufffd", "a \xff"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), which=st.integers(0, 3))
def test_generated_sentences_small_tables(
    small_matchers: list[ParaphraseMatcher], data: st.DataObject, which: int
) -> None:
    m = small_matchers[which]
    assert m._native is not None
    sentence = st.lists(st.sampled_from(_SMALL_TOKENS), max_size=12)
    hyp, ref = data.draw(sentence), data.draw(sentence)
    c, py = both(m, hyp, ref)
    assert c == py


def test_small_tables_link_something(small_matchers: list[ParaphraseMatcher]) -> None:
    bad = small_matchers[3]
    c, py = both(bad, ["a", "b"], ["a", "\ufffd", "b"])
    assert c == py and c
    for m in small_matchers[:3]:
        total = 0
        for a in _WORDS:
            for b in _WORDS:
                c, py = both(m, [a, b, a], [b, a, b, b])
                assert c == py
                total += len(c)
        assert total


@pytest.mark.parametrize("bits", [0, 1, 32])
def test_small_tables_colliding_hashes(small_matchers: list[ParaphraseMatcher], bits: int) -> None:
    """Every pair of words (and odd tokens) with hashes of 0, 1 and 32 bits, on each
    small table (sorted, unsorted, odd spacing, not UTF-8)."""
    tokens = [*_WORDS, "", "a b", "\ufffd", "a\tb", "x\x01 a"]
    for small in small_matchers:
        m = ParaphraseMatcher(ParaphraseOptions(path=str(small.table.path)), ENGLISH)
        with_limits(m, hash_bits=bits)
        for a in tokens:
            for b in tokens:
                hyp, ref = [a, b, a, "b"], [b, a, "a", b, b]
                c, py = both(m, hyp, ref)
                assert c == py, (a, b)


def test_small_limits_small_table(small_matchers: list[ParaphraseMatcher]) -> None:
    import random

    rng = random.Random(5)
    m = ParaphraseMatcher(ParaphraseOptions(path=str(small_matchers[0].table.path)), ENGLISH)
    with_limits(m, max_words=4, max_group_ints=10, max_steps=2)
    ref = [rng.choice(_WORDS) for _ in range(9)]
    py = python_twin(m)
    prepared = m.prepare(ref)  # kept across resets, like the scorer's reference cache
    plain = py.prepare(ref)
    for _ in range(200):
        hyp = [rng.choice(_SMALL_TOKENS) for _ in range(rng.randint(0, 9))]
        c = m.candidates(m.prepare(hyp), prepared)
        assert c == py.candidates(py.prepare(hyp), plain)
    assert m._native.generation > 0


def test_python_engine(small_matchers: list[ParaphraseMatcher]) -> None:
    """On the Python engine the matcher runs the plain Python (same results)."""
    with engine.use("python"):
        m = ParaphraseMatcher(ParaphraseOptions(path=str(small_matchers[0].table.path)), ENGLISH)
    assert m._native is None
    hyp, ref = ["a", "b", "a!"], ["ab", "a", "b"]
    assert m.candidates(m.prepare(hyp), m.prepare(ref)) == small_matchers[0].candidates(
        small_matchers[0].prepare(hyp), small_matchers[0].prepare(ref)
    )


def test_table_close_releases_the_buffer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METEORX_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "t.gz"
    path.write_bytes(gzip.compress(b"0.1\na b\nc\n"))
    table = load_table(path)
    assert table.native(native) is not None
    table.close()  # would raise BufferError if the C state still held the mapping
    assert table.native(native) is None
    clear_loaded()


def test_sentence_of_another_table_is_prepared_again(
    small_matchers: list[ParaphraseMatcher],
) -> None:
    one, other = small_matchers[0], small_matchers[1]
    hyp, ref = ["a", "b", "é", "a"], ["b", "a", "ab", "z", "a"]
    foreign = other.prepare(ref)
    _, py = both(one, hyp, ref)
    assert one.candidates(one.prepare(hyp), foreign) == py
