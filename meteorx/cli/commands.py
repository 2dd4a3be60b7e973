"""The subcommand implementations, by their historical names.

Each subcommand now lives in its own module (``score_cmd``, ``explain_cmd``,
``report_cmd``, ``tune_cmd``, ``combine_cmd``, ``info_cmd``); these aliases keep
``meteorx.cli.commands.cmd_<name>`` working for code that called them directly.
"""

from __future__ import annotations

from meteorx.cli.combine_cmd import run as cmd_combine
from meteorx.cli.explain_cmd import run as cmd_explain
from meteorx.cli.info_cmd import cmd_config, cmd_languages, cmd_plugins, cmd_presets
from meteorx.cli.report_cmd import run as cmd_report
from meteorx.cli.score_cmd import run as cmd_score
from meteorx.cli.tune_cmd import run as cmd_tune

__all__ = [
    "cmd_combine",
    "cmd_config",
    "cmd_explain",
    "cmd_languages",
    "cmd_plugins",
    "cmd_presets",
    "cmd_report",
    "cmd_score",
    "cmd_tune",
]
