"""First-party plugin ``paraphrase``: the ``paraphrase`` matcher (Meteor paraphrase tables).

The plugin owns everything about paraphrase tables, one concern per module:

``locate``
    where a table is found, and the tables ``meteorx resources install`` knows;
``text_format``
    reading Meteor's ``paraphrase-<lang>.gz`` text;
``compiler``
    compiling a table into its compiled form in the user cache folder (once: about
    2-3 s for the English table on a small machine): the fast and general paths;
``sorted_scan``
    the fast path's reading of a sorted table, whole decompressed blocks at a time;
``key_index``
    the index of phrases and their prefixes (both paths build it);
``byte_arrays``
    the array operations over lines of bytes that the fast path uses;
``compiled_file``
    the compiled form: its layout, its name (a fingerprint of the source), writing it;
``table``
    opening the compiled form (milliseconds) and the table model the matcher reads;
``matcher``
    the matcher, in plain Python (the definition);
``_phrase_lookup``
    its compiled twin (``_phrase_lookup.pyx``), reached only through
    :func:`meteorx.engine.compiled`.

The signature names the table by its SHA-256. This module imports ``matcher`` and
``locate`` only (cheap: the table modules and ``numpy`` load when a matcher is built)
and re-exports their public names.
"""

from __future__ import annotations

from collections.abc import Callable

from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.matchers import Matcher
from meteorx.registry import LanguageResource, ResourceKind
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


def _language_resources(language: Language) -> list[LanguageResource]:
    """The table the ``paraphrase`` stage reads, for English (pycocoevalcap's) and the
    languages Meteor 1.5 has a table for (installable)."""
    if language.code != "en" and language.code not in METEOR15_TABLES:
        return []
    install = None if language.code == "en" else resource_name(language)
    return [LanguageResource("paraphrase", lambda: find_paraphrase_table(language).origin, install)]


@hookimpl
def meteorx_register_resources(register: Callable[[str, ResourceKind], None]) -> None:
    register(
        "paraphrase",
        ResourceKind(
            names="paraphrase-<code> for Meteor 1.5's tables",
            spec=paraphrase_resource,
            listed=known_resources,
            needed=_language_resources,
        ),
    )
