"""Implementations of the ``meteorx`` subcommands (parsing lives in ``main``)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any, TextIO

import yaml

from meteorx.config import MeteorConfig, load_config, preset_names
from meteorx.inputs import read_parallel
from meteorx.scorer import CorpusResult, Scorer, SegmentResult
from meteorx.signature import signature


def _config_from_args(args: argparse.Namespace) -> MeteorConfig:
    cfg = load_config(args.config or args.preset)
    if args.lang is not None or args.norm is not None:
        cfg = cfg.with_overrides(language=args.lang, normalize=args.norm)
    return cfg


def _breakdown_dict(result: CorpusResult | SegmentResult) -> dict[str, Any]:
    b = result.breakdown
    return {
        "score": result.score,
        "precision": b.precision,
        "recall": b.recall,
        "fmean": b.fmean,
        "fragmentation": b.fragmentation,
        "penalty": b.penalty,
    }


def _segment_dict(index: int, seg: SegmentResult) -> dict[str, Any]:
    out = {"segment": index + 1, **_breakdown_dict(seg)}
    out["chunks"] = seg.alignment.chunks
    out["ref_index"] = seg.ref_index
    out["stats"] = seg.stats.to_list()
    return out


def cmd_score(args: argparse.Namespace) -> int:
    scorer = Scorer(_config_from_args(args))
    sig = signature(scorer, refs=len(args.ref))
    systems: list[tuple[str, CorpusResult]] = []
    for hyp_path in args.hyp:
        hyps, refs = read_parallel(hyp_path, args.ref)
        empty = sum(1 for h in hyps if not h.strip())
        if empty:
            print(
                f"meteorx: warning: {hyp_path}: {empty} empty line(s) score 0",
                file=sys.stderr,
            )
        per_segment_refs = [list(r) for r in zip(*refs, strict=True)] if refs else []
        result = scorer.corpus(hyps, per_segment_refs)
        systems.append((hyp_path, result))
    out = sys.stdout
    if args.format == "json":
        _print_json(systems, sig, args.system_only, out)
    elif args.format == "tsv":
        _print_tsv(systems, sig, args, out)
    else:
        _print_text(systems, sig, args, out)
    return 0


def _print_json(
    systems: list[tuple[str, CorpusResult]], sig: str, system_only: bool, out: TextIO
) -> None:
    def one(name: str, result: CorpusResult) -> dict[str, Any]:
        system = {**_breakdown_dict(result), "stats": result.stats.to_list()}
        data: dict[str, Any] = {"hyp": name, "system": system}
        if not system_only:
            data["segments"] = [_segment_dict(i, s) for i, s in enumerate(result.segments)]
        return data

    data: dict[str, Any] = (
        one(*systems[0]) if len(systems) == 1 else {"systems": [one(n, r) for n, r in systems]}
    )
    data["signature"] = sig
    json.dump(data, out, ensure_ascii=False)
    out.write("\n")


def _print_tsv(
    systems: list[tuple[str, CorpusResult]], sig: str, args: argparse.Namespace, out: TextIO
) -> None:
    p = args.precision
    out.write(f"# {sig}\n")
    out.write("system\tsegment\tscore\tprecision\trecall\tfragmentation\tpenalty\n")
    for name, result in systems:
        rows = [] if args.system_only else list(enumerate(result.segments, 1))
        for i, seg in rows:
            b = seg.breakdown
            out.write(
                f"{name}\t{i}\t{seg.score:.{p}f}\t{b.precision:.{p}f}\t{b.recall:.{p}f}\t"
                f"{b.fragmentation:.{p}f}\t{b.penalty:.{p}f}\n"
            )
        b = result.breakdown
        out.write(
            f"{name}\tsystem\t{result.score:.{p}f}\t{b.precision:.{p}f}\t{b.recall:.{p}f}\t"
            f"{b.fragmentation:.{p}f}\t{b.penalty:.{p}f}\n"
        )


def _print_text(
    systems: list[tuple[str, CorpusResult]], sig: str, args: argparse.Namespace, out: TextIO
) -> None:
    p = args.precision
    for name, result in systems:
        if not args.system_only:
            for i, seg in enumerate(result.segments, 1):
                out.write(f"Segment {i} score:\t{seg.score:.{p}f}\n")
        b = result.breakdown
        label = f"{name}: " if len(systems) > 1 else ""
        out.write(
            f"{label}METEOR = {result.score:.{p}f}  (P {b.precision:.4f}, R {b.recall:.4f}, "
            f"Fmean {b.fmean:.4f}, frag {b.fragmentation:.4f}, penalty {b.penalty:.4f}, "
            f"{len(result.segments)} segments)\n"
        )
    out.write(f"{sig}\n")


def cmd_explain(args: argparse.Namespace) -> int:
    from meteorx.errors import InputError
    from meteorx.explain import explain_segment

    scorer = Scorer(_config_from_args(args))
    hyps, refs = read_parallel(args.hyp, args.ref)
    if args.line:
        for n in args.line:
            if not 1 <= n <= len(hyps):
                raise InputError(f"--line {n} is outside 1..{len(hyps)}")
        wanted = [n - 1 for n in args.line]
    else:
        wanted = list(range(len(hyps)))
    results = {i: scorer.segment(hyps[i], [r[i] for r in refs]) for i in wanted}
    if args.worst:
        wanted = sorted(wanted, key=lambda i: results[i].score)[: args.worst]
    for k, i in enumerate(wanted):
        if k:
            print()
        print(explain_segment(scorer, results[i], title=f"== line {i + 1} =="))
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    cfg = _config_from_args(args)
    data = cfg.model_dump(mode="json", exclude_none=True)
    data["stages"] = [s.model_dump(exclude_none=True) for s in cfg.stages]
    sys.stdout.write(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return 0


def cmd_presets(args: argparse.Namespace) -> int:
    from importlib import resources

    for name in preset_names():
        text = resources.files("meteorx.configs").joinpath(f"{name}.yaml").read_text("utf-8")
        first = next((ln[1:].strip() for ln in text.splitlines() if ln.startswith("#")), "")
        print(f"{name:22s} {first}")
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    from meteorx.registry import get_registry

    registry = get_registry()
    for info in registry.plugins.values():
        print(f"{info.name} ({info.distribution} {info.version}) — {info.module}")
        for item in info.provides:
            print(f"    {item}")
    return 0


def cmd_languages(args: argparse.Namespace) -> int:
    from meteorx.languages import LANGUAGES
    from meteorx.registry import get_registry

    registry = get_registry()
    has_stem = "stem" in registry.matchers
    print("code  language              stages available")
    for code, lang in sorted(LANGUAGES.items()):
        stages = ["exact"]
        if has_stem and lang.snowball:
            stages.append(f"stem(snowball-{lang.snowball})")
        missing = [] if lang.snowball else ["stem: no Snowball stemmer"]
        line = f"{code:5s} {lang.name:21s} {' '.join(stages)}"
        if missing:
            line += "   [missing: " + "; ".join(missing) + "]"
        print(line)
    return 0


__all__ = ["asdict", "cmd_config", "cmd_languages", "cmd_plugins", "cmd_presets", "cmd_score"]
