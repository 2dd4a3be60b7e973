"""The plugin registry: one pluggy manager, entry points loaded once, lazily.

Plugins (first-party ones in ``plugins/`` and third-party ones alike) are found through
the ``meteorx`` entry-point group. Set ``METEORX_PLUGINS`` to a comma-separated list of
entry-point names to load only those (``core`` is always loaded), and
``METEORX_TRACE_HOOKS=1`` to print on stderr every plugin loaded, every hook called and
everything registered. A broken plugin is left out with a warning, never taking the
others down with it.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from typing import TYPE_CHECKING, Any

import pluggy

from meteorx import hookspecs
from meteorx.errors import MeteorxWarning, PluginError

# The types of what plugins register belong to the plugin contract (hookspecs); they
# are importable from here too.
from meteorx.hookspecs import (
    AlignerFactory,
    FunctionWordSource,
    Installable,
    LanguageResource,
    ResourceKind,
    Tokenizer,
    TokenizerFactory,
)

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from meteorx.matchers import Matcher

ENTRY_POINT_GROUP = "meteorx"

__all__ = [
    "AlignerFactory",
    "FunctionWordSource",
    "Installable",
    "LanguageResource",
    "PluginInfo",
    "Registry",
    "ResourceKind",
    "Tokenizer",
    "TokenizerFactory",
    "get_registry",
]


@dataclass
class PluginInfo:
    """One loaded plugin, for ``meteorx plugins``."""

    name: str
    module: str
    distribution: str
    version: str
    provides: list[str] = field(default_factory=list)
    error: str | None = None  # why it was left out, for plugins that failed to load


@dataclass
class Registry:
    """Everything the loaded plugins provide, by name."""

    matchers: dict[str, type[Matcher]] = field(default_factory=dict)
    aligners: dict[str, AlignerFactory] = field(default_factory=dict)
    tokenizers: dict[str, TokenizerFactory] = field(default_factory=dict)
    function_words: dict[str, FunctionWordSource] = field(default_factory=dict)
    resources: dict[str, ResourceKind] = field(default_factory=dict)
    presets: dict[str, Traversable] = field(default_factory=dict)  # name -> its YAML file
    owners: dict[str, str] = field(default_factory=dict)  # "kind:name" -> plugin
    plugins: dict[str, PluginInfo] = field(default_factory=dict)
    failed: dict[str, PluginInfo] = field(default_factory=dict)  # left out, with the reason

    def _failures(self) -> str:
        """What a failed lookup adds: the plugins that were left out, and why."""
        if not self.failed:
            return ""
        return "; plugins that failed to load: " + "; ".join(
            f"{name!r} {info.error}" for name, info in self.failed.items()
        )

    def shipped(self, kind: str, name: str) -> bool:
        """Whether the ``kind`` (aligner, tokenizer...) named ``name`` comes with meteorx
        itself: its output keeps the plugin contract, so the scorer need not check it."""
        info = self.plugins.get(self.owners.get(f"{kind}:{name}", ""))
        return info is not None and info.distribution == "meteorx"

    def matcher(self, name: str) -> type[Matcher]:
        try:
            return self.matchers[name]
        except KeyError:
            known = ", ".join(sorted(self.matchers))
            raise PluginError(
                f"no matcher named {name!r} is installed; installed matchers: {known}"
                + self._failures()
            ) from None

    def aligner(self, name: str) -> AlignerFactory:
        try:
            return self.aligners[name]
        except KeyError:
            known = ", ".join(sorted(self.aligners))
            raise PluginError(
                f"no aligner named {name!r}; installed aligners: {known}" + self._failures()
            ) from None

    def tokenizer(self, name: str) -> TokenizerFactory:
        try:
            return self.tokenizers[name]
        except KeyError:
            known = ", ".join(sorted(self.tokenizers))
            raise PluginError(
                f"no tokenizer named {name!r}; installed tokenizers: {known}" + self._failures()
            ) from None

    def function_word_source(self, name: str) -> FunctionWordSource | None:
        return self.function_words.get(name)

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


#: Plugins ``METEORX_PLUGINS`` cannot leave out: the matchers, aligners, tokenizers and
#: function-word sources every configuration relies on. Nothing works without them, so
#: when one of them fails to load that is an error, not a warning.
ALWAYS_LOADED = frozenset({"core", "function_words"})

#: Registry dictionary holding each kind of thing a plugin registers.
_KIND_ATTR = {
    "matcher": "matchers",
    "aligner": "aligners",
    "tokenizer": "tokenizers",
    "function-words": "function_words",
    "resource": "resources",
    "preset": "presets",
}

_REGISTER_HOOKS = (
    ("meteorx_register_matchers", "matcher"),
    ("meteorx_register_aligners", "aligner"),
    ("meteorx_register_tokenizers", "tokenizer"),
    ("meteorx_register_function_words", "function-words"),
    ("meteorx_register_resources", "resource"),
    ("meteorx_register_presets", "preset"),
)


class PluginWarning(MeteorxWarning):
    """A plugin was left out because it is broken; the others keep working."""


def _entry_points() -> list[metadata.EntryPoint]:
    eps = list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    wanted = os.environ.get("METEORX_PLUGINS")
    if wanted:
        names = {n.strip() for n in wanted.split(",") if n.strip()}
        unknown = sorted(names - {ep.name for ep in eps})
        if unknown:
            installed = ", ".join(sorted({ep.name for ep in eps}))
            raise PluginError(
                f"METEORX_PLUGINS names {', '.join(map(repr, unknown))}, which "
                f"{'is' if len(unknown) == 1 else 'are'} not installed; installed plugins: "
                f"{installed}"
            )
        eps = [ep for ep in eps if ep.name in names | ALWAYS_LOADED]
    # Deterministic order: core, then meteorx's other always-loaded plugin, then by name
    # (so a third-party plugin taking one of their names is the one left out).
    return sorted(eps, key=lambda ep: (ep.name != "core", ep.name not in ALWAYS_LOADED, ep.name))


def _trace(message: str) -> None:
    if os.environ.get("METEORX_TRACE_HOOKS"):
        sys.stderr.write(f"meteorx: trace: {message}\n")


class _Loader:
    """Builds one :class:`Registry`, leaving out (with a warning) plugins that fail."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(ENTRY_POINT_GROUP)
        self.pm.add_hookspecs(hookspecs)
        self.registry = Registry()

    def fail(self, plugin: str, reason: str) -> None:
        """Leave ``plugin`` out: forget what it registered and say why."""
        if plugin in ALWAYS_LOADED:
            raise PluginError(
                f"meteorx's own plugin {plugin!r} {reason}; reinstall meteorx "
                "(pip install --force-reinstall meteorx)"
            )
        registry = self.registry
        for key, owner in list(registry.owners.items()):
            if owner == plugin:
                kind, name = key.split(":", 1)
                del getattr(registry, _KIND_ATTR[kind])[name]
                del registry.owners[key]
        info = registry.plugins.pop(plugin, None) or PluginInfo(plugin, "?", "?", "?")
        info.provides.clear()
        info.error = reason
        registry.failed[plugin] = info
        if self.pm.has_plugin(plugin):
            self.pm.unregister(name=plugin)
        warnings.warn(
            f"plugin {plugin!r} {reason}; it is left out (the other plugins work)",
            PluginWarning,
            stacklevel=4,
        )

    def load(self, ep: metadata.EntryPoint) -> None:
        dist = ep.dist
        info = PluginInfo(
            name=ep.name,
            module=ep.value,
            distribution=dist.metadata["Name"] if dist else "?",
            version=dist.version if dist else "?",
        )
        self.registry.plugins[ep.name] = info
        _trace(f"loading plugin {ep.name!r} ({ep.value})")
        try:
            module = ep.load()
        except Exception as error:
            self.fail(ep.name, f"({ep.value}) failed to import: {type(error).__name__}: {error}")
            return
        try:
            self.pm.register(module, name=ep.name)
        except ValueError as error:
            self.fail(ep.name, f"could not be registered: {error}")

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
            if plugin in self.registry.failed:
                continue
            _trace(f"{hook_name}() of plugin {plugin!r}")
            try:
                impl.function(register=self._register(plugin, kind))
            except PluginError as error:
                self.fail(plugin, str(error))
            except Exception as error:
                self.fail(plugin, f"failed in {hook_name}: {type(error).__name__}: {error}")

    def _register(self, plugin: str, kind: str) -> Callable[..., None]:
        registry = self.registry
        target: dict[str, Any] = getattr(registry, _KIND_ATTR[kind])

        def claim(name: object) -> str:
            if not isinstance(name, str) or not name:
                raise PluginError(f"registered a {kind} without a name ({name!r})")
            key = f"{kind}:{name}"
            if key in registry.owners:
                raise PluginError(
                    f"registers {kind} {name!r}, which plugin {registry.owners[key]!r} "
                    "already registered; uninstall one of them"
                )
            _trace(f"  plugin {plugin!r} registers {kind} {name!r}")
            registry.owners[key] = plugin
            registry.plugins[plugin].provides.append(key)
            return name

        if kind == "matcher":

            def register_matcher(cls: type[Matcher]) -> None:
                target[claim(getattr(cls, "name", None))] = cls

            return register_matcher

        if kind == "preset":

            def register_presets(source: Traversable) -> None:
                for name, file in _preset_files(source):
                    target[claim(name)] = file

            return register_presets

        def register(name: str, obj: Any) -> None:
            target[claim(name)] = obj

        return register


def _preset_files(source: Traversable) -> list[tuple[str, Traversable]]:
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


@cache
def get_registry() -> Registry:
    """Load every plugin once and return what they registered.

    A plugin that fails to import, raises in a hook, implements an unknown hook or
    registers a name another plugin already has is left out with a
    :class:`PluginWarning` naming it; ``Registry.failed`` (and ``meteorx plugins``)
    keep the reason, and looking up anything it would have provided says so.
    """
    loader = _Loader()
    for ep in _entry_points():
        loader.load(ep)
    loader.check_hooks()
    for hook_name, kind in _REGISTER_HOOKS:
        loader.call(hook_name, kind)
    return loader.registry
