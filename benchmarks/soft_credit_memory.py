"""Peak memory and time of soft credit on one long segment with nothing aligned.

Soft credit compares unaligned hypothesis words with unaligned reference words
(:mod:`meteorx.soft_credit`); this measures one segment of N unmatched words a side,
scored as a user scores it: a whole ``meteorx score --hyp H --ref R --lang L`` process
(the meteorx preset, soft credit on) per row, under ``METEORX_ENGINE=c`` and
``python``. Peak RSS is the process's ``ru_maxrss`` from ``os.wait4`` (the largest of
it and the worker processes it waited for); seconds are wall time, start-up included.

The two sides share no character, so no stage links a word and every word is left to
soft credit:

``pt``  space-separated words: four letters from ``a``-``m`` (hypothesis) or ``n``-``z``
        (reference), all distinct up to 28,561; the 240,000-word rows use one-letter
        words (the 500,000-character segment limit leaves no room for longer ones).
``zh``  one line of CJK ideographs (one word each): the hypothesis from the first half
        of U+4E00-U+9FFF, the reference from the second, cycling through 10,496 each.

The largest size is also run with ``--stream`` and with ``--jobs 2`` (C engine).

Usage::

    python benchmarks/soft_credit_memory.py                      # the full table
    python benchmarks/soft_credit_memory.py --sizes 1000 5000 --langs pt
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CJK_FIRST, CJK_HALF = 0x4E00, 10_496  # U+4E00-U+9FFF: two disjoint halves


def _base13(n: int, letters: str, width: int) -> str:
    digits = []
    for _ in range(width):
        n, d = divmod(n, 13)
        digits.append(letters[d])
    return "".join(digits)


def segment(lang: str, words: int, side: int) -> str:
    """One line of ``words`` words for side 0 (hypothesis) or 1 (reference)."""
    if lang == "zh":
        start = CJK_FIRST + side * CJK_HALF
        return "".join(chr(start + k % CJK_HALF) for k in range(words))
    letters = "abcdefghijklm" if side == 0 else "nopqrstuvwxyz"
    width = 4 if words * 5 <= 500_000 else 1
    return " ".join(_base13(k, letters, width) for k in range(words))


def cli() -> list[str]:
    """The ``meteorx`` command of this interpreter's environment."""
    script = Path(sys.executable).parent / "meteorx"
    if script.is_file():
        return [str(script)]
    found = shutil.which("meteorx")
    return [found] if found else [sys.executable, "-m", "meteorx"]


def run(args: list[str], engine: str, timeout: float) -> tuple[int, float, float, str]:
    """Exit code, peak RSS (MB), seconds and the outcome (system score or error line)."""
    env = {**os.environ, "METEORX_ENGINE": engine}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        process = subprocess.Popen(args, stdout=out, stderr=err, env=env)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.05)
        seconds = time.monotonic() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    if "Traceback" in stderr:
        outcome = "traceback: " + stderr.strip().splitlines()[-1][:80]
    elif code == 0:
        system = [line for line in stdout.splitlines() if line.startswith("METEOR =")]
        outcome = system[0].split("(")[0].strip() if system else "no system score"
    else:
        lines = stderr.strip().splitlines()
        outcome = (lines[-1] if lines else "(nothing on stderr)")[:80]
    if seconds > timeout:
        outcome = f"killed after {timeout:.0f} s"
    return code, usage.ru_maxrss / 1024, seconds, outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000, 240000])
    parser.add_argument("--langs", nargs="+", default=["pt", "zh"])
    parser.add_argument("--engines", nargs="+", default=["c", "python"])
    parser.add_argument("--timeout", type=float, default=1800.0, help="per run, seconds")
    options = parser.parse_args(argv)
    largest = max(options.sizes)
    print(
        "| lang | words a side | distinct a side | engine | options | exit | peak RSS MB "
        "| seconds | result |"
    )
    print("|---|---:|---:|---|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as folder:
        for lang in options.langs:
            for words in options.sizes:
                hyp, ref = Path(folder, "hyp.txt"), Path(folder, "ref.txt")
                hyp_line, ref_line = segment(lang, words, 0), segment(lang, words, 1)
                hyp.write_text(hyp_line + "\n", encoding="utf-8")
                ref.write_text(ref_line + "\n", encoding="utf-8")
                units = hyp_line if lang == "zh" else hyp_line.split()
                distinct = len(set(units))
                base = [*cli(), "score", "--hyp", str(hyp), "--ref", str(ref), "--lang", lang]
                runs: list[tuple[str, list[str]]] = [(e, []) for e in options.engines]
                if words == largest:
                    runs += [("c", ["--stream"]), ("c", ["--jobs", "2"])]
                for engine, extra in runs:
                    code, peak, seconds, outcome = run([*base, *extra], engine, options.timeout)
                    print(
                        f"| {lang} | {words:,} | {distinct:,} | {engine} | "
                        f"{' '.join(extra) or '-'} | {code} | {peak:,.0f} | {seconds:.1f} "
                        f"| {outcome} |",
                        flush=True,
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
