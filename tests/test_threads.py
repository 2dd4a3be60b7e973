"""Threads sharing a scorer get, bit for bit, the results of one thread scoring alone.

Eight threads share one scorer, the one ``meteorx.score`` shares implicitly for the
configuration, and score 2,000 xray pairs through each of ``meteorx.score``,
``Scorer.segment`` and ``Scorer.corpus`` (in chunks), every thread taking the chunks in
an order of its own, all starting at once on the fresh scorer: new words reach the
word tables from all threads at the same time, and with a low word limit every
thread's tables are also rebuilt mid-run. Every result must equal (``repr``: every
bit of every float) the one a fresh scorer gives scoring the same pairs one after
another in one thread, on each engine, with no exception.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import meteorx
from meteorx import api, engine
from meteorx.api import build_scorer
from meteorx.metric import Scorer, SegmentResult
from tests.conftest import require_full_english, require_wordnet

#: id -> (config as meteorx.score takes it, what it needs); None is meteorx.score's
#: default: English's meteor-1.5-en with the jar's -norm
CONFIGS: dict[str, tuple[str | None, Callable[[], None] | None]] = {
    "default-en": (None, require_full_english),
    "meteor-2005": ("meteor-2005", require_wordnet),
    "li": ("li", None),
    "meteorx": ("meteorx", None),
    "nltk": ("nltk", require_wordnet),
}
THREADS = 8
PAIRS = 2_000
CHUNK = 25  # pairs per task
WORD_LIMIT = 1_000  # distinct words a thread's tables hold before they are rebuilt

Pair = tuple[str, str]


def _pairs(xray: dict[str, list[str]]) -> list[Pair]:
    """2,000 pairs: two systems' first 1,000 hypotheses, against the same references
    (so references recur, from different threads)."""
    half = PAIRS // 2
    return [
        (hyp, ref)
        for system in ("system1", "system2")
        for hyp, ref in zip(xray[system][:half], xray["ref"][:half], strict=True)
    ]


@contextmanager
def _engine(which: str) -> Iterator[None]:
    """Run on engine ``which`` (the compiled one skips unless every module is built)."""
    with engine.use(which):
        if which == "c":
            missing = [name for name, _, state in engine.report() if state != "in use"]
            if missing:
                pytest.skip(f"compiled modules not built: {', '.join(missing)}")
        yield


@contextmanager
def _switching_often() -> Iterator[None]:
    """Threads switch every 0.1 ms (instead of 5 ms) meanwhile."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def _score(config: str | None, hyp: str, ref: str) -> SegmentResult:
    """``meteorx.score`` as a user calls it (no arguments for the default)."""
    if config is None:
        return meteorx.score(hyp, ref)
    return meteorx.score(hyp, ref, config, language="en")


def _shared(config: str | None) -> Scorer:
    """The scorer :func:`_score` uses (``meteorx.score``'s, built on first use)."""
    return build_scorer(config, language=None if config is None else "en", shared=True)


def _run_threads(config: str | None, scorer: Scorer, pairs: list[Pair]) -> tuple[
    list[tuple[str, int, Any]], list[BaseException]
]:  # fmt: skip
    """Every chunk of ``pairs`` through each entry point, on :data:`THREADS` threads
    sharing ``scorer``: the (entry point, chunk start, result) of each task, and the
    exceptions raised."""
    tasks = [
        (how, start)
        for how in ("score", "segment", "corpus")
        for start in range(0, len(pairs), CHUNK)
    ]
    random.Random(0).shuffle(tasks)
    done: list[tuple[str, int, Any]] = []
    errors: list[BaseException] = []
    start_together = threading.Barrier(THREADS)

    def work(k: int) -> None:
        mine = tasks[k::THREADS]
        random.Random(k).shuffle(mine)  # each thread its own order
        start_together.wait()
        for how, start in mine:
            chunk = pairs[start : start + CHUNK]
            try:
                if how == "corpus":
                    result: Any = scorer.corpus([h for h, _ in chunk], [[r] for _, r in chunk])
                elif how == "segment":
                    result = [scorer.segment(h, r) for h, r in chunk]
                else:
                    result = [_score(config, h, r) for h, r in chunk]
            except Exception as error:  # counted: the test says how many and which
                errors.append(error)
                continue
            done.append((how, start, result))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return done, errors


@pytest.mark.slow
@pytest.mark.parametrize("which", ["c", "python"])
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_threads_sharing_a_scorer_score_as_one_thread_does(
    name: str, which: str, xray: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    config, need = CONFIGS[name]
    if need is not None:
        need()
    pairs = _pairs(xray)
    with _engine(which):
        alone = build_scorer(config, language="en")  # a scorer of its own, one thread
        expected = [alone.segment(h, r) for h, r in pairs]
        # the threads start from a fresh shared scorer (the one meteorx.score uses),
        # whose tables fill up, and are rebuilt, while they score
        monkeypatch.setattr(api, "_SHARED", {})
        monkeypatch.setattr("meteorx.word_ids.MAX_WORDS", WORD_LIMIT)
        shared = _shared(config)
        with _switching_often():
            done, errors = _run_threads(config, shared, pairs)
    # meteorx.score used the same scorer: no other was built
    assert all(scorer is shared for scorer in api._SHARED.values())

    wrong = []
    for how, start, result in done:
        want = expected[start : start + CHUNK]
        segments = result.segments if how == "corpus" else result
        pairs_wrong = [
            i for i, (a, b) in enumerate(zip(segments, want, strict=True)) if repr(a) != repr(b)
        ]
        wrong += [f"{how} pair {start + i}" for i in pairs_wrong]
        if how == "corpus":
            total = alone.combine(want, refs=1)
            if repr((result.score, result.stats, result.signature)) != repr(
                (total.score, total.stats, total.signature)
            ):
                wrong.append(f"corpus of pairs {start}..{start + len(want) - 1}")
    kinds = sorted({f"{type(e).__name__}: {e}"[:80] for e in errors})
    assert not errors and not wrong, (
        f"{len(errors)} of {len(errors) + len(done)} tasks raised (e.g. {kinds[:2]}); "
        f"{len(wrong)} results differ from one thread's (e.g. {wrong[:3]})"
    )
    assert len(done) == 3 * len(range(0, PAIRS, CHUNK))


@pytest.mark.parametrize("backend", ["PyStemmer", "snowballstemmer"])
def test_a_snowball_stem_function_may_be_shared_by_threads(
    backend: str, monkeypatch: pytest.MonkeyPatch, xray: dict[str, list[str]]
) -> None:
    """A Snowball stemmer object keeps the word it stems in itself; the stem function
    the matchers share (stem, case, OMW) gives every thread the right stems."""
    from meteorx_plugins.core import snowball_stemmer

    if backend == "snowballstemmer":
        monkeypatch.setitem(sys.modules, "Stemmer", None)  # import Stemmer fails
    else:
        pytest.importorskip("Stemmer", reason="PyStemmer is not installed")
    words = sorted({w.lower() for line in xray["ref"] for w in line.split()})[:4000]
    one_thread = snowball_stemmer("english")
    expected = [one_thread(w) for w in words]
    shared = snowball_stemmer("english")
    wrong: list[str] = []
    errors: list[BaseException] = []

    def work(k: int) -> None:
        for i in range(k, len(words)) if k % 2 else range(len(words) - 1 - k, -1, -1):
            try:
                if shared(words[i]) != expected[i]:
                    wrong.append(words[i])
            except Exception as error:
                errors.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    with _switching_often():
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors and not wrong, (
        f"{len(errors)} calls raised (e.g. {errors[:1]}); {len(wrong)} wrong stems {wrong[:5]}"
    )


def test_processes_get_a_scorer_from_its_configuration() -> None:
    """What the README says of processes: a Meteor pickles as its validated
    configuration (not its tokenizer, matchers and compiled state), and the process
    that receives it builds one that scores the same."""
    import concurrent.futures
    import multiprocessing

    scorer = Scorer("li", language="en")
    hyp, ref = "the cat sat on the mats", "a cat was sitting on the mat"
    context = multiprocessing.get_context("spawn")  # nothing inherited from this process
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        remote = pool.submit(Scorer.segment, scorer, hyp, ref).result()
    assert repr(remote) == repr(scorer.segment(hyp, ref))


_FIRST_USE_IN_THREADS = """
from concurrent.futures import ThreadPoolExecutor
import meteorx
pairs = [("the cat sat on the mat", "a cat sat on a mat"), ("dogs ran home", "the dog runs")]
with ThreadPoolExecutor(max_workers=8) as pool:
    scores = list(pool.map(lambda p: meteorx.score(*p, "li", language="en").score, pairs * 50))
assert scores == [meteorx.score(h, r, "li", language="en").score for h, r in pairs] * 50
"""


@pytest.mark.parametrize("attempt", range(3))
def test_threads_that_load_the_plugins_first_all_find_them(attempt: int) -> None:
    """Plugins load when first asked for: threads of a fresh process asking at once
    each find the preset and the function words (one of them loads the plugin while
    the others wait; they used to see "unknown preset 'li'")."""
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_USE_IN_THREADS], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
