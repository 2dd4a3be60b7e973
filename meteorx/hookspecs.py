"""Hook specifications: what a meteorx plugin can provide.

Every hook is a *register* hook, called once when its plugin is loaded (never per
segment). Meteorx passes a ``register`` callable and the plugin calls it with each
thing it provides. Built-in features use these same hooks (see ``plugins/core.py``; what
each built-in plugin registers is declared in :mod:`meteorx.builtin_plugins`, so that it
is imported only when used).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pluggy

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from meteorx.align import Aligner
    from meteorx.languages import Language
    from meteorx.matchers import Matcher

hookspec = pluggy.HookspecMarker("meteorx")
hookimpl = pluggy.HookimplMarker("meteorx")

# -- what plugins register (the registry collects it) ----------------------------------

#: What a plugin registers as an aligner: its class (see :class:`meteorx.align.Aligner`).
AlignerFactory = type["Aligner"]
Tokenizer = Callable[[str], list[str]]
TokenizerFactory = Callable[["Language"], Tokenizer]
FunctionWordSource = Callable[["Language"], tuple[frozenset[str], str]]


class Installable(Protocol):
    """One resource ``meteorx resources install NAME`` can place in the user cache."""

    @property
    def name(self) -> str: ...  # omw-por
    @property
    def filename(self) -> str: ...  # the file installed: wn-data-por.tab
    @property
    def url(self) -> str: ...  # its official download address ("" if none)
    @property
    def sha256(self) -> str | None: ...  # the pinned checksum, if any
    @property
    def description(self) -> str: ...
    def check(self, path: Path) -> str | None:
        """``None`` if ``path`` is this resource's file, else a short reason why not."""
        ...


@dataclass(frozen=True)
class LanguageResource:
    """A resource one stage reads for one language, as ``meteorx languages`` shows it."""

    stage: str  # the stage (matcher) that reads it: synonym-omw
    locate: Callable[[], str]  # how it was found here; raises MeteorxError when missing
    install: str | None = None  # its name for ``meteorx resources install``, if it has one


def _no_spec(name: str) -> Installable | None:
    return None


def _none_listed() -> tuple[Installable, ...]:
    return ()


def _none_needed(language: Language) -> tuple[LanguageResource, ...]:
    return ()


@dataclass(frozen=True)
class ResourceKind:
    """A kind of data some stages read and meteorx does not ship (a wordnet, a
    paraphrase table): what ``meteorx resources`` and ``meteorx languages`` know of it.
    """

    #: How ``meteorx resources install`` names its resources, for help texts
    #: (``"omw-<code> for any omw-data wordnet"``); ``None`` if it installs none.
    names: str | None = None
    #: The installable resource called ``name``, or ``None`` if it is not of this kind.
    spec: Callable[[str], Installable | None] = _no_spec
    #: Those ``meteorx resources list`` shows, installed or not.
    listed: Callable[[], Iterable[Installable]] = _none_listed
    #: Those a language's stages read (the check is ``locate``, run on demand).
    needed: Callable[[Language], Iterable[LanguageResource]] = _none_needed


@dataclass(frozen=True)
class LanguageDefault:
    """A language's recommended configuration: what ``meteorx score --lang L`` (and
    ``meteorx.score(..., language=L)``) scores with when no preset or configuration is
    named."""

    #: A preset name (``meteorx``, ``meteor-1.5-en``, one the plugin registers), or a
    #: configuration as a dict (``{"extends": "meteorx", "stages": [...]}``). It is
    #: loaded for the language, as ``--preset NAME --lang L`` would be.
    config: str | Mapping[str, Any]
    #: The normalisation it is scored with unless one is asked for (``--norm``), as a
    #: ``normalize:`` shorthand (``meteor``); ``None`` keeps the configuration's.
    normalize: str | None = None


# -- the hooks ---------------------------------------------------------------------


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


@hookspec
def meteorx_register_language_defaults(register: Callable[[str, LanguageDefault], None]) -> None:
    """Register the recommended configuration of languages (``--lang L`` alone).

    :param register: ``register(language, default)``; ``language`` is an ISO 639-1
        code as :func:`meteorx.languages.resolve_language` returns it (``ko``, not
        ``ko-KR`` or ``Korean``), or ``"*"`` for every language no plugin names;
        ``default`` a :class:`LanguageDefault`. A language registered twice (by any two
        plugins) is an error: meteorx's own ``core`` plugin registers ``en`` and ``*``.
    """
