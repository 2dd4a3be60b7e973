"""Where WordNet 3.0 is found: the one search order every WordNet user of meteorx follows.

First found wins:

1. an explicit path (the ``synonym`` stage's ``path:``, the ``wordnet-nltk`` stage's
   ``wordnet_dir``, the ``wordnet_dir`` argument of the NLTK functions);
2. ``$METEORX_WORDNET`` (set on purpose: an unusable value is an error, no fallback);
3. WordNet's own variables: ``$WNSEARCHDIR``, then ``$WNHOME/dict``;
4. NLTK's data folders: ``corpora/wordnet/`` or ``corpora/wordnet.zip`` under each
   entry of NLTK's data path (what ``nltk.download("wordnet")`` installs);
5. system packages: ``/usr/share/wordnet`` (Debian/Ubuntu ``wordnet-base``),
   ``/usr/local/share/wordnet``, ``/usr/share/WordNet-3.0/dict``,
   ``/usr/local/WordNet-3.0/dict``, ``/opt/local/share/WordNet-3.0/dict``;
6. the Meteor 1.5 jar that ``pycocoevalcap`` (a meteorx dependency) installs: its
   ``synonym/english.*`` files are WordNet 3.0 as the jar reads it, parts of speech
   merged. Meteor 1.5's own lookup takes it *first* (after 1 and 2: the jar's data,
   the same numbers on every machine); what needs parts of speech (WordNet's
   ``morphy``, NLTK's synsets) never takes it.

A folder counts when it holds the index files (``index.{noun,verb,adj,adv}``; given a
parent, its ``dict/`` or ``wordnet/`` folder is taken), a zip when a folder in it does;
the NLTK mode also needs the ``data.*`` files (lemma names of synsets).
"""

from __future__ import annotations

import itertools
import os
import re
import sys
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Literal

from meteorx.resources import Located, locate
from meteorx_plugins.function_words import meteor_jar_path

__all__ = [
    "INSTALL_HINT",
    "WORDNET_ENV",
    "JarOrder",
    "WordNetFiles",
    "find_wordnet",
    "nltk_data_path",
    "search_list",
]

#: Environment variable naming a WordNet database folder (or NLTK's wordnet.zip).
WORDNET_ENV = "METEORX_WORDNET"

INSTALL_HINT = (
    "'pip install pycocoevalcap' (a meteorx dependency: its Meteor 1.5 jar holds WordNet "
    "3.0), or install it with 'apt-get install wordnet-base', or 'pip install nltk' then "
    "'python -m nltk.downloader wordnet', or set METEORX_WORDNET to a WordNet 3.0 "
    "database folder"
)

#: The hint when the lookup needs parts of speech (``morphy``), which the jar's copy lacks.
FULL_DATABASE_HINT = (
    "the 'morphy' lookup (meteor-2005, nltk) needs a full WordNet 3.0 database with parts "
    "of speech, which the Meteor 1.5 jar's copy does not have; install one with "
    "'python -m nltk.downloader wordnet' (or 'apt-get install wordnet-base'), or set "
    "METEORX_WORDNET to a WordNet 3.0 database folder"
)

#: WordNet's parts of speech, in the order their index is encoded in synset ids
#: (NLTK's POS_LIST order; adjective satellites are reached through "a").
POS_TAGS: tuple[str, ...] = ("n", "v", "a", "r")
POS_NAMES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
INDEX_FILES: tuple[str, ...] = tuple(f"index.{POS_NAMES[p]}" for p in POS_TAGS)
EXCEPTION_FILES: tuple[str, ...] = tuple(f"{POS_NAMES[p]}.exc" for p in POS_TAGS)
DATA_FILES: tuple[str, ...] = tuple(f"data.{POS_NAMES[p]}" for p in POS_TAGS)

#: WordNet 3.0 as Meteor 1.5's jar holds it (with WordNet's licence, COPYING.WORDNET):
#: lemma / synset-offset lines and inflected-form / base-form lines, parts of speech
#: merged, exactly the data the jar's synonym module reads.
JAR_SYNSETS = "synonym/english.synsets"
JAR_EXCEPTIONS = "synonym/english.exceptions"
JAR_ORIGIN = "Meteor 1.5 jar (pycocoevalcap)"

_SYSTEM_DIRS = (
    ("/usr/share/wordnet", "wordnet-base"),
    ("/usr/local/share/wordnet", "system"),
    ("/usr/share/WordNet-3.0/dict", "system"),
    ("/usr/local/WordNet-3.0/dict", "system"),
    ("/opt/local/share/WordNet-3.0/dict", "system"),
)

#: Where the Meteor 1.5 jar's WordNet comes in the search: ``first`` (before NLTK's and
#: the system's: the jar's own data, for its ``meteor-1.5`` lookup), ``last`` (a
#: fallback) or ``never`` (it has no parts of speech, which ``morphy`` needs).
JarOrder = Literal["first", "last", "never"]


def zip_root(path: Path) -> str | None:
    """The folder inside a zip that holds ``index.noun`` (e.g. "wordnet/"), if any."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return None
    roots = sorted(
        (str(PurePosixPath(name).parent) for name in names
         if PurePosixPath(name).name == "index.noun"),
        key=len,
    )  # fmt: skip
    if not roots:
        return None
    root = "" if roots[0] == "." else roots[0] + "/"
    if all(root + name in names for name in INDEX_FILES):
        return root
    return None


def is_meteor_jar(path: Path) -> bool:
    """Whether ``path`` is a jar holding Meteor 1.5's WordNet files."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False
    return JAR_SYNSETS in names and JAR_EXCEPTIONS in names


def database_root(path: Path) -> Path | None:
    """The folder (or zip file) holding the database, given it or its parent."""
    if path.is_dir():
        for folder in (path, path / "dict", path / "wordnet"):
            if all((folder / name).is_file() for name in INDEX_FILES):
                return folder
        return None
    if (
        path.is_file()
        and zipfile.is_zipfile(path)
        and (zip_root(path) is not None or is_meteor_jar(path))
    ):
        return path
    return None


@dataclass(frozen=True)
class WordNetFiles:
    """The files of a located database: a folder, or a zip with one (``member`` prefix)."""

    path: Path
    origin: str  # how it was found, for messages
    member: str = ""  # folder inside a zip, e.g. "wordnet/"

    @classmethod
    def of(cls, located: Located) -> WordNetFiles:
        member = "" if located.path.is_dir() else zip_root(located.path) or ""
        return cls(located.path, located.origin, member)

    def read(self, name: str) -> bytes:
        if self.path.is_dir():
            return (self.path / name).read_bytes()
        with zipfile.ZipFile(self.path) as archive:
            return archive.read(self.member + name)

    def read_present(self, names: Iterable[str]) -> dict[str, bytes]:
        """The files among ``names`` that the database has, read (a zip opened once)."""
        if self.path.is_dir():
            files = ((name, self.path / name) for name in names)
            return {name: file.read_bytes() for name, file in files if file.is_file()}
        with zipfile.ZipFile(self.path) as archive:
            present = set(archive.namelist())
            return {
                name: archive.read(self.member + name)
                for name in names
                if self.member + name in present
            }

    def has(self, name: str) -> bool:
        return self.size(name) is not None

    def size(self, name: str) -> int | None:
        """Size in bytes of a file, or None when it is missing."""
        if self.path.is_dir():
            file = self.path / name
            return file.stat().st_size if file.is_file() else None
        with zipfile.ZipFile(self.path) as archive:
            try:
                return archive.getinfo(self.member + name).file_size
            except KeyError:
                return None

    @cached_property
    def version(self) -> str:
        """WordNet version from the ``data.adj`` licence header (e.g. ``"3.0"``)."""
        if self.path.is_dir():
            with (self.path / "data.adj").open("rb") as file:
                head = file.read(4000)
        else:
            head = self.read("data.adj")[:4000]
        found = re.search(r"Word[nN]et (\d+\+?|\d+\.\d+) Copyright", head.decode("latin-1"))
        return found.group(1) if found else "?"

    def __str__(self) -> str:
        where = f"{self.path}:{self.member}" if self.member else str(self.path)
        return f"{where} ({self.origin})"


def _check(path: Path, data: bool) -> str | None:
    if not path.exists():
        return "does not exist"
    root = database_root(path)
    if root is None:
        return (
            "is not a WordNet database (a folder with index.noun, index.verb, index.adj, "
            "index.adv and the *.exc files, or NLTK's wordnet.zip)"
        )
    if data:
        files = WordNetFiles.of(Located(root, ""))
        try:
            missing = [n for n in DATA_FILES + EXCEPTION_FILES if not files.has(n)]
        except (OSError, zipfile.BadZipFile) as error:
            return f"cannot be read: {error}"
        if missing:
            return f"lacks {', '.join(missing)} (a full WordNet 3.0 database is needed)"
    return None


def nltk_data_path() -> list[str]:
    """NLTK's data search path: ``nltk.data.path`` if NLTK is already imported, else
    the same defaults computed without importing NLTK (which takes seconds)."""
    nltk_data = sys.modules.get("nltk.data")
    if nltk_data is not None and isinstance(getattr(nltk_data, "path", None), list):
        return [str(p) for p in nltk_data.path]
    paths = [os.path.expanduser(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    if "APPENGINE_RUNTIME" not in os.environ and os.path.expanduser("~/") != "~/":
        paths.append(os.path.expanduser("~/nltk_data"))
    prefix = sys.prefix
    paths += [
        os.path.join(prefix, "nltk_data"),
        os.path.join(prefix, "share", "nltk_data"),
        os.path.join(prefix, "lib", "nltk_data"),
    ]
    if os.name == "nt":
        paths += [
            os.path.join(os.environ.get("APPDATA", "C:\\"), "nltk_data"),
            r"C:\nltk_data",
            r"D:\nltk_data",
            r"E:\nltk_data",
        ]
    else:
        paths += [
            "/usr/share/nltk_data",
            "/usr/local/share/nltk_data",
            "/usr/lib/nltk_data",
            "/usr/local/lib/nltk_data",
        ]
    return paths


def search_list() -> Iterator[tuple[Path, str]]:
    """Where WordNet is looked for when neither a path nor $METEORX_WORDNET is given
    (steps 3 to 6 of the module docstring, the jar last)."""
    for var, origin in (("WNSEARCHDIR", "$WNSEARCHDIR"), ("WNHOME", "$WNHOME/dict")):
        value = os.environ.get(var)
        if value:
            yield (Path(value) / "dict" if var == "WNHOME" else Path(value)), origin
    for entry in nltk_data_path():
        corpora = Path(entry) / "corpora"
        yield corpora / "wordnet", "NLTK data"
        yield corpora / "wordnet.zip", "NLTK data"
    for folder, origin in _SYSTEM_DIRS:
        yield Path(folder), origin
    jar = meteor_jar_path()
    if jar is not None:
        yield jar, JAR_ORIGIN


def find_wordnet(
    path: str | os.PathLike[str] | None = None,
    *,
    jar: JarOrder = "last",
    data: bool = False,
    explicit_origin: str = "option 'path'",
) -> Located:
    """Locate the WordNet database (the order of the module docstring; ``jar`` places
    the Meteor 1.5 jar's copy first, last or nowhere). ``data``: the ``data.*`` files
    are needed too (then the jar never counts). Returns the database folder or zip.

    :raises ResourceError: nothing usable found (the message says what to install).
    """
    if data:
        jar = "never"
    search: Iterable[tuple[Path, str]] = search_list()
    if jar != "last":
        search = (entry for entry in search if entry[1] != JAR_ORIGIN)
        jar_path = meteor_jar_path() if jar == "first" else None
        if jar_path is not None:
            search = itertools.chain([(jar_path, JAR_ORIGIN)], search)
    located = locate(
        "WordNet 3.0",
        check=lambda p: _check(p, data),
        explicit=path,
        explicit_origin=explicit_origin,
        env_var=WORDNET_ENV,
        search=search,
        hint=FULL_DATABASE_HINT if jar == "never" else INSTALL_HINT,
    )
    root = database_root(located.path)
    assert root is not None
    return Located(root, located.origin)
