"""First-party plugin `paraphrase`: the ``paraphrase`` matcher (Meteor paraphrase tables).

Links a phrase of one sentence to a phrase of the other when a paraphrase table lists
them as a pair; a link can cover several words on each side ("the united states" ~
"the us"). It reproduces Meteor 1.5's ``ParaphraseMatcher``:

1. for every reference position, every table phrase starting there (shortest first),
   every paraphrase of it in table order, every hypothesis position where that
   paraphrase occurs (left to right): a candidate;
2. then the same from the hypothesis side: every hypothesis position, every phrase
   starting there, every paraphrase, every reference position where it occurs.

The rules are used in both directions, so a pair listed both ways is proposed twice
(the jar does the same; it matters for its search). Nothing is skipped because an
earlier stage already links the same words, and the table's probabilities are ignored
(Meteor 1.5 ignores them too). Candidates are emitted grouped by reference position
and, within one, in the jar's order (all of step 1, then step 2), which its beam
search's tie-breaking depends on.

How: the work is done by the C twin ``meteorx._paraphrase`` when it is built (one
state per loaded table, shared by the scorers of the process): a sentence's phrases
are found by the trie walk over the compiled table's sorted keys (binary search over
a word's run of keys; each step (key, next word) is remembered), a phrase's
paraphrases are decoded once from the loaded table into the hashes of their first two
words, and a paraphrase is found in the other sentence by those hashes, then checked
byte by byte against the tokens (no Python objects per word or paraphrase).

The plain Python below (:meth:`ParaphraseMatcher.python_prepare`,
:meth:`ParaphraseMatcher.python_candidates`) defines the results and runs without the
extension; tests check that both give the same lists. It walks a sentence like the
jar's trie (keys of the first words it meets are read from the compiled table once, a
phrase's paraphrases are decoded once) and keeps its tokens, bigrams and phrases. To
find where a paraphrase occurs in the other sentence, it looks up its *key* (the
paraphrase itself if it has one or two words, else its first two words) among that
sentence's tokens and bigrams: phrases none of whose keys occur are skipped in one
C-level pass, the few left are checked word by word. No n-gram sets are built.

Resource: a table in Meteor's format (see :mod:`meteorx.paraphrase_table`), looked up
in this order: the stage option ``path:``; ``$METEORX_PARAPHRASE_<LANG>`` (ISO code in
capitals, e.g. ``METEORX_PARAPHRASE_EN``); ``$METEORX_PARAPHRASE_DIR/paraphrase-<lang>.gz``
(Meteor's file names: ``en``, ``cz``, ``de``, ``es``, ``fr``, ...); the English table
bundled with the PyPI package ``pycocoevalcap`` (``pycocoevalcap/meteor/data/``). It
is compiled once into the user cache folder (:mod:`meteorx.paraphrase_table`; about
2-3 s for the English table on a small machine), and later runs open the compiled
file in milliseconds. The signature names the table by its SHA-256.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from itertools import compress, pairwise, repeat
from operator import itemgetter, not_
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from meteorx.errors import MeteorxError
from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.matchers import Matcher

if TYPE_CHECKING:
    from meteorx.paraphrase_table import ParaphraseTable
from meteorx.resources import Located, installed_dir, locate, short_checksum

__all__ = [
    "DIR_ENV",
    "ParaphraseMatcher",
    "ParaphraseOptions",
    "find_paraphrase_table",
    "language_env_var",
]

#: Environment variable naming a folder of ``paraphrase-<lang>.gz`` tables.
DIR_ENV = "METEORX_PARAPHRASE_DIR"

#: Meteor 1.5's file-name codes where they differ from ISO 639-1.
_METEOR_CODES = {"cs": "cz", "sv": "se"}


def language_env_var(language: Language) -> str:
    """The per-language variable naming a table file, e.g. ``METEORX_PARAPHRASE_EN``."""
    return f"METEORX_PARAPHRASE_{language.code.upper().replace('-', '_')}"


def _file_names(language: Language) -> list[str]:
    codes = [language.code]
    meteor = _METEOR_CODES.get(language.code)
    if meteor:
        codes.append(meteor)
    return [f"paraphrase-{code}.gz" for code in codes]


def _pycocoevalcap_data() -> Path | None:
    """``pycocoevalcap/meteor/data`` if the package is installed (it is a namespace
    package, so its location comes from ``submodule_search_locations``)."""
    try:
        spec = find_spec("pycocoevalcap")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        folder = Path(root) / "meteor" / "data"
        if folder.is_dir():
            return folder
    return None


def _search_list(language: Language) -> Iterator[tuple[Path, str]]:
    folder = os.environ.get(DIR_ENV, "")
    if folder:
        for name in _file_names(language):
            yield Path(folder).expanduser() / name, f"${DIR_ENV}"
    installed = installed_dir(resource_name(language))
    if installed is not None:
        for name in _file_names(language):
            yield installed / name, "meteorx resources install"
    data = _pycocoevalcap_data()
    if data is not None:
        for name in _file_names(language):
            yield data / name, "pycocoevalcap"


def _check(path: Path) -> str | None:
    if not path.exists():
        return "does not exist"
    if not path.is_file():
        return "is not a file"
    if not os.access(path, os.R_OK):
        return "is not readable"
    return None


def resource_name(language: Language) -> str:
    """The table's name for ``meteorx resources install`` (``paraphrase-de``)."""
    return f"paraphrase-{language.code}"


#: Languages whose paraphrase table comes with Meteor 1.5 (English: pycocoevalcap's).
METEOR15_TABLES = ("cs", "de", "es", "fr", "ru")


@dataclass(frozen=True)
class ParaphraseResource:
    """A Meteor 1.5 paraphrase table as ``meteorx resources install`` sees it: it has
    no download address of its own (it is inside the Meteor 1.5 distribution), so it is
    installed ``--from`` the file or the distribution's ``data`` folder."""

    name: str
    filename: str
    description: str
    url: str = ""
    sha256: str | None = None

    def check(self, path: Path) -> str | None:
        try:
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                lines = [handle.readline() for _ in range(3)]
        except (OSError, EOFError, UnicodeDecodeError) as error:
            return f"is not a gzip-compressed paraphrase table ({error})"
        if not lines[2]:
            return "is not a Meteor paraphrase table (probability / phrase / paraphrase lines)"
        return None


def paraphrase_resource(name: str) -> ParaphraseResource | None:
    """The installable table called ``name`` (``paraphrase-<ISO code>``), if any."""
    from meteorx.languages import resolve_language

    if not name.startswith("paraphrase-"):
        return None
    try:
        language = resolve_language(name.removeprefix("paraphrase-"))
    except MeteorxError:
        return None
    if language.code == "en":
        return None  # pycocoevalcap, a dependency, installs it
    return ParaphraseResource(
        resource_name(language),
        _file_names(language)[-1],
        f"Meteor 1.5's {language.name} paraphrase table",
    )


def known_resources() -> list[ParaphraseResource]:
    """The tables Meteor 1.5 ships, for ``meteorx resources list``."""

    return [r for c in METEOR15_TABLES if (r := paraphrase_resource(f"paraphrase-{c}"))]


def _hint(language: Language) -> str:
    if language.code == "en":
        return (
            "pip install pycocoevalcap (a meteorx dependency; it bundles the English table), "
            f"or set the stage option 'path:' or ${language_env_var(language)} to a "
            "Meteor-format paraphrase table"
        )
    return (
        f"install it with: meteorx resources install {resource_name(language)} --from FILE "
        f"(paraphrase-{_METEOR_CODES.get(language.code, language.code)}.gz from the data "
        "folder of the Meteor 1.5 distribution), or set the stage option 'path:' or "
        f"${language_env_var(language)} to a Meteor-format paraphrase table"
    )


def find_paraphrase_table(language: Language, path: str | None = None) -> Located:
    """Locate the table: ``path`` > ``$METEORX_PARAPHRASE_<LANG>`` >
    ``$METEORX_PARAPHRASE_DIR`` > pycocoevalcap's bundled table.

    :raises ResourceError: nothing usable found (one line saying how to get a table).
    """
    return locate(
        f"{language.name} paraphrase table",
        check=_check,
        explicit=path,
        env_var=language_env_var(language),
        search=_search_list(language),
        hint=_hint(language),
        install=None if language.code == "en" else resource_name(language),
        filename=_file_names(language)[-1],
    )


class ParaphraseOptions(BaseModel):
    """Options of the ``paraphrase`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str | None = Field(
        None,
        description="paraphrase table in Meteor's format (gzip text: probability / phrase "
        "/ paraphrase lines); default: $METEORX_PARAPHRASE_<LANG>, "
        "$METEORX_PARAPHRASE_DIR/paraphrase-<lang>.gz, then pycocoevalcap's table",
    )


#: A table phrase's paraphrases as the matcher keeps them: ``(keys, lines)``: each
#: paraphrase (in table order; a pair listed twice is there twice) and its *key*: the
#: paraphrase itself when it has one or two words, else its first two words. Tuples of
#: strings: the garbage collector soon stops tracking them.
_Phrase = tuple[tuple[str, ...], tuple[str, ...]]

#: the entry of a word that starts no phrase
_NO_WORD: tuple[dict[str, int], int] = ({}, 0)

#: Phrases decoded and kept per matcher (the English table has 430 k).
_MAX_PHRASES = 200_000

_FIRST_TWO = itemgetter(slice(2))
_KEYS = itemgetter(0)


class _Sentence:
    """A sentence prepared for the paraphrase matcher.

    ``tokens``; ``bigrams``: its bigrams as ``"w1 w2"``; the table phrases in it, by
    start then length (Meteor 1.5's trie-walk order): their ``starts``, ``lengths`` and
    :data:`_Phrase` (``phrases``) and their paraphrases' ``keys``; ``first`` and
    ``last``: each token and bigram (the keys of the paraphrases that can occur in it)
    -> where it occurs first and last.
    """

    __slots__ = ("bigrams", "first", "keys", "last", "lengths", "phrases", "starts", "tokens")

    def __init__(
        self,
        tokens: tuple[str, ...],
        bigrams: tuple[str, ...],
        starts: list[int],
        lengths: list[int],
        phrases: list[_Phrase],
        keys: list[tuple[str, ...]],
    ) -> None:
        self.tokens = tokens
        self.bigrams = bigrams
        self.starts = starts
        self.lengths = lengths
        self.phrases = phrases
        self.keys = keys
        # a token has no space, a bigram has one: they never clash as keys
        ngrams = tokens + bigrams
        at = [*range(len(tokens)), *range(len(bigrams))]
        self.first = dict(zip(reversed(ngrams), reversed(at), strict=True))
        self.last = dict(zip(ngrams, at, strict=True))


def _links(sentence: _Sentence, other: _Sentence) -> Iterator[tuple[int, int, int, int]]:
    """For each phrase of ``sentence`` (in order), each paraphrase (in table order) and
    each position where it occurs in ``other`` (ascending): ``(start, words, position,
    words there)``."""
    first = other.first
    present = first.keys()
    last = other.last
    tokens = other.tokens
    bigrams = other.bigrams
    n = len(tokens)
    starts = sentence.starts
    lengths = sentence.lengths
    phrases = sentence.phrases
    for i in compress(range(len(phrases)), map(not_, map(present.isdisjoint, sentence.keys))):
        k = starts[i]
        length = lengths[i]
        keys, lines = phrases[i]
        for key, line in compress(zip(keys, lines, strict=True), map(first.__contains__, keys)):
            size = line.count(" ") + 1
            at = first[key]
            end = last[key]
            rest = line[len(key) + 1 :]  # the words after the key
            while True:
                if size < 3 or (
                    at + size <= n
                    and rest
                    == (tokens[at + 2] if size == 3 else " ".join(tokens[at + 2 : at + size]))
                ):
                    yield k, length, at, size
                if at == end:
                    break
                at = (tokens if size == 1 else bigrams).index(key, at + 1)


def _safe(token: str) -> str:
    # A token with a space (or an empty one) can match no word of the table; keep it
    # from gluing onto its neighbours in n-grams.
    return token if token and " " not in token else "\x00"


class ParaphraseMatcher(Matcher):
    """Links phrases that a paraphrase table lists as paraphrases (Meteor 1.5's module)."""

    name = "paraphrase"
    version = "1"
    Options = ParaphraseOptions

    def __init__(self, options: BaseModel, language: Language) -> None:
        super().__init__(options, language)
        assert isinstance(options, ParaphraseOptions)
        self.located = find_paraphrase_table(language, options.path)
        # Imported here: the table module pulls in numpy (for compiling tables), which
        # runs that never use a paraphrase stage should not pay for at start-up.
        from meteorx.paraphrase_table import load_table

        self.table: ParaphraseTable = load_table(self.located.path)
        #: the compiled twin's state, shared by the scorers of the process (None
        #: without the C extension: the plain Python below runs instead)
        self._native: Any = self.table.native()
        #: first word -> (the table's keys starting with it (phrases and their prefixes)
        #: -> index value, the word's own value)
        self._words: dict[str, tuple[dict[str, int], int]] = {}
        #: paraphrase group (index value >> 1) -> decoded paraphrases (made on first use)
        self._phrases: list[_Phrase | None] = []
        self._decoded = 0

    def _keys(self, word: str) -> tuple[dict[str, int], int]:
        keys = self.table.first_word_index(word)
        entry = (keys, keys[word]) if keys else _NO_WORD
        self._words[word] = entry
        return entry

    def _phrase(self, value: int) -> _Phrase:
        """Decode (once) the paraphrases of the phrase with index value ``value``."""
        lines = self.table.targets(value)
        words = map(str.split, lines, repeat(" "), repeat(2))
        phrase = (tuple(map(" ".join, map(_FIRST_TWO, words))), lines)
        if self._decoded >= _MAX_PHRASES:
            self._phrases = [None] * len(self._phrases)
            self._decoded = 0
        self._phrases[value >> 1] = phrase
        self._decoded += 1
        return phrase

    def prepare(self, tokens: Sequence[str]) -> Any:
        if self._native is not None:
            return self._native.prepare(tokens)
        return self.python_prepare(tokens)

    def candidates(self, hyp: Any, ref: Any) -> list[tuple[int, int, int, int]]:
        if self._native is not None:
            return self._native.candidates(hyp, ref)  # type: ignore[no-any-return]
        return self.python_candidates(hyp, ref)

    def python_prepare(self, tokens: Sequence[str]) -> _Sentence:
        """:meth:`prepare` in plain Python (the definition the C twin follows)."""
        words = tuple(tokens)
        if "" in words or " ".join(words).count(" ") != len(words) - 1:
            words = tuple(map(_safe, words))
        n = len(words)
        bigrams = tuple(map(" ".join, pairwise(words)))
        index = self._words
        found = list(map(index.get, words))
        entries: list[tuple[dict[str, int], int]] = (
            [self._keys(w) if e is None else e for w, e in zip(words, found, strict=True)]
            if None in found
            else found  # type: ignore[assignment]
        )
        starts: list[int] = []
        lengths: list[int] = []
        phrases: list[_Phrase] = []
        if not self._phrases:
            self._phrases = [None] * (len(self.table) + 1)
        decoded = self._phrases
        for k in compress(range(n), map(itemgetter(1), entries)):
            keys, value = entries[k]
            key = words[k]
            length = 1
            while True:  # Meteor 1.5's trie walk: longer phrases while a key goes on
                if value > 1:
                    starts.append(k)
                    lengths.append(length)
                    phrases.append(decoded[value >> 1] or self._phrase(value))
                if not value & 1 or k + length == n:
                    break
                key = bigrams[k] if length == 1 else f"{key} {words[k + length]}"
                length += 1
                value = keys.get(key, 0)
        return _Sentence(words, bigrams, starts, lengths, phrases, list(map(_KEYS, phrases)))

    def python_candidates(self, hyp: _Sentence, ref: _Sentence) -> list[tuple[int, int, int, int]]:
        """:meth:`candidates` of :meth:`python_prepare`'d sentences in plain Python."""
        # 1. phrases of the reference, their paraphrases found in the hypothesis
        spans = [(m, size, k, length) for k, length, m, size in _links(ref, hyp)]
        # 2. phrases of the hypothesis, their paraphrases found in the reference
        second = list(_links(hyp, ref))
        if second:
            spans += second
            spans.sort(key=itemgetter(2))  # stable: step 1 first at each position
        return spans

    def describe(self) -> str:
        return f"{self.name}.v{self.version}(sha256:{short_checksum(self.table.sha256)})"

    def resources(self) -> dict[str, str]:
        out = {"paraphrase table": str(self.located)}
        if self.table.cache_path is not None:
            state = "loaded" if self.table.from_cache else "written"
            out["paraphrase cache"] = f"{self.table.cache_path} ({state})"
        return out


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(ParaphraseMatcher)
