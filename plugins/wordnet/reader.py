"""Reading a WordNet database into the compact index the ``synonym`` matcher looks words up in.

:func:`load_wordnet` takes the database :func:`~meteorx_plugins.wordnet.locate.find_wordnet`
finds (a folder, NLTK's zip or the Meteor 1.5 jar's copy), reads its index and
exception files, and compiles them once into a data-only, checksummed file under the
user cache folder keyed by the SHA-256 of those files (see :mod:`meteorx.cache`).
:class:`~meteorx_plugins.wordnet.index.WordNet` answers from it: synsets of a lemma,
WordNet's ``morphy``, Meteor 1.5's base-form lookup. The signature names the database
by a checksum of its *content* (:func:`content_checksum`). NLTK's view of the same
database (lemma names of synsets, NLTK's own ``morphy``) is
:mod:`meteorx_plugins.wordnet.synsets`.
"""

from __future__ import annotations

import os
import zipfile
from array import array
from collections.abc import Mapping, Sequence
from pathlib import Path

from meteorx.cache import Record, cached
from meteorx.errors import ResourceError
from meteorx.resources import Located, sha256_parts
from meteorx_plugins.wordnet.index import (
    DETACHMENT_RULES,
    METEOR15_RULES,
    Morphology,
    WordNet,
    synset_id,
)
from meteorx_plugins.wordnet.locate import (
    EXCEPTION_FILES,
    INDEX_FILES,
    JAR_EXCEPTIONS,
    JAR_SYNSETS,
    POS_NAMES,
    POS_TAGS,
    JarOrder,
    WordNetFiles,
    find_wordnet,
)

__all__ = [
    "DETACHMENT_RULES",
    "METEOR15_RULES",
    "Morphology",
    "WordNet",
    "load_wordnet",
    "synset_id",
]

#: Bump when the compiled format changes (old cache files are then ignored).
_FORMAT = 3


def _jar_entries(path: Path) -> dict[str, bytes] | None:
    """The jar's two WordNet files (``None`` if ``path`` is not such a jar)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return {name: archive.read(name) for name in (JAR_SYNSETS, JAR_EXCEPTIONS)}
    except (OSError, zipfile.BadZipFile, KeyError):
        return None


def _meteor_jar_parts(entries: dict[str, bytes]) -> dict[str, bytes]:
    """The jar's WordNet as index and exception files: every lemma's synsets in
    ``index.noun`` (offsets without a part of speech: the jar keys synsets by offset
    alone), every inflected form's bases in ``noun.exc``; the other files empty."""
    synsets = entries[JAR_SYNSETS].decode("utf-8", "replace").splitlines()
    exceptions = entries[JAR_EXCEPTIONS].decode("utf-8", "replace").splitlines()
    index = [
        f"{lemma} n {len(offsets)} 0 {len(offsets)} 0 {' '.join(offsets)}"
        for lemma, offsets in zip(synsets[::2], (ln.split() for ln in synsets[1::2]), strict=False)
        if lemma and offsets
    ]
    bases: dict[str, list[str]] = {}  # the jar lists a base form, then its inflections
    for base, forms in zip(exceptions[::2], exceptions[1::2], strict=False):
        for form in forms.split():
            if base not in bases.setdefault(form, []):
                bases[form].append(base)
    listed = [f"{form} {' '.join(found)}" for form, found in bases.items()]
    parts = dict.fromkeys(INDEX_FILES + EXCEPTION_FILES, b"")
    parts["index.noun"] = "\n".join(index).encode("utf-8")
    parts["noun.exc"] = "\n".join(listed).encode("utf-8")
    return parts


def _read_sources(located: Located) -> dict[str, bytes]:
    """The index and exception files of a database folder or zip (missing .exc files
    are tolerated, missing index files are an error)."""
    root = located.path
    try:
        parts: dict[str, bytes] = WordNetFiles.of(located).read_present(
            INDEX_FILES + EXCEPTION_FILES
        )
    except (OSError, zipfile.BadZipFile) as error:
        raise ResourceError(f"WordNet 3.0: cannot read {root}: {error}") from error
    missing = [name for name in INDEX_FILES if name not in parts]
    if missing:
        raise ResourceError(f"WordNet 3.0: {root} has no {', '.join(missing)}")
    return parts


def _compile(parts: dict[str, bytes]) -> Record:
    """Parse the index and exception files into what the cache stores (see :func:`_decode`)."""
    lemmas: dict[str, list[int]] = {}
    for pos in POS_TAGS:
        name = f"index.{POS_NAMES[pos]}"
        index = POS_TAGS.index(pos)
        for number, line in enumerate(parts[name].decode("utf-8", "replace").splitlines(), 1):
            if not line or line.startswith(" "):
                continue  # the licence header
            fields = line.split()
            try:
                count = int(fields[2])
                offsets = [int(f) for f in fields[len(fields) - count :]] if count else []
            except (IndexError, ValueError) as error:
                raise ResourceError(f"WordNet 3.0: {name} line {number} is malformed") from error
            ids = lemmas.setdefault(fields[0], [])
            ids.extend(offset * 4 + index for offset in offsets if offset * 4 + index not in ids)
    exceptions: dict[str, dict[str, tuple[str, ...]]] = {}
    for pos in POS_TAGS:
        table: dict[str, tuple[str, ...]] = {}
        data = parts.get(f"{POS_NAMES[pos]}.exc")
        if data is not None:
            for line in data.decode("utf-8", "replace").splitlines():
                fields = line.split()
                if len(fields) >= 2:
                    old = table.get(fields[0], ())
                    table[fields[0]] = old + tuple(b for b in fields[1:] if b not in old)
        exceptions[pos] = table
    compiled = WordNet.from_lemmas(lemmas, exceptions)
    return Record(
        meta={"exceptions": exceptions, "checksum": content_checksum(lemmas, exceptions)},
        sections={
            "words": "\n".join(compiled.words).encode("utf-8"),
            "starts": compiled.starts.tobytes(),
            "ids": compiled.ids.tobytes(),
        },
    )


def content_checksum(
    lemmas: Mapping[str, Sequence[int]], exceptions: Mapping[str, Mapping[str, Sequence[str]]]
) -> str:
    """SHA-256 of what matching depends on: each synset as (POS, set of lemmas), and the
    exception lists. Offsets are left out, so the same WordNet gives the same checksum
    (and signature) whether read from Princeton's/NLTK's files or from Debian's, whose
    regenerated data files have other offsets."""
    members: dict[int, list[str]] = {}
    for word, ids in lemmas.items():
        for i in ids:
            members.setdefault(i, []).append(word)
    synsets = sorted(f"{POS_TAGS[i & 3]} {' '.join(sorted(ws))}" for i, ws in members.items())
    listed = sorted(
        f"{pos} {form} {' '.join(bases)}"
        for pos, table in exceptions.items()
        for form, bases in table.items()
    )
    text = "\n".join(["wordnet-content-v1", *synsets, "exceptions", *listed])
    return sha256_parts([("content", text.encode("utf-8"))])


_Compiled = tuple[list[str], "array[int]", "array[int]", dict[str, dict[str, tuple[str, ...]]], str]


def _decode(record: Record) -> _Compiled:
    """The lemma list, synset arrays, exception lists and content checksum of a record
    written by :func:`_compile`.

    :raises ValueError: the parts do not fit together.
    """
    text = str(record.sections["words"], "utf-8")
    words = text.split("\n") if text else []
    starts, ids = array("i"), array("i")
    starts.frombytes(record.sections["starts"])
    ids.frombytes(record.sections["ids"])
    if len(starts) != len(words) + 1 or starts[-1] != len(ids):
        raise ValueError("inconsistent compiled WordNet")
    exceptions = {
        pos: {str(form): tuple(map(str, bases)) for form, bases in table.items()}
        for pos, table in record.meta["exceptions"].items()
    }
    if set(exceptions) != set(POS_TAGS):
        raise ValueError("inconsistent compiled WordNet")
    return words, starts, ids, exceptions, str(record.meta["checksum"])


# Loaded databases of this process, keyed by location and the files' (size, mtime).
_LOADED: dict[tuple[object, ...], WordNet] = {}


def _stat_key(root: Path) -> tuple[object, ...]:
    stat = root.stat()
    key: list[object] = [str(root.resolve()), stat.st_size, stat.st_mtime_ns]
    if root.is_dir():
        for name in INDEX_FILES + EXCEPTION_FILES:
            try:
                s = (root / name).stat()
                key += [name, s.st_size, s.st_mtime_ns]
            except OSError:
                key += [name, None]
    return tuple(key)


def load_wordnet(path: str | os.PathLike[str] | None = None, *, jar: JarOrder = "last") -> WordNet:
    """Locate (see :func:`find_wordnet`), compile or load from cache, and return WordNet.

    Loaded databases are shared within the process.
    """
    located = find_wordnet(path, jar=jar)
    key = _stat_key(located.path)
    wordnet = _LOADED.get(key)
    if wordnet is not None:
        return wordnet
    # The jar's files are keyed as they are and converted only when compiling.
    entries = _jar_entries(located.path) if located.path.is_file() else None
    parts = _read_sources(located) if entries is None else entries
    data, cache_file, from_cache = cached(
        f"wordnet-v{_FORMAT}",
        sha256_parts(parts.items()),
        lambda: _compile(parts if entries is None else _meteor_jar_parts(entries)),
        _decode,
    )
    wordnet = WordNet(*data, located, cache_file, from_cache)
    if len(_LOADED) > 8:
        _LOADED.clear()
    _LOADED[key] = wordnet
    return wordnet
