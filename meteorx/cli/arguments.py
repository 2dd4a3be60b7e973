"""The options several subcommands share, defined once (``add_*_args``).

What the parsed options become is elsewhere: a configuration
(:mod:`~meteorx.cli.configuration`), judged data (:mod:`~meteorx.cli.judgments`).
Kept free of heavy imports: every command's parser is built at start-up.
"""

from __future__ import annotations

import argparse
from typing import Any

from meteorx.cli.arg_types import (
    MAX_PRECISION,
    MAX_RESAMPLES,
    MAX_SEED,
    decimal_places,
    non_negative_int,
    resample_count,
    seed_number,
)
from meteorx.normalize_shorthands import NORMALIZE_SHORTHANDS

__all__ = [
    "add_config_args",
    "add_input_args",
    "add_judgment_args",
    "add_max_chars_arg",
    "add_norm_arg",
    "add_output_args",
    "add_plugin_arg",
    "add_resamples_arg",
    "add_run_args",
    "add_seed_arg",
    "add_significance_args",
]


def add_plugin_arg(parser: argparse.ArgumentParser) -> None:
    """--plugin, repeatable: plugins that are not installed.
    :func:`meteorx.cli.configuration.load_plugin_args` (which ``main`` calls before any
    command runs) registers them."""
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        dest="plugins",
        metavar="FILE.py|MODULE",
        help="use a plugin that is not installed: a .py file or a module name "
        "(package.module); repeatable. Its matchers, aligners, tokenizers and presets can "
        "then be named in --config/--preset, and signatures name it with its file's digest",
    )


def add_config_args(parser: argparse.ArgumentParser) -> None:
    """--preset/--config, --lang, --norm, --plugin."""
    add_plugin_arg(parser)
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--preset",
        "-p",
        metavar="NAME",
        help="a named configuration (see 'meteorx presets', e.g. meteorx, li, "
        "meteor-1.5-en, tuned/de-en); default: the language's recommended one "
        "(English: meteor-1.5-en with --norm meteor; others: meteorx)",
    )
    group.add_argument(
        "--config", "-c", metavar="FILE.yaml", help="a YAML configuration (may 'extends' a preset)"
    )
    parser.add_argument(
        "--lang",
        "-l",
        metavar="CODE",
        help="language (any ISO 639-1 code, e.g. en, pt, de, zh, ha); overrides the "
        "config; without --preset/--config it picks the language's recommended one "
        "(default: en)",
    )
    add_norm_arg(
        parser,
        "normalisation: none; lower = lowercase + whitespace tokens (the jar's -lower); "
        "meteor = the jar's -norm tokenisation; meteor-nopunct = -norm -noPunct",
    )


def add_norm_arg(parser: Any, text: str) -> None:
    """--norm: a ``normalize`` shorthand, the configuration's own list of them (so the
    command line and configuration files accept the same names)."""
    parser.add_argument("--norm", choices=list(NORMALIZE_SHORTHANDS), help=text)


def add_judgment_args(parser: argparse.ArgumentParser) -> None:
    """Systems' outputs, references and human judgments (``tune`` and ``correlate``)."""
    data = parser.add_argument_group("data")
    data.add_argument(
        "--hyp-dir",
        required=True,
        metavar="DIR",
        help="one file per system, named SYSTEM.<ext> (SYSTEM as in the judgments)",
    )
    data.add_argument("--hyp-glob", default="*", metavar="PATTERN", help="files to use ('*')")
    data.add_argument(
        "--ref",
        "-r",
        action="append",
        required=True,
        metavar="FILE",
        help="reference file; repeat for several references",
    )
    data.add_argument(
        "--human",
        metavar="FILE.tsv",
        help="segment judgments: TSV system, segment, score (a header may name the columns)",
    )
    data.add_argument(
        "--human-score-column",
        metavar="NAME",
        help="score column of --human (default: the first of score, raw, z, human)",
    )
    data.add_argument(
        "--segment-base",
        type=int,
        choices=[0, 1],
        help="numbering of --human segments (default 1; 0 when the column is *index*)",
    )
    data.add_argument(
        "--human-sys",
        metavar="FILE",
        help="system judgments: JSON {system: score or {z: …}} or TSV system, score "
        "(default: the mean of the segment judgments)",
    )
    data.add_argument("--human-sys-key", metavar="KEY", help="key in --human-sys objects ('z')")
    data.add_argument(
        "--lower-is-better",
        action="store_true",
        help="human scores are errors or edit rates (e.g. HTER): negate them",
    )
    data.add_argument(
        "--docs", metavar="FILE", help="document ids (kept whole when splitting or resampling)"
    )
    data.add_argument(
        "--segment-measure",
        choices=["darr", "pairwise", "acc-eq", "tau-b"],
        help="segment-level agreement: darr = WMT DARR Kendall tau (pairs of one segment's "
        "translations whose human scores differ by more than --darr-threshold); pairwise "
        "= the same over every pair the humans do not tie (MQM, error counts); acc-eq = "
        "WMT23's tie-calibrated pairwise accuracy; tau-b = Kendall tau-b over all "
        "translations. Default: tau-b for one system, darr when every human score is in "
        "0..100 (DA), else pairwise",
    )
    data.add_argument(
        "--darr-threshold",
        type=float,
        default=25.0,
        metavar="X",
        help="darr: minimum human score difference of a pair (default 25, as in WMT DA)",
    )


def add_input_args(parser: argparse.ArgumentParser, several_hyps: bool = True) -> None:
    """--hyp, --ref and the input-format options."""
    parser.add_argument(
        "--hyp",
        "-H",
        action="append",
        required=True,
        metavar="FILE",
        help="hypothesis file ('-' for stdin)"
        + ("; repeat for several systems (the first is the baseline)" if several_hyps else ""),
    )
    parser.add_argument(
        "--ref",
        "-r",
        action="append",
        default=[],
        metavar="FILE",
        help="reference file; repeat for several references (each segment keeps its best). "
        "Optional for tsv/jsonl input whose rows hold the references",
    )
    fmt = parser.add_argument_group("input format")
    fmt.add_argument(
        "--input-format",
        "-i",
        choices=["text", "tsv", "jsonl", "sgml"],
        default="text",
        help="text: one segment a line (default); tsv/jsonl: named columns; sgml: WMT SGML "
        "(<tstset>/<refset>, <doc sysid docid>, <seg id>) with per-document scores",
    )
    fmt.add_argument(
        "--hyp-column",
        action="append",
        metavar="NAME",
        help="tsv/jsonl: column holding hypotheses (default 'hyp'); repeat for several systems",
    )
    fmt.add_argument(
        "--ref-column",
        action="append",
        metavar="NAME",
        help="tsv/jsonl: column holding a reference (default 'ref'); repeat for several",
    )
    fmt.add_argument("--doc-column", metavar="NAME", help="tsv/jsonl: document id column")
    fmt.add_argument("--id-column", metavar="NAME", help="tsv/jsonl: segment id column")
    add_max_chars_arg(parser)


def add_max_chars_arg(parser: argparse.ArgumentParser) -> None:
    """--max-segment-chars: the bound on one segment's length (meteorx.inputs)."""
    from meteorx.inputs import MAX_SEGMENT_CHARS

    parser.add_argument(
        "--max-segment-chars",
        type=non_negative_int,
        default=MAX_SEGMENT_CHARS,
        metavar="N",
        help=f"refuse a segment longer than N characters (default {MAX_SEGMENT_CHARS:,}; "
        "0 = no limit): alignment time and memory grow faster than length",
    )


def add_run_args(parser: argparse.ArgumentParser) -> None:
    """--jobs, --quiet and --verbose."""
    parser.add_argument(
        "--jobs",
        "-j",
        type=non_negative_int,
        default=1,
        metavar="N",
        help="score in N processes (identical results; 0 = one per CPU); default 1",
    )
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress bar (it is shown on stderr only when stderr is a terminal and "
        "the run takes more than a couple of seconds)",
    )
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="say on stderr which configuration, stages and engine (compiled or pure Python) run",
    )


def add_significance_args(parser: argparse.ArgumentParser) -> None:
    """--confidence, --paired-bs, --paired-ar and their sample sizes and seed."""
    group = parser.add_argument_group(
        "significance (resampling stored statistics; see meteorx/significance.py)"
    )
    group.add_argument(
        "--confidence",
        action="store_true",
        help="95%% bootstrap confidence interval of each system score",
    )
    paired = group.add_mutually_exclusive_group()
    paired.add_argument(
        "--paired-bs",
        action="store_true",
        help="paired bootstrap resampling: every system against the first (baseline)",
    )
    paired.add_argument(
        "--paired-ar",
        action="store_true",
        help="paired approximate randomisation: every system against the first (baseline)",
    )
    add_resamples_arg(
        group, "--n-bootstrap", 1000, "bootstrap resamples for --confidence and --paired-bs"
    )
    add_resamples_arg(group, "--ar-trials", 10000, "trials for --paired-ar")
    add_seed_arg(group)


def add_resamples_arg(parser: Any, option: str, default: int, what: str) -> None:
    """A count of bootstrap resamples or randomisation trials, whose help names the
    bound :func:`~meteorx.cli.arg_types.resample_count` holds it to."""
    parser.add_argument(
        option,
        type=resample_count,
        default=default,
        metavar="N",
        help=f"{what} (default {default}, at most {MAX_RESAMPLES:,})",
    )


def add_seed_arg(parser: Any) -> None:
    """--seed (``score``, ``combine``, ``report``, ``correlate``, ``tune``)."""
    parser.add_argument(
        "--seed",
        type=seed_number,
        default=12345,
        metavar="N",
        help=f"random seed, 0..{MAX_SEED} (default 12345)",
    )


def add_output_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", "-f", choices=["text", "json", "tsv"], default="text", help="output format"
    )
    parser.add_argument(
        "--system-only", action="store_true", help="print only system scores, not segments"
    )
    parser.add_argument(
        "--precision",
        type=decimal_places,
        default=6,
        metavar="N",
        help=f"decimals in text/tsv output (0..{MAX_PRECISION}; default 6)",
    )
