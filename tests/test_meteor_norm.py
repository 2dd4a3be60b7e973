"""Tests for the ``meteor_norm`` plugin (Meteor 1.5 ``-norm`` / ``-norm -noPunct``).

Every expected output in CASES was produced by the jar itself (``Normalizer.normalizeLine``
followed by ``toLowerCase`` and whitespace tokenisation, i.e. what the aligner sees) and is
kept here so the table runs without Java. ``test_matches_jar_on_xray`` re-checks against
the jar on real data when Java, pycocoevalcap and the shared data are available.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from meteorx_plugins.meteor_norm import norm_tokenizer
from meteorx_plugins.meteor_norm.languages import (
    NORM_LANGUAGES,
    nonbreaking_prefixes,
    parse_prefix_lines,
    resolve_norm_language,
)
from meteorx_plugins.meteor_norm.tokenizer import normalize_meteor

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("METEORX_DATA", REPO_ROOT / ".." / "shared" / "data"))
XRAY_DIR = DATA_DIR / "meteor15-examples"

# (language, keep_punctuation, input, expected tokens, why)
CASES: list[tuple[str, bool, str, list[str], str]] = [
    ("en", True, "Hello, World!", ["hello", ",", "world", "!"],
     "punctuation split off, then lower-cased"),
    ("en", True, "Mr. Smith arrived.", ["mr.", "smith", "arrived", "."],
     "'Mr' is a non-breaking prefix; a sentence-final period is split"),
    ("en", True, "It was built in 1990. It fell.",
     ["it", "was", "built", "in", "1990", ".", "it", "fell", "."],
     "period after a non-prefix before an upper-case word is split"),
    ("en", True, "See fig. and table", ["see", "fig.", "and", "table"],
     "period kept when the next word starts with a-z"),
    ("en", True, "No. 5 is No. Good", ["no.", "5", "is", "no", ".", "good"],
     "'No' is #NUMERIC_ONLY#: non-breaking only before a digit"),
    ("en", True, "pp. 12 and pp. Twelve", ["pp.", "12", "and", "pp", ".", "twelve"],
     "'pp' is #NUMERIC_ONLY# as well"),
    ("en", True, "The U.S. Army", ["the", "us", "army"],
     "jar quirk: a word with inner periods and a letter loses all periods"),
    ("en", True, "Wait... what?!", ["wait", "...", "what", "?", "!"],
     "dot runs stay one token; each other symbol is its own token"),
    ("en", True, "a....b", ["a", "....", "b"], "dot runs of any length (DOTMULTI handling)"),
    ("en", True, "1,000 people, 2 dogs,3 cats",
     ["1,000", "people", ",", "2", "dogs", ",", "3", "cats"],
     "comma kept only between two digits"),
    ("en", True, "a,b,c", ["a", ",", "b,c"],
     "jar quirk: consuming regex skips a comma two characters after a split one"),
    ("en", True, "I don't know, it's the 1990's 'style'",
     ["i", "don", "'t", "know", ",", "it", "'s", "the", "1990", "'s", "'", "style", "'"],
     "English apostrophes: clitic kept on the right, digit+'s, quotes split"),
    ("en", True, "the students' books", ["the", "students", "'", "books"],
     "English apostrophe after a letter before a space is split off"),
    ("en", True, "\u201cHi\u201d said \u2018Bob\u2019 ``ok'' `x`",
     ['"', "hi", '"', "said", "'", "bob", "'", '"', "ok", '"', "'", "x", "'"],
     "curly/back quotes normalised to ' and \" before splitting"),
    ("en", True, "well-known 3-2 x--y a -- b a \u2013 b",
     ["well", "known", "3", "2", "x", "y", "a", "-", "b", "a", "-", "b"],
     "hyphen between letters/digits dropped; -- and en dash become -"),
    ("en", True, "(see [1]) $5 50% a/b a&b #tag @user",
     ["(", "see", "[", "1", "]", ")", "$", "5", "50", "%", "a", "/", "b", "a", "&", "b",
      "#", "tag", "@", "user"],
     "all other ASCII symbols are separate tokens"),
    ("en", True, "Jan. 5 was cold", ["jan", ".", "5", "was", "cold"],
     "the jar's English list has no month names (newer Moses lists do)"),
    ("en", True, "Hello\u00a0world\u2009again\tand\u3000more",
     ["hello", "world", "again", "and", "more"],
     "NBSP, thin space, tab and ideographic space separate words"),
    ("en", True, "\x01Hi\x01 there \x01", ["hi", "\x01", "there"],
     "control chars become tokens; Java trim() drops them only at the ends"),
    ("en", True, "\u039f\u03a3 and \u4e2d\u6587", ["\u03bf", "\u03c3", "and", "\u4e2d", "\u6587"],
     "Greek/CJK are outside the jar's letter ranges, so every character is split off"),
    ("en", True, "Stra\u00dfe \u00c9COLE \u010cech", ["stra\u00dfe", "\u00e9cole", "\u010dech"],
     "Latin-1/Latin Extended-A letters are letters; lower-casing is Unicode"),
    ("en", True, "", [], "empty line gives no tokens"),
    ("en", True, "   ", [], "blank line gives no tokens"),
    ("en", False, "Hello, Mr. Smith's well-known U.S. office... 1,000 (ok)!",
     ["hello", "mr", "smith", "s", "well", "known", "us", "office", "1", "000", "ok"],
     "-noPunct: every non-letter/digit separates, after the same tokenisation"),
    ("en", False, "\u201cHi\u201d -- 5% $", ["hi", "5"], "-noPunct drops punctuation-only tokens"),
    ("fr", True, "L'homme qu'il a vu aujourd'hui",
     ["l'", "homme", "qu'", "il", "a", "vu", "aujourd'", "hui"],
     "French apostrophes stay on the left word"),
    ("fr", True, "voir a. Dupont et J. Martin",
     ["voir", "a.", "dupont", "et", "j.", "martin"],
     "the jar's French list has 'a' (dropped from newer Moses lists)"),
    ("fr", False, "L'homme, c'est \u00e7a.", ["l", "homme", "c", "est", "\u00e7a"],
     "French -noPunct"),
    ("de", True, "Geht's gut? Dr. M\u00fcller z.B. Nr. 5",
     ["geht", "'", "s", "gut", "?", "dr.", "m\u00fcller", "zb", "nr.", "5"],
     "other languages split every apostrophe; German prefixes"),
    ("de", True, "am 3. Oktober", ["am", "3.", "oktober"],
     "German ordinals: numbers are non-breaking prefixes"),
    ("es", True, "Sr. Garc\u00eda lleg\u00f3. Fin.",
     ["sr.", "garc\u00eda", "lleg\u00f3", ".", "fin", "."],
     "Spanish prefixes"),
    ("cs", True, "Dr. Nov\u00e1k p\u0159i\u0161el. Ing. Svoboda",
     ["dr", ".", "nov\u00e1k", "p\u0159i\u0161el", ".", "ing", ".", "svoboda"],
     "the jar's Czech prefix list is empty, so even 'Dr.' is split"),
    ("ru", True, "\u042f. \u041f\u0435\u0442\u0440\u043e\u0432 \u0438 \u0433. "
     "\u041c\u043e\u0441\u043a\u0432\u0430.",
     ["\u044f", ".", "\u043f\u0435\u0442\u0440\u043e\u0432", "\u0438", "\u0433.",
      "\u043c\u043e\u0441\u043a\u0432\u0430", "."],
     "Russian: 'г' is a prefix; single capitals are not in the jar's list"),
    ("ru", True, "\u0442.\u0435. \u0432\u0441\u0451", ["\u0442\u0435", "\u0432\u0441\u0451"],
     "Cyrillic letters count as letters for the inner-period rule"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("language", "keep", "line", "expected", "why"),
    CASES,
    ids=[f"{c[0]}-{'norm' if c[1] else 'noPunct'}-{i}" for i, c in enumerate(CASES)],
)
def test_cases(language: str, keep: bool, line: str, expected: list[str], why: str) -> None:
    assert normalize_meteor(line, language, keep) == expected, why
    # the tokenizer scorers use, on the engine in use (the compiled twin by default)
    assert norm_tokenizer(language, keep)(line) == expected, why


@pytest.mark.parametrize(
    ("alias", "name"),
    [("en", "english"), ("EN", "english"), ("en-US", "english"), ("English", "english"),
     ("cs", "czech"), ("cz", "czech"), ("fr", "french"), ("de_AT", "german"),
     ("es", "spanish"), ("ru", "russian")],
)  # fmt: skip
def test_language_aliases(alias: str, name: str) -> None:
    # The jar accepts short codes and names case-insensitively (cz and cs for Czech).
    assert resolve_norm_language(alias) == name
    assert normalize_meteor("Dr. X", alias) == normalize_meteor("Dr. X", name)


@pytest.mark.parametrize("language", ["pt", "pt-BR", "it", "sv", "ar-bw-red", "other"])
def test_languages_without_normaliser_raise(language: str) -> None:
    # meteor-1.5.jar -norm -l pt fails with "No normalizer for language (portuguese)".
    with pytest.raises(ValueError, match="no -norm normaliser"):
        normalize_meteor("x", language)


def test_unknown_language_raises() -> None:
    with pytest.raises(ValueError, match="unknown language"):
        normalize_meteor("x", "klingon")


def test_prefix_tables() -> None:
    # Spot checks of the sacremoses lists patched to the jar's versions.
    en = nonbreaking_prefixes("en")
    assert en["Mr"] == 1 and en["No"] == 2 and "Jan" not in en and "Rs" not in en
    assert dict(nonbreaking_prefixes("cs")) == {}
    assert nonbreaking_prefixes("fr")["a"] == 1
    assert "\u042f" not in nonbreaking_prefixes("ru")
    assert nonbreaking_prefixes("de") == nonbreaking_prefixes("german")


def test_parse_prefix_lines() -> None:
    # The jar reads the first word of each line; '#' comments; #NUMERIC_ONLY# kind.
    lines = ["# comment", "", "Mr", "No #NUMERIC_ONLY# ", "dr. h. c", "  #x", "Art\t#NUMERIC_ONLY#"]
    assert parse_prefix_lines(lines) == {"Mr": 1, "No": 2, "dr.": 1, "Art": 2}


ASCII_TEXT = st.text(alphabet=st.sampled_from(list("aZ09 .,'`-\"!?()$%&Mr\tNo")), max_size=60)


@given(ASCII_TEXT)
def test_nopunct_is_alnum_runs_of_norm(line: str) -> None:
    # Both modes tokenise identically; -noPunct then keeps only the letter/digit runs.
    norm = normalize_meteor(line)
    runs = [r for tok in norm for r in re.findall("[0-9a-z]+", tok)]
    assert normalize_meteor(line, keep_punctuation=False) == runs
    assert all(tok and tok == tok.lower() and not re.search(r"\s", tok) for tok in norm)


# --- comparison with the jar ----------------------------------------------------------


def _find_jar() -> Path | None:
    env = os.environ.get("METEORX_METEOR_JAR")
    if env:
        return Path(env) if Path(env).is_file() else None
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        jar = Path(location) / "meteor" / "meteor-1.5.jar"
        if jar.is_file():
            return jar
    return None


JAR = _find_jar()


def _jar_prefix_lines(jar: Path, name: str) -> list[str]:
    with zipfile.ZipFile(jar) as zf:
        return zf.read(f"nonbreaking/{name}.prefixes").decode("utf-8").splitlines()


@pytest.mark.jar
@pytest.mark.skipif(JAR is None, reason="meteor-1.5.jar not found (pip install pycocoevalcap)")
@pytest.mark.parametrize("name", NORM_LANGUAGES)
def test_prefix_tables_equal_jar(name: str) -> None:
    assert JAR is not None
    assert dict(nonbreaking_prefixes(name)) == parse_prefix_lines(_jar_prefix_lines(JAR, name))


def _java_lines(path: Path, n: int) -> list[str]:
    """First ``n`` lines as Java's BufferedReader.readLine() sees them."""
    with path.open(encoding="utf-8", newline=None) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines[:n]


def _words(line: str) -> list[str]:
    # The jar joins tokens with single spaces; tokens may hold other whitespace.
    return [w for w in line.split(" ") if w]


def _jar_tokens(
    jar: Path, hyps: list[str], refs: list[str], cwd: Path, extra: list[str]
) -> list[tuple[list[str], list[str]]]:
    """Run the jar with -writeAlignments and return (hyp tokens, ref tokens) per segment."""
    (cwd / "hyp.txt").write_text("".join(f"{x}\n" for x in hyps), encoding="utf-8")
    (cwd / "ref.txt").write_text("".join(f"{x}\n" for x in refs), encoding="utf-8")
    # "-m exact": the normaliser does not depend on the matchers, and skipping the
    # paraphrase table makes the run 4x faster (checked: identical token lines on all
    # 2,489 xray segments with the default modules).
    cmd = ["java", "-Xmx2G", "-Duser.language=en", "-Duser.country=US", "-jar", str(jar),
           "hyp.txt", "ref.txt", "-l", "en", "-norm", *extra, "-m", "exact",
           "-writeAlignments", "-f", "out"]  # fmt: skip
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, timeout=600)
    lines = (cwd / "out-align.out").read_text(encoding="utf-8").split("\n")
    segments = []
    for i, line in enumerate(lines):
        if line.startswith("Alignment\t"):
            segments.append((_words(lines[i + 1]), _words(lines[i + 2])))
    return segments


def _skip_reason() -> str | None:
    if JAR is None:
        return "meteor-1.5.jar not found (pip install pycocoevalcap or set METEORX_METEOR_JAR)"
    if shutil.which("java") is None:
        return "java not on PATH"
    if not (XRAY_DIR / "xray.reference").is_file():
        return f"shared data not found at {XRAY_DIR} (set METEORX_DATA)"
    return None


@pytest.mark.jar
@pytest.mark.data
@pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")
@pytest.mark.parametrize("keep", [True, False], ids=["norm", "noPunct"])
def test_matches_jar_on_xray(keep: bool, tmp_path: Path) -> None:
    assert JAR is not None
    n = 300
    refs = _java_lines(XRAY_DIR / "xray.reference", n)
    mismatches: list[str] = []
    tokenize = norm_tokenizer("en", keep)  # on the engine in use
    for system in ("system1", "system2"):
        hyps = _java_lines(XRAY_DIR / f"xray.{system}.hyp", n)
        run_dir = tmp_path / system
        run_dir.mkdir()
        segs = _jar_tokens(JAR, hyps, refs, run_dir, [] if keep else ["-noPunct"])
        assert len(segs) == n
        for i, ((jar_hyp, jar_ref), hyp, ref) in enumerate(zip(segs, hyps, refs, strict=True)):
            for side, jar_toks, text in (("hyp", jar_hyp, hyp), ("ref", jar_ref, ref)):
                mine = tokenize(text)
                plain = normalize_meteor(text, "en", keep)
                if mine != jar_toks or plain != jar_toks:
                    mismatches.append(
                        f"{system} {side} {i + 1}: jar={jar_toks} mine={mine} python={plain}"
                    )
    assert not mismatches, "\n".join(mismatches[:10])


def test_prefix_lists_read_without_importing_sacremoses_equal_its_api() -> None:
    """The prefix data read straight from the package equals sacremoses' own reader."""
    from sacremoses.corpus import NonbreakingPrefixes

    from meteorx_plugins.meteor_norm import languages

    api = NonbreakingPrefixes()
    for code in ("en", "fr", "de", "es", "ru"):
        direct = languages.parse_prefix_lines(languages._sacremoses_prefix_lines(code))
        assert direct == languages.parse_prefix_lines(api.words(code))
        assert len(direct) > 50
