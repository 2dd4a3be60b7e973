"""The matcher interface: how a stage proposes candidate links.

A matcher never decides the alignment; it only *proposes* spans, and the aligner
resolves conflicts between all stages at once (as Meteor 1.5 does). Matchers are
built once per scorer (resources loaded then) and are called per segment, so
``prepare`` should be cheap and cacheable: the scorer caches the prepared form of
each reference and reuses it for every hypothesis scored against it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from meteorx.languages import Language
from meteorx.types import Span

#: What ``candidates`` yields: a :class:`Span` or a plain tuple in the same order
#: ``(hyp_start, hyp_len, ref_start, ref_len)`` (cheaper to build in hot loops).
SpanLike = Span | tuple[int, int, int, int]


class NoOptions(BaseModel):
    """Options model of a matcher that takes none (any key is an error)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Matcher(ABC):
    """Base class of every matcher plugin.

    Subclasses set ``name`` (what configs write in ``matcher:``), ``version`` (part of
    the signature) and, if they take options, an ``Options`` pydantic model with
    ``extra="forbid"``.
    """

    name: ClassVar[str]
    version: ClassVar[str] = "1"
    Options: ClassVar[type[BaseModel]] = NoOptions
    #: Meteor 1.5 treats its exact stage specially (identical sentences use it alone;
    #: its search weight is 1.0, every other stage's 0.5). Only ``exact`` sets this.
    is_exact: ClassVar[bool] = False

    def __init__(self, options: BaseModel, language: Language) -> None:
        self.options = options
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
