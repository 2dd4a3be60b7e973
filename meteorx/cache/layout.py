"""The bytes of a cache file: layout, digest, writing (:class:`Writer`) and verifying
(:func:`parse`).

The digest guards against accidents (bit flips, truncation, a half-written file, a
file from another version), not against someone who can write the folder: they could
recompute any digest, which is why only the user's own folders are used. It is
XXH3-128 when the optional ``xxhash`` package is installed (3 ms for the 107 MB English
paraphrase table) and SHA-256 otherwise (50 ms with the CPU's SHA instructions); the
name of the digest is part of the file.

Layout::

    b"MXCACHE\\x01"   magic and layout version                         8 bytes
    digest name      b"xxh3-128" or b"sha256", NUL-padded            16 bytes
    digest           of every byte after it, NUL-padded              32 bytes
    sections         each at an offset that is a multiple of 8
    header           JSON: kind, source, byteorder, meta, sections {name: [offset, length]}
    header length    uint64, little-endian                            8 bytes
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from meteorx.cache.errors import CacheError

__all__ = ["SUFFIX", "CacheFile", "Record", "Writer", "parse"]

#: The name ending of cache files (and of the temporary files they are written to).
SUFFIX = ".mxc"

_MAGIC = b"MXCACHE\x01"
_PREFIX = struct.Struct("<8s16s32s")  # magic, digest name, digest
_LENGTH = struct.Struct("<Q")  # the header's length, at the very end

Buffer = bytes | bytearray | memoryview


# -- digests ---------------------------------------------------------------------------


def _hasher(name: str) -> Any:
    if name == "xxh3-128":
        try:
            import xxhash
        except ImportError:
            raise CacheError("written with xxhash, which is not installed") from None
        return xxhash.xxh3_128()
    if name == "sha256":
        return hashlib.sha256()
    raise CacheError("unknown digest")


def _default_digest() -> str:
    try:
        import xxhash  # noqa: F401
    except ImportError:
        return "sha256"
    return "xxh3-128"


# -- writing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """What a cache file holds: JSON-able metadata and named byte sections."""

    meta: dict[str, Any] = field(default_factory=dict)
    sections: Mapping[str, Buffer] = field(default_factory=dict)


class Writer:
    """Writes one cache file into a seekable binary file, section by section.

    Sections may be written whole (:meth:`section`) or in pieces (:meth:`begin`,
    :meth:`write`, :meth:`end`); :meth:`finish` adds the header and the digest.
    Offsets are from the start of the cache file (where ``out`` was when given).
    """

    def __init__(self, out: IO[bytes], digest: str | None = None) -> None:
        self._out = out
        self._base = out.tell()
        self._digest_name = digest or _default_digest()
        self._digest = _hasher(self._digest_name)
        self._sections: dict[str, tuple[int, int]] = {}
        self._open: tuple[str, int] | None = None
        out.write(bytes(_PREFIX.size))
        self._at = _PREFIX.size

    def _raw(self, data: Any) -> None:
        with memoryview(data) as view, view.cast("B") as raw:
            self._out.write(raw)
            self._digest.update(raw)
            self._at += raw.nbytes

    def begin(self, name: str) -> int:
        """Start section ``name`` at the next multiple of 8; returns its offset."""
        if self._open is not None or name in self._sections:
            raise ValueError(f"section {name!r} cannot start here")
        self._raw(bytes(-self._at % 8))
        self._open = (name, self._at)
        return self._at

    def write(self, data: Any) -> None:
        """Append bytes (any contiguous buffer: bytes, an array) to the open section."""
        if self._open is None:
            raise ValueError("no open section")
        self._raw(data)

    def end(self) -> tuple[int, int]:
        """Close the open section; returns its ``(offset, length)``."""
        if self._open is None:
            raise ValueError("no open section")
        name, start = self._open
        self._open = None
        self._sections[name] = (start, self._at - start)
        return self._sections[name]

    def section(self, name: str, data: Any) -> tuple[int, int]:
        """Write a whole section; returns its ``(offset, length)``."""
        self.begin(name)
        self.write(data)
        return self.end()

    def finish(self, kind: str, source: str, meta: Mapping[str, Any]) -> None:
        """Write the header and the digest (the file is complete afterwards)."""
        if self._open is not None:
            raise ValueError(f"section {self._open[0]!r} is not closed")
        header = {
            "kind": kind,
            "source": source,
            "byteorder": sys.byteorder,
            "meta": dict(meta),
            "sections": {name: list(span) for name, span in self._sections.items()},
        }
        text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
        self._raw(text)
        self._raw(_LENGTH.pack(len(text)))
        end = self._out.tell()
        self._out.seek(self._base)
        self._out.write(
            _PREFIX.pack(_MAGIC, self._digest_name.encode("ascii"), self._digest.digest())
        )
        self._out.seek(end)


# -- reading ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CacheFile:
    """A verified cache file, held in memory: ``sections`` are ``(offset, length)``
    in ``data``."""

    data: bytes
    meta: dict[str, Any]
    sections: dict[str, tuple[int, int]]

    def view(self, name: str) -> memoryview:
        """Section ``name`` without copying it."""
        start, length = self.sections[name]
        return memoryview(self.data)[start : start + length]

    def record(self) -> Record:
        return Record(self.meta, {name: self.view(name) for name in self.sections})


def parse(data: bytes, kind: str, source: str) -> CacheFile:
    """Verify a cache file's bytes: digest, kind, source, byte order, section table.

    :raises CacheError: saying what does not match.
    """
    size = len(data)
    if size < _PREFIX.size + _LENGTH.size:
        raise CacheError("truncated")
    magic, name, digest = _PREFIX.unpack_from(data, 0)
    if magic != _MAGIC:
        raise CacheError("not a meteorx cache file of this version")
    hasher = _hasher(name.rstrip(b"\0").decode("ascii", "replace"))
    with memoryview(data) as view:
        hasher.update(view[_PREFIX.size :])
    if hasher.digest().ljust(len(digest), b"\0") != digest:
        raise CacheError("checksum mismatch (corrupted or truncated)")
    (length,) = _LENGTH.unpack_from(data, size - _LENGTH.size)
    start = size - _LENGTH.size - length
    if start < _PREFIX.size:
        raise CacheError("bad header length")
    try:
        header = json.loads(data[start : size - _LENGTH.size])
    except ValueError:
        raise CacheError("unreadable header") from None
    if not isinstance(header, dict):
        raise CacheError("unreadable header")
    if header.get("kind") != kind or header.get("source") != source:
        raise CacheError("compiled from another source or version")
    if header.get("byteorder") != sys.byteorder:
        raise CacheError("written on a machine of another byte order")
    meta, table = header.get("meta"), header.get("sections")
    if not isinstance(meta, dict) or not isinstance(table, dict):
        raise CacheError("unreadable header")
    sections: dict[str, tuple[int, int]] = {}
    for key, span in table.items():
        if not (
            isinstance(span, list)
            and len(span) == 2
            and all(type(n) is int for n in span)
            and _PREFIX.size <= span[0]
            and span[0] % 8 == 0
            and 0 <= span[1] <= start - span[0]
        ):
            raise CacheError("bad section table")
        sections[key] = (span[0], span[1])
    return CacheFile(data, meta, sections)
