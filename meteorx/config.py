"""The configuration model: every knob of a METEOR run, validated once.

Precedence, lowest first: the model's defaults < a preset (``configs/*.yaml``) < the
files that ``extends`` it < the user's YAML < command-line overrides. Defaults are
declared only here, on the model.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from meteorx.errors import ConfigError

NORMALIZE_SHORTHANDS: dict[str, dict[str, Any]] = {
    "none": {"tokenizer": "auto", "lowercase": False, "punctuation": "keep"},
    "lower": {"tokenizer": "auto", "lowercase": True, "punctuation": "keep"},
    "meteor": {"tokenizer": "meteor", "lowercase": True, "punctuation": "keep"},
    "meteor-nopunct": {"tokenizer": "meteor-nopunct", "lowercase": True, "punctuation": "keep"},
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NormalizeConfig(_Strict):
    """How raw text becomes tokens. A string shorthand (``none``, ``lower``, ``meteor``,
    ``meteor-nopunct``) expands to one of these."""

    tokenizer: str = Field(
        "auto",
        description="tokenizer plugin name; 'auto' = whitespace, or characters for "
        "languages written without spaces (zh, ja, th)",
    )
    lowercase: bool = False
    punctuation: Literal["keep", "drop"] = "keep"

    @model_validator(mode="before")
    @classmethod
    def _expand_shorthand(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return NORMALIZE_SHORTHANDS[value]
            except KeyError:
                known = ", ".join(NORMALIZE_SHORTHANDS)
                raise ValueError(f"unknown normalisation {value!r}; use one of: {known}") from None
        return value

    @property
    def shorthand(self) -> str:
        """The shorthand naming this setting, or a ``tokenizer+lc+punct`` description."""
        for name, fields in NORMALIZE_SHORTHANDS.items():
            if self.model_dump() == fields:
                return name
        lc = "lc" if self.lowercase else "cased"
        return f"{self.tokenizer}+{lc}+{self.punctuation}punct"


class StageConfig(BaseModel):
    """One slot of the matching pipeline: which matcher fills it, its weight, its options.

    Keys other than ``matcher``, ``weight`` and ``name`` are the matcher's own options;
    the matcher validates them with its own model (unknown options are rejected there).
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    matcher: str
    weight: float = Field(1.0, ge=0.0, le=1.0)
    name: str | None = Field(None, description="stage name; defaults to the matcher name")

    @property
    def stage_name(self) -> str:
        return self.name or self.matcher

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class AlignerConfig(_Strict):
    """Which alignment search resolves the candidate matches, and its limits."""

    name: str = Field("optimal", description="aligner plugin name: optimal, meteor-1.5, nltk")
    beam_size: int = Field(40, ge=1, description="beam width (meteor-1.5 aligner)")
    max_states: int = Field(
        20000,
        ge=1,
        description="optimal aligner: search states before falling back to a greedy search",
    )

    @model_validator(mode="before")
    @classmethod
    def _expand_name(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value


class MeteorConfig(_Strict):
    """A complete METEOR configuration."""

    name: str = Field("custom", description="preset or configuration name, for signatures")
    language: str | None = Field(None, description="ISO 639-1 code, e.g. en, pt, de")
    normalize: NormalizeConfig = NormalizeConfig()
    stages: tuple[StageConfig, ...]
    alpha: float = Field(0.9, ge=0.0, le=1.0, description="precision/recall balance")
    beta: float = Field(3.0, ge=0.0, description="fragmentation penalty shape")
    gamma: float = Field(0.5, ge=0.0, le=1.0, description="maximum fragmentation penalty")
    delta: float = Field(0.5, ge=0.0, le=1.0, description="content vs function word weight")
    function_words: str = Field(
        "none",
        description="function-word list: none, builtin, meteor-1.5 (from the installed jar), "
        "stop-words or stopwords-iso (those packages' lists) or a file path",
    )
    perfect_match_rule: bool = Field(
        True, description="Meteor 1.5: a fully matched single chunk has no fragmentation penalty"
    )
    fmean: Literal["harmonic", "nltk"] = Field(
        "harmonic",
        description="how Fmean is written: 'harmonic' 1/((1-alpha)/P + alpha/R) (Meteor 1.5) "
        "or 'nltk' P*R/(alpha*P + (1-alpha)*R) (NLTK): equal in exact arithmetic, they can "
        "differ in the last bit",
    )
    aligner: AlignerConfig = AlignerConfig()
    system_score: Literal["statistics", "mean"] = Field(
        "statistics",
        description="system score from summed statistics (METEOR's definition, Meteor 1.5) "
        "or the mean of segment scores (what NLTK and Hugging Face evaluate users report)",
    )

    @field_validator("stages")
    @classmethod
    def _unique_stage_names(cls, stages: tuple[StageConfig, ...]) -> tuple[StageConfig, ...]:
        if not stages:
            raise ValueError("at least one stage is needed (e.g. '- matcher: exact')")
        seen: set[str] = set()
        for stage in stages:
            if stage.stage_name in seen:
                raise ValueError(
                    f"duplicate stage name {stage.stage_name!r}; give one of them a distinct "
                    "'name:'"
                )
            seen.add(stage.stage_name)
        return stages

    def with_overrides(self, **overrides: Any) -> MeteorConfig:
        """Return a validated copy with some top-level fields replaced (None = keep)."""
        data = self.model_dump(exclude_none=False)
        data["stages"] = [s.model_dump(exclude_none=True) for s in self.stages]
        data.update({k: v for k, v in overrides.items() if v is not None})
        return validate_config(data, source="command-line overrides")


# Allowed ranges, quoted in error messages next to the offending value.
_RANGES = {
    "alpha": "0 <= alpha <= 1",
    "beta": "beta >= 0",
    "gamma": "0 <= gamma <= 1",
    "delta": "0 <= delta <= 1",
    "weight": "0 <= weight <= 1",
    "beam_size": "beam_size >= 1",
    "max_states": "max_states >= 1",
}


def _format_validation_error(error: ValidationError, source: str) -> str:
    parts = []
    for item in error.errors():
        loc = ".".join(str(p) for p in item["loc"]) or "(top level)"
        msg = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            msg = "unknown key (check the spelling)"
        field = str(item["loc"][-1]) if item["loc"] else ""
        if field in _RANGES and item["type"] != "extra_forbidden":
            msg += f" (allowed: {_RANGES[field]}; got {item.get('input')!r})"
        parts.append(f"{loc}: {msg}")
    return f"invalid configuration in {source}: " + "; ".join(parts)


def validate_config(data: dict[str, Any], source: str = "configuration") -> MeteorConfig:
    """Validate a plain dict into a :class:`MeteorConfig`, with readable errors."""
    try:
        return MeteorConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(_format_validation_error(error, source)) from None


def preset_names() -> list[str]:
    """Names of the presets shipped with the package."""
    files = resources.files("meteorx.configs")
    return sorted(p.name.removesuffix(".yaml") for p in files.iterdir() if p.name.endswith(".yaml"))


def _read_yaml(text: str, source: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"invalid YAML in {source}{where}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source} must hold a mapping of settings, not {type(data).__name__}")
    return data


def _preset_text(name: str) -> str:
    path = resources.files("meteorx.configs").joinpath(f"{name}.yaml")
    if not path.is_file():
        known = ", ".join(preset_names())
        raise ConfigError(f"unknown preset {name!r}; known presets: {known}")
    return path.read_text(encoding="utf-8")


def _load_raw(ref: str, base_dir: Path | None, seen: tuple[str, ...]) -> dict[str, Any]:
    """Load a preset name or a YAML file, resolving ``extends`` chains."""
    path = Path(ref) if base_dir is None else base_dir / ref
    if ref.endswith((".yaml", ".yml")) or path.is_file():
        if not path.is_file():
            raise ConfigError(f"configuration file not found: {path}")
        source = str(path)
        text = path.read_text(encoding="utf-8")
        next_dir: Path | None = path.parent
    else:
        source = f"preset {ref!r}"
        text = _preset_text(ref)
        next_dir = None
    if source in seen:
        raise ConfigError(f"'extends' loop: {' -> '.join((*seen, source))}")
    data = _read_yaml(text, source)
    parent = data.pop("extends", None)
    if parent is None:
        data.setdefault("name", Path(ref).stem if next_dir is not None else ref)
        return data
    if not isinstance(parent, str):
        raise ConfigError(f"{source}: 'extends' must be a preset name or a file path")
    base = _load_raw(parent, next_dir, (*seen, source))
    merged = _merge(base, data)
    if "name" not in data:
        merged["name"] = f"{base.get('name', parent)}+{Path(ref).stem}"
    return merged


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Override top-level keys; nested mappings (normalize, aligner) merge one level deep."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def load_config(ref: str | Path | MeteorConfig | dict[str, Any] | None = None) -> MeteorConfig:
    """Load a configuration from a preset name, a YAML path, a dict or a ready model.

    ``None`` gives the ``meteor-1.5-en`` preset, the reference implementation's default.
    """
    if isinstance(ref, MeteorConfig):
        return ref
    if ref is None:
        ref = "meteor-1.5-en"
    if isinstance(ref, dict):
        data = dict(ref)
        parent = data.pop("extends", None)
        if parent is not None:
            data = _merge(_load_raw(str(parent), None, ()), data)
        return validate_config(data, source="the configuration dict")
    text_ref = str(ref)
    data = _load_raw(text_ref, None, ())
    return validate_config(data, source=text_ref)
