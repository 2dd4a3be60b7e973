"""The plugin registry: what the plugins provide, by name, each loaded when first needed.

Three kinds of plugins, one set of checks (:class:`meteorx.plugin_loader.Loader`):

* **meteorx's own** (:data:`meteorx.builtin_plugins.BUILTINS`), registered in-process:
  each is imported the first time a name it declares is asked for (a matcher, a
  preset, a language's default...), so a run imports the plugins its configuration
  names and no other;
* **installed ones** (the ``meteorx`` entry-point group), loaded together the first
  time the registry is asked for a name meteorx's own plugins do not declare (another
  language's default than English's included), or for a listing;
* **local ones** (:func:`register`: a ``.py`` file, a module name or an object with
  hook implementations; ``--plugin``, a configuration's ``plugins:``), loaded when
  registered, after the installed ones; a broken one is an error, since someone asked
  for it.

A broken plugin is left out with a warning, never taking the others down with it; one
of meteorx's own that a configuration needs failing is an error. A name one of
meteorx's own plugins declares cannot be taken by another plugin, loaded or not.
``METEORX_PLUGINS=a,b`` makes only those plugins (meteorx's own or installed)
available; ``METEORX_TRACE_HOOKS=1`` prints on stderr every plugin loaded, every hook
called and everything registered.
"""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING

from meteorx.builtin_plugins import BUILTINS
from meteorx.errors import PluginError

# The types of what plugins register belong to the plugin contract (hookspecs); they
# are importable from here too.
from meteorx.hookspecs import (
    AlignerFactory,
    FunctionWordSource,
    Installable,
    LanguageDefault,
    LanguageResource,
    ResourceKind,
    Tokenizer,
    TokenizerFactory,
)
from meteorx.local_plugins import (
    LocalPlugin,
    identify,
    import_file,
    import_module,
    is_module_name,
    is_plugin_file,
)
from meteorx.local_plugins import digest as _digest
from meteorx.plugin_loader import (
    ENTRY_POINT_GROUP,
    Loader,
    PluginInfo,
    PluginWarning,
    trace,
)
from meteorx.plugin_registry import Registry

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = [
    "ENTRY_POINT_GROUP",
    "AlignerFactory",
    "FunctionWordSource",
    "Installable",
    "LanguageDefault",
    "LanguageResource",
    "PluginInfo",
    "PluginWarning",
    "Registry",
    "ResourceKind",
    "Tokenizer",
    "TokenizerFactory",
    "get_registry",
    "is_module_name",
    "is_plugin_file",
    "plugin_reference",
    "register",
    "unregister",
]


# -- the registry of this process -----------------------------------------------------


def _entry_points() -> list[EntryPoint]:
    """The installed plugins (not meteorx's own, which its table registers), by name."""
    from importlib import metadata

    return sorted(
        (
            ep
            for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)
            # meteorx's own, in the metadata of an older install: registered from the table
            if not (ep.dist is not None and ep.dist.metadata["Name"] == "meteorx")
        ),
        key=lambda ep: ep.name,
    )


def _wanted() -> set[str] | None:
    """The plugins ``METEORX_PLUGINS`` names (None: all)."""
    wanted = os.environ.get("METEORX_PLUGINS")
    if not wanted:
        return None
    names = {n.strip() for n in wanted.split(",") if n.strip()}
    shipped = {builtin.name for builtin in BUILTINS}
    installed = {ep.name for ep in _entry_points()} if names - shipped else set()
    unknown = sorted(names - shipped - installed)
    if unknown:
        known = ", ".join([b.name for b in BUILTINS] + sorted(installed - shipped))
        raise PluginError(
            f"METEORX_PLUGINS names {', '.join(map(repr, unknown))}, which "
            f"{'is' if len(unknown) == 1 else 'are'} not installed; plugins: {known}"
        )
    return names


@cache
def get_registry() -> Registry:
    """The registry of this process: every plugin available, each loaded when first
    needed (see the module's documentation).

    A plugin that fails to import, raises in a hook, implements an unknown hook or
    registers a name another plugin already has is left out with a
    :class:`PluginWarning` naming it; ``Registry.failed`` (and ``meteorx plugins``)
    keep the reason, and looking up anything it would have provided says so.

    After each :func:`register` this returns the new registry it validated, a copy:
    scorers built before keep the one they were built with.
    """
    global _validated
    if _validated is not None:
        registry, _validated = _validated, None
        return registry
    wanted = _wanted()

    def installed() -> list[EntryPoint]:
        return [ep for ep in _entry_points() if wanted is None or ep.name in wanted]

    registry = Registry(
        builtins=[b for b in BUILTINS if wanted is None or b.name in wanted],
        installed=installed,
        left_out=[b.name for b in BUILTINS if wanted is not None and b.name not in wanted],
        table=BUILTINS,
    )
    for local in _LOCAL.values():  # (after a cache_clear: the plugins given before)
        registry._load_installed()
        Loader(registry._store, reserved=registry._reserved).add(
            local.name, local.plugin, _local_info(local)
        )
    return registry


# -- plugins given in this process, not installed ----------------------------------------

#: The plugins given in this process, by name, in the order given.
_LOCAL: dict[str, LocalPlugin] = {}
#: The registry :func:`register` built and checked, for :func:`get_registry` to take.
_validated: Registry | None = None
_LOCK = threading.RLock()


def _local_info(local: LocalPlugin) -> PluginInfo:
    return PluginInfo(
        name=local.name,
        module=local.source,
        distribution="local",
        version=f"sha256:{local.digest[:8]}" if local.digest else "no digest",
        digest=local.digest,
    )


def register(plugin: object, *, name: str | None = None) -> str:
    """Register a plugin in this process, without packaging it; return its name.

    ``plugin`` is the path of a ``.py`` file, a module name (``package.module``), a
    module, or any object with hook implementations (an instance whose methods are
    decorated with :data:`meteorx.hookspecs.hookimpl`, as pluggy takes them). Its name
    is ``name``, else the file's stem, the module's name or the object's
    (``__name__``, else its class's). Its hooks are checked and called as an installed
    plugin's are, after the installed plugins, so scorers built afterwards see what it
    registers; anything wrong with it (not found, failing to import, a hook raising or
    misspelled, no hook at all, a name another plugin has) is a :class:`PluginError`
    naming it, and leaves the registry as it was.

    Registering the same plugin again does nothing, unless its file changed (it is
    then read again) or another object comes under the same name: the new one then
    replaces the old.
    """
    with _LOCK:
        local = identify(plugin, name)
        old = _LOCAL.get(local.name)
        if old is not None and (
            old.plugin is plugin
            or (old.source, old.digest) == (local.source, local.digest)
            or (isinstance(plugin, str) and not is_plugin_file(plugin) and old.source == plugin)
        ):
            return old.name  # the same file unchanged, the same module or object
        registry = get_registry()
        if registry._has_installed(local.name):
            raise PluginError(
                f"plugin {local.name!r} ({local.source}): an installed plugin has that "
                "name; rename the file or pass another name"
            )
        if old is not None and old.source != local.source and isinstance(plugin, str):
            raise PluginError(
                f"plugin {local.name!r} ({local.source}): a plugin of that name is "
                f"registered from {old.source}; rename one of the files"
            )
        if isinstance(plugin, str) and not is_plugin_file(plugin):
            module = import_module(local)
            local = replace(local, plugin=module, digest=_digest(module))
        elif isinstance(plugin, (str, os.PathLike)):
            local = replace(local, plugin=import_file(local))
        new = registry.copy()
        loader = Loader(new._store, strict=True, reserved=new._reserved)
        if old is not None:
            loader.forget(old.name)
        loader.add(local.name, local.plugin, _local_info(local))
        _LOCAL[local.name] = local
        _serve(new)
        return local.name


def plugin_reference(name: str) -> str | None:
    """What a configuration's ``plugins:`` would name to load the plugin ``name``, given
    in this process, again: its file's resolved path or its module name; None for an
    object registered from Python (no file names it)."""
    local = _LOCAL.get(name)
    if local is None or not isinstance(local.plugin, ModuleType):
        return None
    return local.source


def unregister(name: str) -> None:
    """Forget a plugin given by :func:`register`: scorers built afterwards no longer
    see what it registered."""
    with _LOCK:
        if _LOCAL.pop(name, None) is None:
            raise PluginError(f"no plugin named {name!r} was registered in this process")
        new = get_registry().copy()
        Loader(new._store).forget(name)
        trace(f"forgetting plugin {name!r}")
        _serve(new)


def _serve(registry: Registry) -> None:
    """Make ``registry`` the one :func:`get_registry` returns from now on."""
    global _validated
    _validated = registry
    get_registry.cache_clear()
    get_registry()  # takes it: a later cache_clear() (tests) loads afresh
