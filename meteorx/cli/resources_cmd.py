"""``meteorx resources``: install and list external resources in the user cache.

Some stages read data meteorx does not ship (licences differ, files are large): the
``synonym-omw`` matcher reads an Open Multilingual Wordnet tab file per language. The
plugins say which resources they read (``meteorx_register_resources``); this command
knows them only through the plugin registry.
``meteorx resources install NAME`` places such a file in the user cache
(``<cache>/resources/NAME/``, see :func:`meteorx.resources.cache_dir`), where the plugin
finds it, after checking its format and its SHA-256 against the checksum pinned for
that resource; a ``manifest.json`` next to it records the checksum, where the file came
from and when. ``meteorx resources list`` shows what is known and what is installed.

Resource names: ``omw-<code>`` with an omw-data wordnet code (``omw-por`` for
Portuguese, ``omw-fra``, ``omw-ita``, …). Without ``--from`` the file is downloaded
from its official address (a pinned omw-data commit on GitHub); on a machine without
internet, download it elsewhere and pass ``--from FILE``.

Wiring (in ``meteorx.cli.main.build_parser``)::

    from meteorx.cli.resources_cmd import add_parser as add_resources_parser
    add_resources_parser(sub)
"""

from __future__ import annotations

import argparse
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
    "add_parser",
    "cmd_resources_install",
    "cmd_resources_list",
    "install_resource",
    "installed_resources",
    "read_manifest",
    "resource_dir",
    "resource_spec",
]

#: Name of the JSON file recording an installed resource's origin and checksum.
MANIFEST = "manifest.json"
#: What a resource name may be: lowercase letters and digits in dash-separated parts.
_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_DOWNLOAD_TIMEOUT_S = 60.0


#: What the command needs to know about an installable resource.
ResourceSpec = Installable


def _catalogue() -> list[ResourceSpec]:
    """The resources the plugins list (``meteorx_register_resources``)."""
    return [spec for kind in get_registry().resources.values() for spec in kind.listed()]


def _names_help() -> str:
    """How resources are named: ``omw-<code> for any omw-data wordnet, ...``."""
    return ", ".join(k.names for k in get_registry().resources.values() if k.names)


def resource_spec(name: str) -> ResourceSpec:
    """The resource called ``name``; :class:`MeteorxError` listing known names if none."""
    spec = get_registry().installable(name)
    if spec is None:
        known = ", ".join(s.name for s in _catalogue())
        raise MeteorxError(
            f"unknown resource {name!r}; known resources: {known} (NAME: {_names_help()})"
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


# -- the command line ----------------------------------------------------------------------


def cmd_resources_install(args: argparse.Namespace) -> int:
    """``meteorx resources install NAME... [--from FILE|FOLDER|URL] [--force] [--no-verify]``."""
    if len(args.name) > 1 and args.source is not None and not Path(args.source).is_dir():
        raise MeteorxError("with several resources, --from must be a folder holding their files")
    for name in args.name:
        install_resource(name, args.source, force=args.force, verify=not args.no_verify)
    return 0


def cmd_resources_list(args: argparse.Namespace) -> int:
    """``meteorx resources list [--format text|json]``."""
    installed = {m.get("name"): m for m in installed_resources()}
    rows: list[dict[str, Any]] = []
    for spec in _catalogue():
        manifest = installed.pop(spec.name, None)
        rows.append(_row(spec.name, spec.description, manifest))
    for name, manifest in sorted(installed.items(), key=lambda item: str(item[0])):
        rows.append(_row(str(name), str(manifest.get("description", "")), manifest))
    if getattr(args, "format", "text") == "json":
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    root = installed_dir()
    print(f"resources folder: {root if root is not None else '(user cache disabled)'}")
    width = max(len(r["name"]) for r in rows) if rows else 8
    for r in rows:
        if r["installed"]:
            check = "verified" if r["verified"] else "unverified"
            state = f"installed  sha256 {str(r['sha256'])[:12]} ({check})  from {r['source']}"
        else:
            state = "-"
        print(f"{r['name']:<{width}}  {r['description']}\n{'':<{width}}  {state}")
    print(
        "\ninstall with: meteorx resources install NAME... [--from FILE|FOLDER|URL]  "
        f"(NAME: {_names_help()})"
    )
    return 0


def _row(name: str, description: str, manifest: dict[str, Any] | None) -> dict[str, Any]:
    folder = resource_dir(name)
    path = folder / str(manifest.get("file")) if folder is not None and manifest else None
    return {
        "name": name,
        "description": description,
        "installed": manifest is not None and path is not None and path.is_file(),
        "path": str(path) if path is not None else None,
        "sha256": manifest.get("sha256") if manifest else None,
        "verified": bool(manifest.get("verified")) if manifest else False,
        "source": manifest.get("source") if manifest else None,
        "installed_at": manifest.get("installed_at") if manifest else None,
    }


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``resources`` (with ``install`` and ``list``) to the ``meteorx`` subcommands.

    ``subparsers`` is what ``ArgumentParser.add_subparsers()`` returned. Each action
    sets ``func`` to a function taking the parsed arguments and returning an exit code.
    """
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "resources",
        help="install or list external resources (wordnets) in the user cache",
        description="Install data files that some stages read (e.g. the synonym-omw "
        "matcher's wordnets) into the meteorx user cache, with checksum verification "
        "and a manifest recording their origin; or list them.",
        epilog="examples:\n"
        "  meteorx resources install omw-por --from ~/Downloads/wn-data-por.tab\n"
        "  meteorx resources install omw-fra          (downloads from omw-data)\n"
        "  meteorx resources list",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="resources_command", metavar="ACTION")
    install = actions.add_parser(
        "install",
        help="install a resource (default source: its official download address)",
        description="Copy or download a resource into the user cache, check its format "
        "and SHA-256, and record where it came from.",
    )
    install.add_argument(
        "name", metavar="NAME", nargs="+", help="resource names, e.g. omw-por, paraphrase-de"
    )
    install.add_argument(
        "--from",
        dest="source",
        metavar="FILE|FOLDER|URL",
        help="a local file, a folder holding the resources' files, or a URL (default: the "
        "official address, for omw-*; needs internet)",
    )
    install.add_argument("--force", action="store_true", help="replace an installed copy")
    install.add_argument(
        "--no-verify",
        action="store_true",
        help="accept a file whose SHA-256 differs from the pinned one (recorded as unverified)",
    )
    install.set_defaults(func=cmd_resources_install)
    listing = actions.add_parser("list", help="list known and installed resources")
    listing.add_argument("--format", choices=["text", "json"], default="text")
    listing.set_defaults(func=cmd_resources_list)

    def no_action(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=no_action)
    return parser
