#!/usr/bin/env python3
"""``meteorx correlate`` on every development set, against the agreement study's table.

Each set (read by ``benchmarks/_agreement_data.py``, as the study reads it) is written
in correlate's input layout — one hypothesis file per system, the reference, the
segment judgments as TSV ``system, segment_index, score`` (higher = better: MAIA's
HTER already negated), the system judgments as JSON — and ``meteorx correlate`` runs
on it with the given configurations and the chrF and BLEU baselines, leaving the
segment measure to its default (DARR for the DA sets, pairwise for MQM and error
counts, τ-b for the one-system MAIA set). The figures are printed next to the rows of
``benchmarks/results/human_agreement.md`` (``chrF``, ``BLEU``, ``meteorx:NAME``).

    python benchmarks/correlate_devsets.py [--sets de-en,ted-en-de] [--preset meteorx]
        [--samples 1000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import _agreement_data as D  # noqa: E402
from meteorx.cli.main import main as meteorx  # noqa: E402

RESULTS = REPO / "benchmarks" / "results" / "human_agreement.md"


def write_layout(data: D.DevSet, folder: Path) -> list[str]:
    """The set as correlate reads it; the data arguments of the command."""
    (folder / "hyp").mkdir()
    for name, lines in zip(data.systems, data.hyps, strict=True):
        (folder / "hyp" / f"{name}.txt").write_text("".join(f"{x}\n" for x in lines), "utf-8")
    (folder / "ref.txt").write_text("".join(f"{x}\n" for x in data.refs), "utf-8")
    args = ["--hyp-dir", str(folder / "hyp"), "--ref", str(folder / "ref.txt")]
    if data.seg_human:
        rows = [f"{data.systems[s]}\t{i}\t{v!r}\n" for (s, i), v in sorted(data.seg_human.items())]
        (folder / "seg.tsv").write_text("system\tsegment_index\tscore\n" + "".join(rows), "utf-8")
        args += ["--human", str(folder / "seg.tsv")]
    if data.sys_human:
        (folder / "sys.json").write_text(json.dumps(data.sys_human), "utf-8")
        args += ["--human-sys", str(folder / "sys.json")]
    return args


def study_rows() -> dict[str, dict[str, str]]:
    """``{row label: {column header: cell}}`` of the study's table."""
    text = RESULTS.read_text(encoding="utf-8").splitlines()
    start = next(i for i, ln in enumerate(text) if ln.startswith("| metric |"))
    end = next(i for i in range(start, len(text)) if not text[i].startswith("|"))
    lines = text[start:end]  # the first table
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    out = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[cells[0]] = dict(zip(header, cells, strict=True))
    return out


def column(table: dict[str, str], key: str, level: str) -> str | None:
    """The study's cell of set ``key`` at ``level`` ("seg" or "sys")."""
    for header, cell in table.items():
        words = header.split()
        if words and words[0] == key and (("sys" in words) == (level == "sys")):
            return cell
    return None


def run(key: str, presets: Sequence[str], samples: int, jobs: int) -> tuple[dict, float]:
    data = D.load(key)
    with tempfile.TemporaryDirectory() as tmp:
        args = ["correlate", *write_layout(data, Path(tmp))]
        for preset in presets:
            args += ["--preset", preset]
        args += ["--lang", data.target, "--baseline", "chrf,bleu", "--format", "json"]
        args += ["--samples", str(samples), "--jobs", str(jobs), "--quiet"]
        out = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(out):
            code = meteorx(args)
        seconds = time.perf_counter() - start
    if code:
        raise SystemExit(f"{key}: meteorx correlate exited {code}")
    return json.loads(out.getvalue()), seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(D.LOADERS), help="comma-separated set keys")
    parser.add_argument("--preset", action="append", default=[], help="(default: meteorx)")
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    presets = args.preset or ["meteorx"]
    keys = [k for k in args.sets.split(",") if k]
    absent = D.missing(keys)
    if absent:
        print(f"data not found: {', '.join(absent)} (set METEORX_DATA)", file=sys.stderr)
        return 2
    study = study_rows()
    print("| set | metric | level | correlate | 95% interval | n | study | same to 3 dp |")
    print("|---|---|---|---|---|---|---|---|")
    mismatches = 0
    for key in keys:
        result, seconds = run(key, presets, args.samples, args.jobs)
        for name, figures in result["metrics"].items():
            label = name if name in ("chrF", "BLEU") else f"meteorx:{name}"
            for level, short in (("segment", "seg"), ("system", "sys")):
                fig = figures.get(level)
                if not fig:
                    continue
                measure = next(iter(k for k in fig if not k.endswith("ci") and k != "n"))
                got = fig[measure]
                want = column(study.get(label, {}), key, short)
                same = want is not None and want != "—" and f"{got:.3f}" == want
                mismatches += want not in (None, "—") and not same
                lo, hi = fig["ci"]
                print(
                    f"| {key} | {name} | {measure} | {got:.3f} | [{lo:.3f}, {hi:.3f}] | "
                    f"{fig['n']} | {want or '—'} | {'yes' if same else 'NO'} |"
                )
        print(f"| {key} | (time) | | {seconds:.1f} s | | | | |")
    print(f"\n{mismatches} figure(s) differ from the study's table" if mismatches else "")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
