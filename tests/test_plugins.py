"""The plugin system: a real third-party install, and broken plugins named in errors."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from meteorx import registry
from meteorx.cli.main import main
from meteorx.errors import PluginError
from meteorx.metric import Scorer

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "tests" / "plugin_example"


def _run(*args: str | Path, env: dict[str, str] | None = None) -> str:
    """Run a command in the checkout; on failure, fail the test showing its output and
    error stream."""
    done = subprocess.run(
        [str(a) for a in args], cwd=REPO, capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        pytest.fail(
            f"command failed with exit code {done.returncode}: {' '.join(map(str, args))}\n"
            f"--- stdout ---\n{done.stdout}\n--- stderr ---\n{done.stderr}",
            pytrace=False,
        )
    return done.stdout


@pytest.mark.slow
def test_third_party_plugin_installs_and_scores(tmp_path: Path) -> None:
    """pip-install the example plugin (built from its pyproject.toml) into a folder of its
    own and use it from YAML in a process that has that folder on its path.

    The same interpreter runs the command, so it sees meteorx and its dependencies where
    they are installed (a virtualenv or the base interpreter); the plugin is visible
    only to processes given its folder. The build uses the installed setuptools and
    wheel (the ``test`` extra) instead of downloading them, so it works offline.
    """
    for module in ("setuptools", "wheel"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"building the example plugin offline needs {module}: pip install {module}")
    source = tmp_path / "plugin_src"
    shutil.copytree(EXAMPLE, source)  # pip builds in the source folder: keep the repo clean
    site = tmp_path / "site"
    _run(
        sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
        "--no-build-isolation", "--disable-pip-version-check", "--target", site, source,
    )  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("METEORX_PLUGINS", None)
    (tmp_path / "h.txt").write_text("the organisation grew quickly\n")
    (tmp_path / "r.txt").write_text("the organization grows quick\n")
    (tmp_path / "c.yaml").write_text(
        "extends: meteor-1.5-other\n"
        "stages:\n- matcher: exact\n- matcher: prefix\n  weight: 0.5\n  length: 4\n"
    )
    out = _run(
        sys.executable, "-m", "meteorx", "score", "--hyp", tmp_path / "h.txt",
        "--ref", tmp_path / "r.txt", "--config", tmp_path / "c.yaml", "--format", "json",
        env=env,
    )  # fmt: skip
    data = json.loads(out)
    assert "prefix=prefix.v2(len=4):0.5" in data["signature"]
    # "the" exact; organisation/organization and quickly/quick by prefix (grew/grows not).
    stats = data["segments"][0]["stats"]
    assert stats[4:8] == [1.0, 1.0, 0.0, 0.0]  # exact stage: hyp/ref content, function
    assert stats[8:12] == [2.0, 2.0, 0.0, 0.0]  # prefix stage
    listing = _run(sys.executable, "-m", "meteorx", "plugins", env=env)
    assert "prefix (meteorx-prefix-plugin 0.3.1)" in listing
    # Not visible outside that folder.
    assert "prefix" not in registry.get_registry().matchers
    assert "prefix (" not in _run(sys.executable, "-m", "meteorx", "plugins")


@pytest.fixture
def fake_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Install a one-module plugin from source text as an extra entry point."""

    def install(name: str, source: str) -> None:
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        monkeypatch.syspath_prepend(str(tmp_path))
        real = registry._entry_points
        extra = metadata.EntryPoint(name=name, value=name, group=registry.ENTRY_POINT_GROUP)
        monkeypatch.setattr(registry, "_entry_points", lambda: [*real(), extra])
        registry.get_registry.cache_clear()

    yield install
    registry.get_registry.cache_clear()


def _left_out(name: str, reason: str) -> registry.Registry:
    """Load every plugin, expecting plugin ``name`` to be left out with a warning."""
    with pytest.warns(registry.PluginWarning, match=f"plugin '{name}' {reason}"):
        reg = registry.get_registry()
        reg.load_all()
    assert name in reg.failed and name not in reg.plugins
    assert not any(owner == name for owner in reg.owners.values())
    # The other plugins still work.
    assert Scorer("li", language="en", registry=reg).segment("a cat", "a cat").score > 0.9
    return reg


def test_plugin_import_error_leaves_it_out(fake_plugin, capsys) -> None:  # type: ignore[no-untyped-def]
    fake_plugin("broken_import", "import does_not_exist_anywhere\n")
    reg = _left_out("broken_import", r"\(broken_import\) failed to import: ModuleNotFoundError")
    assert "does_not_exist_anywhere" in (reg.failed["broken_import"].error or "")
    # Every command keeps working, and 'meteorx plugins' lists the failure.
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "core (" in out and "matcher:exact" in out
    assert re.search(r"broken_import .*\n    FAILED, left out: .*ModuleNotFoundError", out)
    # Asking for something only a broken plugin could provide names the failure.
    with pytest.raises(PluginError, match=r"no matcher named 'nope'.*'broken_import'"):
        reg.matcher("nope")


def test_cli_prints_plugin_warning_on_one_line(fake_plugin, capsys) -> None:  # type: ignore[no-untyped-def]
    fake_plugin("broken_import", "raise RuntimeError('half-installed')\n")
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        assert main(["presets"]) == 0
        assert main(["plugins"]) == 0
    err = capsys.readouterr().err
    assert err.count("meteorx: warning: plugin 'broken_import'") == 1, err
    assert "RuntimeError: half-installed" in err and "Traceback" not in err


def test_hook_raising_leaves_the_plugin_out(fake_plugin) -> None:  # type: ignore[no-untyped-def]
    fake_plugin(
        "raising_hook",
        """
        from meteorx.hookspecs import hookimpl
        from meteorx.matchers import Matcher

        class Fine(Matcher):
            name = "fine"
            def candidates(self, hyp, ref):
                return []

        @hookimpl
        def meteorx_register_matchers(register):
            register(Fine)

        @hookimpl
        def meteorx_register_aligners(register):
            raise RuntimeError("boom")
        """,
    )
    reg = _left_out("raising_hook", "failed in meteorx_register_aligners: RuntimeError: boom")
    assert "fine" not in reg.matchers  # what it registered before failing is dropped too


def test_duplicate_matcher_name_leaves_the_second_out(fake_plugin) -> None:  # type: ignore[no-untyped-def]
    fake_plugin(
        "duplicate",
        """
        from meteorx.hookspecs import hookimpl
        from meteorx.matchers import Matcher

        class Exact(Matcher):
            name = "exact"
            def candidates(self, hyp, ref):
                return []

        @hookimpl
        def meteorx_register_matchers(register):
            register(Exact)
        """,
    )
    reg = _left_out("duplicate", "registers matcher 'exact', which plugin 'core' already")
    assert reg.owners["matcher:exact"] == "core"


def test_taking_a_function_word_source_name_leaves_the_taker_out(fake_plugin) -> None:  # type: ignore[no-untyped-def]
    """meteorx's own plugins register first, whatever the third-party plugin is called."""
    fake_plugin(
        "aaa_first_by_name",
        """
        from meteorx.hookspecs import hookimpl

        @hookimpl
        def meteorx_register_function_words(register):
            register("builtin", lambda language: (frozenset(), "mine"))
        """,
    )
    reg = _left_out("aaa_first_by_name", "registers function-words 'builtin', which plugin")
    assert reg.owners["function-words:builtin"] == "function_words"


def test_misspelled_hook_leaves_the_plugin_out(fake_plugin) -> None:  # type: ignore[no-untyped-def]
    fake_plugin(
        "typo",
        """
        from meteorx.hookspecs import hookimpl

        @hookimpl
        def meteorx_register_matcher(register):
            pass
        """,
    )
    _left_out("typo", "implements an unknown hook")


def _with_core_module(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    """meteorx's own table, with the core plugin's module replaced by ``module``."""
    table = tuple(
        dataclasses.replace(b, module=module) if b.name == "core" else b for b in registry.BUILTINS
    )
    monkeypatch.setattr(registry, "BUILTINS", table)


def test_broken_core_plugin_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """One of meteorx's own plugins that a configuration needs failing is an error, not
    a warning; the registry does not try it again, and lists it as failed."""
    _with_core_module(monkeypatch, "does_not_exist_anywhere")
    reg = registry.get_registry.__wrapped__()
    with pytest.raises(PluginError, match=r"meteorx's own plugin 'core' .* reinstall meteorx"):
        reg.matcher("exact")
    assert "core" in reg.failed and "does_not_exist_anywhere" in (reg.failed["core"].error or "")
    with pytest.raises(PluginError, match=r"no matcher named 'exact'.*'core' .*failed to import"):
        reg.matcher("exact")
    # Not needed by a configuration that does not use it: the others work.
    assert "wordnet" in reg.plugins and reg.owners["resource:wordnet"] == "wordnet"


def test_builtin_plugins_get_the_checks_every_plugin_gets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A built-in plugin's hooks are validated and its names claimed like any other's:
    here core's module is one registering a name the function_words plugin declares."""
    (tmp_path / "fake_core.py").write_text(
        textwrap.dedent(
            """
            from meteorx.hookspecs import hookimpl

            @hookimpl
            def meteorx_register_function_words(register):
                register("builtin", lambda language: (frozenset(), "mine"))
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    _with_core_module(monkeypatch, "fake_core")
    reg = registry.get_registry.__wrapped__()
    with pytest.raises(PluginError, match=r"'core' registers function-words 'builtin', which "):
        reg.matcher("exact")
    (tmp_path / "typo_core.py").write_text(
        "from meteorx.hookspecs import hookimpl\n\n"
        "@hookimpl\ndef meteorx_register_matcher(register):\n    pass\n"
    )
    _with_core_module(monkeypatch, "typo_core")
    with pytest.raises(PluginError, match=r"'core' implements an unknown hook"):
        registry.get_registry.__wrapped__().matcher("exact")


def test_unknown_plugin_in_meteorx_plugins_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METEORX_PLUGINS", "wordnet,wordnte")
    with pytest.raises(PluginError, match=r"METEORX_PLUGINS names 'wordnte', which is not .*core"):
        registry.get_registry.__wrapped__()


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    """The process's registry is built afresh in the test (with its environment), and
    again after it."""
    registry.get_registry.cache_clear()
    yield
    registry.get_registry.cache_clear()


@pytest.mark.usefixtures("fresh_registry")
def test_meteorx_plugins_can_leave_out_any_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """meteorx's own plugins included: what is left out is named where it is missed."""
    monkeypatch.setenv("METEORX_PLUGINS", "core,wordnet")
    reg = registry.get_registry()
    assert set(reg.plugins) == {"core", "wordnet"}
    assert "function_words" not in reg.plugins and "builtin" not in reg.function_words
    with pytest.raises(PluginError, match=r"no tokenizer named 'meteor'.*leaves out .*meteor_norm"):
        reg.tokenizer("meteor")
    match = r"no function-word source named .*'function_words' provides it.* leaves out"
    with pytest.raises(PluginError, match=match):
        Scorer("li", language="en", registry=reg)


def test_trace_hooks_prints_loads_calls_and_registrations(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("METEORX_TRACE_HOOKS", "1")
    registry.get_registry.__wrapped__().matcher("exact")
    err = capsys.readouterr().err
    assert "meteorx: trace: loading plugin 'core' (meteorx_plugins.core)" in err
    assert "meteorx: trace: meteorx_register_matchers() of plugin 'core'" in err
    assert "meteorx: trace:   plugin 'core' registers matcher 'exact'" in err
    monkeypatch.delenv("METEORX_TRACE_HOOKS")
    registry.get_registry.__wrapped__()
    assert capsys.readouterr().err == ""


def test_first_party_plugins_are_registered_from_meteorxs_table() -> None:
    """Not through entry points (an older install's metadata naming them is ignored)."""
    assert not {ep.name for ep in registry._entry_points()} & {b.name for b in registry.BUILTINS}
    reg = registry.get_registry()
    assert reg.owners["matcher:exact"] == "core"
    assert reg.owners["matcher:synonym"] == "wordnet"
    assert reg.plugins["wordnet"].distribution == "meteorx" and reg.plugins["wordnet"].builtin
    assert Scorer("li", language="en").registry is reg


def test_tokenizer_declaring_lowercased_output_is_not_lowercased_again() -> None:
    """A tokenizer that says its tokens are lower-case already (Meteor's -norm) is used
    as it is; any other is lowercased afterwards when the config asks for it."""
    from meteorx.config_models import NormalizeConfig
    from meteorx.languages import resolve_language
    from meteorx.normalize import build_normalizer

    reg = registry.Registry()

    def shouting(language: object) -> object:
        def tokenize(line: str) -> list[str]:
            return line.upper().split()

        return tokenize

    def declared(language: object) -> object:
        tokenize = shouting(language)
        tokenize.lowercased = True  # type: ignore[attr-defined]
        return tokenize

    reg.tokenizers["shouting"] = shouting  # type: ignore[assignment]
    reg.tokenizers["declared"] = declared  # type: ignore[assignment]
    english = resolve_language("en")
    plain = build_normalizer(NormalizeConfig(tokenizer="shouting", lowercase=True), english, reg)
    trusted = build_normalizer(NormalizeConfig(tokenizer="declared", lowercase=True), english, reg)
    assert plain("a b") == ["a", "b"]
    assert trusted("a b") == ["A", "B"]
    meteor = Scorer("li", language="en", normalize="meteor")
    assert meteor.normalize_line("Hello, World!") == ["hello", ",", "world", "!"]


def _docs_aligner_example() -> str:
    """The aligner example of docs/plugins.md (run below, so the page stays true)."""
    text = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    section = text.split("### meteorx_register_aligners(register)")[1].split("\n### ")[0]
    block = re.search(r"```python\n(.*?)```", section, flags=re.S)
    assert block is not None
    return block.group(1)


_PLUGIN_HOOKS = """
from importlib import resources
from pathlib import Path

from meteorx.errors import ResourceError
from meteorx.registry import LanguageResource, ResourceKind


class Demo:
    name = "demo-en"
    filename = "demo.txt"
    url = ""
    sha256 = None
    description = "a demonstration resource"

    def check(self, path):
        return None


def _locate():
    raise ResourceError("not here")


KIND = ResourceKind(
    names="demo-<code> for demonstrations",
    spec=lambda name: Demo() if name == "demo-en" else None,
    listed=lambda: [Demo()],
    needed=lambda language: [LanguageResource("first-stage", _locate, "demo-en")],
)


@hookimpl
def meteorx_register_resources(register):
    register("demo", KIND)


@hookimpl
def meteorx_register_presets(register):
    register(Path(__file__).parent / "demo_presets")
"""


def test_plugin_aligner_presets_and_resources(fake_plugin, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A plugin's aligner (the docs' example), presets and resources reach the config
    loader, the scorer, the signature and the listings through the registry."""
    from meteorx.cli.resources_cmd import resource_spec
    from meteorx.config import load_config
    from meteorx.defaults import language_report
    from meteorx.errors import ConfigError
    from meteorx.languages import resolve_language

    presets = tmp_path / "demo_presets"
    (presets / "more").mkdir(parents=True)
    (presets / "first.yaml").write_text(
        "# Exact and stem, aligned first come first served.\n"
        "extends: li\nlanguage: en\naligner: {name: first-come, limit: 2}\n"
    )
    (presets / "more" / "other.yaml").write_text("# Another one.\nextends: first\n")
    fake_plugin(
        "demo_plugin",
        "from meteorx.hookspecs import hookimpl\n" + _docs_aligner_example() + _PLUGIN_HOOKS,
    )

    config = load_config("first")
    assert config.aligner.name == "first-come" and config.aligner.options == {"limit": 2}
    assert load_config("more/other").aligner.options == {"limit": 2}
    with pytest.raises(ConfigError, match=r"aligner\.limit: .*\(allowed: limit >= 1; got 0\)"):
        load_config({"extends": "first", "aligner": {"limit": 0}})
    with pytest.raises(ConfigError, match=r"aligner\.beam_size: unknown key"):
        load_config({"extends": "first", "aligner": {"beam_size": 40}})
    # Naming another aligner drops the options of the one extended.
    assert load_config({"extends": "first", "aligner": {"name": "optimal"}}).aligner.options == {}

    scorer = Scorer("first")
    assert not type(scorer.aligner).uses_weights
    result = scorer.corpus(["a b c d"], [["a b c d"]])
    assert len(result.segments[0].alignment.matches) == 2  # limit: 2
    assert "|align:first-come(limit=2)|" in result.signature

    assert main(["presets"]) == 0
    listing = capsys.readouterr().out
    assert re.search(r"^first +Exact and stem", listing, flags=re.M)
    assert re.search(r"^more/other +Another one\.", listing, flags=re.M)
    assert resource_spec("demo-en").description == "a demonstration resource"
    assert main(["resources", "list"]) == 0
    listing = capsys.readouterr().out
    assert "demo-en" in listing and "demo-<code> for demonstrations" in listing
    report = language_report(resolve_language("de"))
    assert report["resources"]["first-stage"] == (  # not a stage of de's default
        "optional, not installed (meteorx resources install demo-en)"
    )


def test_taking_a_preset_name_leaves_the_taker_out(fake_plugin, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "li.yaml").write_text("extends: meteor-2005\n")
    fake_plugin(
        "preset_taker",
        f"""
        from pathlib import Path
        from meteorx.hookspecs import hookimpl

        @hookimpl
        def meteorx_register_presets(register):
            register(Path({str(tmp_path / "li.yaml")!r}))
        """,
    )
    reg = _left_out("preset_taker", "registers preset 'li', which plugin 'core' already registered")
    assert "li" in reg.presets and reg.owners["preset:li"] == "core"
