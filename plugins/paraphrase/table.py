"""A loaded paraphrase table: opening its compiled form, and the model scoring reads.

Opening the compiled file reads it into memory and verifies its digest (the English
table is 107 MB: about 50 ms to read, 3 ms to check with XXH3 or 50 ms with SHA-256),
then decodes the directory only (~17 k first words); a first word's keys are read the
first time a sentence contains it. The file is read, not mapped, so that truncating or
rewriting it during a run cannot kill the run (``SIGBUS``) or change its results.

:func:`load_table` opens the cache file :mod:`.compiler` wrote (laid out as
:mod:`.compiled_file` says; compiling the table first when there is none, or it is
stale or damaged); :class:`ParaphraseTable` answers the matcher's questions (the keys
of a first word, a phrase's paraphrases) and holds the compiled matcher's state when
the engine in use runs it.

This module imports :mod:`.compiler`, :mod:`.compiled_file`, :mod:`.text_format`,
:mod:`meteorx.cache` and :mod:`meteorx.errors`; never the compiled module itself (the
matcher hands it over).
"""

from __future__ import annotations

import contextlib
import io
import os
import threading
import time
from collections.abc import Sequence
from itertools import compress, repeat
from pathlib import Path
from types import ModuleType
from typing import Any

from meteorx.cache import (
    CacheError,
    CacheFile,
    cache_path,
    compiling,
    load,
    parse,
    read,
    replacing,
)
from meteorx.errors import ResourceError
from meteorx_plugins.paraphrase.compiled_file import CACHE_KIND, SECTIONS, fingerprint
from meteorx_plugins.paraphrase.compiler import compile_table
from meteorx_plugins.paraphrase.text_format import clean_words, odd_space

__all__ = ["Group", "ParaphraseTable", "clear_loaded", "load_table"]

_MAX_GROUPS = 100_000  # decoded paraphrase groups kept in memory (of 430 k in English)

#: A phrase's paraphrases (words separated by single spaces): in table order, as a
#: set, and the most words in one of them.
Group = tuple[tuple[str, ...], frozenset[str], int]


class ParaphraseTable:
    """A compiled paraphrase table: phrase -> paraphrases, in the source file's order.

    Build it with :func:`load_table`. A first word's keys are read on first use and
    kept (in :attr:`index`); decoded paraphrase groups are kept in a bounded cache.
    """

    def __init__(
        self,
        data: bytes,
        layout: tuple[int, ...],
        directory: dict[str, Any],
        meta: dict[str, Any],
        *,
        path: Path,
        cache_path: Path | None,
        from_cache: bool,
        load_seconds: float,
    ) -> None:
        self._data = data
        self._view = memoryview(data)
        self._targets_at = layout[0]
        self._offsets = self._view[layout[2] : layout[2] + layout[3]].cast("Q")
        self._keys_at = layout[4]
        self._values = self._view[layout[6] : layout[6] + layout[7]].cast("Q")
        self._directory = directory
        self._layout = layout
        self._native: Any = None
        self._native_tried = False
        #: held around each call of the compiled state: its scratch arrays (and its
        #: interned words) serve one call at a time, whichever scorer or thread asks
        self.native_lock = threading.Lock()
        self.meta = meta
        self.path = path
        self.cache_path = cache_path
        self.from_cache = from_cache
        self.load_seconds = load_seconds
        self.max_phrase_words = int(meta["max_phrase_words"])
        #: every key (phrase or prefix) of the first words read so far -> its value
        #: (``group << 1 | more``; see :meth:`occurrences`).
        self.index: dict[str, int] = {}
        #: word -> the value of the one-word key (0: no phrase starts with the word),
        #: for every word looked up so far.
        self.firsts: dict[str, int] = {}
        #: index value -> decoded paraphrases (a bounded cache; see :meth:`group`).
        self.groups: dict[int, Group] = {}

    @property
    def sha256(self) -> str:
        """SHA-256 of the source table file."""
        return str(self.meta["sha256"])

    @property
    def entries(self) -> int:
        """Number of probability / phrase / paraphrase blocks in the file."""
        return int(self.meta["entries"])

    def __len__(self) -> int:
        return int(self.meta["phrases"])

    def __repr__(self) -> str:
        return (
            f"<ParaphraseTable {self.path} sha256:{self.sha256[:12]} "
            f"{len(self)} phrases, {self.entries} entries>"
        )

    def _read_keys(self, word: str) -> dict[str, int]:
        entry = self._directory.get(word)
        if entry is None:
            return {}
        at = self._keys_at
        runs = entry if isinstance(entry, list) else [entry]
        sub: dict[str, int] = {}
        for start, end, first in runs:
            keys = self._data[at + start : at + end].decode("utf-8").split("\n")
            values = self._values[first : first + len(keys)].tolist()
            if not sub:
                sub = dict(zip(keys, values, strict=True))
                continue
            for key, value in zip(keys, values, strict=True):  # one word in several runs
                sub[key] = sub.get(key, 0) | value
        return sub

    def first_word_index(self, word: str) -> dict[str, int]:
        """The keys starting with ``word`` (phrases and prefixes of phrases) -> value."""
        return self._read_keys(word)

    def load_word(self, word: str) -> int:
        """Read the keys starting with ``word`` into :attr:`index` (if not done yet);
        return the value of ``word`` itself (0 if no phrase starts with it)."""
        value = self.firsts.get(word)
        if value is None:
            sub = self._read_keys(word)
            if sub:
                self.index.update(sub)
            value = self.firsts[word] = sub.get(word, 0)
        return value

    def targets(self, value: int) -> tuple[str, ...]:
        """The paraphrases of the phrase whose index value is ``value``, decoded (not
        kept; :meth:`group` keeps them)."""
        group = (value >> 1) - 1
        start = self._targets_at + self._offsets[group]
        stop = self._targets_at + self._offsets[group + 1]
        text = self._data[start:stop].decode("utf-8", "replace")
        lines = text.split("\n")
        if lines and not lines[-1]:
            lines.pop()  # after the final line end
        if "" in lines:  # blank paraphrase lines
            lines = [t for t in lines if t]
        if odd_space(text):
            lines = [clean_words(t) for t in lines]
            lines = [t for t in lines if t]
        return tuple(lines)

    def group(self, value: int) -> Group:
        """The paraphrases of the phrase whose index value is ``value`` (see
        :meth:`lookup`; values come from :meth:`occurrences`), decoded once and kept."""
        found = self.groups.get(value)
        if found is None:
            targets = self.targets(value)
            most = 1 + max(map(str.count, targets, repeat(" "))) if targets else 0
            if len(self.groups) >= _MAX_GROUPS:
                self.groups.clear()
            found = self.groups[value] = (targets, frozenset(targets), most)
        return found

    def lookup(self, phrase: str) -> int:
        """The index value of ``phrase`` (see :meth:`group`): 0 if it is no phrase."""
        self.load_word(phrase.partition(" ")[0])
        value = self.index.get(phrase, 0)
        return value if value > 1 else 0

    def paraphrases(self, phrase: str) -> tuple[str, ...]:
        """The paraphrases listed for ``phrase`` (single-space separated words), in order."""
        value = self.lookup(phrase)
        return self.group(value)[0] if value else ()

    def heads(self, tokens: Sequence[str]) -> list[int]:
        """The value of each token as a one-word key (0 if no phrase starts with it),
        reading the keys of first words not seen before."""
        heads: list[int | None] = list(map(self.firsts.get, tokens))
        if None in heads:
            load = self.load_word
            heads = [
                load(token) if value is None else value
                for token, value in zip(tokens, heads, strict=True)
            ]
        return heads  # type: ignore[return-value]

    def occurrences(self, tokens: Sequence[str]) -> list[tuple[int, int, int]]:
        """Every phrase of the table in ``tokens``: ``(start, words, index value)``.

        Ordered by start, then length: the order Meteor 1.5's trie walk reports them.
        """
        found: list[tuple[int, int, int]] = []
        heads = self.heads(tokens)
        get = self.index.get
        n = len(tokens)
        for k in compress(range(n), heads):
            value = heads[k]
            key = tokens[k]
            length = 1
            while True:
                if value > 1:
                    found.append((k, length, value))
                if not value & 1 or k + length == n:
                    break
                key = f"{key} {tokens[k + length]}"
                length += 1
                value = get(key, 0)
        return found

    def native(self, module: ModuleType) -> Any:
        """The compiled matcher's state for this table (``module.NativeTable``, where
        ``module`` is the plugin's ``_phrase_lookup`` as :func:`meteorx.engine.compiled`
        gives it), made once and shared by every scorer of the process; None when it
        cannot take this table's layout.

        It interns words, keeps decoded paraphrase groups (bounded) and does the
        paraphrase matcher's per-segment work; see ``_phrase_lookup.pyx``.
        """
        if not self._native_tried:
            with _LOCK:
                if not self._native_tried:
                    native = None
                    with contextlib.suppress(ValueError):  # a layout it cannot take
                        native = module.NativeTable(self._data, self._layout, self._directory)
                    self._native = native
                    self._native_tried = True
        return self._native

    def close(self) -> None:
        """Release the table's memory views (the table is unusable afterwards)."""
        self._native = None  # it holds a view of the data
        self._native_tried = True
        self._offsets.release()
        self._values.release()
        self._view.release()


def _directory(compiled: CacheFile) -> dict[str, Any]:
    """First word -> ``(start, end, first key)`` (a list of those for a word in several
    runs), from the directory sections."""
    text = str(compiled.view("directory.words"), "utf-8")
    runs = compiled.view("directory.runs").cast("Q").tolist()
    words = text.split("\n") if runs else []
    if 3 * len(words) != len(runs):
        raise ValueError("inconsistent paraphrase table directory")
    directory: dict[str, Any] = {}
    for word, entry in zip(words, zip(runs[::3], runs[1::3], runs[2::3], strict=True), strict=True):
        previous = directory.get(word)
        if previous is None:
            directory[word] = entry
        else:
            directory[word] = [*(previous if isinstance(previous, list) else [previous]), entry]
    return directory


def _table(
    compiled: CacheFile, source: Path, cache_path: Path | None, from_cache: bool, started: float
) -> ParaphraseTable:
    """The table held by a verified cache file.

    :raises ValueError: its sections do not fit together (a rebuild is due).
    """
    layout: list[int] = []
    for name in SECTIONS[:4]:
        layout += compiled.sections[name]
    layout += [0, 0, 0, 0]  # the native matcher reads neither the directory nor the header
    offsets, values = layout[3], layout[7]
    if offsets < 8 or offsets % 8 or values % 8:
        raise ValueError("inconsistent paraphrase table sections")
    return ParaphraseTable(
        compiled.data,
        tuple(layout),
        _directory(compiled),
        compiled.meta,
        path=source,
        cache_path=cache_path,
        from_cache=from_cache,
        load_seconds=time.perf_counter() - started,
    )


_LOADED: dict[tuple[str, str, bool], ParaphraseTable] = {}
_LOCK = threading.Lock()


def load_table(path: str | os.PathLike[str], *, use_cache: bool = True) -> ParaphraseTable:
    """Load a paraphrase table, compiling it into the user cache on first use.

    A table stays loaded for the life of the process (scorers share it). The cache
    folder is :func:`meteorx.cache.cache_dir` (``$METEORX_CACHE_DIR``; ``off``
    disables it); without a usable cache the table is compiled in memory.

    :raises ResourceError: the file is missing, unreadable or malformed.
    """
    source = Path(path).expanduser()
    try:
        key = fingerprint(source)
    except OSError as error:
        raise ResourceError(f"cannot read paraphrase table {source}: {error}") from error
    with _LOCK:
        loaded = _LOADED.get((os.fspath(source), key, use_cache))
        if loaded is None:
            loaded = _load_uncached(source, key, use_cache)
            _LOADED[(os.fspath(source), key, use_cache)] = loaded
        return loaded


def clear_loaded() -> None:
    """Forget the tables loaded in this process (they are reopened on next use)."""
    with _LOCK:
        _LOADED.clear()


def _load_uncached(source: Path, key: str, use_cache: bool) -> ParaphraseTable:
    started = time.perf_counter()
    target = cache_path(CACHE_KIND, key) if use_cache else None
    if target is not None:
        table = load(
            target, CACHE_KIND, key, lambda file: _table(file, source, target, True, started)
        )
        if table is not None:
            return table
        try:
            with compiling(target), replacing(target) as handle:
                compile_table(source, handle, key)
            return _table(read(target, CACHE_KIND, key), source, target, False, started)
        except (OSError, CacheError):
            pass  # unwritable cache, or replaced meanwhile by an unusable file: in memory
    buffer = io.BytesIO()
    compile_table(source, buffer, key)
    return _table(parse(buffer.getvalue(), CACHE_KIND, key), source, None, False, started)
