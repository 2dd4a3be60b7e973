"""From parsed options to what a command runs with: the plugins given with --plugin,
the configuration of --preset/--config/--lang/--norm, the test set of --hyp/--ref and
the input-format options, and the ``--verbose`` lines saying what runs."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from meteorx.config_models import MeteorConfig
    from meteorx.formats import TestSet

__all__ = ["config_from_args", "load_plugin_args", "report_setup", "testset_from_args"]


def load_plugin_args(args: argparse.Namespace) -> None:
    """Register the plugins given with --plugin (a broken one is a PluginError)."""
    from meteorx.registry import register

    for plugin in getattr(args, "plugins", None) or ():
        register(plugin)


def config_from_args(args: argparse.Namespace) -> MeteorConfig:
    """The configuration named by --preset/--config with --lang/--norm applied; with
    neither --preset nor --config, the recommended one for --lang (meteorx.defaults)."""
    from meteorx.defaults import configure

    return configure(
        args.config or args.preset,
        language=args.lang,
        normalize=args.norm,
        hint="pass --lang (e.g. --lang pt)",
    )


def testset_from_args(args: argparse.Namespace) -> TestSet:
    """The systems and references named by :func:`~meteorx.cli.arguments.add_input_args`'
    options, read in their input format."""
    from meteorx.formats import read_input

    return read_input(
        args.input_format,
        args.hyp,
        args.ref,
        args.hyp_column,
        args.ref_column,
        args.doc_column,
        args.id_column,
        max_chars=args.max_segment_chars,
    )


def report_setup(scorer: Any) -> None:
    """The ``--verbose`` lines: what runs, on stderr (never mixed with the scores)."""
    from meteorx import engine

    cfg = scorer.config
    stages = ", ".join(f"{s.stage_name} {s.weight:g}" for s in cfg.stages)
    if cfg.soft_credit is not None:
        soft = cfg.soft_credit
        stages += f"; soft credit {soft.weight:g} (cutoff {soft.cutoff:g})"
    if cfg.units != "words":
        stages += f"; precision and recall over {cfg.units}"
    print(f"meteorx: configuration: {cfg.name} ({cfg.language}); stages: {stages}", file=sys.stderr)
    print(f"meteorx: {engine.describe()}", file=sys.stderr)
