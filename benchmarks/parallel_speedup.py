"""Speed-up of ``--jobs N`` (meteorx.parallel) on 4x the xray data, identical results.

Scores the two xray systems, each repeated four times (4 x 2 x 2,489 = 19,912
segments), in one process and in N processes, checks that every segment result is
identical, and reports the wall-clock speed-up, for the two kinds of results
``score_pairs`` returns: scores and statistics only (``detail=False``: what ``meteorx
score`` and ``meteorx tune`` use) and full results with links and tokens (the API,
``meteorx report``). Runs alternate between 1 and N processes so that both meet the
same background load; the load average is printed before and after. Alongside, the
machine's ceiling: N forked processes scoring 1/N each (pairs with the same reference
together, a fresh scorer inherited as in ``score_pairs``) and returning nothing, with
its wall-clock speed-up and its CPU overhead (the cost of forking and of each process
warming its own caches), against which the CPU overhead of ``--jobs N`` compares.

On a machine shared with other users' CPU-bound work, the kernel's autogroup
scheduler gives each login session a fair share of the CPUs whatever the number of its
processes, so N processes cannot go faster than one; run it in a session of its own at
a raised priority to measure (as root)::

    setsid sh -c 'echo -20 > /proc/$$/autogroup; exec python benchmarks/parallel_speedup.py'

    python benchmarks/parallel_speedup.py [--data ../shared/data] [--jobs 2] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from meteorx.parallel import score_pairs  # noqa: E402
from meteorx.scorer import Scorer, paused_gc  # noqa: E402

CONFIG = {"extends": "li", "language": "en", "normalize": "lower"}


def read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


_PART_SCORER: Scorer | None = None  # the ceiling's scorer, inherited by its workers


def _score_part(part: list[tuple[str, list[str]]]) -> int:
    """A worker of the ceiling: score a share, return nothing."""
    assert _PART_SCORER is not None
    with paused_gc():
        for hyp, refs in part:
            _PART_SCORER.segment(hyp, refs)
    return len(part)


def _ideal(pairs: list[tuple[str, list[str]]], jobs: int) -> tuple[float, float]:
    """Wall and CPU time of N forked processes each scoring 1/N of the pairs (a
    contiguous share, pairs with the same reference together) with a fresh scorer
    inherited from this process, and returning nothing: the best any parallel scheme
    can do on this machine right now."""
    import multiprocessing

    global _PART_SCORER
    _PART_SCORER = Scorer(CONFIG)
    ordered = sorted(pairs, key=lambda pair: tuple(pair[1]))
    n = len(ordered)
    parts = [ordered[k * n // jobs : (k + 1) * n // jobs] for k in range(jobs)]
    before = _cpu()
    start = time.perf_counter()
    pool = multiprocessing.get_context("fork").Pool(jobs)
    pool.map(_score_part, parts, chunksize=1)
    pool.close()
    pool.join()
    wall = time.perf_counter() - start
    _PART_SCORER = None
    return wall, _cpu() - before


def _cpu() -> float:
    """CPU seconds used so far by this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--copies", type=int, default=4, help="copies of the xray data (4)")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved runs per setting")
    args = parser.parse_args()
    xray = args.data / "meteor15-examples"
    if not xray.is_dir():
        print(f"no xray data at {xray}")
        return 1
    ref = read(xray / "xray.reference")
    pairs = [
        (hyp, [r])
        for _ in range(args.copies)
        for system in ("system1", "system2")
        for hyp, r in zip(read(xray / f"xray.{system}.hyp"), ref, strict=True)
    ]
    print(f"{len(pairs)} segments ({args.copies} x 2 systems x {len(ref)}), config {CONFIG}")
    print(f"load average before: {os.getloadavg()}")
    same = True
    for detail in (False, True):
        label = (
            "full results (links and tokens: what 'report' and the API get)"
            if detail
            else "scores and statistics (what 'meteorx score' and 'tune' use)"
        )
        print(f"\n{label}:")
        walls: dict[int, list[float]] = {1: [], args.jobs: []}
        ideal: list[float] = []
        ideal_cpus: list[float] = []
        cpus: dict[int, list[float]] = {1: [], args.jobs: []}
        results = {}
        # Interleaved runs (1 process, then N, repeatedly): on a shared machine both
        # settings then meet the same background load.
        for _ in range(args.repeat):
            for jobs in (1, args.jobs):
                scorer = Scorer(CONFIG)  # fresh caches for every run
                before = _cpu()
                start = time.perf_counter()
                results[jobs] = score_pairs(scorer, pairs, jobs=jobs, detail=detail)
                walls[jobs].append(time.perf_counter() - start)
                cpus[jobs].append(_cpu() - before)
            if not detail:
                wall, cpu = _ideal(pairs, args.jobs)
                ideal.append(wall)
                ideal_cpus.append(cpu)
        n = args.jobs
        for jobs in (1, n):
            best = min(walls[jobs])
            print(
                f"  jobs={jobs}: best {best:.2f} s wall ({len(pairs) / best:,.0f} segments/s), "
                f"median {statistics.median(walls[jobs]):.2f} s; "
                f"CPU (all processes) median {statistics.median(cpus[jobs]):.2f} s",
                flush=True,
            )
        identical = repr(results[1]) == repr(results[n])
        same = same and identical
        ratios = sorted(a / b for a, b in zip(walls[1], walls[n], strict=True))
        print(f"  identical results: {identical}")
        print(
            f"  speed-up with {n} processes: best-of {min(walls[1]) / min(walls[n]):.2f}x; "
            f"per interleaved pair median {statistics.median(ratios):.2f}x "
            f"(range {ratios[0]:.2f}-{ratios[-1]:.2f})"
        )
        if ideal:
            best = sorted(a / b for a, b in zip(walls[1], ideal, strict=True))
            print(
                f"  reference: {n} processes scoring 1/{n} each and returning nothing: "
                f"median {statistics.median(best):.2f}x (range {best[0]:.2f}-{best[-1]:.2f}) "
                "- the machine's ceiling right now"
            )
        overhead = statistics.median(cpus[n]) / statistics.median(cpus[1]) - 1
        print(f"  CPU overhead of {n} processes (medians): {overhead:+.1%}", end="")
        if ideal_cpus:
            floor = statistics.median(ideal_cpus) / statistics.median(cpus[1]) - 1
            print(f"; of the reference: {floor:+.1%}", end="")
        print()
    print(f"\nload average after: {os.getloadavg()}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
