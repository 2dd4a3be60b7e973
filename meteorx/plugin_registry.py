"""The :class:`Registry`: what the plugins provide, by name, each plugin loaded the first
time a name it declares is asked for (see :mod:`meteorx.registry`, which builds the
registry of the process).

Its dictionaries (``matchers``, ``presets``, ``owners``...) are views: looking a name up
imports the one of meteorx's own plugins that declares it
(:mod:`meteorx.builtin_plugins`), or else the installed plugins; going through one of
them (a listing) loads every plugin that may hold some.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

from meteorx import __version__
from meteorx.builtin_plugins import BUILTINS, Builtin, declared_owner
from meteorx.errors import PluginError
from meteorx.hookspecs import (
    AlignerFactory,
    FunctionWordSource,
    Installable,
    LanguageDefault,
    ResourceKind,
    TokenizerFactory,
)
from meteorx.plugin_loader import Loader, PluginInfo, Store

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint
    from importlib.resources.abc import Traversable

    from meteorx.config_models import MeteorConfig
    from meteorx.languages import Language
    from meteorx.matchers import Matcher

__all__ = ["Registry"]


class _View(MutableMapping[str, Any]):
    """One kind of thing the plugins register, by name (or the owners, or the plugins):
    a name not loaded yet loads the plugin that declares it; going through them all
    (a listing) loads every plugin that may hold some, shown in the plugins' order."""

    def __init__(self, registry: Registry, prefix: str, data: dict[str, Any]) -> None:
        self._registry = registry
        self._prefix = prefix  # "matcher:", ..., "" for owners, "plugin:" for plugins
        self._data = data

    def __getitem__(self, name: str) -> Any:
        try:
            return self._data[name]
        except KeyError:
            if not isinstance(name, str):
                raise
            # Whether or not this thread loads it: another thread may have been loading
            # the plugin that registers it while this one waited for the lock.
            self._registry._provide(self._prefix + name)
        return self._data[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self._data[name] = value

    def __delitem__(self, name: str) -> None:
        del self._data[name]

    def __iter__(self) -> Iterator[str]:
        self._registry._provide_all(self._prefix[:-1])
        rank = self._registry._rank
        if self._prefix == "plugin:":
            return iter(sorted(self._data, key=rank))
        if not self._prefix:
            return iter(sorted(self._data, key=lambda key: rank(self._data[key])))
        owners = self._registry._store.owners
        return iter(sorted(self._data, key=lambda name: rank(owners.get(self._prefix + name))))

    def __len__(self) -> int:
        self._registry._provide_all(self._prefix[:-1])
        return len(self._data)

    def __repr__(self) -> str:
        return f"<{self._prefix or 'owners:'} {sorted(self._data)} loaded>"


class Registry:
    """Everything the plugins provide, by name; a plugin is loaded when first needed.

    ``Registry()`` is empty; :func:`get_registry` returns the one holding every plugin.
    """

    def __init__(
        self,
        *,
        builtins: Iterable[Builtin] = (),
        installed: Callable[[], list[EntryPoint]] | None = None,
        left_out: Iterable[str] = (),
        table: tuple[Builtin, ...] = BUILTINS,
        store: Store | None = None,
    ) -> None:
        self._store = store = Store() if store is None else store
        #: meteorx's own plugins not loaded yet
        self._pending = {builtin.name: builtin for builtin in builtins}
        #: the installed plugins, until they are loaded
        self._installed = installed
        self._left_out = tuple(left_out)  # by METEORX_PLUGINS, for error messages
        self._table = table
        self._lock = threading.RLock()
        entries = store.entries
        self.matchers: MutableMapping[str, type[Matcher]] = _View(
            self, "matcher:", entries["matcher"]
        )
        self.aligners: MutableMapping[str, AlignerFactory] = _View(
            self, "aligner:", entries["aligner"]
        )
        self.tokenizers: MutableMapping[str, TokenizerFactory] = _View(
            self, "tokenizer:", entries["tokenizer"]
        )
        self.function_words: MutableMapping[str, FunctionWordSource] = _View(
            self, "function-words:", entries["function-words"]
        )
        self.resources: MutableMapping[str, ResourceKind] = _View(
            self, "resource:", entries["resource"]
        )
        #: preset name -> its YAML file
        self.presets: MutableMapping[str, Traversable] = _View(self, "preset:", entries["preset"])
        #: ISO code (or ``*``) -> the language's recommended configuration
        self.language_defaults: MutableMapping[str, LanguageDefault] = _View(
            self, "language-default:", entries["language-default"]
        )
        #: "kind:name" -> the plugin that registered it
        self.owners: MutableMapping[str, str] = _View(self, "", store.owners)
        self.plugins: MutableMapping[str, PluginInfo] = _View(self, "plugin:", store.plugins)

    @property
    def failed(self) -> dict[str, PluginInfo]:
        """The plugins left out (of those loaded so far), with the reason."""
        return self._store.failed

    def copy(self) -> Registry:
        """A copy that may gain or lose plugins while this one, and the scorers built on
        it, stay as they were."""
        with self._lock:
            return Registry(
                builtins=self._pending.values(),
                installed=self._installed,
                left_out=self._left_out,
                table=self._table,
                store=self._store.copy(),
            )

    # -- loading ---------------------------------------------------------------------

    def _reserved(self, key: str) -> str | None:
        """The one of meteorx's own plugins, not loaded yet, that registers ``key``."""
        builtin = declared_owner(key, self._table)
        return builtin.name if builtin is not None and builtin.name in self._pending else None

    def _provide(self, key: str) -> bool:
        """Load what may register ``key`` (``matcher:exact``, ``plugin:core``): the one of
        meteorx's own plugins that declares it, else the installed plugins. Whether
        anything was loaded."""
        with self._lock:
            name = self._reserved(key)
            if name is not None:
                self._load_builtin(self._pending[name], strict=True)
                return True
            return self._load_installed()

    def _provide_all(self, kind: str) -> None:
        """Load every plugin that may register a ``kind`` (every plugin: ``""``, ``plugin``)."""
        with self._lock:
            for builtin in list(self._pending.values()):
                if kind in ("", "plugin") or kind in builtin.provides():
                    self._load_builtin(builtin, strict=False)
            self._load_installed()

    def load_all(self) -> None:
        """Load every plugin (for listings, and ``meteorx info``'s compiled modules)."""
        self._provide_all("")

    def _load_builtin(self, builtin: Builtin, strict: bool) -> None:
        del self._pending[builtin.name]
        Loader(self._store, strict=strict, reserved=self._reserved).load_builtin(
            builtin, __version__
        )

    def _load_installed(self) -> bool:
        if self._installed is None:
            return False
        found, self._installed = self._installed, None
        clashes = {builtin.name for builtin in self._table}
        loader = Loader(self._store, reserved=self._reserved)
        entry_points = []
        for ep in found():
            if ep.name in clashes:  # (not registered: that name is meteorx's plugin's)
                reason = f"({ep.value}) has the name of one of meteorx's own plugins"
                loader.refuse(PluginInfo(ep.name, ep.value, "?", "?"), reason)
            else:
                entry_points.append(ep)
        loader.load_entry_points(entry_points)
        return True

    def _rank(self, plugin: str | None) -> tuple[int, int]:
        """Where ``plugin`` comes in listings: meteorx's own in the table's order, then
        the others in the order they were loaded."""
        for i, builtin in enumerate(self._table):
            if builtin.name == plugin:
                return (0, i)
        loaded = list(self._store.plugins)
        return (1, loaded.index(plugin)) if plugin in loaded else (2, 0)

    # -- lookups ---------------------------------------------------------------------

    def _failures(self) -> str:
        """What a failed lookup adds: the plugins that were left out, and why."""
        text = ""
        if self._store.failed:
            text += "; plugins that failed to load: " + "; ".join(
                f"{name!r} {info.error}" for name, info in self._store.failed.items()
            )
        if self._left_out:
            text += f"; METEORX_PLUGINS leaves out meteorx's {', '.join(self._left_out)}"
        return text

    def _missing(self, kind: str, name: str, view: MutableMapping[str, Any]) -> PluginError:
        known = ", ".join(sorted(view))
        return PluginError(
            f"no {kind} named {name!r}; installed {kind}s: {known}" + self._failures()
        )

    def matcher(self, name: str) -> type[Matcher]:
        try:
            return self.matchers[name]
        except KeyError:
            raise self._missing("matcher", name, self.matchers) from None

    def aligner(self, name: str) -> AlignerFactory:
        try:
            return self.aligners[name]
        except KeyError:
            raise self._missing("aligner", name, self.aligners) from None

    def tokenizer(self, name: str) -> TokenizerFactory:
        try:
            return self.tokenizers[name]
        except KeyError:
            raise self._missing("tokenizer", name, self.tokenizers) from None

    def function_word_source(self, name: str) -> FunctionWordSource | None:
        """The source called ``name``; None if no plugin has one (``name`` may be a
        file), an error if one of meteorx's own would, but is left out or failed."""
        source = self.function_words.get(name)
        builtin = declared_owner(f"function-words:{name}", self._table)
        if source is None and builtin is not None and builtin.name not in self._pending:
            raise PluginError(
                f"no function-word source named {name!r}: plugin {builtin.name!r} provides it"
                + self._failures()
            )
        return source

    def language_default(self, language: Language) -> tuple[LanguageDefault, str]:
        """A language's recommended configuration and the plugin that registered it: the
        one registered for its code, else the one for every language (``*``)."""
        for key in (language.code, "*"):
            default = self.language_defaults.get(key)
            if default is not None:
                return default, self.owners.get(f"language-default:{key}", "?")
        raise PluginError(
            f"no plugin registers a default configuration for {language.name} "
            f"({language.code}); name a preset or a configuration" + self._failures()
        )

    def shipped(self, kind: str, name: str) -> bool:
        """Whether the ``kind`` (aligner, tokenizer...) named ``name`` comes from one of
        meteorx's own plugins: its output keeps the plugin contract (their tests check
        it), so the scorer need not check it at every segment."""
        owner = self.owners.get(f"{kind}:{name}")
        info = self._store.plugins.get(owner) if owner is not None else None
        return info is not None and info.builtin

    def local_plugins(self, config: MeteorConfig) -> list[PluginInfo]:
        """The plugins given in this process (not installed) that provide one of
        ``config``'s stages, its aligner, tokenizer or function words: what its
        signature names, and what a configuration written from it must load."""
        used = [
            *(f"matcher:{stage.matcher}" for stage in config.stages),
            f"aligner:{config.aligner.name}",
            f"tokenizer:{config.normalize.tokenizer}",
            f"function-words:{config.function_words}",
        ]
        found: dict[str, PluginInfo] = {}
        for key in used:
            owner = self.owners.get(key)
            info = self._store.plugins.get(owner) if owner is not None else None
            if info is not None and info.digest is not None:
                found.setdefault(info.name, info)
        return list(found.values())

    def preset_names(self) -> list[str]:
        """The presets: top-level names sorted, then those in subfolders (``tuned/NAME``)."""
        return sorted(self.presets, key=lambda name: ("/" in name, name))

    def installable(self, name: str) -> Installable | None:
        """The resource ``meteorx resources install`` knows as ``name``, if any kind has it."""
        for kind in self.resources.values():
            spec = kind.spec(name)
            if spec is not None:
                return spec
        return None

    def _has_installed(self, name: str) -> bool:
        """Whether a plugin meteorx ships or an installed one is called ``name``."""
        if any(builtin.name == name for builtin in self._table):
            return True
        self._load_installed()
        info = self._store.plugins.get(name) or self._store.failed.get(name)
        return info is not None and info.digest is None
