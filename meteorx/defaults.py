"""The recommended configuration for each language: one table, every entry point.

``meteorx score --lang L``, ``meteorx.score(..., language=L)``, ``Scorer(language=L)``,
``meteorx.compute(..., language=L)`` and Spark all go through :func:`configure` (by way
of :func:`meteorx.api.build_scorer`, the front door that turns its result into a scorer).
With no preset or configuration named, it scores with the language's default: a table
the plugins fill (``meteorx_register_language_defaults``; a language's own entry, else
the one for every language, ``*``). meteorx's ``core`` plugin registers:

* **English** (and no language at all): ``meteor-1.5-en`` with the jar's ``-norm``
  tokenisation (``normalize: meteor``), what Meteor 1.5's README recommends for raw MT
  output.
* **Every other language** (``*``): the ``meteorx`` preset resolved for that language
  (:func:`meteorx_settings`), which needs no downloaded resource, so it runs offline
  and gives the same numbers on every machine. ``--preset meteorx --lang L`` is the
  same thing, English included.

A plugin may add a language (a Korean matcher can make ``--lang ko`` use it); taking
``en`` or ``*`` is an error, as any name another plugin has.

The ``meteorx`` preset (``configs/meteorx.yaml``) is one language-independent METEOR,
tuned jointly on every development set with human judgments and chosen on held-out
agreement (its header gives the figures): case-kept tokens split at punctuation
(characters for zh ja th lo km my bo dz), stages exact, case and case-stem (the last
only where Snowball has the language), precision and recall over characters, soft
credit for near misses.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from meteorx.config_loading import load_config, validate_config
from meteorx.config_models import MeteorConfig, NormalizeConfig, Overrides

if TYPE_CHECKING:
    from typing_extensions import Unpack
from meteorx.errors import ConfigError, LanguageError, PluginError
from meteorx.hookspecs import LanguageDefault
from meteorx.languages import Language, resolve_language

__all__ = [
    "PER_LANGUAGE_PRESET",
    "WIDTH_FOLDED",
    "configure",
    "default_name",
    "for_language",
    "language_default",
    "looks_english",
    "meteorx_settings",
]

#: The preset resolved per language.
PER_LANGUAGE_PRESET = "meteorx"
#: Languages whose text mixes full-width and half-width forms of the same letters and
#: digits (ｶﾀｶﾅ and カタカナ, １２ and 12): the ``meteorx`` preset reads them in Unicode
#: NFKC, which folds the two. Not the other scripts tokenised by character: for Thai
#: and Lao NFKC would split a vowel (SARA AM) in two instead.
WIDTH_FOLDED = frozenset({"ja", "zh"})


def language_default(language: Language) -> tuple[LanguageDefault, str]:
    """The configuration recommended for a language, and the plugin that registered it
    (``meteorx_register_language_defaults``)."""
    from meteorx.registry import get_registry

    return get_registry().language_default(language)


def default_name(default: LanguageDefault, plugin: str) -> str:
    """How listings name a default: its preset (``meteor-1.5-en --norm meteor``), or the
    name of its configuration dict, else the plugin that registered it."""
    config = default.config
    name = config if isinstance(config, str) else config.get("name")
    text = name if isinstance(name, str) else f"{plugin}'s default"
    return text + (f" --norm {default.normalize}" if default.normalize else "")


def meteorx_settings(language: Language) -> dict[str, Any]:
    """The ``meteorx`` preset for ``language``, as a configuration dict: the file's
    configuration, without its case-stem stage where Snowball has no stemmer, and
    without function words where no installed list has the language's."""
    data = _inherited_for(copy.deepcopy(_preset_file()), language)
    data.update(name=PER_LANGUAGE_PRESET, language=language.code)
    return data


def for_language(data: dict[str, Any], presets: list[str], language: str | None) -> dict[str, Any]:
    """The settings of a configuration whose ``extends`` chain holds ``presets``, with
    what it inherits from the ``meteorx`` preset resolved for ``language`` (default: its
    own ``language:``), as for ``--preset meteorx --lang L``: a file that extends
    ``meteorx`` scores Chinese as the preset does. Other settings are returned as given."""
    code = language if language is not None else data.get("language")
    if PER_LANGUAGE_PRESET not in presets or not isinstance(code, str):
        return data
    return _inherited_for(data, resolve_language(code))


def _inherited_for(data: dict[str, Any], language: Language) -> dict[str, Any]:
    """``data`` without the ``meteorx`` preset's case-stem stage where Snowball lacks
    ``language``, with no function words where no installed list has its own, and read
    in NFKC for :data:`WIDTH_FOLDED` languages. Only the preset's own stage, list and
    normalisation are resolved so: a stage or list a configuration writes differently
    is kept, and is an error if the language cannot have it."""
    preset = _preset_file()
    stages = data.get("stages")
    if language.snowball is None and isinstance(stages, (list, tuple)):
        data["stages"] = [
            stage
            for stage in stages
            if not (isinstance(stage, dict) and stage.get("stem") and stage in preset["stages"])
        ]
    words = data.get("function_words")
    if words == preset["function_words"] and not _has_function_words(words, language):
        data["function_words"] = "none"
    if language.code in WIDTH_FOLDED and _normalization(data) == _normalization(preset):
        data["normalize"] = {**preset["normalize"], "unicode": "nfkc"}
    return data


def _normalization(data: dict[str, Any]) -> NormalizeConfig | None:
    """The ``normalize`` setting of raw settings as the model reads it (a file may write
    it as a shorthand or leave out its defaults), or None if it is invalid."""
    try:
        return NormalizeConfig.model_validate(data.get("normalize", {}))
    except ValidationError:
        return None


@cache
def _preset_file() -> dict[str, Any]:
    """``configs/meteorx.yaml`` as a dict, read once per process (every language's
    preset starts from it: ``meteorx languages`` resolves 184 of them)."""
    return load_config(PER_LANGUAGE_PRESET).model_dump(mode="json", exclude_none=True)


def _has_function_words(source: str, language: Language) -> bool:
    from meteorx.errors import ResourceError
    from meteorx.registry import get_registry

    provider = get_registry().function_word_source(source)
    if provider is None:
        return True  # a file path: loading it reports any problem
    try:
        provider(language)
    except ResourceError:
        return False
    return True


def configure(
    config: str | Path | MeteorConfig | dict[str, Any] | None = None,
    *,
    hint: str = "pass language= (e.g. language='pt')",
    **overrides: Unpack[Overrides],
) -> MeteorConfig:
    """The configuration every entry point scores with: the one place overrides apply.

    ``config=None`` picks the language's recommended configuration (English when
    ``language`` is ``None`` too); ``config="meteorx"`` is the per-language preset;
    anything else is loaded as given. The :class:`~meteorx.config_models.Overrides`
    (``language``, ``normalize`` and the parameters ``alpha`` .. ``delta``) then
    replace the configuration's own (``None`` keeps it). ``hint`` says how the caller
    names a language, for the error raised when the result names none (``--lang`` on
    the command line, ``language=`` in Python).
    """
    unknown = sorted(overrides.keys() - Overrides.__annotations__.keys())
    if unknown:
        raise TypeError(f"unexpected keyword argument {unknown[0]!r}")
    resolved = isinstance(config, MeteorConfig) and config.language is not None
    if resolved and not any(value is not None for value in overrides.values()):
        return load_config(config)  # (resolved already, by the caller: registers its plugins)
    language = overrides.get("language")
    normalize = overrides.get("normalize")
    if config is None or (isinstance(config, str) and config == PER_LANGUAGE_PRESET):
        lang = resolve_language(language) if language is not None else resolve_language("en")
        reference: str | dict[str, Any] = PER_LANGUAGE_PRESET
        plugin = "core"
        if config is None:
            default, plugin = language_default(lang)
            given = default.config
            reference = given if isinstance(given, str) else copy.deepcopy(dict(given))
            normalize = normalize or default.normalize
        if reference == PER_LANGUAGE_PRESET:
            cfg = validate_config(
                meteorx_settings(lang), source=f"preset 'meteorx' for {lang.name} ({lang.code})"
            )
            language = None  # already set, as the ISO code
        else:
            try:
                cfg = load_config(reference, language=lang.code)
            except (ConfigError, LanguageError, PluginError) as error:
                raise type(error)(
                    f"the default configuration of {lang.name} ({lang.code}), from plugin "
                    f"{plugin!r}: {error}"
                ) from None
            language = lang.code
    else:
        cfg = load_config(config, language=language)
    replaced = {**overrides, "language": language, "normalize": normalize}
    if any(value is not None for value in replaced.values()):
        cfg = cfg.with_overrides(**replaced)
    if cfg.language is None:
        raise ConfigError(
            f"configuration {cfg.name!r} names no language; {hint} or set 'language:' "
            "in the configuration"
        )
    return cfg


# Frequent English function words that are rarely words of other languages written in
# Latin script ("a", "no", "me", "die"... are left out on purpose).
_ENGLISH_WORDS = frozenset(
    [
        "the",
        "of",
        "and",
        "to",
        "in",
        "is",
        "that",
        "for",
        "it",
        "with",
        "was",
        "on",
        "as",
        "be",
        "by",
        "this",
        "are",
        "from",
        "at",
        "have",
        "not",
        "but",
        "an",
        "they",
        "which",
        "or",
        "his",
        "her",
        "their",
        "will",
        "would",
        "there",
        "been",
        "has",
        "were",
        "we",
        "you",
        "he",
        "she",
        "what",
        "who",
        "its",
        "can",
        "all",
        "one",
        "if",
        "about",
        "so",
    ]
)


def looks_english(lines: list[str]) -> bool:
    """Whether a sample of text plausibly is English (a cheap check, for a warning).

    False when most letters are not ASCII (another script, or heavy diacritics), or
    when there are at least 10 words and under 8% of them are frequent English
    function words (English prose has 30-40%). Too little text counts as English.
    """
    letters = ascii_letters = 0
    words: list[str] = []
    for line in lines:
        for ch in line:
            if ch.isalpha():
                letters += 1
                ascii_letters += ch.isascii()
        words.extend(w.strip(".,;:!?\"'()[]").lower() for w in line.split())
    if letters >= 8 and ascii_letters < 0.7 * letters:
        return False
    words = [w for w in words if w.isalpha()]
    if len(words) >= 10:
        return sum(w in _ENGLISH_WORDS for w in words) >= 0.08 * len(words)
    return True


def language_report(language: Language) -> dict[str, Any]:
    """What ``meteorx languages`` shows for a language: its recommended configuration
    (``default``, ``stages``, ``tokens``) and the stages that need a resource, each with
    whether it is installed here, as the plugins registered them
    (``meteorx_register_resources``; ``resources``: stage -> state, which starts with
    ``optional,`` for a stage the default does not run)."""
    from meteorx.errors import MeteorxError
    from meteorx.normalize import tokenizer_description
    from meteorx.registry import get_registry

    cfg = configure(None, language=language.code)
    default = default_name(*language_default(language))
    registry = get_registry()
    needed = [r for kind in registry.resources.values() for r in kind.needed(language)]
    # The recommended configuration's stages first, in its order; then the others by name.
    order = {stage.matcher: i for i, stage in enumerate(cfg.stages)}
    needed.sort(key=lambda r: (order.get(r.stage, len(order)), r.stage))
    resources: dict[str, str] = {}
    for resource in needed:
        # A stage the default does not run: scoring never reads it unless asked to.
        optional = "" if resource.stage in order else "optional, "
        try:
            resources[resource.stage] = f"{optional}installed ({resource.locate()})"
        except MeteorxError:
            how = (
                f"meteorx resources install {resource.install}"
                if resource.install
                else "see docs/languages.md"
            )
            resources[resource.stage] = f"{optional}not installed ({how})"
    split = tokenizer_description(registry, cfg.normalize.tokenizer, language)
    return {
        "code": language.code,
        "name": language.name,
        "default": default,
        "stages": [s.stage_name for s in cfg.stages],
        "tokens": cfg.normalize.tokenizer + (f" ({split})" if split else ""),
        "resources": resources,
    }
