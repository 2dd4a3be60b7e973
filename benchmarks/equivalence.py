"""Before/after equivalence: every result meteorx gives, dumped to one JSON file to compare.

For each configuration and each xray system (Meteor 1.5's example output, 2 x 2,489
segments) it records every segment's score, statistics, breakdown and alignment
(links and chunks), the system score and the signature from the Python API, and the
CLI's JSON output, ``--stats-out`` file and ``--jobs 2`` output. Floats are written
with ``repr`` (every bit). ``--engine python`` refuses every compiled module of
meteorx before it is imported, as on an install built without a C compiler, so the
pure-Python twins run; ``--engine c`` runs what the install has.

    python benchmarks/equivalence.py dump --engine c --out before-c.json
    python benchmarks/equivalence.py dump --engine python --out before-py.json
    ... change the code ...
    python benchmarks/equivalence.py dump --engine c --out after-c.json
    python benchmarks/equivalence.py compare before-c.json after-c.json before-py.json ...

``compare`` exits 1 and names the first differences when any file differs from the
first one.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

#: (name, preset, normalisation) as a user would ask for them.
CONFIGS = [
    ("li", "li", None),
    ("meteor-1.5-en --norm meteor", "meteor-1.5-en", "meteor"),
    ("meteor-2005", "meteor-2005", None),
    ("nltk", "nltk", None),
    ("pt", "pt", None),
    ("meteorx", "meteorx", None),
]
SYSTEMS = ("xray.system1.hyp", "xray.system2.hyp")


class _NoExtensions(importlib.abc.MetaPathFinder):
    """Makes every compiled module of meteorx fail to import (its Python twin runs)."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if not name.startswith(("meteorx.", "meteorx_plugins.")):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return None
        source = Path(str(spec.origin)).parent / (name.rsplit(".", 1)[-1] + ".py")
        if source.is_file():  # a plain Python module compiled as it is: its source runs
            return importlib.util.spec_from_file_location(name, source)
        raise ImportError(f"{name}: compiled modules are refused (--engine python)")


def _floats(value: Any) -> Any:
    """Every float as its repr, so a one-ulp difference shows."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_floats(v) for v in value]
    return value


def _api(data: Path, preset: str, norm: str | None) -> dict[str, Any]:
    from dataclasses import asdict

    from meteorx.metric import Scorer

    kwargs: dict[str, Any] = {"language": "pt" if preset == "pt" else "en"}
    if norm:
        kwargs["normalize"] = norm
    scorer = Scorer(preset, **kwargs)
    refs = (data / "xray.reference").read_text(encoding="utf-8").splitlines()
    out: dict[str, Any] = {}
    for system in SYSTEMS:
        hyps = (data / system).read_text(encoding="utf-8").splitlines()
        result = scorer.corpus(hyps, [[r] for r in refs])
        out[system] = {
            "score": result.score,
            "stats": asdict(result.stats),
            "breakdown": asdict(result.breakdown),
            "signature": result.signature,
            "segments": [
                [
                    s.score,
                    list(asdict(s.stats).values()),
                    list(asdict(s.breakdown).values()),
                    [list(m) for m in s.alignment.matches],
                    s.alignment.chunks,
                    s.alignment.optimal,
                    s.ref_index,
                ]
                for s in result.segments
            ],
        }
    return out


def _cli(data: Path, preset: str, norm: str | None, tmp: Path) -> dict[str, Any]:
    from meteorx.cli.main import main

    lang = "pt" if preset == "pt" else "en"
    out: dict[str, Any] = {}
    for system in SYSTEMS:
        args = ["score", "-H", str(data / system), "-r", str(data / "xray.reference")]
        args += ["--preset", preset, "--lang", lang, "--quiet"]
        if norm:
            args += ["--norm", norm]
        for name, extra in (
            ("json", ["--format", "json", "--stats-out", str(tmp / "stats.tsv")]),
            ("jobs2", ["--jobs", "2"]),
        ):
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                code = main([*args, *extra])
            text = buffer.getvalue()
            out[f"{system} {name}"] = {
                "exit": code,
                "sha256": hashlib.sha256(text.encode()).hexdigest(),
                "last": text.strip().splitlines()[-1][:300] if text.strip() else "",
            }
            if name == "json":
                stats = (tmp / "stats.tsv").read_bytes()
                out[f"{system} stats-out"] = hashlib.sha256(stats).hexdigest()
    return out


def dump(args: argparse.Namespace) -> None:
    if args.engine == "python":
        sys.meta_path.insert(0, _NoExtensions())
    os.environ["METEORX_ENGINE"] = {"python": "python", "c": "c"}[args.engine]
    result: dict[str, Any] = {}
    tmp = Path(args.out).resolve().parent
    for name, preset, norm in CONFIGS:
        if args.only and name not in args.only:
            continue
        print(f"{args.engine}: {name}", file=sys.stderr)
        result[name] = {"api": _api(args.data, preset, norm)}
        if not args.no_cli:
            result[name]["cli"] = _cli(args.data, preset, norm, tmp)
    Path(args.out).write_text(json.dumps(_floats(result), indent=0, sort_keys=True) + "\n")


def _diff(a: Any, b: Any, where: str, found: list[str]) -> None:
    if len(found) >= 10:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                found.append(f"{where}/{key}: only in {'second' if key in b else 'first'}")
            else:
                _diff(a[key], b[key], f"{where}/{key}", found)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{where}[{i}]", found)
    elif a != b:
        found.append(f"{where}: {str(a)[:150]} != {str(b)[:150]}")


def compare(args: argparse.Namespace) -> int:
    first = json.loads(Path(args.files[0]).read_text())
    status = 0
    for other in args.files[1:]:
        found: list[str] = []
        _diff(first, json.loads(Path(other).read_text()), "", found)
        print(f"{args.files[0]} vs {other}: {'identical' if not found else 'DIFFERENT'}")
        for line in found:
            print("   ", line)
        status |= bool(found)
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--engine", choices=["c", "python"], default="c")
    d.add_argument("--out", required=True)
    d.add_argument(
        "--data", type=Path, default=REPO.parent / "shared" / "data" / "meteor15-examples"
    )
    d.add_argument("--only", action="append", help="one configuration name (repeatable)")
    d.add_argument("--no-cli", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("files", nargs="+")
    args = parser.parse_args()
    if args.command == "dump":
        dump(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
