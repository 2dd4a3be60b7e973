"""A matcher in a file, used without packaging it: ``--plugin examples/prefix_matcher.py``.

The ``prefix`` stage links different words that share their first ``length``
characters (default 5): organisation/organization, quickly/quick. A crude stand-in for
a stemmer, in any language. It is a :class:`~meteorx.matchers.KeyMatcher`: it gives
each word its keys, and the scorer links the words whose keys meet.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.matchers import KeyMatcher, Matcher


class PrefixOptions(BaseModel):
    """The stage's options (any other key in the configuration is an error)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    length: int = Field(5, ge=1, le=100, description="how many leading characters must agree")


class PrefixMatcher(KeyMatcher):
    """Different words with the same first ``length`` characters."""

    name = "prefix"  # what configurations write: stages: - matcher: prefix
    version = "1"  # part of the signature: change it when the results change
    Options = PrefixOptions
    max_links = 48  # a word links to at most this many words (the nearest ones)

    def __init__(self, options: BaseModel, language: Language) -> None:
        super().__init__(options, language)
        assert isinstance(options, PrefixOptions)
        self.length = options.length

    def keys(self, word: str) -> tuple[str, ...]:
        return (word[: self.length],) if len(word) >= self.length else ()

    def describe(self) -> str:
        return f"{self.name}.v{self.version}(len={self.length})"


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(PrefixMatcher)
