"""The ``meteor`` and ``meteor-nopunct`` tokenizers: Meteor 1.5's ``-norm`` and
``-norm -noPunct`` preprocessing (Moses-style punctuation splitting with the language's
non-breaking prefixes, then lowercasing), identical to the jar's token for token.

Meteor 1.5 can normalise English, Czech, French, German, Russian and Spanish only; for
other languages these tokenizers raise a :class:`~meteorx.errors.LanguageError` when
the scorer is built (use ``lower``, or a language plugin's tokenizer, instead).

The plugin's modules: ``tokenizer`` is the definition in plain Python (``tokens``,
standard library only); ``_norm_tokenizer`` (built from ``_norm_tokenizer.pyx``) is its
compiled twin, reached only through :func:`meteorx.engine.compiled` when a tokenizer is
built; ``languages`` holds the languages the jar normalises and their rules
(apostrophes, non-breaking prefixes), the arguments of ``tokens``. This module imports
meteorx's plugin interface (hooks, errors, languages, the engine seam) and, when a
tokenizer is built, ``languages`` and ``tokenizer``.
"""

from __future__ import annotations

from collections.abc import Callable

from meteorx.engine import compiled, declare
from meteorx.errors import LanguageError
from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.registry import TokenizerFactory

__all__ = ["norm_tokenizer"]

#: The compiled twin of :func:`tokenizer.tokens`, and what it does for ``meteorx info``.
NATIVE = "meteorx_plugins.meteor_norm._norm_tokenizer"
PURPOSE = "Meteor's -norm tokenizer"
declare(NATIVE, PURPOSE)  # listed by meteorx info before it is first used


def norm_tokenizer(
    language: str = "en", keep_punctuation: bool = True
) -> Callable[[str], list[str]]:
    """Meteor 1.5's ``-norm`` (``-norm -noPunct`` without ``keep_punctuation``) for
    ``language`` (ISO code or the jar's name), as a function of one line.

    It runs the compiled twin when the engine in use runs compiled code (chosen here,
    once), else the plain Python; both give :func:`tokenizer.normalize_meteor`'s tokens.
    Raises ``ValueError`` for languages the jar cannot normalise.
    """
    # Imported here: the tokenizer's Unicode-class regexes take ~40 ms to compile, which every run
    # would pay at start-up though most never use this tokenizer.
    from meteorx_plugins.meteor_norm.languages import language_rules
    from meteorx_plugins.meteor_norm.tokenizer import tokens

    apostrophes, prefixes = language_rules(language)

    def python(line: str) -> list[str]:
        words: list[str] = tokens(line, apostrophes, prefixes, keep_punctuation)
        return words

    fast = compiled(NATIVE, purpose=PURPOSE)
    if fast is None:
        return python
    fast_tokens = fast.tokens

    def tokenize(line: str) -> list[str]:
        # None only for a line that is not exactly a str (the Python handles those)
        found: list[str] | None = fast_tokens(line, apostrophes, prefixes, keep_punctuation)
        return found if found is not None else python(line)

    return tokenize


def _factory(keep_punctuation: bool) -> TokenizerFactory:
    def make(language: Language) -> Callable[[str], list[str]]:
        try:
            tokenize = norm_tokenizer(language.code, keep_punctuation)
        except ValueError:
            from meteorx_plugins.meteor_norm.languages import NORM_LANGUAGES

            known = ", ".join(sorted(NORM_LANGUAGES))
            raise LanguageError(
                f"Meteor 1.5's -norm tokenisation exists only for {known}; for "
                f"{language.name} use --norm lower (or a language plugin's tokenizer)"
            ) from None
        tokenize.lowercased = True  # type: ignore[attr-defined]  # the jar lowercases
        return tokenize

    return make


@hookimpl
def meteorx_register_tokenizers(register: Callable[[str, TokenizerFactory], None]) -> None:
    register("meteor", _factory(keep_punctuation=True))
    register("meteor-nopunct", _factory(keep_punctuation=False))
