"""How often the optimal aligner and the Meteor 1.5 (jar-compatible) aligner disagree.

Same stages, weights and parameters; only the alignment search differs. Reports, per
system of the xray data, the segments whose alignments differ, whose scores differ, the
mean absolute score change, and the two system scores.

    python benchmarks/aligner_disagreement.py [--data ../shared/data] [--preset li]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from meteorx.metric import Scorer

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--preset", default="li")
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
    xray = args.data / "meteor15-examples"
    ref = (xray / "xray.reference").read_text(encoding="utf-8").split("\n")[:-1]
    base = {"extends": args.preset, "language": args.lang, "normalize": "lower"}
    jar_like = Scorer({**base, "aligner": {"name": "meteor-1.5"}})
    optimal = Scorer({**base, "aligner": {"name": "optimal"}})
    print(f"preset {args.preset}, lang {args.lang}, --norm lower")
    print(
        "| system | segments | alignments differ | scores differ (>1e-9) | mean |Δscore| "
        "| max Δscore | system score jar-like | system score optimal |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for system in ("system1", "system2"):
        hyp = (xray / f"xray.{system}.hyp").read_text(encoding="utf-8").split("\n")[:-1]
        a = jar_like.corpus(hyp, ref)
        b = optimal.corpus(hyp, ref)
        diff_align = sum(
            1
            for x, y in zip(a.segments, b.segments, strict=True)
            if x.alignment.matches != y.alignment.matches
        )
        deltas = [y.score - x.score for x, y in zip(a.segments, b.segments, strict=True)]
        diff_score = sum(1 for d in deltas if abs(d) > 1e-9)
        mean_abs = sum(abs(d) for d in deltas) / len(deltas)
        print(
            f"| {system} | {len(deltas)} | {diff_align} ({diff_align / len(deltas):.1%}) "
            f"| {diff_score} ({diff_score / len(deltas):.1%}) | {mean_abs:.5f} "
            f"| {max(deltas, key=abs):+.4f} | {a.score:.6f} | {b.score:.6f} |"
        )


if __name__ == "__main__":
    main()
