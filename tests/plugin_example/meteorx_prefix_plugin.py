"""An example third-party meteorx plugin: the ``prefix`` matcher.

Links *different* words that share their first ``length`` characters (default 5), a
crude but language-independent stand-in for a stemmer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.matchers import Matcher
from meteorx.types import Span


class PrefixOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    length: int = Field(5, ge=1, description="how many leading characters must agree")


class PrefixMatcher(Matcher[PrefixOptions]):
    """Different words with the same first ``length`` characters."""

    name = "prefix"
    version = "2"
    Options = PrefixOptions

    def __init__(self, options: PrefixOptions, language: Language) -> None:
        super().__init__(options, language)  # (self.options: PrefixOptions)
        self.length = options.length

    def prepare(self, tokens: Sequence[str]) -> Any:
        keys: dict[str, list[int]] = {}
        for i, token in enumerate(tokens):
            if len(token) >= self.length:
                keys.setdefault(token[: self.length], []).append(i)
        return tokens, keys

    def candidates(self, hyp: Any, ref: Any) -> Iterable[Span]:
        hyp_tokens, hyp_keys = hyp
        ref_tokens, _ = ref
        for j, token in enumerate(ref_tokens):
            for i in hyp_keys.get(token[: self.length], ()):
                if len(token) >= self.length and hyp_tokens[i] != token:
                    yield Span(i, 1, j, 1)

    def describe(self) -> str:
        return f"{self.name}.v{self.version}(len={self.length})"


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(PrefixMatcher)
