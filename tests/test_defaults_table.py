"""Languages' default configurations: a table the plugins fill
(``meteorx_register_language_defaults``), and a plugin's matcher made one language's
default through it, from the command line and from Python."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import meteorx
from meteorx import engine, registry
from meteorx.cli.main import main
from meteorx.config import load_config
from meteorx.defaults import configure, language_report
from meteorx.errors import PluginError
from meteorx.hookspecs import LanguageDefault, hookimpl
from meteorx.languages import LANGUAGES, resolve_language

KO_PLUGIN = Path(__file__).resolve().parent / "ko_particles.py"
#: Different particles on the same stems (friend, school): only the ko-particles stage
#: links the first two words, exact the third.
HYP = "친구가 학교에 갔다"
REF = "친구는 학교로 갔다"


@pytest.fixture(autouse=True)
def forget_local_plugins() -> Iterator[None]:
    """Each test starts and ends with no plugin given in the process."""
    before = set(registry._LOCAL)
    yield
    for name in set(registry._LOCAL) - before:
        registry.unregister(name)


def test_every_language_resolves_as_the_documented_rules_say() -> None:
    """meteorx's table (plugin core): English is meteor-1.5-en with the jar's -norm,
    every other language the meteorx preset resolved for it; no language at all is
    English. Computed from those rules for each of the 184 languages."""
    english = load_config("meteor-1.5-en").with_overrides(normalize="meteor")
    assert configure(None) == english == configure(None, language="en")
    assert language_report(resolve_language("en"))["default"] == "meteor-1.5-en --norm meteor"
    for code in LANGUAGES:
        if code == "en":
            continue
        assert configure(None, language=code) == configure("meteorx", language=code), code
    assert language_report(resolve_language("ko"))["default"] == "meteorx"
    # --norm still wins over the default's normalisation
    assert configure(None, language="en", normalize="lower").normalize.shorthand == "lower"


def test_the_table_is_core_s_and_its_entries_are_taken() -> None:
    reg = registry.get_registry()
    for key in ("en", "*"):
        assert reg.owners[f"language-default:{key}"] == "core"
    default, plugin = reg.language_default(resolve_language("ko"))
    assert (default, plugin) == (reg.language_defaults["*"], "core")

    class TakesEnglish:
        @hookimpl
        def meteorx_register_language_defaults(self, register):  # type: ignore[no-untyped-def]
            register("en", LanguageDefault("li"))

    with pytest.raises(PluginError, match=r"language-default 'en', which plugin 'core' already"):
        meteorx.register(TakesEnglish())

    class Misspelled:
        @hookimpl
        def meteorx_register_language_defaults(self, register):  # type: ignore[no-untyped-def]
            register("Korean", LanguageDefault("li"))

    with pytest.raises(PluginError, match=r"default for 'Korean', .* \(write 'ko'\)"):
        meteorx.register(Misspelled())

    class NotADefault:
        @hookimpl
        def meteorx_register_language_defaults(self, register):  # type: ignore[no-untyped-def]
            register("ko", "li")

    with pytest.raises(PluginError, match=r"not a meteorx.hookspecs.LanguageDefault"):
        meteorx.register(NotADefault())


def test_a_broken_default_names_its_plugin() -> None:
    class Broken:
        @hookimpl
        def meteorx_register_language_defaults(self, register):  # type: ignore[no-untyped-def]
            register("ko", LanguageDefault({"extends": "meteorx", "alpha": 2}))

    meteorx.register(Broken())
    with pytest.raises(meteorx.errors.ConfigError, match=r"default .* Korean .* plugin 'Broken'"):
        configure(None, language="ko")


def _require(which: str) -> None:
    missing = [name for name, _, state in engine.report() if state != "in use"]
    if which == "c" and missing:
        pytest.skip(f"compiled modules not built: {', '.join(missing)}")


def _particle_links(result: Any) -> set[tuple[int, int]]:
    stage = [s.matcher for s in configure(None, language="ko").stages].index("ko-particles")
    return {(m.hyp_start, m.ref_start) for m in result.alignment.matches if m.stage == stage}


@pytest.mark.parametrize("which", ["c", "python"])
def test_plugin_matcher_becomes_koreans_default_in_python(which: str) -> None:
    """Registered in-process, the plugin's matcher scores through the API, and --lang ko
    alone uses it; forgotten, Korean's default is the meteorx preset again."""
    _require(which)
    with engine.use(which):
        without = meteorx.score(HYP, REF, language="ko")
    assert configure(None, language="ko") == configure("meteorx", language="ko")
    assert meteorx.register(KO_PLUGIN) == "ko_particles"
    config = configure(None, language="ko")
    assert config.name == "meteorx-ko" and config.language == "ko"
    assert [s.matcher for s in config.stages] == ["exact", "case", "ko-particles"]
    with engine.use(which):
        result = meteorx.score(HYP, REF, language="ko")
        explicit = meteorx.Scorer(config).segment(HYP, REF)
        signature = meteorx.compute(predictions=[HYP], references=[REF], language="ko",
                                    signature=True)["signature"]  # fmt: skip
    assert _particle_links(result) == {(0, 0), (1, 1)}  # 친구가~친구는, 학교에~학교로
    assert result.score == explicit.score
    assert result.score > without.score  # two more words matched, in one chunk
    assert "ko-particles=ko-particles.v1:0.6" in signature and "|plugins:ko_particles@" in signature
    assert language_report(resolve_language("ko"))["default"] == "meteorx-ko"
    registry.unregister("ko_particles")
    assert configure(None, language="ko") == configure("meteorx", language="ko")


@pytest.mark.parametrize("which", ["c", "python"])
def test_plugin_file_scores_koreans_default_through_the_cli(
    which: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _require(which)
    monkeypatch.setenv("METEORX_ENGINE", which)
    (tmp_path / "hyp.txt").write_text(HYP + "\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text(REF + "\n", encoding="utf-8")
    texts = ["--hyp", str(tmp_path / "hyp.txt"), "--ref", str(tmp_path / "ref.txt")]
    assert main(["score", *texts, "--lang", "ko", "--format", "json"]) == 0
    without = json.loads(capsys.readouterr().out)
    assert "ko-particles" not in without["signature"]
    args = ["score", "--plugin", str(KO_PLUGIN), *texts, "--lang", "ko", "--format", "json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert "ko-particles=ko-particles.v1:0.6" in data["signature"]
    assert data["signature"].startswith("meteorx|preset:meteorx-ko|lang:ko|")
    with engine.use(which):
        expected = meteorx.Scorer(configure(None, language="ko")).segment(HYP, REF).score
    assert data["segments"][0]["score"] == expected > without["segments"][0]["score"]
    assert main(["languages", "ko", "--plugin", str(KO_PLUGIN)]) == 0
    assert "meteorx-ko" in capsys.readouterr().out
