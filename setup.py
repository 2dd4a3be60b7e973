"""Build hook for the optional C extensions.

Everything else is configured in ``pyproject.toml``. ``meteorx.align._fast`` holds the
compiled twins of the two alignment searches (``meteorx/align/_fast.pyx``);
``meteorx._links_and_counts`` finds the candidate links of key stages, counts a
segment's statistics and builds result records (``meteorx/_links_and_counts.pyx``);
``meteorx_plugins.paraphrase._phrase_lookup`` does the paraphrase matcher's work
(``plugins/paraphrase/_phrase_lookup.pyx``);
``meteorx_plugins.meteor_norm._norm_tokenizer`` is Meteor 1.5's ``-norm`` tokeniser
(``plugins/meteor_norm/_norm_tokenizer.pyx``; plugins own their compiled code);
``meteorx._transfer`` moves segment results between processes
(``meteorx/_transfer.pyx``); NLTK's greedy alignment,
``meteorx_plugins.nltk_compat._greedy``, is ``plugins/nltk_compat/greedy.py``, a plain
Python module compiled as it is.
They are optional on purpose: without Cython or without a C compiler the install still
succeeds (with a warning) and the pure-Python twins run, with the same results, slower.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from setuptools import Extension, setup

MODULES = {
    "meteorx.align._fast": "meteorx/align/_fast",
    "meteorx._links_and_counts": "meteorx/_links_and_counts",
    "meteorx_plugins.paraphrase._phrase_lookup": "plugins/paraphrase/_phrase_lookup",
    "meteorx_plugins.meteor_norm._norm_tokenizer": "plugins/meteor_norm/_norm_tokenizer",
    "meteorx._transfer": "meteorx/_transfer",
    # plain Python, compiled as it is (the .py file is the fallback)
    "meteorx_plugins.nltk_compat._greedy": "plugins/nltk_compat/greedy",
}


def _extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:
        # An sdist ships the generated C.
        found = [
            Extension(name, [f"{stem}.c"], optional=True)
            for name, stem in MODULES.items()
            if Path(f"{stem}.c").is_file()
        ]
        if len(found) < len(MODULES):
            warnings.warn("Cython not found: the C extensions are not built", stacklevel=1)
        return found
    extensions: list[Extension] = []
    for name, stem in MODULES.items():
        # One module at a time: a Cython error in one must not cost the others.
        try:
            source = f"{stem}.pyx" if Path(f"{stem}.pyx").is_file() else f"{stem}.py"
            built = cythonize(
                [Extension(name, [source])],
                compiler_directives={"language_level": "3"},
                quiet=True,
            )
        except Exception as error:  # a Cython error must not break the install either
            warnings.warn(f"the C extension {name} is not built: {error}", stacklevel=1)
            continue
        extensions.extend(built)
    for extension in extensions:
        # A failed compile (no compiler, no Python headers) skips the extension
        # instead of failing the install. (Set after cythonize, which drops it.)
        extension.optional = True
    return extensions


setup(ext_modules=_extensions())
