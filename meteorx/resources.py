"""Finding external resources, and caching what plugins compile from them.

Plugins that read a resource meteorx does not ship (WordNet, a paraphrase table, a
lemma list…) share three steps, provided here so every plugin behaves the same way:

1. **Locate** it with :func:`locate`: an explicit path (a stage option) wins, then an
   environment variable, then a list of conventional places. An explicit path or an
   environment variable that points at something unusable is an error, never silently
   skipped; a missing resource is a one-line :class:`~meteorx.errors.ResourceError`
   that says what to install.
2. **Identify** it with :func:`sha256_file` / :func:`sha256_parts`, so the scorer's
   signature can name the exact data used (:func:`short_checksum`).
3. **Compile once** with :func:`cached_build`: the parsed, compact form is pickled
   under the user cache directory (:func:`cache_dir`, ``platformdirs.user_cache_dir
   ("meteorx")`` or ``$METEORX_CACHE_DIR``), keyed by the checksum of the source, so
   later runs load it in milliseconds and a changed source is recompiled.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from meteorx.errors import ResourceError

__all__ = [
    "CACHE_ENV",
    "Located",
    "cache_dir",
    "cached_build",
    "locate",
    "sha256_file",
    "sha256_parts",
    "short_checksum",
]

#: Environment variable overriding the cache directory (``off`` disables the cache).
CACHE_ENV = "METEORX_CACHE_DIR"

T = TypeVar("T")

#: ``check(path)`` returns ``None`` when ``path`` is a usable resource, else why not.
Check = Callable[[Path], str | None]


@dataclass(frozen=True)
class Located:
    """A resource found by :func:`locate`: where it is and how it was found."""

    path: Path
    origin: str  # e.g. "option 'path'", "$METEORX_WORDNET", "search list"

    def __str__(self) -> str:
        return f"{self.path} ({self.origin})"


def _expand(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.expandvars(os.path.expanduser(os.fspath(path))))


def locate(
    what: str,
    *,
    check: Check,
    explicit: str | os.PathLike[str] | None = None,
    explicit_origin: str = "option 'path'",
    env_var: str | None = None,
    search: Iterable[tuple[Path, str]] = (),
    hint: str,
) -> Located:
    """Find a resource: ``explicit`` > ``$env_var`` > the first usable ``search`` entry.

    :param what: the resource's name, for messages ("WordNet 3.0").
    :param check: ``check(path) -> None`` if ``path`` is usable, else a short reason.
    :param explicit: a path given in the configuration; if set, it must be usable.
    :param env_var: an environment variable that, if set and non-empty, must be usable.
    :param search: ``(path, origin)`` pairs tried in order; unusable ones are skipped.
    :param hint: what to do when nothing is found (appended to the error message).
    :raises ResourceError: one line naming the failing path or what to install.
    """
    if explicit is not None and os.fspath(explicit) != "":
        path = _expand(explicit)
        reason = check(path)
        if reason is not None:
            raise ResourceError(f"{what}: {path} (from {explicit_origin}) {reason}")
        return Located(path, explicit_origin)
    if env_var:
        value = os.environ.get(env_var, "")
        if value:
            path = _expand(value)
            reason = check(path)
            if reason is not None:
                raise ResourceError(f"{what}: {path} (from ${env_var}) {reason}")
            return Located(path, f"${env_var}")
    for path, origin in search:
        if check(path) is None:
            return Located(path, origin)
    raise ResourceError(f"{what} not found; {hint}")


def sha256_file(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's contents."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def sha256_parts(parts: Iterable[tuple[str, bytes]]) -> str:
    """Hex SHA-256 of named byte strings (e.g. several files), order-independent.

    Names and lengths are hashed too, so moving bytes between parts changes the digest.
    """
    digest = hashlib.sha256()
    for name, data in sorted(parts, key=lambda part: part[0]):
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def short_checksum(digest: str, length: int = 12) -> str:
    """The first ``length`` hex digits of a digest (what signatures show)."""
    return digest[:length]


def cache_dir(*parts: str, create: bool = True) -> Path | None:
    """The user cache directory for meteorx (or a subfolder), or ``None`` if disabled.

    ``$METEORX_CACHE_DIR`` overrides ``platformdirs.user_cache_dir("meteorx")``; set it
    to ``off`` to disable caching. ``None`` is also returned when the folder cannot be
    created (read-only home…): callers then simply do not cache.
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
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
    return path


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def cached_build(
    kind: str,
    key: str,
    build: Callable[[], T],
    *,
    validate: Callable[[object], bool] | None = None,
) -> tuple[T, Path | None, bool]:
    """Load ``kind/key.pickle`` from the user cache, or ``build()`` it and store it.

    :param kind: a subfolder per resource type and format version ("wordnet-v1").
    :param key: identifies the source (typically its checksum); any text.
    :param build: compiles the resource; its result must be picklable.
    :param validate: optional sanity check of a loaded object; failing it (or a
        corrupt/unreadable file) triggers a rebuild.
    :returns: ``(object, cache file or None, loaded_from_cache)``. Writing is atomic
        (temporary file + rename) and best-effort: an unwritable cache is not an error.

    Cache files are only ever read from the current user's own cache folder, which is
    why unpickling them is acceptable.
    """
    folder = cache_dir(_safe_name(kind))
    target = folder / f"{_safe_name(key)}.pickle" if folder is not None else None
    if target is not None and target.is_file():
        try:
            with open(target, "rb") as handle:
                loaded = pickle.load(handle)
            if validate is None or validate(loaded):
                return loaded, target, True
        except Exception:  # corrupt or from an incompatible version: rebuild
            pass
    value = build()
    if target is not None:
        tmp_name = None
        try:
            with tempfile.NamedTemporaryFile(
                "wb", dir=target.parent, prefix=".tmp-", suffix=".pickle", delete=False
            ) as handle:
                tmp_name = handle.name
                pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp_name, target)
            tmp_name = None
        except OSError:
            target = None
        finally:
            if tmp_name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp_name)
    return value, target, False
