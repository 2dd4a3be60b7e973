"""Rows per second of ``meteorx.spark`` on local[1] and local[2] (and one plain process).

Builds N rows by repeating the xray data (hypothesis = system1 line, reference = the
reference line), caches them in Spark, warms the Python workers up (their scorer is
built on first use), then times ``score_rows`` followed by the corpus sum. Each Spark
master runs in its own subprocess; the session start-up is reported, not counted.

Usage::

    python benchmarks/spark_rows.py                   # 20,000 rows, local[1] and local[2]
    python benchmarks/spark_rows.py --rows 50000 --masters 'local[1]' 'local[2]' 'local[4]'

Needs pyspark (``pip install "meteorx[spark]"``) and Java 17+.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
XRAY = DATA / "meteor15-examples"

CHILD = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore", FutureWarning)
master, rows, partitions, preset, lang, norm, hyp_path, ref_path = sys.argv[1:9]
rows, partitions = int(rows), int(partitions)
start = time.monotonic()
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master(master).appName("meteorx-bench")
         .config("spark.ui.enabled", "false").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
started = time.monotonic() - start
hyps = open(hyp_path, encoding="utf-8").read().split("\n")[:-1]
refs = open(ref_path, encoding="utf-8").read().split("\n")[:-1]
data = [(i, hyps[i % len(hyps)], refs[i % len(refs)]) for i in range(rows)]
df = spark.createDataFrame(data, "id long, hypothesis string, references string")
df = df.repartition(partitions).cache()
df.count()
from meteorx.spark import corpus_stats, score_rows
kw = dict(config=preset, language=lang or None, normalize=norm or None)
from meteorx.api import build_scorer
from meteorx.stats import Layout
width = Layout(len(build_scorer(**kw).matchers)).width
corpus_stats(score_rows(df.limit(200), **kw), width=width)  # start workers, build scorers
t = time.monotonic()
stats = corpus_stats(score_rows(df, **kw), width=width)
elapsed = time.monotonic() - t
spark.stop()
print(json.dumps({"master": master, "rows": rows, "seconds": elapsed,
                  "rows_per_s": rows / elapsed, "session_start_s": started,
                  "segments": stats.segments}))
"""


def single_process(rows: int, args: argparse.Namespace) -> float:
    from meteorx import Scorer

    hyps = (XRAY / "xray.system1.hyp").read_text(encoding="utf-8").split("\n")[:-1]
    refs = (XRAY / "xray.reference").read_text(encoding="utf-8").split("\n")[:-1]
    scorer = Scorer(args.preset, language=args.lang or None, normalize=args.norm or None)
    scorer.segment("warm up", "warm up")
    start = time.monotonic()
    for i in range(rows):
        scorer.segment(hyps[i % len(hyps)], refs[i % len(refs)])
    return rows / (time.monotonic() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--masters", nargs="+", default=["local[1]", "local[2]"])
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--preset", default="li")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--norm", default="lower")
    args = parser.parse_args()
    if not XRAY.is_dir():
        print(f"xray data not found in {XRAY} (set METEORX_DATA)", file=sys.stderr)
        return 2
    base = single_process(args.rows, args)
    print(f"one process, no Spark: {base:,.0f} rows/s", flush=True)
    for master in args.masters:
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                CHILD,
                master,
                str(args.rows),
                str(args.partitions),
                args.preset,
                args.lang,
                args.norm,
                str(XRAY / "xray.system1.hyp"),
                str(XRAY / "xray.reference"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            print(proc.stderr[-3000:], file=sys.stderr)
            return 1
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(
            f"{master:10} {r['rows']:,} rows in {r['seconds']:.1f} s: {r['rows_per_s']:,.0f} "
            f"rows/s (session start {r['session_start_s']:.1f} s, not counted)",
            flush=True,
        )
    print(f"cores on this machine: {os.cpu_count()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
