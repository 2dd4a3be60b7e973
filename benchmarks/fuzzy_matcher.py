"""The ``fuzzy`` matcher the agreement harness measured: near-miss words linked by
character similarity. It did not pay on held-out human judgments (see
benchmarks/results/human_agreement.md), so no plugin registers it; the harness adds
it to its own registry.

Stems link only the inflections a Snowball stemmer knows. Many near misses are not
among them: compounds and their parts, spelling variants, transliterated names,
typos, inflections of irregular or foreign words. chrF gives them partial credit
through shared character n-grams; this stage does the same inside METEOR's word
alignment. Two different words link when their normalised similarity reaches
``threshold``; :meth:`FuzzyMatcher.similarity` gives the link's strength (in (0, 1]),
by which a scorer may weight the link's contribution to precision and recall.

The similarity measures come from RapidFuzz (``pip install rapidfuzz``):

* ``indel`` (default): ``1 − indel distance / (len a + len b)``, i.e. twice the
  longest common subsequence over the total length;
* ``levenshtein``: ``1 − Levenshtein distance / max(len a, len b)``;
* ``prefix``: the length of the common prefix over the longer word's length (a cheap
  stand-in for a stemmer in any language).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from meteorx.errors import ResourceError
from meteorx.languages import Language
from meteorx.matchers import Matcher, SpanLike


class FuzzyOptions(BaseModel):
    """Options of the ``fuzzy`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: float = Field(
        0.7, gt=0.0, le=1.0, description="least similarity (0-1] for two words to link"
    )
    measure: Literal["indel", "levenshtein", "prefix"] = Field(
        "indel", description="character similarity: indel, levenshtein or prefix"
    )
    ignore_case: bool = Field(
        False, description="compare case-folded words (and leave words equal after "
        "folding to the case stage)"
    )  # fmt: skip
    min_length: int = Field(
        4, ge=1, description="both words need at least this many characters (short "
        "words are mostly function words, whose near misses are different words)"
    )  # fmt: skip


def _prefix(a: str, b: str, **_: Any) -> float:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    longest = max(len(a), len(b))
    return n / longest if longest else 0.0


def _measure(name: str) -> Callable[..., float]:
    if name == "prefix":
        return _prefix
    try:
        from rapidfuzz.distance import (  # type: ignore[import-not-found,unused-ignore]
            Indel,
            Levenshtein,
        )
    except ImportError:
        raise ResourceError(
            "matcher 'fuzzy' needs the rapidfuzz package: pip install rapidfuzz"
        ) from None
    function: Callable[..., float] = (
        Indel.normalized_similarity if name == "indel" else Levenshtein.normalized_similarity
    )
    return function


class FuzzyMatcher(Matcher):
    """Links different words whose character similarity reaches a threshold."""

    name = "fuzzy"
    version = "1"
    Options = FuzzyOptions

    def __init__(self, options: BaseModel, language: Language) -> None:
        super().__init__(options, language)
        assert isinstance(options, FuzzyOptions)
        self.threshold = options.threshold
        self.measure = options.measure
        self.min_length = options.min_length
        self.ignore_case = options.ignore_case
        self._similarity = _measure(options.measure)
        self._cdist: Callable[..., Any] | None = None
        if options.measure != "prefix":
            from rapidfuzz.process import cdist  # type: ignore[import-not-found,unused-ignore]

            self._cdist = cdist

    def similarity(self, a: str, b: str) -> float:
        """How alike two words are, in [0, 1] (1: identical)."""
        if self.ignore_case:
            a, b = a.casefold(), b.casefold()
        return float(self._similarity(a, b))

    def prepare(self, tokens: Sequence[str]) -> tuple[Sequence[str], list[int]]:
        """The tokens (case-folded with ``ignore_case``), and the positions of those
        long enough to link."""
        if self.ignore_case:
            tokens = [t.casefold() for t in tokens]
        return tokens, [i for i, t in enumerate(tokens) if len(t) >= self.min_length]

    def candidates(self, hyp: Any, ref: Any) -> Iterable[SpanLike]:
        hyp_tokens, hyp_long = hyp
        ref_tokens, ref_long = ref
        if not hyp_long or not ref_long:
            return
        if self._cdist is not None:
            # One C call for the whole similarity matrix (rows: reference words).
            matrix = self._cdist(
                [ref_tokens[j] for j in ref_long],
                [hyp_tokens[i] for i in hyp_long],
                scorer=self._similarity,
                score_cutoff=self.threshold,
            )
            for row, j in enumerate(ref_long):
                token = ref_tokens[j]
                for col in matrix[row].nonzero()[0]:
                    i = hyp_long[col]
                    if hyp_tokens[i] != token:
                        yield (i, 1, j, 1)
            return
        for j in ref_long:
            token = ref_tokens[j]
            for i in hyp_long:
                other = hyp_tokens[i]
                if other != token and self._similarity(other, token) >= self.threshold:
                    yield (i, 1, j, 1)

    def describe(self) -> str:
        case = ",nocase" if self.ignore_case else ""
        return (
            f"{self.name}.v{self.version}({self.measure}>={self.threshold:g},"
            f"len>={self.min_length}{case})"
        )
