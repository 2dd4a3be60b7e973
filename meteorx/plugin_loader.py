"""Loading plugins: one set of checks for every plugin, built in, installed or local.

A :class:`Loader` registers plugin modules (or objects) with pluggy, checks their hook
names, calls their register hooks and records what each registers in a :class:`Store`,
claiming every name: a name another plugin has (or one that one of meteorx's own
plugins declares, loaded or not) leaves the plugin out. A plugin that fails is
forgotten whole, with a :class:`PluginWarning`, or an error when it was asked for
(a local plugin, or a built-in one a configuration needs).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pluggy

from meteorx import hookspecs
from meteorx.errors import MeteorxWarning, PluginError
from meteorx.hookspecs import LanguageDefault

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint
    from importlib.resources.abc import Traversable

    from meteorx.builtin_plugins import Builtin

ENTRY_POINT_GROUP = "meteorx"

#: Each register hook, and the kind of thing it registers (as ``Store.owners`` keys
#: write it: ``"matcher:exact"``).
REGISTER_HOOKS = (
    ("meteorx_register_matchers", "matcher"),
    ("meteorx_register_aligners", "aligner"),
    ("meteorx_register_tokenizers", "tokenizer"),
    ("meteorx_register_function_words", "function-words"),
    ("meteorx_register_resources", "resource"),
    ("meteorx_register_presets", "preset"),
    ("meteorx_register_language_defaults", "language-default"),
)
KINDS = tuple(kind for _, kind in REGISTER_HOOKS)


class PluginWarning(MeteorxWarning):
    """A plugin was left out because it is broken; the others keep working."""


@dataclass
class PluginInfo:
    """One loaded plugin, for ``meteorx plugins``."""

    name: str
    module: str
    distribution: str
    version: str
    provides: list[str] = field(default_factory=list)
    error: str | None = None  # why it was left out, for plugins that failed to load
    #: for a plugin given in this process (not installed): the SHA-256 of its file, or
    #: of its source when it has none; the signature names it
    digest: str | None = None
    #: one of meteorx's own plugins (:data:`meteorx.builtin_plugins.BUILTINS`)
    builtin: bool = False


@dataclass
class Store:
    """What the loaded plugins registered, in plain dictionaries (nothing is loaded
    here: :class:`meteorx.registry.Registry` wraps it)."""

    entries: dict[str, dict[str, Any]] = field(default_factory=lambda: {k: {} for k in KINDS})
    owners: dict[str, str] = field(default_factory=dict)  # "kind:name" -> plugin
    plugins: dict[str, PluginInfo] = field(default_factory=dict)
    failed: dict[str, PluginInfo] = field(default_factory=dict)  # left out, with the reason

    def copy(self) -> Store:
        def infos(found: dict[str, PluginInfo]) -> dict[str, PluginInfo]:
            return {k: replace(v, provides=list(v.provides)) for k, v in found.items()}

        return Store(
            entries={kind: dict(named) for kind, named in self.entries.items()},
            owners=dict(self.owners),
            plugins=infos(self.plugins),
            failed=infos(self.failed),
        )


def trace(message: str) -> None:
    """Print ``message`` on stderr when ``METEORX_TRACE_HOOKS`` is set."""
    if os.environ.get("METEORX_TRACE_HOOKS", "").strip().lower() not in ("", "0", "false", "no"):
        sys.stderr.write(f"meteorx: trace: {message}\n")


class Loader:
    """Loads plugins into one :class:`Store`.

    ``strict``: a plugin that fails is an error (someone asked for it), not a warning.
    ``reserved(key)``: the plugin that will register ``key`` (``"matcher:exact"``)
    though it is not loaded yet (one of meteorx's own), if any: no other may take it.
    """

    def __init__(
        self,
        store: Store,
        *,
        strict: bool = False,
        reserved: Callable[[str], str | None] | None = None,
    ) -> None:
        self.pm = pluggy.PluginManager(ENTRY_POINT_GROUP)
        self.pm.add_hookspecs(hookspecs)
        self.store = store
        self.strict = strict
        self.reserved = reserved or (lambda key: None)

    # -- the three ways in --------------------------------------------------------

    def load_builtin(self, builtin: Builtin, version: str) -> None:
        """Import one of meteorx's own plugins and call its hooks."""
        info = PluginInfo(builtin.name, builtin.module, "meteorx", version, builtin=True)
        self.store.plugins[builtin.name] = info
        trace(f"loading plugin {builtin.name!r} ({builtin.module})")
        try:
            module = importlib.import_module(builtin.module)
        except Exception as error:
            reason = f"({builtin.module}) failed to import: {type(error).__name__}: {error}"
            self.fail(builtin.name, reason)
            return
        self._register_and_call(builtin.name, module)

    def load_entry_points(self, entry_points: list[EntryPoint]) -> None:
        """Import installed plugins (in the order given) and call their hooks, hook by
        hook: every plugin's matchers, then every plugin's aligners..."""
        for ep in entry_points:
            dist = ep.dist
            self.store.plugins[ep.name] = PluginInfo(
                name=ep.name,
                module=ep.value,
                distribution=dist.metadata["Name"] if dist else "?",
                version=dist.version if dist else "?",
            )
            trace(f"loading plugin {ep.name!r} ({ep.value})")
            try:
                module = ep.load()
            except Exception as error:
                reason = f"({ep.value}) failed to import: {type(error).__name__}: {error}"
                self.fail(ep.name, reason)
                continue
            try:
                self.pm.register(module, name=ep.name)
            except ValueError as error:
                self.fail(ep.name, f"could not be registered: {error}")
        self.check_hooks()
        for hook_name, kind in REGISTER_HOOKS:
            self.call(hook_name, kind)

    def add(self, name: str, plugin: object, info: PluginInfo) -> None:
        """Load a plugin given in this process (a module or an object with hook
        implementations), with one more check: it must implement a hook."""
        self.store.plugins[name] = info
        trace(f"loading plugin {name!r} ({info.module})")
        self._register_and_call(name, plugin, need_hooks=True)

    # -- checks and calls ------------------------------------------------------------

    def _register_and_call(self, name: str, plugin: object, need_hooks: bool = False) -> None:
        try:
            self.pm.register(plugin, name=name)
        except ValueError as error:
            self.fail(name, f"could not be registered: {error}")
            return
        self.check_hooks()
        if name in self.store.failed or name not in self.store.plugins:
            return
        if need_hooks and not self.pm.get_hookcallers(plugin):
            self.fail(
                name,
                "implements no meteorx hook (functions decorated with meteorx.hookspecs.hookimpl)",
            )
            return
        for hook_name, kind in REGISTER_HOOKS:
            self.call(hook_name, kind)

    def check_hooks(self) -> None:
        """Leave out plugins implementing hooks that do not exist (a misspelled name)."""
        while True:
            try:
                self.pm.check_pending()
                return
            except pluggy.PluginValidationError as error:
                name = self.pm.get_name(error.plugin) or "?"
                self.fail(name, f"implements an unknown hook: {error}")

    def call(self, hook_name: str, kind: str) -> None:
        """Call one register hook of every plugin, each with its own ``register``."""
        for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
            plugin = impl.plugin_name
            if plugin in self.store.failed or plugin not in self.store.plugins:
                continue
            trace(f"{hook_name}() of plugin {plugin!r}")
            try:
                impl.function(register=self._register(plugin, kind))
            except PluginError as error:
                self.fail(plugin, str(error))
            except Exception as error:
                self.fail(plugin, f"failed in {hook_name}: {type(error).__name__}: {error}")

    # -- failing ---------------------------------------------------------------------

    def forget(self, plugin: str) -> PluginInfo:
        """Remove ``plugin`` and everything it registered; its description."""
        store = self.store
        for key, owner in list(store.owners.items()):
            if owner == plugin:
                kind, name = key.split(":", 1)
                del store.entries[kind][name]
                del store.owners[key]
        info = store.plugins.pop(plugin, None) or PluginInfo(plugin, "?", "?", "?")
        info.provides.clear()
        if self.pm.has_plugin(plugin):
            self.pm.unregister(name=plugin)
        return info

    def fail(self, plugin: str, reason: str) -> None:
        """Leave ``plugin`` out: forget what it registered and say why (an error when
        it was asked for; a built-in one is not tried again)."""
        self.refuse(self.forget(plugin), reason)

    def refuse(self, info: PluginInfo, reason: str) -> None:
        """Record why the plugin ``info`` describes is left out, and say so."""
        plugin = info.name
        info.error = reason
        if info.builtin or not self.strict:
            self.store.failed.setdefault(plugin, info)
        if self.strict and info.builtin:
            raise PluginError(
                f"meteorx's own plugin {plugin!r} {reason}; reinstall meteorx "
                "(pip install --force-reinstall meteorx)"
            )
        if self.strict:
            where = "" if reason.startswith("(") else f"({info.module}) "
            raise PluginError(f"plugin {plugin!r} {where}{reason}")
        warnings.warn(
            f"plugin {plugin!r} {reason}; it is left out (the other plugins work)",
            PluginWarning,
            stacklevel=6,
        )

    # -- what a plugin's register function does --------------------------------------

    def _register(self, plugin: str, kind: str) -> Callable[..., None]:
        store = self.store
        target = store.entries[kind]

        def claim(name: object) -> str:
            if not isinstance(name, str) or not name:
                raise PluginError(f"registered a {kind} without a name ({name!r})")
            key = f"{kind}:{name}"
            owner = store.owners.get(key)
            if owner is None and self.reserved(key) != plugin:
                owner = self.reserved(key)  # one of meteorx's own, not loaded yet
            if owner is not None:
                advice = "rename yours" if self.strict else "uninstall one of them"
                raise PluginError(
                    f"registers {kind} {name!r}, which plugin {owner!r} already registered; "
                    f"{advice}"
                )
            trace(f"  plugin {plugin!r} registers {kind} {name!r}")
            store.owners[key] = plugin
            store.plugins[plugin].provides.append(key)
            return name

        if kind == "matcher":

            def register_matcher(cls: Any) -> None:
                target[claim(getattr(cls, "name", None))] = cls

            return register_matcher

        if kind == "preset":

            def register_presets(source: Traversable) -> None:
                for name, file in preset_files(source):
                    target[claim(name)] = file

            return register_presets

        if kind == "language-default":

            def register_default(language: str, default: LanguageDefault) -> None:
                target[claim(_language_key(language))] = _checked_default(language, default)

            return register_default

        def register(name: str, obj: Any) -> None:
            target[claim(name)] = obj

        return register


def _language_key(language: object) -> str:
    """A language default's key: ``*`` or the ISO code meteorx resolves it to."""
    from meteorx.errors import LanguageError
    from meteorx.languages import resolve_language

    if language == "*":
        return language
    code: str | None = None
    if isinstance(language, str):
        with contextlib.suppress(LanguageError):
            code = resolve_language(language).code
    if code is None or code != language:
        better = f" (write {code!r})" if code else ""
        raise PluginError(
            f"registers a default for {language!r}, which is not a language code "
            f"meteorx knows{better}"
        )
    return code


def _checked_default(language: str, default: object) -> LanguageDefault:
    if not isinstance(default, LanguageDefault) or not isinstance(default.config, (str, Mapping)):
        raise PluginError(
            f"registers a default for {language!r} that is not a "
            "meteorx.hookspecs.LanguageDefault of a preset name or a configuration dict"
        )
    return default


def preset_files(source: Traversable) -> list[tuple[str, Traversable]]:
    """A preset file as ``(its name, it)``; a folder as its ``NAME.yaml`` files and, one
    level down, its ``SUB/NAME.yaml`` files, named ``SUB/NAME``."""
    if source.is_file():
        return [(source.name.removesuffix(".yaml"), source)]
    if not source.is_dir():
        raise PluginError(f"registers presets from {source}, which does not exist")
    found: list[tuple[str, Traversable]] = []
    for entry in source.iterdir():
        if entry.is_dir():
            found.extend(
                (f"{entry.name}/{file.name.removesuffix('.yaml')}", file)
                for file in entry.iterdir()
                if file.name.endswith(".yaml") and file.is_file()
            )
        elif entry.name.endswith(".yaml"):
            found.append((entry.name.removesuffix(".yaml"), entry))
    return sorted(found, key=lambda item: item[0])
