"""Plugins given in this process, not installed: a ``.py`` file, a module name, or an
object with hook implementations (``meteorx.register``, ``--plugin``, a configuration's
``plugins:``). Here they are named, read and imported; :mod:`meteorx.registry` loads
them with the checks every plugin gets.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from meteorx.errors import PluginError

__all__ = [
    "LocalPlugin",
    "identify",
    "import_file",
    "import_module",
    "is_module_name",
    "is_plugin_file",
]


@dataclass(frozen=True, eq=False)
class LocalPlugin:
    """A plugin given in this process: from a file, by module name, or as an object."""

    name: str
    source: str  # the file's resolved path, the module's name, or where the object is from
    plugin: object  # what pluggy registers: a module, or an object with hook implementations
    digest: str  # SHA-256 of its file (or source); "" when neither can be read


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


def identify(plugin: object, name: str | None) -> LocalPlugin:
    """The name, source and digest of what :func:`meteorx.register` was given (nothing
    imported yet: a module name is imported, a file read, only when it is new)."""
    if isinstance(plugin, (str, os.PathLike)) and is_plugin_file(plugin):
        given = os.fspath(plugin)
        path = Path(given).expanduser()
        if not path.is_file():
            raise PluginError(f"plugin file {given} not found")
        source = str(path.resolve())
        local = LocalPlugin(name or path.stem, source, None, _sha256_file(source))
    elif isinstance(plugin, str):
        if not is_module_name(plugin):
            raise PluginError(
                f"plugin {plugin!r} is neither a .py file nor a module name (package.module)"
            )
        local = LocalPlugin(name or plugin, plugin, None, "")
    elif isinstance(plugin, ModuleType):
        file = getattr(plugin, "__file__", None)
        local = LocalPlugin(
            name or plugin.__name__, file or plugin.__name__, plugin, digest(plugin)
        )
    else:
        owner = plugin if inspect.isclass(plugin) else type(plugin)
        source = f"{owner.__module__}.{owner.__qualname__}"
        default = getattr(plugin, "__name__", None) or owner.__name__
        local = LocalPlugin(name or default, source, plugin, digest(owner))
    if not isinstance(local.name, str) or not _PLUGIN_NAME.fullmatch(local.name):
        raise PluginError(
            f"plugin {local.name!r} ({local.source}): a plugin's name holds letters, "
            "digits and . _ + - only; rename it"
        )
    return local


def import_module(local: LocalPlugin) -> ModuleType:
    try:
        module = importlib.import_module(local.source)
    except Exception as error:
        raise PluginError(
            f"plugin {local.name!r} ({local.source}) failed to import: {_describe(error)}"
        ) from None
    return module


def import_file(local: LocalPlugin) -> ModuleType:
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
    from meteorx.error_text import describe_error

    return describe_error(error)


def _sha256_file(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as error:
        raise PluginError(f"cannot read plugin file {path}: {error.strerror or error}") from None


def digest(obj: object) -> str:
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
