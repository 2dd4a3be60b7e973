"""Reading an OMW tab file into a lookup index, compiled once into the user cache.

The index maps lowercased one-word lemmas, their simplemma lemmas and Snowball stems,
and multi-word lemmas, to synset numbers. It is compiled into a data-only, checksummed
cache file keyed by the tab file's SHA-256 (see :mod:`meteorx.cache`), which later runs
load in well under a second.
"""

from __future__ import annotations

import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, chain
from pathlib import Path
from typing import Any

from meteorx.cache import Record, cached
from meteorx_plugins.core import snowball_stemmer
from meteorx_plugins.lemma import lemmatizer, simplemma_version

_FORMAT = "omw-index-v3"

Postings = tuple[int, ...]


@dataclass(frozen=True)
class OmwIndex:
    """A compiled wordnet: keys -> synset numbers (``synsets[n]`` is the synset id)."""

    words: dict[str, Postings]  # lowercased one-word lemmas
    bases: dict[str, Postings]  # one-word lemmas under their simplemma lemma (if different)
    stems: dict[str, Postings]  # Snowball stem of one-word lemmas
    phrases: dict[tuple[str, ...], Postings]  # lowercased multi-word lemmas
    synsets: tuple[str, ...]
    max_phrase: int
    entries: int


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c))
    )


def index_key(text: str, fold: bool) -> str:
    """How a lemma or token is looked up: NFC, lowercased, stripped (accents folded
    when asked)."""
    text = unicodedata.normalize("NFC", text.strip().lower())
    return _fold(text) if fold else text


def parse_tab(path: Path) -> Iterable[tuple[str, str]]:
    """``(synset, lemma)`` pairs of an OMW tab file (definitions and examples skipped)."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 3:
                continue
            kind = cols[1]
            if kind != "lemma" and not kind.endswith(":lemma"):
                continue
            lemma = cols[2].replace("_", " ").strip()
            if lemma:
                yield cols[0], lemma


def _build_index(
    path: Path,
    lemmatize: Callable[[str], str] | None,
    stem: Callable[[str], str] | None,
    fold: bool,
) -> OmwIndex:
    synset_ids: dict[str, int] = {}
    words: dict[str, set[int]] = {}
    bases: dict[str, set[int]] = {}
    stems: dict[str, set[int]] = {}
    phrases: dict[tuple[str, ...], set[int]] = {}
    entries = 0
    for synset, lemma in parse_tab(path):
        sid = synset_ids.setdefault(synset, len(synset_ids))
        entries += 1
        key = index_key(lemma, fold)
        parts = tuple(key.split())
        if len(parts) > 1:
            phrases.setdefault(parts, set()).add(sid)
            continue
        words.setdefault(key, set()).add(sid)
        if lemmatize is not None:
            base = index_key(lemmatize(key), fold)
            if base != key:
                bases.setdefault(base, set()).add(sid)
        if stem is not None:
            stems.setdefault(stem(key), set()).add(sid)
    synsets = tuple(sorted(synset_ids, key=synset_ids.__getitem__))
    return OmwIndex(
        words={k: tuple(sorted(v)) for k, v in words.items()},
        bases={k: tuple(sorted(v)) for k, v in bases.items()},
        stems={k: tuple(sorted(v)) for k, v in stems.items()},
        phrases={k: tuple(sorted(v)) for k, v in phrases.items()},
        synsets=synsets,
        max_phrase=max((len(k) for k in phrases), default=1),
        entries=entries,
    )


_TABLES = ("words", "bases", "stems", "phrases")


def _encode(index: OmwIndex) -> Record:
    """The index as cached: per table, its keys (one per line; a phrase's words joined
    by spaces), each key's number of postings and the postings, as ``uint32`` arrays."""
    sections: dict[str, bytes] = {}
    tables: tuple[dict[Any, Postings], ...] = (index.words, index.bases, index.stems)
    for name, table in zip(_TABLES, (*tables, index.phrases), strict=True):
        keys = [" ".join(key) if isinstance(key, tuple) else key for key in table]
        sections[f"{name}.keys"] = "\n".join(keys).encode("utf-8")
        sections[f"{name}.counts"] = array("I", map(len, table.values())).tobytes()
        sections[f"{name}.ids"] = array("I", chain.from_iterable(table.values())).tobytes()
    sections["synsets"] = "\n".join(index.synsets).encode("utf-8")
    meta = {"max_phrase": index.max_phrase, "entries": index.entries, "synsets": len(index.synsets)}
    return Record(meta=meta, sections=sections)


def _decode(record: Record) -> OmwIndex:
    def table(name: str) -> tuple[list[str], Iterator[Postings]]:
        counts = memoryview(record.sections[f"{name}.counts"]).cast("I").tolist()
        keys = str(record.sections[f"{name}.keys"], "utf-8").split("\n") if counts else []
        ids = memoryview(record.sections[f"{name}.ids"]).cast("I").tolist()
        if len(counts) != len(keys) or sum(counts) != len(ids):
            raise ValueError("inconsistent compiled wordnet index")
        ends = list(accumulate(counts))
        return keys, map(tuple, map(ids.__getitem__, map(slice, [0, *ends], ends)))

    words, bases, stems = (dict(zip(*table(name), strict=True)) for name in _TABLES[:3])
    keys, postings = table("phrases")
    count = record.meta["synsets"]
    synsets = str(record.sections["synsets"], "utf-8").split("\n") if count else []
    if len(synsets) != count:
        raise ValueError("inconsistent compiled wordnet index")
    return OmwIndex(
        words=words,
        bases=bases,
        stems=stems,
        phrases=dict(zip((tuple(key.split(" ")) for key in keys), postings, strict=True)),
        synsets=tuple(synsets),
        max_phrase=int(record.meta["max_phrase"]),
        entries=int(record.meta["entries"]),
    )


@cache
def load_index(
    path: Path, sha256: str, lemma_code: str | None, stem_algorithm: str | None, fold: bool
) -> tuple[OmwIndex, Path | None]:
    """The compiled index of a tab file (from the user cache when possible)."""
    lemmatize = lemmatizer(lemma_code) if lemma_code else None
    stem = None
    if stem_algorithm:
        stem = snowball_stemmer(stem_algorithm)
    lemma_id = f"simplemma{simplemma_version()}-{lemma_code}" if lemma_code else "nolemma"
    key = f"{sha256}-{lemma_id}-{stem_algorithm or 'nostem'}-{'fold' if fold else 'keep'}"
    index, cache_file, _ = cached(
        _FORMAT, key, lambda: _encode(_build_index(path, lemmatize, stem, fold)), _decode
    )
    return index, cache_file
