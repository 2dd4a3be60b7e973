"""Build hook for the one optional C extension, ``meteorx.align._fast``.

Everything else is configured in ``pyproject.toml``. The extension holds the compiled
twins of the two alignment searches (``meteorx/align/_fast.pyx``). It is optional on
purpose: without Cython or without a C compiler the install still succeeds (with a
warning) and the aligners use their pure-Python twins, which return the same
alignments, only slower.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from setuptools import Extension, setup


def _extensions() -> list[Extension]:
    source = "meteorx/align/_fast.pyx"
    try:
        from Cython.Build import cythonize
    except ImportError:
        if Path("meteorx/align/_fast.c").is_file():  # an sdist ships the generated C
            return [Extension("meteorx.align._fast", ["meteorx/align/_fast.c"], optional=True)]
        warnings.warn("Cython not found: meteorx.align._fast is not built", stacklevel=1)
        return []
    try:
        extensions = cythonize(
            [Extension("meteorx.align._fast", [source])],
            compiler_directives={"language_level": "3"},
            quiet=True,
        )
    except Exception as error:  # a Cython error must not break the install either
        warnings.warn(f"meteorx.align._fast is not built: {error}", stacklevel=1)
        return []
    for extension in extensions:
        # A failed compile (no compiler, no Python headers) skips the extension
        # instead of failing the install. (Set after cythonize, which drops it.)
        extension.optional = True
    return list(extensions)


setup(ext_modules=_extensions())
