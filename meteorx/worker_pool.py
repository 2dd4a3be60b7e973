"""Worker processes that score tasks for this one (``--jobs``), each over its own two
pipes, with results sent back as bytes.

Where the platform forks (Linux), the workers inherit the scorer (and whatever the pool
is given to pass on, such as the chunks to score); elsewhere each is sent the scorer
pickled, which is its configuration (:meth:`meteorx.metric.Meteor.__reduce__`), and
builds it once. A worker encodes its results with the engine's transfer kernel
(:func:`transfer_kernel`) and this process decodes them with the same one. A worker
that dies (killed, out of memory) is an error within moments, never a hang
(:class:`WorkerDied`), and workers never outlive the process that started them
(:mod:`meteorx.worker_lifetime`).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections.abc import Callable
from contextlib import suppress
from multiprocessing.connection import Connection, wait
from types import ModuleType
from typing import Any

from meteorx import engine, transfer
from meteorx.errors import JobsError, MeteorxError, WorkerDied
from meteorx.metric import Meteor, SegmentResult, paused_gc
from meteorx.transfer import DECODE_ARGS, ENCODE_ARGS
from meteorx.worker_lifetime import exit_with_parent, leave_signals_to_parent, signal_name

__all__ = [
    "JobsError",
    "TaskFunction",
    "WorkerDied",
    "WorkerPool",
    "decode_results",
    "encode_results",
    "inherited",
    "transfer_kernel",
]


def _cannot_start(size: int, error: OSError) -> JobsError:
    return JobsError(
        f"cannot start {size} worker process{'es' if size > 1 else ''}: "
        f"{error.strerror or error} (try fewer --jobs)"
    )


# -- results between processes --------------------------------------------------------


def transfer_kernel() -> ModuleType:
    """The module that moves results between processes, chosen once per pool: the
    compiled :mod:`meteorx._transfer` where the engine runs compiled code, else its
    pure-Python definition, :mod:`meteorx.transfer` (same functions, same arguments)."""
    return engine.compiled("meteorx._transfer") or transfer


def encode_results(
    kernel: ModuleType, results: list[SegmentResult], detail: bool
) -> tuple[bytes, bool]:
    """``results`` as bytes written by ``kernel``, or by :mod:`meteorx.transfer` where
    ``kernel`` does not write one of their values (returns None); and whether
    :mod:`meteorx.transfer` wrote them (then it reads them, see :func:`decode_results`)."""
    data: bytes | None = kernel.encode(results, detail, *ENCODE_ARGS)
    if data is None:
        kernel = transfer
        data = transfer.encode(results, detail, *ENCODE_ARGS)
        assert data is not None
    return data, kernel is transfer


def decode_results(kernel: ModuleType, data: bytes, by_definition: bool) -> list[SegmentResult]:
    """Inverse of :func:`encode_results` (given its kernel and what it returned)."""
    decoded: list[SegmentResult] = (transfer if by_definition else kernel).decode(
        data, *DECODE_ARGS
    )
    return decoded


# -- the pool ---------------------------------------------------------------------------

#: Platforms that fork give the workers the scorer (and the chunks) for free; the
#: others start fresh interpreters, sent the scorer as its configuration.
_START_METHOD: str | None = "fork" if "fork" in multiprocessing.get_all_start_methods() else None

#: Tasks a worker holds at once: the one it scores and the next, so it never waits
#: for this process (busy scoring its own chunk, or writing output) to send more.
_DEPTH = 2

#: What a pipe holds, asked of the system where it can grow (Linux: up to 1 MiB for
#: an ordinary user), so that a worker's results seldom wait for this process to read;
#: where the size cannot be asked, pipes are taken to hold the usual 64 KiB.
_PIPE_SIZE = 1 << 20
_DEFAULT_PIPE_SIZE = 1 << 16

#: What forked workers inherited from the pool (see :func:`inherited`); set in the
#: workers only.
_INHERITED: Any = None

#: What a worker runs: a module-level function (sent by name) of the worker's scorer
#: and a task's payload, returning segment results.
TaskFunction = Callable[[Meteor, Any], list[SegmentResult]]

#: A worker's reply: task id, the error raised (pickled) or None, then the results as
#: :func:`encode_results` returns them.
_Reply = tuple[int, bytes | None, bytes, bool]


def inherited() -> Any:
    """In a forked worker, the pool's ``inherited`` object (batch scoring: the chunks,
    so that a task names one by its position); None elsewhere."""
    return _INHERITED


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

    ``inherited`` is handed to forked workers as it is (see :func:`inherited`);
    :attr:`inherits` says whether they are forked.
    """

    def __init__(self, scorer: Meteor, size: int, inherited: Any = None) -> None:
        context = multiprocessing.get_context(_START_METHOD)
        self.inherits = context.get_start_method() == "fork"
        self.size = size
        self.failure: WorkerDied | None = None
        self.lost: set[int] = set()
        self._kernel = transfer_kernel()  # the workers run the same engine
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
        # A forked worker has the scorer; a fresh interpreter unpickles it (builds it
        # from its configuration) on its own, to report any error with every task.
        sent: Meteor | bytes = (
            scorer if self.inherits else pickle.dumps(scorer, pickle.HIGHEST_PROTOCOL)
        )
        parent, engine_name = os.getpid(), engine.requested()
        passed = inherited if self.inherits else None
        try:
            for k, ((task_r, _), (_, result_w)) in enumerate(pipes):
                theirs: list[Connection] = []
                if self.inherits:  # a forked child holds every end: it closes all but its own
                    others = [e for j, (t, r) in enumerate(pipes) if j != k for e in (t[0], r[1])]
                    theirs = [*mine, *others]
                args = (task_r, result_w, parent, engine_name, sent, passed, theirs)
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
                task_id, error, data, by_definition = connection.recv()
                self._held[k].discard(task_id)
                if error is not None:
                    replies.append((task_id, _error(error)))
                else:
                    replies.append((task_id, decode_results(self._kernel, data, by_definition)))
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
            how = f"was killed by {signal_name(-code)}"
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


# -- in the worker ----------------------------------------------------------------------


def _worker(  # pragma: no cover - runs in the worker process
    tasks: Connection,
    results: Connection,
    parent: int,
    engine_name: str,
    scorer: Meteor | bytes,
    inherited: Any,
    theirs: list[Connection],
) -> None:
    """A worker's life: score each task it is sent, send back the results (or the
    error raised), until its task pipe ends (see :class:`WorkerPool`). ``scorer`` is
    pickled where the worker is not forked; it runs the parent's engine."""
    global _INHERITED
    for connection in theirs:  # the parent's ends and other workers': not ours
        connection.close()
    exit_with_parent(parent)
    leave_signals_to_parent()
    _INHERITED = inherited
    failed: BaseException | None = None
    with engine.use(engine_name):
        kernel: ModuleType = transfer
        try:
            kernel = transfer_kernel()
            if isinstance(scorer, bytes):  # a fresh interpreter: build the scorer once
                scorer = pickle.loads(scorer)
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
                assert not isinstance(scorer, bytes)
                with paused_gc():
                    data, by_definition = encode_results(kernel, function(scorer, payload), detail)
                reply: _Reply = (task_id, None, data, by_definition)
            except BaseException as error:
                reply = (task_id, _portable(error), b"", True)
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
