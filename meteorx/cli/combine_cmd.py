"""``meteorx combine``: re-score stored sufficient statistics without re-aligning."""

from __future__ import annotations

import argparse
import re
from typing import Any

from meteorx.cli.arguments import add_output_args, add_significance_args


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "combine",
        help="sum stored statistics into document/system scores (optionally re-parameterised)",
        description="Read statistics files written by 'meteorx score --stats-out' (or its "
        "--format json output) and print segment, document and system scores from them. "
        "Files holding different segments of the same systems (shards scored separately) "
        "are concatenated; files must share the stages and the signature. --alpha, "
        "--beta, --gamma, --delta and --weights re-score with other parameters (the "
        "alignments are reused; the signature records the new values).",
    )
    parser.add_argument("stats", nargs="+", metavar="FILE", help="statistics file(s)")
    parser.add_argument("--alpha", type=float, metavar="A", help="override alpha (0..1)")
    parser.add_argument("--beta", type=float, metavar="B", help="override beta (>= 0)")
    parser.add_argument("--gamma", type=float, metavar="G", help="override gamma (0..1)")
    parser.add_argument("--delta", type=float, metavar="D", help="override delta (0..1)")
    parser.add_argument(
        "--weights", metavar="W1,W2,…", help="override the stage weights (one per stage, 0..1)"
    )
    add_output_args(parser)
    parser.add_argument("--stats-out", metavar="FILE", help="write the combined statistics")
    parser.add_argument("--scr", metavar="PREFIX", help="write the jar's .scr score files")
    add_significance_args(parser)
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from meteorx.cli.evaluate import (
        add_significance,
        build_report,
        check_report_files,
        resampling_fields,
        write_report,
    )
    from meteorx.error_text import out_of_range
    from meteorx.errors import ConfigError, InputError
    from meteorx.formats import read_stats
    from meteorx.signature import with_resampling

    check_report_files(args)
    files = [read_stats(path) for path in args.stats]
    first = files[0]
    systems: dict[str, list[Any]] = {}
    seg_ids: dict[str, list[str]] = {}
    docs: dict[str, list[str]] = {}
    for path, data in zip(args.stats, files, strict=True):
        if data.signature != first.signature or data.stage_names != first.stage_names:
            raise InputError(
                f"{path} was scored with a different configuration than {args.stats[0]} "
                f"(signatures differ); statistics can only be combined under one signature"
            )
        for name, records in data.systems:
            systems.setdefault(name, []).extend(records)
            seg_ids.setdefault(name, []).extend(data.seg_ids)
            docs.setdefault(name, []).extend(data.docs or [""] * len(data.seg_ids))
    names = list(systems)
    for name in names[1:]:
        if seg_ids[name] != seg_ids[names[0]] or docs[name] != docs[names[0]]:
            raise InputError(f"system {name!r} does not cover the same segments as {names[0]!r}")
    params = first.params
    for field in ("alpha", "beta", "gamma", "delta"):
        value = getattr(args, field)
        allowed = out_of_range(field, value) if value is not None else None
        if allowed is not None:
            raise ConfigError(f"--{field} {value:g} is out of range (allowed: {allowed})")
    overrides = {
        k: getattr(args, k)
        for k in ("alpha", "beta", "gamma", "delta")
        if getattr(args, k) is not None
    }
    if args.weights:
        try:
            weights = tuple(float(w) for w in args.weights.split(","))
        except ValueError:
            raise ConfigError(
                f"--weights {args.weights!r}: expected numbers separated by commas"
            ) from None
        if len(weights) != len(first.stage_names) or any(
            out_of_range("weight", w) is not None for w in weights
        ):
            raise ConfigError(
                f"--weights needs {len(first.stage_names)} values in 0..1 "
                f"(stages: {', '.join(first.stage_names)})"
            )
        overrides["weights"] = weights
    params = replace(params, **overrides)
    if overrides:
        import sys

        if "weights" in overrides and "|align:optimal" in first.signature:
            print(
                "meteorx: warning: the optimal aligner's choices depend on the stage weights; "
                "re-scoring keeps the alignments found with the original weights",
                file=sys.stderr,
            )
        if re.search(r"\|refs:([2-9]|\d\d)", first.signature):
            print(
                "meteorx: warning: each segment keeps the reference that was best under the "
                "original parameters",
                file=sys.stderr,
            )
    signature = with_resampling(
        rewrite_signature(first.signature, params, first.stage_names), resampling_fields(args)
    )
    all_docs = docs[names[0]]
    report = build_report(
        names,
        [systems[n] for n in names],
        params,
        first.stage_names,
        signature,
        seg_ids[names[0]],
        all_docs if any(all_docs) else None,
        first.setid,
        system_score=first.system_score,
    )
    add_significance(report, args)
    write_report(report, args)
    return 0


def rewrite_signature(signature: str, params: Any, stage_names: list[str]) -> str:
    """The signature with α β γ δ and stage weights set to ``params``' values."""
    fields = signature.split("|")
    values = {"a": params.alpha, "b": params.beta, "g": params.gamma, "d": params.delta}
    out = []
    for item in fields:
        key, sep, value = item.partition(":")
        if sep and key in values:
            out.append(f"{key}:{values[key]:g}")
        elif sep and key == "stages":
            out.append("stages:" + _rewrite_stage_weights(value, params.weights))
        else:
            out.append(item)
    return "|".join(out)


def _rewrite_stage_weights(value: str, weights: tuple[float, ...]) -> str:
    # Split at top-level commas (matcher descriptions may hold parenthesised commas).
    parts: list[str] = []
    depth = 0
    current = ""
    for ch in value:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    if len(parts) != len(weights):
        return value
    return ",".join(
        re.sub(r":[^:()]*$", f":{w:g}", part) for part, w in zip(parts, weights, strict=True)
    )
