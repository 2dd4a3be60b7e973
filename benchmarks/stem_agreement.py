#!/usr/bin/env python3
"""How well do Python Snowball stemmers agree with Meteor 1.5's bundled ones?

Meteor 1.5's ``stem`` module aligns two words when their Snowball stems are
equal, using the (2015-era) ``org.tartarus.snowball.ext.<lang>Stemmer``
classes inside ``meteor-1.5.jar``. meteorx stems in Python, with
``snowballstemmer`` (pure Python) or ``Stemmer`` (PyStemmer, C). Their
algorithms are newer, so some stems differ. What matters for scoring is not
the stem strings but the *equivalence classes* they induce on the vocabulary:
two words stem-match iff they land in the same class.

For each language this script builds the vocabulary (lower-cased whitespace
tokens of the shared test data), stems every word with

  (a) the jar (via tests/oracle/JarStem.java, one JVM call),
  (b) ``snowballstemmer`` and
  (c) ``Stemmer`` (PyStemmer),

and, for each pair of stemmers, reports

  * words whose stem string differs (with examples),
  * word PAIRS that share a stem under one stemmer but not the other
    (computed exactly from class sizes), and
  * words whose equivalence class differs (the set of vocabulary words that
    would stem-match it), with examples.

Data: ``$METEORX_DATA`` or ``<repo>/../shared/data``:
  english    meteor15-examples/xray.{reference,system1.hyp,system2.hyp}
  portuguese pt/maia_chat_en-ptbr_mtpe/refs.txt + hyps/*.txt

Usage: python benchmarks/stem_agreement.py [--examples 30] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypedDict

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.oracle import jar as oracle  # noqa: E402

DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))


def corpus_files(language: str) -> list[Path]:
    if language == "english":
        d = DATA / "meteor15-examples"
        return [d / "xray.reference", d / "xray.system1.hyp", d / "xray.system2.hyp"]
    if language == "portuguese":
        d = DATA / "pt" / "maia_chat_en-ptbr_mtpe"
        return [d / "refs.txt", *sorted((d / "hyps").glob("*.txt"))]
    raise ValueError(language)


def vocabulary(files: Iterable[Path]) -> list[str]:
    vocab: set[str] = set()
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                vocab.update(line.lower().split())
    return sorted(vocab)


def stem_jar(words: Sequence[str], language: str) -> list[str]:
    return oracle.jar_stems(words, language)


def stem_snowballstemmer(words: Sequence[str], language: str) -> list[str]:
    import snowballstemmer

    return list(snowballstemmer.stemmer(language).stemWords(list(words)))


def stem_pystemmer(words: Sequence[str], language: str) -> list[str]:
    import Stemmer

    return list(Stemmer.Stemmer(language).stemWords(list(words)))


STEMMERS: dict[str, Callable[[Sequence[str], str], list[str]]] = {
    "jar": stem_jar,
    "snowballstemmer": stem_snowballstemmer,
    "pystemmer": stem_pystemmer,
}


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


class PairReport(TypedDict):
    words: int
    classes_a: int
    classes_b: int
    diff_stem_words: int
    diff_stem_examples: list[str]
    pairs_a: int
    pairs_b: int
    pairs_only_a: int
    pairs_only_b: int
    diff_class_words: int
    diff_class_examples: list[str]


def compare(
    words: Sequence[str], a: Sequence[str], b: Sequence[str], max_examples: int
) -> PairReport:
    """Compare two stemmings of ``words`` (stem strings and induced classes)."""
    size_a = Counter(a)
    size_b = Counter(b)
    size_ab = Counter(zip(a, b, strict=True))
    pairs_a = sum(_pairs(n) for n in size_a.values())
    pairs_b = sum(_pairs(n) for n in size_b.values())
    pairs_both = sum(_pairs(n) for n in size_ab.values())

    diff_stem = [(w, x, y) for w, x, y in zip(words, a, b, strict=True) if x != y]

    # A word's class (the words it stem-matches) is identical under a and b
    # iff its joint class has the size of both individual classes.
    class_a: dict[str, list[str]] = defaultdict(list)
    class_b: dict[str, list[str]] = defaultdict(list)
    for w, x, y in zip(words, a, b, strict=True):
        class_a[x].append(w)
        class_b[y].append(w)
    diff_class = [
        (w, class_a[x], class_b[y])
        for w, x, y in zip(words, a, b, strict=True)
        if not (size_ab[(x, y)] == size_a[x] == size_b[y])
    ]
    # One example per distinct (class_a, class_b) situation.
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    class_examples: list[str] = []
    for w, ca, cb in diff_class:
        key = (tuple(ca), tuple(cb))
        if key in seen:
            continue
        seen.add(key)
        class_examples.append(f"{w}: {{{', '.join(ca)}}} vs {{{', '.join(cb)}}}")
        if len(class_examples) >= max_examples:
            break
    return {
        "words": len(words),
        "classes_a": len(size_a),
        "classes_b": len(size_b),
        "diff_stem_words": len(diff_stem),
        "diff_stem_examples": [f"{w}: {x} / {y}" for w, x, y in diff_stem[:max_examples]],
        "pairs_a": pairs_a,
        "pairs_b": pairs_b,
        "pairs_only_a": pairs_a - pairs_both,
        "pairs_only_b": pairs_b - pairs_both,
        "diff_class_words": len(diff_class),
        "diff_class_examples": class_examples,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--examples", type=int, default=30, help="examples per list (default 30)")
    ap.add_argument("--languages", nargs="+", default=["english", "portuguese"])
    ap.add_argument("--json", type=Path, help="also write all numbers and examples here")
    opts = ap.parse_args(argv)

    reason = oracle.unavailable_reason(need_javac=True)
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2

    report: dict[str, object] = {}
    for lang in opts.languages:
        files = corpus_files(lang)
        missing = [f for f in files if not f.is_file()]
        if missing or len(files) < 2:
            why = f"data missing ({missing or 'no hyps'}); set METEORX_DATA"
            print(f"[{lang}] skipped: {why}", file=sys.stderr)
            continue
        words = vocabulary(files)
        stems: dict[str, list[str]] = {}
        timing: dict[str, float] = {}
        for name, fn in STEMMERS.items():
            t0 = time.perf_counter()
            stems[name] = fn(words, lang)
            timing[name] = time.perf_counter() - t0
            assert len(stems[name]) == len(words)

        names_ = ", ".join(f.name for f in files)
        print(f"\n=== {lang}: {len(words)} vocabulary words from {names_}")
        print("    stem time: " + ", ".join(f"{k} {v:.2f}s" for k, v in timing.items()))
        lang_report: dict[str, object] = {"words": len(words), "timing_s": timing}
        names = list(STEMMERS)
        for i, na in enumerate(names):
            for nb in names[i + 1 :]:
                r = compare(words, stems[na], stems[nb], opts.examples)
                lang_report[f"{na}_vs_{nb}"] = r
                print(f"\n--- {na} vs {nb}")
                print(f"    classes: {na} {r['classes_a']}, {nb} {r['classes_b']}")
                print(f"    words with a different stem string: {r['diff_stem_words']}")
                print(
                    f"    same-stem word pairs: {na} {r['pairs_a']}, {nb} {r['pairs_b']}; "
                    f"only under {na}: {r['pairs_only_a']}, only under {nb}: {r['pairs_only_b']}"
                )
                print(f"    words whose stem-match class differs: {r['diff_class_words']}")
                if r["diff_stem_examples"]:
                    print(f"    stem differences ({na} / {nb}):")
                    for e in r["diff_stem_examples"]:
                        print(f"      {e}")
                if r["diff_class_examples"]:
                    print(f"    class differences ({na} vs {nb}):")
                    for e in r["diff_class_examples"]:
                        print(f"      {e}")
        report[lang] = lang_report

    if opts.json:
        opts.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
