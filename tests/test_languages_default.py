"""A default per language: `--lang L` alone works for every ISO 639-1 code.

Covers meteorx.defaults (the one table of recommended configurations), the language
table (meteorx.languages, meteorx.iso639), every entry point that takes a language
(CLI, Scorer, score/corpus_score, compute), the not-English warning, the
``split-punct`` tokenizer, the jar-named presets' function words, missing resources
reported together, and ``meteorx languages``.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

import meteorx
from meteorx.config import load_config
from meteorx.config_loading import preset_names
from meteorx.defaults import configure, looks_english, meteorx_settings
from meteorx.errors import ConfigError, LanguageError, ResourceError
from meteorx.iso639 import ISO_639_1
from meteorx.languages import LANGUAGES, resolve_language
from meteorx.metric import Scorer

# (reference, a paraphrase of it) per language of the acceptance table.
SENTENCES: dict[str, tuple[str, str]] = {
    "pt": ("O gato está dormindo no sofá da sala.", "O gato dorme no sofá da sala."),
    "de": ("Die Katze schläft auf dem Sofa im Wohnzimmer.", "Die Katze schlief auf dem Sofa."),
    "fr": ("Le chat dort sur le canapé du salon.", "Le chat dormait sur le canapé."),
    "es": ("El gato duerme en el sofá de la sala.", "El gato dormía en el sofá."),
    "it": ("Il gatto dorme sul divano del soggiorno.", "Il gatto dormiva sul divano."),
    "nl": ("De kat slaapt op de bank in de woonkamer.", "De kat sliep op de bank."),
    "pl": ("Kot śpi na kanapie w salonie.", "Kot spał na kanapie."),
    "ru": ("Кошка спит на диване в гостиной.", "Кошка спала на диване."),
    "cs": ("Kočka spí na pohovce v obývacím pokoji.", "Kočka spala na pohovce."),
    "tr": ("Kedi oturma odasındaki kanepede uyuyor.", "Kedi kanepede uyudu."),
    "fi": ("Kissa nukkuu olohuoneen sohvalla.", "Kissa nukkui sohvalla."),
    "sv": ("Katten sover på soffan i vardagsrummet.", "Katten sov på soffan."),
    "is": ("Kötturinn sefur í sófanum í stofunni.", "Kötturinn svaf í sófanum."),
    "ar": ("القطة تنام على الأريكة في غرفة المعيشة.", "القطة نامت على الأريكة."),
    "hi": ("बिल्ली बैठक के सोफे पर सो रही है।", "बिल्ली सोफे पर सो रही थी।"),
    "zh": ("猫在客厅的沙发上睡觉。", "猫正在沙发上睡觉。"),
    "ja": ("猫は居間のソファで寝ています。", "猫はソファで寝ていました。"),
    "ko": ("고양이가 거실 소파에서 자고 있다.", "고양이가 소파에서 잤다."),
    "ha": ("Kyanwa tana barci a kan kujera a falo.", "Kyanwa ta yi barci a kan kujera."),
    "sw": ("Paka analala kwenye kochi sebuleni.", "Paka alilala kwenye kochi."),
}


@pytest.fixture(autouse=True)
def _private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed resources of the user's cache must not decide what is missing here."""
    monkeypatch.setenv("METEORX_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
    for name in ("METEORX_PARAPHRASE_DIR", "METEORX_PARAPHRASE_DE", "METEORX_OMW_DIR"):
        monkeypatch.delenv(name, raising=False)


# -- the language table ---------------------------------------------------------------


def test_every_iso_639_1_code_is_a_language() -> None:
    assert len(ISO_639_1) == 184
    assert set(LANGUAGES) == set(ISO_639_1)
    for code in ISO_639_1:
        assert resolve_language(code).code == code
        assert resolve_language(code.upper()).code == code


@pytest.mark.parametrize(
    ("given", "code"),
    [("cz", "cs"), ("pt-BR", "pt"), ("pt_PT", "pt"), ("zh-Hant", "zh"), ("English", "en")],
)
def test_aliases_and_subtags(given: str, code: str) -> None:
    assert resolve_language(given).code == code


def test_se_is_northern_sami_as_in_iso() -> None:
    assert resolve_language("se").name == "Northern Sami"


@pytest.mark.parametrize("code", ["xx", "klingon", "eng", "p", "zz-ZZ"])
def test_only_a_non_iso_code_is_an_error(code: str) -> None:
    with pytest.raises(LanguageError, match=f"unknown language '{code}'.*ISO 639-1"):
        resolve_language(code)


# -- the recommended configuration -------------------------------------------------------


def test_every_iso_code_has_a_valid_default_that_needs_no_download() -> None:
    for code in ISO_639_1:
        cfg = configure(None, language=code)
        assert cfg.language == code
        matchers = {s.matcher for s in cfg.stages}
        if code == "en":
            assert cfg.name == "meteor-1.5-en" and cfg.normalize.tokenizer == "meteor"
        else:
            assert cfg.name == "meteorx"
            assert not matchers & {"synonym-omw", "paraphrase"}, code
        assert "exact" in matchers


def test_stages_follow_what_pip_installs() -> None:
    def stages(code: str) -> list[str]:
        return [s.stage_name for s in configure(None, language=code).stages]

    assert stages("de") == ["exact", "case", "case-stem"]  # Snowball has German
    assert stages("ne") == ["exact", "case", "case-stem"]
    assert stages("is") == ["exact", "case"]  # no Snowball stemmer
    assert stages("ha") == ["exact", "case"]
    assert stages("zh") == ["exact", "case"]
    assert configure(None, language="zh").normalize.tokenizer == "split-punct"
    assert resolve_language("zh").spaceless and not resolve_language("ko").spaceless
    # function words where a list has the language, none elsewhere (never an error)
    assert configure(None, language="de").function_words == "builtin"
    assert configure(None, language="is").function_words == "none"


def test_every_language_but_english_defaults_to_the_meteorx_file() -> None:
    """One jointly tuned configuration (configs/meteorx.yaml) for every language."""
    preset = load_config("meteorx")
    for code in ("pt", "de", "fr", "ru"):
        default = configure(None, language=code)
        assert default.model_copy(update={"language": None}) == preset, code
    assert preset.soft_credit is not None and preset.units == "characters"
    assert (preset.alpha, preset.beta, preset.gamma, preset.delta) == (0.8, 0.2, 0.4, 0.4)
    assert preset.block_names == ("exact", "case", "case-stem", "soft-credit")
    assert preset.block_weights == (1.0, 0.6, 0.5, 0.5)


def test_preset_meteorx_is_the_per_language_default() -> None:
    for code in ("pt", "de", "ko", "ha"):
        assert configure("meteorx", language=code) == configure(None, language=code)
    english = configure("meteorx", language="en")
    assert english.name == "meteorx"
    assert [s.stage_name for s in english.stages] == ["exact", "case", "case-stem"]
    assert configure("meteorx") == english  # English when no language is given
    assert "meteorx" in preset_names()
    assert meteorx_settings(resolve_language("en"))["aligner"] == {"name": "meteor-1.5"}
    assert Scorer("meteorx", language="en").aligner.describe() == "meteor-1.5(beam=40)"


def test_english_is_assumed_without_a_language() -> None:
    cfg = configure(None)
    assert (cfg.name, cfg.language, cfg.normalize.tokenizer) == ("meteor-1.5-en", "en", "meteor")
    assert configure(None, normalize="lower").normalize.tokenizer == "auto"


def test_li_without_a_language_speaks_of_the_python_argument() -> None:
    with pytest.raises(ConfigError) as info:
        meteorx.score("a b", "a b", config="li")
    assert "language=" in str(info.value) and "--lang" not in str(info.value)
    assert meteorx.score("a b", "a b", config="li", language="pt").score == 1.0


@pytest.mark.parametrize("code", sorted(SENTENCES))
def test_identical_scores_one_and_a_paraphrase_less(code: str) -> None:
    ref, hyp = SENTENCES[code]
    scorer = Scorer(language=code)
    assert scorer.segment(ref, ref).score == 1.0
    assert 0.0 < scorer.segment(hyp, ref).score < 1.0


def test_every_entry_point_takes_the_language() -> None:
    ref, hyp = SENTENCES["pt"]
    expected = Scorer(language="pt").segment(hyp, ref).score
    assert meteorx.score(hyp, ref, language="pt").score == expected
    assert meteorx.corpus_score([hyp], [ref], language="pt").score == expected
    out = meteorx.compute(predictions=[hyp], references=[ref], language="pt", signature=True)
    assert out["meteor"] == expected
    assert "|preset:meteorx|lang:pt|" in out["signature"]
    # and a preset with a language still overrides only the language
    assert Scorer("li", language="pt").config.name == "li"


# -- the not-English warning ------------------------------------------------------------


def test_looks_english() -> None:
    english = ["The cat sat on the mat and looked at the dog that was in the garden."]
    assert looks_english(english)
    assert not looks_english([SENTENCES["pt"][0] + " " + SENTENCES["pt"][1] + " E depois?"])
    assert not looks_english([SENTENCES["ko"][0]])
    assert not looks_english([SENTENCES["ru"][0]])
    assert looks_english(["Ok."])  # too little to tell
    assert looks_english([])


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "meteorx", *args], capture_output=True, text=True, cwd=cwd
    )


def test_cli_warns_once_when_assumed_english_is_not(tmp_path: Path) -> None:
    ref, hyp = SENTENCES["pt"]
    (tmp_path / "ref.txt").write_text(f"{ref}\n{ref}\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text(f"{hyp}\n{ref}\n", encoding="utf-8")
    base = ("score", "--hyp", "hyp.txt", "--ref", "ref.txt", "--system-only")
    plain = _cli(*base, cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    warnings = [ln for ln in plain.stderr.splitlines() if "warning" in ln]
    assert len(warnings) == 1 and "--lang" in warnings[0], plain.stderr
    portuguese = _cli(*base, "--lang", "pt", cwd=tmp_path)
    assert portuguese.returncode == 0 and "warning" not in portuguese.stderr
    assert "|preset:meteorx|lang:pt|" in portuguese.stdout
    for code in ("ha", "ko"):
        other = _cli(*base, "--lang", code, cwd=tmp_path)
        assert other.returncode == 0, other.stderr
        assert f"|preset:meteorx|lang:{code}|" in other.stdout


def test_cli_li_without_a_language_speaks_of_lang(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("a b\n", encoding="utf-8")
    run = _cli("score", "--hyp", "t.txt", "--ref", "t.txt", "--preset", "li", cwd=tmp_path)
    assert run.returncode == 2 and "--lang" in run.stderr


# -- the split-punct tokenizer --------------------------------------------------------


def test_split_punct_tokenizer() -> None:
    def tokens(code: str, text: str) -> list[str]:
        return Scorer("meteorx", language=code).normalize_line(text)

    assert tokens("de", "Haus, (Garten) e-mail 3.5 d'Artagnan!") == [
        "Haus", ",", "(", "Garten", ")", "e-mail", "3.5", "d'Artagnan", "!",
    ]  # fmt: skip
    assert tokens("hi", "हिन्दी भाषा, है।") == ["हिन्दी", "भाषा", ",", "है", "।"]  # marks kept
    assert tokens("zh", "我爱你。ok") == ["我", "爱", "你", "。", "ok"]
    assert tokens("bo", "བོད་") == ["བོ", "ད", "་"]  # the vowel sign stays on its letter


# -- Meteor 1.5's presets use its function words ------------------------------------------


def test_jar_named_presets_use_the_jars_function_words() -> None:
    for name in preset_names():
        if name.startswith("meteor-1.5-") and name != "meteor-1.5-other":
            assert load_config(name).function_words == "meteor-1.5", name
    assert load_config("li").function_words == "meteor-1.5"
    assert load_config("pt").function_words == "builtin"  # meteorx's own presets keep theirs


# -- missing resources -----------------------------------------------------------------


def test_every_missing_resource_in_one_error() -> None:
    config = {
        "language": "de",
        "stages": [
            {"matcher": "exact"},
            {"matcher": "paraphrase", "weight": 0.5},
            {"matcher": "synonym-omw", "weight": 0.5, "lang": "por"},
        ],
    }
    with pytest.raises(ResourceError) as info:
        Scorer(config)
    message = str(info.value)
    assert "\n" not in message
    assert "German paraphrase table (stage paraphrase)" in message
    assert "omw-por" in message and "stage synonym-omw" in message
    assert "meteorx resources install paraphrase-de omw-por --from FOLDER" in message
    assert "install set" not in message  # the old garbled wording


def test_paraphrase_table_installs_from_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("METEORX_CACHE_DIR", str(tmp_path / "cache"))  # its own, for once
    with pytest.raises(ResourceError, match="meteorx resources install paraphrase-de"):
        Scorer("meteor-1.5-de")
    folder = tmp_path / "meteor-1.5" / "data"
    folder.mkdir(parents=True)
    with gzip.open(folder / "paraphrase-de.gz", "wt", encoding="utf-8") as handle:
        handle.write("0.5\nkatze\nmieze\n0.5\nmieze\nkatze\n")
    run = _cli("resources", "install", "paraphrase-de", "--from", str(folder), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    scorer = Scorer("meteor-1.5-de")
    assert (
        scorer.segment("die mieze", "die katze").score > scorer.segment("die x", "die katze").score
    )


def test_wordnet_from_the_jar(monkeypatch: pytest.MonkeyPatch) -> None:
    """After pip alone, the synonym stage reads the WordNet 3.0 copy in Meteor 1.5's jar."""
    from meteorx_plugins import wordnet
    from meteorx_plugins.function_words import meteor_jar_path
    from meteorx_plugins.wordnet import locate

    jar = meteor_jar_path()
    if jar is None:
        pytest.skip("the Meteor 1.5 jar (pip install pycocoevalcap) is not installed")
    monkeypatch.delenv(wordnet.WORDNET_ENV, raising=False)
    monkeypatch.setattr(locate, "nltk_data_path", lambda: [])
    found = wordnet.find_wordnet()
    if found.path != jar:  # a system WordNet comes first; check the jar is read anyway
        found = wordnet.find_wordnet(jar)
    wn = wordnet.load_wordnet(found.path)
    assert len(wn) > 140_000
    assert wn.meteor15_base_forms("geese") == ("goose",)
    assert wn.synonym_set("cars") & wn.synonym_set("automobile")


def test_morphy_without_a_full_wordnet_says_the_jar_copy_is_not_enough(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """meteor-2005 and nltk need parts of speech: the message must not send the user to
    pycocoevalcap, which is installed and whose WordNet copy has none."""
    from meteorx_plugins import wordnet
    from meteorx_plugins.wordnet import locate

    monkeypatch.delenv(wordnet.WORDNET_ENV, raising=False)
    monkeypatch.setattr(locate, "search_list", lambda: [])
    with pytest.raises(ResourceError) as caught:
        wordnet.find_wordnet(jar="never")
    message = str(caught.value)
    assert "'morphy' lookup" in message and "nltk.downloader wordnet" in message
    assert "pip install pycocoevalcap" not in message


# -- meteorx languages -------------------------------------------------------------------


def test_languages_command(tmp_path: Path) -> None:
    run = _cli("languages", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = {ln.split()[0]: ln for ln in run.stdout.splitlines()[1:]}
    assert set(rows) == set(ISO_639_1)
    assert "meteor-1.5-en --norm meteor" in rows["en"]
    assert "meteorx" in rows["ha"] and "exact" in rows["ha"]
    assert "omw-por" in rows["pt"] and "not installed" in rows["pt"]
    assert "paraphrase-de" in rows["de"]
    some = _cli("languages", "pt", "ko", cwd=tmp_path)
    assert len(some.stdout.splitlines()) == 3
