"""Speed-up of ``--jobs N`` (meteorx.parallel) on 4x the xray data, identical results.

Scores the two xray systems, each repeated four times (4 x 2 x 2,489 = 19,912
segments), in one process and in N processes, checks that the results are identical,
and reports the wall-clock speed-up, for the two kinds of results ``score_pairs``
returns: scores and statistics only (``detail=False``: what ``meteorx score`` and
``meteorx tune`` use) and full results with links and tokens (the API, ``meteorx
report``); and for a stream (:class:`~meteorx.streaming.ScoreStream`, scores only:
``meteorx score --stream --jobs N``, where N workers are sent the text and this
process only reads and collects).

Each measurement runs in a fresh Python process, as ``meteorx score --jobs N`` does:
the process reads the segments, builds the scorer (not timed: start-up is the same
for any N and is reported by ``speed.py``), times one ``score_pairs`` call, and prints
its wall and CPU time and a digest of the results. The runs alternate between 1 and N
processes so that both meet the same background load, and the speed-up is the median
over these interleaved pairs; the load average is printed before and after.

Alongside, the machine's ceiling: N forked processes scoring 1/N each (pairs with the
same reference together, a fresh scorer inherited as in ``score_pairs``) and
returning nothing, with its wall-clock speed-up and its CPU overhead (the cost of
forking and of each process warming its own caches), against which the CPU overhead
of ``--jobs N`` compares. ``--in-process`` times every run in this one process
instead (a fresh scorer each time), as a notebook calling ``score_pairs`` repeatedly
would.

On a machine shared with other users' CPU-bound work, the kernel's autogroup
scheduler gives each login session a fair share of the CPUs whatever the number of its
processes, so N processes cannot go faster than one; run it in a session of its own at
a raised priority to measure (as root)::

    setsid sh -c 'echo -20 > /proc/$$/autogroup; exec python benchmarks/parallel_speedup.py'

    python benchmarks/parallel_speedup.py [--data ../shared/data] [--jobs 2] [--repeat 9]
        [--copies 4] [--preset li] [--kinds scores,full,stream]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from meteorx.metric import Scorer, paused_gc  # noqa: E402
from meteorx.parallel import score_pairs  # noqa: E402
from meteorx.streaming import ScoreStream  # noqa: E402

#: ``--preset`` -> the configuration scored (``li`` as in ``speed.py``: the fastest
#: English configuration, where moving results weighs the most).
CONFIGS: dict[str, dict[str, str]] = {
    "li": {"extends": "li", "language": "en", "normalize": "lower"},
    "meteor-1.5-en": {"extends": "meteor-1.5-en"},  # full English, -norm
}
Pairs = list[tuple[str, list[str]]]


def read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def load_pairs(data: Path, copies: int) -> Pairs:
    xray = data / "meteor15-examples"
    ref = read(xray / "xray.reference")
    return [
        (hyp, [r])
        for _ in range(copies)
        for system in ("system1", "system2")
        for hyp, r in zip(read(xray / f"xray.{system}.hyp"), ref, strict=True)
    ]


_PART_SCORER: Scorer | None = None  # the ceiling's scorer, inherited by its workers


def _score_part(part: Pairs) -> int:
    """A worker of the ceiling: score a share, return nothing."""
    assert _PART_SCORER is not None
    with paused_gc():
        for hyp, refs in part:
            _PART_SCORER.segment(hyp, refs)
    return len(part)


def _cpu() -> float:
    """CPU seconds used so far by this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(pairs: Pairs, jobs: int, kind: str, preset: str) -> dict[str, float | str]:
    """One timed run with a fresh scorer: ``kind`` is ``scores`` (``detail=False``),
    ``full`` (``detail=True``), ``stream`` (:class:`ScoreStream`, scores only) or
    ``ceiling`` (N forked processes scoring 1/N each, returning nothing: the best any
    parallel scheme can do on this machine now)."""
    global _PART_SCORER
    scorer = Scorer(CONFIGS[preset])
    if kind == "ceiling":
        import multiprocessing

        _PART_SCORER = scorer
        ordered = sorted(pairs, key=lambda pair: tuple(pair[1]))
        n = len(ordered)
        parts = [ordered[k * n // jobs : (k + 1) * n // jobs] for k in range(jobs)]
        before, start = _cpu(), time.perf_counter()
        pool = multiprocessing.get_context("fork").Pool(jobs)
        pool.map(_score_part, parts, chunksize=1)
        pool.close()
        pool.join()
        wall, cpu = time.perf_counter() - start, _cpu() - before
        _PART_SCORER = None
        return {"wall": wall, "cpu": cpu, "digest": ""}
    before, start = _cpu(), time.perf_counter()
    if kind == "stream":  # 'meteorx score --stream': workers sent the text, in order
        results = list(ScoreStream(scorer, pairs, jobs=jobs, detail=False))
    else:
        results = score_pairs(scorer, pairs, jobs=jobs, detail=kind == "full")
    wall, cpu = time.perf_counter() - start, _cpu() - before
    digest = hashlib.sha256(repr(results).encode()).hexdigest()
    return {"wall": wall, "cpu": cpu, "digest": digest}


def run_fresh(args: argparse.Namespace, jobs: int, kind: str) -> dict[str, float | str]:
    """:func:`measure` in a fresh Python process."""
    command = [sys.executable, __file__, "--data", str(args.data), "--copies", str(args.copies)]
    command += ["--preset", args.preset, "--one", kind, str(jobs)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    result: dict[str, float | str] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--copies", type=int, default=4, help="copies of the xray data (4)")
    parser.add_argument("--repeat", type=int, default=9, help="interleaved runs per setting")
    parser.add_argument("--preset", choices=sorted(CONFIGS), default="li")
    parser.add_argument(
        "--kinds", default="scores,full,stream", help="what to time (scores,full,stream)"
    )
    parser.add_argument(
        "--in-process", action="store_true", help="time every run in this one process"
    )
    parser.add_argument("--one", nargs=2, metavar=("KIND", "JOBS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not (args.data / "meteor15-examples").is_dir():
        print(f"no xray data at {args.data / 'meteor15-examples'}")
        return 1
    if args.one:  # a child run: one measurement, as JSON
        kind, jobs = args.one
        print(json.dumps(measure(load_pairs(args.data, args.copies), int(jobs), kind, args.preset)))
        return 0
    pairs = load_pairs(args.data, args.copies)
    count = len(pairs)

    def run(jobs: int, kind: str) -> dict[str, float | str]:
        if args.in_process:
            return measure(pairs, jobs, kind, args.preset)
        return run_fresh(args, jobs, kind)

    n = args.jobs
    where = "in this process" if args.in_process else "each in a fresh process"
    print(
        f"{count} segments ({args.copies} x 2 systems x {count // args.copies // 2}), "
        f"config {CONFIGS[args.preset]}, {args.repeat} interleaved runs {where}"
    )
    print(f"load average before: {os.getloadavg()}")
    same = True
    for kind in args.kinds.split(","):
        label = {
            "scores": "scores and statistics (what 'meteorx score' and 'tune' use)",
            "full": "full results (links and tokens: what 'report' and the API get)",
            "stream": "a stream, scores only (what 'meteorx score --stream' uses)",
        }[kind]
        print(f"\n{label}:")
        runs: dict[int, list[dict[str, float | str]]] = {1: [], n: []}
        ceiling: list[dict[str, float | str]] = []
        # Interleaved runs (1 process, then N, repeatedly): on a shared machine both
        # settings then meet the same background load.
        for _ in range(args.repeat):
            for jobs in (1, n):
                runs[jobs].append(run(jobs, kind))
            if kind == "scores":
                ceiling.append(run(n, "ceiling"))
        walls = {jobs: [float(r["wall"]) for r in runs[jobs]] for jobs in (1, n)}
        cpus = {jobs: [float(r["cpu"]) for r in runs[jobs]] for jobs in (1, n)}
        for jobs in (1, n):
            best = min(walls[jobs])
            print(
                f"  jobs={jobs}: best {best:.2f} s wall ({count / best:,.0f} segments/s), "
                f"median {statistics.median(walls[jobs]):.2f} s; "
                f"CPU (all processes) median {statistics.median(cpus[jobs]):.2f} s",
                flush=True,
            )
        digests = {r["digest"] for jobs in (1, n) for r in runs[jobs]}
        identical = len(digests) == 1
        same = same and identical
        ratios = sorted(a / b for a, b in zip(walls[1], walls[n], strict=True))
        print(f"  identical results (digest of every run): {identical}")
        print(
            f"  speed-up with {n} processes: best-of {min(walls[1]) / min(walls[n]):.2f}x; "
            f"per interleaved pair median {statistics.median(ratios):.2f}x "
            f"(range {ratios[0]:.2f}-{ratios[-1]:.2f})"
        )
        if ceiling:
            tops = sorted(a / float(b["wall"]) for a, b in zip(walls[1], ceiling, strict=True))
            print(
                f"  reference: {n} processes scoring 1/{n} each and returning nothing: "
                f"median {statistics.median(tops):.2f}x (range {tops[0]:.2f}-{tops[-1]:.2f}) "
                "- the machine's ceiling right now"
            )
        overhead = statistics.median(cpus[n]) / statistics.median(cpus[1]) - 1
        print(f"  CPU overhead of {n} processes (medians): {overhead:+.1%}", end="")
        if ceiling:
            floor = statistics.median(float(c["cpu"]) for c in ceiling)
            print(f"; of the reference: {floor / statistics.median(cpus[1]) - 1:+.1%}", end="")
        print()
    print(f"\nload average after: {os.getloadavg()}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
