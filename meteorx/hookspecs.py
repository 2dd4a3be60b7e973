"""Hook specifications: what a meteorx plugin can provide.

Every hook is a *register* hook, called once when the plugin registry is built (never
per segment). Meteorx passes a ``register`` callable and the plugin calls it with each
thing it provides. Built-in features use these same hooks (see ``plugins/core.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from meteorx.matchers import Matcher
    from meteorx.registry import AlignerFactory, FunctionWordSource, TokenizerFactory

hookspec = pluggy.HookspecMarker("meteorx")
hookimpl = pluggy.HookimplMarker("meteorx")


@hookspec
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    """Register matcher classes (subclasses of :class:`meteorx.matchers.Matcher`).

    :param register: call it once per matcher class; the class's ``name`` is what
        configurations write in ``stages: - matcher: NAME``. A name registered twice
        (by any two plugins) is an error.
    """


@hookspec
def meteorx_register_aligners(register: Callable[[str, AlignerFactory], None]) -> None:
    """Register alignment searches by name.

    :param register: ``register(name, factory)``; ``factory(config)`` receives the
        validated :class:`~meteorx.config.AlignerConfig` and returns an object with
        ``align(candidates, hyp_len, ref_len, weights) -> Alignment``.
    """


@hookspec
def meteorx_register_tokenizers(register: Callable[[str, TokenizerFactory], None]) -> None:
    """Register tokenizers by name.

    :param register: ``register(name, factory)``; ``factory(language)`` returns a
        callable ``str -> list[str]`` that splits one line into tokens (lowercasing and
        punctuation removal are applied by meteorx afterwards, from the config). A
        tokenizer whose tokens are lower-case already (as Meteor's ``-norm`` is) may say
        so with an attribute ``lowercased = True`` on the callable; meteorx then does not
        lowercase them a second time. A tokenizer that splits differently per language
        says how it split this one with an attribute ``description`` (e.g.
        ``"characters"`` for a language written without spaces); the signature shows it
        as ``tok:DESCRIPTION``.
    """


@hookspec
def meteorx_register_function_words(
    register: Callable[[str, FunctionWordSource], None],
) -> None:
    """Register function-word list sources by name.

    :param register: ``register(name, source)``; ``source(language)`` returns a
        ``(words, description)`` pair, or raises :class:`~meteorx.errors.ResourceError`
        when it has no list for that language.
    """
