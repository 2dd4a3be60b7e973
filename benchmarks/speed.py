"""Speed: meteorx vs NLTK's meteor_score vs the Meteor 1.5 jar, side by side in one run.

Reports segments/second (after start-up) and start-up time for each, on the xray data
(Meteor 1.5's example MT output, 2 systems x 2,489 segments), for exact+stem and for
full English (exact, stem, synonym, paraphrase with -norm), and the end-to-end wall time
of one whole command-line run on 2,489 segments (meteorx score vs the jar).

    python benchmarks/speed.py [--data ../shared/data] [--repeat 3] [--no-full]

Start-up time is the wall time of a one-segment run of the command-line tool (best and
median of 11), with Python's bytecode caches written (the script writes them first);
for the jar, ``java -jar meteor-1.5.jar`` on one line, resources loaded. Throughput is
measured in-process for the Python tools (a fresh scorer each repeat, so word caches
start empty; the best of the repeats), and for the jar as (full run - one-line run).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CONFIGS: dict[str, tuple[dict[str, Any], list[str]]] = {
    # name: (meteorx config, equivalent jar arguments)
    "exact+stem (meteor-1.5-en weights)": (
        {
            "extends": "meteor-1.5-en",
            "normalize": "lower",
            "function_words": "meteor-1.5",
            "stages": [{"matcher": "exact", "weight": 1.0}, {"matcher": "stem", "weight": 0.6}],
        },
        ["-l", "en", "-lower", "-m", "exact stem"],
    ),
    "exact+stem (li)": (
        {"extends": "li", "language": "en", "normalize": "lower"},
        ["-l", "en", "-t", "li", "-lower", "-m", "exact stem"],
    ),
    "full English (meteor-1.5-en, -norm)": (
        {"extends": "meteor-1.5-en", "normalize": "meteor", "function_words": "meteor-1.5"},
        ["-l", "en", "-norm"],
    ),
    "exact+stem (meteor-2005 params, optimal aligner)": (
        {
            "extends": "meteor-2005",
            "stages": [{"matcher": "exact"}, {"matcher": "stem", "algorithm": "porter"}],
        },
        [],
    ),
}


def read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def time_meteorx(
    config: dict[str, Any], hyps: list[list[str]], ref: list[str], repeat: int
) -> float:
    from meteorx.metric import Scorer

    best = float("inf")
    n = 0
    for _ in range(repeat):
        scorer = Scorer(config)  # fresh caches every repeat: no reference-side reuse across runs
        start = time.perf_counter()
        n = 0
        for hyp in hyps:
            scorer.corpus(hyp, ref)
            n += len(hyp)
        best = min(best, time.perf_counter() - start)
    return n / best


def end_to_end_meteorx(data: Path) -> float:
    """Wall time of one whole ``meteorx score`` run, full English, 2,489 segments."""
    xray = data / "meteor15-examples"
    cmd = [
        sys.executable, "-m", "meteorx", "score",
        "--hyp", str(xray / "xray.system1.hyp"), "--ref", str(xray / "xray.reference"),
        "--preset", "meteor-1.5-en", "--norm", "meteor", "--quiet",
    ]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True)  # compiled caches written once
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times)


def ensure_bytecode() -> None:
    """Write the package's bytecode caches, as any Python does on first import (a
    machine with ``PYTHONDONTWRITEBYTECODE`` set would otherwise recompile meteorx's
    sources on every run and time the compiler, not the tool)."""
    import compileall

    for folder in ("meteorx", "plugins"):
        compileall.compile_dir(str(REPO / folder), quiet=1)


def startup_meteorx(tmp: Path) -> tuple[float, float]:
    (tmp / "h.txt").write_text("the cat sat on the mat\n")
    (tmp / "r.txt").write_text("the cat sat on the mat\n")
    cmd = [
        sys.executable,
        "-m",
        "meteorx",
        "score",
        "--hyp",
        str(tmp / "h.txt"),
        "--ref",
        str(tmp / "r.txt"),
        "--preset",
        "li",
        "--lang",
        "en",
    ]
    subprocess.run(cmd, check=True, capture_output=True)  # warm the file cache
    times = []
    for _ in range(11):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times), sorted(times)[len(times) // 2]  # best, median


def time_nltk(hyps: list[list[str]], ref: list[str]) -> tuple[float, float] | None:
    try:
        from nltk.translate.meteor_score import meteor_score

        from meteorx_plugins.nltk_compat import nltk_wordnet_reader  # NLTK's, same files
    except Exception as error:  # pragma: no cover - benchmark only
        print(f"  (NLTK skipped: {error})")
        return None
    start = time.perf_counter()
    wordnet = nltk_wordnet_reader()
    wordnet.synsets("dog")
    load = time.perf_counter() - start
    start = time.perf_counter()
    n = 0
    for hyp in hyps:
        for h, r in zip(hyp, ref, strict=True):
            meteor_score([r.split()], h.split(), wordnet=wordnet)
            n += 1
    return n / (time.perf_counter() - start), load


def time_jar(data: Path, args: list[str], tmp: Path) -> tuple[float, float] | None:
    from tests.oracle import jar

    path = jar.find_jar()
    if path is None or jar.unavailable_reason():
        print("  (jar skipped: pip install pycocoevalcap, and Java)")
        return None
    one_h, one_r = tmp / "one.h", tmp / "one.r"
    one_h.write_text("the cat sat on the mat\n")
    one_r.write_text("the cat sat on the mat\n")

    def run(h: Path, r: Path) -> float:
        start = time.perf_counter()
        subprocess.run(
            ["java", "-Xmx2G", "-jar", str(path), str(h), str(r), *args, "-q"],
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - start

    startup = min(run(one_h, one_r) for _ in range(2))
    xray = data / "meteor15-examples"
    full = run(xray / "xray.system1.hyp", xray / "xray.reference")
    _JAR_FULL_RUN[" ".join(args)] = full
    return 2489 / max(full - startup, 1e-9), startup


_JAR_FULL_RUN: dict[str, float] = {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-full", action="store_true", help="skip the full-English rows")
    args = parser.parse_args()
    xray = args.data / "meteor15-examples"
    ref = read(xray / "xray.reference")
    hyps = [read(xray / "xray.system1.hyp"), read(xray / "xray.system2.hyp")]
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        ensure_bytecode()
        startup, startup_median = startup_meteorx(tmp)
        for name, (config, jar_args) in CONFIGS.items():
            if args.no_full and name.startswith("full"):
                continue
            print(f"timing meteorx {name} ...", flush=True)
            rate = time_meteorx(config, hyps, ref, args.repeat)
            cli = f"{startup:.2f} s (CLI; median {startup_median:.2f})"
            rows.append((f"meteorx, {name}", f"{rate:,.0f}", cli))
            if jar_args:
                print(f"timing Meteor 1.5 jar {' '.join(jar_args)} ...", flush=True)
                res = time_jar(args.data, jar_args, tmp)
                if res:
                    rows.append(
                        (
                            f"Meteor 1.5 jar {' '.join(jar_args)}",
                            f"{res[0]:,.0f}",
                            f"{res[1]:.2f} s (JVM + resources)",
                        )
                    )
        print("timing NLTK meteor_score (exact+Porter+WordNet, greedy) ...", flush=True)
        res = time_nltk(hyps, ref)
        if res:
            rows.append(
                ("NLTK 3.10 meteor_score", f"{res[0]:,.0f}", f"{res[1]:.2f} s (WordNet load)")
            )
    width = max(len(r[0]) for r in rows)
    print()
    print(f"| {'tool':{width}} | segments/s | start-up |")
    print(f"|{'-' * (width + 2)}|-----------:|----------|")
    for name, rate, start in rows:
        print(f"| {name:{width}} | {rate:>10} | {start} |")
    if not args.no_full:
        print("\ntiming one whole run, full English, 2,489 segments ...", flush=True)
        ours = end_to_end_meteorx(args.data)
        jar_full = _JAR_FULL_RUN.get("-l en -norm")
        print(f"meteorx score --preset meteor-1.5-en --norm meteor: {ours:.2f} s")
        if jar_full is not None:
            print(f"Meteor 1.5 jar -l en -norm: {jar_full:.2f} s ({jar_full / ours:.1f}x slower)")


if __name__ == "__main__":
    main()
