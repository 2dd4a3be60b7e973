"""Function-word sources: every Snowball language has a list, and its id names its source."""

from __future__ import annotations

import unicodedata
from importlib import resources
from pathlib import Path

import pytest

from meteorx.cli.main import main
from meteorx.errors import ResourceError
from meteorx.languages import LANGUAGES, Language, resolve_language
from meteorx.metric import Scorer
from meteorx.registry import FunctionWordSource, get_registry
from meteorx.signature import signature
from meteorx_plugins import function_words as fw

SNOWBALL = sorted(code for code, lang in LANGUAGES.items() if lang.snowball)
CURATED = ("en", "pt", "ne", "sr", "ta", "yi")
#: Where the ``builtin`` source finds each language's list when it is not meteorx's own.
SOURCE_PREFIXES = ("builtin-", "stop-words-", "stopwords-iso-")


def _source(name: str) -> FunctionWordSource:
    source = get_registry().function_word_source(name)
    assert source is not None, name
    return source


def test_sources_are_registered_by_the_function_words_plugin() -> None:
    registry = get_registry()
    for name in ("none", "builtin", "stop-words", "stopwords-iso", "meteor-1.5"):
        assert registry.owners[f"function-words:{name}"] == "function_words"
    assert "function_words" in registry.plugins


@pytest.mark.parametrize("code", SNOWBALL)
def test_every_snowball_language_has_a_builtin_list(code: str) -> None:
    language = LANGUAGES[code]
    words, source_id = _source("builtin")(language)
    assert len(words) >= 25, (code, len(words))
    assert source_id.startswith(SOURCE_PREFIXES), source_id
    assert all(w == w.strip().lower() and w for w in words)


def test_builtin_prefers_meteorx_then_stop_words_then_stopwords_iso() -> None:
    builtin = _source("builtin")
    for code in CURATED:
        assert builtin(LANGUAGES[code])[1] == f"builtin-{code}"
    assert builtin(LANGUAGES["de"])[1] == "stop-words-de"  # both packages have German
    assert builtin(LANGUAGES["nn"])[1] == "stop-words-nb"
    for code in ("eu", "et", "lt", "hy", "eo", "ga", "st"):  # stop-words has no list
        assert builtin(LANGUAGES[code])[1] == f"stopwords-iso-{code}"


def test_package_sources_on_their_own() -> None:
    words, source_id = _source("stopwords-iso")(LANGUAGES["eu"])
    assert source_id == "stopwords-iso-eu" and "eta" in words  # Basque "and"
    assert _source("stopwords-iso")(LANGUAGES["nb"])[1] == "stopwords-iso-no"
    assert "und" in _source("stop-words")(LANGUAGES["de"])[0]
    with pytest.raises(ResourceError, match="stop-words package has no list for Nepali"):
        _source("stop-words")(LANGUAGES["ne"])
    with pytest.raises(ResourceError, match="stopwordsiso package has no list for Tamil"):
        _source("stopwords-iso")(LANGUAGES["ta"])
    assert _source("none")(LANGUAGES["en"]) == (frozenset(), "none")


def test_no_list_anywhere_is_a_clear_error() -> None:
    with pytest.raises(ResourceError, match="no function-word list for Icelandic"):
        _source("builtin")(LANGUAGES["is"])


@pytest.mark.parametrize("code", ["ne", "sr", "ta", "yi"])
def test_hand_curated_lists(code: str) -> None:
    path = resources.files("meteorx").joinpath(f"data/function_words/{code}.txt")
    text = path.read_text(encoding="utf-8")
    header = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert "Source: meteorx, hand-curated" in " ".join(header)
    entries = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert len(entries) == len(set(entries)), "duplicate entries"
    assert all(ln == ln.strip() and " " not in ln for ln in entries)
    assert all(unicodedata.is_normalized("NFC", ln) for ln in entries)
    words = fw.curated_function_words(LANGUAGES[code])
    assert words is not None and words[0] == frozenset(entries)


def test_curated_lists_hold_the_expected_words() -> None:
    def words(code: str) -> frozenset[str]:
        return _source("builtin")(LANGUAGES[code])[0]

    assert {"र", "मा", "को", "छ", "यो"} <= words("ne")
    assert {"i", "u", "je", "da", "на", "и", "је", "да", "њега"} <= words("sr")  # both scripts
    assert {"மற்றும்", "இந்த", "ஒரு", "என்று"} <= words("ta")
    assert {"און", "דער", "די", "אַ", "א", "פֿון", "פון", "איז"} <= words("yi")  # (un)pointed


def test_scorer_uses_the_list_and_names_it_in_the_signature() -> None:
    config = {"extends": "li", "language": "sr", "function_words": "builtin", "delta": 0.75}
    scorer = Scorer(config)
    assert scorer.function_words_id == "builtin-sr"
    assert "fw:builtin-sr" in signature(scorer)
    # Three function words match, the content word does not: with delta 0.75 function
    # words count for little, identically in both scripts.
    latin = scorer.segment("on je u kući", "on je u stanu").score
    cyrillic = scorer.segment("он је у кући", "он је у стану").score
    plain = Scorer({**config, "function_words": "none"}).segment("on je u kući", "on je u stanu")
    assert latin == pytest.approx(cyrillic)
    assert latin < plain.score
    eu = Scorer({"extends": "li", "language": "eu", "function_words": "stopwords-iso"})
    assert eu.function_words_id == "stopwords-iso-eu"


def test_meteor_jar_path_stays_importable() -> None:
    path = fw.meteor_jar_path()
    assert path is None or path.name == "meteor-1.5.jar"


def test_languages_command_reports_no_missing_function_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["languages"]) == 0
    out = capsys.readouterr().out
    lines = {ln.split()[0]: ln for ln in out.splitlines()[1:] if ln.strip()}
    for code in SNOWBALL:
        line = lines[code]
        missing = line.partition("[missing:")[2]
        assert "function" not in missing.lower(), line
        assert "function words" not in line.lower() or "missing" not in line.lower(), line


def test_resolve_language_reaches_the_same_list() -> None:
    language: Language = resolve_language("serbian")
    assert _source("builtin")(language)[1] == "builtin-sr"


def test_docs_name_each_languages_source() -> None:
    doc = Path(__file__).resolve().parents[1] / "docs" / "languages.md"
    rows = {}
    for line in doc.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 8 and cells[0] in LANGUAGES:
            rows[cells[0]] = cells[6]  # the "function words" column
    labels = {
        "builtin": "meteorx (hand-curated)",
        "stop-words": "stop-words",
        "stopwords-iso": "stopwords-iso",
    }
    for code in SNOWBALL:
        source_id = _source("builtin")(LANGUAGES[code])[1]
        label = next(v for k, v in labels.items() if source_id.startswith(k + "-"))
        assert rows[code].startswith(label + ","), (code, rows.get(code), source_id)


def test_plugin_subset_has_the_function_word_sources_it_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """METEORX_PLUGINS lists the plugins available, meteorx's own included: naming
    function_words keeps its sources; leaving it out, a configuration reading one says why."""
    from meteorx.errors import PluginError

    monkeypatch.setenv("METEORX_PLUGINS", "core,function_words")
    get_registry.cache_clear()  # the registry of the process, built with that variable
    try:
        registry = get_registry()
        assert set(registry.plugins) == {"core", "function_words"}
        assert {"none", "builtin", "stop-words", "stopwords-iso"} <= set(registry.function_words)
        # li reads Meteor 1.5's list (function_words: meteor-1.5), a function_words source
        assert Scorer("li", language="en").function_words_id == "meteor-1.5-english"
        monkeypatch.setenv("METEORX_PLUGINS", "core")
        get_registry.cache_clear()
        match = r"'meteor-1.5': plugin 'function_words' provides it.*METEORX_PLUGINS leaves out"
        with pytest.raises(PluginError, match=match):
            Scorer("li", language="en")
    finally:
        get_registry.cache_clear()
