"""A paraphrase table's compiled form: its layout, its name, and writing it.

Compiled form
-------------
A table is compiled once into one cache file (:mod:`meteorx.cache`: data only, with a
digest checked on every load) under the user cache folder, subfolder ``paraphrase-v4``,
named after a fingerprint of the source (size, mtime, gzip trailer, first 64 KiB), which
its header also records. The file holds these sections:

* *targets*: the paraphrase lines, grouped by phrase (a phrase's paraphrases keep
  their file order), decoded only when a sentence needs them;
* *group offsets*: where each phrase's group of lines starts (``uint64``);
* *keys*: every phrase and every proper prefix of one (at word boundaries), sorted,
  one per line, with a ``uint64`` *value* each: ``group << 1 | more`` where ``group``
  numbers the phrase's paraphrase group from 1 (0 for a prefix that is no phrase) and
  ``more`` says that a longer phrase starts with this key, so a left-to-right walk
  over a sentence stops as soon as no phrase can continue (Meteor 1.5 walks a trie);
* a *directory* from each first word to its run of keys (the words, one per line, and
  ``uint64`` triples: where the run starts and ends in *keys*, and its first key's
  number), and metadata (in the header) including the SHA-256 of the source file.

:func:`fingerprint` names a table's cache file; :class:`Builder` writes one, fed by
:mod:`.compiler` (the paraphrase lines as they come, the keys :mod:`.key_index` builds);
:mod:`.table` opens it.

This module imports :mod:`.key_index` (the keys it writes), :mod:`meteorx.cache` (the
cache file format), plus ``numpy``.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import IO, Any

import numpy as np

from meteorx.cache import Writer
from meteorx_plugins.paraphrase.key_index import Keys

__all__ = ["CACHE_KIND", "FORMAT_VERSION", "SECTIONS", "Builder", "fingerprint"]

#: Bump when the compiled layout changes (old cache files are then ignored).
FORMAT_VERSION = 4

#: The sections of a compiled table, in the order of the native matcher's layout.
SECTIONS = ("targets", "offsets", "keys", "values", "directory.words", "directory.runs")
#: The cache files' kind (:mod:`meteorx.cache`), also their folder's name.
CACHE_KIND = f"paraphrase-v{FORMAT_VERSION}"


class Builder:
    """Writes a compiled table: paraphrase lines as they come, the key index at the end."""

    def __init__(self, out: IO[bytes], base: int) -> None:
        out.seek(base)
        out.truncate()
        self.writer = Writer(out)
        self.writer.begin("targets")
        self.targets_len = 0
        self.offsets: list[np.ndarray] = []  # start of each group in the targets
        self.groups = 0
        self.entries = 0
        self.longest = 0
        self.key_texts: list[bytes] = []
        self.key_bytes = 0
        self.values: list[np.ndarray] = []
        self.key_count = 0
        self.singles: list[tuple[str, int, int]] = []

    def targets(self, data: bytes, starts: np.ndarray | list[int]) -> None:
        """Paraphrase lines (``\\n``-terminated) and where new groups start in them."""
        self.writer.write(data)
        self.offsets.append(np.asarray(starts, dtype=np.uint64) + np.uint64(self.targets_len))
        self.targets_len += len(data)
        self.groups += len(starts)

    def keys(self, keys: Keys, extends_before: bool = False) -> None:
        """The next keys; ``extends_before``: a longer phrase starts with the last key so far."""
        if extends_before:
            self.values[-1][-1] |= np.uint64(1)
        if not len(keys.values):
            return
        self.singles += [
            (word, number + self.key_count, offset + self.key_bytes)
            for word, number, offset in keys.singles
        ]
        self.key_texts.append(keys.text)
        self.key_bytes += len(keys.text)
        self.values.append(keys.values)
        self.key_count += len(keys.values)
        self.longest = max(self.longest, keys.longest)

    def finish(self, source: Path, key: str, sha256: str, started: float) -> dict[str, Any]:
        """Write the index sections, the header and the digest."""
        writer = self.writer
        writer.end()
        ends = np.array([self.targets_len], dtype=np.uint64)
        writer.section("offsets", np.concatenate([*self.offsets, ends]).astype(np.uint64))
        writer.section("keys", b"".join(self.key_texts))
        writer.section("values", np.concatenate([*self.values, np.zeros(0, np.uint64)]))
        # a first word's keys run from its own key to the next one-word key (a word in
        # several runs cannot happen in key order; it is listed once per run)
        singles = self.singles
        runs = np.array(
            [
                (offset, following - 1, number)
                for (_, number, offset), (_, _, following) in zip(
                    singles, [*singles[1:], ("", 0, self.key_bytes)], strict=True
                )
            ],
            dtype=np.uint64,
        ).reshape(-1, 3)
        writer.section("directory.words", "\n".join(word for word, _, _ in singles).encode())
        writer.section("directory.runs", runs)
        meta = {
            "format": FORMAT_VERSION,
            "source": os.fspath(source),
            "sha256": sha256,
            "entries": self.entries,
            "phrases": self.groups,
            "keys": self.key_count,
            "first_words": len(set(word for word, _, _ in singles)),
            "max_phrase_words": self.longest,
            "compile_seconds": round(time.perf_counter() - started, 3),
        }
        writer.finish(CACHE_KIND, key, meta)
        return meta


def fingerprint(path: str | os.PathLike[str]) -> str:
    """A cheap identity of a table file: size, mtime, gzip trailer and first 64 KiB."""
    source = Path(path)
    stat = source.stat()
    digest = hashlib.sha256(f"{FORMAT_VERSION}:{stat.st_size}:{stat.st_mtime_ns}:".encode())
    with open(source, "rb") as handle:
        digest.update(handle.read(1 << 16))
        if stat.st_size > 8:
            handle.seek(stat.st_size - 8)
            digest.update(handle.read(8))
    return digest.hexdigest()[:32]
