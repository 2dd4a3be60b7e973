"""What each compiled twin buys: the same work on the compiled and the pure-Python engine.

Whole runs (every twin a configuration uses, on the xray data, 2,489 segments) and the
twins one at a time, each on inputs recorded from real runs; every compiled module has
a row of its own (the ``twin`` column):

* ``meteorx.align._fast``: the beam search and the optimal search (the candidate links
  of every xray segment);
* ``meteorx._links_and_counts``: the building of result records (every result of a run);
* ``meteorx._transfer``: results between processes (every result of a run, as a worker
  sends them: encoded, the reply pickled and unpickled, decoded);
* ``meteorx_plugins.paraphrase._phrase_lookup``: the paraphrase matcher (every sentence
  and pair the meteor-1.5-en scorer gives it on the xray data, English table);
* ``meteorx_plugins.meteor_norm._norm_tokenizer``: Meteor's ``-norm`` tokenizer (every
  xray line);
* ``meteorx_plugins.nltk_compat._greedy``: NLTK's greedy alignment (every xray pair,
  NLTK's preprocessing; its stemmer and WordNet memoised, as in a run), and NLTK's
  ``meteor_score`` drop-in around it.

Both engines must give the same results (compared by ``repr``), or the run stops.
Figures are the best of ``--repeat`` runs, engines alternating so that load on the
machine touches both alike, with the garbage collector paused as the scorer pauses it.
This is what decides whether a twin is worth its weight. Needs the shared data folder
(``--data``), WordNet and the English paraphrase table (``pip install pycocoevalcap``).

    python benchmarks/twins.py [--repeat 5] [--data DIR]
"""

from __future__ import annotations

import argparse
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from meteorx import engine
from meteorx.metric import SEGMENT_FIELDS, Scorer, SegmentResult, paused_gc
from meteorx.registry import get_registry
from meteorx.types import make_record
from meteorx.worker_pool import decode_results, encode_results, transfer_kernel

REPO = Path(__file__).resolve().parent.parent
ENGINES = ("c", "python")

#: (row name, preset, language, normalisation)
RUNS = [
    ("li (exact+stem, beam search)", "li", "en", None),
    ("meteor-1.5-en --norm meteor (full English)", "meteor-1.5-en", "en", "meteor"),
    ("meteor-2005 (optimal search)", "meteor-2005", "en", None),
    ("nltk (greedy)", "nltk", "en", None),
]


def _seconds(fn: Callable[[], Any]) -> tuple[float, Any]:
    with paused_gc():
        start = time.perf_counter()
        result = fn()
        return time.perf_counter() - start, result


def _pair(make: Callable[[], Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Best seconds of the callable ``make()`` returns, built on each engine; the two
    must return the same (by ``repr``)."""
    runs: dict[str, Callable[[], Any]] = {}
    for which in ENGINES:
        with engine.use(which):
            runs[which] = make()
    out = {which: [] for which in ENGINES}  # type: dict[str, list[float]]
    for r in range(repeat):  # alternate, so both see the same load
        results = {}
        for which in ENGINES:
            with engine.use(which):  # for code that asks the seam when it runs
                seconds, results[which] = _seconds(runs[which])
            out[which].append(seconds)
        if r == 0 and len({repr(result) for result in results.values()}) != 1:
            raise SystemExit(f"the engines' results differ: {make.__name__}")
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


def _row(name: str, twin: str, items: int, seconds: dict[str, float]) -> str:
    c, py = seconds["c"], seconds["python"]
    return f"| {name} | {twin} | {items:,} | {items / c:,.0f} | {items / py:,.0f} | {py / c:.1f}x |"


class _ParaphraseRecorder:
    """Records the sentences and pairs a scorer's paraphrase matcher is given."""

    def __init__(self) -> None:
        self.sentences: dict[int, tuple[str, ...]] = {}  # id(prepared) -> its tokens
        self.pairs: list[tuple[tuple[str, ...], tuple[str, ...]]] = []

    def install(self, matcher_class: Any) -> Callable[[], None]:
        prepare, candidates = matcher_class.prepare, matcher_class.candidates

        def recording_prepare(matcher: Any, tokens: Any) -> Any:
            prepared = prepare(matcher, tokens)
            self.sentences[id(prepared)] = tuple(tokens)
            return prepared

        def recording_candidates(matcher: Any, hyp: Any, ref: Any) -> Any:
            self.pairs.append((self.sentences[id(hyp)], self.sentences[id(ref)]))
            return candidates(matcher, hyp, ref)

        matcher_class.prepare = recording_prepare
        matcher_class.candidates = recording_candidates

        def uninstall() -> None:
            matcher_class.prepare, matcher_class.candidates = prepare, candidates

        return uninstall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=REPO.parent / "shared" / "data",
        help="the shared data folder, holding meteor15-examples (default: %(default)s)",
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="runs per engine; the best counts (default: 5)"
    )
    args = parser.parse_args()
    base = args.data / "meteor15-examples"
    refs = (base / "xray.reference").read_text(encoding="utf-8").splitlines()
    hyps = (base / "xray.system1.hyp").read_text(encoding="utf-8").splitlines()
    ref_lists = [[r] for r in refs]
    rows = [
        "| what | twin | items | C items/s | Python items/s | C gain |",
        "|---|---|---:|---:|---:|---:|",
    ]

    for name, preset, language, norm in RUNS:

        def whole(p: str = preset, lang: str = language, n: str | None = norm) -> Any:
            scorer = Scorer(p, language=lang, normalize=n)
            scorer.corpus(hyps[:50], ref_lists[:50])  # loads resources once
            return lambda: scorer.corpus(hyps, ref_lists)

        rows.append(_row(f"whole run: {name}", "all it uses", len(hyps), _pair(whole, args.repeat)))

    search_twin = "meteorx.align._fast"
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

        rows.append(_row(label, search_twin, len(calls), _pair(aligning, args.repeat)))

    rows.append(_paraphrase_row(hyps, ref_lists, args.repeat))

    from meteorx.compat.nltk import meteor_score
    from meteorx_plugins.nltk_compat.links import COMPILED as GREEDY
    from meteorx_plugins.nltk_compat.links import greedy_module, token_aligner

    pairs = [([r.split()], h.split()) for h, r in zip(hyps, refs, strict=True)]
    lowered = [
        ([w.lower() for w in h.split()], [w.lower() for w in r.split()])
        for h, r in zip(hyps, refs, strict=True)
    ]

    def greedy_aligning() -> Any:
        align = token_aligner(module=greedy_module())
        [align(h, r) for h, r in lowered]  # memoises the stems and synonyms both share
        return lambda: [align(h, r) for h, r in lowered]

    rows.append(
        _row(
            "NLTK greedy alignment (pairs)",
            GREEDY,
            len(lowered),
            _pair(greedy_aligning, args.repeat),
        )
    )

    def dropping_in() -> Any:
        return lambda: [meteor_score(r, h) for r, h in pairs]

    rows.append(
        _row(
            "NLTK drop-in meteor_score, greedy (pairs)",
            GREEDY,
            len(pairs),
            _pair(dropping_in, args.repeat),
        )
    )

    registry = get_registry()
    lines = hyps + refs

    def tokenizing() -> Any:
        tokenize = registry.tokenizer("meteor")(registry_language("en"))
        return lambda: [tokenize(line) for line in lines]

    rows.append(
        _row(
            "Meteor -norm tokenizer (lines)",
            "meteorx_plugins.meteor_norm._norm_tokenizer",
            len(lines),
            _pair(tokenizing, args.repeat),
        )
    )

    with engine.use("c"):
        results = list(Scorer("li", language="en").corpus(hyps, ref_lists).segments)

    def building() -> Any:
        fast = engine.compiled("meteorx._links_and_counts")
        build = fast.make_record if fast is not None else make_record
        values = [(r.score, r.breakdown, r.stats, r.alignment, (), (), 0) for r in results]
        return lambda: [build(SegmentResult, SEGMENT_FIELDS, v) for v in values]

    rows.append(
        _row(
            "make_record (result records)",
            "meteorx._links_and_counts",
            len(results),
            _pair(building, args.repeat),
        )
    )

    def transferring() -> Any:
        kernel = transfer_kernel()  # as a pool picks it

        def send() -> Any:  # a worker's reply, pickled by its pipe, read by the parent
            reply = (0, None, *encode_results(kernel, results, True))
            _, _, data, by_definition = pickle.loads(pickle.dumps(reply, protocol=5))
            return decode_results(kernel, data, by_definition)

        return send

    rows.append(
        _row(
            "transfer, encode + decode (results)",
            "meteorx._transfer",
            len(results),
            _pair(transferring, args.repeat),
        )
    )
    print("\n".join(rows))


def _paraphrase_row(hyps: list[str], ref_lists: list[list[str]], repeat: int) -> str:
    """The paraphrase matcher on what the meteor-1.5-en scorer gives it on the xray
    data: every distinct sentence prepared, then every pair's candidates."""
    from meteorx_plugins.paraphrase.matcher import NATIVE, ParaphraseMatcher

    recorder = _ParaphraseRecorder()
    uninstall = recorder.install(ParaphraseMatcher)
    try:
        with engine.use("c"):
            scorer = Scorer("meteor-1.5-en", language="en", normalize="meteor")
        scorer.corpus(hyps, ref_lists)
    finally:
        uninstall()
    (recorded,) = [m for m in scorer.matchers if isinstance(m, ParaphraseMatcher)]
    pairs = recorder.pairs
    sentences = list(dict.fromkeys(s for pair in pairs for s in pair))

    def matching() -> Any:
        matcher = ParaphraseMatcher(recorded.options, recorded.language)

        def run() -> list[Any]:
            prepared = {tokens: matcher.prepare(tokens) for tokens in sentences}
            return [matcher.candidates(prepared[h], prepared[r]) for h, r in pairs]

        return run

    return _row(
        f"paraphrase matcher, prepare + candidates (pairs; {len(sentences):,} sentences)",
        NATIVE,
        len(pairs),
        _pair(matching, repeat),
    )


def registry_language(code: str) -> Any:
    from meteorx.languages import resolve_language

    return resolve_language(code)


if __name__ == "__main__":
    main()
