"""Cost of the paraphrase stage: loading the English table, then matching.

1. Load: compiles pycocoevalcap's ``paraphrase-en.gz`` (5.3 M entries) into an empty
   temporary cache folder (first use on a machine), then loads the compiled file
   again (every later use: read into memory and its digest checked, see
   :mod:`meteorx.cache`). Each in a fresh process; prints wall and CPU seconds and the
   process's peak resident memory. ``--digest sha256`` hides the optional ``xxhash``
   package from the child processes, so the files carry and check SHA-256.
2. Matching: ``ParaphraseMatcher.prepare`` + ``.candidates`` alone over Meteor 1.5's
   xray data (both systems against the reference, references prepared once as the
   scorer does), in microseconds per segment: the first pass of a fresh process
   (which reads first words' keys and decodes paraphrases as sentences need them),
   then a second pass over the same data.

    python benchmarks/paraphrase_load.py [--data ../shared/data] [--repeat 3]
        [--digest auto|sha256]

Needs ``pip install pycocoevalcap``; part 2 needs the shared data folder
(``meteor15-examples``). The machine's other load makes timings vary: take the best of
``--repeat`` runs.
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

_LOAD = """
import json, resource, sys, time
if sys.argv[2] == "sha256":
    sys.modules["xxhash"] = None  # import fails: SHA-256 is used
from meteorx_plugins.paraphrase.table import load_table
wall, cpu = time.perf_counter(), time.process_time()
table = load_table(sys.argv[1])
print(json.dumps({
    "wall": time.perf_counter() - wall,
    "cpu": time.process_time() - cpu,
    "from_cache": table.from_cache,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""

_MATCH = """
import json, sys, time
from meteorx.metric import Scorer
from meteorx.languages import resolve_language
from meteorx_plugins.paraphrase import ParaphraseMatcher, ParaphraseOptions
base = sys.argv[1]
def lines(name):
    with open(f"{base}/{name}", encoding="utf-8") as handle:
        return handle.read().split("\\n")[:-1]
scorer = Scorer({"language": "en", "normalize": "meteor", "stages": [{"matcher": "exact"}]})
refs = [scorer.tokenize(line) for line in lines("xray.reference")]
systems = [
    [scorer.tokenize(line) for line in lines(f"xray.{name}.hyp")]
    for name in ("system1", "system2")
]
matcher = ParaphraseMatcher(ParaphraseOptions(), resolve_language("en"))
def one_pass():
    prepared = {}
    started = time.process_time()
    for hyps in systems:
        for hyp, ref in zip(hyps, refs):
            ref_prepared = prepared.get(ref)
            if ref_prepared is None:
                ref_prepared = prepared[ref] = matcher.prepare(ref)
            matcher.candidates(matcher.prepare(hyp), ref_prepared)
    return (time.process_time() - started) / sum(map(len, systems)) * 1e6
print(json.dumps({"first_us": one_pass(), "second_us": one_pass()}))
"""


def _run(code: str, *args: str, env: dict[str, str] | None = None) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        check=True,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--digest", choices=["auto", "sha256"], default="auto")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from meteorx.languages import resolve_language
    from meteorx_plugins.paraphrase import find_paraphrase_table

    table = str(find_paraphrase_table(resolve_language("en")).path)
    cold: list[dict[str, float]] = []
    warm: list[dict[str, float]] = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as folder:
            env = {**os.environ, "METEORX_CACHE_DIR": folder}
            cold.append(_run(_LOAD, table, args.digest, env=env))
            warm.append(_run(_LOAD, table, args.digest, env=env))
    for name, runs in (("first load (compile)", cold), ("later load (open)", warm)):
        best = min(runs, key=lambda r: r["wall"])
        walls = ", ".join(f"{r['wall']:.2f}" for r in runs)
        print(
            f"{name:22s} wall {best['wall']:6.3f} s  cpu {best['cpu']:6.3f} s  "
            f"peak RSS {max(r['peak_mb'] for r in runs):5.0f} MB  (walls: {walls})"
        )
    xray = Path(args.data) / "meteor15-examples"
    if not (xray / "xray.reference").is_file():
        print(f"matching: skipped, no data at {xray}")
        return
    runs = [_run(_MATCH, str(xray)) for _ in range(args.repeat)]
    firsts = ", ".join(f"{r['first_us']:.0f}" for r in runs)
    print(
        f"matching, us/segment   first pass {min(r['first_us'] for r in runs):6.0f}  "
        f"second pass {min(r['second_us'] for r in runs):6.0f}  (first: {firsts})"
    )


if __name__ == "__main__":
    main()
