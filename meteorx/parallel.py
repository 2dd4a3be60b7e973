"""Scoring many segments in several processes, with identical results.

``score_pairs(scorer, pairs, jobs=N)`` cuts the segments into chunks (segments sharing
a reference together, so each process prepares a reference once). The calling process
and N - 1 workers (a :class:`~meteorx.worker_pool.WorkerPool`) score them, each its own
contiguous run of chunks first (:class:`_Regions`). Where the platform forks (Linux),
the workers inherit the scorer and the segments -- the scorer is built once, a task is a
chunk's number; elsewhere each worker is sent the scorer (which pickles as its
configuration) and builds it once, and is sent the segments. Workers send their results
back as bytes (:mod:`meteorx.transfer` or its compiled twin). Results come back in input
order and equal the single-process ones, so sums of statistics -- and therefore every
corpus score -- are identical.

``score_iter`` does the same for a stream of any length, with flat memory. A worker
that dies is an error within moments, never a hang
(:class:`~meteorx.worker_pool.WorkerDied`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterable, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from meteorx.errors import JobsError, MeteorxError, WorkerDied
from meteorx.metric import Meteor, SegmentResult, paused_gc
from meteorx.progress import Progress, silent
from meteorx.results import without_detail

if TYPE_CHECKING:
    from meteorx.worker_pool import WorkerPool

__all__ = [
    "JOBS_PER_CPU",
    "JobsError",
    "Pair",
    "WorkerDied",
    "default_jobs",
    "resolve_jobs",
    "score_iter",
    "score_pairs",
]

#: One task: a hypothesis and its references.
Pair = tuple[str, Sequence[str]]


def _chunks(pairs: Sequence[Pair], size: int) -> list[Sequence[Pair]]:
    return [pairs[i : i + size] for i in range(0, len(pairs), size)]


def default_jobs() -> int:
    """The number of CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


#: More processes than this many per CPU only wait for a CPU, each holding memory and
#: open files (``--jobs 10000`` would exhaust both before scoring anything).
JOBS_PER_CPU = 4


def resolve_jobs(jobs: int) -> int:
    """The number of processes for ``jobs``: ``<= 0`` is one per CPU; more than
    :data:`JOBS_PER_CPU` per CPU is a :class:`JobsError`."""
    cpus = default_jobs()
    if jobs <= 0:
        return cpus
    if jobs > JOBS_PER_CPU * cpus:
        raise JobsError(
            f"--jobs {jobs} is more than {JOBS_PER_CPU} processes per CPU: at most "
            f"{JOBS_PER_CPU * cpus} here ({cpus} CPU{'s' if cpus > 1 else ''} available)"
        )
    return jobs


def score_pairs(
    scorer: Meteor,
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
    jobs = resolve_jobs(jobs)
    update: Callable[[int], Any] = (progress if progress is not None else silent).update
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
    done = _run_chunks(scorer, chunks, jobs, update, detail)
    flat = [result for chunk in done for result in chunk]
    results_in_order: list[SegmentResult | None] = [None] * len(pairs)
    for i, result in zip(order, flat, strict=True):
        results_in_order[i] = result
    return results_in_order  # type: ignore[return-value]


def score_iter(
    scorer: Meteor,
    pairs: Iterable[tuple[Any, Any]],
    jobs: int = 1,
    *,
    chunk_size: int = 64,
    cache_limit: int = 0,
    detail: bool = True,
) -> Generator[SegmentResult, None, None]:
    """Score (hypothesis, references) pairs, as :meth:`Meteor.segment` takes them, from
    an iterable of any length, yielding results in input order.

    With ``jobs > 1`` the pairs go in chunks to a :class:`WorkerPool` with at most
    ``2 * jobs`` chunks read ahead, so memory stays flat (streaming); ``jobs <= 0`` is
    one process per CPU. The scorer's reference cache is emptied past
    ``cache_limit`` entries (0 = its own bound): in a stream references rarely repeat.

    If a worker dies, the results before its first chunk are still yielded (the other
    workers finish the chunks they hold that come earlier), then :class:`WorkerDied`
    says how many segments were scored. A worker's error, or bad input (an error the
    iterable raises), comes in its place in the order, after every result before it.
    Closing the generator early stops the workers.
    """
    jobs = resolve_jobs(jobs)
    if jobs == 1:
        for hyp, refs in pairs:
            yield _segment(scorer, hyp, refs, cache_limit, detail)
        return
    iterator = iter(pairs)
    done: dict[int, list[SegmentResult] | BaseException] = {}
    sent = 0  # chunks handed to workers; chunk ids are 0, 1, ...
    yielded = 0  # chunks yielded
    count = 0  # segments yielded
    size = 1  # start with small chunks, so the first scores come out quickly
    ended = False  # the input is read to its end (or to a bad line)
    failure: MeteorxError | None = None  # bad input: first finish what was read
    waiting: list[tuple[Any, Any]] = []  # a chunk read, not yet taken by a worker
    chunk_size = max(1, chunk_size)
    from meteorx.worker_pool import WorkerPool  # (a pool only for --jobs > 1)

    with WorkerPool(scorer, jobs) as pool:
        while True:
            while pool.failure is None and sent - yielded < 2 * jobs:
                if not waiting and not ended:
                    try:
                        waiting.extend(islice(iterator, size))
                    except MeteorxError as error:
                        failure = error
                    ended = failure is not None or len(waiting) < size
                    size = min(chunk_size, size * 2)
                if not waiting or not pool.send(sent, _score_chunk, (waiting, cache_limit), detail):
                    break
                waiting = []
                sent += 1
            while yielded in done:
                results = done.pop(yielded)
                if isinstance(results, BaseException):
                    raise results
                yielded += 1
                count += len(results)
                yield from results
            if pool.failure is not None and (yielded in pool.lost or yielded == sent):
                raise WorkerDied(f"{pool.failure}; segments after {count} were not scored")
            if yielded == sent and not waiting and ended:
                break
            if pool.busy:  # else the window has room again: read on
                done.update(pool.collect(block=True))
    if failure is not None:
        raise failure


def _segment(
    scorer: Meteor, hyp: Any, refs: Any, cache_limit: int, detail: bool = True
) -> SegmentResult:
    result = scorer.segment(hyp, refs)
    if cache_limit and len(scorer._ref_cache) > cache_limit:
        scorer._ref_cache.clear()
    return result if detail else without_detail(result)


def _score_chunk(
    scorer: Meteor, task: tuple[Sequence[tuple[Any, Any]], int]
) -> list[SegmentResult]:
    """A worker's task in :func:`score_iter`: score a chunk of the stream."""
    chunk, cache_limit = task
    return [_segment(scorer, hyp, refs, cache_limit) for hyp, refs in chunk]


def _by_reference(pairs: Sequence[Pair]) -> list[int]:
    """The positions of ``pairs``, those with the same references together (groups in
    order of first appearance, positions in order within a group)."""
    groups: dict[tuple[Any, ...], int] = {}
    try:
        group = [groups.setdefault(tuple(refs), len(groups)) for _, refs in pairs]
    except TypeError:  # references given as token lists (unhashable): sort them
        return sorted(range(len(pairs)), key=lambda i: tuple(pairs[i][1]))
    return sorted(range(len(pairs)), key=group.__getitem__)


def _run_chunks(
    scorer: Meteor,
    chunks: list[Sequence[Pair]],
    jobs: int,
    update: Callable[[int], Any],
    detail: bool,
) -> list[list[SegmentResult]]:
    """This process and ``jobs - 1`` workers score the chunks (:class:`_Regions` says
    which); this process hands the workers their chunk numbers between its own chunks.

    Where the workers are forked they inherit the scorer and the chunks, so a task is
    a chunk's number; elsewhere it is the chunk itself. This process scores chunks
    too, so it keeps working instead of only decoding results, and decodes only the
    workers' share. A dead worker fails the run at once (:class:`WorkerDied`).
    """
    regions = _Regions(len(chunks), jobs)
    done: list[list[SegmentResult] | None] = [None] * len(chunks)

    def receive(pool: WorkerPool, block: bool) -> None:
        for index, results in pool.collect(block):
            if isinstance(results, BaseException):
                raise results
            done[index] = results
            update(len(results))
        if pool.failure is not None:
            raise pool.failure

    # The collector is paused before the fork, so the workers never run it either: a
    # collection would write to every inherited object (copy-on-write faults).
    from meteorx.worker_pool import WorkerPool

    with paused_gc(), WorkerPool(scorer, jobs - 1, inherited=chunks) as pool:
        while True:
            for k in range(pool.size):  # keep every worker's queue full
                while pool.can_take(k):
                    index = regions.take(k + 1)
                    if index is None:
                        break
                    payload = index if pool.inherits else chunks[index]
                    pool.send(index, _score_batch, payload, detail, k)
            index = regions.take(0)
            if index is None:
                break
            scored = _score_batch(scorer, chunks[index])
            done[index] = scored if detail else [without_detail(x) for x in scored]
            update(len(scored))
            receive(pool, block=False)
        while pool.busy:
            receive(pool, block=True)
    return [chunk for chunk in done if chunk is not None]


def _score_batch(scorer: Meteor, payload: int | Sequence[Pair]) -> list[SegmentResult]:
    """A worker's task in :func:`score_pairs`: a chunk, or its number if inherited."""
    if isinstance(payload, int):
        from meteorx.worker_pool import inherited

        chunks: Sequence[Sequence[Pair]] = inherited()
        payload = chunks[payload]
    return [scorer.segment(h, list(r)) for h, r in payload]


class _Regions:
    """Which chunk a process scores next: process ``k`` of ``n`` owns the ``k``-th
    contiguous run of chunks and takes them from its front; when its run is done it
    takes from the back of the run with the most chunks left.

    Chunks are ordered by reference, so a process's own run holds about ``1/n`` of the
    vocabulary: it works out each word's keys and prepares each reference once, where
    taking chunks round-robin would have every process meet (and pay for) nearly every
    word. Taking from the others' backs keeps the load balanced to the last chunks.
    """

    def __init__(self, n_chunks: int, n: int) -> None:
        bounds = [n_chunks * k // n for k in range(n + 1)]
        self._fronts = bounds[:-1]  # run k is chunks fronts[k] .. backs[k] - 1
        self._backs = bounds[1:]

    def take(self, k: int) -> int | None:
        fronts, backs = self._fronts, self._backs
        if fronts[k] < backs[k]:  # own run, from the front
            fronts[k] += 1
            return fronts[k] - 1
        left = [back - front for front, back in zip(fronts, backs, strict=True)]
        r = max(range(len(left)), key=left.__getitem__)
        if left[r] <= 0:
            return None
        backs[r] -= 1  # another run, from the back
        return backs[r]
