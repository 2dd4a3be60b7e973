"""The ``paraphrase`` matcher and the paraphrase-table compiler.

Tables are written by the tests into ``tmp_path``; the compiled cache goes to a
temporary ``$METEORX_CACHE_DIR`` except in the xray parity test, which uses the real
user cache (compiling the 61 MB English table takes seconds). Jar tests compare with
Meteor 1.5 (``pycocoevalcap``'s jar, run through ``tests.oracle``) and skip with the
reason when the jar, Java or the data are missing.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from meteorx.cache import CacheWarning
from meteorx.errors import ConfigError, ResourceError
from meteorx.languages import resolve_language
from meteorx.metric import Scorer
from meteorx.types import Span
from meteorx_plugins.paraphrase import ParaphraseMatcher, ParaphraseOptions, compiler, locate
from meteorx_plugins.paraphrase import text_format as text
from meteorx_plugins.paraphrase.key_index import Regroup
from meteorx_plugins.paraphrase.table import clear_loaded, load_table
from meteorx_plugins.paraphrase.text_format import iter_entries

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))

ENGLISH = resolve_language("en")

#: (phrase, paraphrase) in file order: multi-word on both sides, both directions, and
#: phrases that are prefixes of others.
PAIRS: list[tuple[str, str]] = [
    ("a lot of", "many"),
    ("big", "large"),
    ("die", "pass away"),
    ("die", "perish"),
    ("in order to", "to"),
    ("kick the bucket", "die"),
    ("large", "big"),
    ("many", "a lot of"),
    ("pass away", "die"),
    ("the united states", "america"),
    ("the united states", "the us"),
    ("united states", "us"),
]


def write_table(
    path: Path,
    pairs: list[tuple[str, str]] = PAIRS,
    *,
    compress: bool = True,
    newline: str = "\n",
) -> Path:
    text = "".join(f"0.{i + 1}{newline}{a}{newline}{b}{newline}" for i, (a, b) in enumerate(pairs))
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Each test compiles into its own cache folder and starts with no table loaded."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("METEORX_CACHE_DIR", str(cache))
    for name in list(os.environ):
        if name.startswith("METEORX_PARAPHRASE"):
            monkeypatch.delenv(name)
    clear_loaded()
    yield cache
    clear_loaded()


@pytest.fixture
def table(tmp_path: Path) -> Path:
    return write_table(tmp_path / "paraphrase-en.gz")


def matcher(path: Path) -> ParaphraseMatcher:
    return ParaphraseMatcher(ParaphraseOptions(path=str(path)), ENGLISH)


def spans(m: ParaphraseMatcher, hyp: str, ref: str) -> list[Span]:
    return list(m.candidates(m.prepare(hyp.split()), m.prepare(ref.split())))


# -- reading and compiling -------------------------------------------------------------


def test_reads_blocks_in_file_order(table: Path) -> None:
    entries = list(iter_entries(table))
    assert [(a, b) for _, a, b in entries] == PAIRS
    assert entries[0][0] == "0.1"
    t = load_table(table)
    assert t.paraphrases("die") == ("pass away", "perish")
    assert t.paraphrases("the united states") == ("america", "the us")
    assert t.paraphrases("the united") == ()  # a prefix, not a phrase
    assert t.paraphrases("nothing") == ()
    assert (len(t), t.entries, t.max_phrase_words) == (10, 12, 3)


def test_phrases_found_like_a_trie_walk(table: Path) -> None:
    t = load_table(table)
    tokens = ["in", "the", "united", "states", "they", "die"]
    found = [(k, n, t.group(v)[0]) for k, n, v in t.occurrences(tokens)]
    assert found == [
        (1, 3, ("america", "the us")),
        (2, 2, ("us",)),
        (5, 1, ("pass away", "perish")),
    ]


def test_cache_is_built_then_reused(table: Path, private_cache: Path) -> None:
    first = load_table(table)
    assert not first.from_cache
    assert first.cache_path is not None and first.cache_path.is_file()
    assert first.cache_path.parent.parent == private_cache
    assert load_table(table) is first  # shared within the process
    clear_loaded()
    second = load_table(table)
    assert second.from_cache
    assert second.cache_path == first.cache_path
    assert second.sha256 == first.sha256
    assert second.paraphrases("die") == ("pass away", "perish")
    assert second.paraphrases("a lot of") == ("many",)


def test_changed_table_is_recompiled(table: Path) -> None:
    old = load_table(table)
    write_table(table, [*PAIRS, ("zebra", "horse")])
    os.utime(table, ns=(1, 1))  # a different mtime even on coarse file systems
    clear_loaded()
    new = load_table(table)
    assert not new.from_cache
    assert new.cache_path != old.cache_path
    assert new.sha256 != old.sha256
    assert new.paraphrases("zebra") == ("horse",)


def test_corrupt_cache_is_rebuilt(table: Path) -> None:
    path = load_table(table).cache_path
    assert path is not None
    path.write_bytes(b"garbage")
    clear_loaded()
    with pytest.warns(CacheWarning, match="rebuilding it"):
        again = load_table(table)
    assert not again.from_cache
    assert again.paraphrases("big") == ("large",)


def test_no_cache_compiles_in_memory(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METEORX_CACHE_DIR", "off")
    t = load_table(table)
    assert t.cache_path is None and not t.from_cache
    assert t.paraphrases("die") == ("pass away", "perish")


def test_unsorted_plain_crlf_table(tmp_path: Path) -> None:
    # phrases not adjacent (general path), no gzip, Windows line ends, odd spacing
    pairs = [("die", "pass  away"), ("big", "large"), ("die", "\tperish "), ("big", "huge")]
    path = write_table(tmp_path / "t.txt", pairs, compress=False, newline="\r\n")
    t = load_table(path)
    assert t.paraphrases("die") == ("pass away", "perish")
    assert t.paraphrases("big") == ("large", "huge")


def test_odd_spacing_in_phrases(tmp_path: Path) -> None:
    path = write_table(tmp_path / "t.gz", [("kick  the bucket", "die"), (" big", "large")])
    t = load_table(path)
    assert t.paraphrases("kick the bucket") == ("die",)
    assert t.paraphrases("big") == ("large",)


def test_blank_lines_dropped_and_missing_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "t.gz"
    path.write_bytes(gzip.compress(b"0.1\ndie\n\n0.2\n\nbig\n0.3\ndie\nperish"))
    t = load_table(path)
    assert t.paraphrases("die") == ("perish",)
    assert t.paraphrases("big") == ()


def test_concatenated_gzip_members(tmp_path: Path) -> None:
    path = tmp_path / "t.gz"
    path.write_bytes(gzip.compress(b"0.1\ndie\nperish\n") + gzip.compress(b"0.2\nbig\nlarge\n"))
    t = load_table(path)
    assert t.paraphrases("die") == ("perish",)
    assert t.paraphrases("big") == ("large",)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("compress", [True, False])
@pytest.mark.parametrize("block", [1, 7, 64])
def test_chunk_boundaries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compress: bool, block: int, newline: str
) -> None:
    """Groups that span the parser's chunks, sorted and unsorted tables."""
    monkeypatch.setattr(text, "_READ_BLOCK", block)
    words = ["alpha", "beta gamma", "delta", "epsilon zeta eta"]
    sorted_pairs = [(w, f"{w.split()[0]}{i}") for w in sorted(words) for i in range(5)]
    unsorted_pairs = sorted_pairs[3:] + sorted_pairs[:3]
    for name, pairs in (("sorted", sorted_pairs), ("unsorted", unsorted_pairs)):
        path = write_table(tmp_path / f"{name}.gz", pairs, compress=compress, newline=newline)
        expected: dict[str, list[str]] = {}
        for a, b in pairs:
            expected.setdefault(a, []).append(b)
        t = load_table(path)
        assert {w: list(t.paraphrases(w)) for w in words} == expected
        assert t.entries == len(pairs)


def test_truncated_table_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "t.gz"
    path.write_bytes(gzip.compress(b"0.1\ndie\nperish\n0.2\nbig\n"))
    with pytest.raises(ResourceError, match="truncated"):
        load_table(path)


def test_corrupt_gzip_is_a_resource_error(tmp_path: Path) -> None:
    path = tmp_path / "t.gz"
    path.write_bytes(gzip.compress(b"0.1\ndie\nperish\n" * 1000)[:-40])
    with pytest.raises(ResourceError):
        load_table(path)


# -- the matcher -----------------------------------------------------------------------


def test_multiword_both_sides(table: Path) -> None:
    m = matcher(table)
    # reference phrase "die" -> hypothesis "pass away" (1 ref word, 2 hyp words), and
    # hypothesis phrase "pass away" -> reference "die": the jar proposes both.
    assert spans(m, "he will pass away soon", "he will die soon") == [
        Span(2, 2, 2, 1),
        Span(2, 2, 2, 1),
    ]
    # 3 reference words ~ 2 hypothesis words, and a shorter phrase inside
    assert spans(m, "the us president", "the united states president") == [
        Span(0, 2, 0, 3),
        Span(1, 1, 1, 2),
    ]
    assert spans(m, "nothing here", "nothing there") == []


def test_jar_order_within_a_reference_position(table: Path) -> None:
    m = matcher(table)
    # At reference position 0 the jar lists step 1 (reference phrase "die": its
    # paraphrases in table order, "pass away" before "perish", whatever their
    # hypothesis positions), then step 2 (hypothesis phrases left to right).
    assert spans(m, "kick the bucket or perish or pass away", "die") == [
        Span(6, 2, 0, 1),  # step 1: die -> pass away
        Span(4, 1, 0, 1),  # step 1: die -> perish
        Span(0, 3, 0, 1),  # step 2: kick the bucket -> die
        Span(6, 2, 0, 1),  # step 2: pass away -> die
    ]


def test_shorter_phrases_first(tmp_path: Path) -> None:
    path = write_table(tmp_path / "t.gz", [("new", "novel"), ("new york", "ny"), ("york", "city")])
    m = matcher(path)
    assert spans(m, "ny novel city", "new york") == [
        Span(1, 1, 0, 1),  # new -> novel
        Span(0, 1, 0, 2),  # new york -> ny
        Span(2, 1, 1, 1),  # york -> city
    ]


def test_several_occurrences_and_repeated_phrases(table: Path) -> None:
    m = matcher(table)
    assert spans(m, "big big", "large large") == [
        Span(0, 1, 0, 1),  # step 1 at ref 0: large -> big, hyp 0 then 1
        Span(1, 1, 0, 1),
        Span(0, 1, 0, 1),  # step 2 at ref 0: hyp big(0) -> large, then big(1)
        Span(1, 1, 0, 1),
        Span(0, 1, 1, 1),
        Span(1, 1, 1, 1),
        Span(0, 1, 1, 1),
        Span(1, 1, 1, 1),
    ]


def test_pair_listed_twice_is_proposed_twice(tmp_path: Path) -> None:
    pairs = [("big", "large"), ("big", "huge"), ("big", "large")]
    m = matcher(write_table(tmp_path / "t.gz", pairs))
    assert spans(m, "huge large", "big") == [Span(1, 1, 0, 1), Span(0, 1, 0, 1), Span(1, 1, 0, 1)]


def test_describe_and_resources(table: Path) -> None:
    m = matcher(table)
    assert m.describe().startswith("paraphrase.v1(sha256:")
    assert m.describe().endswith(f"{m.table.sha256[:12]})")
    res = m.resources()
    assert str(table) in res["paraphrase table"]
    assert "paraphrase cache" in res


def test_scorer_links_phrases(table: Path) -> None:
    scorer = Scorer(
        {
            "language": "en",
            "normalize": "lower",
            "function_words": "none",
            "aligner": {"name": "meteor-1.5"},
            "stages": [
                {"matcher": "exact", "weight": 1.0},
                {"matcher": "paraphrase", "weight": 0.6, "path": str(table)},
            ],
        }
    )
    result = scorer.segment(
        "The US president met many people", "The United States president met a lot of people"
    )
    links = {
        (
            " ".join(result.hyp_tokens[m.hyp_start : m.hyp_end]),
            " ".join(result.ref_tokens[m.ref_start : m.ref_end]),
            m.stage,
        )
        for m in result.alignment.matches
    }
    assert ("many", "a lot of", 1) in links
    assert ("president", "president", 0) in links
    stats = result.stats
    # multi-word matches count every word on each side
    assert stats.hyp_matched_words == 6
    assert stats.ref_matched_words == 9
    assert "paraphrase.v1(sha256:" in scorer.combine([result]).signature


def test_unknown_option_is_a_config_error(table: Path) -> None:
    with pytest.raises(ConfigError, match="unknown option"):
        Scorer(
            {
                "language": "en",
                "stages": [{"matcher": "paraphrase", "path": str(table), "table": "x"}],
            }
        )


# -- finding the table -----------------------------------------------------------------


def test_missing_path_option(tmp_path: Path) -> None:
    with pytest.raises(ResourceError) as info:
        matcher(tmp_path / "nope.gz")
    message = str(info.value)
    assert "\n" not in message
    assert "nope.gz" in message and "does not exist" in message


def test_missing_table_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(locate, "_pycocoevalcap_data", lambda: None)
    with pytest.raises(ResourceError) as info:
        ParaphraseMatcher(ParaphraseOptions(), ENGLISH)
    message = str(info.value)
    assert "\n" not in message
    assert "pip install pycocoevalcap" in message
    assert "METEORX_PARAPHRASE_EN" in message


def test_missing_table_other_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(locate, "_pycocoevalcap_data", lambda: None)
    with pytest.raises(ResourceError, match="METEORX_PARAPHRASE_DE"):
        ParaphraseMatcher(ParaphraseOptions(), resolve_language("de"))


def test_environment_variables(
    table: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(locate, "_pycocoevalcap_data", lambda: None)
    monkeypatch.setenv("METEORX_PARAPHRASE_EN", str(table))
    m = ParaphraseMatcher(ParaphraseOptions(), ENGLISH)
    assert m.located.origin == "$METEORX_PARAPHRASE_EN"
    monkeypatch.delenv("METEORX_PARAPHRASE_EN")
    folder = tmp_path / "tables"
    folder.mkdir()
    write_table(folder / "paraphrase-cz.gz")  # Meteor's name for Czech
    monkeypatch.setenv("METEORX_PARAPHRASE_DIR", str(folder))
    m = ParaphraseMatcher(ParaphraseOptions(), resolve_language("cs"))
    assert m.located.path == folder / "paraphrase-cz.gz"
    monkeypatch.setenv("METEORX_PARAPHRASE_CS", str(tmp_path / "missing.gz"))
    with pytest.raises(ResourceError, match="METEORX_PARAPHRASE_CS"):
        ParaphraseMatcher(ParaphraseOptions(), resolve_language("cs"))


# -- parity with Meteor 1.5 ------------------------------------------------------------

#: (hypothesis, reference) pairs for the tiny table: multi-word links on both sides,
#: pairs proposed twice, competing phrases at one position, repeated words.
TINY_SEGMENTS: list[tuple[str, str]] = [
    ("he will pass away soon", "he will die soon"),
    ("The US president met many people", "The United States president met a lot of people"),
    ("america is big", "the united states is large"),
    ("many large big houses", "a lot of big large houses"),
    ("in order to win they kick the bucket", "to win they die"),
    ("the us and the united states", "the united states and the us"),
    ("kick the bucket or perish or pass away", "die"),
    ("big big large", "large large big big"),
    ("to die or to pass away", "in order to pass away or die"),
    ("a lot of the us", "many united states"),
    ("same words here", "same words here"),
]


def _jar_or_skip() -> None:
    oracle = pytest.importorskip("tests.oracle")
    reason = oracle.unavailable_reason()
    if reason is not None:
        pytest.skip(reason)


def _scorer_like_jar(weights: str, **stage_options: str) -> Scorer:
    names = (
        ["exact", "stem", "paraphrase"] if len(weights.split()) == 3 else ["exact", "paraphrase"]
    )
    stages: list[dict[str, object]] = [
        {"matcher": name, "weight": float(w)}
        for name, w in zip(names, weights.split(), strict=True)
    ]
    stages[-1].update(stage_options)
    return Scorer(
        {
            "extends": "meteor-1.5-en",
            "normalize": "lower",
            "function_words": "meteor-1.5",
            "stages": stages,
        }
    )


@pytest.mark.jar
def test_jar_parity_tiny_table(table: Path, tmp_path: Path) -> None:
    _jar_or_skip()
    from tests.oracle import run_jar

    hyp = tmp_path / "hyp.txt"
    ref = tmp_path / "ref.txt"
    hyp.write_text("".join(f"{h}\n" for h, _ in TINY_SEGMENTS), encoding="utf-8")
    ref.write_text("".join(f"{r}\n" for _, r in TINY_SEGMENTS), encoding="utf-8")
    jar = run_jar(hyp, ref, ["-l", "en", "-lower", "-m", "exact paraphrase", "-a", str(table)])
    scorer = _scorer_like_jar(jar.header["Weights"], path=str(table))
    ours = scorer.corpus([h for h, _ in TINY_SEGMENTS], [r for _, r in TINY_SEGMENTS])
    for i, (segment, expected) in enumerate(zip(ours.segments, jar.segment_scores, strict=True)):
        assert segment.score == pytest.approx(expected, abs=1e-9), TINY_SEGMENTS[i]
    assert ours.score == pytest.approx(jar.system_score, abs=1e-9)


@pytest.mark.jar
@pytest.mark.data
@pytest.mark.slow
def test_jar_parity_xray_300(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first 300 xray segments, exact + stem + paraphrase, with the English table."""
    _jar_or_skip()
    from tests.oracle import find_paraphrase_table, run_jar

    if find_paraphrase_table("en") is None:
        pytest.skip("pycocoevalcap's paraphrase-en.gz not found (pip install pycocoevalcap)")
    base = DATA / "meteor15-examples"
    if not (base / "xray.reference").is_file():
        pytest.skip(f"evaluation data not found: {base} (set METEORX_DATA)")
    monkeypatch.delenv("METEORX_CACHE_DIR")  # the real cache: compiling takes seconds
    n = 300
    refs = (base / "xray.reference").read_text(encoding="utf-8").split("\n")[:n]
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(f"{line}\n" for line in refs), encoding="utf-8")
    args = ["-l", "en", "-lower", "-m", "exact stem paraphrase"]
    for system in ("system1", "system2"):
        hyps = (base / f"xray.{system}.hyp").read_text(encoding="utf-8").split("\n")[:n]
        hyp = tmp_path / f"{system}.txt"
        hyp.write_text("".join(f"{line}\n" for line in hyps), encoding="utf-8")
        jar = run_jar(hyp, ref, args)
        assert jar.header["Weights"] == "1.0 0.6 0.8"  # the jar's en defaults, cut to 3
        scorer = _scorer_like_jar(jar.header["Weights"])
        ours = scorer.corpus(hyps, refs)
        close = sum(
            abs(s.score - j) <= 1e-4 for s, j in zip(ours.segments, jar.segment_scores, strict=True)
        )
        assert close >= 0.99 * n, f"{system}: {n - close} of {n} segments differ"
        assert ours.score == pytest.approx(jar.system_score, abs=1e-4)


# -- the compiled index: fast path against the general path ------------------------------

#: Words chosen so that neighbours in byte order share prefixes in every way: a word
#: that is a prefix of another ("a", "ab"), one ending in a character above or below
#: the space ("a!", "a-"), and multi-byte UTF-8.
_WORDS = ["a", "a!", "a-", "ab", "b", "ba", "é", "éa", "z"]


def _random_pairs(seed: int, n: int) -> list[tuple[str, str]]:
    import random

    rng = random.Random(seed)
    phrases = {" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 5))) for _ in range(n)}
    pairs = []
    for phrase in sorted(phrases, key=lambda p: p.encode()):
        for _ in range(rng.randint(1, 3)):
            pairs.append((phrase, " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 3)))))
    return pairs


def _everything(t: object) -> dict[str, dict[str, tuple[str, ...] | int]]:
    from meteorx_plugins.paraphrase.table import ParaphraseTable

    assert isinstance(t, ParaphraseTable)
    out: dict[str, dict[str, tuple[str, ...] | int]] = {}
    for word in t._directory:
        keys = t.first_word_index(word)
        out[word] = {
            key: (value & 1, t.group(value)[0]) if value > 1 else value
            for key, value in keys.items()
        }  # type: ignore[misc]
    return out


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("block", [1 << 20, 40])
def test_fast_and_general_paths_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, block: int
) -> None:
    """The array-based compiler (sorted tables) gives the same keys, prefixes, flags
    and paraphrase groups as the plain one, whatever the block boundaries."""
    monkeypatch.setattr(text, "_READ_BLOCK", block)
    pairs = _random_pairs(seed, 60)
    path = write_table(tmp_path / "t.gz", pairs)
    general_calls: list[int] = []
    plain = compiler._general

    def spy(*args: object) -> None:
        general_calls.append(1)
        plain(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(compiler, "_general", spy)
    fast = load_table(path, use_cache=False)
    assert not general_calls  # a sorted table takes the fast path
    clear_loaded()

    def no_fast_path(blocks: Iterator[bytes]) -> Iterator[object]:
        raise Regroup
        yield  # pragma: no cover

    monkeypatch.setattr(compiler, "scan", no_fast_path)
    general = load_table(path, use_cache=False)
    assert general_calls
    assert fast.meta["keys"] == general.meta["keys"]
    assert (len(fast), fast.entries, fast.max_phrase_words) == (
        len(general),
        general.entries,
        general.max_phrase_words,
    )
    assert _everything(fast) == _everything(general)
    expected: dict[str, list[str]] = {}
    for a, b in pairs:
        expected.setdefault(a, []).append(b)
    assert {p: list(fast.paraphrases(p)) for p in expected} == expected
    words = [w for p, _ in pairs[:20] for w in p.split()]
    assert fast.occurrences(words) == general.occurrences(words)
