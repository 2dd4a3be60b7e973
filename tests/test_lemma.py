"""The ``lemma`` plugin: simplemma lemmas for any language, loaded fast."""

from __future__ import annotations

import pytest

simplemma = pytest.importorskip("simplemma", reason="the lemma plugin needs simplemma")

from meteorx.errors import ConfigError, LanguageError  # noqa: E402
from meteorx.languages import resolve_language  # noqa: E402
from meteorx.metric import Scorer  # noqa: E402
from meteorx.registry import get_registry  # noqa: E402
from meteorx.types import Span  # noqa: E402
from meteorx_plugins import lemma as lemma_plugin  # noqa: E402
from meteorx_plugins.lemma import (  # noqa: E402
    FlatDictionary,
    LemmaMatcher,
    LemmaOptions,
    builtin_function_words,
    lemma_chain,
    lemmatizer,
    simplemma_code,
)


def _scorer(language: str = "pt", **options: object) -> Scorer:
    return Scorer(
        {
            "language": language,
            "normalize": "lower",
            "stages": [{"matcher": "exact"}, {"matcher": "lemma", **options}],
        }
    )


def _links(scorer: Scorer, hyp: str, ref: str, stage: int = 1) -> list[tuple[str, str]]:
    result = scorer.segment(hyp, ref)
    return [
        (result.hyp_tokens[m.hyp_start], result.ref_tokens[m.ref_start])
        for m in result.alignment.matches
        if m.stage == stage
    ]


def test_registered() -> None:
    assert get_registry().matchers["lemma"] is LemmaMatcher
    assert get_registry().owners["matcher:lemma"] == "lemma"


def test_language_codes() -> None:
    assert simplemma_code(resolve_language("pt")) == "pt"
    assert simplemma_code(resolve_language("no")) == "nb"
    assert simplemma_code(resolve_language("hr")) == "hbs"
    assert simplemma_code(resolve_language("zh")) is None


def test_flat_dictionary_roundtrip() -> None:
    items = {"casas": "casa", "chegaram": "chegar", "ação": "ação", "Ärger": "ärgern", "a": "o"}
    table = FlatDictionary(FlatDictionary.compile(items.items()))
    assert len(table) == len(items)
    assert dict(table.items()) == items
    for key, value in items.items():
        assert table[key] == value
        assert table.get(key) == value
        assert key in table
    assert table.get("missing") is None
    assert table.get("casa") is None  # values are not keys
    assert "zzz" not in table
    with pytest.raises(KeyError):
        table["nothing"]
    empty = FlatDictionary(FlatDictionary.compile([]))
    assert len(empty) == 0 and empty.get("a") is None


@pytest.mark.parametrize(
    "word",
    ["chegaram", "chegou", "fizeram", "foi", "era", "casas", "bonitas", "Casas", "xyzzy"],
)
def test_lemmatizer_equals_simplemma(word: str) -> None:
    assert lemmatizer("pt")(word) == simplemma.lemmatize(word, lang="pt")


def test_lemma_chain_reaches_a_fixed_point() -> None:
    lemma = lemmatizer("pt")
    assert lemma("lindas") == "linda" and lemma("linda") == "lindo"  # not idempotent
    assert lemma_chain(lemma, "lindas") == ["linda", "lindo"]
    assert lemma_chain(lemma, "lindo") == []  # already a lemma
    cycle = {"a": "b", "b": "a"}
    assert lemma_chain(lambda w: cycle.get(w, w), "a") == ["b"]
    assert lemma_chain(str.lower, "casa") == []


def test_warm_load_reads_the_compiled_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second process reads the compiled table from the user cache; it does not rebuild it.

    (Checked by what runs, not by the clock: a cold disk or a loaded machine makes any
    wall-clock bound flaky, and the rebuild is what costs seconds.)
    """
    from meteorx.cache import cache_dir

    if cache_dir() is None:
        pytest.skip("the user cache is disabled ($METEORX_CACHE_DIR=off): nothing is compiled")
    lemmatizer("pt")("casas")  # builds the compiled table if the cache is cold
    lemma_plugin._FACTORY._tables.clear()

    def rebuild(code: str) -> None:
        raise AssertionError(f"the compiled {code} table was rebuilt instead of read")

    monkeypatch.setattr(lemma_plugin, "_build_record", rebuild)
    table = lemma_plugin._FACTORY.get_dictionary("pt")
    assert table.get("chegaram") == "chegar"


def test_chegou_chegaram() -> None:
    assert ("chegou", "chegaram") in _links(_scorer(), "ele chegou ontem", "eles chegaram ontem")


def test_irregular_forms_link() -> None:
    scorer = _scorer()
    assert ("foi", "era") in _links(scorer, "foi bom", "era bom")
    assert ("fez", "fizeram") in _links(scorer, "fez tudo", "fizeram tudo")
    assert ("lindas", "lindo") in _links(scorer, "casas lindas", "casas lindo")


def test_identical_words_are_the_exact_stages() -> None:
    matcher = _scorer().matchers[1]
    tokens = ("casa", "casas")
    spans = list(matcher.candidates(matcher.prepare(tokens), matcher.prepare(tokens)))
    assert (0, 1, 0, 1) not in spans and (1, 1, 1, 1) not in spans
    assert (1, 1, 0, 1) in spans and (0, 1, 1, 1) in spans
    keep = _scorer(skip_identical=False).matchers[1]
    assert (0, 1, 0, 1) in list(keep.candidates(keep.prepare(tokens), keep.prepare(tokens)))


def test_candidates_are_grouped_by_reference_then_hypothesis() -> None:
    matcher = _scorer().matchers[1]
    hyp = matcher.prepare(("chegou", "casas", "chegamos", "casa"))
    ref = matcher.prepare(("casa", "chegaram", "casinha"))
    spans = [Span(*span) for span in matcher.candidates(hyp, ref)]
    assert spans == sorted(spans, key=lambda s: (s.ref_start, s.hyp_start))
    assert spans, "expected some links"


def test_case_insensitive() -> None:
    stages = [{"matcher": "exact"}, {"matcher": "lemma"}]
    scorer = Scorer({"language": "pt", "normalize": "none", "stages": stages})
    assert _links(scorer, "Obrigado !", "obrigado !") == [("Obrigado", "obrigado")]


def test_skip_function_words() -> None:
    plain = _scorer()
    assert ("o", "a") in _links(plain, "o casa", "a casa")
    strict = _scorer(skip_function_words=True)
    assert _links(strict, "o casa", "a casa") == []
    assert _links(strict, "ele chegou", "ela chegaram") == [("chegou", "chegaram")]
    cased = Scorer(
        {
            "language": "pt",
            "normalize": "none",
            "stages": [{"matcher": "exact"}, {"matcher": "lemma", "skip_function_words": True}],
        }
    )
    assert _links(cased, "Eu chego", "eu chego") == [("Eu", "eu")]  # only the case differs
    assert "o" in builtin_function_words(resolve_language("pt"))


@pytest.mark.parametrize(
    ("language", "hyp", "ref", "pair"),
    [
        ("fr", "nous allons", "nous irons", ("allons", "irons")),
        ("es", "ellos comieron", "ellos comen", ("comieron", "comen")),
        ("de", "wir gingen", "wir gehen", ("gingen", "gehen")),
        ("it", "le case", "la casa", ("case", "casa")),
    ],
)
def test_other_languages(language: str, hyp: str, ref: str, pair: tuple[str, str]) -> None:
    assert pair in _links(_scorer(language), hyp, ref)


def test_unsupported_language_is_a_clear_error() -> None:
    with pytest.raises(LanguageError, match="simplemma languages"):
        _scorer("zh")


def test_options_are_validated() -> None:
    with pytest.raises(ConfigError, match="unknown option"):
        _scorer(lemmas=True)
    assert LemmaOptions().skip_identical is True


def test_describe_names_version_and_language() -> None:
    text = _scorer(greedy=True, skip_function_words=True).matchers[1].describe()
    assert text.startswith("lemma.v1(simplemma-")
    assert "-pt-greedy" in text and "skip-fw" in text
