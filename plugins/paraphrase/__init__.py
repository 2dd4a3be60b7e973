"""First-party plugin ``paraphrase``: the ``paraphrase`` matcher (Meteor paraphrase tables).

The plugin owns everything about paraphrase tables, one concern per module:

``locate``
    where a table is found, and the tables ``meteorx resources install`` knows;
``text_format``
    reading Meteor's ``paraphrase-<lang>.gz`` text;
``compiler``
    writing a table's compiled form into the user cache folder (once: about 2-3 s for
    the English table on a small machine);
``table``
    opening the compiled form (milliseconds) and the table model the matcher reads;
``matcher``
    the matcher, in plain Python (the definition);
``_native``
    its compiled twin (``_native.pyx``), reached only through
    :func:`meteorx.engine.compiled`.

The signature names the table by its SHA-256. This module imports ``matcher`` and
``locate`` only (cheap: the table modules and ``numpy`` load when a matcher is built)
and re-exports their public names.
"""

from __future__ import annotations

from collections.abc import Callable

from meteorx.hookspecs import hookimpl
from meteorx.matchers import Matcher
from meteorx_plugins.paraphrase.locate import (
    DIR_ENV,
    METEOR15_TABLES,
    ParaphraseResource,
    find_paraphrase_table,
    known_resources,
    language_env_var,
    paraphrase_resource,
    resource_name,
)
from meteorx_plugins.paraphrase.matcher import ParaphraseMatcher, ParaphraseOptions

__all__ = [
    "DIR_ENV",
    "METEOR15_TABLES",
    "ParaphraseMatcher",
    "ParaphraseOptions",
    "ParaphraseResource",
    "find_paraphrase_table",
    "known_resources",
    "language_env_var",
    "paraphrase_resource",
    "resource_name",
]


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(ParaphraseMatcher)
