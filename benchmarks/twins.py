"""What each compiled twin buys: the same work on the compiled and the pure-Python engine.

Whole runs (every twin a configuration uses, on the xray data, 2,489 segments) and the
twins one at a time, each on inputs recorded from real runs: the beam search and the
optimal search (the candidate links of every xray segment), Meteor's ``-norm``
tokenizer (every xray line), the transfer between processes and the building of
result records (every result of a run). Figures are the best of ``--repeat`` runs,
engines alternating so that load on the machine touches both alike, with the garbage
collector paused as the scorer pauses it. This is what decides whether a twin is
worth its weight.

    python benchmarks/twins.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from meteorx import engine
from meteorx.parallel import decode, encode
from meteorx.registry import get_registry
from meteorx.scorer import SEGMENT_FIELDS, Scorer, SegmentResult, paused_gc
from meteorx.types import make_record

REPO = Path(__file__).resolve().parent.parent
ENGINES = ("c", "python")

#: (row name, preset, language, normalisation)
RUNS = [
    ("li (exact+stem, beam search)", "li", "en", None),
    ("meteor-1.5-en --norm meteor (full English)", "meteor-1.5-en", "en", "meteor"),
    ("meteor-2005 (optimal search)", "meteor-2005", "en", None),
    ("nltk (greedy)", "nltk", "en", None),
]


def _seconds(fn: Callable[[], Any]) -> float:
    with paused_gc():
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start


def _pair(make: Callable[[], Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Best seconds of the callable ``make()`` returns, built on each engine."""
    runs: dict[str, Callable[[], Any]] = {}
    for which in ENGINES:
        with engine.use(which):
            runs[which] = make()
    out = {which: [] for which in ENGINES}  # type: dict[str, list[float]]
    for _ in range(repeat):  # alternate, so both see the same load
        for which in ENGINES:
            with engine.use(which):  # for code that asks the seam when it runs
                out[which].append(_seconds(runs[which]))
    return {which: min(times) for which, times in out.items()}


class _Recorder:
    """An aligner that records what it is asked to align, then aligns it."""

    def __init__(self, aligner: Any) -> None:
        self.aligner = aligner
        self.calls: list[tuple[Any, ...]] = []

    def align(self, *args: Any) -> Any:
        self.calls.append(args)
        return self.aligner.align(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.aligner, name)


def _row(name: str, items: int, seconds: dict[str, float]) -> str:
    c, py = seconds["c"], seconds["python"]
    return f"| {name} | {items:,} | {items / c:,.0f} | {items / py:,.0f} | {py / c:.1f}x |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = args.data / "meteor15-examples"
    refs = (base / "xray.reference").read_text(encoding="utf-8").splitlines()
    hyps = (base / "xray.system1.hyp").read_text(encoding="utf-8").splitlines()
    ref_lists = [[r] for r in refs]
    rows = ["| what | items | C items/s | Python items/s | C gain |", "|---|---:|---:|---:|---:|"]

    for name, preset, language, norm in RUNS:

        def whole(p: str = preset, lang: str = language, n: str | None = norm) -> Any:
            scorer = Scorer(p, language=lang, normalize=n)
            scorer.corpus(hyps[:50], ref_lists[:50])  # loads resources once
            return lambda: scorer.corpus(hyps, ref_lists)

        rows.append(_row(f"whole run: {name}", len(hyps), _pair(whole, args.repeat)))

    for label, preset in (
        ("beam search (li)", "li"),
        ("optimal search (meteor-2005)", "meteor-2005"),
    ):
        with engine.use("c"):
            scorer = Scorer(preset, language="en")
        recorder = _Recorder(scorer.aligner)
        scorer.aligner = recorder  # type: ignore[assignment]  # forwards to the aligner
        scorer.corpus(hyps, ref_lists)
        calls = recorder.calls
        kind = type(recorder.aligner)
        options = {"li": {"beam_size": 40}, "meteor-2005": {"max_states": 20000}}.get(preset, {})

        def aligning(k: Any = kind, o: dict[str, int] = options, c: Any = calls) -> Any:
            aligner = k(k.Options(**o))
            return lambda: [aligner.align(*call) for call in c]

        rows.append(_row(label, len(calls), _pair(aligning, args.repeat)))

    from meteorx.compat.nltk import meteor_score

    pairs = [([r.split()], h.split()) for h, r in zip(hyps, refs, strict=True)]

    def dropping_in() -> Any:
        return lambda: [meteor_score(r, h) for r, h in pairs]

    rows.append(
        _row(
            "NLTK drop-in meteor_score, greedy (pairs)", len(pairs), _pair(dropping_in, args.repeat)
        )
    )

    registry = get_registry()
    lines = hyps + refs

    def tokenizing() -> Any:
        tokenize = registry.tokenizer("meteor")(registry_language("en"))
        return lambda: [tokenize(line) for line in lines]

    rows.append(_row("Meteor -norm tokenizer (lines)", len(lines), _pair(tokenizing, args.repeat)))

    with engine.use("c"):
        results = list(Scorer("li", language="en").corpus(hyps, ref_lists).segments)

    def building() -> Any:
        fast = engine.compiled("meteorx._fastpath")
        build = fast.make_record if fast is not None else make_record
        values = [(r.score, r.breakdown, r.stats, r.alignment, (), (), 0) for r in results]
        return lambda: [build(SegmentResult, SEGMENT_FIELDS, v) for v in values]

    rows.append(_row("make_record (result records)", len(results), _pair(building, args.repeat)))

    def transferring() -> Any:
        # as a worker's queue moves it: pickled, then unpickled by the parent
        return lambda: decode(pickle.loads(pickle.dumps(encode(results, True), protocol=5)))

    rows.append(
        _row("transfer, encode + decode (results)", len(results), _pair(transferring, args.repeat))
    )
    print("\n".join(rows))


def registry_language(code: str) -> Any:
    from meteorx.languages import resolve_language

    return resolve_language(code)


if __name__ == "__main__":
    main()
