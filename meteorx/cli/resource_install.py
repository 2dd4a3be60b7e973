"""Installing external resources into the user cache, and reading back what is installed.

Some stages read data meteorx does not ship (licences differ, files are large): the
``synonym-omw`` matcher reads an Open Multilingual Wordnet tab file per language. The
plugins say which resources they read (``meteorx_register_resources``); this module
knows them only through the plugin registry. :func:`install_resource` places such a
file in the user cache (``<cache>/resources/NAME/``, see
:func:`meteorx.resources.cache_dir`), where the plugin finds it, after checking its
format and its SHA-256 against the checksum pinned for that resource; a
``manifest.json`` next to it records the checksum, where the file came from and when
(:func:`read_manifest`, :func:`installed_resources`). The command line over it is
:mod:`meteorx.cli.resources_cmd`.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from meteorx import __version__
from meteorx.cache import CacheError, read_private, replacing
from meteorx.errors import MeteorxError, ResourceError
from meteorx.registry import Installable, get_registry
from meteorx.resources import installed_dir

__all__ = [
    "MANIFEST",
    "ResourceSpec",
    "catalogue",
    "install_resource",
    "installed_resources",
    "names_help",
    "read_manifest",
    "resource_dir",
    "resource_spec",
]

#: Name of the JSON file recording an installed resource's origin and checksum.
MANIFEST = "manifest.json"
#: What a resource name may be: lowercase letters and digits in dash-separated parts.
_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_DOWNLOAD_TIMEOUT_S = 60.0


#: What installing needs to know about a resource (the plugins declare them).
ResourceSpec = Installable


def catalogue() -> list[ResourceSpec]:
    """The resources the plugins list (``meteorx_register_resources``)."""
    return [spec for kind in get_registry().resources.values() for spec in kind.listed()]


def names_help() -> str:
    """How resources are named: ``omw-<code> for any omw-data wordnet, ...``."""
    return ", ".join(k.names for k in get_registry().resources.values() if k.names)


def resource_spec(name: str) -> ResourceSpec:
    """The resource called ``name``; :class:`MeteorxError` listing known names if none."""
    spec = get_registry().installable(name)
    if spec is None:
        known = ", ".join(s.name for s in catalogue())
        raise MeteorxError(
            f"unknown resource {name!r}; known resources: {known} (NAME: {names_help()})"
        )
    return spec


def _check_name(name: str) -> None:
    if len(name) > 64 or not _NAME.fullmatch(name):
        raise MeteorxError(
            f"invalid resource name {name[:70]!r}: lowercase letters and digits in "
            "dash-separated parts, such as omw-por"
        )


def resource_dir(name: str, *, create: bool = False) -> Path | None:
    """The folder an installed resource lives in (``None`` if the cache is disabled or
    not usable: see :func:`meteorx.cache.cache_dir`)."""
    _check_name(name)
    return installed_dir(name, create=create)


def _entry(folder: Path, name: str) -> Path:
    """``folder/name`` for writing: refused if something other than a regular file is
    there (a symbolic link would make a write land outside the folder)."""
    target = folder / name
    if target.parent != folder or name in {"", ".", ".."}:
        raise ResourceError(f"refusing to write {name!r} outside {folder}")
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return target
    if stat.S_ISLNK(mode):
        raise ResourceError(f"refusing to write {target}: it is a symbolic link")
    if not stat.S_ISREG(mode):
        raise ResourceError(f"refusing to write {target}: it is not a regular file")
    return target


def _write(folder: Path, name: str, data: bytes) -> None:
    """Replace ``folder/name`` with ``data`` through a new private file (never through
    a link)."""
    with replacing(_entry(folder, name)) as handle:
        handle.write(data)


def read_manifest(name: str) -> dict[str, Any] | None:
    """The manifest of an installed resource, or ``None`` if it is not installed."""
    folder = resource_dir(name)
    if folder is None:
        return None
    try:
        data = json.loads(read_private(folder / MANIFEST))
    except (OSError, CacheError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def installed_resources() -> list[dict[str, Any]]:
    """Manifests of every installed resource (sorted by name)."""
    root = installed_dir()
    if root is None or not root.is_dir():
        return []
    out = []
    for folder in sorted(p for p in root.iterdir() if _NAME.fullmatch(p.name) and p.is_dir()):
        manifest = read_manifest(folder.name)
        if manifest is not None and manifest.get("name") == folder.name:
            out.append(manifest)
    return out


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _is_url(source: str) -> bool:
    return source.startswith(("http://", "https://", "file://"))


def _download(url: str, target: Path, spec: ResourceSpec, explicit: bool) -> None:
    import urllib.error  # imported here: the network stack costs start-up time
    import urllib.request

    try:
        with (
            urllib.request.urlopen(url, timeout=_DOWNLOAD_TIMEOUT_S) as response,
            open(target, "wb") as handle,
        ):
            shutil.copyfileobj(response, handle)
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        hint = (
            f"if this machine is offline, download {spec.filename} elsewhere and run: "
            f"meteorx resources install {spec.name} --from FILE"
        )
        what = "could not download" if explicit else "could not download the official copy from"
        raise ResourceError(f"{what} {url} ({reason}); {hint}") from None


def _fetch(spec: ResourceSpec, source: str | None, target: Path) -> tuple[str, str]:
    """Copy or download the resource into ``target``: ``(origin, kind)``. ``source`` may
    be a folder holding the resource's file (several resources from one folder)."""
    if source is None:
        if not spec.url:
            raise ResourceError(
                f"{spec.name} has no download address: give its file with "
                f"'meteorx resources install {spec.name} --from {spec.filename}' "
                "(or --from a folder holding it)"
            )
        _download(spec.url, target, spec, explicit=False)
        return spec.url, "url"
    if _is_url(source):
        _download(source, target, spec, explicit=True)
        return source, "url"
    path = Path(os.path.expanduser(source))
    if path.is_dir():
        path = path / spec.filename
    if not path.is_file():
        raise ResourceError(
            f"--from {source}: no such file; give the path of {spec.filename} (from {spec.url})"
        )
    shutil.copyfile(path, target)
    return str(path.resolve()), "file"


def install_resource(
    name: str,
    source: str | None = None,
    *,
    force: bool = False,
    verify: bool = True,
    out: TextIO | None = None,
) -> Path:
    """Install resource ``name`` from ``source`` (file or URL; default: its official URL).

    Checks the file's format and SHA-256 (against the pinned checksum, unless
    ``verify`` is false), then places it and a manifest under the user cache.
    Returns the installed file's path.
    """
    out = out if out is not None else sys.stdout
    _check_name(name)
    spec = resource_spec(name)
    name = spec.name  # "paraphrase-german" is installed where paraphrase-de is looked for
    folder = resource_dir(name, create=True)
    if folder is None:
        raise ResourceError(
            "the meteorx user cache is disabled, not writable or not safe to use "
            "($METEORX_CACHE_DIR); enable it, or give the stage a 'path:' option instead "
            "of installing"
        )
    with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as tmp:
        staged = Path(tmp) / spec.filename
        origin, kind = _fetch(spec, source, staged)
        problem = spec.check(staged)
        if problem is not None:
            raise ResourceError(f"{origin} {problem}; it cannot be installed as {name}")
        digest = _sha256(staged)
        verified = spec.sha256 is not None and digest == spec.sha256
        if spec.sha256 is not None and not verified and verify:
            raise ResourceError(
                f"{origin} has SHA-256 {digest}, not the pinned {spec.sha256} of {name}; "
                "if it is a newer release you trust, re-run with --no-verify "
                "(its checksum is then recorded as unverified)"
            )
        previous = read_manifest(name)
        target = _entry(folder, spec.filename)
        if previous is not None and target.is_file() and not force:
            if previous.get("sha256") == digest:
                print(f"{name} is already installed (same SHA-256) at {target}", file=out)
                return target
            raise ResourceError(
                f"{name} is already installed at {target} with SHA-256 "
                f"{previous.get('sha256')}; pass --force to replace it"
            )
        os.replace(staged, target)
        licence_copied = False
        if kind == "file":
            licence = Path(origin).parent / "LICENSE"
            if licence.is_file():
                with contextlib.suppress(OSError):
                    _write(folder, "LICENSE", licence.read_bytes())
                    licence_copied = True
    manifest = {
        "name": name,
        "description": spec.description,
        "file": spec.filename,
        "sha256": digest,
        "expected_sha256": spec.sha256,
        "verified": verified,
        "source": origin,
        "source_kind": kind,
        "official_url": spec.url,
        "size": target.stat().st_size,
        "licence_file": "LICENSE" if licence_copied else None,
        "installed_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "meteorx_version": __version__,
    }
    _write(folder, MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode("utf-8"))
    status = (
        "verified against the pinned checksum"
        if verified
        else "NOT verified: no pinned checksum"
        if spec.sha256 is None
        else "NOT verified (--no-verify)"
    )
    print(f"installed {name} ({spec.description})", file=out)
    print(f"  file:   {target}", file=out)
    print(f"  sha256: {digest} ({status})", file=out)
    print(f"  from:   {origin}", file=out)
    return target
