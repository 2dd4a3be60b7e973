"""Rows per second of the Spark job on a standalone cluster, against ``meteorx score``.

Starts a master and a worker from the pyspark wheel on 127.0.0.1 (as
``tests/test_spark_cluster.py`` does), builds N rows by repeating the xray data, and
times, one run each, with the same files and configuration:

* ``meteorx score --jobs 1`` and ``--jobs 2``;
* ``spark-submit`` of the meteorx job with 1 and 2 executor cores (``spark.cores.max``).

Every command is timed whole, and again on 200 rows: the difference is the time of the
remaining rows, so start-up (JVMs, Python workers, loading resources) is not counted
as scoring. For Spark, whose start-up varies by tens of seconds on a busy machine, the
rows/s come from the time spent in Spark jobs (its event log), the same difference.

``--big N`` instead sends N synthetic rows through the cluster (with
per-row output) and ``meteorx score --stream --jobs 2``, reporting total time, peak
RSS of the driver (spark-submit's JVM and the Python driver) and of the executor
(its JVM, and its Python workers: pyspark's daemon and the workers it forks), sampled
every 0.5 s, peaks by tenth of the run, and whether the system scores agree.

Usage::

    python benchmarks/spark_cluster.py                     # 200,000 rows, li, en, lower
    python benchmarks/spark_cluster.py --big 1000000       # synthetic rows, memory

Needs pyspark (``pip install "meteorx[spark]"``), Java 17+ and the xray data.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import XRAY  # noqa: E402
from tests.test_spark_cluster import Cluster, _spark_bin, standalone_cluster  # noqa: E402


def write_repeated(folder: Path, rows: int) -> tuple[Path, Path]:
    """N rows: xray system1 lines against the reference lines, repeated."""
    hyps = (XRAY / "xray.system1.hyp").read_text(encoding="utf-8").split("\n")[:-1]
    refs = (XRAY / "xray.reference").read_text(encoding="utf-8").split("\n")[:-1]
    paths = folder / f"hyp{rows}.txt", folder / f"ref{rows}.txt"
    for path, lines in zip(paths, (hyps, refs), strict=True):
        with path.open("w", encoding="utf-8") as out:
            for i in range(rows):
                out.write(lines[i % len(lines)] + "\n")
    return paths


def write_synthetic(folder: Path, rows: int, seed: int = 7) -> tuple[Path, Path]:
    """N distinct synthetic rows: a random sentence and a perturbed copy of it."""
    rng = random.Random(seed)
    words = [f"w{k}" for k in range(5000)] + ["the", "a", "of", "to", "and", "in", "is", "for"]
    paths = folder / "syn-hyp.txt", folder / "syn-ref.txt"
    with paths[0].open("w", encoding="utf-8") as h, paths[1].open("w", encoding="utf-8") as r:
        for _ in range(rows):
            ref = [rng.choice(words) for _ in range(rng.randint(8, 30))]
            hyp = [w if rng.random() > 0.3 else rng.choice(words) for w in ref]
            if len(hyp) > 3 and rng.random() < 0.5:
                i = rng.randrange(len(hyp) - 3)
                hyp[i : i + 3] = hyp[i : i + 3][::-1]
            h.write(" ".join(hyp) + "\n")
            r.write(" ".join(ref) + "\n")
    return paths


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    elapsed = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed, done.stdout


def submit_command(
    cluster: Cluster,
    cores: int,
    args: list[str],
    events: Path | None = None,
    executor_memory: str = "1g",
) -> list[str]:
    from meteorx.spark import JOB_SCRIPT

    log = []
    if events is not None:
        events.mkdir(parents=True, exist_ok=True)
        log = ["--conf", "spark.eventLog.enabled=true", "--conf", f"spark.eventLog.dir={events}",
               "--conf", "spark.eventLog.compress=false"]  # fmt: skip
    return [str(_spark_bin() / "spark-submit"), "--master", cluster.url,
            "--conf", f"spark.cores.max={cores}",
            "--conf", f"spark.executor.memory={executor_memory}",
            "--conf", "spark.ui.enabled=false", *log, JOB_SCRIPT, *args]  # fmt: skip


def jobs_seconds(events: Path) -> float:
    """Time the application spent in Spark jobs (from its event log): start-up of the
    JVMs, the session and the driver's imports excluded."""
    import json

    logs = sorted(p for p in events.rglob("*") if p.is_file() and not p.name.startswith("."))
    lines = [line for log in logs for line in log.read_text(encoding="utf-8").splitlines()]
    starts, total = {}, 0.0
    for line in lines:
        event = json.loads(line)
        if event["Event"] == "SparkListenerJobStart":
            starts[event["Job ID"]] = event["Submission Time"]
        elif event["Event"] == "SparkListenerJobEnd":
            total += (event["Completion Time"] - starts.pop(event["Job ID"])) / 1000
    return total


def anonymous_mb(pid: int) -> float:
    """A process's anonymous resident memory (MB): its RSS without file-backed pages
    (memory-mapped files, such as the blocks a JVM maps to read them, which the kernel
    may drop at will); 0 if the process is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    return 0.0


class PeakRss:
    """Peak summed RSS (MB) of processes matched by a predicate on (pgid, pid, args,
    pid -> parent pid),
    sampled every 0.5 s; ``trace`` keeps every sample, to tell a plateau from growth.
    Each role in ``anonymous`` is also summed without file-backed pages, as
    ``"ROLE (anon)"``."""

    def __init__(self, roles: dict[str, object], anonymous: tuple[str, ...] = ()) -> None:
        self.roles = roles
        self.anonymous = anonymous
        names = [*roles, *(f"{role} (anon)" for role in anonymous)]
        self.peak = dict.fromkeys(names, 0.0)
        self.trace: list[tuple[float, dict[str, float]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakRss:
        self._start = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            out = subprocess.run(
                ["ps", "-eo", "pgid=,pid=,ppid=,rss=,args="], capture_output=True, text=True
            ).stdout
            rows = []
            parent: dict[int, int] = {}
            for line in out.splitlines():
                pgid, pid, ppid, rss, *rest = line.split(None, 4)
                rows.append((int(pgid), int(pid), int(rss), rest[0] if rest else ""))
                parent[int(pid)] = int(ppid)
            totals = dict.fromkeys(self.peak, 0.0)
            for pgid, pid, rss, args in rows:
                for role, match in self.roles.items():
                    if match(pgid, pid, args, parent):  # type: ignore[operator]
                        totals[role] += rss / 1024
                        if role in self.anonymous:
                            totals[f"{role} (anon)"] += anonymous_mb(pid)
            self.trace.append((time.monotonic() - self._start, totals))
            for role, value in totals.items():
                self.peak[role] = max(self.peak[role], value)

    def by_tenths(self) -> list[tuple[float, dict[str, float]]]:
        """The peak of each role in each tenth of the run: flat rows mean bounded memory."""
        if not self.trace:
            return []
        end = self.trace[-1][0]
        tenths: list[tuple[float, dict[str, float]]] = []
        for k in range(10):
            lo, hi = end * k / 10, end * (k + 1) / 10
            window = [t for at, t in self.trace if lo <= at <= hi]
            tenths.append((hi, {r: max((t[r] for t in window), default=0.0) for r in self.peak}))
        return tenths


def throughput(args: argparse.Namespace, cluster: Cluster, folder: Path) -> None:
    config = ["--preset", args.preset, "--lang", args.lang, "--norm", args.norm]
    big, small = write_repeated(folder, args.rows), write_repeated(folder, 200)
    print(f"rows: {args.rows:,} (xray system1 against the reference, repeated); "
          f"configuration: {' '.join(config)}")  # fmt: skip
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f}; cores: {os.cpu_count()}\n")  # fmt: skip
    results: dict[str, float] = {}
    print("| run | whole command, 200 rows (s) | whole command, N rows (s) | rows/s |")
    print("|---|---:|---:|---:|")
    for jobs in (1, 2):
        name = f"meteorx score --jobs {jobs}"
        times = []
        for files in (small, big):
            command = [sys.executable, "-m", "meteorx", "score", "--quiet", "--system-only",
                       "--jobs", str(jobs), "--hyp", str(files[0]), "--ref", str(files[1]),
                       *config]  # fmt: skip
            times.append(timed(command)[0])
        results[name] = (args.rows - 200) / (times[1] - times[0])
        print(f"| {name} | {times[0]:.1f} | {times[1]:.1f} | {results[name]:,.0f} |", flush=True)
    print("\n| run | whole command, 200 rows (s) | whole command, N rows (s) "
          "| in Spark jobs, 200 rows (s) | in Spark jobs, N rows (s) | rows/s |\n"
          "|---|---:|---:|---:|---:|---:|")  # fmt: skip
    for cores in (1, 2):
        whole, jobs_time = [], []
        for files in (small, big):
            events = folder / f"events-{cores}-{files[0].stem}"
            data = ["--hyp", str(files[0]), "--ref", str(files[1]), *config]
            whole.append(timed(submit_command(cluster, cores, data, events), cluster.env)[0])
            jobs_time.append(jobs_seconds(events))
        name = f"spark, {cores} executor core{'s' if cores > 1 else ''}"
        results[name] = (args.rows - 200) / (jobs_time[1] - jobs_time[0])
        print(f"| {name} | {whole[0]:.1f} | {whole[1]:.1f} | {jobs_time[0]:.1f} "
              f"| {jobs_time[1]:.1f} | {results[name]:,.0f} |", flush=True)  # fmt: skip
    one, two = results["meteorx score --jobs 1"], results["meteorx score --jobs 2"]
    print()
    print(f"spark 1 core / score --jobs 1: {results['spark, 1 executor core'] / one:.2f}")
    print(f"spark 2 cores / score --jobs 2: {results['spark, 2 executor cores'] / two:.2f}")
    print(f"per core, spark 2 cores / 2 / score --jobs 1: "
          f"{results['spark, 2 executor cores'] / 2 / one:.2f}")  # fmt: skip
    print(f"load after: {os.getloadavg()[0]:.2f}")


def memory(args: argparse.Namespace, cluster: Cluster, folder: Path) -> None:
    config = ["--preset", args.preset, "--lang", args.lang, "--norm", args.norm]
    hyp, ref = write_synthetic(folder, args.big)
    print(f"{args.big:,} synthetic rows; configuration: {' '.join(config)}; "
          f"spark.executor.memory={args.executor_memory}; "
          f"load before: {os.getloadavg()[0]:.2f}")  # fmt: skip
    worker_group = cluster.groups[-1]
    job = ["--hyp", str(hyp), "--ref", str(ref), *config, "--rows", str(folder / "rows")]
    command = submit_command(cluster, 2, job, executor_memory=args.executor_memory)
    command = ["nice", *command]
    ours = os.getpgid(0)

    def program(args: str) -> str:
        return Path(args.split(None, 1)[0]).name if args else ""

    # Python workers run under pyspark's daemon, which the executor's JVM starts in a
    # process group of its own: they are told by their ancestry, so that another
    # Spark application on the machine (a test's) is not counted.
    executors: set[int] = set()

    def executor_jvm(pgid: int, pid: int, a: str, parent: dict[int, int]) -> bool:
        found = pgid == worker_group and program(a) == "java" and "CoarseGrained" in a
        if found:
            executors.add(pid)
        return found

    def executor_python(pgid: int, pid: int, a: str, parent: dict[int, int]) -> bool:
        if not program(a).startswith("python"):
            return False
        while pid in parent and pid > 1:
            pid = parent[pid]
            if pid in executors:
                return True
        return False

    roles = {
        "driver JVM": lambda pgid, pid, a, parent: pgid == ours and program(a) == "java"
        and "SparkSubmit" in a,
        "driver Python": lambda pgid, pid, a, parent: pgid == ours
        and program(a).startswith("python") and "spark/__main__.py" in a,
        "executor JVM": executor_jvm,
        "executor Python": executor_python,
    }  # fmt: skip
    with PeakRss(roles, anonymous=("executor JVM",)) as rss:
        elapsed, out = timed(command, cluster.env)
    peaks = ", ".join(f"{role} {value:.0f} MB" for role, value in rss.peak.items())
    print(f"spark-submit (2 cores, --rows parquet): {elapsed:.0f} s, "
          f"{args.big / elapsed:,.0f} rows/s; peak RSS: {peaks}")  # fmt: skip
    print("\npeak RSS (MB) in each tenth of the run:\n")
    print("| until (s) | " + " | ".join(rss.peak) + " |")
    print("|---:|" + "---:|" * len(rss.peak))
    for until, peak in rss.by_tenths():
        print(f"| {until:.0f} | " + " | ".join(f"{peak[r]:.0f}" for r in rss.peak) + " |")
    if args.no_stream:
        return
    stream = ["nice", sys.executable, "-m", "meteorx", "score", "--stream", "--system-only",
              "--jobs", "2", "--hyp", str(hyp), "--ref", str(ref), *config]  # fmt: skip
    t_stream, want = timed(stream)
    print(f"meteorx score --stream --jobs 2: {t_stream:.0f} s")
    got_line = [line for line in out.splitlines() if line.startswith("METEOR = ")]
    want_line = [line for line in want.splitlines() if line.startswith("METEOR = ")]
    print(f"spark:  {got_line}\nstream: {want_line}\nequal: {got_line == want_line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--big", type=int, default=0, help="synthetic rows (memory run)")
    parser.add_argument("--preset", default="li")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--norm", default="lower")
    parser.add_argument("--executor-memory", default="1g", help="memory run: its heap")
    parser.add_argument("--no-stream", action="store_true", help="memory run: no --stream check")
    args = parser.parse_args()
    if not XRAY.is_dir():
        print(f"xray data not found in {XRAY} (set METEORX_DATA)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="meteorx-spark-") as tmp:
        folder = Path(tmp)
        with standalone_cluster(folder / "cluster", cores=2, memory="3g") as cluster:
            if args.big:
                memory(args, cluster, folder)
            else:
                throughput(args, cluster, folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
