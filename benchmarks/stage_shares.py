"""Share of hypothesis words aligned by each stage, and throughput, per language.

Uses the real MT data available under ../shared/data: Portuguese (MAIA chat MT vs its
post-edit), German (WMT21 en-de), English (Meteor 1.5's xray data). Also prints the
languages x stages table of docs/languages.md from what is installed.

    python benchmarks/stage_shares.py [--data ../shared/data] [--limit 2000]
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from pathlib import Path

from meteorx.languages import LANGUAGES
from meteorx.registry import get_registry
from meteorx.scorer import Scorer

REPO = Path(__file__).resolve().parents[1]


def read(path: Path, limit: int) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:limit]


def shares(config: dict[str, object] | str, hyps: list[str], refs: list[str]) -> None:
    scorer = Scorer(config)
    start = time.perf_counter()
    result = scorer.corpus(hyps, refs)
    rate = len(hyps) / (time.perf_counter() - start)
    words = sum(len(s.hyp_tokens) for s in result.segments)
    by_stage: Counter[str] = Counter()
    for seg in result.segments:
        for m in seg.alignment.matches:
            by_stage[scorer.config.stages[m.stage].stage_name] += m.hyp_len
    parts = ", ".join(
        f"{name} {by_stage[name] / words:.1%}"
        for name in [s.stage_name for s in scorer.config.stages]
    )
    unaligned = 1 - sum(by_stage.values()) / words
    print(
        f"  {scorer.config.name} ({scorer.language.code}): {parts}, unaligned {unaligned:.1%}; "
        f"{rate:,.0f} segments/s; score {result.score:.4f}"
    )


def languages_table() -> None:
    registry = get_registry()
    print("| code | language | exact | stem | lemma | synonyms | tokenizer |")
    print("|---|---|---|---|---|---|---|")
    try:
        from meteorx_plugins.lemma import simplemma_code
    except ImportError:  # pragma: no cover
        simplemma_code = None  # type: ignore[assignment]
    try:
        from meteorx_plugins.omw import omw_code
    except ImportError:  # pragma: no cover
        omw_code = None  # type: ignore[assignment]
    for code, lang in sorted(LANGUAGES.items()):
        stem = f"Snowball {lang.snowball}" if lang.snowball else "—"
        lemma = "simplemma" if simplemma_code and _safe(simplemma_code, code) else "—"
        syn = []
        if code == "en" and "synonym" in registry.matchers:
            syn.append("WordNet 3.0")
        if omw_code and _safe(omw_code, lang):
            syn.append(f"OMW {omw_code(lang)}")
        tok = "characters (jieba optional)" if lang.spaceless else "whitespace"
        if code == "pt":
            tok = "pt (clitics, contractions, spelling)"
        if code in ("en", "cs", "fr", "de", "ru", "es"):
            tok += "; meteor (-norm)"
        print(
            f"| {code} | {lang.name} | yes | {stem} | {lemma} | {', '.join(syn) or '—'} | {tok} |"
        )


def _safe(func: object, arg: object) -> bool:
    try:
        return bool(func(arg))  # type: ignore[operator]
    except Exception:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--limit", type=int, default=2000)
    args = parser.parse_args()
    os.environ.setdefault("METEORX_OMW_DIR", str(args.data / "omw"))
    d = args.data
    print("Portuguese, MAIA chat (MT vs post-edit):")
    maia = d / "pt" / "maia_chat_en-ptbr_mtpe"
    hyp = read(next((maia / "hyps").iterdir()), args.limit)
    ref = read(maia / "refs.txt", args.limit)
    shares("pt", hyp, ref)
    shares("meteor-1.5-pt", hyp, ref)
    print("German, WMT21 en-de (first system, reference A):")
    ende = d / "wmt21-dev" / "en-de"
    hyp = read(sorted((ende / "hyp").iterdir())[0], args.limit)
    ref = read(ende / "ref.A.de", args.limit)
    shares(
        {
            "extends": "li",
            "language": "de",
            "normalize": "lower",
            "aligner": "optimal",
            "stages": [
                {"matcher": "exact"},
                {"matcher": "stem", "weight": 0.6},
                {"matcher": "lemma", "weight": 0.4},
            ],
        },
        hyp,
        ref,
    )
    print("English, xray system1:")
    x = d / "meteor15-examples"
    hyp = read(x / "xray.system1.hyp", args.limit)
    ref = read(x / "xray.reference", args.limit)
    shares({"extends": "meteor-1.5-en", "normalize": "meteor"}, hyp, ref)
    print()
    languages_table()


if __name__ == "__main__":
    main()
