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
largest difference is printed).

Each contender runs in a fresh process of its own (so what one has loaded, such as
the ~400,000 objects of NLTK's WordNet reader that Python's cyclic garbage collector
keeps walking, does not slow the others), loads its resources there (``load s``,
timed apart), then scores every segment ``--repeat`` times from empty caches
(``cold``: meteorx without memoised stems, synsets or synonym sets and, for the
preset, with a new Scorer; NLTK without parsed synsets) and ``--repeat`` times keeping
the per-word memos of the previous run (``warm``; the preset still gets a new Scorer,
so every reference is prepared again, as on a new corpus). Times are CPU seconds, the
best run counts; ``x NLTK`` compares cold with cold and warm with warm.

Data: ``$METEORX_DATA`` or ``<repo>/../shared/data``.

Usage: python benchmarks/nltk_speed.py [--limit N] [--repeat R] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
CONTENDERS = ("nltk", "compat", "preset", "preset-lines")

Lines = list[tuple[str, str]]  # (hypothesis line, reference line)
Scores = list[float]


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
    run: Callable[[], Scores], repeat: int, before: Callable[[], None]
) -> tuple[Scores, float]:
    """Scores and the CPU seconds ``run`` took, best of ``repeat`` runs (``before`` runs
    untimed ahead of each). CPU time, so other processes on a busy machine distort the
    comparison less; everything here is single-threaded."""
    best = float("inf")
    scores: Scores = []
    for _ in range(repeat):
        before()
        start = time.process_time()
        scores = run()
        best = min(best, time.process_time() - start)
    return scores, best


def _nothing() -> None:
    pass


def measure(name: str, systems: list[Lines], repeat: int) -> dict[str, Any]:
    """Load, cold runs, warm runs of one contender (in this process)."""
    from meteorx.compat import nltk as compat
    from meteorx_plugins import nltk_compat
    from meteorx_plugins.wordnet import shared_synonyms

    pairs = [(h.split(), r.split()) for system in systems for h, r in system]
    start = time.process_time()
    run: Callable[[], Scores]
    cold_start: Callable[[], None]
    warm_start: Callable[[], None] = _nothing
    if name == "nltk":
        nltk_compat.build_nltk_data(prepend=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from nltk.corpus import wordnet
            from nltk.translate.meteor_score import meteor_score as nltk_meteor_score

            wordnet.ensure_loaded()

        def run() -> Scores:
            return [float(nltk_meteor_score([r], h)) for h, r in pairs]

        def cold_start() -> None:  # NLTK memoises parsed synsets; nothing else
            wordnet._synset_offset_cache.clear()

    elif name == "compat":
        shared_synonyms().load()
        nltk_compat.porter_stem_function()
        meteor_score = compat.meteor_score

        def run() -> Scores:
            return [meteor_score([r], h) for h, r in pairs]

        cold_start = nltk_compat.clear_caches
    else:
        from meteorx.metric import Scorer

        scorer = Scorer("nltk")
        scorer.matchers[-1].wordnet.load()  # type: ignore[attr-defined]

        def warm_start() -> None:
            nonlocal scorer
            scorer = Scorer("nltk")

        def cold_start() -> None:
            nltk_compat.clear_caches()
            warm_start()

        if name == "preset":

            def run() -> Scores:
                segment = scorer.segment
                return [segment(h, [r]).score for h, r in pairs]

        else:

            def run() -> Scores:
                scores: Scores = []
                for system in systems:
                    result = scorer.corpus([h for h, _ in system], [r for _, r in system])
                    scores += [s.score for s in result.segments]
                return scores

    load = time.process_time() - start
    cold_scores, cold = timed(run, repeat, cold_start)
    warm_scores, warm = timed(run, repeat, warm_start)
    if warm_scores != cold_scores:
        raise SystemExit(f"{name}: warm and cold runs disagree")
    return {"load_s": load, "cold_s": cold, "warm_s": warm, "scores": cold_scores}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="segments per system")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best counts")
    parser.add_argument("--worker", choices=CONTENDERS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    systems = load_lines(args.limit)
    if args.worker:  # one contender, in a process of its own: JSON on stdout
        json.dump(measure(args.worker, systems, args.repeat), sys.stdout)
        return 0

    results: dict[str, dict[str, Any]] = {}
    for name in CONTENDERS:
        command = [sys.executable, __file__, "--worker", name, "--repeat", str(args.repeat)]
        if args.limit is not None:
            command += ["--limit", str(args.limit)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode:
            sys.exit(f"{name} failed:\n{done.stderr}")
        results[name] = json.loads(done.stdout)
    reference = results["nltk"]["scores"]
    n = len(reference)
    base = results["nltk"]
    print(f"{n} segments (xray system1 + system2, whitespace tokens); CPU s, best of {args.repeat}")
    print(
        f"{'':13} {'load s':>7} {'cold seg/s':>11} {'x NLTK':>7} {'warm seg/s':>11} "
        f"{'x NLTK':>7}  scores identical to NLTK's"
    )
    for name, row in results.items():
        got = row.pop("scores")
        row["identical"] = sum(a == b for a, b in zip(got, reference, strict=True))
        row["max_diff"] = max(
            (abs(a - b) for a, b in zip(got, reference, strict=True)), default=0.0
        )
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
        "Each row in a fresh process; cold = empty memo caches (NLTK: no parsed synset; "
        "preset: also a new Scorer), warm = per-word memos kept from the previous run."
    )
    if args.json:
        args.json.write_text(json.dumps({"segments": n, **results}, indent=2), encoding="utf-8")
    return 0 if results["compat"]["identical"] == n else 1


if __name__ == "__main__":
    raise SystemExit(main())
