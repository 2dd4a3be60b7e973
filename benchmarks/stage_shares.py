"""Share of hypothesis words aligned by each stage, and throughput, per language.

Two kinds of data:

* Real MT output under the shared data folder: Portuguese (MAIA chat MT vs its
  post-edit), German (WMT21 en-de), English (Meteor 1.5's xray data).
* Parallel human translation for pt, fr, it, nl and pl: the gettext message catalogues
  of an ordinary Linux system (``<locale>/<lang>/LC_MESSAGES/*.mo``). The same English
  message (msgid) is translated independently by the translators of different projects
  (coreutils, findutils, grep, bfd, glib, ...); two different translations of one
  message are a hypothesis/reference pair of the kind METEOR scores. How the pairs are
  built and filtered is described in :func:`gettext_pairs`.

Each language is scored with the configuration meteorx offers for it: the ``pt`` preset
for Portuguese; for fr, it, nl and pl the same stages (exact -> Snowball stem ->
simplemma lemma -> Open Multilingual Wordnet synonyms, weights 1.0 0.6 0.4 0.4,
optimal alignment, ``function_words: builtin``) with the language's resources and
the language-independent parameters (``li``). Wordnets are read from ``<data>/omw``
(``$METEORX_OMW_DIR``). Also prints the speed of the Portuguese preset next to the
English one (``meteor-1.5-en``, ``-norm``, on xray) and the languages x stages table of
docs/languages.md from what is installed.

Speeds: one process; each scorer first scores a few segments untimed (so loading
dictionaries and wordnets is not counted), then the whole set is timed.

    python benchmarks/stage_shares.py [--data ../shared/data] [--locale /usr/share/locale]
        [--limit 2000] [--languages pt fr it nl pl]
"""

from __future__ import annotations

import argparse
import gettext
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from meteorx.errors import MeteorxError
from meteorx.languages import LANGUAGES
from meteorx.metric import Scorer
from meteorx.registry import get_registry

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
DEFAULT_LOCALE = Path("/usr/share/locale")
GETTEXT_LANGUAGES = ("pt", "fr", "it", "nl", "pl")
WARMUP = 20

# -- gettext pairs ---------------------------------------------------------------------

#: printf-style conversions (%s, %d, %1$s, %-10lu, %%, %m), Python's %(name)s, brace
#: and shell-style placeholders ({0}, {name}, ${VAR}), and markup or <%s>-style tags.
_PLACEHOLDER = re.compile(
    r"%(?:\d+\$)?[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?"
    r"(?:hh|h|ll|l|L|q|j|z|t|I64|I32|I)?[diouxXeEfFgGaAcspnmCS%]"
    r"|%\([^)]*\)[a-zA-Z]"
    r"|\$?\{[\w.:!-]*\}"
    r"|<[^<>]*>"
)
#: Accelerator markers: "(_F)" / "(&F)" suffixes, and "_" or "&" before a letter.
_ACCEL_SUFFIX = re.compile(r"\s*\((?:_|&)\w\)")
_ACCEL = re.compile(r"[_&](?=\w)")
_LETTER = re.compile(r"[^\W\d_]")
MIN_WORDS = 2
MAX_WORDS = 40


def clean_message(text: str) -> str:
    """A catalogue string as running text: accelerators and placeholders removed."""
    text = _ACCEL_SUFFIX.sub("", text)
    text = _PLACEHOLDER.sub(" ", text)
    text = _ACCEL.sub("", text)
    return " ".join(text.split())


def _words(text: str) -> int:
    return sum(1 for token in text.split() if _LETTER.search(token))


def _project(domain: str) -> str:
    """Catalogues of one project share a translation team: gtk20/gtk30, iso_639/iso_3166."""
    return re.split(r"\d", domain, maxsplit=1)[0].rstrip("-_.") or domain


def _catalogues(locale: Path, lang: str) -> Iterator[tuple[str, str, dict[Any, str]]]:
    """(locale folder, project, catalogue) for every readable catalogue of a language."""
    folders = [locale / lang, *sorted(locale.glob(f"{lang}_*"))]
    for folder in folders:
        for mo in sorted(folder.glob("LC_MESSAGES/*.mo")):
            try:
                with mo.open("rb") as handle:
                    catalogue = gettext.GNUTranslations(handle)
            except (OSError, ValueError, UnicodeDecodeError):
                continue  # unreadable or in another encoding: ignore that catalogue
            catalogue_map: dict[Any, str] = catalogue._catalog  # type: ignore[attr-defined]
            yield folder.name, _project(mo.stem), catalogue_map


@dataclass
class PairSet:
    hyps: list[str]
    refs: list[str]
    catalogues: int
    sources: int
    messages: int


def gettext_pairs(locale: Path, lang: str) -> PairSet:
    """Pairs of different human translations of one English message.

    * Every ``*.mo`` under ``<locale>/<lang>/LC_MESSAGES`` and ``<locale>/<lang>_*/…``
      (``pt``: also ``pt_BR`` and ``pt_PT``) is read with
      :class:`gettext.GNUTranslations`. A *source* is one project: catalogues whose
      names differ only from the first digit on (``gtk20``/``gtk30``,
      ``iso_639``/``iso_3166``) are one project, since they share translators, and the
      first one read gives the translation. The header entry, plural forms and
      messages with a context (msgctxt) are left out.
    * Each msgid and translation is cleaned (:func:`clean_message`): ``(_F)``-style
      accelerator suffixes are removed, printf-style (``%s``, ``%1$d``, ``%%``),
      Python (``%(name)s``) and brace (``{0}``, ``${VAR}``) placeholders and ``<…>``
      tags are replaced by a space, ``_``/``&`` accelerators before a letter are
      removed, and whitespace (newlines included) is collapsed.
    * Kept: messages whose cleaned msgid has at least ``MIN_WORDS`` (2) words (tokens
      with a letter); translations with 2 to ``MAX_WORDS`` (40) words that differ from
      the msgid (case-insensitively: an untranslated message is no translation).
    * Pairs are made within one locale folder (``pt`` is never paired with
      ``pt_BR``): per message, the different translations (compared case-insensitively
      after cleaning) of different projects, in project-name order, are paired
      consecutively, (t1, t2), (t2, t3), …, the first of each pair being the
      hypothesis. Identical translations therefore give no pair.
    """
    by_message: dict[tuple[str, str], dict[str, str]] = {}
    n_catalogues = 0
    sources: set[tuple[str, str]] = set()
    for folder, project, catalogue in _catalogues(locale, lang):
        n_catalogues += 1
        sources.add((folder, project))
        for msgid, translation in catalogue.items():
            if not isinstance(msgid, str) or not msgid or "\x04" in msgid:
                continue
            key = clean_message(msgid)
            text = clean_message(translation)
            if _words(key) < MIN_WORDS or not MIN_WORDS <= _words(text) <= MAX_WORDS:
                continue
            if text.casefold() == key.casefold():
                continue
            by_message.setdefault((folder, key.casefold()), {}).setdefault(project, text)
    hyps: list[str] = []
    refs: list[str] = []
    for message in sorted(by_message):
        seen: set[str] = set()
        texts: list[str] = []
        for _project_name, text in sorted(by_message[message].items()):
            if text.casefold() not in seen:
                seen.add(text.casefold())
                texts.append(text)
        for hyp, ref in pairwise(texts):
            hyps.append(hyp)
            refs.append(ref)
    messages = sum(
        1 for found in by_message.values() if len({t.casefold() for t in found.values()}) > 1
    )
    return PairSet(hyps, refs, n_catalogues, len(sources), messages)


# -- configurations --------------------------------------------------------------------


def language_config(code: str, skip_function_words: bool = True) -> dict[str, Any] | str:
    """The configuration meteorx offers for a language: its preset, or the full stages."""
    if code == "pt":
        return "pt"
    return {
        "extends": "li",
        "name": f"{code}: exact stem lemma synonym-omw",
        "language": code,
        "normalize": "meteor" if code == "fr" else "lower",
        "aligner": {"name": "optimal"},
        "function_words": "builtin",
        "stages": [
            {"matcher": "exact", "weight": 1.0},
            {"matcher": "stem", "weight": 0.6},
            {"matcher": "lemma", "weight": 0.4, "skip_function_words": skip_function_words},
            {
                "matcher": "synonym-omw",
                "name": "synonym",
                "weight": 0.4,
                "skip_function_words": skip_function_words,
            },
        ],
    }


def make_scorer(code: str) -> tuple[Scorer, str | None]:
    """The language's scorer, and a note when it had to depart from its configuration."""
    try:
        return Scorer(language_config(code)), None
    except MeteorxError as error:
        if "function-word list" not in str(error):
            raise
        # The lemma and synonym stages keep function words out only with meteorx's own
        # lists; for other languages score without that filter, and say so.
        note = f"{error}; scored with skip_function_words: false"
        return Scorer(language_config(code, skip_function_words=False)), note


# -- measuring -------------------------------------------------------------------------


@dataclass
class Shares:
    name: str
    language: str
    stages: list[str]
    pairs: int
    words: int
    by_stage: dict[str, float]
    unaligned: float
    rate: float
    score: float
    #: per stage, the share of all hypothesis words that it aligned and that are function
    #: words (of the configuration's ``function_words`` list)
    function_words_by_stage: dict[str, float]


def measure(scorer: Scorer, hyps: list[str], refs: list[str]) -> Shares:
    for hyp, ref in zip(hyps[:WARMUP], refs[:WARMUP], strict=True):
        scorer.segment(hyp, ref)  # loads dictionaries and wordnets: not timed
    start = time.perf_counter()
    result = scorer.corpus(hyps, refs)
    rate = len(hyps) / (time.perf_counter() - start)
    words = sum(len(s.hyp_tokens) for s in result.segments)
    aligned: Counter[str] = Counter()
    function_words: Counter[str] = Counter()
    names = [s.stage_name for s in scorer.config.stages]
    for seg in result.segments:
        for m in seg.alignment.matches:
            aligned[names[m.stage]] += m.hyp_len
            function_words[names[m.stage]] += sum(
                1
                for token in seg.hyp_tokens[m.hyp_start : m.hyp_start + m.hyp_len]
                if token.lower() in scorer.function_words
            )
    return Shares(
        name=scorer.config.name,
        language=scorer.language.code,
        stages=names,
        pairs=len(hyps),
        words=words,
        by_stage={name: aligned[name] / words for name in names},
        unaligned=1 - sum(aligned.values()) / words,
        rate=rate,
        score=result.score,
        function_words_by_stage={name: function_words[name] / words for name in names},
    )


def report(shares: Shares) -> Shares:
    parts = ", ".join(f"{name} {share:.1%}" for name, share in shares.by_stage.items())
    print(
        f"  {shares.name} ({shares.language}): {shares.pairs:,} segments, "
        f"{shares.words:,} hypothesis words; {parts}, unaligned {shares.unaligned:.1%}; "
        f"{shares.rate:,.0f} segments/s; score {shares.score:.4f}"
    )
    return shares


def shares(config: dict[str, Any] | str, hyps: list[str], refs: list[str]) -> Shares:
    return report(measure(Scorer(config), hyps, refs))


def read(path: Path, limit: int) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:limit]


def _missing(*paths: Path) -> str | None:
    absent = [str(p) for p in paths if not p.exists()]
    return f"skipped: not found: {', '.join(absent)}" if absent else None


# -- sections --------------------------------------------------------------------------


def mt_data(data: Path, limit: int) -> dict[str, Shares]:
    """Stage shares on the real MT data; returns the measurements the speed table uses."""
    measured: dict[str, Shares] = {}
    print("Portuguese, MAIA chat (MT vs post-edit):")
    maia = data / "pt" / "maia_chat_en-ptbr_mtpe"
    if reason := _missing(maia / "hyps", maia / "refs.txt"):
        print(f"  {reason}")
    else:
        hyp = read(next((maia / "hyps").iterdir()), limit)
        ref = read(maia / "refs.txt", limit)
        measured["pt"] = shares("pt", hyp, ref)
        shares("meteor-1.5-pt", hyp, ref)
    print("German, WMT21 en-de (first system, reference A):")
    ende = data / "wmt21-dev" / "en-de"
    if reason := _missing(ende / "hyp", ende / "ref.A.de"):
        print(f"  {reason}")
    else:
        hyp = read(sorted((ende / "hyp").iterdir())[0], limit)
        ref = read(ende / "ref.A.de", limit)
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
    xray = data / "meteor15-examples"
    if reason := _missing(xray / "xray.system1.hyp", xray / "xray.reference"):
        print(f"  {reason}")
    else:
        hyp = read(xray / "xray.system1.hyp", limit)
        ref = read(xray / "xray.reference", limit)
        measured["en"] = shares({"extends": "meteor-1.5-en", "normalize": "meteor"}, hyp, ref)
    return measured


def gettext_data(locale: Path, data: Path, languages: list[str], limit: int) -> list[Shares]:
    print(f"Parallel human translations from gettext catalogues ({locale}):")
    rows: list[Shares] = []
    for code in languages:
        pairs = gettext_pairs(locale, code)
        if not pairs.hyps:
            where = f"{locale / code}/LC_MESSAGES"
            reason = (
                "no pairs in its catalogues" if pairs.catalogues else f"no catalogues in {where}"
            )
            print(f"  {code}: skipped: {reason}")
            continue
        omw = data / "omw"
        try:
            scorer, note = make_scorer(code)
            scorer.segment(pairs.hyps[0], pairs.refs[0])  # resources load here
        except MeteorxError as error:
            print(f"  {code}: skipped: {error} (wordnets are read from {omw})")
            continue
        print(
            f"  {code}: {pairs.catalogues} catalogues, {pairs.sources} sources, "
            f"{pairs.messages:,} messages translated differently, {len(pairs.hyps):,} pairs"
        )
        row = report(measure(scorer, pairs.hyps[:limit], pairs.refs[:limit]))
        if note:
            fw = ", ".join(
                f"{stage} {row.function_words_by_stage[stage]:.1%}"
                for stage in ("lemma", "synonym")
                if stage in row.function_words_by_stage
            )
            print(f"    note: {note}; function words among those links: {fw} of all words")
        rows.append(row)
    return rows


def gettext_table(rows: list[Shares]) -> None:
    if not rows:
        return
    print()
    print(
        "| language | configuration | pairs | hyp words | exact | stem | lemma | synonym "
        "| unaligned | segments/s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        cells = [
            f"{r.by_stage[stage]:.1%}" if stage in r.by_stage else "—"
            for stage in ("exact", "stem", "lemma", "synonym")
        ]
        name = "`pt`" if r.name == "pt" else "exact stem lemma synonym-omw"
        print(
            f"| {r.language} | {name} | {r.pairs:,} | {r.words:,} | {' | '.join(cells)} "
            f"| {r.unaligned:.1%} | {r.rate:,.0f} |"
        )


def speed_table(measured: dict[str, Shares]) -> None:
    print()
    print("Speed, Portuguese preset next to English (same run, one process):")
    labels = {
        "pt": "`pt` preset, MAIA chat MT vs post-edit",
        "en": "`meteor-1.5-en` with `-norm`, xray system1",
    }
    for code in ("pt", "en"):
        if code in measured:
            m = measured[code]
            print(f"  {labels[code]}: {m.pairs:,} segments, {m.rate:,.0f} segments/s")
        else:
            print(f"  {labels[code]}: skipped (data not found)")
    if "pt" in measured and "en" in measured:
        print(f"  ratio pt / en: {measured['pt'].rate / measured['en'].rate:.2f}")


def languages_table() -> None:
    registry = get_registry()
    builtin = registry.function_word_source("builtin")
    print("| code | language | exact | stem | lemma | synonyms | function words | tokenizer |")
    print("|---|---|---|---|---|---|---|---|")
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
            f"| {code} | {lang.name} | yes | {stem} | {lemma} | {', '.join(syn) or '—'} "
            f"| {_function_words(builtin, lang)} | {tok} |"
        )


def _function_words(source: Any, lang: Any) -> str:
    if source is None:
        return "—"
    try:
        words, source_id = source(lang)
    except MeteorxError:
        return "—"
    origin = {
        "builtin": "meteorx (hand-curated)",
        "stop-words": "stop-words",
        "stopwords-iso": "stopwords-iso",
    }
    for prefix, label in origin.items():
        if source_id.startswith(prefix + "-"):
            return f"{label}, {len(words)}"
    return f"{source_id}, {len(words)}"


def _safe(func: object, arg: object) -> bool:
    try:
        return bool(func(arg))  # type: ignore[operator]
    except Exception:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="shared data folder (MT sets, omw/)"
    )
    parser.add_argument(
        "--locale", type=Path, default=DEFAULT_LOCALE, help="folder of gettext catalogues"
    )
    parser.add_argument("--limit", type=int, default=2000, help="segments per set, at most")
    parser.add_argument(
        "--languages", nargs="*", default=list(GETTEXT_LANGUAGES), help="gettext languages"
    )
    parser.add_argument("--skip-mt", action="store_true", help="only the gettext part")
    args = parser.parse_args()
    os.environ.setdefault("METEORX_OMW_DIR", str(args.data / "omw"))
    measured = {} if args.skip_mt else mt_data(args.data, args.limit)
    rows = gettext_data(args.locale, args.data, args.languages, args.limit)
    gettext_table(rows)
    if not args.skip_mt:
        speed_table(measured)
    print()
    languages_table()


if __name__ == "__main__":
    main()
