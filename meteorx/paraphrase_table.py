"""Meteor paraphrase tables: reading the gzip text format and a compiled, mmap-able form.

Format (Meteor 1.5's ``paraphrase-<lang>.gz``)
----------------------------------------------
UTF-8 text, usually gzip-compressed, in blocks of three lines::

    0.0454...        <- probability (Meteor 1.5 reads and ignores it)
    000 deaths       <- phrase
    000 dead         <- paraphrase

Words are separated by spaces. Meteor 1.5 (``ParaphraseTransducer``) keeps every
block, in file order, as a one-way rule *phrase -> paraphrase*; its matcher applies
the rules in both directions. The English table shipped by the PyPI package
``pycocoevalcap`` has 5.27 M blocks and 430 k distinct phrases of 1-7 words, sorted.

Compiled form
-------------
Parsing 16 M lines takes seconds, so a table is compiled once into one file under the
user cache folder (:func:`meteorx.resources.cache_dir`, subfolder ``paraphrase-v2``)
named after a fingerprint of the source (size, mtime, gzip trailer, first 64 KiB).
The file holds:

* the *paraphrases* of each phrase as UTF-8 text, one group of ``\\n``-separated
  lines per phrase; read through ``mmap`` and decoded only when a sentence needs them;
* one small *index* per first word: a ``marshal``-ed ``dict`` from each phrase that
  starts with that word to ``(offset << 32 | length) << 1 | more``, the byte range of
  its group and whether a longer phrase starts with it; every proper prefix of a
  phrase is a key too (value 1: no group, more), so a left-to-right walk over a
  sentence stops as soon as no phrase can continue (Meteor 1.5 walks a trie);
* a top-level dict from first word to its index, and metadata (JSON) including the
  SHA-256 of the source file.

Opening the compiled file reads the top-level dict only (~17 k first words for
English, a few milliseconds); a first word's index is read the first time a sentence
contains it. Compiling streams the source through a decompression thread (zlib, or
ISA-L when the optional ``isal`` package is installed), so memory stays well below
the text's size.

Behaviour on malformed input (the jar would misbehave): blank phrase or paraphrase
lines are dropped (the jar keeps a zero-length paraphrase that matches everywhere); a
trailing incomplete block is an error (the jar crashes); tabs, form feeds and runs of
spaces separate words as they do for Java's ``StringTokenizer``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import json
import marshal
import mmap
import os
import queue
import re
import struct
import tempfile
import threading
import time
import zlib
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, groupby, islice, pairwise, repeat
from operator import itemgetter, lshift, ne
from pathlib import Path
from typing import IO, Any

from meteorx.errors import ResourceError
from meteorx.resources import cache_dir

__all__ = [
    "FORMAT_VERSION",
    "Group",
    "ParaphraseTable",
    "clear_loaded",
    "compile_table",
    "fingerprint",
    "iter_entries",
    "load_table",
]

#: Bump when the compiled layout changes (old cache files are then ignored).
FORMAT_VERSION = 2

_MAGIC = b"MXPARA\x00\x02"
# magic, format version, then (offset, length) of: paraphrase groups, per-first-word
# indexes, top-level index, metadata.
_HEADER = struct.Struct("<8sQ8Q")
_GZIP_MAGIC = b"\x1f\x8b"
_READ_BLOCK = 1 << 20  # compressed bytes per read (about 4.5 MB of text)
_CACHE_KIND = f"paraphrase-v{FORMAT_VERSION}"
_MASK32 = 0xFFFFFFFF
_MAX_GROUPS = 100_000  # decoded paraphrase groups kept in memory (of 430 k in English)

# Java's StringTokenizer (what Meteor 1.5 splits lines with) delimits on " \t\n\r\f".
_DELIMITERS = re.compile(rb"[ \t\x0c]+")
_DELIMITERS_STR = re.compile(r"[ \t\x0c]+")
_ODD_SPACE = re.compile(r"[\t\x0c]|  |^ | $", re.MULTILINE)


def _inflater() -> Any:
    """A gzip decompressor: ISA-L's (3-4x faster) when ``isal`` is installed, else zlib's."""
    try:
        module: Any = importlib.import_module("isal.isal_zlib")
        return module.decompressobj(31)
    except ImportError:
        return zlib.decompressobj(31)


# -- reading the text format -----------------------------------------------------------


def _raw_blocks(path: Path, digest: Any) -> Iterator[bytes]:
    """Decompressed (if gzip) blocks of the file; feeds ``digest`` the file's bytes.

    Concatenated gzip members are read one after the other; bytes after the last
    member that do not start another one (zero padding) are ignored, as Java's
    ``GZIPInputStream`` does. A stream cut short is an error.
    """
    with open(path, "rb") as handle:
        inflater = _inflater() if handle.read(2) == _GZIP_MAGIC else None
        handle.seek(0)
        block = handle.read(_READ_BLOCK)
        done = False  # the last member has ended and what follows is not a member
        pending = b""  # a lone first byte of the next member's header
        while block:
            digest.update(block)
            if inflater is None:
                yield block
            elif pending:
                block = pending + block
                pending = b""
            while block and not done and inflater is not None:
                if inflater.eof:
                    if len(block) < len(_GZIP_MAGIC):
                        pending = block
                        break
                    if not block.startswith(_GZIP_MAGIC):
                        done = True
                        break
                    inflater = _inflater()
                out = inflater.decompress(block)
                if out:
                    yield out
                block = inflater.unused_data if inflater.eof else b""
            block = handle.read(_READ_BLOCK)
        if inflater is not None:
            tail = inflater.flush()
            if tail:
                yield tail
            if not inflater.eof:
                raise ResourceError(f"paraphrase table {path} is truncated (incomplete gzip data)")


def _threaded(blocks: Iterator[bytes]) -> Generator[bytes, None, None]:
    """Run ``blocks`` in a thread (zlib and hashlib release the GIL) while we parse."""
    channel: queue.Queue[bytes | BaseException | None] = queue.Queue(maxsize=8)
    stop = threading.Event()

    def produce() -> None:
        try:
            for block in blocks:
                if stop.is_set():
                    return
                channel.put(block)
            channel.put(None)
        except BaseException as error:  # handed over to the consumer
            channel.put(error)

    worker = threading.Thread(target=produce, name="meteorx-paraphrase-inflate", daemon=True)
    worker.start()
    try:
        while True:
            item = channel.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        with contextlib.suppress(queue.Empty):
            while True:  # unblock a producer waiting on a full queue
                channel.get_nowait()
        worker.join(timeout=10)


def _record_lines(blocks: Iterator[bytes]) -> Generator[list[bytes], None, None]:
    """The lines of the text, in lists of whole 3-line blocks (one list per input block).

    Line ends are those of Java's ``readLine`` (``\\n``, ``\\r\\n`` or ``\\r``). Each block
    is split once; only the unfinished line at its end is carried over.
    """
    carry = b""  # the unfinished last line of the previous block
    pending: list[bytes] = []  # finished lines not yet making a whole block
    held_cr = False  # the previous block ended with "\r" (maybe half of "\r\n")
    for block in blocks:
        if held_cr:
            block = b"\r" + block
            held_cr = False
        if b"\r" in block:
            if block.endswith(b"\r"):
                block, held_cr = block[:-1], True
            block = block.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = block.split(b"\n")
        if carry:
            lines[0] = carry + lines[0]
        carry = lines.pop()
        if pending:
            lines[:0] = pending
        whole = len(lines) - len(lines) % 3
        pending = lines[whole:]
        del lines[whole:]
        if lines:
            yield lines
    if held_cr:
        pending.append(carry)
        carry = b""
    if carry:
        pending.append(carry)
    if any(line.strip() for line in pending):
        if len(pending) != 3:
            raise ResourceError(
                "paraphrase table is truncated: its last block does not have the three "
                "lines probability / phrase / paraphrase"
            )
        yield pending  # a last block without a final newline


def _clean_line(line: bytes) -> bytes:
    return b" ".join(_DELIMITERS.split(line.strip(b" \t\x0c")))


def iter_entries(path: str | os.PathLike[str]) -> Iterator[tuple[str, str, str]]:
    """Every block of a table as ``(probability, phrase, paraphrase)`` text, in file order.

    A plain reader for inspection and tests (words are single-space separated); scoring
    uses the compiled form.
    """
    for chunk in _record_lines(_raw_blocks(Path(path), hashlib.sha256())):
        lines = [_clean_line(line).decode("utf-8", "replace") for line in chunk]
        yield from zip(lines[0::3], lines[1::3], lines[2::3], strict=True)


# -- compiling -------------------------------------------------------------------------


class _Regroup(Exception):
    """The fast path cannot handle this table (phrases not contiguous, odd spacing)."""


def _compile_grouped(
    chunks: Iterator[list[bytes]], out: IO[bytes]
) -> tuple[dict[str, dict[str, int]], int, int, int]:
    """Fast path, for tables whose blocks of a phrase are adjacent (Meteor's are sorted).

    Works a chunk (~90 k blocks) at a time: one split into lines, ``groupby`` over the
    phrases (in C), one ``\\n``-joined slice of paraphrases per phrase. Raises
    :class:`_Regroup` when a phrase comes back later or has odd spacing.
    :returns: first word -> index, phrases, entries, bytes written.
    """
    subs: dict[str, dict[str, int]] = {}
    phrases = 0
    entries = 0
    offset = 0
    last_key: str | None = None
    last_start = 0
    for lines in chunks:
        src = lines[1::3]
        tgt = lines[2::3]
        del lines[:]  # the probability lines go now
        # (blank lines are not looked for here, it would cost a pass over the text: a
        # blank phrase is never looked up, a blank paraphrase is dropped when read)
        entries += len(src)
        if offset:  # separates chunks, so a group going on across them stays one range
            out.write(b"\n")
            offset += 1
        phrase_bytes: list[bytes] = []
        values: list[int] = []
        parts: list[bytes] = []
        start = 0
        at = offset
        for phrase, same in groupby(src):
            end = start + len(list(same))
            group = b"\n".join(tgt[start:end])
            start = end
            phrase_bytes.append(phrase)
            values.append(at << 32 | len(group))
            parts.append(group)
            at += len(group) + 1
        out.write(b"\n".join(parts))
        offset = at - 1
        del parts, tgt
        keys = [phrase.decode("utf-8", "replace") for phrase in phrase_bytes]
        if last_key is not None and keys[0] == last_key:  # the group goes on from the last chunk
            stop = (values[0] >> 32) + (values[0] & _MASK32)
            subs[last_key.partition(" ")[0]][last_key] = last_start << 32 | (stop - last_start)
            del keys[0], values[0]
        if not keys:
            continue
        last_key = keys[-1]
        last_start = values[-1] >> 32
        firsts = [key.partition(" ")[0] for key in keys]
        cuts = [0, *compress(range(1, len(firsts)), map(ne, firsts, islice(firsts, 1, None)))]
        cuts.append(len(firsts))
        for i, j in pairwise(cuts):
            sub = subs.get(firsts[i])
            if sub is None:
                sub = subs[firsts[i]] = {}
            size = len(sub)
            sub.update(zip(keys[i:j], values[i:j], strict=True))
            if len(sub) - size != j - i:
                raise _Regroup  # a phrase seen before: its blocks are not adjacent
        phrases += len(keys)
    if any(_ODD_SPACE.search("\n".join(sub)) for sub in subs.values()):
        raise _Regroup
    return subs, phrases, entries, offset


def _compile_any(
    chunks: Iterator[list[bytes]], out: IO[bytes]
) -> tuple[dict[str, dict[str, int]], int, int, int]:
    """General path: group blocks by phrase in memory (slower, for unsorted tables)."""
    groups: dict[str, list[bytes]] = {}
    entries = 0
    for lines in chunks:
        for phrase, paraphrase in zip(lines[1::3], lines[2::3], strict=True):
            phrase = _clean_line(phrase)
            paraphrase = _clean_line(paraphrase)
            entries += 1
            if phrase and paraphrase:
                key = phrase.decode("utf-8", "replace")
                groups.setdefault(key, []).append(paraphrase)
    subs: dict[str, dict[str, int]] = {}
    offset = 0
    for key, targets in groups.items():
        group = b"\n".join(targets)
        out.write(group)
        first = key.partition(" ")[0]
        sub = subs.get(first)
        if sub is None:
            sub = subs[first] = {}
        sub[key] = offset << 32 | len(group)
        offset += len(group)
    return subs, len(groups), entries, offset


def _finish(subs: dict[str, dict[str, int]]) -> int:
    """Make the final index values; return the longest phrase (words).

    Adds every proper prefix of a phrase as a key, and encodes each value as
    ``(offset << 32 | length) << 1 | more``, where ``more`` says that a longer phrase
    starts with this key (a prefix-only key has value 1), so a walk over a sentence can
    stop without a failed lookup.
    """
    longest = 1
    for first, sub in subs.items():
        longest = max(longest, 1 + max(map(str.count, sub, repeat(" "))))
        parents = set(map(itemgetter(0), map(str.rpartition, sub, repeat(" "))))
        parents.discard("")
        missing = parents.difference(sub)
        while missing:
            sub.update(dict.fromkeys(missing, 0))
            missing = set(map(itemgetter(0), map(str.rpartition, missing, repeat(" "))))
            missing.discard("")
            parents.update(missing)
            missing.difference_update(sub)
        encoded = dict(zip(sub, map(lshift, sub.values(), repeat(1)), strict=True))
        for parent in parents:
            encoded[parent] |= 1
        subs[first] = encoded
    return longest


@dataclass(frozen=True)
class _Compiled:
    subs: dict[str, dict[str, int]]
    meta: dict[str, Any]


def compile_table(path: str | os.PathLike[str], out: IO[bytes]) -> _Compiled:
    """Compile the table at ``path`` into ``out`` (a seekable binary file).

    :raises ResourceError: unreadable, truncated or empty table.
    """
    source = Path(path)
    started = time.perf_counter()
    base = out.tell()
    out.write(b"\0" * _HEADER.size)
    targets_at = out.tell()
    digest = hashlib.sha256()
    raw = _threaded(_raw_blocks(source, digest))
    try:
        try:
            subs, phrases, entries, targets_len = _compile_grouped(_record_lines(raw), out)
        except _Regroup:
            raw.close()
            out.seek(targets_at)
            out.truncate()
            digest = hashlib.sha256()
            raw = _threaded(_raw_blocks(source, digest))
            subs, phrases, entries, targets_len = _compile_any(_record_lines(raw), out)
    except (OSError, zlib.error, EOFError) as error:
        raise ResourceError(f"cannot read paraphrase table {source}: {error}") from error
    finally:
        raw.close()
    if not subs:
        raise ResourceError(f"paraphrase table {source} has no entries")
    longest = _finish(subs)
    subs_at = out.tell()
    top: dict[str, int] = {}
    for first, sub in subs.items():
        blob = marshal.dumps(sub)
        top[first] = (out.tell() - subs_at) << 32 | len(blob)
        out.write(blob)
    top_at = out.tell()
    out.write(marshal.dumps(top))
    meta = {
        "format": FORMAT_VERSION,
        "source": os.fspath(source),
        "sha256": digest.hexdigest(),
        "entries": entries,
        "phrases": phrases,
        "first_words": len(subs),
        "max_phrase_words": longest,
        "compile_seconds": round(time.perf_counter() - started, 3),
    }
    meta_at = out.tell()
    out.write(json.dumps(meta, sort_keys=True).encode())
    end = out.tell()
    out.seek(base)
    sections = (targets_at, subs_at, top_at, meta_at, end)
    layout = [value for start, stop in pairwise(sections) for value in (start - base, stop - start)]
    layout[1] = targets_len
    out.write(_HEADER.pack(_MAGIC, FORMAT_VERSION, *layout))
    out.seek(end)
    return _Compiled(subs, meta)


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


# -- the loaded table ------------------------------------------------------------------

#: A phrase's paraphrases (words separated by single spaces): in table order, as a
#: set, and the most words in one of them.
Group = tuple[tuple[str, ...], frozenset[str], int]


class ParaphraseTable:
    """A compiled paraphrase table: phrase -> paraphrases, in the source file's order.

    Build it with :func:`load_table`. Per-first-word indexes and paraphrase groups are
    read on first use and kept.
    """

    def __init__(
        self,
        data: bytes | mmap.mmap,
        layout: tuple[int, ...],
        top: dict[str, int],
        meta: dict[str, Any],
        *,
        path: Path,
        cache_path: Path | None,
        from_cache: bool,
        load_seconds: float,
        subs: dict[str, dict[str, int]] | None = None,
    ) -> None:
        self._data = data
        self._targets_at = layout[0]
        self._subs_at = layout[2]
        self._top = top
        self.meta = meta
        self.path = path
        self.cache_path = cache_path
        self.from_cache = from_cache
        self.load_seconds = load_seconds
        self.max_phrase_words = int(meta["max_phrase_words"])
        #: first word -> its index ({} when no phrase starts with it); filled lazily.
        self.subs: dict[str, dict[str, int]] = dict(subs) if subs is not None else {}
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

    def first_word_index(self, word: str) -> dict[str, int]:
        """The index of phrases starting with ``word`` (read from disk on first use)."""
        sub = self.subs.get(word)
        if sub is None:
            where = self._top.get(word)
            if where is None:
                sub = {}
            else:
                start = self._subs_at + (where >> 32)
                sub = marshal.loads(self._data[start : start + (where & _MASK32)])
            self.subs[word] = sub
        return sub

    def group(self, value: int) -> Group:
        """The paraphrases of the phrase whose index value is ``value`` (see
        :meth:`lookup`; values come from :meth:`occurrences`), decoded once and kept."""
        found = self.groups.get(value)
        if found is None:
            where = value >> 1
            start = self._targets_at + (where >> 32)
            text = self._data[start : start + (where & _MASK32)].decode("utf-8", "replace")
            lines = text.split("\n")
            if "" in lines:  # blank paraphrase lines
                lines = [t for t in lines if t]
            if _ODD_SPACE.search(text):
                lines = [" ".join(_DELIMITERS_STR.split(t.strip(" \t\x0c"))) for t in lines]
                lines = [t for t in lines if t]
            targets = tuple(lines)
            most = 1 + max(map(str.count, targets, repeat(" "))) if targets else 0
            if len(self.groups) >= _MAX_GROUPS:
                self.groups.clear()
            found = self.groups[value] = (targets, frozenset(targets), most)
        return found

    def lookup(self, phrase: str) -> int:
        """The index value of ``phrase`` (see :meth:`group`): 0 if it is no phrase."""
        value = self.first_word_index(phrase.partition(" ")[0]).get(phrase, 0)
        return value if value > 1 else 0

    def paraphrases(self, phrase: str) -> tuple[str, ...]:
        """The paraphrases listed for ``phrase`` (single-space separated words), in order."""
        value = self.lookup(phrase)
        return self.group(value)[0] if value else ()

    def occurrences(self, tokens: Sequence[str]) -> list[tuple[int, int, int]]:
        """Every phrase of the table in ``tokens``: ``(start, words, index value)``.

        Ordered by start, then length: the order Meteor 1.5's trie walk reports them.
        """
        found: list[tuple[int, int, int]] = []
        subs = self.subs
        n = len(tokens)
        for k in range(n):
            word = tokens[k]
            sub = subs.get(word)
            if sub is None:
                sub = self.first_word_index(word)
            if not sub:
                continue
            key = word
            length = 1
            value = sub[word]
            while True:
                if value > 1:
                    found.append((k, length, value))
                if not value & 1 or k + length == n:
                    break
                key = f"{key} {tokens[k + length]}"
                length += 1
                value = sub.get(key, 0)
        return found

    def close(self) -> None:
        """Release the mapped file (the table is unusable afterwards)."""
        if isinstance(self._data, mmap.mmap):
            self._data.close()


def _layout(data: bytes | mmap.mmap) -> tuple[int, ...]:
    if len(data) < _HEADER.size:
        raise ValueError("short file")
    magic, version, *layout = _HEADER.unpack_from(data, 0)
    if magic != _MAGIC or version != FORMAT_VERSION or layout[6] + layout[7] != len(data):
        raise ValueError("not a compiled paraphrase table of this version")
    return tuple(layout)


def _open_compiled(
    path: Path, source: Path, started: float, compiled: _Compiled | None = None
) -> ParaphraseTable:
    """Map a compiled file (its indexes are taken from ``compiled`` when just built)."""
    with open(path, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        layout = _layout(mapped)
        top = marshal.loads(mapped[layout[4] : layout[4] + layout[5]])
        meta = json.loads(mapped[layout[6] : layout[6] + layout[7]])
        if not isinstance(top, dict) or not isinstance(meta, dict):
            raise ValueError("corrupt compiled paraphrase table")
    except Exception:
        mapped.close()
        raise
    return ParaphraseTable(
        mapped,
        layout,
        top,
        meta,
        path=source,
        cache_path=path,
        from_cache=compiled is None,
        load_seconds=time.perf_counter() - started,
        subs=compiled.subs if compiled is not None else None,
    )


_LOADED: dict[tuple[str, str, bool], ParaphraseTable] = {}
_LOCK = threading.Lock()


def load_table(path: str | os.PathLike[str], *, use_cache: bool = True) -> ParaphraseTable:
    """Load a paraphrase table, compiling it into the user cache on first use.

    A table stays loaded for the life of the process (scorers share it). The cache
    folder is :func:`meteorx.resources.cache_dir` (``$METEORX_CACHE_DIR``; ``off``
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
    folder = cache_dir(_CACHE_KIND) if use_cache else None
    target = folder / f"{key}.mxpt" if folder is not None else None
    if target is not None and target.is_file():
        with contextlib.suppress(Exception):  # corrupt or stale: compile again
            return _open_compiled(target, source, started)
    if target is not None:
        tmp_name: str | None = None
        try:
            with tempfile.NamedTemporaryFile(
                "w+b", dir=target.parent, prefix=".tmp-", suffix=".mxpt", delete=False
            ) as handle:
                tmp_name = handle.name
                compiled = compile_table(source, handle)
            os.replace(tmp_name, target)
            tmp_name = None
            return _open_compiled(target, source, started, compiled)
        except OSError:
            pass  # unwritable cache: compile in memory below
        finally:
            if tmp_name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp_name)
    buffer = io.BytesIO()
    compiled = compile_table(source, buffer)
    data = buffer.getvalue()
    return ParaphraseTable(
        data,
        _layout(data),
        {},
        compiled.meta,
        path=source,
        cache_path=None,
        from_cache=False,
        load_seconds=time.perf_counter() - started,
        subs=compiled.subs,
    )
