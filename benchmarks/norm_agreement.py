"""Agreement of meteorx's ``meteor`` tokenizer with meteor-1.5.jar ``-norm`` on real data.

Runs the jar on the Meteor 1.5 example data (``xray.system1.hyp`` and
``xray.system2.hyp`` against ``xray.reference``, 2,489 segments each) with
``-l en -norm -writeAlignments`` and with ``-noPunct`` added. The alignment file
prints the normalised tokens of both lines of every segment, which are compared
segment by segment with the tokenizer's. Also reports the agreement obtained
with the *unpatched* sacremoses prefix lists, and the speed of the tokenizer
(on the engine in use: ``METEORX_ENGINE=python`` times the plain Python).

Usage::

    python benchmarks/norm_agreement.py [DATA_DIR] [--fast] [--show N]

DATA_DIR defaults to ``../shared/data`` relative to the repository root (the files
are read from ``DATA_DIR/meteor15-examples``). ``--fast`` adds ``-m exact`` to the
jar runs (the tokenisation does not depend on the matchers; about 4x faster).
The jar is ``$METEORX_METEOR_JAR`` or ``pycocoevalcap/meteor/meteor-1.5.jar``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from meteorx_plugins.meteor_norm import languages, norm_tokenizer  # noqa: E402

SYSTEMS = ("system1", "system2")
MODES = {"norm": ["-norm"], "noPunct": ["-norm", "-noPunct"]}
Tokens = list[str]


def find_jar() -> Path:
    env = os.environ.get("METEORX_METEOR_JAR")
    if env:
        return Path(env)
    spec = importlib.util.find_spec("pycocoevalcap")
    for location in (spec.submodule_search_locations or []) if spec else []:
        jar = Path(location) / "meteor" / "meteor-1.5.jar"
        if jar.is_file():
            return jar
    sys.exit("meteor-1.5.jar not found: pip install pycocoevalcap or set METEORX_METEOR_JAR")


def java_lines(path: Path) -> list[str]:
    """The lines of a file as Java's BufferedReader.readLine() returns them."""
    with path.open(encoding="utf-8", newline=None) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def words(line: str) -> Tokens:
    return [w for w in line.split(" ") if w]


def run_jar(
    jar: Path, hyp: Path, ref: Path, flags: list[str], fast: bool
) -> list[tuple[Tokens, Tokens]]:
    """(hyp tokens, ref tokens) per segment from the jar's -writeAlignments output."""
    with tempfile.TemporaryDirectory(prefix="meteorx-norm-") as tmp:
        cmd = ["java", "-Xmx2G", "-Duser.language=en", "-Duser.country=US", "-jar", str(jar),
               str(hyp), str(ref), "-l", "en", *flags, *(["-m", "exact"] if fast else []),
               "-writeAlignments", "-f", "out"]  # fmt: skip
        subprocess.run(cmd, cwd=tmp, check=True, capture_output=True)
        lines = (Path(tmp) / "out-align.out").read_text(encoding="utf-8").split("\n")
    return [
        (words(lines[i + 1]), words(lines[i + 2]))
        for i, line in enumerate(lines)
        if line.startswith("Alignment\t")
    ]


@contextmanager
def raw_sacremoses_prefixes() -> Iterator[None]:
    """Temporarily use sacremoses' English list without the jar patch."""
    corpus = importlib.import_module("sacremoses.corpus")
    saved = dict(languages._PREFIX_TABLES)
    raw = languages.parse_prefix_lines(corpus.NonbreakingPrefixes().words("en"))
    languages._PREFIX_TABLES["english"] = raw
    try:
        yield
    finally:
        languages._PREFIX_TABLES.clear()
        languages._PREFIX_TABLES.update(saved)


def compare(
    texts: dict[str, list[str]], jar_tokens: dict[str, list[Tokens]], keep: bool, show: int
) -> dict[str, tuple[int, int]]:
    """Identical segments / total per file; prints up to ``show`` differences."""
    result = {}
    tokenize = norm_tokenizer("en", keep)  # built here: with the prefix table in use
    for name, lines in texts.items():
        same = 0
        for i, (line, expected) in enumerate(zip(lines, jar_tokens[name], strict=True)):
            mine = tokenize(line)
            if mine == expected:
                same += 1
            elif show > 0:
                show -= 1
                print(f"    differs: {name}:{i + 1}: {line!r}")
                print(f"      jar : {expected}\n      mine: {mine}")
        result[name] = (same, len(lines))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "data_dir", nargs="?", type=Path, default=REPO_ROOT / ".." / "shared" / "data"
    )
    parser.add_argument("--fast", action="store_true", help="add -m exact to the jar runs")
    parser.add_argument("--show", type=int, default=10, help="differences to print per mode")
    args = parser.parse_args()

    xray = args.data_dir / "meteor15-examples"
    ref_path = xray / "xray.reference"
    hyp_paths = {s: xray / f"xray.{s}.hyp" for s in SYSTEMS}
    texts = {"reference": java_lines(ref_path)} | {s: java_lines(p) for s, p in hyp_paths.items()}
    jar = find_jar()
    print(f"jar: {jar}\ndata: {xray.resolve()}")

    start = time.perf_counter()
    # Sequential: two JVMs with the paraphrase table in parallel were slower, not faster.
    runs = {
        (s, m): run_jar(jar, hyp_paths[s], ref_path, flags, args.fast)
        for s in SYSTEMS
        for m, flags in MODES.items()
    }
    print(f"jar runs: {len(runs)} in {time.perf_counter() - start:.1f}s\n")

    total_lines = sum(len(v) for v in texts.values())
    for mode in MODES:
        keep = mode == "norm"
        jar_tokens = {s: [h for h, _ in runs[(s, mode)]] for s in SYSTEMS}
        jar_tokens["reference"] = [r for _, r in runs[(SYSTEMS[0], mode)]]
        # The reference is normalised in both runs; the two must agree with each other.
        assert jar_tokens["reference"] == [r for _, r in runs[(SYSTEMS[1], mode)]]
        print("== " + " ".join(MODES[mode]))
        for label, raw in (
            ("shipped (patched) prefixes", False),
            ("raw sacremoses prefixes", True),
        ):
            print(f"  {label}:")
            if raw:
                with raw_sacremoses_prefixes():
                    res = compare(texts, jar_tokens, keep, args.show)
            else:
                res = compare(texts, jar_tokens, keep, args.show)
            same = sum(s for s, _ in res.values())
            per_file = ", ".join(f"{n} {s}/{t}" for n, (s, t) in res.items())
            print(f"    {same}/{total_lines} identical "
                  f"({100 * same / total_lines:.2f}%)  [{per_file}]")  # fmt: skip
        print()

    # CPU time of this process (robust to other load on the machine); one thread.
    all_lines = [line for lines in texts.values() for line in lines]
    for mode in MODES:
        keep = mode == "norm"
        best = float("inf")
        tokenize = norm_tokenizer("en", keep)
        for _ in range(5):
            t0 = time.process_time()
            for line in all_lines:
                tokenize(line)
            best = min(best, time.process_time() - t0)
        rate = len(all_lines) / best
        per_line = 1e6 * best / len(all_lines)
        print(f"speed -{mode}: {rate:,.0f} lines/s ({per_line:.1f} us/line CPU time, "
              f"best of 5 over {len(all_lines)} lines)")  # fmt: skip

    cold = subprocess.run(
        [sys.executable, "-c", COLD_START],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    print(f"cold start (import + first call, loads sacremoses): {cold.stdout.strip()}s")


COLD_START = """
import time
t0 = time.perf_counter()
from meteorx_plugins.meteor_norm import norm_tokenizer
norm_tokenizer("en")("Mr. X")
print(f"{time.perf_counter() - t0:.2f}")
"""

if __name__ == "__main__":
    main()
