"""The matcher interface: how a stage proposes candidate links.

A matcher never decides the alignment; it only *proposes* spans, and the aligner
resolves conflicts between all stages at once (as Meteor 1.5 does). Matchers are
built once per scorer (resources loaded then) and are called per segment, so
``prepare`` should be cheap and cacheable: the scorer caches the prepared form of
each reference and reuses it for every hypothesis scored against it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect_left
from collections.abc import Collection, Hashable, Iterable, Sequence
from typing import Any, ClassVar, Generic

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypeVar  # a TypeVar default (PEP 696) before Python 3.13

from meteorx.languages import Language
from meteorx.types import Span

#: What ``candidates`` yields: a :class:`Span` or a plain tuple in the same order
#: ``(hyp_start, hyp_len, ref_start, ref_len)`` (cheaper to build in hot loops).
SpanLike = Span | tuple[int, int, int, int]


def span_problem(span: object, hyp_len: int, ref_len: int) -> str | None:
    """What is wrong with a span a matcher yielded, or None if nothing is.

    A span is a tuple (or list) of four ints, not bools, ``(hyp_start, hyp_len,
    ref_start, ref_len)``: both lengths at least 1, both ranges inside their sentence.
    Spans end up indexing C arrays, so the scorer checks every span a matcher yields
    against this rule (the compiled pass, ``meteorx._links_and_counts.key_candidates``,
    applies the same rule in C).
    """
    if not isinstance(span, (tuple, list)) or len(span) != 4:
        return "is not a 4-tuple (hyp_start, hyp_len, ref_start, ref_len)"
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in span):
        return "has a value that is not an int"
    hyp_start, length, ref_start, ref_length = span
    if hyp_start < 0 or ref_start < 0:
        return "has a negative start"
    if length < 1 or ref_length < 1:
        return "has a length below 1"
    if hyp_start + length > hyp_len:
        return f"runs past the hypothesis's {hyp_len} words"
    if ref_start + ref_length > ref_len:
        return f"runs past the reference's {ref_len} words"
    return None


def first_bad_span(spans: list[Any], hyp_len: int, ref_len: int) -> tuple[Any, str] | None:
    """The first span of ``spans`` that :func:`span_problem` rejects, with the reason."""
    try:  # the common case in one cheap pass; anything odd is looked at span by span
        for hs, hl, rs, rl in spans:
            if not (
                type(hs) is int
                and type(hl) is int
                and type(rs) is int
                and type(rl) is int
                and 0 <= hs < hs + hl <= hyp_len  # (hl >= 1)
                and 0 <= rs < rs + rl <= ref_len
            ):
                break
        else:
            return None
    except (TypeError, ValueError):  # not iterable, or not four items
        pass
    for span in spans:
        problem = span_problem(span, hyp_len, ref_len)
        if problem is not None:
            return span, problem
    return None


class NoOptions(BaseModel):
    """Options model of a matcher that takes none (any key is an error)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


#: A matcher's options model: ``Matcher[StemOptions]`` types ``self.options``, so a
#: subclass need not re-check what the registry validated with ``Options``.
OptionsT = TypeVar("OptionsT", bound=BaseModel, covariant=True, default=BaseModel)


class Matcher(ABC, Generic[OptionsT]):
    """Base class of every matcher plugin.

    Subclasses set ``name`` (what configs write in ``matcher:``), ``version`` (part of
    the signature; "1" unless set) and, if they take options, an ``Options`` pydantic
    model with ``extra="forbid"`` (and subclass ``Matcher[ThatModel]``).
    """

    name: ClassVar[str]
    version: ClassVar[str] = "1"
    Options: ClassVar[type[BaseModel]] = NoOptions
    #: Meteor 1.5 treats its exact stage specially (identical sentences use it alone;
    #: its search weight is 1.0, every other stage's 0.5). Only ``exact`` sets this.
    is_exact: ClassVar[bool] = False

    def __init__(self, options: OptionsT, language: Language) -> None:
        self.options: OptionsT = options
        self.language = language

    def prepare(self, tokens: Sequence[str]) -> Any:
        """Per-sentence features (stems, lemmas…); by default the tokens themselves."""
        return tokens

    @abstractmethod
    def candidates(self, hyp: Any, ref: Any) -> Iterable[SpanLike]:
        """Propose links between a prepared hypothesis and a prepared reference.

        Yield spans grouped by reference position (ascending) and, within one
        reference position, by hypothesis position (ascending): Meteor 1.5's search
        breaks ties by that order.
        """

    def describe(self) -> str:
        """Short text for the signature: name, version and any resource identity."""
        return f"{self.name}.v{self.version}"

    def resources(self) -> dict[str, str]:
        """Resources this matcher loaded: name -> where it came from (for listings)."""
        return {}


class KeyMatcher(Matcher[OptionsT]):
    """A matcher that links single words by *keys*: stems, lemmas, synset ids…

    Two words link when their key sets intersect (and, unless ``link_identical``, when
    they are different words: identical words are the exact stage's job). Declaring a
    matcher this way, instead of writing ``candidates``, lets the scorer compute each
    word's keys once per run and find the links of every key stage of a segment in one
    compiled pass (``meteorx._links_and_counts``); :meth:`prepare` and
    :meth:`candidates` below are the plain-Python definition that pass must reproduce.
    """

    #: Whether a word may link to an identical word in this stage.
    link_identical: bool = False
    #: A word links to at most this many words on the other side, the nearest ones
    #: (0: no limit). Keeps pathological inputs (hundreds of repeats) linear.
    max_links: int = 0

    @abstractmethod
    def keys(self, word: str) -> Collection[Hashable]:
        """The word's keys (empty: the word links to nothing in this stage)."""

    def single_keys(self, words: list[str]) -> list[Hashable] | None:
        """Each word's one key, ``[k for (k,) in map(self.keys, words)]``, for matchers
        whose every word has exactly one key (exact, stem), or None. The scorer asks
        for new words in batches; one call per batch saves a Python call per word."""
        return None

    def prepare(self, tokens: Sequence[str]) -> Any:
        index: dict[Hashable, list[int]] = {}
        word_keys = []
        for i, token in enumerate(tokens):
            keys = self.keys(token)
            word_keys.append(keys)
            for key in keys:
                positions = index.setdefault(key, [])
                if not positions or positions[-1] != i:
                    positions.append(i)
        return tokens, word_keys, index

    def candidates(self, hyp: Any, ref: Any) -> Iterable[SpanLike]:
        hyp_tokens, _, hyp_index = hyp
        ref_tokens, ref_keys, _ = ref
        limit = self.max_links
        skip_identical = not self.link_identical
        for j, keys in enumerate(ref_keys):
            found: set[int] = set()
            for key in keys:
                found.update(hyp_index.get(key, ()))
            if not found:
                continue
            positions = sorted(found)
            if limit and len(positions) > limit:
                positions = nearest(positions, j, limit)
            token = ref_tokens[j]
            for i in positions:
                if not (skip_identical and hyp_tokens[i] == token):
                    yield (i, 1, j, 1)


class SingleKeyMatcher(KeyMatcher[OptionsT]):
    """A :class:`KeyMatcher` whose every word has exactly one key (exact, stem,
    lemma). Subclasses write :meth:`key` alone; :meth:`prepare` and :meth:`candidates`
    are KeyMatcher's specialised to one key (what the pure-Python engine runs), and
    the compiled pass reads the keys of a batch of new words in one call."""

    @abstractmethod
    def key(self, word: str) -> Hashable:
        """The word's one key."""

    def keys(self, word: str) -> tuple[Hashable]:
        return (self.key(word),)

    def single_keys(self, words: list[str]) -> list[Hashable]:
        return list(map(self.key, words))

    def prepare(self, tokens: Sequence[str]) -> Any:
        keys = self.single_keys(list(tokens))
        index: dict[Hashable, list[int]] = {}
        for i, key in enumerate(keys):
            index.setdefault(key, []).append(i)
        return tokens, keys, index

    def candidates(self, hyp: Any, ref: Any) -> Iterable[SpanLike]:
        hyp_tokens, _, hyp_index = hyp
        ref_tokens, ref_keys, _ = ref
        limit = self.max_links
        skip_identical = not self.link_identical
        for j, key in enumerate(ref_keys):
            positions = hyp_index.get(key)
            if positions:
                if limit and len(positions) > limit:
                    positions = nearest(positions, j, limit)
                token = ref_tokens[j]
                for i in positions:
                    if not (skip_identical and hyp_tokens[i] == token):
                        yield (i, 1, j, 1)  # a Span; plain tuples are cheaper to build


def nearest(positions: list[int], j: int, limit: int) -> list[int]:
    """The ``limit`` of ``positions`` (ascending) nearest to ``j``: a word links to
    at most ``limit`` occurrences on the other side (see ``KeyMatcher.max_links``)."""
    k = bisect_left(positions, j)
    lo = max(0, min(k - limit // 2, len(positions) - limit))
    return positions[lo : lo + limit]
