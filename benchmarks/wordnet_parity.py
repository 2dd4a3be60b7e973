"""Measure the synonym matcher's parity with the Meteor 1.5 jar on the xray data.

Runs (or reads from the oracle's disk cache) ``meteor-1.5.jar HYP REF -l en -lower -m
'exact stem synonym'`` and meteorx with the same stages and weights, then prints the
share of segments within a tolerance, the system scores, and a classification of every
differing segment:

* ``synonym-collision``: the jar links a word pair only because a noun and a synset of
  another part of speech have the same offset in its data (meteorx keys synsets by POS
  and offset, on purpose);
* ``synonym``: any other difference in synonym candidates (looked up directly in the
  jar's own synonym tables, /synonym/english.* in the jar);
* ``stem``: the jar's Snowball stems differ from ours for some word pair of the segment;
* ``search``: same candidates, different alignment chosen (the aligner, not matching).

Usage: python benchmarks/wordnet_parity.py [--lines N] [--morphology meteor-1.5|morphy]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from meteorx.metric import Scorer  # noqa: E402
from meteorx_plugins.wordnet import METEOR15_RULES  # noqa: E402
from tests.oracle import jar  # noqa: E402

DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
XRAY = DATA / "meteor15-examples"


class JarSynonyms:
    """Meteor 1.5's synonym module, reimplemented on the jar's own data (for diagnosis).

    Synset identity here is the jar's (offset only, parts of speech mixed).
    """

    def __init__(self, jar_path: Path) -> None:
        with zipfile.ZipFile(jar_path) as archive:
            exc = archive.read("synonym/english.exceptions").decode("utf-8").split("\n")
            syn = archive.read("synonym/english.synsets").decode("utf-8").split("\n")
        self.bases: dict[str, list[str]] = {}
        for base, forms in zip(exc[0::2], exc[1::2], strict=False):
            for form in forms.split():
                self.bases.setdefault(form, []).append(base)
        self.synsets = {
            w: frozenset(int(x) for x in ids.split())
            for w, ids in zip(syn[0::2], syn[1::2], strict=False)
        }
        self._cache: dict[str, frozenset[int]] = {}
        self.words_of: dict[int, list[str]] = {}
        for word, ids in self.synsets.items():
            for i in ids:
                self.words_of.setdefault(i, []).append(word)

    def is_collision(self, offset: int, synonym_set: Callable[[str], frozenset[int]]) -> bool:
        """Whether the jar's synset ``offset`` is really two synsets (a noun and another
        POS at the same offset): its words do not all share one synset in meteorx."""
        words = self.words_of.get(offset, [])
        common = frozenset.intersection(*(synonym_set(w) for w in words)) if words else None
        return not common

    def _morph(self, word: str) -> str:
        if word.endswith("ss") or len(word) <= 2:
            return word
        for suffix, ending in METEOR15_RULES:
            if word.endswith(suffix):
                base = word[: -len(suffix)] + ending
                if base in self.synsets:
                    return base
        return ""

    def synonym_set(self, word: str) -> frozenset[int]:
        out = self._cache.get(word)
        if out is None:
            ids = set(self.synsets.get(word, ()))
            if word in self.bases:
                for base in self.bases[word]:
                    ids |= self.synsets.get(base, frozenset())
            else:
                ids |= self.synsets.get(self._morph(word), frozenset())
            out = self._cache[word] = frozenset(ids)
        return out

    def matches(self, a: str, b: str) -> bool:
        return a != b and not self.synonym_set(a).isdisjoint(self.synonym_set(b))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=0, help="only the first N lines")
    parser.add_argument("--morphology", default="meteor-1.5")
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--show", type=int, default=5, help="examples per class")
    args = parser.parse_args()

    reason = jar.unavailable_reason()
    if reason:
        print(f"skipped: {reason}")
        return 2
    jar_path = jar.find_jar()
    assert jar_path is not None
    jar_syn = JarSynonyms(jar_path)
    config = {
        "extends": "meteor-1.5-en",
        "normalize": "lower",
        "function_words": "meteor-1.5",
        "stages": [
            {"matcher": "exact", "weight": 1.0},
            {"matcher": "stem", "weight": 0.6},
            {"matcher": "synonym", "weight": 0.8, "morphology": args.morphology},
        ],
    }
    scorer = Scorer(config)
    synonym = scorer.matchers[2]
    stem = scorer.matchers[1]
    ref_lines = (XRAY / "xray.reference").read_text("utf-8").split("\n")[:-1]
    total_bad = 0
    total = 0
    for system in ("system1", "system2"):
        hyp_path = XRAY / f"xray.{system}.hyp"
        ref_path = XRAY / "xray.reference"
        hyp_lines = hyp_path.read_text("utf-8").split("\n")[:-1]
        refs = ref_lines
        if args.lines:
            hyp_lines, refs = hyp_lines[: args.lines], ref_lines[: args.lines]
            tmp = Path(f"/tmp/wordnet_parity_{os.getpid()}")
            tmp.mkdir(exist_ok=True)
            hyp_path, ref_path = tmp / f"{system}.hyp", tmp / "ref"
            hyp_path.write_text("\n".join(hyp_lines) + "\n", "utf-8")
            ref_path.write_text("\n".join(refs) + "\n", "utf-8")
        expected = jar.run_jar(
            hyp_path, ref_path, ["-l", "en", "-lower", "-m", "exact stem synonym"]
        )
        result = scorer.corpus(hyp_lines, refs)
        classes: Counter[str] = Counter()
        examples: dict[str, list[str]] = {}
        bad = 0
        for n, (seg, want) in enumerate(
            zip(result.segments, expected.segment_scores, strict=True), 1
        ):
            if abs(seg.score - want) <= args.tolerance:
                continue
            bad += 1
            hyp, ref = seg.hyp_tokens, seg.ref_tokens
            syn_diff = [
                (h, r)
                for h in set(hyp)
                for r in set(ref)
                if jar_syn.matches(h, r) != synonym.matches(h, r)  # type: ignore[attr-defined]
            ]
            jar_stems = jar.jar_stems(sorted(set(hyp) | set(ref)), "en")
            jstem = dict(zip(sorted(set(hyp) | set(ref)), jar_stems, strict=True))
            stem_diff = [
                (h, r)
                for h in set(hyp)
                for r in set(ref)
                if h != r and (jstem[h] == jstem[r]) != (stem.stem(h) == stem.stem(r))  # type: ignore[attr-defined]
            ]
            kind = "synonym" if syn_diff else "stem" if stem_diff else "search"
            if syn_diff and all(
                jar_syn.matches(h, r)
                and all(
                    jar_syn.is_collision(o, synonym.wordnet.synonym_set)  # type: ignore[attr-defined]
                    for o in jar_syn.synonym_set(h) & jar_syn.synonym_set(r)
                )
                for h, r in syn_diff
            ):
                kind = "synonym-collision"
            classes[kind] += 1
            detail = syn_diff or stem_diff
            examples.setdefault(kind, []).append(
                f"  seg {n}: jar {want:.4f} meteorx {seg.score:.4f} {detail[:4]}"
            )
        total += len(result.segments)
        total_bad += bad
        share = 1 - bad / len(result.segments)
        print(
            f"{system}: {len(result.segments)} segments, {share:.2%} within {args.tolerance:g}; "
            f"system jar {expected.system_score:.6f} meteorx {result.score:.6f} "
            f"(diff {abs(expected.system_score - result.score):.2e}); differences: {dict(classes)}"
        )
        for kind, lines in examples.items():
            print(f" {kind}:")
            buf = io.StringIO()
            for line in lines[: args.show]:
                print(line, file=buf)
            print(buf.getvalue(), end="")
    print(f"all: {1 - total_bad / total:.2%} of {total} segments within {args.tolerance:g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
