"""The engine seam: the one place that chooses compiled or pure-Python code.

Every hot path of meteorx has a pure-Python definition and, where it pays, a compiled
twin (Cython, built at install time) that gives the same results, bit for bit. Which
one runs is decided here and nowhere else, from ``$METEORX_ENGINE``:

``auto`` (the default)
    the compiled twins where they are built. An install without them (no C compiler
    at install time) still works, more slowly, and says so once per process.
``c``
    the compiled twins, or an error naming every one that is not built.
``python``
    the pure-Python definitions everywhere (what the compiled code is tested against).

Other modules never import a compiled module themselves: they ask
:func:`compiled` for it, when they build the object that will use it (a scorer, an
aligner, a matcher), so :func:`use` can switch engines for the objects built inside
it. Plugins own their compiled code and ask for it the same way.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import warnings
from collections.abc import Iterator
from types import ModuleType

from meteorx.errors import ConfigError, MeteorxError, MeteorxWarning, cut

ENV_VAR = "METEORX_ENGINE"
CHOICES = ("auto", "c", "python")

#: The compiled modules of the core, and what each one does faster. Plugins add
#: theirs through :func:`compiled` (with a ``purpose``).
MODULES: dict[str, str] = {
    "meteorx.align._fast": "the Meteor 1.5 beam search and the optimal search",
    "meteorx._links_and_counts": "key-stage links, per-segment statistics, result records",
    "meteorx._transfer": "segment results between worker processes (--jobs)",
}


class EngineError(MeteorxError):
    """``METEORX_ENGINE=c`` was asked for, but a compiled module is not built."""


class EngineWarning(MeteorxWarning):
    """The compiled engine is not (fully) built: the pure-Python twins run."""


_override: str | None = None
_loaded: dict[str, ModuleType | None] = {}
#: why a compiled module that is there did not load (a stale or broken build)
_broken: dict[str, str] = {}
_warned: set[str] = set()


def requested() -> str:
    """The engine asked for: :func:`use`'s, else ``$METEORX_ENGINE``, else ``auto``."""
    if _override is not None:
        return _override
    value = os.environ.get(ENV_VAR, "").strip().lower() or "auto"
    if value not in CHOICES:
        raise ConfigError(f"${ENV_VAR} is one of {', '.join(CHOICES)}, not '{cut(value)}'")
    return value


def _import(name: str) -> ModuleType | None:
    if name not in _loaded:
        try:
            _loaded[name] = importlib.import_module(name)
        except ImportError as error:
            _loaded[name] = None
            if not (isinstance(error, ModuleNotFoundError) and error.name == name):
                _broken[name] = f"{type(error).__name__}: {error}"
    return _loaded[name]


def _state(name: str) -> str:
    """``not built`` or ``broken (why)`` for a module that did not load."""
    return f"broken ({_broken[name]})" if name in _broken else "not built"


def declare(name: str, purpose: str) -> None:
    """Make a plugin's compiled module known to the report (``meteorx info``) before it
    is first used; call it when the plugin module is imported (nothing is loaded)."""
    MODULES.setdefault(name, purpose)


def compiled(name: str, purpose: str | None = None) -> ModuleType | None:
    """The compiled module ``name`` when the engine in use runs compiled code, else None
    (then the caller runs its pure-Python twin).

    ``purpose`` (a plugin's module) adds it to :data:`MODULES` for the report.
    """
    if purpose is not None:
        declare(name, purpose)
    engine = requested()
    if engine == "python":
        return None
    module = _import(name)
    if module is None:
        missing = [n for n in MODULES if _import(n) is None]
        if engine == "c":
            listed = ", ".join(f"{n} ({_state(n)})" for n in missing)
            raise EngineError(
                f"${ENV_VAR}=c but these compiled modules do not load: {listed} "
                "(reinstall meteorx with a C compiler, e.g. pip install --force-reinstall "
                "--no-binary meteorx meteorx, or set METEORX_ENGINE=python)"
            )
        new = [n for n in missing if n not in _warned]
        if new:
            _warned.update(new)
            listed = ", ".join(f"{n}: {_state(n)}" for n in new)
            warnings.warn(
                f"the compiled engine is not built ({listed}): the pure-Python "
                "twins run, with the same results, several times slower (reinstall "
                "meteorx with a C compiler; set METEORX_ENGINE=python to silence this)",
                EngineWarning,
                stacklevel=2,
            )
    return module


@contextlib.contextmanager
def use(engine: str) -> Iterator[None]:
    """Run the objects built inside this block on ``engine`` (``c``, ``python`` or
    ``auto``); for tests and benchmarks that compare the two in one process."""
    global _override
    if engine not in CHOICES:
        raise ConfigError(f"the engine is one of {', '.join(CHOICES)}, not {engine!r}")
    before = _override
    _override = engine
    try:
        yield
    finally:
        _override = before


def active() -> str:
    """``c`` when every known compiled module runs, ``python`` when none does, else
    ``mixed`` (an install with some twins missing)."""
    if requested() == "python":
        return "python"
    built = [_import(n) is not None for n in MODULES]
    return "c" if all(built) else "python" if not any(built) else "mixed"


def report() -> list[tuple[str, str, str]]:
    """(module, what it speeds up, state) for every known compiled module; the state is
    ``in use``, ``built, not used`` (``python`` asked for), ``not built`` or ``broken
    (why)`` (there but failing to load: a stale build)."""
    engine = requested()
    rows = []
    for name, purpose in MODULES.items():
        if _import(name) is None:
            state = _state(name)
        else:
            state = "built, not used" if engine == "python" else "in use"
        rows.append((name, purpose, state))
    return rows


def describe() -> str:
    """One line for ``--verbose`` and ``meteorx info``."""
    engine = requested()
    rows = report()
    running = active()
    missing = [f"{name} ({state})" for name, _, state in rows if state != "in use"]
    text = f"engine: {running} (METEORX_ENGINE={engine})"
    if missing and engine != "python":
        text += f"; not loaded: {', '.join(missing)}"
    return text
