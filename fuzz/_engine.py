"""The ``--engine compiled|python`` option both fuzz targets take.

``python`` blocks meteorx's compiled modules before meteorx is imported, so every
fallback runs exactly as in an installation built without a C compiler; ``compiled``
refuses to run without them.
"""

from __future__ import annotations

import importlib.util
import sys

COMPILED = (
    "meteorx._fastpath",
    "meteorx._paraphrase",
    "meteorx._transfer",
    "meteorx.align._fast",
    "meteorx.tokenizers._norm",
)


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
    """Make the coming imports of meteorx use ``engine`` (call before importing it)."""
    if engine == "python":
        for name in COMPILED:
            sys.modules[name] = None  # type: ignore[assignment]  # import fails: fallback
    elif any(importlib.util.find_spec(name) is None for name in COMPILED):
        raise SystemExit("the C extensions are not built (python setup.py build_ext --inplace)")
