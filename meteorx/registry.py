"""The plugin registry: one pluggy manager, entry points loaded once, lazily.

Plugins (first-party ones in ``plugins/`` and third-party ones alike) are found through
the ``meteorx`` entry-point group. Set ``METEORX_PLUGINS`` to a comma-separated list of
entry-point names to load only those (``core`` is always loaded), and
``METEORX_TRACE_HOOKS=1`` to print every hook call on stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from typing import TYPE_CHECKING, Any, Protocol

import pluggy

from meteorx import hookspecs
from meteorx.errors import PluginError

if TYPE_CHECKING:
    from meteorx.config import AlignerConfig
    from meteorx.languages import Language
    from meteorx.matchers import Matcher
    from meteorx.types import Alignment, Match

ENTRY_POINT_GROUP = "meteorx"


class Aligner(Protocol):
    """What an aligner factory returns."""

    def align(
        self,
        candidates: Sequence[Match],
        hyp_len: int,
        ref_len: int,
        weights: Sequence[float],
        exact_stages: frozenset[int],
    ) -> Alignment: ...


AlignerFactory = Callable[["AlignerConfig"], Aligner]
Tokenizer = Callable[[str], list[str]]
TokenizerFactory = Callable[["Language"], Tokenizer]
FunctionWordSource = Callable[["Language"], tuple[frozenset[str], str]]


@dataclass
class PluginInfo:
    """One loaded plugin, for ``meteorx plugins``."""

    name: str
    module: str
    distribution: str
    version: str
    provides: list[str] = field(default_factory=list)


@dataclass
class Registry:
    """Everything the loaded plugins provide, by name."""

    matchers: dict[str, type[Matcher]] = field(default_factory=dict)
    aligners: dict[str, AlignerFactory] = field(default_factory=dict)
    tokenizers: dict[str, TokenizerFactory] = field(default_factory=dict)
    function_words: dict[str, FunctionWordSource] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)  # "kind:name" -> plugin
    plugins: dict[str, PluginInfo] = field(default_factory=dict)

    def _claim(self, kind: str, name: str, plugin: str) -> None:
        key = f"{kind}:{name}"
        if key in self.owners:
            raise PluginError(
                f"plugin {plugin!r} registers {kind} {name!r}, which plugin "
                f"{self.owners[key]!r} already registered; uninstall one of them"
            )
        self.owners[key] = plugin
        if plugin in self.plugins:
            self.plugins[plugin].provides.append(key)

    def matcher(self, name: str) -> type[Matcher]:
        try:
            return self.matchers[name]
        except KeyError:
            known = ", ".join(sorted(self.matchers))
            raise PluginError(
                f"no matcher named {name!r} is installed; installed matchers: {known}"
            ) from None

    def aligner(self, name: str) -> AlignerFactory:
        try:
            return self.aligners[name]
        except KeyError:
            known = ", ".join(sorted(self.aligners))
            raise PluginError(f"no aligner named {name!r}; installed aligners: {known}") from None

    def tokenizer(self, name: str) -> TokenizerFactory:
        try:
            return self.tokenizers[name]
        except KeyError:
            known = ", ".join(sorted(self.tokenizers))
            raise PluginError(
                f"no tokenizer named {name!r}; installed tokenizers: {known}"
            ) from None

    def function_word_source(self, name: str) -> FunctionWordSource | None:
        return self.function_words.get(name)


#: Plugins ``METEORX_PLUGINS`` cannot leave out: the matchers, aligners, tokenizers and
#: function-word sources every configuration relies on.
ALWAYS_LOADED = frozenset({"core", "function_words"})


def _entry_points() -> list[metadata.EntryPoint]:
    eps = list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    wanted = os.environ.get("METEORX_PLUGINS")
    if wanted:
        names = {n.strip() for n in wanted.split(",") if n.strip()} | ALWAYS_LOADED
        eps = [ep for ep in eps if ep.name in names]
    # Deterministic order: core first, then by name.
    return sorted(eps, key=lambda ep: (ep.name != "core", ep.name))


def _call_register_hook(
    pm: pluggy.PluginManager,
    hook_name: str,
    registry: Registry,
    add: Callable[[str, Any], Callable[..., None]],
) -> None:
    hook = getattr(pm.hook, hook_name)
    for impl in hook.get_hookimpls():
        plugin = impl.plugin_name
        try:
            impl.function(register=add(plugin, registry))
        except PluginError:
            raise
        except Exception as error:
            raise PluginError(
                f"plugin {plugin!r} failed in {hook_name}: {type(error).__name__}: {error}"
            ) from error


def _add_matcher(plugin: str, registry: Registry) -> Callable[[type[Matcher]], None]:
    def register(cls: type[Matcher]) -> None:
        name = getattr(cls, "name", None)
        if not isinstance(name, str) or not name:
            raise PluginError(f"plugin {plugin!r} registered a matcher without a 'name'")
        registry._claim("matcher", name, plugin)
        registry.matchers[name] = cls

    return register


def _add_named(kind: str, attr: str) -> Callable[[str, Registry], Callable[[str, Any], None]]:
    def make(plugin: str, registry: Registry) -> Callable[[str, Any], None]:
        def register(name: str, obj: Any) -> None:
            registry._claim(kind, name, plugin)
            getattr(registry, attr)[name] = obj

        return register

    return make


@cache
def get_registry() -> Registry:
    """Load every plugin once and return what they registered."""
    pm = pluggy.PluginManager(ENTRY_POINT_GROUP)
    pm.add_hookspecs(hookspecs)
    if os.environ.get("METEORX_TRACE_HOOKS"):
        pm.trace.root.setwriter(lambda text: sys.stderr.write(str(text)))
        pm.enable_tracing()
    registry = Registry()
    for ep in _entry_points():
        try:
            module = ep.load()
        except Exception as error:
            raise PluginError(
                f"plugin {ep.name!r} ({ep.value}) failed to import: {type(error).__name__}: {error}"
            ) from error
        dist = ep.dist
        registry.plugins[ep.name] = PluginInfo(
            name=ep.name,
            module=ep.value,
            distribution=dist.metadata["Name"] if dist else "?",
            version=dist.version if dist else "?",
        )
        try:
            pm.register(module, name=ep.name)
        except ValueError as error:
            raise PluginError(f"plugin {ep.name!r} could not be registered: {error}") from error
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as error:
        raise PluginError(f"a plugin implements an unknown hook: {error}") from error
    _call_register_hook(pm, "meteorx_register_matchers", registry, _add_matcher)
    _call_register_hook(
        pm, "meteorx_register_aligners", registry, _add_named("aligner", "aligners")
    )
    _call_register_hook(
        pm, "meteorx_register_tokenizers", registry, _add_named("tokenizer", "tokenizers")
    )
    _call_register_hook(
        pm,
        "meteorx_register_function_words",
        registry,
        _add_named("function-words", "function_words"),
    )
    return registry
