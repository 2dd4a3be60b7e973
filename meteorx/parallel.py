"""Scoring many segments in several processes, with identical results, and progress bars.

``score_pairs(scorer, pairs, jobs=N)`` cuts the segments into chunks (segments sharing
a reference together, so each process prepares a reference once). Where the platform
forks (Linux), N - 1 worker processes inherit the scorer and the segments — the scorer
is built once, nothing is sent to the workers — and they and the calling process take
chunks from shared counters (each its own contiguous run first: :class:`_Regions`);
workers send their results back as bytes (:func:`encode`), which the caller decodes
into :class:`SegmentResult` objects. Elsewhere a pool of N workers each builds
one scorer from the validated configuration. Results come back in input order and
equal the single-process ones, so sums of statistics — and therefore every corpus
score — are identical.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain, repeat
from operator import attrgetter
from typing import Any, Protocol

from meteorx.config import MeteorConfig
from meteorx.errors import MeteorxError
from meteorx.scorer import SEGMENT_FIELDS, Scorer, SegmentResult, paused_gc
from meteorx.scoring import BREAKDOWN_FIELDS, Breakdown
from meteorx.stats import STATS_FIELDS, Stats
from meteorx.types import ALIGNMENT_FIELDS, Alignment, Match, make_record

#: One task: a hypothesis and its references.
Pair = tuple[str, Sequence[str]]

_WORKER_SCORER: Scorer | None = None  # a pool worker's scorer (spawn platforms)

try:  # results to bytes and back in C (meteorx/_transfer.pyx), when it is built
    from meteorx import _transfer
except ImportError:  # pragma: no cover - without the extension: pickled packed tuples
    _transfer = None  # type: ignore[assignment]


class Progress(Protocol):
    """What the scoring loops need from a progress bar."""

    def update(self, n: int = 1) -> Any: ...


class _Silent:
    def update(self, n: int = 1) -> None:
        return None


@contextmanager
def progress_bar(
    total: int, description: str = "scoring", enabled: bool | None = None, unit: str = "seg"
) -> Iterator[Progress]:
    """A tqdm progress bar on stderr, or a silent stand-in.

    ``enabled=None`` (the default) shows the bar only when stderr is a terminal; the
    bar itself appears only once the run has lasted two seconds, so quick runs stay
    silent. ``enabled=False`` (``--quiet``) never shows it.
    """
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield _Silent()
        return
    try:
        tqdm: Any = importlib.import_module("tqdm").tqdm
    except ImportError:  # tqdm is optional at run time
        yield _Silent()
        return
    # No monitor thread: worker processes are forked while the bar is shown.
    bar_class = type("MeteorxBar", (tqdm,), {"monitor_interval": 0})
    bar = bar_class(
        total=total,
        desc=description,
        unit=unit,
        file=sys.stderr,
        delay=2.0,
        dynamic_ncols=True,
        leave=False,
    )
    try:
        yield bar
    finally:
        bar.close()


def _init_worker(config: MeteorConfig | None) -> None:
    global _WORKER_SCORER
    if config is not None:  # spawn / forkserver: build the scorer once per worker
        _WORKER_SCORER = Scorer(config)


#: A segment result as a flat tuple of numbers, strings and tuples of those. Unpickling
#: dataclasses, named tuples and one string per token costs the parent process about a
#: quarter of the scoring time; this form (the records' field values as tuples, tokens
#: joined into one string, links into one tuple of ints) costs a few per cent, and
#: rebuilding the records with ``make_record`` (no instance ``__dict__``) keeps them as
#: small as the scorer's own.
Packed = tuple[Any, ...]
_SEP = "\x1f"  # the ASCII unit separator: never inside a token in practice

_MATCH_SIZE = len(Match._fields)
_NO_TOKENS: tuple[str, ...] = ()


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A C-level function returning an object's ``names`` attributes as a tuple."""
    get = attrgetter(*names)
    if len(names) == 1:  # pragma: no cover - attrgetter returns the bare value
        return lambda obj: (get(obj),)
    return get


_stats_values = _getter(STATS_FIELDS)
_breakdown_values = _getter(BREAKDOWN_FIELDS)


def _join(tokens: tuple[str, ...]) -> str | tuple[str, ...]:
    joined = _SEP.join(tokens)
    return joined if joined.count(_SEP) == max(len(tokens) - 1, 0) else tokens


def _split(packed: str | tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(packed, tuple):
        return packed
    return tuple(packed.split(_SEP)) if packed else ()


def _shared_split(
    packed: str | tuple[str, ...], shared: dict[Any, tuple[str, ...]] | None
) -> tuple[str, ...]:
    if shared is None:
        return _split(packed)
    tokens = shared.get(packed)
    if tokens is None:
        tokens = shared[packed] = _split(packed)
    return tokens


def pack(result: SegmentResult, detail: bool = True) -> Packed:
    """A :class:`SegmentResult` as a flat tuple (see :data:`Packed`).

    Without ``detail`` the links and tokens are left out (see :func:`score_pairs`).
    """
    a = result.alignment
    if not detail:
        return (
            result.score, _breakdown_values(result.breakdown), _stats_values(result.stats),
            (), a.chunks, a.optimal, "", "", result.ref_index,
        )  # fmt: skip
    return (
        result.score, _breakdown_values(result.breakdown), _stats_values(result.stats),
        tuple(chain.from_iterable(a.matches)), a.chunks, a.optimal,
        _join(result.hyp_tokens), _join(result.ref_tokens), result.ref_index,
    )  # fmt: skip


def without_detail(result: SegmentResult) -> SegmentResult:
    """``result`` without its links and tokens (scores, statistics, chunks kept)."""
    a = result.alignment
    light: SegmentResult = make_record(SegmentResult, SEGMENT_FIELDS, (
        result.score, result.breakdown, result.stats,
        make_record(Alignment, ALIGNMENT_FIELDS, ((), a.chunks, a.optimal)),
        _NO_TOKENS, _NO_TOKENS, result.ref_index,
    ))  # fmt: skip
    return light


def unpack(packed: Packed, shared: dict[Any, tuple[str, ...]] | None = None) -> SegmentResult:
    """Inverse of :func:`pack`.

    ``shared`` (a dict kept across calls) lets results with the same reference share
    one token tuple instead of each building its own.
    """
    return unpack_all([packed], shared)[0]


def unpack_all(
    packed: Sequence[Packed], shared: dict[Any, tuple[str, ...]] | None = None
) -> list[SegmentResult]:
    """:func:`unpack` of every element, in one loop (no Python call per result)."""
    record = make_record
    segment, alignment, stats, breakdown = SegmentResult, Alignment, Stats, Breakdown
    result_names, alignment_names = SEGMENT_FIELDS, ALIGNMENT_FIELDS
    stats_names, breakdown_names = STATS_FIELDS, BREAKDOWN_FIELDS
    if all(not p[3] and not p[6] and not p[7] for p in packed):  # no links, no tokens
        return [
            record(segment, result_names, (
                score, record(breakdown, breakdown_names, b), record(stats, stats_names, s),
                record(alignment, alignment_names, ((), chunks, optimal)),
                _NO_TOKENS, _NO_TOKENS, ref_index,
            ))
            for score, b, s, _, chunks, optimal, _, _, ref_index in packed
        ]  # fmt: skip
    if shared is None:
        shared = {}
    new = tuple.__new__  # Match is a named tuple: this is Match._make without its checks
    size = _MATCH_SIZE
    return [
        record(segment, result_names, (
            score, record(breakdown, breakdown_names, b), record(stats, stats_names, s),
            record(alignment, alignment_names, (
                tuple(map(new, repeat(Match), zip(*[iter(links)] * size, strict=True))),
                chunks, optimal,
            )),
            _split(hyp), _shared_split(ref, shared), ref_index,
        ))
        for score, b, s, links, chunks, optimal, hyp, ref, ref_index in packed
    ]  # fmt: skip


#: Results as one worker sends them: bytes from ``_transfer.encode``, or the packed
#: tuples (pickled by the queue) where that is not built or a value is not its kind.
Encoded = bytes | list[Packed]


def encode(results: list[SegmentResult], detail: bool = True) -> Encoded:
    """``results`` in the form sent between processes (see :data:`Encoded`).

    The C form holds the same values as :func:`pack` (floats bit for bit) and costs a
    third of pickling the packed tuples to write and to read back.
    """
    if _transfer is not None:
        data = _transfer.encode(results, detail, Match, STATS_FIELDS, BREAKDOWN_FIELDS)
        if data is not None:
            return data
    return [pack(result, detail) for result in results]


def decode(encoded: Encoded) -> list[SegmentResult]:
    """Inverse of :func:`encode`."""
    if isinstance(encoded, bytes):
        assert _transfer is not None
        decoded: list[SegmentResult] = _transfer.decode(
            encoded, SegmentResult, Alignment, Stats, Breakdown, Match,
            SEGMENT_FIELDS, ALIGNMENT_FIELDS, STATS_FIELDS, BREAKDOWN_FIELDS,
        )  # fmt: skip
        return decoded
    return unpack_all(encoded)


def _score_chunk(task: tuple[Sequence[Pair], bool]) -> Encoded:
    chunk, detail = task
    scorer = _WORKER_SCORER
    if scorer is None:  # pragma: no cover - a worker without initialiser
        raise RuntimeError("worker process has no scorer")
    with paused_gc():
        return encode([scorer.segment(hyp, list(refs)) for hyp, refs in chunk], detail)


def _chunks(pairs: Sequence[Pair], size: int) -> list[Sequence[Pair]]:
    return [pairs[i : i + size] for i in range(0, len(pairs), size)]


def default_jobs() -> int:
    """The number of CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def score_pairs(
    scorer: Scorer,
    pairs: Sequence[Pair],
    jobs: int = 1,
    progress: Progress | None = None,
    detail: bool = True,
) -> list[SegmentResult]:
    """Score every (hypothesis, references) pair, in ``jobs`` processes.

    ``jobs <= 0`` uses every available CPU. The result list is in input order and
    identical to ``[scorer.segment(h, r) for h, r in pairs]``.

    ``detail=False`` leaves the links (``alignment.matches``) and the tokens out of
    the results — scores, breakdowns, statistics, chunk counts and best references
    are kept. Moving full alignments between processes costs the collecting process
    about a fifth of the scoring time; without them, almost nothing. Use it when only
    scores and statistics are needed (``meteorx score``, tuning).
    """
    if jobs <= 0:
        jobs = default_jobs()
    update: Callable[[int], Any] = progress.update if progress is not None else _Silent().update
    if jobs == 1 or len(pairs) < 2 * jobs:
        results = []
        with paused_gc():
            for hyp, refs in pairs:
                result = scorer.segment(hyp, list(refs))
                results.append(result if detail else without_detail(result))
                update(1)
        return results
    # Tasks sharing a reference go to the same chunk where possible (each process
    # prepares a reference once: the scorer caches it); results return in input order.
    order = _by_reference(pairs)
    tasks = [pairs[i] for i in order]
    # Small chunks balance the load and keep the progress bar moving.
    size = max(1, min(200, len(tasks) // (jobs * 16)))
    chunks = _chunks(tasks, size)
    if "fork" in multiprocessing.get_all_start_methods():
        done = _run_forked(scorer, chunks, jobs, update, detail)
    else:  # pragma: no cover - macOS / Windows: spawn, data sent to a pool
        done = _run_pool(scorer, chunks, jobs, update, detail)
    flat = [result for chunk in done for result in chunk]
    results_in_order: list[SegmentResult | None] = [None] * len(pairs)
    for i, result in zip(order, flat, strict=True):
        results_in_order[i] = result
    return results_in_order  # type: ignore[return-value]


def _by_reference(pairs: Sequence[Pair]) -> list[int]:
    """The positions of ``pairs``, those with the same references together (groups in
    order of first appearance, positions in order within a group)."""
    groups: dict[tuple[Any, ...], int] = {}
    try:
        group = [groups.setdefault(tuple(refs), len(groups)) for _, refs in pairs]
    except TypeError:  # references given as token lists (unhashable): sort them
        return sorted(range(len(pairs)), key=lambda i: tuple(pairs[i][1]))
    return sorted(range(len(pairs)), key=group.__getitem__)


def _run_forked(
    scorer: Scorer,
    chunks: list[Sequence[Pair]],
    jobs: int,
    update: Callable[[int], Any],
    detail: bool,
) -> list[list[SegmentResult]]:
    """``jobs - 1`` forked workers and this process take chunks (:class:`_Regions`).

    The workers inherit the scorer and the tasks (nothing is sent to them) and send
    back encoded results (:func:`encode`); this process scores chunks too, so it keeps
    working instead of only decoding results, and decodes only the workers' share.
    """
    global _FORK_STATE
    context = multiprocessing.get_context("fork")
    counter = _Regions(context, len(chunks), jobs)
    queue: Any = context.Queue()
    _FORK_STATE = (scorer, chunks, counter, queue, detail)
    workers = [context.Process(target=_fork_worker, args=(k,), daemon=True) for k in range(1, jobs)]
    done: list[list[SegmentResult] | None] = [None] * len(chunks)
    try:
        # The collector is paused before the fork, so the workers never run it either:
        # a collection would write to every inherited object (copy-on-write faults).
        with paused_gc():
            for worker in workers:
                worker.start()
            while True:
                index = counter.take(0)
                if index is None:
                    break
                scored = [scorer.segment(h, list(r)) for h, r in chunks[index]]
                done[index] = scored if detail else [without_detail(x) for x in scored]
                update(len(chunks[index]))
                _drain(queue, done, update, block=False, workers=workers)
            while any(chunk is None for chunk in done):
                _drain(queue, done, update, block=True, workers=workers)
    finally:
        _FORK_STATE = None
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
            worker.join()
        queue.close()
    return [chunk for chunk in done if chunk is not None]


_FORK_STATE: tuple[Scorer, list[Sequence[Pair]], _Regions, Any, bool] | None = None


class _Regions:
    """Which chunk a process scores next: process ``k`` of ``n`` owns the ``k``-th
    contiguous run of chunks and takes them from its front; when its run is done it
    takes from the back of the run with the most chunks left.

    Chunks are ordered by reference, so a process's own run holds about ``1/n`` of the
    vocabulary: it works out each word's keys and prepares each reference once, where
    taking chunks round-robin would have every process meet (and pay for) nearly every
    word. Taking from the others' backs keeps the load balanced to the last chunk.
    """

    def __init__(self, context: Any, n_chunks: int, n: int) -> None:
        bounds = [n_chunks * k // n for k in range(n + 1)]
        # [front_0, back_0, front_1, back_1, ...]: run k is chunks front_k .. back_k - 1
        self._ends = context.Array("i", [b for k in range(n) for b in bounds[k : k + 2]])
        self._n = n

    def take(self, k: int) -> int | None:
        ends = self._ends
        with ends.get_lock():
            if ends[2 * k] < ends[2 * k + 1]:  # own run, from the front
                ends[2 * k] += 1
                return int(ends[2 * k] - 1)
            left = [ends[2 * r + 1] - ends[2 * r] for r in range(self._n)]
            r = max(range(self._n), key=left.__getitem__)
            if left[r] <= 0:
                return None
            ends[2 * r + 1] -= 1  # another run, from the back
            return int(ends[2 * r + 1])


def _fork_worker(k: int) -> None:  # pragma: no cover - runs in the child process
    state = _FORK_STATE
    assert state is not None
    scorer, chunks, counter, queue, detail = state
    try:
        with paused_gc():
            while True:
                index = counter.take(k)
                if index is None:
                    break
                scored = [scorer.segment(h, list(r)) for h, r in chunks[index]]
                queue.put((index, encode(scored, detail), None))
    except BaseException as error:  # report, then let the parent raise it
        queue.put((-1, [], error))
    queue.close()
    queue.join_thread()


def _drain(
    queue: Any,
    done: list[list[SegmentResult] | None],
    update: Callable[[int], Any],
    block: bool,
    workers: Sequence[Any],
) -> int:
    """Unpack the results that have arrived (waiting for one when ``block``)."""
    import queue as queue_module

    received = 0
    while True:
        try:
            index, encoded, error = queue.get(block=block, timeout=1.0 if block else None)
        except queue_module.Empty:
            workers_gone = block and not any(w.is_alive() for w in workers)
            if workers_gone and any(chunk is None for chunk in done):
                raise MeteorxError(
                    "a scoring worker process died (out of memory?); try fewer --jobs"
                ) from None
            return received
        if error is not None:
            raise error
        done[index] = results = decode(encoded)
        update(len(results))
        received += 1
        block = False  # one is enough; then take only what is already there


def _run_pool(  # pragma: no cover - platforms without fork
    scorer: Scorer,
    chunks: list[Sequence[Pair]],
    jobs: int,
    update: Callable[[int], Any],
    detail: bool,
) -> list[list[SegmentResult]]:
    context = multiprocessing.get_context()
    done = []
    with (
        context.Pool(jobs, initializer=_init_worker, initargs=(scorer.config,)) as pool,
        paused_gc(),
    ):
        for encoded in pool.imap(_score_chunk, [(chunk, detail) for chunk in chunks]):
            results = decode(encoded)
            done.append(results)
            update(len(results))
    return done
