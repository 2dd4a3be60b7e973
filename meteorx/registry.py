"""The plugin registry: one pluggy manager, entry points loaded once, lazily.

Plugins (first-party ones in ``plugins/`` and third-party ones alike) are found through
the ``meteorx`` entry-point group. Set ``METEORX_PLUGINS`` to a comma-separated list of
entry-point names to load only those (``core`` is always loaded), and
``METEORX_TRACE_HOOKS=1`` to print on stderr every plugin loaded, every hook called and
everything registered. A broken plugin is left out with a warning, never taking the
others down with it.

A plugin need not be installed: :func:`register` takes a ``.py`` file, a module name or
an object with hook implementations (``meteorx.register``, ``--plugin``, a
configuration's ``plugins:``). It gets the same checks and hooks as an installed one,
but is loaded after them, and a broken one is an error, since someone asked for it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from functools import cache
from importlib import metadata
from pathlib import Path
from types import ModuleType
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

    from meteorx.config import MeteorConfig
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
    "plugin_reference",
    "register",
    "unregister",
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
    #: for a plugin given in this process (not installed): the SHA-256 of its file, or
    #: of its source when it has none; the signature names it
    digest: str | None = None


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

    def copy(self) -> Registry:
        """A copy that may gain or lose plugins while this one, and the scorers built on
        it, stay as they were."""
        copied: dict[str, Any] = {f.name: dict(getattr(self, f.name)) for f in fields(self)}
        for attr in ("plugins", "failed"):
            infos = copied[attr].items()
            copied[attr] = {k: replace(v, provides=list(v.provides)) for k, v in infos}
        return Registry(**copied)

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
            info = self.plugins.get(self.owners.get(key, ""))
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
    if os.environ.get("METEORX_TRACE_HOOKS", "").strip().lower() not in ("", "0", "false", "no"):
        sys.stderr.write(f"meteorx: trace: {message}\n")


class _Loader:
    """Builds one :class:`Registry`, leaving out (with a warning) plugins that fail."""

    def __init__(self, registry: Registry | None = None, strict: bool = False) -> None:
        self.pm = pluggy.PluginManager(ENTRY_POINT_GROUP)
        self.pm.add_hookspecs(hookspecs)
        self.registry = Registry() if registry is None else registry
        #: whether a failing plugin is an error (one asked for by :func:`register`)
        self.strict = strict

    def forget(self, plugin: str) -> PluginInfo:
        """Remove ``plugin`` and everything it registered; its description."""
        registry = self.registry
        for key, owner in list(registry.owners.items()):
            if owner == plugin:
                kind, name = key.split(":", 1)
                del getattr(registry, _KIND_ATTR[kind])[name]
                del registry.owners[key]
        info = registry.plugins.pop(plugin, None) or PluginInfo(plugin, "?", "?", "?")
        info.provides.clear()
        if self.pm.has_plugin(plugin):
            self.pm.unregister(name=plugin)
        return info

    def fail(self, plugin: str, reason: str) -> None:
        """Leave ``plugin`` out: forget what it registered and say why."""
        if plugin in ALWAYS_LOADED:
            raise PluginError(
                f"meteorx's own plugin {plugin!r} {reason}; reinstall meteorx "
                "(pip install --force-reinstall meteorx)"
            )
        info = self.forget(plugin)
        if self.strict:
            where = "" if reason.startswith("(") else f"({info.module}) "
            raise PluginError(f"plugin {plugin!r} {where}{reason}")
        info.error = reason
        self.registry.failed[plugin] = info
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

    def add(self, local: _Local) -> None:
        """Load a plugin given in this process (its own loader: only its hooks are
        called), with the checks an installed plugin gets, and one more: it must
        implement a hook."""
        self.registry.plugins[local.name] = PluginInfo(
            name=local.name,
            module=local.source,
            distribution="local",
            version=f"sha256:{local.digest[:8]}" if local.digest else "no digest",
            digest=local.digest,
        )
        _trace(f"loading plugin {local.name!r} ({local.source})")
        try:
            self.pm.register(local.plugin, name=local.name)
        except ValueError as error:
            self.fail(local.name, f"could not be registered: {error}")
            return
        self.check_hooks()
        if local.name in self.registry.failed:
            return
        if not self.pm.get_hookcallers(local.plugin):
            self.fail(
                local.name,
                "implements no meteorx hook (functions decorated with meteorx.hookspecs.hookimpl)",
            )
            return
        for hook_name, kind in _REGISTER_HOOKS:
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
                advice = "rename yours" if self.strict else "uninstall one of them"
                raise PluginError(
                    f"registers {kind} {name!r}, which plugin {registry.owners[key]!r} "
                    f"already registered; {advice}"
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

    The plugins given by :func:`register` are loaded after the installed ones. After
    each :func:`register` this returns the new registry it validated, a copy: scorers
    built before keep the one they were built with.
    """
    global _validated
    if _validated is not None:
        registry, _validated = _validated, None
        return registry
    loader = _Loader()
    for ep in _entry_points():
        loader.load(ep)
    loader.check_hooks()
    for hook_name, kind in _REGISTER_HOOKS:
        loader.call(hook_name, kind)
    for local in _LOCAL.values():
        _Loader(loader.registry).add(local)
    return loader.registry


# -- plugins given in this process, not installed ----------------------------------------


@dataclass(frozen=True, eq=False)
class _Local:
    """A plugin given in this process: from a file, by module name, or as an object."""

    name: str
    source: str  # the file's resolved path, the module's name, or where the object is from
    plugin: object  # what pluggy registers: a module, or an object with hook implementations
    digest: str  # SHA-256 of its file (or source); "" when neither can be read


#: The plugins given in this process, by name, in the order given.
_LOCAL: dict[str, _Local] = {}
#: The registry :func:`register` built and checked, for :func:`get_registry` to take.
_validated: Registry | None = None
_LOCK = threading.RLock()

#: What a plugin's name may hold: it is written in signatures (``plugins:NAME@...``).
_PLUGIN_NAME = re.compile(r"[\w.+-]{1,100}")
_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def is_plugin_file(spec: str | os.PathLike[str]) -> bool:
    """Whether a ``--plugin``/``plugins:`` entry is a file (else a module name)."""
    text = os.fspath(spec)
    return text.endswith(".py") or "/" in text or os.sep in text


def is_module_name(spec: str) -> bool:
    """Whether ``spec`` is a module name (``package.module``)."""
    return _MODULE_NAME.fullmatch(spec) is not None


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
        local = _identify(plugin, name)
        old = _LOCAL.get(local.name)
        if old is not None and (
            old.plugin is plugin
            or (old.source, old.digest) == (local.source, local.digest)
            or (isinstance(plugin, str) and not is_plugin_file(plugin) and old.source == plugin)
        ):
            return old.name  # the same file unchanged, the same module or object
        registry = get_registry()
        info = registry.plugins.get(local.name)
        if info is not None and info.digest is None:
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
            module = _import_module(local)
            local = replace(local, plugin=module, digest=_digest(module))
        elif isinstance(plugin, (str, os.PathLike)):
            local = replace(local, plugin=_import_file(local))
        new = registry.copy()
        loader = _Loader(new, strict=True)
        if old is not None:
            loader.forget(old.name)
        loader.add(local)
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
        _Loader(new).forget(name)
        _serve(new)


def _serve(registry: Registry) -> None:
    """Make ``registry`` the one :func:`get_registry` returns from now on."""
    global _validated
    _validated = registry
    get_registry.cache_clear()
    get_registry()  # takes it: a later cache_clear() (tests) loads afresh


def _identify(plugin: object, name: str | None) -> _Local:
    """The name, source and digest of what :func:`register` was given (nothing
    imported yet: a module name is imported, a file read, only when it is new)."""
    if isinstance(plugin, (str, os.PathLike)) and is_plugin_file(plugin):
        given = os.fspath(plugin)
        path = Path(given).expanduser()
        if not path.is_file():
            raise PluginError(f"plugin file {given} not found")
        source = str(path.resolve())
        local = _Local(name or path.stem, source, None, _sha256_file(source))
    elif isinstance(plugin, str):
        if not is_module_name(plugin):
            raise PluginError(
                f"plugin {plugin!r} is neither a .py file nor a module name (package.module)"
            )
        local = _Local(name or plugin, plugin, None, "")
    elif isinstance(plugin, ModuleType):
        file = getattr(plugin, "__file__", None)
        local = _Local(name or plugin.__name__, file or plugin.__name__, plugin, _digest(plugin))
    else:
        owner = plugin if inspect.isclass(plugin) else type(plugin)
        source = f"{owner.__module__}.{owner.__qualname__}"
        default = getattr(plugin, "__name__", None) or owner.__name__
        local = _Local(name or default, source, plugin, _digest(owner))
    if not isinstance(local.name, str) or not _PLUGIN_NAME.fullmatch(local.name):
        raise PluginError(
            f"plugin {local.name!r} ({local.source}): a plugin's name holds letters, "
            "digits and . _ + - only; rename it"
        )
    return local


def _import_module(local: _Local) -> ModuleType:
    try:
        module = importlib.import_module(local.source)
    except Exception as error:
        raise PluginError(
            f"plugin {local.name!r} ({local.source}) failed to import: {_describe(error)}"
        ) from None
    return module


def _import_file(local: _Local) -> ModuleType:
    """The file's module, imported afresh (as ``meteorx_plugin_NAME``: its own name could
    clash with an installed module)."""
    module_name = f"meteorx_plugin_{local.name}"
    spec = importlib.util.spec_from_file_location(module_name, local.source)
    if spec is None or spec.loader is None:
        raise PluginError(f"plugin {local.name!r} ({local.source}) is not a Python file")
    module = importlib.util.module_from_spec(spec)
    previous = sys.modules.get(module_name)
    sys.modules[module_name] = module  # dataclasses and pickle look their module up there
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        if previous is None:
            del sys.modules[module_name]
        else:
            sys.modules[module_name] = previous
        raise PluginError(
            f"plugin {local.name!r} ({local.source}) failed to import: {_describe(error)}"
        ) from None
    return module


def _describe(error: BaseException) -> str:
    from meteorx.config import describe_error

    return describe_error(error)


def _sha256_file(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as error:
        raise PluginError(f"cannot read plugin file {path}: {error.strerror or error}") from None


def _digest(obj: object) -> str:
    """SHA-256 of the file defining ``obj`` (a module or a class), else of its source
    (a notebook's cell), else ""."""
    try:
        file = inspect.getsourcefile(obj)  # type: ignore[arg-type]
    except TypeError:  # built in
        file = None
    if file is not None and os.path.isfile(file):
        return _sha256_file(file)
    try:
        text = inspect.getsource(obj)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return ""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
