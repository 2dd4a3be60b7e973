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
3. **Compile once** with :func:`meteorx.cache.cached`: the parsed, compact form is
   stored as a data-only, checksummed file under the user cache directory
   (:func:`meteorx.cache.cache_dir`, ``platformdirs.user_cache_dir("meteorx")`` or
   ``$METEORX_CACHE_DIR``), keyed by the identity of the source, so later runs load it
   in milliseconds, a changed source is recompiled and a damaged file is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from meteorx.errors import ResourceError

__all__ = [
    "Located",
    "MissingResource",
    "installed_dir",
    "locate",
    "missing_resources_error",
    "sha256_file",
    "sha256_parts",
    "short_checksum",
]

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
    install: str | None = None,
    filename: str | None = None,
) -> Located:
    """Find a resource: ``explicit`` > ``$env_var`` > the first usable ``search`` entry.

    :param what: the resource's name, for messages ("WordNet 3.0").
    :param check: ``check(path) -> None`` if ``path`` is usable, else a short reason.
    :param explicit: a path given in the configuration; if set, it must be usable.
    :param env_var: an environment variable that, if set and non-empty, must be usable.
    :param search: ``(path, origin)`` pairs tried in order; unusable ones are skipped.
    :param hint: what to do when nothing is found (appended to the error message).
    :param install: the name ``meteorx resources install`` knows it by, if any, and
        ``filename`` the file it installs (what ``--from FOLDER`` must hold).
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
    raise MissingResource(what, hint, install, filename)


def installed_dir(name: str | None = None, *, create: bool = False) -> Path | None:
    """The user cache folder ``meteorx resources install`` puts resource ``name`` in
    (all of them without ``name``); ``None`` if the cache is disabled or not usable."""
    from meteorx.cache import cache_dir  # (a run that installs nothing needs no cache)

    return cache_dir("resources", *([name] if name else []), create=create)


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


class MissingResource(ResourceError):
    """A resource that is not installed anywhere :func:`locate` looks.

    ``what`` names it ("German paraphrase table"), ``hint`` says how to get it, and
    ``install`` is its name for ``meteorx resources install`` (``None`` if that
    command cannot install it), so that a configuration missing several resources
    can be told about all of them at once (:func:`missing_resources_error`).
    """

    def __init__(
        self, what: str, hint: str, install: str | None = None, filename: str | None = None
    ) -> None:
        super().__init__(f"{what} not found; {hint}")
        self.what = what
        self.hint = hint
        self.install = install
        self.filename = filename  # the file --from FOLDER must hold


def missing_resources_error(
    config_name: str, missing: list[tuple[str, MissingResource]]
) -> ResourceError:
    """One error naming every missing resource of a configuration (``(stage, error)``
    pairs) and the one command that installs those it can."""
    if len(missing) == 1:
        return missing[0][1]  # its own message says how to install it
    names = [m.install for _, m in missing if m.install]
    parts = [f"{m.what} (stage {stage})" for stage, m in missing]
    text = f"configuration {config_name!r} needs resources that are not installed: " + "; ".join(
        parts
    )
    if names:
        files = [m.filename for _, m in missing if m.install and m.filename]
        text += f"; install them with: meteorx resources install {' '.join(dict.fromkeys(names))}"
        if files:
            text += f" --from FOLDER (a folder holding {', '.join(dict.fromkeys(files))})"
    others = [m.hint for _, m in missing if not m.install]
    if others:
        text += "; " + "; ".join(dict.fromkeys(others))
    return ResourceError(text)
