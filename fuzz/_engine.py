"""The ``--engine compiled|python`` option both fuzz targets take.

It sets ``METEORX_ENGINE`` (``c`` or ``python``) before meteorx is imported: the engine
seam (:mod:`meteorx.engine`) then runs every pure-Python twin, exactly as an install
built without a C compiler does, or refuses to run without the compiled modules.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def take_engine_option(argv: list[str]) -> str:
    """Remove ``--engine X`` / ``--engine=X`` from ``argv`` (libFuzzer reads the rest)
    and return X (default ``compiled``)."""
    engine = "compiled"
    rest = argv[:1]
    args = iter(argv[1:])
    for arg in args:
        if arg == "--engine":
            engine = next(args, "")
        elif arg.startswith("--engine="):
            engine = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    if engine not in ("compiled", "python"):
        raise SystemExit(f"--engine is compiled or python, not {engine!r}")
    argv[:] = rest
    return engine


def use_engine(engine: str) -> None:
    """Make meteorx run on ``engine`` (call before importing it)."""
    os.environ["METEORX_ENGINE"] = "c" if engine == "compiled" else "python"


def fuzz(setup: Callable[[str], None], check: Callable[[bytes], None]) -> None:
    """Run a target under atheris: ``--engine`` taken from the command line, meteorx
    instrumented while ``setup(engine)`` imports it, then libFuzzer on ``check``."""
    import atheris

    argv = list(sys.argv)
    engine = take_engine_option(argv)
    use_engine(engine)
    with atheris.instrument_imports(include=["meteorx", "meteorx_plugins"]):
        setup(engine)
    atheris.Setup(argv, check)
    atheris.Fuzz()
