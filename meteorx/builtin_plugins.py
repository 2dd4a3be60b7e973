"""meteorx's own plugins, and what each one provides, by name.

The plugins that ship with meteorx (``plugins/`` in the source tree, installed as the
``meteorx_plugins`` package) are registered in-process from this table, not through
entry points, and lazily: the registry imports one of them only when a name it
provides is asked for (a stage's matcher, an aligner, a tokenizer, a function-word
source, a resource kind, a preset, a language's default), or when a listing (``meteorx
plugins``, ``meteorx presets``...) needs them all. A run imports the plugins its
configuration names, and no other.

The table declares those names, so the registry knows which module to import without
importing any. ``tests/test_plugins_lazy.py`` loads every module and checks that it
registers exactly what is declared here. Once imported, a built-in plugin goes through
the checks every plugin gets (:class:`meteorx.plugin_loader.Loader`): hooks
validated, names claimed, owners recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["BUILTINS", "Builtin", "declared_owner"]


@dataclass(frozen=True)
class Builtin:
    """One plugin shipped with meteorx: its name, its module, and what it registers."""

    name: str
    module: str
    matcher: tuple[str, ...] = ()
    aligner: tuple[str, ...] = ()
    tokenizer: tuple[str, ...] = ()
    function_words: tuple[str, ...] = ()
    resource: tuple[str, ...] = ()
    language_default: tuple[str, ...] = ()
    #: the package whose ``NAME.yaml`` files (and ``SUB/NAME.yaml`` one level down) it
    #: registers as presets: their names are read from the folder, not imported
    presets_from: str | None = None

    def provides(self) -> dict[str, tuple[str, ...]]:
        """The names it registers, by kind (as ``Registry.owners`` writes the kinds)."""
        return dict(_provided(self))


@cache
def _provided(builtin: Builtin) -> dict[str, tuple[str, ...]]:
    from meteorx.plugin_loader import preset_files

    presets: tuple[str, ...] = ()
    if builtin.presets_from is not None:
        folder = resources.files(builtin.presets_from)
        presets = tuple(name for name, _ in preset_files(folder))
    found = {
        "matcher": builtin.matcher,
        "aligner": builtin.aligner,
        "tokenizer": builtin.tokenizer,
        "function-words": builtin.function_words,
        "resource": builtin.resource,
        "preset": presets,
        "language-default": builtin.language_default,
    }
    return {kind: names for kind, names in found.items() if names}


#: meteorx's own plugins, in the order listings show them.
BUILTINS: tuple[Builtin, ...] = (
    Builtin(
        "core",
        "meteorx_plugins.core",
        matcher=("exact", "stem"),
        aligner=("optimal", "meteor-1.5"),
        tokenizer=("auto", "whitespace", "characters", "split-punct", "jieba"),
        language_default=("en", "*"),
        presets_from="meteorx.configs",
    ),
    Builtin(
        "function_words",
        "meteorx_plugins.function_words",
        function_words=("none", "builtin", "stop-words", "stopwords-iso", "meteor-1.5"),
    ),
    Builtin("case", "meteorx_plugins.case", matcher=("case",)),
    Builtin("lemma", "meteorx_plugins.lemma", matcher=("lemma",)),
    Builtin("meteor_norm", "meteorx_plugins.meteor_norm", tokenizer=("meteor", "meteor-nopunct")),
    Builtin(
        "nltk_compat",
        "meteorx_plugins.nltk_compat",
        matcher=("porter-nltk", "wordnet-nltk"),
        aligner=("nltk",),
    ),
    Builtin("omw", "meteorx_plugins.omw", matcher=("synonym-omw",), resource=("omw",)),
    Builtin(
        "paraphrase",
        "meteorx_plugins.paraphrase",
        matcher=("paraphrase",),
        resource=("paraphrase",),
    ),
    Builtin(
        "portuguese",
        "meteorx_plugins.portuguese",
        tokenizer=tuple(
            "pt" + expand + fold + spell
            for expand in ("", "-expand")
            for fold in ("", "-fold")
            for spell in ("", "-nospell")
        ),
    ),
    Builtin("wordnet", "meteorx_plugins.wordnet", matcher=("synonym",), resource=("wordnet",)),
)


@cache
def _index(table: tuple[Builtin, ...]) -> dict[str, Builtin]:
    """``"kind:name"`` -> the built-in plugin declaring it; ``"plugin:NAME"`` -> itself."""
    index = {f"plugin:{builtin.name}": builtin for builtin in table}
    for builtin in table:
        for kind, names in _provided(builtin).items():
            index.update((f"{kind}:{name}", builtin) for name in names)
    return index


def declared_owner(key: str, table: tuple[Builtin, ...] = BUILTINS) -> Builtin | None:
    """The built-in plugin that registers ``key`` (``"matcher:exact"``; ``"plugin:core"``
    is the plugin itself), if one does."""
    return _index(table).get(key)
