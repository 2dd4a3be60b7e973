#!/usr/bin/env python3
"""Speed of each stage and option of the ``meteorx`` preset, next to ``li``, on xray.

Scores Meteor 1.5's example output (2 systems x 2,489 segments, English) in-process,
a fresh scorer per repeat, and reports segments per second (best of the repeats),
adding one mechanism at a time: ``li`` (exact + stem on ``--norm meteor`` tokens, the
anchor); ``li`` with character precision and recall (``units: characters``); the
cased stages (exact, case, case-stem on case-kept tokens); with characters; with soft
credit too, which is the ``meteorx`` preset; and the fuzzy stage the agreement study
measured and did not keep (benchmarks/fuzzy_matcher.py).

    nice -n 10 python benchmarks/stage_speed.py [--data ../shared/data] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.human_agreement import FUZZY_DEFAULT, _registry, alignment_config  # noqa: E402


def _read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def configurations() -> list[tuple[str, dict[str, Any]]]:
    """(label, configuration), each adding one mechanism to the one before."""
    from meteorx.config import load_config

    li = {"extends": "li", "language": "en", "normalize": "meteor"}
    cased = alignment_config("en", None, lowercase=False)
    preset = load_config("meteorx").model_dump(mode="json", exclude_none=True)
    return [
        ("li (exact+stem)", li),
        ("li + characters", {**li, "units": "characters"}),
        ("cased stages (exact+case+case-stem)", cased),
        ("cased stages + characters", {**cased, "units": "characters"}),
        ("+ soft credit = the meteorx preset", {**preset, "language": "en"}),
        ("li + fuzzy stage (not kept)", alignment_config("en", FUZZY_DEFAULT)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    folder = args.data / "meteor15-examples"
    if not (folder / "xray.reference").is_file():
        print(f"xray data not found under {folder} (set METEORX_DATA)", file=sys.stderr)
        return 2
    from meteorx.metric import Scorer, paused_gc

    refs = _read(folder / "xray.reference")
    hyps = _read(folder / "xray.system1.hyp") + _read(folder / "xray.system2.hyp")
    pairs = list(zip(hyps, refs + refs, strict=True))
    anchor = 0.0
    print(f"{len(pairs)} segments (xray, both systems); best of {args.repeat}")
    for label, config in configurations():
        best = 0.0
        for _ in range(args.repeat):
            scorer = Scorer(config, registry=_registry())
            start = time.perf_counter()
            with paused_gc():
                for h, r in pairs:
                    scorer.segment(h, r)
            best = max(best, len(pairs) / (time.perf_counter() - start))
        anchor = anchor or best
        print(f"  {label:<40} {best:>8,.0f} segments/s  ({best / anchor:.2f} x li)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
