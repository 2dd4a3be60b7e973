"""The user cache folder: where cache files go, and whether a folder is safe to use.

A cache folder must belong to the current user and be writable by no one else, and a
parent folder everyone can write must have the sticky bit, as ``/tmp`` has
(:func:`cache_dir`); a folder failing that is not used (one warning) and resources are
compiled in memory instead.
"""

from __future__ import annotations

import contextlib
import os
import stat
import warnings
from pathlib import Path

from meteorx.cache.errors import CacheWarning
from meteorx.cache.layout import SUFFIX

__all__ = ["CACHE_ENV", "cache_dir", "cache_path"]

#: Environment variable overriding the cache directory (``off`` disables the cache).
CACHE_ENV = "METEORX_CACHE_DIR"


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


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def cache_path(kind: str, source: str) -> Path | None:
    """Where ``kind``'s cache file for ``source`` goes (``None``: no usable cache folder)."""
    folder = cache_dir(_safe_name(kind))
    return folder / f"{_safe_name(source)}{SUFFIX}" if folder is not None else None
