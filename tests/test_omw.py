"""The ``omw`` plugin (``synonym-omw`` matcher) and ``meteorx resources``.

Wordnets are read from the shared data (``$METEORX_DATA/omw``, laid out like omw-data's
``wns/`` folder); tests needing them skip with the reason when it is absent.
"""

from __future__ import annotations

import argparse
import json
import urllib.error
from collections.abc import Iterator
from pathlib import Path

import pytest

from meteorx.errors import ConfigError, LanguageError, MeteorxError, ResourceError
from meteorx.metric import Scorer
from meteorx.registry import get_registry
from meteorx_plugins import omw
from meteorx_plugins.omw import (
    OMW_CODES,
    OMW_SHA256,
    OmwSynonymMatcher,
    check_tab_file,
    find_omw_file,
    load_index,
    omw_resource,
    tab_file_language,
)
from tests.conftest import DATA, require_data

OMW = DATA / "omw"

#: Synonym pairs checked by hand in OpenWordnet-PT, each used in context with an
#: inflected (plural, feminine, or finite verb) form on at least one side.
PT_PAIRS = [
    ("os automóveis novos", "os carros novos", ("automóveis", "carros")),
    ("eles iniciaram ontem", "eles começaram ontem", ("iniciaram", "começaram")),
    ("isso ocorreu cedo", "isso aconteceu cedo", ("ocorreu", "aconteceu")),
    ("nós utilizamos o sistema", "nós usamos o sistema", ("utilizamos", "usamos")),
    ("ela solicitou ajuda", "ela pediu ajuda", ("solicitou", "pediu")),
    ("os estudantes chegaram", "os alunos chegaram", ("estudantes", "alunos")),
    ("ele faleceu ontem", "ele morreu ontem", ("faleceu", "morreu")),
    ("as empresas velozes", "as empresas rápidas", ("velozes", "rápidas")),
    ("o emprego dele", "o trabalho dele", ("emprego", "trabalho")),
    ("as casas são lindas", "as casas são bonitas", ("lindas", "bonitas")),
    ("navios grandes", "barcos grandes", ("navios", "barcos")),
    ("as meninas alegres", "as meninas felizes", ("alegres", "felizes")),
    ("as casas antigas", "as casas velhas", ("antigas", "velhas")),
    ("as estradas largas", "as rodovias largas", ("estradas", "rodovias")),
    ("eles terminaram a obra", "eles acabaram a obra", ("terminaram", "acabaram")),
    ("crianças tristes", "crianças infelizes", ("tristes", "infelizes")),
    ("os perigos reais", "os riscos reais", ("perigos", "riscos")),
]


@pytest.fixture(scope="module")
def omw_dir() -> Path:
    return require_data("omw", "por", "wn-data-por.tab").parent.parent


@pytest.fixture(scope="module")
def scorer(omw_dir: Path) -> Scorer:
    return _scorer(omw_dir)


def _scorer(omw_dir: Path, language: str = "pt", **options: object) -> Scorer:
    return Scorer(
        {
            "language": language,
            "normalize": "lower",
            "stages": [
                {"matcher": "exact"},
                {"matcher": "synonym-omw", "path": str(omw_dir), **options},
            ],
        }
    )


def _links(scorer: Scorer, hyp: str, ref: str) -> list[tuple[str, str]]:
    result = scorer.segment(hyp, ref)
    return [
        (
            " ".join(result.hyp_tokens[m.hyp_start : m.hyp_end]),
            " ".join(result.ref_tokens[m.ref_start : m.ref_end]),
        )
        for m in result.alignment.matches
        if m.stage == 1
    ]


@pytest.fixture
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty user cache and no $METEORX_OMW_DIR."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("METEORX_CACHE_DIR", str(cache))
    monkeypatch.delenv("METEORX_OMW_DIR", raising=False)
    yield cache


# -- matching ------------------------------------------------------------------------------


def test_registered() -> None:
    assert get_registry().matchers["synonym-omw"] is OmwSynonymMatcher


@pytest.mark.data
@pytest.mark.parametrize(("hyp", "ref", "pair"), PT_PAIRS, ids=[p[2][0] for p in PT_PAIRS])
def test_openwordnet_pt_synonyms_in_context(
    scorer: Scorer, hyp: str, ref: str, pair: tuple[str, str]
) -> None:
    assert pair in _links(scorer, hyp, ref)
    # and the other way round
    assert (pair[1], pair[0]) in _links(scorer, ref, hyp)


@pytest.mark.data
def test_synonyms_raise_the_score(scorer: Scorer, omw_dir: Path) -> None:
    exact = Scorer({"language": "pt", "normalize": "lower", "stages": [{"matcher": "exact"}]})
    for hyp, ref, _ in PT_PAIRS:
        assert scorer.segment(hyp, ref).score > exact.segment(hyp, ref).score


@pytest.mark.data
def test_multiword_lemmas_match_as_phrases(scorer: Scorer, omw_dir: Path) -> None:
    assert ("pelo menos", "ao menos") in _links(scorer, "pelo menos dois", "ao menos dois")
    assert ("contatar", "entrar em contato") in _links(
        scorer, "vou contatar você", "vou entrar em contato com você"
    )
    one_word = _scorer(omw_dir, max_phrase_len=1)
    assert _links(one_word, "pelo menos dois", "ao menos dois") == []


@pytest.mark.data
def test_identical_words_and_unrelated_words_do_not_link(scorer: Scorer) -> None:
    matcher = scorer.matchers[1]
    tokens = ("carro", "carros")
    spans = list(matcher.candidates(matcher.prepare(tokens), matcher.prepare(tokens)))
    assert (0, 1, 0, 1) not in spans and (1, 1, 1, 1) not in spans
    assert _links(scorer, "o carro azul", "a mesa verde") == [("o", "a")] or not any(
        pair in _links(scorer, "o carro azul", "a mesa verde")
        for pair in [("carro", "mesa"), ("azul", "verde")]
    )


@pytest.mark.data
def test_skip_function_words(omw_dir: Path) -> None:
    plain = _scorer(omw_dir)
    strict = _scorer(omw_dir, skip_function_words=True)
    assert ("é", "está") in _links(plain, "ele é aqui", "ele está aqui")
    assert _links(strict, "ele é aqui", "ele está aqui") == []
    assert ("solicitou", "pediu") in _links(strict, "ela solicitou ajuda", "ela pediu ajuda")


@pytest.mark.data
def test_candidates_are_grouped_by_reference_then_hypothesis(scorer: Scorer) -> None:
    matcher = scorer.matchers[1]
    hyp = matcher.prepare(tuple(["os", "carros", "iniciaram", "pelo", "menos", "a", "viagem"]))
    ref = matcher.prepare(tuple(["os", "automóveis", "começaram", "ao", "menos", "o", "percurso"]))
    spans = list(matcher.candidates(hyp, ref))
    assert spans and spans == sorted(spans, key=lambda s: (s.ref_start, s.hyp_start))


@pytest.mark.data
@pytest.mark.parametrize(
    ("language", "hyp", "ref", "pair"),
    [
        ("fr", "une voiture rouge", "une automobile rouge", ("voiture", "automobile")),
        ("it", "una macchina rossa", "una automobile rossa", ("macchina", "automobile")),
        ("nl", "een mooie auto", "een mooie wagen", ("auto", "wagen")),
        ("ca", "un cotxe vermell", "un automòbil vermell", ("cotxe", "automòbil")),
    ],
)
def test_other_languages(
    omw_dir: Path, language: str, hyp: str, ref: str, pair: tuple[str, str]
) -> None:
    code = OMW_CODES[language]
    require_data("omw", code, f"wn-data-{code}.tab")
    assert pair in _links(_scorer(omw_dir, language), hyp, ref)


def test_language_without_a_wordnet(omw_dir: Path) -> None:
    with pytest.raises(LanguageError, match="no Open Multilingual Wordnet"):
        _scorer(omw_dir, "de")


def test_unknown_option(omw_dir: Path) -> None:
    with pytest.raises(ConfigError, match="unknown option"):
        _scorer(omw_dir, stems="always")


@pytest.mark.data
def test_signature_names_the_file_checksum(scorer: Scorer) -> None:
    text = scorer.matchers[1].describe()
    assert text.startswith("synonym-omw.v1(omw-por:0ba180e2d2a5")
    assert scorer.matchers[1].resources()["omw-por"].endswith("(option 'path')")


@pytest.mark.data
def test_compiled_index_is_read_not_rebuilt(
    scorer: Scorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second load reads the compiled index from the user cache (checked by what runs,
    not by the clock, which a cold disk or a loaded machine makes flaky)."""
    matcher = scorer.matchers[1]
    assert isinstance(matcher, OmwSynonymMatcher)
    assert matcher.cache_file is None or matcher.cache_file.is_file()
    args = (matcher.path, matcher.sha256, "pt", "portuguese", False)
    load_index(*args)  # compiled by now (or built here if the cache is disabled)
    if matcher.cache_file is None:
        pytest.skip("the user cache is disabled, nothing is compiled")

    def rebuild(*_: object) -> None:
        raise AssertionError("the compiled OpenWordnet-PT index was rebuilt instead of read")

    monkeypatch.setattr(omw.index, "_build_index", rebuild)
    index, cache_file = load_index.__wrapped__(*args)
    assert cache_file == matcher.cache_file
    assert index.entries == matcher.index.entries > 70_000


# -- finding the tab file ----------------------------------------------------------------


def _tab(path: Path, code: str = "por", body: str = "00001740-n\tlemma\tente\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# Test wordnet\t{code}\thttp://example.org\tCC BY\n{body}", encoding="utf-8")
    return path


def test_check_tab_file(tmp_path: Path) -> None:
    good = _tab(tmp_path / "good.tab")
    assert check_tab_file(good) is None
    assert tab_file_language(good) == "por"
    bad = tmp_path / "bad.tab"
    bad.write_text("hello world\n", encoding="utf-8")
    assert "not an OMW tab file" in str(check_tab_file(bad))
    assert check_tab_file(tmp_path / "missing.tab") == "does not exist"
    empty = tmp_path / "empty.tab"
    empty.write_text("# only a header\n", encoding="utf-8")
    assert check_tab_file(empty) == "holds no wordnet entries"


def test_lookup_order(
    tmp_path: Path, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    explicit = _tab(tmp_path / "explicit" / "wn-data-por.tab")
    env_dir = tmp_path / "env"
    env_file = _tab(env_dir / "por" / "wn-data-por.tab")
    installed = _tab(isolated_cache / "resources" / "omw-por" / "wn-data-por.tab")
    # 3. the user cache
    assert find_omw_file("por") == (installed, "user cache")
    # 2. $METEORX_OMW_DIR wins over the cache
    monkeypatch.setenv("METEORX_OMW_DIR", str(env_dir))
    assert find_omw_file("por") == (env_file, "$METEORX_OMW_DIR")
    # ... but a folder without this language falls through to the cache
    _tab(env_dir / "fra" / "wn-data-fra.tab", "fra")
    assert find_omw_file("fra")[1] == "$METEORX_OMW_DIR"
    installed.unlink()
    with pytest.raises(ResourceError, match="omw-ita"):
        find_omw_file("ita")
    # 1. the stage option, a file or a folder, wins over everything
    assert find_omw_file("por", explicit) == (explicit, "option 'path'")
    assert find_omw_file("por", explicit.parent) == (explicit, "option 'path'")
    assert find_omw_file("por", env_dir)[0] == env_file
    with pytest.raises(ResourceError, match="holds neither"):
        find_omw_file("ita", env_dir)
    with pytest.raises(ResourceError, match="does not exist"):
        find_omw_file("por", tmp_path / "nope.tab")
    monkeypatch.setenv("METEORX_OMW_DIR", str(tmp_path / "not-a-folder"))
    with pytest.raises(ResourceError, match="is not a folder"):
        find_omw_file("por")


def test_missing_wordnet_is_one_line_with_the_install_command(isolated_cache: Path) -> None:
    with pytest.raises(ResourceError) as info:
        Scorer({"language": "pt", "stages": [{"matcher": "exact"}, {"matcher": "synonym-omw"}]})
    message = str(info.value)
    assert "\n" not in message
    assert "OpenWordnet-PT" in message and "not found" in message
    assert "meteorx resources install omw-por --from FILE" in message


# -- meteorx resources ---------------------------------------------------------------------


def _cli(*argv: str) -> int:
    from meteorx.cli.resources_cmd import add_parser

    parser = argparse.ArgumentParser(prog="meteorx")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    result: int = args.func(args)
    return result


def test_resource_names() -> None:
    spec = omw_resource("omw-por")
    assert spec is not None
    assert spec.filename == "wn-data-por.tab"
    assert spec.sha256 == OMW_SHA256["por"]
    assert spec.url.startswith("https://raw.githubusercontent.com/omwn/omw-data/")
    assert spec.url.endswith("/wns/por/wn-data-por.tab")
    other = omw_resource("omw-xyz")
    assert other is not None and other.sha256 is None
    assert omw_resource("wordnet") is None
    assert len(OMW_SHA256) == 15


@pytest.mark.data
def test_install_from_file_then_use(
    omw_dir: Path, isolated_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = omw_dir / "por" / "wn-data-por.tab"
    assert _cli("resources", "install", "omw-por", "--from", str(source)) == 0
    out = capsys.readouterr().out
    assert "verified against the pinned checksum" in out
    folder = isolated_cache / "resources" / "omw-por"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["sha256"] == OMW_SHA256["por"] and manifest["verified"] is True
    assert manifest["source"] == str(source.resolve()) and manifest["source_kind"] == "file"
    assert (folder / "wn-data-por.tab").read_bytes() == source.read_bytes()
    # the matcher now finds it without any option or variable
    assert find_omw_file("por") == (folder / "wn-data-por.tab", "user cache")
    # installing again is a no-op; listing shows it
    assert _cli("resources", "install", "omw-por", "--from", str(source)) == 0
    assert "already installed" in capsys.readouterr().out
    assert _cli("resources", "list", "--format", "json") == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["omw-por"]["installed"] is True and rows["omw-fra"]["installed"] is False
    assert _cli("resources", "list") == 0
    assert "omw-por" in capsys.readouterr().out


@pytest.mark.data
def test_install_checks_checksum_format_and_language(
    omw_dir: Path, isolated_cache: Path, tmp_path: Path
) -> None:
    wrong_language = omw_dir / "fra" / "wn-data-fra.tab"
    if wrong_language.is_file():
        with pytest.raises(ResourceError, match="is the fra wordnet, not por"):
            _cli("resources", "install", "omw-por", "--from", str(wrong_language))
    edited = _tab(tmp_path / "wn-data-por.tab")
    with pytest.raises(ResourceError, match="--no-verify"):
        _cli("resources", "install", "omw-por", "--from", str(edited))
    assert _cli("resources", "install", "omw-por", "--from", str(edited), "--no-verify") == 0
    manifest = json.loads(
        (isolated_cache / "resources" / "omw-por" / "manifest.json").read_text(encoding="utf-8")
    )
    assert manifest["verified"] is False
    with pytest.raises(ResourceError, match="--force"):
        _cli("resources", "install", "omw-por", "--from", str(omw_dir / "por" / "wn-data-por.tab"))
    not_tab = tmp_path / "notes.txt"
    not_tab.write_text("just text\n", encoding="utf-8")
    with pytest.raises(ResourceError, match="not an OMW tab file"):
        _cli("resources", "install", "omw-ita", "--from", str(not_tab))
    with pytest.raises(ResourceError, match="no such file"):
        _cli("resources", "install", "omw-ita", "--from", str(tmp_path / "missing.tab"))
    with pytest.raises(MeteorxError, match="unknown resource"):
        _cli("resources", "install", "wordnet-xyz")


def test_install_without_internet_says_to_use_from(
    isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def offline(*args: object, **kwargs: object) -> None:
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr("urllib.request.urlopen", offline)
    with pytest.raises(ResourceError) as info:
        _cli("resources", "install", "omw-por")
    message = str(info.value)
    assert "\n" not in message
    assert "raw.githubusercontent.com/omwn/omw-data" in message
    assert "meteorx resources install omw-por --from FILE" in message
    assert not (isolated_cache / "resources" / "omw-por" / "wn-data-por.tab").exists()


def test_cache_disabled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("METEORX_CACHE_DIR", "off")
    with pytest.raises(ResourceError, match="disabled"):
        _cli("resources", "install", "omw-por", "--from", str(_tab(tmp_path / "x.tab")))


def test_no_action_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli("resources") == 2
    assert "install" in capsys.readouterr().out


def test_module_constants_are_consistent() -> None:
    assert set(OMW_SHA256) <= set(OMW_CODES.values())
    spec = omw_resource("omw-por")
    assert spec is not None and omw.OMW_COMMIT in spec.url
