"""Peak memory of streaming scoring on 100k and 1M segments (it must stay flat).

Builds hypothesis/reference files by repeating the Meteor 1.5 xray data (2,489
segments) in a temporary folder (never in the repository), then scores each size in
a fresh subprocess with :func:`meteorx.cli.score_cmd.run_stream` (output to /dev/null) and
reports that process's peak resident set size (``ru_maxrss``), the RSS after building
the scorer, the time to the first segment score, throughput and the sizes of the
scorer's caches at the end.

Two kinds of data:

``repeat``  the xray lines repeated as they are: 2,489 distinct references, so the
            reference cache and the stemmer's word cache stop growing early.
``unique``  each line gets a unique token on both sides (``u<line number>``): every
            reference is new (the reference cache fills up to its cap) and every line
            adds a word to the stemmer's cache; the worst case for the caches.

Usage::

    python benchmarks/memory_streaming.py                       # 100k and 1M, both kinds
    python benchmarks/memory_streaming.py --sizes 20000 200000 --kinds repeat
    python benchmarks/memory_streaming.py --check 1.5           # exit 1 if 1M > 1.5 x 100k

The 1M runs take a while (about 1 ms per segment on one core with ``li``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
XRAY = DATA / "meteor15-examples"

CHILD = r"""
import json, os, resource, sys, time

def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")

from meteorx import Scorer
from meteorx.streaming import score_files

hyp, ref, preset, lang, norm, jobs = sys.argv[1:7]
scorer = Scorer(preset, language=lang or None, normalize=norm or None)
scorer.segment("warm up the scorer", "warm up the scorer")
built = rss_mb()
start = time.monotonic()
first = None
stream = score_files(scorer, hyp, [ref], jobs=int(jobs))
samples = []
with open(os.devnull, "w") as out:
    for result in stream:
        if first is None:
            first = time.monotonic() - start
        out.write(f"Segment {stream.count} score:\t{result.score:.6f}\n")
        if stream.count % 50000 == 0:
            samples.append((stream.count, round(rss_mb(), 1)))
elapsed = time.monotonic() - start
summary = stream.summary()
stem_cache = sum(len(getattr(m, "_cache", ())) for m in scorer.matchers)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({
    "segments": summary.segments, "score": summary.score, "peak_rss_mb": peak,
    "children_peak_rss_mb": children, "rss_after_build_mb": built,
    "first_score_s": first, "seconds": elapsed, "ref_cache": len(scorer._ref_cache),
    "word_cache": stem_cache, "rss_samples": samples,
}))
"""


def build(folder: Path, n: int, kind: str) -> tuple[Path, Path]:
    hyps = (XRAY / "xray.system1.hyp").read_text(encoding="utf-8").split("\n")[:-1]
    refs = (XRAY / "xray.reference").read_text(encoding="utf-8").split("\n")[:-1]
    hyp_path = folder / f"{kind}-{n}.hyp"
    ref_path = folder / f"{kind}-{n}.ref"
    with open(hyp_path, "w", encoding="utf-8") as h, open(ref_path, "w", encoding="utf-8") as r:
        for i in range(n):
            k = i % len(hyps)
            tag = f" u{i}" if kind == "unique" else ""
            h.write(hyps[k] + tag + "\n")
            r.write(refs[k] + tag + "\n")
    return hyp_path, ref_path


def measure(hyp: Path, ref: Path, args: argparse.Namespace) -> dict[str, object]:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(hyp),
            str(ref),
            args.preset,
            args.lang,
            args.norm,
            str(args.jobs),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument(
        "--kinds", nargs="+", default=["repeat", "unique"], choices=["repeat", "unique"]
    )
    parser.add_argument("--preset", default="li")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--norm", default="lower")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--check",
        type=float,
        metavar="RATIO",
        help="fail if the largest size's peak RSS exceeds RATIO x the smallest's",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    if not XRAY.is_dir():
        print(f"xray data not found in {XRAY} (set METEORX_DATA)", file=sys.stderr)
        return 2
    rows = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="meteorx-mem-") as tmp:
        for kind in args.kinds:
            peaks = []
            for n in args.sizes:
                hyp, ref = build(Path(tmp), n, kind)
                r = measure(hyp, ref, args)
                hyp.unlink()
                ref.unlink()
                r["kind"] = kind
                rows.append(r)
                peaks.append(float(r["peak_rss_mb"]))  # type: ignore[arg-type]
                print(
                    f"{kind:6} {n:>9,} segments: peak RSS {r['peak_rss_mb']:7.1f} MB "
                    f"(after build {r['rss_after_build_mb']:.1f} MB), first score after "
                    f"{float(r['first_score_s']) * 1000:.1f} ms, "  # type: ignore[arg-type]
                    f"{n / float(r['seconds']):,.0f} seg/s, "  # type: ignore[arg-type]
                    f"ref cache {r['ref_cache']:,}, word cache {r['word_cache']:,}",
                    flush=True,
                )
            ratio = peaks[-1] / peaks[0]
            print(f"{kind:6} peak RSS ratio {args.sizes[-1]:,} / {args.sizes[0]:,}: {ratio:.2f}")
            if args.check is not None and ratio > args.check:
                failed = True
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
