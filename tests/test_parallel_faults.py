"""``--jobs`` under faults: real worker processes and the real parent killed.

Each test runs ``meteorx score`` in a child process (every segment slowed by 5 ms: the
6,000 segments take 30 s in one process, so a run is hit while scoring), finds its worker
processes in ``/proc``, kills one of them or the parent, and checks that everything
ends within :data:`BOUND` seconds, that no worker survives, and what was printed: a
dead worker is one line on stderr and exit code 2, and in stream mode the scores
printed before it are kept, in order, equal to a one-process run's.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from meteorx.errors import MeteorxError
from meteorx.metric import Scorer

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists() or "fork" not in multiprocessing.get_all_start_methods(),
    reason="finds worker processes through /proc and kills forked workers (Linux)",
)

BOUND = 10.0  # seconds from the kill to the end of every process

#: ``meteorx`` with every segment 5 ms slower; ``--no-pdeathsig`` first leaves the
#: workers only the end of their task pipe to notice that the parent is gone. Ctrl-C
#: raises KeyboardInterrupt as in a terminal, even when the tests run in a background
#: job (which starts with SIGINT ignored).
DRIVER = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import meteorx.worker_lifetime
from meteorx.metric import Scorer
if sys.argv[1] == "--no-pdeathsig":
    meteorx.worker_lifetime._USE_PDEATHSIG = False
    del sys.argv[1]
segment = Scorer.segment
def slow(self, hyp, refs):
    time.sleep(0.005)
    return segment(self, hyp, refs)
Scorer.segment = slow
from meteorx.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    rng = random.Random(14)
    words = [
        "the",
        "a",
        "cat",
        "cats",
        "dog",
        "sat",
        "sits",
        "on",
        "under",
        "mat",
        "house",
        "big",
        "small",
        "red",
        "runs",
        "ran",
    ]
    hyps, refs = [], []
    for _ in range(6000):
        ref = [rng.choice(words) for _ in range(rng.randint(3, 15))]
        hyp = [w if rng.random() < 0.7 else rng.choice(words) for w in ref]
        hyps.append(" ".join(hyp))
        refs.append(" ".join(ref))
    folder = tmp_path_factory.mktemp("faults")
    (folder / "hyp.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (folder / "ref.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    return folder / "hyp.txt", folder / "ref.txt"


def _command(files: tuple[Path, Path], jobs: int, stream: bool, *extra: str) -> list[str]:
    hyp, ref = files
    command = [sys.executable, "-c", DRIVER, *extra, "score", "-H", str(hyp), "-r", str(ref)]
    command += ["-p", "li", "-l", "en", "--jobs", str(jobs), "--quiet"]
    return [*command, "--stream"] if stream else command


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie (a dead process not yet reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _until(condition: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


class Run:
    """``meteorx`` started in a child process, its output in files."""

    def __init__(self, command: list[str], folder: Path, **popen: object) -> None:
        self.out_path, self.err_path = folder / "out.txt", folder / "err.txt"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.process = subprocess.Popen(command, stdout=out, stderr=err, **popen)  # type: ignore[call-overload]
        self.workers: list[int] = []

    def wait_for_workers(self, n: int) -> list[int]:
        assert _until(lambda: len(_children(self.process.pid)) >= n, 60), "no workers started"
        self.workers = _children(self.process.pid)
        return self.workers

    def lines(self) -> list[str]:
        return self.out_path.read_text(encoding="utf-8").splitlines()

    def stderr(self) -> str:
        return self.err_path.read_text(encoding="utf-8")

    def ended_within(self, bound: float) -> int:
        """The exit code, which must come within ``bound`` seconds; then no worker of
        the run may still be running."""
        try:
            code: int = self.process.wait(timeout=bound)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError(f"still running {bound} s after the kill") from None
        assert _until(lambda: not any(map(_running, self.workers)), bound), (
            f"workers left running: {[p for p in self.workers if _running(p)]}"
        )
        return code

    def cleanup(self) -> None:
        for pid in [self.process.pid, *self.workers]:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
        self.process.wait()


@pytest.fixture
def run(tmp_path: Path) -> Iterator[object]:
    runs: list[Run] = []

    def start(command: list[str], **popen: object) -> Run:
        runs.append(Run(command, tmp_path, **popen))
        return runs[-1]

    yield start
    for started in runs:
        started.cleanup()


@pytest.fixture(scope="module")
def serial_lines(files: tuple[Path, Path]) -> list[str]:
    command = _command(files, 1, True)
    command[2] = "import sys; from meteorx.cli.main import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def _one_error_line(text: str, *parts: str) -> None:
    assert text.count("\n") == 1 and text.startswith("meteorx: error: "), text
    for part in parts:
        assert part in text, text


# -- a worker dies ------------------------------------------------------------------


@pytest.mark.parametrize("jobs", [2, 3])
def test_killed_worker_in_stream_mode_keeps_the_printed_scores(
    files: tuple[Path, Path], run: object, serial_lines: list[str], jobs: int
) -> None:
    started: Run = run(_command(files, jobs, True))  # type: ignore[operator]
    victim = started.wait_for_workers(jobs)[0]
    assert _until(lambda: len(started.lines()) >= 100, 60), "no scores printed"
    printed = len(started.lines())
    os.kill(victim, signal.SIGKILL)
    assert started.ended_within(BOUND) == 2
    error = started.stderr()
    _one_error_line(error, "worker process died", f"process {victim} was killed by SIGKILL")
    lines = started.lines()
    kept = int(error.split("segments after ")[1].split()[0])
    # Everything printed before the kill is kept, in order and equal to one process's
    # scores; the error names the last segment printed; no system line.
    assert printed <= kept == len(lines) < len(serial_lines) - 2
    assert lines == serial_lines[:kept]


@pytest.mark.parametrize("jobs", [2, 3])
def test_killed_worker_in_batch_mode_fails_cleanly(
    files: tuple[Path, Path], run: object, jobs: int
) -> None:
    started: Run = run(_command(files, jobs, False))  # type: ignore[operator]
    victim = started.wait_for_workers(jobs - 1)[0]
    time.sleep(0.3)  # into the scoring
    os.kill(victim, signal.SIGKILL)
    assert started.ended_within(BOUND) == 2  # at once, not after the rest of the work
    _one_error_line(started.stderr(), "worker process died", "killed by SIGKILL")
    assert started.lines() == []  # a clean failure: no partial report


# -- the parent dies ----------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["batch", "stream"])
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["TERM", "KILL"])
@pytest.mark.parametrize("pdeathsig", [True, False], ids=["pdeathsig", "pipe-only"])
def test_workers_end_with_the_parent(
    files: tuple[Path, Path], run: object, stream: bool, how: int, pdeathsig: bool
) -> None:
    extra = () if pdeathsig else ("--no-pdeathsig",)
    started: Run = run(_command(files, 3, stream, *extra))  # type: ignore[operator]
    started.wait_for_workers(3 if stream else 2)
    time.sleep(0.3)
    started.process.send_signal(how)
    assert started.ended_within(BOUND) == -how  # killed by the signal: 128 + n in a shell


@pytest.mark.parametrize("stream", [False, True], ids=["batch", "stream"])
def test_ctrl_c_stops_everything(files: tuple[Path, Path], run: object, stream: bool) -> None:
    started: Run = run(_command(files, 3, stream), start_new_session=True)  # type: ignore[operator]
    started.wait_for_workers(3 if stream else 2)
    time.sleep(0.3)
    os.killpg(started.process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    assert started.ended_within(BOUND) == 130
    assert "Traceback" not in started.stderr()


# -- standard output goes away ------------------------------------------------------


@pytest.mark.parametrize("jobs", [1, 2])
def test_stream_into_a_closed_pipe_exits_quietly(
    files: tuple[Path, Path], tmp_path: Path, jobs: int
) -> None:
    """``meteorx score --stream ... | head -1``."""
    command = _command(files, jobs, True)
    with open(tmp_path / "err.txt", "wb") as err:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err)
    assert process.stdout is not None
    first = process.stdout.readline()
    workers = _children(process.pid)
    process.stdout.close()
    try:
        code = process.wait(timeout=BOUND)
    finally:
        if process.poll() is None:
            process.kill()
    assert first.startswith(b"Segment 1 score:")
    assert code == 0
    assert (tmp_path / "err.txt").read_text() == ""
    assert _until(lambda: not any(map(_running, workers)), BOUND)


@pytest.mark.parametrize("jobs", [1, 2])
def test_stream_into_a_full_disk_is_one_line(files: tuple[Path, Path], jobs: int) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            _command(files, jobs, True), stdout=full, stderr=subprocess.PIPE, text=True, timeout=60
        )
    assert done.returncode == 2
    _one_error_line(done.stderr, "standard output", "No space left on device")


# -- in process ---------------------------------------------------------------------


def _pairs(n: int) -> list[tuple[str, list[str]]]:
    rng = random.Random(3)
    words = ["the", "a", "cat", "cats", "dog", "sat", "sits", "on", "under", "mat"]
    pairs = []
    for _ in range(n):
        ref = [rng.choice(words) for _ in range(rng.randint(1, 12))]
        hyp = [w if rng.random() < 0.7 else rng.choice(words) for w in ref]
        pairs.append((" ".join(hyp), [" ".join(ref)]))
    return pairs


def test_a_worker_error_comes_after_the_results_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Stream mode: an error raised in a worker comes in its place in the order."""
    from meteorx.streaming import score_stream

    scorer = Scorer("li", language="en")
    pairs = _pairs(600)
    bad = "this one fails"
    pairs[400] = (bad, pairs[400][1])
    segment = scorer.segment

    def failing(hyp: str, refs: object) -> object:
        if hyp == bad:
            raise MeteorxError("bad segment")
        return segment(hyp, refs)  # type: ignore[arg-type]

    monkeypatch.setattr(scorer, "segment", failing)
    stream = score_stream(scorer, [h for h, _ in pairs], [r for _, r in pairs], jobs=2)
    scores: list[float] = []
    with pytest.raises(MeteorxError, match="bad segment"):
        scores.extend(r.score for r in stream)
    monkeypatch.undo()
    assert 0 < len(scores) <= 400
    assert scores == [scorer.segment(h, r).score for h, r in pairs[: len(scores)]]


def test_unpicklable_worker_errors_still_reach_the_caller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from meteorx.parallel import score_pairs

    class Odd(Exception):
        def __init__(self, a: int, b: int) -> None:  # not rebuilt from its args
            super().__init__(f"odd {a + b}")

    scorer = Scorer("li", language="en")
    parent = os.getpid()
    segment = scorer.segment

    def failing(hyp: str, refs: object) -> object:
        if os.getpid() != parent:
            raise Odd(1, 2)
        return segment(hyp, refs)  # type: ignore[arg-type]

    monkeypatch.setattr(scorer, "segment", failing)
    with pytest.raises(MeteorxError, match="Odd: odd 3"):
        score_pairs(scorer, _pairs(2000), jobs=2)


@pytest.mark.parametrize("pipe_size", [None, 4096])
def test_tasks_and_results_larger_than_a_pipe_do_not_block(
    monkeypatch: pytest.MonkeyPatch, pipe_size: int | None
) -> None:
    """Chunks and results of hundreds of kB (long lines, full results), also through
    pipes of one page: this process and a worker never wait on each other's full
    pipes."""
    from meteorx import worker_pool
    from meteorx.streaming import score_stream

    if pipe_size is not None:
        monkeypatch.setattr(worker_pool, "_PIPE_SIZE", pipe_size)
    scorer = Scorer("li", language="en")
    rng = random.Random(8)
    words = [f"w{i}" for i in range(300)]
    hyps = [" ".join(rng.choices(words, k=rng.randint(300, 600))) for _ in range(300)]
    refs = [" ".join(rng.choices(words, k=rng.randint(300, 600))) for _ in range(300)]
    one = list(score_stream(scorer, hyps, refs))
    three = list(score_stream(scorer, hyps, refs, jobs=3))
    assert repr(three) == repr(one)


@pytest.mark.parametrize("which", ["c", "python"])
def test_workers_started_fresh_give_the_same_results(
    monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    """Where the platform cannot fork, workers are sent the scorer (it pickles as its
    configuration), build it on the engine this process runs (whatever their
    ``$METEORX_ENGINE`` says: their results are read with this process's transfer
    kernel) and are sent the segments (tried here with ``spawn``)."""
    from meteorx import engine, parallel, worker_pool
    from meteorx.streaming import score_stream

    with engine.use(which):
        try:
            worker_pool.transfer_kernel()
        except engine.EngineError as error:
            pytest.skip(str(error))
        scorer = Scorer("li", language="en")
        pairs = _pairs(400)
        serial = parallel.score_pairs(scorer, pairs)
        monkeypatch.setattr(worker_pool, "_START_METHOD", "spawn")
        assert repr(parallel.score_pairs(scorer, pairs, jobs=2)) == repr(serial)
        streamed = score_stream(scorer, [h for h, _ in pairs], [r for _, r in pairs], jobs=2)
        assert [r.score for r in streamed] == [r.score for r in serial]
