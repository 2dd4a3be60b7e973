"""The ``paraphrase`` matcher (Meteor 1.5's paraphrase tables).

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

How: the work is done by the compiled twin ``_phrase_lookup`` (``_phrase_lookup.pyx``)
when the engine in use runs compiled code (one state per loaded table, shared by the
scorers of the process): a sentence's phrases are found by the trie walk over the
compiled table's sorted keys (binary search over a word's run of keys; each step (key,
next word) is remembered), a phrase's paraphrases are decoded once from the loaded table
into the hashes of their first two words, and a paraphrase is found in the other
sentence by those hashes, then checked byte by byte against the tokens (no Python
objects per word or paraphrase).

The plain Python below (:meth:`ParaphraseMatcher.python_prepare`,
:meth:`ParaphraseMatcher.python_candidates`) defines the results and runs on the Python
engine; tests check that both give the same lists. It walks a sentence like the
jar's trie (keys of the first words it meets are read from the compiled table once, a
phrase's paraphrases are decoded once) and keeps its tokens, bigrams and phrases. To
find where a paraphrase occurs in the other sentence, it looks up its *key* (the
paraphrase itself if it has one or two words, else its first two words) among that
sentence's tokens and bigrams: phrases none of whose keys occur are skipped in one
C-level pass, the few left are checked word by word. No n-gram sets are built.

This module imports meteorx's matcher interface (:mod:`meteorx.matchers`,
:mod:`meteorx.languages`, :mod:`meteorx.resources`), the engine seam, :mod:`.locate`
and, when a matcher is built, :mod:`.table` (which pulls in ``numpy``); the compiled
twin only through :func:`meteorx.engine.compiled`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import compress, pairwise, repeat
from operator import itemgetter, not_
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from meteorx.engine import compiled, declare
from meteorx.languages import Language
from meteorx.matchers import Matcher
from meteorx.resources import short_checksum
from meteorx_plugins.paraphrase.locate import find_paraphrase_table

if TYPE_CHECKING:
    from meteorx_plugins.paraphrase.table import ParaphraseTable

__all__ = ["NATIVE", "ParaphraseMatcher", "ParaphraseOptions"]

#: The compiled twin of the matcher's per-segment work, and what it does (``meteorx info``).
NATIVE = "meteorx_plugins.paraphrase._phrase_lookup"
PURPOSE = "the paraphrase matcher"
declare(NATIVE, PURPOSE)  # listed by meteorx info before it is first used


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


class ParaphraseMatcher(Matcher[ParaphraseOptions]):
    """Links phrases that a paraphrase table lists as paraphrases (Meteor 1.5's module)."""

    name = "paraphrase"
    Options = ParaphraseOptions

    def __init__(self, options: ParaphraseOptions, language: Language) -> None:
        super().__init__(options, language)
        fast = compiled(NATIVE, purpose=PURPOSE)  # the engine seam picks C or Python
        self.located = find_paraphrase_table(language, options.path)
        # Imported here: the table module pulls in numpy (for compiling tables), which
        # runs that never use a paraphrase stage should not pay for at start-up.
        from meteorx_plugins.paraphrase.table import load_table

        self.table: ParaphraseTable = load_table(self.located.path)
        #: the compiled twin's state, shared by the scorers of the process (None on the
        #: Python engine: the plain Python below runs instead)
        self._native: Any = None if fast is None else self.table.native(fast)
        self._native_lock = self.table.native_lock  # its calls take turns (threads)
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
            with self._native_lock:
                return self._native.prepare(tokens)
        return self.python_prepare(tokens)

    def candidates(self, hyp: Any, ref: Any) -> list[tuple[int, int, int, int]]:
        if self._native is not None:
            with self._native_lock:
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
