"""The ``synonym`` matcher (plugin ``wordnet``) and the resource helpers it uses.

Tests on a tiny synthetic WordNet (written to a temporary folder) run everywhere. Tests
that need the real WordNet 3.0 skip when none is found (CI installs ``wordnet-base``);
the jar-parity test also needs pycocoevalcap's jar, Java and the shared xray data.
"""

from __future__ import annotations

import os
import re
import sys
import types
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from meteorx.errors import ConfigError, LanguageError, ResourceError
from meteorx.languages import resolve_language
from meteorx.metric import Scorer
from meteorx.resources import locate, sha256_parts
from meteorx.types import Span
from meteorx_plugins import wordnet as wn
from meteorx_plugins.wordnet import SynonymMatcher, SynonymOptions, WordNet
from meteorx_plugins.wordnet import locate as wn_locate
from meteorx_plugins.wordnet import reader as wn_reader

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
XRAY = DATA / "meteor15-examples"

ENGLISH = resolve_language("en")
#: A WordNet the user points at (tests then unset the variable to test the search).
_USER_WORDNET = os.environ.get(wn.WORDNET_ENV) or None


# -- fixtures -------------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No stray $METEORX_WORDNET; a private cache folder for this module's tests.

    Module-scoped so that it is in place before the module-scoped ``wordnet`` fixture.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(wn.WORDNET_ENV, raising=False)
        patch.setenv("METEORX_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        wn_reader._LOADED.clear()
        yield
        wn_reader._LOADED.clear()


@pytest.fixture(scope="module")
def wordnet() -> WordNet:
    """The real WordNet 3.0 database (or skip saying how to get it); not the Meteor 1.5
    jar's copy, which lacks what WordNet's morphology (morphy) reads."""
    try:
        return wn.load_wordnet(_USER_WORDNET, jar="never")
    except ResourceError as error:
        pytest.skip(f"WordNet 3.0 not available: {error}")


def _synonym(wordnet: WordNet, morphology: str = "meteor-1.5") -> SynonymMatcher:
    assert wordnet.location is not None
    options = SynonymOptions(path=str(wordnet.location.path), morphology=morphology)
    return SynonymMatcher(options, ENGLISH)


# A miniature WordNet: made-up offsets, real file formats.
_HEADER = "  1 This software and database is being provided ... (licence header)\n"
_INDEX = {
    "noun": [
        "car n 1 2 @ ~ 1 0 00000100",
        "automobile n 1 1 @ 1 0 00000100",
        "dog n 2 2 @ ~ 2 1 00000200 00000300",
        "hound n 1 1 @ 1 0 00000200",
        "goose n 1 1 @ 1 0 00000400",
        "man n 1 1 @ 1 0 00000500",
        "glass n 1 1 @ 1 0 00000600",
        "record n 1 1 @ 1 0 00000700",
    ],
    "verb": [
        "dog v 1 1 @ 1 0 00000200",  # same offset as a noun synset: a different synset
        "run v 1 1 @ 1 0 00000800",
        "operate v 1 1 @ 1 0 00000800",
        "wait v 1 1 @ 1 0 00000900",
        "expect v 1 1 @ 1 0 00000900",
        "wear v 1 1 @ 1 0 00000700",  # collides with the noun "record"
    ],
    "adj": ["big a 1 1 & 1 0 00000100", "large a 1 1 & 1 0 00000100"],
    "adv": ["well r 1 0 1 0 00000100"],
}
_EXC = {
    "noun": ["geese goose", "men man"],
    "verb": ["ran run", "wore wear"],
    "adj": ["bigger big"],
    "adv": ["better well"],
}


def _write_tiny(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for pos, lines in _INDEX.items():
        (folder / f"index.{pos}").write_text(_HEADER + "\n".join(sorted(lines)) + "\n")
    for pos, lines in _EXC.items():
        (folder / f"{pos}.exc").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return _write_tiny(tmp_path / "tiny-wordnet")


# -- resource helpers (no WordNet needed) ---------------------------------------------


def test_locate_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c = (tmp_path / n for n in "abc")
    for p in (a, b, c):
        p.mkdir()

    def check(path: Path) -> str | None:
        return None if path.is_dir() else "does not exist"

    search = [(tmp_path / "missing", "x"), (c, "search list")]
    monkeypatch.setenv("METEORX_TEST_RES", str(b))
    assert (
        locate(
            "R", check=check, explicit=a, env_var="METEORX_TEST_RES", search=search, hint="h"
        ).path
        == a
    )
    found = locate("R", check=check, env_var="METEORX_TEST_RES", search=search, hint="h")
    assert (found.path, found.origin) == (b, "$METEORX_TEST_RES")
    monkeypatch.delenv("METEORX_TEST_RES")
    found = locate("R", check=check, env_var="METEORX_TEST_RES", search=search, hint="h")
    assert (found.path, found.origin) == (c, "search list")
    # An explicit path or env var that is unusable is an error, not skipped.
    with pytest.raises(ResourceError, match="from option 'path'"):
        locate("R", check=check, explicit=tmp_path / "nope", search=search, hint="h")
    monkeypatch.setenv("METEORX_TEST_RES", str(tmp_path / "nope"))
    with pytest.raises(ResourceError, match=r"\$METEORX_TEST_RES"):
        locate("R", check=check, env_var="METEORX_TEST_RES", search=search, hint="h")
    with pytest.raises(ResourceError, match="R not found; install it"):
        locate("R", check=check, search=[], hint="install it")


def test_sha256_parts_is_order_independent() -> None:
    assert sha256_parts([("a", b"1"), ("b", b"2")]) == sha256_parts([("b", b"2"), ("a", b"1")])
    assert sha256_parts([("a", b"12"), ("b", b"")]) != sha256_parts([("a", b"1"), ("b", b"2")])


# -- the compiled database, on a tiny synthetic WordNet -------------------------------


def test_tiny_database_compiles_and_caches(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METEORX_CACHE_DIR", str(tiny.parent / "cache"))
    wn_reader._LOADED.clear()
    cold = wn.load_wordnet(tiny)
    assert not cold.from_cache and cold.cache_file is not None and cold.cache_file.is_file()
    assert len(cold) == 16  # "dog" is both a noun and a verb
    assert cold.location is not None and cold.location.origin == "option 'path'"
    wn_reader._LOADED.clear()
    warm = wn.load_wordnet(tiny)
    assert warm.from_cache and warm.checksum == cold.checksum
    assert warm.synsets("dog") == cold.synsets("dog")
    assert warm.synsets("dog", "n") == (wn.synset_id(200, "n"), wn.synset_id(300, "n"))
    assert warm.synsets("dog", "v") == (wn.synset_id(200, "v"),)
    # Changing a source file changes the checksum (and the signature).
    with open(tiny / "index.adv", "a") as handle:
        handle.write("fast r 1 0 1 0 00000200\n")
    wn_reader._LOADED.clear()
    changed = wn.load_wordnet(tiny)
    assert not changed.from_cache and changed.checksum != cold.checksum
    assert changed.is_lemma("fast", "r")


def test_tiny_database_from_zip(tiny: Path, tmp_path: Path) -> None:
    archive = tmp_path / "wordnet.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for file in tiny.iterdir():
            out.write(file, f"wordnet/{file.name}")
    from_zip = wn.load_wordnet(archive)
    from_dir = wn.load_wordnet(tiny)
    assert from_zip.checksum == from_dir.checksum  # same content, same identity
    assert from_zip.synsets("car") == from_dir.synsets("car")


def test_checksum_names_content_not_offsets(tiny: Path, tmp_path: Path) -> None:
    """Debian regenerates WordNet's data files (other offsets): same content, same id."""
    shifted = tmp_path / "shifted"
    shifted.mkdir()
    for file in tiny.iterdir():
        text = file.read_text()
        if file.name.startswith("index."):
            text = re.sub(r"\b000(\d{5})\b", lambda m: f"{int(m.group(1)) + 4242:08d}", text)
        (shifted / file.name).write_text(text)
    assert (shifted / "index.noun").read_text() != (tiny / "index.noun").read_text()
    a, b = wn.load_wordnet(tiny), wn.load_wordnet(shifted)
    assert a.checksum == b.checksum
    assert a.synsets("car") != b.synsets("car")


def test_search_order_env_then_nltk(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nltk_root = tmp_path / "nltk_data"
    _write_tiny(nltk_root / "corpora" / "wordnet")
    fake = types.ModuleType("nltk.data")
    fake.path = [str(tmp_path / "elsewhere"), str(nltk_root)]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nltk.data", fake)
    assert wn.nltk_data_path() == fake.path
    found = wn.find_wordnet()
    assert (found.path, found.origin) == (nltk_root / "corpora" / "wordnet", "NLTK data")
    monkeypatch.setenv(wn.WORDNET_ENV, str(tiny))
    found = wn.find_wordnet()
    assert (found.path, found.origin) == (tiny, f"${wn.WORDNET_ENV}")
    other = _write_tiny(tmp_path / "explicit")
    assert wn.find_wordnet(other).path == other


def test_nltk_default_path_without_importing_nltk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "nltk.data", raising=False)
    monkeypatch.setenv("NLTK_DATA", "/some/where")
    paths = wn.nltk_data_path()
    assert paths[0] == "/some/where"
    assert os.path.join(sys.prefix, "nltk_data") in paths
    assert "nltk.data" not in sys.modules


def test_missing_wordnet_is_one_line_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(wn_locate, "search_list", lambda: iter([(tmp_path / "none", "nowhere")]))
    monkeypatch.setattr(wn_locate, "meteor_jar_path", lambda: None)  # no pycocoevalcap either
    with pytest.raises(ResourceError) as info:
        wn.find_wordnet()
    message = str(info.value)
    assert "\n" not in message
    assert "apt-get install wordnet-base" in message
    assert "nltk" in message and "METEORX_WORDNET" in message
    # Through the scorer, the same error reaches the user unchanged.
    with pytest.raises(ResourceError) as info:
        Scorer({"extends": "meteor-2005", "stages": [{"matcher": "synonym"}]})
    assert "\n" not in str(info.value) and "wordnet-base" in str(info.value)


def test_bad_path_option(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ResourceError, match="is not a WordNet database") as info:
        Scorer(
            {
                "extends": "meteor-2005",
                "stages": [{"matcher": "synonym", "path": str(tmp_path / "empty")}],
            }
        )
    assert "\n" not in str(info.value)
    with pytest.raises(ResourceError, match="does not exist"):
        wn.find_wordnet(tmp_path / "missing")


def test_options_are_validated(tiny: Path) -> None:
    with pytest.raises(ConfigError, match="unknown option"):
        Scorer({"extends": "meteor-2005", "stages": [{"matcher": "synonym", "pth": str(tiny)}]})
    with pytest.raises(ConfigError):
        Scorer(
            {
                "extends": "meteor-2005",
                "stages": [{"matcher": "synonym", "path": str(tiny), "morphology": "porter"}],
            }
        )


def test_english_only(tiny: Path) -> None:
    with pytest.raises(LanguageError, match="English"):
        SynonymMatcher(SynonymOptions(path=str(tiny)), resolve_language("pt"))


def test_tiny_matching(tiny: Path) -> None:
    matcher = SynonymMatcher(SynonymOptions(path=str(tiny)), ENGLISH)
    assert matcher.matches("car", "automobile")
    assert matcher.matches("geese", "goose")  # exception list
    assert matcher.matches("ran", "operate")  # exception list, then shared verb synset
    assert matcher.matches("bigger", "large")
    assert not matcher.matches("car", "car")  # identical words are the exact stage's
    assert not matcher.matches("record", "wear")  # same offset, different POS: no link
    assert not matcher.matches("records", "wore")
    assert not matcher.matches("xyzzy", "plugh")
    # Candidates: grouped by reference position, then hypothesis position.
    hyp = matcher.prepare(["the", "automobile", "and", "a", "car", "ran"])
    ref = matcher.prepare(["car", "automobile", "runs"])
    assert list(matcher.candidates(hyp, ref)) == [
        Span(1, 1, 0, 1),  # automobile ~ car
        Span(4, 1, 1, 1),  # car ~ automobile
        Span(5, 1, 2, 1),  # ran ~ runs (both reach "run")
    ]
    assert matcher.describe().startswith("synonym.v1(wordnet-")
    assert matcher.resources()["wordnet"].endswith("(option 'path')")


# -- morphology on the real WordNet ---------------------------------------------------


@pytest.mark.parametrize(
    ("word", "pos", "expected"),
    [
        ("dogs", "n", ("dog",)),
        ("dogs", "v", ("dog",)),
        ("geese", "n", ("goose",)),
        ("ran", "v", ("run",)),
        ("running", "v", ("run",)),
        ("churches", "n", ("church",)),
        ("women", "n", ("woman",)),
        ("glasses", "n", ("glasses", "glass")),  # the word itself first when a lemma
        ("glass", "n", ("glass",)),  # "-ss" nouns are not reduced
        ("happier", "a", ("happy",)),
        ("bigger", "a", ("bigger", "big")),
        ("better", "r", ("better", "well")),  # adverbs: exception list only
        ("boxesful", "n", ("boxful",)),  # "-ful" compounds
        ("leaves", "n", ("leaf", "leave")),
        ("dogs", "a", ()),
        ("xyzzy", "n", ()),
    ],
)
def test_morphy(wordnet: WordNet, word: str, pos: str, expected: tuple[str, ...]) -> None:
    assert wordnet.morphy(word, pos) == expected


def test_morphy_rejects_unknown_pos(wordnet: WordNet) -> None:
    with pytest.raises(ValueError, match="part of speech"):
        wordnet.morphy("dogs", "x")


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("dogs", ("dog",)),
        ("geese", ("goose",)),
        ("ran", ("run",)),
        ("running", ("run",)),  # verb.exc lists it
        ("better", ("good", "well")),  # every POS's exception list
        ("glass", ("glass",)),
        ("waiting", ("waite",)),  # the jar's first-hit rule order: a surname, not "wait"
        ("xyzzy", ()),
    ],
)
def test_meteor15_base_forms(wordnet: WordNet, word: str, expected: tuple[str, ...]) -> None:
    assert wordnet.meteor15_base_forms(word) == expected


MUST_MATCH = [
    ("car", "automobile"),
    ("cars", "automobile"),
    ("big", "large"),
    ("bigger", "large"),
    ("dog", "hound"),
    ("geese", "goose"),
    ("women", "woman"),
    ("ran", "operated"),
    ("started", "began"),
    ("children", "kids"),
    ("bought", "purchased"),
    ("movie", "film"),
]
MUST_NOT_MATCH = [
    ("car", "car"),  # identical: the exact stage's job
    ("dog", "cat"),
    ("quickly", "fast"),
    ("records", "wore"),  # the jar links these through an offset collision; we do not
    ("able", "breathe"),  # idem
    ("xyzzy", "car"),
]


@pytest.mark.parametrize("morphology", ["meteor-1.5", "morphy"])
def test_synonym_pairs(wordnet: WordNet, morphology: str) -> None:
    matcher = _synonym(wordnet, morphology)
    for a, b in MUST_MATCH:
        assert matcher.matches(a, b) and matcher.matches(b, a), (a, b)
    for a, b in MUST_NOT_MATCH:
        assert not matcher.matches(a, b), (a, b)


def test_morphology_modes_differ_as_documented(wordnet: WordNet) -> None:
    assert not _synonym(wordnet, "meteor-1.5").matches("expect", "waiting")
    assert _synonym(wordnet, "morphy").matches("expect", "waiting")


def test_signature_and_resources(wordnet: WordNet) -> None:
    assert wordnet.location is not None
    scorer = Scorer(
        {
            "extends": "meteor-1.5-en",
            "normalize": "lower",
            "stages": [
                {"matcher": "exact", "weight": 1.0},
                {"matcher": "synonym", "weight": 0.8, "path": str(wordnet.location.path)},
            ],
        }
    )
    matcher = scorer.matchers[1]
    assert f"wordnet-{wordnet.checksum[:12]}" in matcher.describe()
    assert "|" not in matcher.describe() and ":" not in matcher.describe()
    assert str(wordnet.location.path) in matcher.resources()["wordnet"]
    result = scorer.segment("the big dog barked", "the large hound barked")
    assert {m.stage for m in result.alignment.matches} == {0, 1}
    assert sum(m.stage == 1 for m in result.alignment.matches) == 2


def test_warm_load_is_fast(wordnet: WordNet) -> None:
    """Loading from the compiled cache (not the process memo) stays well under 0.3 s."""
    import time

    assert wordnet.location is not None
    wn.load_wordnet(wordnet.location.path)  # make sure the cache file exists
    wn_reader._LOADED.clear()
    start = time.perf_counter()
    warm = wn.load_wordnet(wordnet.location.path)
    elapsed = time.perf_counter() - start
    assert warm.from_cache
    assert elapsed < 1.0, f"warm load took {elapsed:.2f}s"  # ~0.07 s; slack for busy CI


# -- parity with the Meteor 1.5 jar ---------------------------------------------------


@pytest.fixture(scope="module")
def oracle() -> Iterator[types.ModuleType]:
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.oracle import jar

    reason = jar.unavailable_reason()
    if reason:
        pytest.skip(f"Meteor 1.5 jar unavailable: {reason}")
    yield jar


@pytest.mark.jar
@pytest.mark.data
@pytest.mark.parametrize("system", ["system1", "system2"])
def test_jar_parity_first_300_lines(
    wordnet: WordNet, oracle: types.ModuleType, tmp_path: Path, system: str
) -> None:
    hyp_file, ref_file = XRAY / f"xray.{system}.hyp", XRAY / "xray.reference"
    if not (hyp_file.is_file() and ref_file.is_file()):
        pytest.skip(f"xray data not found in {XRAY} (set METEORX_DATA to the shared data folder)")
    hyps = hyp_file.read_text("utf-8").split("\n")[:300]
    refs = ref_file.read_text("utf-8").split("\n")[:300]
    (tmp_path / "hyp").write_text("\n".join(hyps) + "\n", "utf-8")
    (tmp_path / "ref").write_text("\n".join(refs) + "\n", "utf-8")
    expected = oracle.run_jar(
        tmp_path / "hyp", tmp_path / "ref", ["-l", "en", "-lower", "-m", "exact stem synonym"]
    )
    assert wordnet.location is not None
    scorer = Scorer(
        {
            "extends": "meteor-1.5-en",
            "normalize": "lower",
            "function_words": "meteor-1.5",
            "stages": [
                {"matcher": "exact", "weight": 1.0},
                {"matcher": "stem", "weight": 0.6},
                {"matcher": "synonym", "weight": 0.8, "path": str(wordnet.location.path)},
            ],
        }
    )
    result = scorer.corpus(hyps, refs)
    assert len(result.segments) == len(expected.segment_scores) == 300
    pairs = zip(result.segments, expected.segment_scores, strict=True)
    differ = [n for n, (seg, want) in enumerate(pairs, 1) if abs(seg.score - want) > 1e-4]
    assert 1 - len(differ) / 300 >= 0.99, f"segments differing from the jar: {differ}"
    assert result.score == pytest.approx(expected.system_score, abs=1e-4)
