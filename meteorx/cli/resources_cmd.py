"""``meteorx resources``: install and list external resources in the user cache.

Some stages read data meteorx does not ship (licences differ, files are large): the
``synonym-omw`` matcher reads an Open Multilingual Wordnet tab file per language.
``meteorx resources install NAME`` places such a file in the user cache, after checking
its format and its SHA-256 against the checksum pinned for that resource, with a
manifest recording where it came from (see :mod:`meteorx.cli.resource_install`).
``meteorx resources list`` shows what is known and what is installed.

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
import json
import sys
from pathlib import Path
from typing import Any

from meteorx.cli.resource_install import (
    MANIFEST,
    ResourceSpec,
    catalogue,
    install_resource,
    installed_resources,
    names_help,
    read_manifest,
    resource_dir,
    resource_spec,
)
from meteorx.errors import MeteorxError
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
    for spec in catalogue():
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
        f"(NAME: {names_help()})"
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
