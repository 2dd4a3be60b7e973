"""The ``case`` matcher: words that differ only in letter case (optionally: in case and
inflection), for configurations that keep case.

Lowercasing everything (Meteor's ``-norm``) makes "the"/"The" an exact match, but it
also makes two translations that differ only in casing score the same, and human
judges do penalise casing errors. Keeping case and linking case variants in a stage
of their own gives them a weight below exact's: part of a match instead of all or
nothing. With ``stem: true`` the stage links words whose lowercased Snowball stems
agree (the stem stage's job, for configurations that keep case: Snowball stemmers
expect lowercase input). Turkish and Azerbaijani fold their dotted and dotless i as
those languages write them (:data:`TURKIC_CASE`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from pydantic import BaseModel, ConfigDict, Field

from meteorx.errors import LanguageError
from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.matchers import KeyMatcher, Matcher
from meteorx_plugins.core import MAX_LINKS_PER_WORD, snowball_stemmer

#: Languages whose dotted and dotless i are two letters (İ/i, I/ı): their case folding
#: pairs them so ("İSTANBUL" ~ "istanbul", "IRMAK" ~ "ırmak"). Elsewhere Unicode's
#: default folding applies, which folds "I" to "i" and "İ" to "i̇" (i + U+0307).
TURKIC_CASE = frozenset({"tr", "az"})
_TURKIC_I = str.maketrans({"İ": "i", "I": "ı"})


class CaseOptions(BaseModel):
    """Options of the ``case`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stem: bool = Field(
        False, description="link words whose lowercased Snowball stems agree (not only case)"
    )


class CaseMatcher(KeyMatcher[CaseOptions]):
    """Links different words equal after case folding (or with equal folded stems)."""

    name = "case"
    Options = CaseOptions
    max_links = MAX_LINKS_PER_WORD

    def __init__(self, options: CaseOptions, language: Language) -> None:
        super().__init__(options, language)
        self._turkic = language.code in TURKIC_CASE
        self._stem: Callable[[str], str] | None = None
        if options.stem:
            if language.snowball is None:
                raise LanguageError(
                    f"no Snowball stemmer for {language.name} ({language.code}); "
                    "use the case stage without 'stem: true'"
                )
            self._stem = snowball_stemmer(language.snowball)

    def keys(self, word: str) -> tuple[str]:
        folded = (word.translate(_TURKIC_I) if self._turkic else word).casefold()
        return (self._stem(folded) if self._stem is not None else folded,)

    def single_keys(self, words: list[str]) -> list[Hashable]:
        return [self.keys(w)[0] for w in words]

    def describe(self) -> str:
        options = [name for name, on in (("stem", self._stem), ("turkic-i", self._turkic)) if on]
        return f"{self.name}.v{self.version}" + (f"({','.join(options)})" if options else "")


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(CaseMatcher)
