"""Cache files that hold data only and are checked on every load.

What plugins compile from a resource (WordNet's index, simplemma's tables, an OMW
index, a paraphrase table) is written once under the user cache folder and read back
by later runs. What that relies on, and what it checks:

* **Data only.** A cache file is named byte sections (arrays, UTF-8 text) and a JSON
  header; reading one never runs code (no pickle, no marshal).
* **Checked.** The file carries a digest of all its bytes, and its header names the
  cache kind (with its format version), the identity of the source it was compiled
  from and the byte order. A digest or header mismatch, a truncated file or any
  decoding error makes the caller rebuild it, with one warning per file and process:
  a cache never changes a score and never stops a run.
* **Private.** A cache folder must belong to the current user and be writable by no
  one else, and a parent folder everyone can write must have the sticky bit, as
  ``/tmp`` has (:func:`cache_dir`); a folder failing that is not used (one warning)
  and resources are compiled in memory instead. Files are created private (0600) and
  replaced atomically, never written or read through a symbolic link, and must belong
  to the current user.
* **Read, not mapped.** A file is read into memory whole and verified there, so
  nothing another process does to it afterwards (truncating it, rewriting it) can
  reach the run.

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

import contextlib
import gc
import hashlib
import json
import logging
import os
import stat
import struct
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

from meteorx.errors import MeteorxWarning

__all__ = [
    "CACHE_ENV",
    "MAX_FILE_BYTES",
    "CacheError",
    "CacheFile",
    "CacheWarning",
    "Record",
    "Writer",
    "cache_dir",
    "cache_path",
    "cached",
    "compiling",
    "load",
    "parse",
    "read",
    "read_private",
    "replacing",
    "warn_once",
    "write",
]

#: Environment variable overriding the cache directory (``off`` disables the cache).
CACHE_ENV = "METEORX_CACHE_DIR"

_MAGIC = b"MXCACHE\x01"
_PREFIX = struct.Struct("<8s16s32s")  # magic, digest name, digest
_LENGTH = struct.Struct("<Q")  # the header's length, at the very end
_SUFFIX = ".mxc"
_T = TypeVar("_T")

Buffer = bytes | bytearray | memoryview


class CacheWarning(MeteorxWarning):
    """A cache file or folder that meteorx did not use (it rebuilds or compiles anew)."""


class CacheError(Exception):
    """A cache file that cannot be used; the caller rebuilds it. Never leaves meteorx."""


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


@contextlib.contextmanager
def replacing(target: Path) -> Iterator[IO[bytes]]:
    """A new private (0600) file next to ``target`` that replaces it if the block
    succeeds (``os.replace``: a symbolic link at ``target`` is replaced, not followed)
    and is deleted otherwise."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=_SUFFIX)
    try:
        with os.fdopen(fd, "w+b") as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write(target: Path, kind: str, source: str, record: Record) -> None:
    """Write ``record`` as the cache file ``target`` (atomically).

    :raises OSError: the folder is not writable.
    """
    with replacing(target) as handle:
        writer = Writer(handle)
        for name, data in record.sections.items():
            writer.section(name, data)
        writer.finish(kind, source, record.meta)


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


#: No cache file meteorx writes comes near this (the English paraphrase table's is
#: 107 MB); a larger file (a sparse one, say) is refused before any byte is read.
MAX_FILE_BYTES = 4 << 30


def _check_file(info: os.stat_result) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise CacheError("is a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise CacheError("is not a regular file")
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        raise CacheError("belongs to another user")
    if info.st_size > MAX_FILE_BYTES:
        raise CacheError(f"is larger than any cache file ({info.st_size} bytes)")


def read_private(path: Path) -> bytes:
    """The bytes of ``path``, a regular file (not a symbolic link) of the current user.

    Its type and size are checked before it is opened (a FIFO or a device is never
    opened, a huge sparse file never read), and again on the open file, which is opened
    non-blocking and without following links so that nothing swapped in meanwhile can
    hang the run.

    :raises CacheError: it is a symbolic link, not a regular file, someone else's, or
        larger than :data:`MAX_FILE_BYTES`.
    :raises OSError: it cannot be read (:class:`FileNotFoundError`: there is none).
    """
    _check_file(os.lstat(path))
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        if os.path.islink(path):
            raise CacheError("is a symbolic link") from None
        raise error
    with open(fd, "rb", buffering=0) as handle:
        _check_file(os.fstat(handle.fileno()))
        try:
            return handle.readall()
        except MemoryError:
            raise CacheError("is too large to read into memory") from None


def read(path: Path, kind: str, source: str) -> CacheFile:
    """Read and verify the cache file ``path`` (see :func:`parse`).

    :raises FileNotFoundError: there is none.
    :raises CacheError: it cannot be used (why, in a few words).
    :raises OSError: it cannot be read.
    """
    return parse(read_private(path), kind, source)


_WARNED: set[str] = set()


def warn_once(path: Path, reason: str, action: str = "rebuilding it") -> None:
    """One :class:`CacheWarning` per path and process."""
    key = os.fspath(path)
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(f"cache file {path} {reason}; {action}", CacheWarning, stacklevel=3)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Decoding makes many small containers at once: collecting them while doing so only
    costs time (a third of an OMW index's decoding)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load(target: Path, kind: str, source: str, decode: Callable[[CacheFile], _T]) -> _T | None:
    """``decode`` of the verified cache file ``target``, or ``None`` if there is none or
    it cannot be used: unreadable, not verifying (:func:`read`) or rejected by ``decode``
    (one warning; the caller rebuilds it)."""
    try:
        with _gc_paused():
            return decode(read(target, kind, source))
    except FileNotFoundError:
        pass
    except CacheError as error:
        warn_once(target, str(error))
    except OSError as error:
        warn_once(target, f"cannot be read ({error.strerror or error})")
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as error:
        warn_once(target, f"cannot be decoded ({type(error).__name__})")
    return None


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def cache_path(kind: str, source: str) -> Path | None:
    """Where ``kind``'s cache file for ``source`` goes (``None``: no usable cache folder)."""
    folder = cache_dir(_safe_name(kind))
    return folder / f"{_safe_name(source)}{_SUFFIX}" if folder is not None else None


#: A compilation lasting longer than this is announced (quick ones stay silent).
NOTICE_AFTER_SECONDS = 1.0
_ANNOUNCED = threading.Event()


@contextlib.contextmanager
def compiling(target: Path) -> Iterator[None]:
    """Around compiling a resource into the cache file ``target``: once per process, if
    it lasts over :data:`NOTICE_AFTER_SECONDS`, say so at INFO on the ``meteorx``
    logger (the command line shows it on stderr), since the first run of the English
    default compiles for seconds and would otherwise look hung."""

    def announce() -> None:
        if not _ANNOUNCED.is_set():
            _ANNOUNCED.set()
            logging.getLogger("meteorx").info(
                "building the resource cache once (a few seconds; later runs load it from %s)",
                target.parent.parent,
            )

    timer = threading.Timer(NOTICE_AFTER_SECONDS, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()  # no thread left running when --jobs forks its workers


def cached(
    kind: str,
    source: str,
    build: Callable[[], Record],
    decode: Callable[[Record], _T],
) -> tuple[_T, Path | None, bool]:
    """Load ``kind``'s cache file for ``source``, or build it and store it.

    :param kind: a subfolder per resource type and format version ("wordnet-v3").
    :param source: identifies the source (its checksum, or path, size, mtime and
        version); stored in the file and compared on load.
    :param build: compiles the resource into a :class:`Record`.
    :param decode: turns a record (built or read) into the object used; a cached and
        a freshly built resource go through the same ``decode``.
    :returns: ``(object, cache file or None, loaded_from_cache)``. A file that does
        not verify, or that ``decode`` rejects, is rebuilt (one warning); an unusable
        or unwritable cache folder is not an error.
    """
    target = cache_path(kind, source)
    if target is not None:
        value = load(target, kind, source, lambda file: decode(file.record()))
        if value is not None:
            return value, target, True
    with compiling(target) if target is not None else contextlib.nullcontext():
        record = build()
        with _gc_paused():
            value = decode(record)
        if target is not None:
            try:
                write(target, kind, source, record)
            except OSError:
                target = None
    return value, target, False


# -- the folder ------------------------------------------------------------------------


def _expand(path: str) -> Path:
    return Path(os.path.expandvars(os.path.expanduser(path)))


def _folder_problem(path: Path, own: bool, link: bool = True) -> str | None:
    """Why ``path`` may not be (``own``) or contain a cache folder, or ``None``.

    A cache folder must belong to the current user and be writable by no one else; a
    folder inside it may not be a symbolic link (``link=False``). A parent of the cache
    folder that everyone may write must have the sticky bit (as ``/tmp`` has), so that
    no one else can replace the cache folder.
    """
    info = path.stat() if link else path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    uid = os.geteuid()
    mode = stat.S_IMODE(info.st_mode)
    if own:
        if info.st_uid != uid:
            return "belongs to another user"
        if mode & 0o022:
            return f"is writable by other users (mode {mode:04o})"
        return None
    if mode & 0o002 and not mode & stat.S_ISVTX:
        return f"is inside a folder anyone can write (mode {mode:04o}, no sticky bit)"
    return None


def _check_folders(base: Path, path: Path) -> tuple[Path, str] | None:
    """The first unsafe folder among ``path``, its parents up to ``base`` (which must be
    the user's own) and the parents of ``base``, with the reason; ``None`` if all are
    safe. Folders not created yet are skipped."""
    own = [path, *(p for p in path.parents if p == base or base in p.parents)]
    above = Path(os.path.abspath(base)).parents
    for folder, mine in [*((p, True) for p in own), *((p, False) for p in above)]:
        try:
            problem = _folder_problem(folder, mine, link=folder == base or not mine)
        except FileNotFoundError:
            continue
        if problem is not None:
            return folder, problem
    return None


def _make_folders(base: Path, path: Path) -> None:
    """Create ``base`` and the folders down to ``path``, private to the user (0700)."""
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder = base
    for part in path.relative_to(base).parts:
        folder = folder / part
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)


_FOLDER_WARNED: set[str] = set()


def cache_dir(*parts: str, create: bool = True) -> Path | None:
    """The user cache directory for meteorx (or a subfolder), or ``None`` if not usable.

    ``$METEORX_CACHE_DIR`` overrides ``platformdirs.user_cache_dir("meteorx")``; set it
    to ``off`` to disable caching. Folders are created private to the user (0700).
    ``None`` is also returned when the folder cannot be created (read-only home…) and,
    with one warning, when it fails the ownership check (see :func:`_folder_problem`):
    callers then compile in memory and do not cache.
    """
    value = os.environ.get(CACHE_ENV, "")
    if value.lower() in {"off", "none", "0", "false"}:
        return None
    if value:
        base = _expand(value)
    else:
        import platformdirs

        base = Path(platformdirs.user_cache_dir("meteorx"))
    path = base.joinpath(*parts)
    check = _check_folders if hasattr(os, "geteuid") else lambda base, path: None
    try:
        problem = check(base, path)
        if create and problem is None:
            _make_folders(base, path)
            problem = check(base, path)
    except OSError:
        return None
    if problem is not None:
        folder, reason = problem
        if os.fspath(folder) not in _FOLDER_WARNED:
            _FOLDER_WARNED.add(os.fspath(folder))
            warnings.warn(
                f"not using the cache folder {folder}: it {reason}; meteorx caches only "
                f"in folders of yours that no one else can write (set {CACHE_ENV} to "
                "one); resources are compiled anew meanwhile",
                CacheWarning,
                stacklevel=2,
            )
        return None
    return path
