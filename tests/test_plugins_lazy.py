"""Plugins loaded when used: meteorx's own plugins are imported only when a name they
declare is asked for, the table declaring those names matches what each registers, and
installed plugins load together on a name meteorx's own do not provide."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from meteorx import registry
from meteorx.builtin_plugins import BUILTINS, declared_owner
from meteorx.plugin_loader import Loader, Store

REPO = Path(__file__).resolve().parents[1]


def test_the_table_declares_what_each_builtin_plugin_registers() -> None:
    """Each built-in module, loaded alone, registers exactly the names the table
    declares for it (so the table cannot drift from the modules)."""
    for builtin in BUILTINS:
        store = Store()
        Loader(store, strict=True).load_builtin(builtin, "test")
        registered: dict[str, set[str]] = {}
        for key, owner in store.owners.items():
            assert owner == builtin.name
            kind, name = key.split(":", 1)
            registered.setdefault(kind, set()).add(name)
        declared = {kind: set(names) for kind, names in builtin.provides().items()}
        assert registered == declared, builtin.name
        assert store.plugins[builtin.name].builtin and not store.failed


def test_every_name_has_one_declared_owner() -> None:
    reg = registry.get_registry()
    reg.load_all()
    for key, owner in reg.owners.items():
        if reg.plugins[owner].builtin:
            found = declared_owner(key)
            assert found is not None and found.name == owner, key
    names = [b.name for b in BUILTINS]
    assert list(reg.plugins)[: len(names)] == names  # listed in the table's order


#: Builds a scorer in a fresh process, then prints the plugins the registry loaded, the
#: plugin packages imported, and the plugins providing what the configuration names.
_PROBE = """
import json, sys
from meteorx.api import build_scorer
from meteorx.registry import get_registry

config, language = json.loads(sys.argv[1])
scorer = build_scorer(config, language=language)
cfg, reg = scorer.config, get_registry()
named = [f"matcher:{s.matcher}" for s in cfg.stages] + [
    f"aligner:{cfg.aligner.name}", f"tokenizer:{cfg.normalize.tokenizer}",
    f"function-words:{cfg.function_words}",
    f"preset:{config}" if config else "language-default:" + (
        language if language in reg.language_defaults else "*"),
]
imported = {m.split(".")[1] for m in sys.modules if m.startswith("meteorx_plugins.")}
print(json.dumps({
    "loaded": sorted(reg._store.plugins),
    "imported": sorted(imported),
    "named": sorted({reg.owners[key] for key in named}),
}))
"""


@pytest.mark.parametrize(
    ("config", "language"),
    [(None, "pt"), (None, "ko"), ("meteor-1.5-en", None), ("li", "en"), ("pt", None)],
)
def test_a_run_imports_only_the_plugins_its_configuration_names(
    config: str | None, language: str | None
) -> None:
    env = {**os.environ, "METEORX_OMW_DIR": str(REPO.parent / "shared" / "data" / "omw")}
    env.pop("METEORX_PLUGINS", None)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps([config, language])],
        capture_output=True, text=True, env=env, cwd=REPO, check=False,
    )  # fmt: skip
    if done.returncode != 0 and "not found" in done.stderr and "install" in done.stderr:
        pytest.skip(f"a resource is missing: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["loaded"] == found["named"] == found["imported"]
    if config is None and language == "pt":
        assert found["loaded"] == ["case", "core", "function_words"]
    if config == "pt":  # the pt preset's tokenizer, lemma and OMW stages
        assert {"portuguese", "lemma", "omw"} <= set(found["loaded"])


def test_importing_the_portuguese_plugin_builds_nothing() -> None:
    """Its tables and tokenizers are built on first use, not at import (or registration)."""
    probe = (
        "import meteorx_plugins.portuguese as pt\n"
        "from meteorx_plugins.portuguese import contractions, spelling, tokenizer\n"
        "pt.meteorx_register_tokenizers(register=lambda name, factory: None)\n"
        "tables = (spelling.spelling_table, contractions.contraction_table,\n"
        "          tokenizer._token_pattern, tokenizer._tokenizer)\n"
        "print([t.cache_info().currsize for t in tables])\n"
        "pt.unify_spelling('acção')\n"
        "print([t.cache_info().currsize for t in tables])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert done.stdout.splitlines() == ["[0, 0, 0, 0]", "[1, 0, 0, 0]"]


@pytest.fixture
def broken_installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An installed plugin that fails to import, in a registry built afresh."""
    (tmp_path / "broken_on_import.py").write_text("raise RuntimeError('half-installed')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    extra = metadata.EntryPoint(
        name="broken_on_import", value="broken_on_import", group=registry.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(registry, "_entry_points", lambda: [extra])
    registry.get_registry.cache_clear()
    yield
    registry.get_registry.cache_clear()


@pytest.mark.usefixtures("broken_installed_plugin")
def test_installed_plugins_load_when_meteorxs_own_do_not_have_the_name() -> None:
    reg = registry.get_registry()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing installed is imported for these
        assert reg.matcher("exact") is reg.matchers["exact"]
        assert "li" in reg.presets and reg.owners["tokenizer:pt"] == "portuguese"
    assert "broken_on_import" not in reg.failed
    with pytest.warns(registry.PluginWarning, match=r"'broken_on_import' .*half-installed"):
        assert "no-such-matcher" not in reg.matchers
    assert "broken_on_import" in reg.failed


def test_a_local_plugin_cannot_take_a_name_of_a_builtin_not_loaded_yet(tmp_path: Path) -> None:
    plugin = tmp_path / "takes_pt.py"
    plugin.write_text(
        textwrap.dedent(
            """
            from meteorx.hookspecs import hookimpl

            @hookimpl
            def meteorx_register_tokenizers(register):
                register("pt-fold", lambda language: str.split)
            """
        )
    )
    registry.get_registry.cache_clear()
    try:
        assert "portuguese" in registry.get_registry()._pending
        with pytest.raises(registry.PluginError, match=r"'pt-fold', which plugin 'portuguese'"):
            registry.register(plugin)
    finally:
        registry.get_registry.cache_clear()


def test_an_installed_plugin_named_like_meteorxs_own_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_wordnet.py").write_text("raise RuntimeError('never imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    clash = metadata.EntryPoint(
        name="wordnet", value="my_wordnet", group=registry.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(registry, "_entry_points", lambda: [clash])
    reg = registry.get_registry.__wrapped__()
    assert reg.owners["matcher:synonym"] == "wordnet"  # meteorx's own, loaded first
    with pytest.warns(registry.PluginWarning, match=r"'wordnet' \(my_wordnet\) has the name of"):
        reg.load_all()
    assert reg.plugins["wordnet"].builtin and reg.owners["resource:wordnet"] == "wordnet"
    assert "my_wordnet" in (reg.failed["wordnet"].error or "")
