"""Listing commands: ``config``, ``presets``, ``plugins``, ``languages``, ``info``."""

from __future__ import annotations

import argparse
import re
import shutil
import textwrap
from typing import Any

from meteorx.cli.arguments import add_config_args, add_plugin_arg


def add_parser(sub: Any) -> None:
    """Register ``config``, ``presets``, ``plugins`` and ``languages``."""
    config = sub.add_parser(
        "config",
        help="print the resolved configuration as YAML",
        description="Print the configuration that 'score' would use, after presets, "
        "'extends' chains and command-line overrides are applied.",
    )
    add_config_args(config)
    config.set_defaults(func=cmd_config)
    presets = sub.add_parser(
        "presets", help="list the named configurations (and tuned ones, as tuned/NAME)"
    )
    add_plugin_arg(presets)
    presets.set_defaults(func=cmd_presets)
    plugins = sub.add_parser("plugins", help="list installed plugins and what they provide")
    add_plugin_arg(plugins)
    plugins.set_defaults(func=cmd_plugins)
    languages = sub.add_parser(
        "languages", help="list languages (ISO 639-1) with their stages and resources"
    )
    languages.add_argument(
        "codes", nargs="*", metavar="CODE", help="only these languages (default: all of ISO 639-1)"
    )
    add_plugin_arg(languages)
    languages.set_defaults(func=cmd_languages)
    info = sub.add_parser(
        "info",
        help="version, engine in use (compiled or pure Python), plugins and cache",
        description="Print meteorx's version, which engine runs (METEORX_ENGINE: auto, c "
        "or python) and the state of every compiled module, the plugins and the user cache.",
    )
    info.set_defaults(func=cmd_info)


def cmd_config(args: argparse.Namespace) -> int:
    import sys

    import yaml

    from meteorx.cli.configuration import config_from_args

    cfg = config_from_args(args)
    data = cfg.model_dump(mode="json", exclude_none=True)
    data["stages"] = [s.model_dump(exclude_none=True) for s in cfg.stages]
    sys.stdout.write(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return 0


def _description(text: str) -> str:
    """A preset's description: the first sentence of its leading comment paragraph
    (the whole paragraph when it has no sentence end)."""
    lines: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#") or (lines and not line[1:].strip()):
            break
        lines.append(line[1:].strip())
    paragraph = " ".join(filter(None, lines))
    end = _SENTENCE_END.search(paragraph)
    return paragraph[: end.start() + 1] if end else paragraph


# A full stop followed by a space or the end, not in "e.g." / "i.e.".
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)\.(?=\s|$)")


def cmd_presets(args: argparse.Namespace) -> int:
    """Every registered preset (``meteorx_register_presets``; meteorx's own ``configs/``
    among them), with the first sentence of its leading comment."""
    from meteorx.registry import get_registry

    registry = get_registry()
    width = max(60, min(shutil.get_terminal_size().columns, 100))
    for name in registry.preset_names():
        text = registry.presets[name].read_text("utf-8")
        line = f"{name:22s} {_description(text)}"
        print(textwrap.fill(line, width, subsequent_indent=" " * 23, break_on_hyphens=False))
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    from meteorx.registry import get_registry

    registry = get_registry()
    for info in registry.plugins.values():
        print(f"{info.name} ({info.distribution} {info.version}) — {info.module}")
        for item in info.provides:
            print(f"    {item}")
    for info in registry.failed.values():
        print(f"{info.name} ({info.distribution} {info.version}) — {info.module}")
        print(f"    FAILED, left out: {info.error}")
    return 0


def cmd_languages(args: argparse.Namespace) -> int:
    """Per language: the recommended configuration ('meteorx score --lang L' with no
    preset), its stages and tokenizer, and the stages that need a resource, installed
    or not. Every ISO 639-1 code is listed (or only the codes given)."""
    from meteorx.defaults import language_report
    from meteorx.languages import LANGUAGES, resolve_language

    codes = getattr(args, "codes", None) or sorted(LANGUAGES)
    languages = [resolve_language(code) for code in codes]  # an unknown one: before any output
    print(f"{'code':5s} {'language':20s} {'default':28s} {'stages':30s} {'tokens':20s} resources")
    for language in languages:
        row = language_report(language)
        extra = "; ".join(f"{stage}: {state}" for stage, state in row["resources"].items())
        print(
            f"{row['code']:5s} {row['name'][:20]:20s} {row['default']:28s} "
            f"{' '.join(row['stages']):30s} {row['tokens']:20s} {extra or '-'}".rstrip()
        )
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    """Version, engine (compiled or pure Python, module by module), plugins, cache."""
    import platform
    import sys

    from meteorx import __version__, engine
    from meteorx.cache import cache_dir
    from meteorx.registry import get_registry

    registry = get_registry()
    registry.load_all()  # imports every plugin: they declare their compiled modules
    print(f"meteorx {__version__} (Python {platform.python_version()}, {sys.executable})")
    print(engine.describe())
    modules = engine.report()
    width = max((len(name) for name, _, _ in modules), default=0)
    for name, purpose, state in modules:
        print(f"    {name:{width}s} {state:16s} {purpose}")
    failed = f", {len(registry.failed)} failed" if registry.failed else ""
    print(f"plugins: {len(registry.plugins)} loaded{failed} (meteorx plugins lists them)")
    folder = cache_dir()
    print(f"user cache: {folder if folder is not None else 'off ($METEORX_CACHE_DIR=off)'}")
    return 0
