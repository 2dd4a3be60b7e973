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
    from importlib.resources.abc import Traversable

    from meteorx.matchers import Matcher
    from meteorx.registry import (
        AlignerFactory,
        FunctionWordSource,
        ResourceKind,
        TokenizerFactory,
    )

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

    :param register: ``register(name, cls)``; ``cls`` provides
        :class:`meteorx.align.Aligner`: ``cls.Options`` validates the configuration's
        ``aligner:`` keys other than ``name``, ``cls(options)`` builds the aligner, and
        the class says what the scorer and tuning may rely on (``uses_weights``,
        ``identical_first_stage_only``, ``align_prepared``) and what the signature
        shows (``describe()``).
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


@hookspec
def meteorx_register_resources(register: Callable[[str, ResourceKind], None]) -> None:
    """Register the kinds of data the plugin's stages read that meteorx does not ship.

    :param register: ``register(name, kind)`` with a
        :class:`~meteorx.registry.ResourceKind`: how ``meteorx resources install``
        names such resources and finds one by name (``spec``), which ones ``meteorx
        resources list`` shows (``listed``), and which ones a language's stages read
        with a check of whether they are installed (``needed``, for ``meteorx
        languages``).
    """


@hookspec
def meteorx_register_presets(register: Callable[[Traversable], None]) -> None:
    """Register preset configurations (YAML files, loadable by name).

    :param register: call it with a folder (``importlib.resources.files(...)`` or a
        :class:`~pathlib.Path`): its ``NAME.yaml`` files are presets ``NAME``, and
        those in a subfolder ``SUB`` presets ``SUB/NAME``; or with one ``NAME.yaml``
        file. A preset name registered twice (by any two plugins) is an error.
    """
