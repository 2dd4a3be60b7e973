#!/usr/bin/env python3
"""Segments per second: NLTK's METEOR vs meteorx's NLTK-exact mode, same tokens.

Scores the Meteor 1.5 example data (``xray.system1.hyp`` and ``xray.system2.hyp``
against ``xray.reference``, 2,489 segments each, tokens ``line.split()``) four ways:

  nltk          ``nltk.translate.meteor_score.meteor_score([ref], hyp)`` (the real
                NLTK, with WordNet 3.0 from the same files, via ``build_nltk_data``)
  compat        ``meteorx.compat.nltk.meteor_score([ref], hyp)``
  preset        ``meteorx.Scorer("nltk").segment(hyp, [ref])`` (the same token lists)
  preset-lines  ``meteorx.Scorer("nltk").corpus(hyp_lines, ref_lines)``, one call per
                system: what ``meteorx score --preset nltk`` runs (it splits the lines
                itself, into the same tokens)

and compares every segment's score with NLTK's: ``identical`` counts the bit-identical
ones (the preset's Fmean expression may round differently in the last bit; the
largest difference is printed). One-off loading (WordNet, stemmer, plugins) is timed
apart from scoring. ``cold`` runs start with empty caches (meteorx: no memoised stem,
synonym set or synset, a new Scorer; NLTK: no parsed synset); ``warm`` runs keep the
memoised per-word work of the previous run (the preset still gets a new Scorer, so
every reference is prepared again, as on a new corpus). Times are CPU seconds, best of
``--repeat`` runs; ``x NLTK`` compares cold with cold and warm with warm.

Data: ``$METEORX_DATA`` or ``<repo>/../shared/data``.

Usage: python benchmarks/nltk_speed.py [--limit N] [--repeat R] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from meteorx.compat import nltk as compat

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))

Lines = list[tuple[str, str]]  # (hypothesis line, reference line)


def load_lines(limit: int | None) -> list[Lines]:
    """Per system, its (hypothesis, reference) lines."""
    base = DATA / "meteor15-examples"
    if not base.is_dir():
        sys.exit(f"data not found: {base} (set METEORX_DATA)")

    def lines(name: str) -> list[str]:
        return (base / name).read_text(encoding="utf-8").split("\n")[:-1]

    refs = lines("xray.reference")
    return [
        list(zip(lines(system), refs, strict=True))[:limit]
        for system in ("xray.system1.hyp", "xray.system2.hyp")
    ]


def timed(
    run: Callable[[], list[float]], repeat: int, before: Callable[[], None]
) -> tuple[list[float], float]:
    """Scores and the CPU seconds ``run`` took, best of ``repeat`` runs (``before`` runs
    untimed ahead of each). CPU time, so other processes on a busy machine distort the
    comparison less; everything here is single-threaded."""
    best = float("inf")
    scores: list[float] = []
    for _ in range(repeat):
        before()
        start = time.process_time()
        scores = run()
        best = min(best, time.process_time() - start)
    return scores, best


def _nothing() -> None:
    pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="segments per system")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best counts")
    args = parser.parse_args()
    systems = load_lines(args.limit)
    pairs = [(h.split(), r.split()) for system in systems for h, r in system]
    n = len(pairs)
    results: dict[str, dict[str, Any]] = {}

    def record(name: str, load: float, cold: float, warm: float, got: list[float]) -> None:
        diffs = [abs(a - b) for a, b in zip(got, reference, strict=True)]
        results[name] = {
            "load_s": load,
            "cold_s": cold,
            "warm_s": warm,
            "identical": sum(a == b for a, b in zip(got, reference, strict=True)),
            "max_diff": max(diffs, default=0.0),
        }

    # -- NLTK itself ---------------------------------------------------------------------
    start = time.process_time()
    compat.build_nltk_data(prepend=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from nltk.corpus import wordnet
        from nltk.translate.meteor_score import meteor_score as nltk_meteor_score

        wordnet.ensure_loaded()
    nltk_load = time.process_time() - start

    def nltk_run() -> list[float]:
        return [float(nltk_meteor_score([r], h)) for h, r in pairs]

    def fresh_nltk() -> None:  # NLTK memoises parsed synsets; nothing else
        wordnet._synset_offset_cache.clear()

    reference, cold = timed(nltk_run, args.repeat, fresh_nltk)
    got, warm = timed(nltk_run, args.repeat, _nothing)
    assert got == reference
    record("nltk", nltk_load, cold, warm, got)

    # -- meteorx.compat.nltk.meteor_score ------------------------------------------------
    compat.clear_caches()
    start = time.process_time()
    compat.default_wordnet().load()
    compat.porter_stem_function()  # the stemmer, with an empty memo
    compat_load = time.process_time() - start
    meteor_score = compat.meteor_score

    def compat_run() -> list[float]:
        return [meteor_score([r], h) for h, r in pairs]

    got, cold = timed(compat_run, args.repeat, compat.clear_caches)
    cold_scores = got
    got, warm = timed(compat_run, args.repeat, _nothing)
    assert got == cold_scores
    record("compat", compat_load, cold, warm, got)

    # -- the nltk preset through Scorer --------------------------------------------------
    from meteorx.scorer import Scorer

    compat.clear_caches()
    start = time.process_time()
    scorer = Scorer("nltk")
    scorer.matchers[-1].wordnet.load()  # type: ignore[attr-defined]
    preset_load = time.process_time() - start

    def new_scorer() -> None:
        nonlocal scorer
        scorer = Scorer("nltk")

    def cold_scorer() -> None:
        compat.clear_caches()
        new_scorer()

    def preset_run() -> list[float]:
        segment = scorer.segment
        return [segment(h, [r]).score for h, r in pairs]

    got, cold = timed(preset_run, args.repeat, cold_scorer)
    got, warm = timed(preset_run, args.repeat, new_scorer)
    record("preset", preset_load, cold, warm, got)

    def lines_run() -> list[float]:
        scores: list[float] = []
        for system in systems:
            result = scorer.corpus([h for h, _ in system], [r for _, r in system])
            scores += [s.score for s in result.segments]
        return scores

    got, cold = timed(lines_run, args.repeat, cold_scorer)
    got, warm = timed(lines_run, args.repeat, new_scorer)
    record("preset-lines", preset_load, cold, warm, got)

    # -- report --------------------------------------------------------------------------
    base = results["nltk"]
    print(f"{n} segments (xray system1 + system2, whitespace tokens); CPU s, best of {args.repeat}")
    print(
        f"{'':13} {'load s':>7} {'cold seg/s':>11} {'x NLTK':>7} {'warm seg/s':>11} "
        f"{'x NLTK':>7}  scores identical to NLTK's"
    )
    for name, row in results.items():
        for kind in ("cold", "warm"):
            row[f"{kind}_seg_per_s"] = n / row[f"{kind}_s"]
            row[f"{kind}_speedup"] = base[f"{kind}_s"] / row[f"{kind}_s"]
        same = "(reference)" if name == "nltk" else f"{row['identical']}/{n}"
        if name != "nltk" and row["identical"] < n:
            same += f", max |diff| {row['max_diff']:.1e}"
        print(
            f"{name:13} {row['load_s']:7.2f} {row['cold_seg_per_s']:11.0f} "
            f"{row['cold_speedup']:7.1f} {row['warm_seg_per_s']:11.0f} "
            f"{row['warm_speedup']:7.1f}  {same}"
        )
    print(
        "cold = empty memo caches (NLTK: empty synset cache; preset: also a new Scorer), "
        "warm = per-word memos filled by the previous run."
    )
    if args.json:
        args.json.write_text(json.dumps({"segments": n, **results}, indent=2), encoding="utf-8")
    return 0 if results["compat"]["identical"] == n else 1


if __name__ == "__main__":
    raise SystemExit(main())
