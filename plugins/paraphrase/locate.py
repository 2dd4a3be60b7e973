"""Finding a paraphrase table, and the tables ``meteorx resources`` can install.

A table in Meteor's format (:mod:`.text_format`) is looked up in this order: the stage
option ``path:``; ``$METEORX_PARAPHRASE_<LANG>`` (ISO code in capitals, e.g.
``METEORX_PARAPHRASE_EN``); ``$METEORX_PARAPHRASE_DIR/paraphrase-<lang>.gz`` (Meteor's file
names: ``en``, ``cz``, ``de``, ``es``, ``fr``, ...); a table installed with ``meteorx
resources install``; the English table bundled with the PyPI package ``pycocoevalcap``
(``pycocoevalcap/meteor/data/``).

This module imports :mod:`meteorx.resources`, :mod:`meteorx.languages` and
:mod:`meteorx.errors` (and the standard library): it is cheap to import, so that
``meteorx resources`` can list tables without loading one.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

from meteorx.errors import MeteorxError
from meteorx.languages import Language
from meteorx.resources import Located, installed_dir, locate

__all__ = [
    "DIR_ENV",
    "METEOR15_TABLES",
    "ParaphraseResource",
    "find_paraphrase_table",
    "known_resources",
    "language_env_var",
    "paraphrase_resource",
    "resource_name",
]

#: Environment variable naming a folder of ``paraphrase-<lang>.gz`` tables.
DIR_ENV = "METEORX_PARAPHRASE_DIR"

#: Meteor 1.5's file-name codes where they differ from ISO 639-1.
_METEOR_CODES = {"cs": "cz", "sv": "se"}


def language_env_var(language: Language) -> str:
    """The per-language variable naming a table file, e.g. ``METEORX_PARAPHRASE_EN``."""
    return f"METEORX_PARAPHRASE_{language.code.upper().replace('-', '_')}"


def _file_names(language: Language) -> list[str]:
    codes = [language.code]
    meteor = _METEOR_CODES.get(language.code)
    if meteor:
        codes.append(meteor)
    return [f"paraphrase-{code}.gz" for code in codes]


def _pycocoevalcap_data() -> Path | None:
    """``pycocoevalcap/meteor/data`` if the package is installed (it is a namespace
    package, so its location comes from ``submodule_search_locations``)."""
    try:
        spec = find_spec("pycocoevalcap")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        folder = Path(root) / "meteor" / "data"
        if folder.is_dir():
            return folder
    return None


def _search_list(language: Language) -> Iterator[tuple[Path, str]]:
    folder = os.environ.get(DIR_ENV, "")
    if folder:
        for name in _file_names(language):
            yield Path(folder).expanduser() / name, f"${DIR_ENV}"
    installed = installed_dir(resource_name(language))
    if installed is not None:
        for name in _file_names(language):
            yield installed / name, "meteorx resources install"
    data = _pycocoevalcap_data()
    if data is not None:
        for name in _file_names(language):
            yield data / name, "pycocoevalcap"


def _check(path: Path) -> str | None:
    if not path.exists():
        return "does not exist"
    if not path.is_file():
        return "is not a file"
    if not os.access(path, os.R_OK):
        return "is not readable"
    return None


def resource_name(language: Language) -> str:
    """The table's name for ``meteorx resources install`` (``paraphrase-de``)."""
    return f"paraphrase-{language.code}"


#: Languages whose paraphrase table comes with Meteor 1.5 (English: pycocoevalcap's).
METEOR15_TABLES = ("cs", "de", "es", "fr", "ru")


@dataclass(frozen=True)
class ParaphraseResource:
    """A Meteor 1.5 paraphrase table as ``meteorx resources install`` sees it: it has
    no download address of its own (it is inside the Meteor 1.5 distribution), so it is
    installed ``--from`` the file or the distribution's ``data`` folder."""

    name: str
    filename: str
    description: str
    url: str = ""
    sha256: str | None = None

    def check(self, path: Path) -> str | None:
        try:
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                lines = [handle.readline() for _ in range(3)]
        except (OSError, EOFError, UnicodeDecodeError) as error:
            return f"is not a gzip-compressed paraphrase table ({error})"
        if not lines[2]:
            return "is not a Meteor paraphrase table (probability / phrase / paraphrase lines)"
        return None


def paraphrase_resource(name: str) -> ParaphraseResource | None:
    """The installable table called ``name`` (``paraphrase-<ISO code>``), if any."""
    from meteorx.languages import resolve_language

    if not name.startswith("paraphrase-"):
        return None
    try:
        language = resolve_language(name.removeprefix("paraphrase-"))
    except MeteorxError:
        return None
    if language.code == "en":
        return None  # pycocoevalcap, a dependency, installs it
    return ParaphraseResource(
        resource_name(language),
        _file_names(language)[-1],
        f"Meteor 1.5's {language.name} paraphrase table",
    )


def known_resources() -> list[ParaphraseResource]:
    """The tables Meteor 1.5 ships, for ``meteorx resources list``."""

    return [r for c in METEOR15_TABLES if (r := paraphrase_resource(f"paraphrase-{c}"))]


def _hint(language: Language) -> str:
    if language.code == "en":
        return (
            "pip install pycocoevalcap (a meteorx dependency; it bundles the English table), "
            f"or set the stage option 'path:' or ${language_env_var(language)} to a "
            "Meteor-format paraphrase table"
        )
    return (
        f"install it with: meteorx resources install {resource_name(language)} --from FILE "
        f"(paraphrase-{_METEOR_CODES.get(language.code, language.code)}.gz from the data "
        "folder of the Meteor 1.5 distribution), or set the stage option 'path:' or "
        f"${language_env_var(language)} to a Meteor-format paraphrase table"
    )


def find_paraphrase_table(language: Language, path: str | None = None) -> Located:
    """Locate the table: ``path`` > ``$METEORX_PARAPHRASE_<LANG>`` >
    ``$METEORX_PARAPHRASE_DIR`` > pycocoevalcap's bundled table.

    :raises ResourceError: nothing usable found (one line saying how to get a table).
    """
    return locate(
        f"{language.name} paraphrase table",
        check=_check,
        explicit=path,
        env_var=language_env_var(language),
        search=_search_list(language),
        hint=_hint(language),
        install=None if language.code == "en" else resource_name(language),
        filename=_file_names(language)[-1],
    )
