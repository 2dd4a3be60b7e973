"""The ``function_words`` plugin: the function-word sources (``function_words: NAME``).

Function words are what METEOR's δ parameter weighs against content words. Sources:

``none``
    No list: every word is a content word.
``builtin``
    The best list meteorx knows for the language, in this order:

    1. meteorx's own hand-curated list (``meteorx/data/function_words/<code>.txt``:
       English, Portuguese, Nepali, Serbian in both scripts, Tamil, Yiddish);
       identifier ``builtin-<code>``;
    2. the ``stop-words`` package's list (identifier ``stop-words-<code>``);
    3. the ``stopwordsiso`` package's list, from the Stopwords ISO collection
       (identifier ``stopwords-iso-<code>``).

    So every language with a Snowball stemmer has a list; the identifier, which goes
    into the signature, names where the words came from.
``stop-words``
    The ``stop-words`` package (BSD licence; about 30 languages).
``stopwords-iso``
    The ``stopwordsiso`` package (MIT licence; Stopwords ISO, about 60 languages).
``meteor-1.5``
    Meteor 1.5's own lists, read from the jar that ``pycocoevalcap`` installs.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterable
from functools import cache
from importlib import resources
from importlib.util import find_spec
from pathlib import Path

from meteorx.errors import ResourceError
from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.registry import FunctionWordSource

__all__ = [
    "builtin_function_words",
    "curated_function_words",
    "meteor15_function_words",
    "meteor_jar_path",
    "stop_words",
    "stopwords_iso",
]

#: Languages whose list in a package lives under another code.
_STOP_WORDS_CODES = {"no": "nb", "nn": "nb"}
_STOPWORDS_ISO_CODES = {"nb": "no", "nn": "no"}


def _clean(words: Iterable[object]) -> frozenset[str]:
    return frozenset(
        w.strip().lstrip("\ufeff").lower() for w in words if isinstance(w, str) and w.strip()
    )


def no_function_words(language: Language) -> tuple[frozenset[str], str]:
    return frozenset(), "none"


@cache
def curated_function_words(language: Language) -> tuple[frozenset[str], str] | None:
    """meteorx's own hand-curated list for a language, or ``None`` when it has none."""
    path = resources.files("meteorx").joinpath(f"data/function_words/{language.code}.txt")
    if not path.is_file():
        return None
    words = _clean(
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if not line.lstrip().startswith("#")
    )
    return words, f"builtin-{language.code}"


@cache
def stop_words(language: Language) -> tuple[frozenset[str], str]:
    """The ``stop-words`` package's list (BSD licence; lists for ~30 languages)."""
    try:
        from stop_words import LANGUAGE_MAPPING, get_stop_words
    except ImportError:  # pragma: no cover - a declared dependency
        raise ResourceError("function_words 'stop-words' needs: pip install stop-words") from None
    code = _STOP_WORDS_CODES.get(language.code, language.code)
    if code not in LANGUAGE_MAPPING:
        raise ResourceError(
            f"the stop-words package has no list for {language.name} ({language.code}); "
            "set function_words to 'builtin', 'stopwords-iso', a file path or 'none'"
        )
    return _clean(get_stop_words(code)), f"stop-words-{code}"


@cache
def stopwords_iso(language: Language) -> tuple[frozenset[str], str]:
    """The ``stopwordsiso`` package's list (MIT licence; Stopwords ISO, ~60 languages)."""
    try:
        import stopwordsiso
    except ImportError:  # pragma: no cover - a declared dependency
        raise ResourceError(
            "function_words 'stopwords-iso' needs: pip install stopwordsiso"
        ) from None
    code = _STOPWORDS_ISO_CODES.get(language.code, language.code)
    words = _clean(stopwordsiso.stopwords(code)) if stopwordsiso.has_lang(code) else frozenset()
    if not words:
        raise ResourceError(
            f"the stopwordsiso package has no list for {language.name} ({language.code}); "
            "set function_words to 'builtin', 'stop-words', a file path or 'none'"
        )
    return words, f"stopwords-iso-{code}"


@cache
def builtin_function_words(language: Language) -> tuple[frozenset[str], str]:
    """meteorx's own list, else the stop-words package's, else stopwordsiso's."""
    curated = curated_function_words(language)
    if curated is not None:
        return curated
    for source in (stop_words, stopwords_iso):
        try:
            return source(language)
        except ResourceError:
            continue
    raise ResourceError(
        f"no function-word list for {language.name} ({language.code}): neither meteorx, "
        "the stop-words package nor stopwordsiso has one; set function_words to a file "
        "with one word per line, or 'none'"
    )


def meteor_jar_path() -> Path | None:
    """The Meteor 1.5 jar installed by the ``pycocoevalcap`` package, if any."""
    spec = find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        return None
    jar = Path(next(iter(spec.submodule_search_locations))) / "meteor" / "meteor-1.5.jar"
    return jar if jar.is_file() else None


@cache
def meteor15_function_words(language: Language) -> tuple[frozenset[str], str]:
    """Meteor 1.5's list for the language (its ``other`` list when it has none)."""
    jar = meteor_jar_path()
    if jar is None:
        raise ResourceError(
            "function_words 'meteor-1.5' reads Meteor 1.5's lists from its jar; install it "
            "with: pip install pycocoevalcap"
        )
    name = language.meteor_name or "other"
    with zipfile.ZipFile(jar) as archive:
        try:
            text = archive.read(f"function/{name}.words").decode("utf-8")
        except KeyError:
            text = archive.read("function/other.words").decode("utf-8")
            name = "other"
    return frozenset(text.splitlines()), f"meteor-1.5-{name}"


@hookimpl
def meteorx_register_function_words(register: Callable[[str, FunctionWordSource], None]) -> None:
    register("none", no_function_words)
    register("builtin", builtin_function_words)
    register("stop-words", stop_words)
    register("stopwords-iso", stopwords_iso)
    register("meteor-1.5", meteor15_function_words)
