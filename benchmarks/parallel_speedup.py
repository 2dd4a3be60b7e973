"""Speed-up of ``--jobs N`` (meteorx.parallel) on 4x the xray data, identical results.

Scores the two xray systems, each repeated four times (4 x 2 x 2,489 = 19,912
segments), in one process and in N processes, checks that every segment result is
identical, and reports the wall-clock speed-up. The machine should be otherwise idle:
the script prints the load average before and after so a busy run can be spotted (and
repeated). Reference-side caching is per process, so the repeated copies are a fair
workload for both runs (every worker sees each reference again too).

    python benchmarks/parallel_speedup.py [--data ../shared/data] [--jobs 2] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from meteorx.parallel import score_pairs  # noqa: E402
from meteorx.scorer import Scorer  # noqa: E402

CONFIG = {"extends": "li", "language": "en", "normalize": "lower"}


def read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


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
    parser.add_argument("--repeat", type=int, default=2, help="runs per setting (best kept)")
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
        times: dict[int, float] = {}
        cpu: dict[int, float] = {}
        results = {}
        for jobs in (1, args.jobs):
            best = float("inf")
            for _ in range(args.repeat):
                scorer = Scorer(CONFIG)  # fresh caches for every run
                before = _cpu()
                start = time.perf_counter()
                results[jobs] = score_pairs(scorer, pairs, jobs=jobs, detail=detail)
                elapsed = time.perf_counter() - start
                if elapsed < best:
                    best = elapsed
                    cpu[jobs] = _cpu() - before
            times[jobs] = best
            print(
                f"  jobs={jobs}: {best:.2f} s wall ({len(pairs) / best:,.0f} segments/s), "
                f"{cpu[jobs]:.2f} s CPU (all processes)",
                flush=True,
            )
        identical = repr(results[1]) == repr(results[args.jobs])
        same = same and identical
        n = args.jobs
        print(f"  identical results: {identical}")
        print(f"  speed-up with {n} processes: {times[1] / times[n]:.2f}x (wall clock)")
        # With N otherwise idle cores the wall time approaches CPU(N) / N.
        bound = cpu[1] / (cpu[n] / min(n, os.cpu_count() or 1))
        print(
            f"  CPU overhead of {n} processes: {cpu[n] / cpu[1] - 1:+.1%}; "
            f"speed-up with {n} idle cores: about {bound:.2f}x"
        )
    print(f"\nload average after: {os.getloadavg()}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
