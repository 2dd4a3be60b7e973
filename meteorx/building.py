"""Building a configuration's parts from the registry: matchers and function words,
with the errors that name the stage, the plugin and what is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from meteorx.config import MeteorConfig
from meteorx.error_text import describe_error, quote
from meteorx.errors import ConfigError, MeteorxError, ResourceError, cut
from meteorx.languages import Language
from meteorx.matchers import Matcher
from meteorx.registry import Registry
from meteorx.resources import MissingResource, missing_resources_error
from meteorx.scoring import Parameters


def build_matchers(registry: Registry, cfg: MeteorConfig, language: Language) -> list[Matcher]:
    """Every stage's matcher; the resources missing for any of them are reported
    together, not one by one."""
    matchers: list[Matcher] = []
    missing: list[tuple[str, MissingResource]] = []
    for i, stage in enumerate(cfg.stages):
        try:
            matchers.append(build_matcher(registry, i, stage.matcher, stage.options, language))
        except MissingResource as error:
            missing.append((stage.stage_name, error))
    if missing:
        raise missing_resources_error(cfg.name, missing)
    return matchers


def parameters(cfg: MeteorConfig) -> Parameters:
    """The formula's parameters of a configuration."""
    return Parameters(
        alpha=cfg.alpha,
        beta=cfg.beta,
        gamma=cfg.gamma,
        delta=cfg.delta,
        weights=cfg.block_weights,
        perfect_match_rule=cfg.perfect_match_rule,
        fmean_form=cfg.fmean,
        aligned_blocks=cfg.aligned_blocks,
    )


def build_matcher(
    registry: Registry, index: int, name: str, options: dict[str, Any], language: Language
) -> Matcher:
    """Stage ``index``'s matcher ``name`` with its validated ``options``."""
    cls = registry.matcher(name)
    try:
        opts = cls.Options.model_validate(options, strict=True)  # no "false" for false
    except ValidationError as error:
        details = "; ".join(
            f"stages.{index}.{'.'.join(cut(str(p)) for p in e['loc'])}: "
            + ("unknown option" if e["type"] == "extra_forbidden" else cut(e["msg"], 200))
            for e in error.errors()[:5]
        )
        raise ConfigError(f"invalid options for matcher {name!r}: {details}") from None
    try:
        return cls(opts, language)
    except MeteorxError:
        raise
    except Exception as error:
        owner = registry.owners.get(f"matcher:{name}", "?")
        raise ResourceError(
            f"matcher {name!r} (plugin {owner!r}) could not be set up: {describe_error(error)}"
        ) from error


def load_function_words(
    registry: Registry, source: str, language: Language
) -> tuple[frozenset[str], str]:
    """The function words of ``source`` (a registered source's name, or a file with one
    word a line) and their name in the signature."""
    provider = registry.function_word_source(source)
    if provider is not None:
        return provider(language)
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else None
    except (OSError, ValueError) as error:  # unreadable, not UTF-8, a name too long
        raise ResourceError(
            f"cannot read function_words file {quote(source)}: {describe_error(error)}"
        ) from None
    if text is None:
        known = ", ".join(sorted(registry.function_words))
        raise ResourceError(
            f"function_words {quote(source)} is neither a known source ({known}) nor a file"
        )
    words = frozenset(w.strip().lower() for w in text.splitlines() if w.strip())
    return words, f"file-{path.name}"
