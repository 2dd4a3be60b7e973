"""NLTK-exact mode: ``meteorx.compat.nltk`` and the ``nltk`` preset against NLTK 3.10.

The reference is the installed NLTK itself (``nltk.translate.meteor_score``), run on
the same WordNet 3.0 files (``/usr/share/wordnet`` or wherever ``find_wordnet`` looks),
made readable for NLTK by ``build_nltk_data`` (``nltk.download`` is never needed).
Fast tests use a small fake WordNet with NLTK's interface, so they need no data; the
slow ones load NLTK's own WordNet reader (seconds) and score the Meteor 1.5 example
data (``$METEORX_DATA`` or ``<repo>/../shared/data``).
"""

from __future__ import annotations

import os
import random
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from meteorx import engine
from meteorx.compat import nltk as compat
from meteorx.errors import ResourceError
from meteorx_plugins import nltk_compat as plugin
from meteorx_plugins.nltk_compat import greedy, links, nltk_data
from meteorx_plugins.wordnet import locate as wn_locate
from meteorx_plugins.wordnet import synsets as wn_synsets

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
XRAY = DATA / "meteor15-examples"

nltk_meteor = pytest.importorskip("nltk.translate.meteor_score")
PorterStemmer = pytest.importorskip("nltk.stem.porter").PorterStemmer


def _find() -> wn_locate.WordNetFiles:
    """The full WordNet database the NLTK mode reads (the search order's first)."""
    return wn_locate.WordNetFiles.of(wn_locate.find_wordnet(data=True))


def _wordnet_or_none() -> wn_locate.WordNetFiles | None:
    try:
        return _find()
    except ResourceError:
        return None


WORDNET = _wordnet_or_none()
needs_wordnet = pytest.mark.skipif(
    WORDNET is None,
    reason="WordNet 3.0 not found (apt-get install wordnet-base, or set METEORX_WORDNET)",
)


def _w(text: str) -> list[str]:
    return text.split()


CAT = _w("the cat sat on the mat")


# -- a WordNet with NLTK's interface, for tests that need no data ------------------------


class _Lemma:
    def __init__(self, name: str) -> None:
        self._name = name

    def name(self) -> str:
        return self._name


class _Synset:
    def __init__(self, names: list[str]) -> None:
        self._lemmas = [_Lemma(n) for n in names]

    def lemmas(self) -> list[_Lemma]:
        return self._lemmas


class FakeWordNet:
    """``synsets(word)`` from a few groups; keyed by the words *and* their Porter stems,
    since NLTK's METEOR looks synonyms up by stem."""

    def __init__(self, groups: list[list[str]]) -> None:
        stem = PorterStemmer().stem
        self.table: dict[str, list[_Synset]] = {}
        for group in groups:
            synset = _Synset(group)
            for word in group:
                for key in {word.lower(), stem(word)}:
                    self.table.setdefault(key, []).append(synset)
        self.calls = 0

    def synsets(self, word: str) -> list[_Synset]:
        self.calls += 1
        return self.table.get(word.lower(), [])


GROUPS = [
    ["cat", "true_cat", "kitty", "Cat"],
    ["mat", "rug", "carpet"],
    ["big", "large", "great"],
    ["sit", "sat", "seat"],
    ["fast", "quick", "speedy", "firm"],
    ["car", "auto", "automobile", "machine"],
    ["home", "house", "dwelling"],
]
VOCAB = _w(
    "the a The cat cats Cat kitty dog dogs sat sit sits sitting seat on upon mat mats rug "
    "carpet big bigger large larger great run runs running ran quick fast faster speedy car "
    "cars auto automobile house houses home homes dwelling ."
)


def _random_sentence(rng: random.Random, vocab: list[str], longest: int = 12) -> list[str]:
    return [rng.choice(vocab) for _ in range(rng.randint(0, longest))]


# -- the documented numbers -------------------------------------------------------------


@needs_wordnet
@pytest.mark.parametrize(
    ("hypothesis", "expected"),
    [
        # NLTK's greedy alignment makes 6 chunks of this one; the definition says 0.9375.
        ("on the mat sat the cat", 0.5),
        ("the cat sat on the mat", 0.9977),
        ("the cat was sat on the mat", 0.9654),
    ],
)
def test_wikipedia_examples(hypothesis: str, expected: float) -> None:
    assert round(compat.meteor_score([CAT], hypothesis.split()), 4) == expected
    assert round(compat.single_meteor_score(CAT, hypothesis.split()), 4) == expected


@needs_wordnet
def test_portuguese_examples_and_nltk_doctests() -> None:
    ref = _w("o cupom vale para toda a loja até domingo")
    assert round(compat.single_meteor_score(ref, _w("o cupom vale só até domingo")), 4) == 0.5563
    hyp = _w("até domingo o cupom vale para toda a loja")
    assert round(compat.single_meteor_score(ref, hyp), 4) == 0.9945
    # NLTK's own doctests (nltk/translate/meteor_score.py).
    hypothesis1 = _w(
        "It is a guide to action which ensures that the military always obeys the commands "
        "of the party"
    )
    reference1 = _w(
        "It is a guide to action that ensures that the military will forever heed Party commands"
    )
    reference2 = _w(
        "It is the guiding principle which guarantees the military forces always being under "
        "the command of the Party"
    )
    reference3 = _w(
        "It is the practical guide for the army always to heed the directions of the party"
    )
    assert round(compat.single_meteor_score(reference1, hypothesis1), 4) == 0.6944
    refs = [reference1, reference2, reference3]
    assert round(compat.meteor_score(refs, hypothesis1), 4) == 0.6944
    assert compat.meteor_score([["this", "is", "a", "cat"]], ["non", "matching", "hypothesis"]) == 0


@needs_wordnet
def test_preset_gives_the_documented_numbers() -> None:
    from meteorx.metric import Scorer

    scorer = Scorer("nltk")
    for hypothesis, expected, chunks in [
        ("on the mat sat the cat", 0.5, 6),
        ("the cat sat on the mat", 0.9977, 1),
        ("the cat was sat on the mat", 0.9654, 2),
    ]:
        result = scorer.segment(hypothesis, " ".join(CAT))
        assert round(result.score, 4) == expected
        assert result.alignment.chunks == chunks


# -- NLTK's interface ---------------------------------------------------------------------


def test_raw_strings_raise_type_error() -> None:
    wordnet = FakeWordNet(GROUPS)
    with pytest.raises(TypeError, match="hypothesis"):
        compat.meteor_score([CAT], "the cat sat on the mat", wordnet=wordnet)
    with pytest.raises(TypeError, match="reference"):
        compat.meteor_score(["the cat sat on the mat"], CAT, wordnet=wordnet)
    with pytest.raises(TypeError, match="reference"):
        compat.single_meteor_score("the cat", CAT, wordnet=wordnet)
    # NLTK raises the same way.
    with pytest.raises(TypeError):
        nltk_meteor.meteor_score(["the cat sat on the mat"], CAT, wordnet=wordnet)


def test_no_reference_is_a_value_error_and_empty_input_scores_zero() -> None:
    wordnet = FakeWordNet(GROUPS)
    with pytest.raises(ValueError):
        compat.meteor_score([], CAT, wordnet=wordnet)
    assert compat.meteor_score([CAT], [], wordnet=wordnet) == 0.0
    assert compat.meteor_score([[]], CAT, wordnet=wordnet) == 0.0
    assert compat.meteor_score([["x"]], ["y"], wordnet=wordnet) == 0.0


def test_arguments_are_honoured() -> None:
    wordnet = FakeWordNet(GROUPS)
    hyp, ref = _w("The Cat sat"), _w("the cat sat")
    assert compat.meteor_score([ref], hyp, wordnet=wordnet) == pytest.approx(0.9814814814814815)
    # preprocess: no lower-casing, so "The"/"Cat" only link through the stemmer
    # (NLTK's PorterStemmer lower-cases).
    same: dict[str, Any] = dict(preprocess=lambda w: w, wordnet=wordnet)
    assert compat.meteor_score([ref], hyp, **same) == nltk_meteor.meteor_score([ref], hyp, **same)

    class Prefix:
        def stem(self, word: str) -> str:
            return word[:2]

    args: dict[str, Any] = dict(stemmer=Prefix(), wordnet=wordnet, alpha=0.5, beta=2, gamma=0.3)
    hyp, ref = _w("catalog sitting home"), _w("cats sip house")
    expected = nltk_meteor.meteor_score([ref], hyp, **args)
    assert compat.meteor_score([ref], hyp, **args) == expected
    assert expected != compat.meteor_score([ref], hyp, wordnet=wordnet)


def test_synonym_stage_uses_stems_like_nltk() -> None:
    # NLTK's synonym stage looks up the stem ("larg"), so a WordNet keyed by words only
    # would not link large/big; FakeWordNet maps stems too, as WordNet's morphy does.
    wordnet = FakeWordNet(GROUPS)
    links = compat.align_words(["large"], ["big"], wordnet=wordnet)
    assert links == nltk_meteor.align_words(["large"], ["big"], wordnet=wordnet)[0] == [(0, 0)]


def test_random_sentences_match_nltk_bit_for_bit() -> None:
    """Greedy tie-breaking, repeated words, all three stages, several references."""
    rng = random.Random(20240501)
    wordnet = FakeWordNet(GROUPS)
    stemmer = PorterStemmer()
    for _ in range(600):
        hyp = _random_sentence(rng, VOCAB)
        refs = [_random_sentence(rng, VOCAB) for _ in range(rng.randint(1, 3))]
        expected = nltk_meteor.meteor_score(refs, hyp, stemmer=stemmer, wordnet=wordnet)
        assert compat.meteor_score(refs, hyp, wordnet=wordnet) == expected, (hyp, refs)
        ref = refs[0]
        assert (
            compat.align_words(hyp, ref, wordnet=wordnet)
            == (nltk_meteor.align_words(hyp, ref, stemmer=stemmer, wordnet=wordnet)[0])
        )


# -- WordNet lookup -----------------------------------------------------------------------


def test_missing_wordnet_is_a_one_line_resource_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ResourceError) as error:
        wn_locate.find_wordnet(tmp_path, data=True)
    message = str(error.value)
    assert "\n" not in message and "is not a WordNet database" in message
    monkeypatch.setenv("METEORX_WORDNET", str(tmp_path))
    with pytest.raises(ResourceError, match="METEORX_WORDNET"):
        wn_locate.find_wordnet(data=True)
    with pytest.raises(ResourceError, match="METEORX_WORDNET"):
        wn_synsets.WordNetSynonyms()


@needs_wordnet
def test_environment_variable_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert WORDNET is not None
    for name in nltk_data._REQUIRED:
        (tmp_path / name).symlink_to(WORDNET.path / name)
    monkeypatch.setenv("METEORX_WORDNET", str(tmp_path))
    found = _find()
    assert found.path == tmp_path and found.origin == "$METEORX_WORDNET"
    assert found.version == "3.0"
    shared = wn_synsets.shared_synonyms()
    assert wn_synsets.WordNetSynonyms(found).synonyms("cat") == shared.synonyms("cat")


@needs_wordnet
def test_zipped_wordnet_like_nltk_data(tmp_path: Path) -> None:
    assert WORDNET is not None
    archive = tmp_path / "wordnet.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as out:
        for name in nltk_data._REQUIRED:
            out.write(WORDNET.path / name, f"wordnet/{name}")
    zipped = wn_synsets.WordNetSynonyms(archive)
    plain = wn_synsets.shared_synonyms()
    for word in ("cat", "sat", "larg", "run", "better", "geese", "xyzzy"):
        assert zipped.synonyms(word) == plain.synonyms(word)


@needs_wordnet
def test_build_nltk_data_writes_lexnames(tmp_path: Path) -> None:
    import nltk

    saved = list(nltk.data.path)
    try:
        root = plugin.build_nltk_data(target=tmp_path / "nltk_data")
        assert str(root) in nltk.data.path
    finally:
        nltk.data.path[:] = saved
    corpus = root / "corpora" / "wordnet"
    lines = (corpus / "lexnames").read_text(encoding="ascii").splitlines()
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3" and lines[44] == "44\tadj.ppl\t3"
    assert lines[3] == "03\tnoun.Tops\t1" and lines[29] == "29\tverb.body\t2"
    assert all(not (corpus / name).is_symlink() for name in nltk_data._REQUIRED)
    # A second call with the same source does not rebuild.
    stamp = (corpus / ".meteorx-source").stat().st_mtime_ns
    plugin.build_nltk_data(target=tmp_path / "nltk_data")
    nltk.data.path[:] = saved
    assert (corpus / ".meteorx-source").stat().st_mtime_ns == stamp


# -- the plugin: matchers, aligner, preset --------------------------------------------------


def test_plugin_registers_matchers_and_aligner() -> None:
    from meteorx.config import load_config
    from meteorx.registry import get_registry

    registry = get_registry()
    assert registry.owners["matcher:porter-nltk"] == "nltk_compat"
    assert registry.owners["matcher:wordnet-nltk"] == "nltk_compat"
    assert registry.owners["aligner:nltk"] == "nltk_compat"
    config = load_config("nltk")
    assert [s.matcher for s in config.stages] == ["exact", "porter-nltk", "wordnet-nltk"]
    assert [s.options for s in config.stages] == [{}, {"prune": True}, {"prune": True}]
    assert config.aligner.name == "nltk" and not config.perfect_match_rule
    assert config.function_words == "none" and config.normalize.lowercase
    assert (config.alpha, config.beta, config.gamma, config.delta) == (0.9, 3.0, 0.5, 0.5)


def test_aligner_is_greedy_from_the_last_hypothesis_word() -> None:
    from meteorx.types import Match
    from meteorx_plugins.nltk_compat import NltkAligner

    # "on the mat sat the cat" vs "the cat sat on the mat": exact candidates only.
    hyp = _w("on the mat sat the cat")
    ref = CAT
    candidates = [
        Match(j, 1, i, 1, 0) for j, r in enumerate(ref) for i, h in enumerate(hyp) if h == r
    ]
    alignment = NltkAligner().align(candidates, len(hyp), len(ref), (1.0,), frozenset({0}))
    assert alignment.chunks == 6
    # The last "the" of the hypothesis takes the last "the" of the reference.
    assert {(m.hyp_start, m.ref_start) for m in alignment.matches} == set(
        compat.align_words(hyp, ref, wordnet=FakeWordNet([]))
    )
    # Earlier stages win; a phrase needs every word free; longer spans first on ties.
    candidates = [
        Match(0, 2, 0, 2, 1),
        Match(1, 1, 1, 1, 0),
        Match(2, 1, 2, 1, 1),
        Match(2, 2, 2, 2, 1),
    ]
    alignment = NltkAligner().align(candidates, 4, 4, (1.0, 1.0), frozenset({0}))
    assert alignment.matches == (Match(1, 1, 1, 1, 0), Match(2, 2, 2, 2, 1))


@needs_wordnet
def test_preset_matches_compat_on_random_sentences() -> None:
    """The Scorer path, with and without candidate pruning, and its fast path."""
    from meteorx.metric import Scorer
    from meteorx.types import Match

    scorer = Scorer("nltk")
    unpruned = Scorer(
        {
            "extends": "nltk",
            "stages": [
                {"matcher": "exact"},
                {"matcher": "porter-nltk"},  # prune defaults to false
                {"matcher": "wordnet-nltk"},
            ],
        }
    )
    aligner = scorer.aligner
    rng = random.Random(7)
    for _ in range(400):
        hyp = _random_sentence(rng, VOCAB)
        refs = [_random_sentence(rng, VOCAB) for _ in range(rng.randint(1, 3))]
        expected = compat.meteor_score(refs, hyp)
        result = scorer.segment(hyp, refs)
        assert result.score == pytest.approx(expected, abs=1e-9, rel=0), (hyp, refs)
        assert unpruned.segment(hyp, refs).alignment == result.alignment
        # align_prepared (a scorer may call it instead of collecting candidates).
        hyp_t, ref_t = scorer.tokenize(hyp), scorer.tokenize(refs[result.ref_index])
        fast = aligner.align_prepared(  # type: ignore[attr-defined]
            scorer.matchers,
            [m.prepare(hyp_t) for m in scorer.matchers],
            [m.prepare(ref_t) for m in scorer.matchers],
            len(hyp_t),
            len(ref_t),
        )
        assert fast == result.alignment
        # The candidate path (every matcher's candidates, then the aligner) agrees.
        hyp_p = [m.prepare(hyp_t) for m in scorer.matchers]
        ref_p = [m.prepare(ref_t) for m in scorer.matchers]
        for matchers in (scorer.matchers, unpruned.matchers):
            candidates = [
                Match(span[2], span[3], span[0], span[1], stage)
                for stage, matcher in enumerate(matchers)
                for span in matcher.candidates(hyp_p[stage], ref_p[stage])
            ]
            slow = aligner.align(candidates, len(hyp_t), len(ref_t), (1.0,) * 3, frozenset({0}))
            assert slow == result.alignment, (hyp, refs[result.ref_index])


# -- against the real NLTK with the real WordNet (slow) -------------------------------------


@pytest.fixture(scope="module")
def nltk_wordnet() -> Iterator[Any]:
    """NLTK's own WordNetCorpusReader on the same WordNet files (takes seconds)."""
    if WORDNET is None:
        pytest.skip("WordNet 3.0 not found (apt-get install wordnet-base)")
    import nltk

    saved = list(nltk.data.path)
    try:
        yield plugin.nltk_wordnet_reader()
    finally:
        nltk.data.path[:] = saved


def _xray() -> tuple[list[str], dict[str, list[str]]]:
    if not XRAY.is_dir():
        pytest.skip(f"evaluation data not found: {XRAY} (set METEORX_DATA)")

    def lines(name: str) -> list[str]:
        return (XRAY / name).read_text(encoding="utf-8").split("\n")[:-1]

    systems = {s: lines(f"xray.{s}.hyp") for s in ("system1", "system2")}
    return lines("xray.reference"), systems


@pytest.mark.slow
def test_synonyms_equal_nltk_wordnet(nltk_wordnet: Any) -> None:
    """WordNetSynonyms (no NLTK loader) == NLTK's synsets -> lemma names, on every word
    and stem of the example data, every exception-list form and a sample of lemmas."""
    ours = wn_synsets.WordNetSynonyms()
    ours.load()
    stem = PorterStemmer().stem
    words: set[str] = set()
    if XRAY.is_dir():
        for name in ("xray.reference", "xray.system1.hyp", "xray.system2.hyp"):
            tokens = (XRAY / name).read_text(encoding="utf-8").lower().split()
            words.update(tokens)
            words.update(stem(t) for t in set(tokens))
    for pos in "nvar":
        words.update(ours._exceptions[pos])
        words.update(sorted(ours._index[pos])[::25])
    words.update(["", "s", "'s", "A", "Party", "New York", "geese", "better", "ran"])
    mismatched = []
    for word in sorted(words):
        expected = {
            lemma.name() for synset in nltk_wordnet.synsets(word) for lemma in synset.lemmas()
        }
        if ours.lemma_names(word) != expected:
            mismatched.append(word)
    assert not mismatched, f"{len(mismatched)} of {len(words)} differ, e.g. {mismatched[:10]}"
    assert len(words) > 10_000


@pytest.mark.slow
@pytest.mark.data
def test_xray_segments_equal_real_nltk(nltk_wordnet: Any) -> None:
    """Every segment of both example systems, bit for bit: compat and the preset."""
    from meteorx.metric import Scorer

    refs, systems = _xray()
    scorer = Scorer("nltk")
    stemmer = PorterStemmer()
    for name, hyps in systems.items():
        assert len(hyps) == len(refs) == 2489
        for k, (hyp, ref) in enumerate(zip(hyps, refs, strict=True)):
            expected = nltk_meteor.meteor_score(
                [ref.split()], hyp.split(), stemmer=stemmer, wordnet=nltk_wordnet
            )
            got = compat.meteor_score([ref.split()], hyp.split())
            assert got == expected, (name, k + 1, hyp, ref)
            preset = scorer.segment(hyp, ref).score
            assert preset == expected, (name, k + 1, preset, expected)


@pytest.mark.slow
def test_documented_numbers_are_real_nltks(nltk_wordnet: Any) -> None:
    for hypothesis, expected in [
        ("on the mat sat the cat", 0.5),
        ("the cat sat on the mat", 0.9977),
        ("the cat was sat on the mat", 0.9654),
    ]:
        hyp = hypothesis.split()
        nltk_value = nltk_meteor.meteor_score([CAT], hyp, wordnet=nltk_wordnet)
        assert round(nltk_value, 4) == expected
        assert compat.meteor_score([CAT], hyp) == nltk_value


@pytest.mark.slow
@pytest.mark.data
def test_custom_wordnet_object_is_used(nltk_wordnet: Any) -> None:
    """Passing NLTK's reader (memoised) gives the same numbers as the built-in reader."""
    refs, systems = _xray()
    for hyp, ref in list(zip(systems["system1"], refs, strict=True))[:300]:
        by_nltk_reader = compat.meteor_score([ref.split()], hyp.split(), wordnet=nltk_wordnet)
        assert by_nltk_reader == compat.meteor_score([ref.split()], hyp.split())


@pytest.mark.slow
def test_index_lists_every_lower_case_lemma_of_every_synset() -> None:
    """What ``synonym_prefilter`` relies on: a lower-case lemma name of a synset is an
    index entry listing that synset (checked on every synset of the installed WordNet)."""
    if WORDNET is None:
        pytest.skip("WordNet 3.0 not found (apt-get install wordnet-base)")
    wordnet = wn_synsets.WordNetSynonyms()
    wordnet.load()
    missing: list[tuple[str, str]] = []
    synsets = 0
    for number, (pos, _) in enumerate(wn_synsets._POS):
        for line in wordnet._data[pos].split(b"\n"):
            if not line[:1].isdigit():
                continue
            offset = int(line.split(None, 1)[0])
            synsets += 1
            for name in wordnet._parse(pos, offset)[1]:
                if name == name.lower() and offset * 4 + number not in wordnet.lemma_ids(name):
                    missing.append((pos, name))
    assert synsets > 100_000
    assert not missing, missing[:10]


def _synonym_rich_vocabulary() -> list[str]:
    wordnet = wn_synsets.shared_synonyms()
    seeds = _w(
        "big car house run fast happy begin buy job answer help show little small bad good "
        "make get say go see know take come think look want give use find tell ask work "
        "seem feel try leave call keep let put mean hold bring turn start move live believe"
    )
    words = set(seeds) | set(VOCAB)
    for seed in seeds:
        words.update(w for w in wordnet.synonyms(seed) if w.isalpha())
    stem = PorterStemmer().stem
    inflected = {w + end for w in list(words)[:300] for end in ("s", "ed", "ing", "er")}
    words.update(w for w in inflected if stem(w) != w)
    return sorted(words)


@pytest.mark.slow
def test_random_synonym_rich_sentences_equal_real_nltk(nltk_wordnet: Any) -> None:
    """All three stages with the real WordNet (and the synonym prefilter), bit for bit,
    and the preset's alignment from both of its paths."""
    from meteorx.metric import Scorer

    scorer = Scorer("nltk")
    vocabulary = _synonym_rich_vocabulary()
    assert len(vocabulary) > 400
    rng = random.Random(314)
    stemmer = PorterStemmer()
    linked_by_synonym = 0
    stem, synonyms = plugin.porter_stem_function(), wn_synsets.shared_synonyms().synonyms
    prefilter = plugin.synonym_prefilter(stem, synonyms)
    assert prefilter is not None
    for _ in range(500):
        hyp = _random_sentence(rng, vocabulary, 14)
        refs = [_random_sentence(rng, vocabulary, 14) for _ in range(rng.randint(1, 2))]
        expected = nltk_meteor.meteor_score(refs, hyp, stemmer=stemmer, wordnet=nltk_wordnet)
        assert compat.meteor_score(refs, hyp) == expected, (hyp, refs)
        links = nltk_meteor.align_words(hyp, refs[0], stemmer=stemmer, wordnet=nltk_wordnet)[0]
        assert compat.align_words(hyp, refs[0]) == links
        lower = [w.lower() for w in hyp], [w.lower() for w in refs[0]]
        with_prefilter = greedy.greedy_links(*lower, stem, synonyms, prefilter)
        assert with_prefilter == greedy.greedy_links(*lower, stem, synonyms)
        linked_by_synonym += len(with_prefilter[3])
        assert abs(scorer.segment(hyp, refs).score - expected) <= 1e-9
    assert linked_by_synonym > 50  # the synonym stage is well exercised


def test_mean_meteor_score_averages_segments() -> None:
    wordnet = FakeWordNet(GROUPS)
    hyps = [_w("the cat sat"), _w("on the mat sat the cat"), []]
    refs = [[CAT], [CAT, _w("a cat")], [CAT]]
    expected = (
        sum(compat.meteor_score(r, h, wordnet=wordnet) for r, h in zip(refs, hyps, strict=True)) / 3
    )
    got = compat.mean_meteor_score(refs, hyps, wordnet=wordnet)
    assert got == pytest.approx(expected, abs=1e-15)
    with pytest.raises(ValueError):
        compat.mean_meteor_score([], [])


def test_clear_caches_empties_the_memos() -> None:
    stem = plugin.porter_stem_function()
    assert stem("running") == "run"
    assert "running" in stem.__self__  # type: ignore[attr-defined]
    plugin.clear_caches()
    assert "running" not in stem.__self__  # type: ignore[attr-defined]
    assert stem("running") == "run" and plugin.porter_stem_function() == stem


@pytest.mark.wordnet
def test_compiled_greedy_links_equals_its_source() -> None:
    """``meteorx_plugins.nltk_compat._greedy`` (``greedy.py`` compiled as it is, when
    built) gives what its plain-Python source gives, link for link, with and without the
    synonym prefilter; the engine seam picks one or the other."""
    with engine.use("python"):
        assert links.greedy_module() is greedy
        assert plugin.NltkAligner()._greedy_links is greedy.greedy_links
    fast = engine.compiled(links.COMPILED)
    if fast is None:
        pytest.skip(f"{links.COMPILED} is not compiled in this installation")
    assert links.greedy_module() is fast
    vocabulary = _synonym_rich_vocabulary()
    rng = random.Random(2718)
    stem, synonyms = plugin.porter_stem_function(), wn_synsets.shared_synonyms().synonyms
    prefilter = plugin.synonym_prefilter(stem, synonyms)
    for _ in range(400):
        hyp = [w.lower() for w in _random_sentence(rng, vocabulary, 14)]
        ref = [w.lower() for w in _random_sentence(rng, vocabulary, 14)]
        for pre in (prefilter, None):
            expected = greedy.greedy_links(hyp, ref, stem, synonyms, pre)
            assert fast.greedy_links(hyp, ref, stem, synonyms, pre) == expected
