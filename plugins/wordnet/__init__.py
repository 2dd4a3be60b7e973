"""First-party plugin `wordnet`: the ``synonym`` matcher (English WordNet 3.0 synsets).

Two tokens are linked when they are *different* strings whose synonym sets intersect.
A token's synonym set is the union of the WordNet synsets (all parts of speech) of the
token itself and of its base forms. How base forms are found is the ``morphology``
option:

``meteor-1.5`` (default)
    Meteor 1.5's own lookup, for parity with the jar: if the token is an inflected
    form in any of WordNet's exception lists (``noun.exc``, ``verb.exc``, ``adj.exc``,
    ``adv.exc``), its bases there; otherwise the *first* result of WordNet's detachment
    rules, tried in the order noun, verb, adjective regardless of part of speech, that
    is a WordNet lemma (tokens ending in "ss" or of at most two characters are not
    reduced).

``morphy``
    WordNet's ``morphy`` done per part of speech: for each POS, the exception list's
    bases if the token is listed, else *every* detachment-rule result that is a lemma
    *of that POS* (with the noun rule for "-ful" compounds); only synsets of that POS
    are taken. Linguistically cleaner (e.g. "waiting" reaches "wait", where the jar
    stops at the surname "waite"), but not what the jar does.

With ``meteor-1.5``, exact + stem + synonym scores agree with the jar (``-lower -m
'exact stem synonym'``) on 99.84% of the 4,978 xray segments within 1e-4; the rest are
the jar's older Snowball stems and one offset collision (below). See
``benchmarks/wordnet_parity.py``.

Tokens are looked up as they are; WordNet's lemmas are lowercase, so lowercase the
text (``normalize: lower``), as with the jar's ``-lower``. Multi-word lemmas
("look_up") and WordNet's collocation handling are not used: tokens are single words.

Synset identity is always (part of speech, offset). Meteor 1.5 keys synsets by offset
alone, so a noun and a verb that happen to start at the same byte offset of their data
files count as one synset (282 such collisions in the jar's data, e.g. "able" ~
"breathe"); read from a WordNet database those accidental links are not reproduced:
they depend on the byte layout of one build of the database (Debian's regenerated files
have different offsets). Read from the jar's own copy, they are.

Resource: the WordNet 3.0 database (``index.{noun,verb,adj,adv}`` and
``{noun,verb,adj,adv}.exc``; the ``data.*`` files are not needed), found in the one
search order of :mod:`~meteorx_plugins.wordnet.locate` (the stage option ``path:``,
``$METEORX_WORDNET``, WordNet's variables, NLTK's data folders, system folders, the
Meteor 1.5 jar that ``pycocoevalcap``, a meteorx dependency, installs). The jar's
``synonym/english.*`` files are WordNet 3.0 as the jar reads it (parts of speech
merged, so with the jar's offset collisions above), which makes the synonym stage work
after installing meteorx alone. With the default ``meteor-1.5`` morphology the
jar's copy comes first (after ``path:`` and $METEORX_WORDNET): the jar's own data, so
the same numbers on every machine and the collisions reproduced too; ``morphy`` never
uses it (it has no parts of speech). It is read and compiled by
:mod:`~meteorx_plugins.wordnet.reader`.

The package: ``locate`` (the one finder), ``index`` (the compact index this matcher
looks words up in), ``reader`` (reading a database into it, cached), ``synsets``
(NLTK's view of the same files, for the ``nltk_compat`` plugin).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from meteorx.errors import LanguageError
from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.matchers import KeyMatcher, Matcher
from meteorx.registry import LanguageResource, ResourceKind
from meteorx.types import Span
from meteorx_plugins.wordnet.locate import (
    FULL_DATABASE_HINT,
    INSTALL_HINT,
    WORDNET_ENV,
    JarOrder,
    WordNetFiles,
    find_wordnet,
    nltk_data_path,
    search_list,
)
from meteorx_plugins.wordnet.reader import (
    DETACHMENT_RULES,
    METEOR15_RULES,
    Morphology,
    WordNet,
    content_checksum,
    load_wordnet,
    synset_id,
)
from meteorx_plugins.wordnet.synsets import WordNetSynonyms, shared_synonyms

__all__ = [
    "DETACHMENT_RULES",
    "FULL_DATABASE_HINT",
    "INSTALL_HINT",
    "METEOR15_RULES",
    "WORDNET_ENV",
    "JarOrder",
    "SynonymMatcher",
    "SynonymOptions",
    "WordNet",
    "WordNetFiles",
    "WordNetSynonyms",
    "content_checksum",
    "find_wordnet",
    "load_wordnet",
    "nltk_data_path",
    "search_list",
    "shared_synonyms",
    "synset_id",
]


class SynonymOptions(BaseModel):
    """Options of the ``synonym`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str | None = Field(
        None,
        description="WordNet 3.0 database folder (index.noun, noun.exc, …) or NLTK's "
        "wordnet.zip; default: $METEORX_WORDNET, NLTK's data folders, /usr/share/wordnet",
    )
    morphology: Morphology = Field(
        "meteor-1.5",
        description="how base forms are found: 'meteor-1.5' (the jar's lookup, for "
        "parity) or 'morphy' (WordNet's morphy per part of speech)",
    )


_EMPTY: frozenset[int] = frozenset()


def _jar_order(morphology: Morphology) -> JarOrder:
    """Meteor 1.5's lookup reads the jar's own WordNet when nothing else is asked for
    (the same numbers as the jar, on every machine); morphy needs parts of speech."""
    return "first" if morphology == "meteor-1.5" else "never"


class SynonymMatcher(KeyMatcher[SynonymOptions]):
    """Links different words that share a WordNet synset (after base-form lookup)."""

    name = "synonym"
    Options = SynonymOptions

    def __init__(self, options: SynonymOptions, language: Language) -> None:
        super().__init__(options, language)
        if language.code != "en":
            raise LanguageError(
                f"the synonym matcher uses the English WordNet and cannot match "
                f"{language.name} ({language.code}); remove the synonym stage"
            )
        self.morphology: Morphology = options.morphology
        self.wordnet = load_wordnet(options.path, jar=_jar_order(options.morphology))
        self._cache: dict[str, frozenset[int]] = {}

    def synonym_set(self, word: str) -> frozenset[int]:
        """The word's synset ids (its own and its base forms'), cached."""
        ids = self._cache.get(word)
        if ids is None:
            if len(self._cache) > 500_000:
                self._cache.clear()
            ids = self.wordnet.synonym_set(word, self.morphology) or _EMPTY
            self._cache[word] = ids
        return ids

    def keys(self, word: str) -> frozenset[int]:
        return self.synonym_set(word)

    # prepare and candidates: faster equivalents of KeyMatcher's

    def matches(self, word1: str, word2: str) -> bool:
        """Whether the matcher links these two words."""
        return word1 != word2 and not self.synonym_set(word1).isdisjoint(self.synonym_set(word2))

    def prepare(
        self, tokens: Sequence[str]
    ) -> tuple[Sequence[str], list[tuple[int, frozenset[int]]]]:
        cache = self._cache
        lookup: Callable[[str], frozenset[int]] = self.synonym_set
        sets = [(i, cache.get(t) or lookup(t)) for i, t in enumerate(tokens)]
        return tokens, [(i, s) for i, s in sets if s]

    def candidates(self, hyp: Any, ref: Any) -> Iterable[Span]:
        hyp_tokens: Sequence[str] = hyp[0]
        ref_tokens: Sequence[str] = ref[0]
        hyp_sets: list[tuple[int, frozenset[int]]] = hyp[1]
        if not hyp_sets:
            return
        for j, ref_set in ref[1]:
            token = ref_tokens[j]
            for i, hyp_set in hyp_sets:
                if not ref_set.isdisjoint(hyp_set) and hyp_tokens[i] != token:
                    yield Span(i, 1, j, 1)

    def describe(self) -> str:
        return f"{self.name}.v{self.version}({self.wordnet.describe()}/{self.morphology})"

    def resources(self) -> dict[str, str]:
        out = {"wordnet": str(self.wordnet.location) if self.wordnet.location else "?"}
        if self.wordnet.cache_file is not None:
            state = "loaded" if self.wordnet.from_cache else "written"
            out["wordnet cache"] = f"{self.wordnet.cache_file} ({state})"
        return out


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(SynonymMatcher)


def _language_resources(language: Language) -> list[LanguageResource]:
    """English's ``synonym`` stage reads WordNet (``meteorx resources`` does not
    install it: see the search order above): the copy a default stage would read."""
    if language.code != "en":
        return []
    jar = _jar_order(SynonymOptions().morphology)
    return [LanguageResource("synonym", lambda: find_wordnet(jar=jar).origin)]


@hookimpl
def meteorx_register_resources(register: Callable[[str, ResourceKind], None]) -> None:
    register("wordnet", ResourceKind(needed=_language_resources))
