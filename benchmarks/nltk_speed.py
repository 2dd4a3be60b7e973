#!/usr/bin/env python3
"""Segments per second: NLTK's METEOR vs meteorx's NLTK-exact mode, same tokens.

Scores the Meteor 1.5 example data (``xray.system1.hyp`` and ``xray.system2.hyp``
against ``xray.reference``, 2,489 segments each, tokens ``line.split()``) three ways:

  nltk     ``nltk.translate.meteor_score.meteor_score([ref], hyp)`` (the real NLTK,
           with WordNet 3.0 from the same files, via ``build_nltk_data``)
  compat   ``meteorx.compat.nltk.meteor_score([ref], hyp)``
  preset   ``meteorx.Scorer("nltk").segment(hyp, [ref])``

and asserts that every segment agrees: compat bit for bit, the preset within 1e-9
(meteorx's Fmean expression rounds differently in the last bit). One-off loading
(WordNet, stemmer, plugins) is timed apart from scoring. ``cold`` runs start with
empty caches (meteorx: no memoised stem or synonym set, every reference prepared
again; NLTK: no parsed synset), ``warm`` runs keep what the previous run cached (the
preset still prepares every reference again). Times are CPU seconds, best of
``--repeat`` runs.

Data: ``$METEORX_DATA`` or ``<repo>/../shared/data``.

Usage: python benchmarks/nltk_speed.py [--limit N] [--json OUT]
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

from meteorx.compat import nltk as compat

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))

Pairs = list[tuple[list[str], list[str]]]  # (hypothesis tokens, reference tokens)


def load_pairs(limit: int | None) -> Pairs:
    base = DATA / "meteor15-examples"
    if not base.is_dir():
        sys.exit(f"data not found: {base} (set METEORX_DATA)")

    def lines(name: str) -> list[str]:
        return (base / name).read_text(encoding="utf-8").split("\n")[:-1]

    refs = lines("xray.reference")
    pairs: Pairs = []
    for system in ("xray.system1.hyp", "xray.system2.hyp"):
        hyps = lines(system)
        pairs += [(h.split(), r.split()) for h, r in zip(hyps, refs, strict=True)][:limit]
    return pairs


def timed(
    score: Callable[[list[str], list[str]], float],
    pairs: Pairs,
    repeat: int = 1,
    before: Callable[[], None] | None = None,
) -> tuple[list[float], float]:
    """Scores and the CPU seconds they took, best of ``repeat`` runs (``before`` runs
    untimed ahead of each). CPU time, so other processes on a busy machine distort the
    comparison less; everything here is single-threaded."""
    best = float("inf")
    scores: list[float] = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.process_time()
        scores = [score(h, r) for h, r in pairs]
        best = min(best, time.process_time() - start)
    return scores, best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="segments per system")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best counts")
    args = parser.parse_args()
    pairs = load_pairs(args.limit)
    n = len(pairs)
    results: dict[str, dict[str, float]] = {}

    # -- NLTK itself ---------------------------------------------------------------------
    start = time.process_time()
    compat.build_nltk_data(prepend=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from nltk.corpus import wordnet
        from nltk.translate.meteor_score import meteor_score as nltk_meteor_score

        wordnet.ensure_loaded()
    nltk_load = time.process_time() - start

    def nltk_score(h: list[str], r: list[str]) -> float:
        return float(nltk_meteor_score([r], h))

    def fresh_nltk() -> None:  # NLTK memoises parsed synsets; nothing else
        wordnet._synset_offset_cache.clear()

    reference, cold = timed(nltk_score, pairs, args.repeat, fresh_nltk)
    got, warm = timed(nltk_score, pairs, args.repeat)
    assert got == reference
    results["nltk"] = {"load_s": nltk_load, "cold_s": cold, "warm_s": warm}

    # -- meteorx.compat.nltk.meteor_score ------------------------------------------------
    compat.clear_caches()
    start = time.process_time()
    compat.default_wordnet().load()
    compat.porter_stem_function()  # the stemmer, with an empty memo
    compat_load = time.process_time() - start
    got, cold = timed(
        lambda h, r: compat.meteor_score([r], h), pairs, args.repeat, compat.clear_caches
    )
    bad = [k for k in range(n) if got[k] != reference[k]]
    assert not bad, f"compat differs from NLTK on {len(bad)} segments, first {bad[0]}"
    got, warm = timed(lambda h, r: compat.meteor_score([r], h), pairs, args.repeat)
    assert got == reference
    results["compat"] = {"load_s": compat_load, "cold_s": cold, "warm_s": warm}

    # -- the nltk preset through Scorer --------------------------------------------------
    compat.clear_caches()
    from meteorx.scorer import Scorer

    start = time.process_time()
    scorer = Scorer("nltk")
    scorer.matchers[-1].wordnet.load()  # type: ignore[attr-defined]
    preset_load = time.process_time() - start

    def preset(h: list[str], r: list[str]) -> float:
        return scorer.segment(h, [r]).score

    def fresh_preset() -> None:
        compat.clear_caches()
        scorer._ref_cache.clear()

    got, cold = timed(preset, pairs, args.repeat, fresh_preset)
    worst = max(abs(a - b) for a, b in zip(got, reference, strict=True))
    assert worst <= 1e-9, f"preset differs from NLTK by up to {worst}"
    # Warm memos, but every reference prepared again (as on a new corpus).
    got, warm = timed(preset, pairs, args.repeat, scorer._ref_cache.clear)
    results["preset"] = {"load_s": preset_load, "cold_s": cold, "warm_s": warm, "max_diff": worst}

    # -- report --------------------------------------------------------------------------
    base = results["nltk"]
    print(f"{n} segments (xray system1 + system2), every score checked against NLTK")
    print(f"{'':8} {'load s':>7} {'cold seg/s':>11} {'x NLTK':>7} {'warm seg/s':>11} {'x NLTK':>7}")
    for name, row in results.items():
        for kind in ("cold", "warm"):
            row[f"{kind}_seg_per_s"] = n / row[f"{kind}_s"]
            row[f"{kind}_speedup"] = base[f"{kind}_s"] / row[f"{kind}_s"]
        print(
            f"{name:8} {row['load_s']:7.2f} {row['cold_seg_per_s']:11.0f} "
            f"{row['cold_speedup']:7.1f} {row['warm_seg_per_s']:11.0f} {row['warm_speedup']:7.1f}"
        )
    print(
        f"CPU seconds, best of {args.repeat}; cold = empty memo caches (NLTK: empty synset "
        f"cache), warm = caches filled by the previous run. Preset max |score - NLTK| = "
        f"{results['preset']['max_diff']:.1e}; compat bit-identical."
    )
    if args.json:
        args.json.write_text(json.dumps({"segments": n, **results}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
