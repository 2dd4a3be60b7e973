"""Scoring many segments in several processes, with identical results, and progress bars.

``score_pairs(scorer, pairs, jobs=N)`` cuts the segments into chunks (segments sharing
a reference together, so each process prepares a reference once). The calling process
and N - 1 workers (a :class:`WorkerPool`) score them, each its own contiguous run of
chunks first (:class:`_Regions`). Where the platform forks (Linux), the workers
inherit the scorer and the segments — the scorer is built once, a task is a chunk's
number; elsewhere each builds one scorer from the validated configuration and is sent
the segments. Workers send their results back as bytes (:func:`encode`), which the
caller decodes into :class:`SegmentResult` objects. Results come back in input order
and equal the single-process ones, so sums of statistics — and therefore every corpus
score — are identical.

A worker that dies (killed, out of memory) is an error within moments, never a hang
(:class:`WorkerDied`), and workers never outlive the process that started them.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import pickle
import signal
import sys
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from itertools import chain, islice, repeat
from multiprocessing.connection import Connection, wait
from operator import attrgetter
from typing import Any, Protocol

from meteorx.config import MeteorConfig
from meteorx.engine import compiled
from meteorx.errors import MeteorxError
from meteorx.scorer import SEGMENT_FIELDS, Scorer, SegmentResult, paused_gc
from meteorx.scoring import BREAKDOWN_FIELDS, Breakdown
from meteorx.stats import STATS_FIELDS, Stats
from meteorx.types import ALIGNMENT_FIELDS, Alignment, Match, make_record

#: One task: a hypothesis and its references.
Pair = tuple[str, Sequence[str]]


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
    _transfer = compiled("meteorx._transfer")  # results to bytes in C, when it runs
    if _transfer is not None:
        data: bytes | None = _transfer.encode(
            results, detail, Match, STATS_FIELDS, BREAKDOWN_FIELDS
        )
        if data is not None:
            return data
    return [pack(result, detail) for result in results]


def decode(encoded: Encoded) -> list[SegmentResult]:
    """Inverse of :func:`encode`."""
    if isinstance(encoded, bytes):  # only the compiled twin writes bytes
        _transfer = compiled("meteorx._transfer")
        assert _transfer is not None
        decoded: list[SegmentResult] = _transfer.decode(
            encoded, SegmentResult, Alignment, Stats, Breakdown, Match,
            SEGMENT_FIELDS, ALIGNMENT_FIELDS, STATS_FIELDS, BREAKDOWN_FIELDS,
        )  # fmt: skip
        return decoded
    return unpack_all(encoded)


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
    jobs = resolve_jobs(jobs)
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
    done = _run_chunks(scorer, chunks, jobs, update, detail)
    flat = [result for chunk in done for result in chunk]
    results_in_order: list[SegmentResult | None] = [None] * len(pairs)
    for i, result in zip(order, flat, strict=True):
        results_in_order[i] = result
    return results_in_order  # type: ignore[return-value]


def score_iter(
    scorer: Scorer,
    pairs: Iterable[tuple[Any, Any]],
    jobs: int = 1,
    *,
    chunk_size: int = 64,
    cache_limit: int = 0,
    detail: bool = True,
) -> Generator[SegmentResult, None, None]:
    """Score (hypothesis, references) pairs, as :meth:`Scorer.segment` takes them, from
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
    scorer: Scorer, hyp: Any, refs: Any, cache_limit: int, detail: bool = True
) -> SegmentResult:
    result = scorer.segment(hyp, refs)
    if cache_limit and len(scorer._ref_cache) > cache_limit:
        scorer._ref_cache.clear()
    return result if detail else without_detail(result)


def _score_chunk(
    scorer: Scorer, task: tuple[Sequence[tuple[Any, Any]], int]
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
    scorer: Scorer,
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
    with paused_gc(), WorkerPool(scorer, jobs - 1, chunks) as pool:
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


def _score_batch(scorer: Scorer, payload: int | Sequence[Pair]) -> list[SegmentResult]:
    """A worker's task in :func:`score_pairs`: a chunk, or its number if inherited."""
    if isinstance(payload, int):
        assert _INHERITED_CHUNKS is not None
        payload = _INHERITED_CHUNKS[payload]
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


# -- worker processes -----------------------------------------------------------------


class WorkerDied(MeteorxError):
    """A worker process ended while it had work (killed, out of memory)."""


class JobsError(MeteorxError):
    """Too many processes asked for, or the system cannot start them (out of open
    files or processes)."""


def _cannot_start(size: int, error: OSError) -> JobsError:
    return JobsError(
        f"cannot start {size} worker process{'es' if size > 1 else ''}: "
        f"{error.strerror or error} (try fewer --jobs)"
    )


#: Platforms that fork give the workers the scorer (and the chunks) for free; the
#: others start fresh interpreters that build a scorer from the configuration.
_START_METHOD: str | None = "fork" if "fork" in multiprocessing.get_all_start_methods() else None

#: Tasks a worker holds at once: the one it scores and the next, so it never waits
#: for this process (busy scoring its own chunk, or writing output) to send more.
_DEPTH = 2

#: What a pipe holds, asked of the system where it can grow (Linux: up to 1 MiB for
#: an ordinary user), so that a worker's results seldom wait for this process to read;
#: where the size cannot be asked, pipes are taken to hold the usual 64 KiB.
_PIPE_SIZE = 1 << 20
_DEFAULT_PIPE_SIZE = 1 << 16

#: The chunks a forked worker inherited (batch scoring): tasks then name a chunk by
#: its position. Set in the worker only.
_INHERITED_CHUNKS: Sequence[Sequence[Pair]] | None = None

#: What a worker runs: a module-level function (sent by name) of the worker's scorer
#: and a task's payload, returning segment results.
TaskFunction = Callable[[Scorer, Any], list[SegmentResult]]


class WorkerPool:
    """``size`` worker processes that score tasks, each over its own two pipes.

    ``multiprocessing.Pool`` replaces a killed worker and waits for the killed
    worker's task forever, and a queue shared by all workers can be left locked or
    half-written by one killed in the middle of a write. Here nothing is shared: this
    process waits on each worker's result pipe and on its process sentinel, so a
    worker that dies is noticed at the next :meth:`collect` (the results it finished
    are read first) and becomes :attr:`failure`, a :class:`WorkerDied`; its tasks
    are listed in :attr:`lost`.

    Workers end with this process: on Linux the kernel kills them when the thread
    that started them ends (``PR_SET_PDEATHSIG``), and everywhere they leave at the
    end of their task pipe, or when a result cannot be written (after the task at
    hand). They ignore Ctrl-C (this process stops them) and leave with ``os._exit``,
    running nothing inherited from this process (atexit handlers, flushing buffered
    output). Leaving the ``with`` block stops them all.
    """

    def __init__(
        self, scorer: Scorer, size: int, chunks: Sequence[Sequence[Pair]] | None = None
    ) -> None:
        context = multiprocessing.get_context(_START_METHOD)
        self.inherits = context.get_start_method() == "fork"
        self.size = size
        self.failure: WorkerDied | None = None
        self.lost: set[int] = set()
        self._held: list[set[int]] = [set() for _ in range(size)]  # task ids per worker
        self._alive = [True] * size
        pipes = []
        try:
            for _ in range(size):
                pipes.append((context.Pipe(duplex=False), context.Pipe(duplex=False)))
        except OSError as error:  # out of open files: close what was opened
            for (task_r, task_w), (result_r, result_w) in pipes:
                for connection in (task_r, task_w, result_r, result_w):
                    connection.close()
            raise _cannot_start(size, error) from None
        # this process's ends: task writers and result readers
        self._tasks: list[Connection] = [task_w for (_, task_w), _ in pipes]
        self._results: list[Connection] = [result_r for _, (result_r, _) in pipes]
        for connection in self._results:
            _widen(connection)
        self._room = [_widen(connection) for connection in self._tasks]
        mine = [*self._tasks, *self._results]
        self._processes: list[Any] = []
        parent = os.getpid()
        try:
            for k, ((task_r, _), (_, result_w)) in enumerate(pipes):
                args: tuple[Any, ...] = (task_r, result_w, parent, scorer.config, None, [])
                if self.inherits:  # a forked child holds every end: it closes all but its own
                    theirs = [e for j, (t, r) in enumerate(pipes) if j != k for e in (t[0], r[1])]
                    args = (task_r, result_w, parent, scorer, chunks, [*mine, *theirs])
                process = context.Process(target=_worker, args=args, daemon=True)  # type: ignore[attr-defined]
                process.start()
                self._processes.append(process)
        except OSError as error:  # out of open files, processes or memory
            self.close(stop=True)
            raise _cannot_start(size, error) from None
        except BaseException:
            self.close(stop=True)
            raise
        finally:
            for (task_r, _), (_, result_w) in pipes:  # the workers' ends are theirs alone
                task_r.close()
                result_w.close()

    def can_take(self, k: int, size: int = 0) -> bool:
        """Whether worker ``k`` takes a task of ``size`` bytes now.

        A worker holds up to :data:`_DEPTH` tasks, but a task larger than a quarter
        of its pipe only when it holds none: it then is, or soon will be, reading, so
        writing the task cannot wait on a worker that waits for this process to read
        its result (and two small tasks always fit in the pipe).
        """
        if not self._alive[k] or self.failure is not None:
            return False
        held = len(self._held[k])
        return held == 0 or (held < _DEPTH and size <= self._room[k] // 4)

    def send(
        self, task_id: int, function: TaskFunction, payload: Any, detail: bool, k: int | None = None
    ) -> bool:
        """Have worker ``k`` (or else the least busy one) run ``function(scorer, payload)``;
        its results come back from :meth:`collect` with ``task_id``. False if no worker
        can take the task now."""
        data = pickle.dumps((task_id, function, payload, detail), pickle.HIGHEST_PROTOCOL)
        able = [j for j in (range(self.size) if k is None else (k,)) if self.can_take(j, len(data))]
        if not able:
            return False
        k = min(able, key=lambda j: len(self._held[j]))
        self._held[k].add(task_id)
        # If the worker is gone, collect() reads what it left and says how it ended.
        with suppress(OSError):
            self._tasks[k].send_bytes(data)
        return True

    @property
    def busy(self) -> bool:
        """Whether a live worker holds a task (a blocking :meth:`collect` returns)."""
        return any(held and alive for held, alive in zip(self._held, self._alive, strict=True))

    def collect(self, block: bool) -> list[tuple[int, list[SegmentResult] | BaseException]]:
        """The results that have arrived, as ``(task_id, results or the error raised)``;
        with ``block``, wait for at least one (or for a worker's death)."""
        watched: dict[Any, int] = {}
        for k in range(self.size):
            if self._alive[k]:
                watched[self._results[k]] = k
                watched[self._processes[k].sentinel] = k
        replies: list[tuple[int, list[SegmentResult] | BaseException]] = []
        if not watched:
            return replies
        for ready in wait(list(watched), timeout=None if block else 0):
            k = watched[ready]
            if self._alive[k]:
                self._read(k, replies, ended=ready is not self._results[k])
        return replies

    def _read(
        self, k: int, replies: list[tuple[int, list[SegmentResult] | BaseException]], ended: bool
    ) -> None:
        """Read every whole reply worker ``k`` has written; note its death if it ended."""
        connection = self._results[k]
        try:
            while connection.poll():
                task_id, encoded, error = connection.recv()
                self._held[k].discard(task_id)
                replies.append((task_id, _error(error) if error is not None else decode(encoded)))
        except (EOFError, OSError):  # end of file, or a reply cut short: it died
            ended = True
        if ended:
            self._died(k)

    def _died(self, k: int) -> None:
        process = self._processes[k]
        process.join(timeout=5)
        self._alive[k] = False
        self.lost |= self._held[k]
        self._held[k].clear()
        code = process.exitcode
        if code is None:  # pragma: no cover - closed its pipe but lives on: stop it
            process.kill()
            how = "stopped answering"
        elif code < 0:
            how = f"was killed by {_signal_name(-code)}"
        else:
            how = f"exited with code {code}"
        if self.failure is None:
            self.failure = WorkerDied(
                f"a scoring worker process died: process {process.pid} {how} "
                "(if it ran out of memory, try fewer --jobs)"
            )

    def close(self, stop: bool = False) -> None:
        """End the workers: at the end of their task pipes, or at once with ``stop``
        (each is killed if it has not ended a few seconds later)."""
        for connection in self._tasks:
            connection.close()
        if stop:
            for process in self._processes:
                if process.exitcode is None:
                    process.terminate()
        for process in self._processes:
            process.join(timeout=5)
            if process.exitcode is None:  # pragma: no cover - did not end: make sure
                process.kill()
                process.join()
        for connection in self._results:
            connection.close()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        # On an error (or a dead worker) the others may be busy: stop them at once.
        self.close(stop=exc_type is not None or self.failure is not None)


def _worker(  # pragma: no cover - runs in the worker process
    tasks: Connection,
    results: Connection,
    parent: int,
    scorer_or_config: Scorer | MeteorConfig,
    chunks: Sequence[Sequence[Pair]] | None,
    inherited: list[Connection],
) -> None:
    """A worker's life: score each task it is sent, send back the results (or the
    error raised), until its task pipe ends (see :class:`WorkerPool`)."""
    global _INHERITED_CHUNKS
    for connection in inherited:  # the parent's ends and other workers': not ours
        connection.close()
    _exit_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the parent stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # whatever handler the parent set
    _INHERITED_CHUNKS = chunks
    scorer: Scorer | None = None
    failed: BaseException | None = None
    try:
        if isinstance(scorer_or_config, Scorer):
            scorer = scorer_or_config
        else:  # a fresh interpreter: build the scorer once
            from meteorx.api import build_scorer

            scorer = build_scorer(scorer_or_config)
    except BaseException as error:  # reported with every task
        failed = error
    while True:
        try:
            task_id, function, payload, detail = pickle.loads(tasks.recv_bytes())
        except (EOFError, OSError):  # the parent closed the pipe (all is done) or died
            os._exit(0)
        try:
            if failed is not None:
                raise failed
            assert scorer is not None
            with paused_gc():
                reply: tuple[int, Encoded | None, bytes | None] = (
                    task_id, encode(function(scorer, payload), detail), None
                )  # fmt: skip
        except BaseException as error:
            reply = (task_id, None, _portable(error))
        try:
            results.send(reply)
        except OSError:  # nobody reads: the parent died
            os._exit(0)


def _widen(connection: Connection) -> int:
    """Have a pipe hold :data:`_PIPE_SIZE` bytes where the system allows; what it holds."""
    try:
        import fcntl

        with suppress(OSError):  # over the user's quota: keep the size it has
            fcntl.fcntl(connection.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        return int(fcntl.fcntl(connection.fileno(), fcntl.F_GETPIPE_SZ))
    except (ImportError, AttributeError, OSError):  # not Linux
        return _DEFAULT_PIPE_SIZE


def _exit_with_parent(parent: int) -> None:  # pragma: no cover - in the worker
    """Have the kernel kill this process when its parent dies (Linux), and leave at
    once if that has already happened."""
    if _USE_PDEATHSIG:
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the end of the task pipe still stops this process
    if os.getppid() != parent:
        os._exit(0)


_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>
_USE_PDEATHSIG = sys.platform.startswith("linux")  # off: the pipe's end only (tests)


def _portable(error: BaseException) -> bytes:  # pragma: no cover - in the worker
    """``error`` pickled, or a :class:`MeteorxError` with its text if it cannot be
    rebuilt from a pickle (exceptions with their own constructor arguments)."""
    try:
        data = pickle.dumps(error, pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)
    except Exception:
        data = pickle.dumps(MeteorxError(f"{type(error).__name__}: {error}"))
    return data


def _error(data: bytes) -> BaseException:
    error: BaseException = pickle.loads(data)
    return error


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
