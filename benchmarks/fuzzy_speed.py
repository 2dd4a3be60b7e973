#!/usr/bin/env python3
"""Speed of the new stages (plugins/fuzzy.py, plugins/case.py) next to ``li``, on xray.

Scores Meteor 1.5's example output (2 systems x 2,489 segments, English) in-process
with a fresh scorer per repeat and reports segments per second (best of the repeats)
for: ``li`` (exact + stem) with ``--norm meteor``; the same plus a fuzzy stage (the
options ``benchmarks/human_agreement.py`` uses); the cased pipeline (exact, case,
case-stem on case-kept tokens); and, as the harness computes its mechanisms, the
fuzzy configuration with the per-link similarity and character counts computed from
each result in Python.

    nice -n 10 python benchmarks/fuzzy_speed.py [--data ../shared/data] [--repeat 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.human_agreement import (  # noqa: E402
    FUZZY_DEFAULT,
    alignment_config,
    segment_counts,
)


def _read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def _scorer(config: dict[str, Any]) -> Any:
    from meteorx.registry import get_registry
    from meteorx.scorer import Scorer
    from meteorx_plugins.case import CaseMatcher
    from meteorx_plugins.fuzzy import FuzzyMatcher

    base = get_registry()
    extra = {"fuzzy": FuzzyMatcher, "case": CaseMatcher}
    registry = dataclasses.replace(base, matchers={**base.matchers, **extra})
    return Scorer(config, registry=registry)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = args.data / "meteor15-examples"
    if not (folder / "xray.reference").is_file():
        print(f"xray data not found under {folder} (set METEORX_DATA)", file=sys.stderr)
        return 2
    refs = _read(folder / "xray.reference")
    hyps = _read(folder / "xray.system1.hyp") + _read(folder / "xray.system2.hyp")
    pairs = list(zip(hyps, refs + refs, strict=True))
    li = {"extends": "li", "language": "en", "normalize": "meteor"}
    fuzzy = alignment_config("en", FUZZY_DEFAULT)
    cased = alignment_config("en", None, lowercase=False)
    runs = [("li (exact+stem)", li, False), ("li + fuzzy", fuzzy, False),
            ("cased: exact+case+case-stem", cased, False),
            ("li + fuzzy, similarity-weighted counts", fuzzy, True)]  # fmt: skip
    for label, config, weighted in runs:
        best = 0.0
        links = 0
        for _ in range(args.repeat):
            scorer = _scorer(config)
            similarity = [getattr(m, "similarity", None) for m in scorer.matchers]
            start = time.perf_counter()
            results = [scorer.segment(h, r) for h, r in pairs]
            if weighted:
                for result in results:
                    segment_counts(result, scorer.function_words, similarity)
            best = max(best, len(pairs) / (time.perf_counter() - start))
            links = sum(1 for r in results for m in r.alignment.matches if m.stage == 2)
        extra = f", {links} fuzzy links kept" if "fuzzy" in label else ""
        if "cased" in label:
            extra = f", {links} case-stem links kept"
        print(f"{label}: {best:,.0f} segments/s ({len(pairs)} segments{extra})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
