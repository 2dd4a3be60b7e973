"""The ``meteor`` and ``meteor-nopunct`` tokenizers: Meteor 1.5's ``-norm`` and
``-norm -noPunct`` preprocessing (Moses-style punctuation splitting with the language's
non-breaking prefixes, then lowercasing), identical to the jar's token for token.

Meteor 1.5 can normalise English, Czech, French, German, Russian and Spanish only; for
other languages these tokenizers raise a :class:`~meteorx.errors.LanguageError` when
the scorer is built (use ``lower``, or a language plugin's tokenizer, instead).
"""

from __future__ import annotations

from collections.abc import Callable

from meteorx.errors import LanguageError
from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.registry import TokenizerFactory


def _factory(keep_punctuation: bool) -> TokenizerFactory:
    def make(language: Language) -> Callable[[str], list[str]]:
        # Imported here: its Unicode-class regexes take ~40 ms to compile, which every
        # run would pay at start-up though most never use this tokenizer.
        from meteorx.tokenizers.meteor_norm import (
            NORM_LANGUAGES,
            normalize_meteor,
            resolve_norm_language,
        )

        try:
            code = resolve_norm_language(language.code)
        except ValueError:
            known = ", ".join(sorted(NORM_LANGUAGES))
            raise LanguageError(
                f"Meteor 1.5's -norm tokenisation exists only for {known}; for "
                f"{language.name} use --norm lower (or a language plugin's tokenizer)"
            ) from None

        def tokenize(line: str) -> list[str]:
            return normalize_meteor(line, code, keep_punctuation)

        tokenize.lowercased = True  # type: ignore[attr-defined]  # the jar lowercases
        return tokenize

    return make


@hookimpl
def meteorx_register_tokenizers(register: Callable[[str, TokenizerFactory], None]) -> None:
    register("meteor", _factory(keep_punctuation=True))
    register("meteor-nopunct", _factory(keep_punctuation=False))
