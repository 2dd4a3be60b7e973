"""The ``-norm`` tokeniser's C twin (``meteorx_plugins.meteor_norm._norm_tokenizer``)
against its plain Python definition (the tokenizer built on the Python engine): the same
token lists, line by line.

Compared on every xray line and on the WMT21 and Portuguese data lines (each skips,
saying why, without the shared data), for every normalisable language and both
``keep_punctuation`` values; on hand-written lines that hit each rule and quirk; with
prefix tables written here; and on generated lines over an alphabet rich in the
characters the rules treat specially. Skips when the compiled engine does not run (not
built, or ``METEORX_ENGINE=python``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meteorx import engine
from meteorx_plugins.meteor_norm import NATIVE, languages, norm_tokenizer
from meteorx_plugins.meteor_norm import tokenizer as meteor_norm
from meteorx_plugins.meteor_norm.languages import NORM_LANGUAGES, language_rules
from meteorx_plugins.meteor_norm.tokenizer import normalize_meteor
from tests.conftest import read_lines, require_data

native = engine.compiled(NATIVE)
pytestmark = pytest.mark.skipif(
    native is None, reason=f"{NATIVE} does not run (not built, or METEORX_ENGINE=python)"
)

KEEPS = (True, False)


def c_tokens(line: str, language: str, keep: bool) -> list[str]:
    """The C twin's tokens (asserting it handled the line itself)."""
    apostrophes, prefixes = language_rules(language)
    tokens = native.tokens(line, apostrophes, prefixes, keep)
    assert tokens is not None
    return tokens


def python_tokenizer(language: str, keep: bool = True) -> Callable[[str], list[str]]:
    """The tokenizer built on the pure-Python engine."""
    with engine.use("python"):
        return norm_tokenizer(language, keep)


def python_normalize_meteor(line: str, language: str = "en", keep: bool = True) -> list[str]:
    return python_tokenizer(language, keep)(line)


def mismatches(lines: list[str], language: str, keep: bool) -> list[str]:
    """Lines where the two differ (with both outputs), at most 5."""
    c_tokenize = norm_tokenizer(language, keep)
    py_tokenize = python_tokenizer(language, keep)
    bad = []
    for line in lines:
        c = c_tokenize(line)
        py = py_tokenize(line)
        if c != py:
            bad.append(f"{language} keep={keep} {line!r}: C={c} Python={py}")
            if len(bad) == 5:
                break
    return bad


# --- real data ---------------------------------------------------------------------------


@pytest.mark.data
@pytest.mark.parametrize("language", NORM_LANGUAGES)
def test_xray(xray: dict[str, list[str]], language: str) -> None:
    lines = [line for side in xray.values() for line in side]
    for keep in KEEPS:
        assert not mismatches(lines, language, keep)


def _text_files(folder: Path, pattern: str) -> Iterator[Path]:
    return (path for path in sorted(folder.glob(pattern)) if path.is_file())


# (folder under the data root, file pattern, languages to run its lines with)
DATA_SETS = [
    ("wmt21-dev/de-en", "*.en", ("en",)),
    ("wmt21-dev/de-en", "hyp/*.en", ("en",)),
    ("wmt21-dev/de-en", "src.de", ("de", "fr", "ru", "cs")),
    ("wmt21-dev/ja-en", "*.en", ("en", "fr")),
    ("wmt21-dev/ja-en", "hyp/*.en", ("en",)),
    ("wmt21-dev/ja-en", "src.ja", ("en",)),
    ("wmt21-dev/en-de", "*.de", ("de", "en", "fr")),
    ("wmt21-dev/en-de", "hyp/*.de", ("de",)),
    ("wmt21-dev/en-de", "src.en", ("en", "es")),
    ("pt", "*/refs.txt", ("es", "fr", "en")),
    ("pt", "*/hyps/*.txt", ("es",)),
    ("pt", "*/src*.txt", ("en",)),
    ("pt", "ntrex128_en-pt_two_refs/ref.*.txt", ("es", "fr")),
]


@pytest.mark.data
@pytest.mark.parametrize(
    ("folder", "pattern", "languages"), DATA_SETS, ids=[f"{d}/{p}" for d, p, _ in DATA_SETS]
)
def test_data_sets(folder: str, pattern: str, languages: tuple[str, ...]) -> None:
    base = require_data(*folder.split("/"))
    files = list(_text_files(base, pattern))
    if not files:
        pytest.skip(f"no {pattern} files under {base}")
    lines = [line for path in files for line in read_lines(path)]
    for language in languages:
        for keep in KEEPS:
            assert not mismatches(lines, language, keep)


# --- hand-written lines ------------------------------------------------------------------

TRICKY = [
    "a...b ..",
    "Wait... what?! ....",
    "..",
    ".",
    "a.",
    ". .",
    "x.. y. z...",
    "1,000 people, 2 dogs,3 cats",
    "a,b,c",
    ",,a,,b, ,c,",
    "1,2,3",
    "don't",
    "I don't know, it's the 1990's 'style'",
    "the students' books",
    "'quoted' ''double'' '''triple''' ''''",
    "l'homme qu'il a vu aujourd'hui",
    "l''homme 'l' a'b'c",
    "U.S.",
    "The U.S. Army and e.g. this",
    "Mr. Smith",
    "Mr. smith",
    "No. 5 is No. Good",
    "pp. 12 and pp. Twelve",
    "Jan. 5",
    "well-known 3-2 x--y a -- b a \u2013 b",
    "--",
    "---",
    "----x",
    "-a- a-b-c .-x",
    "``Hi'' \u201cyes\u201d \u2018no\u2019 `x` \u2013",
    "a\tb\x0bc\x0cd\re\nf",
    "\x0b",
    "\x0c\x0b\x0c",
    "Hello\u00a0world\u2009again\u3000more\u2028x\u0085y\u1680z",
    "\x01Hi\x01 there \x01",
    "\x1c\x1f a \x1d",
    "the end.",
    "the end. ",
    "The end.\x0b",
    "",
    " ",
    "     ",
    "\t\n",
    "\u00a0",
    "DOTMULTI",
    "DOTMULTI.",
    "DOTMULTI.x DOTDOTMULTI ..DOTMULTI",
    "xDOTMULTIy",
    "DOT.MULTI.",
    "DOT.DOT.MULTI. a",
    "\u039f\u03a3 \u03a3\u03a3 and \u4e2d\u6587 \U0001f600",
    "Stra\u00dfe \u00c9COLE \u010cech \u0130stanbul \u00d7 \u00f7",
    "Dr. M\u00fcller z.B. Nr. 5 am 3. Oktober",
    "\u042f. \u041f\u0435\u0442\u0440\u043e\u0432 \u0438 "
    "\u0433. \u041c\u043e\u0441\u043a\u0432\u0430.",
    "\u0442.\u0435. \u0432\u0441\u0451 \ua640\ua66e \u1d00.",
    "Sr. Garc\u00eda lleg\u00f3. Fin.",
    "\u00c7a va. \u00c9l dijo \u00abhola\u00bb \u00bfqu\u00e9? na\u00efve caf\u00e9. \u00c0 \u00ff",
    "\ud800 lone surrogate.",
    "ends with a prefix Mr.",
    "St. Louis, Mo. A",
]


@pytest.mark.parametrize("language", NORM_LANGUAGES)
@pytest.mark.parametrize("keep", KEEPS, ids=["norm", "noPunct"])
def test_tricky_lines(language: str, keep: bool) -> None:
    for line in TRICKY:
        assert c_tokens(line, language, keep) == python_normalize_meteor(line, language, keep), line


def test_long_line() -> None:
    # Past the C stack buffers: the heap path, and many passes of growth.
    line = ("Mr. Smith's U.S. well-known 1,000 a,b ... `x' \u201cy\u201d. " * 200).strip()
    for language in NORM_LANGUAGES:
        for keep in KEEPS:
            assert c_tokens(line, language, keep) == python_normalize_meteor(line, language, keep)
    dots = "." * 5000
    assert c_tokens(dots, "en", True) == python_normalize_meteor(dots) == [dots]


def test_prefix_tables_written_here() -> None:
    # Kinds 1 and 2, prefixes with periods and non-ASCII letters, an empty table.
    table = {"ab": 1, "Cd": 2, "x.y": 1, "\u00e9t\u00e9": 2, "\u03a3": 1, "5": 1}
    lines = [
        "ab. Next Cd. 5 Cd. X x.y. Z",
        "\u00e9t\u00e9. 3 \u00e9t\u00e9. A \u03a3. B 5. C 6. D",
        "ab.. Cd. cd. AB. ab.",
    ]
    for line in lines:
        for table_ in (table, {}):
            for apostrophes in ("en", "fr", "other"):
                for keep in KEEPS:
                    c = native.tokens(line, apostrophes, table_, keep)
                    py = meteor_norm.tokens(line, apostrophes, table_, keep)
                    assert c == py, (line, table_, apostrophes, keep)


def test_other_types_go_to_python() -> None:
    class Text(str):
        pass

    assert native.tokens(Text("a b"), "en", {}, True) is None
    assert native.tokens("a b", "en", languages.nonbreaking_prefixes("en"), True) is None
    assert norm_tokenizer("en")(Text("Mr. Smith.")) == ["mr.", "smith", "."]
    assert python_tokenizer("en")("Mr. Smith.") == ["mr.", "smith", "."]


def test_prefix_table_is_taken_when_the_tokenizer_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A table swapped in the module (as benchmarks/norm_agreement.py does) is used by
    # the tokenizers built afterwards, on both engines, and by normalize_meteor.
    monkeypatch.setitem(languages._PREFIX_TABLES, "german", {"Mr": 1})
    for tokenize in (norm_tokenizer("de"), python_tokenizer("de")):
        assert tokenize("Mr. X") == ["mr.", "x"]
    assert normalize_meteor("Mr. X", "de") == ["mr.", "x"]
    monkeypatch.setitem(languages._PREFIX_TABLES, "german", {})
    for tokenize in (norm_tokenizer("de"), python_tokenizer("de")):
        assert tokenize("Mr. X") == ["mr", ".", "x"]
    with pytest.raises(ValueError, match="no -norm normaliser"):
        norm_tokenizer("pt")


def test_the_engine_is_chosen_when_the_tokenizer_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    tokens = native.tokens

    def spy(line: object, *args: object) -> list[str] | None:
        calls.append(str(line))
        return tokens(line, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(native, "tokens", spy)
    on_c, on_python = norm_tokenizer("en"), python_tokenizer("en")
    line = "Mr. Smith's U.S. office... 1,000 (ok)!"
    assert on_python(line) == on_c(line)
    assert calls == [line]


def test_tokenizer_uses_the_twin() -> None:
    line = "Mr. Smith's U.S. office... 1,000 (ok)!"
    for language in NORM_LANGUAGES:
        for keep in KEEPS:
            expected = c_tokens(line, language, keep)
            assert norm_tokenizer(language, keep)(line) == expected
            assert normalize_meteor(line, language, keep) == expected


# --- generated lines ---------------------------------------------------------------------

SPECIAL = list(
    "aZDsMi09 .,'`-\u2018\u2019\u2013\u201c\u201d\"!?()$"
    "\t\n\r\x0b\x0c\x1c\x01\x85\u00a0\u2009\u2028\u3000"
    "\u00e9\u010c\u044f\u00df\u0130\u03a3\u00d7\ua640\u1d00\u4e2d\U0001f600\ud800"
)
PIECES = [
    "DOTMULTI", "DOTDOTMULTI", "...", "..", "Mr.", "No.", "pp.", "U.S.", "e.g.", "''", "``",
    "--", "'s", "n't", "l'", "1,000", " Dr. ", "a. B", "5. 6", "\u00e9t\u00e9.", "\u0433.",
]  # fmt: skip
LINES = st.lists(st.one_of(st.sampled_from(SPECIAL), st.sampled_from(PIECES)), max_size=40).map(
    "".join
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LINES, st.sampled_from(NORM_LANGUAGES), st.booleans())
def test_generated_lines(line: str, language: str, keep: bool) -> None:
    assert c_tokens(line, language, keep) == python_normalize_meteor(line, language, keep)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.sampled_from(NORM_LANGUAGES), st.booleans())
def test_any_text(line: str, language: str, keep: bool) -> None:
    assert c_tokens(line, language, keep) == python_normalize_meteor(line, language, keep)
