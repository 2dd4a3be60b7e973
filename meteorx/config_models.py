"""The configuration's model: every knob of a METEOR run, declared with its default and
its bounds, and validated once (pydantic).

Defaults are declared only here, on the model; :mod:`meteorx.config_loading` reads
presets and YAML files into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypedDict

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from meteorx.error_text import quote
from meteorx.normalize_shorthands import NORMALIZE_SHORTHANDS

#: Numbers in a configuration: ``true`` is not 1.0, and ``.inf``/``.nan`` are refused
#: (they would reach the JSON output as bare ``Infinity``).
Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
#: Counts handed to the compiled aligners, which hold them in C ints.
Count = Annotated[int, Field(strict=True, ge=1, le=2**31 - 1)]
Flag = Annotated[bool, Field(strict=True)]
#: Names of plugins, languages, stages (they end up in messages and signatures).
Name = Annotated[str, Field(min_length=1, max_length=200)]


class Overrides(TypedDict, total=False):
    """Settings given beside a configuration that replace its own (``None`` keeps it):
    the keyword arguments shared by :class:`~meteorx.metric.Meteor`,
    :func:`~meteorx.api.build_scorer`, :func:`~meteorx.api.compute` and
    :func:`~meteorx.defaults.configure`, declared once here."""

    language: str | None
    normalize: str | None
    alpha: float | None
    beta: float | None
    gamma: float | None
    delta: float | None


def check_option_sizes(options: dict[str, Any] | None) -> None:
    """A stage's or aligner's own options are free-form: bound their size (they end up
    in messages and signatures)."""
    for key, value in (options or {}).items():
        if len(key) > 100 or (isinstance(value, str) and len(value) > 4096):
            raise ValueError(f"option {quote(key)} is too long (keys: 100, values: 4096)")


def normalize_fields(value: Any) -> Any:
    """A known ``normalize`` shorthand as its fields; anything else as it is."""
    if isinstance(value, str) and value in NORMALIZE_SHORTHANDS:
        return dict(NORMALIZE_SHORTHANDS[value])
    return value


def expand_normalize(value: Any) -> Any:
    """A ``normalize`` shorthand as the mapping it stands for (other values as given)."""
    if isinstance(value, str) and value not in NORMALIZE_SHORTHANDS:
        known = ", ".join(NORMALIZE_SHORTHANDS)
        raise ValueError(f"unknown normalisation {quote(value)}; use one of: {known}")
    return normalize_fields(value)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NormalizeConfig(_Strict):
    """How raw text becomes tokens. A string shorthand (``none``, ``lower``, ``meteor``,
    ``meteor-nopunct``) expands to one of these."""

    tokenizer: Name = Field(
        "auto",
        description="tokenizer plugin name; 'auto' = whitespace, or characters for "
        "languages written without spaces (zh, ja, th)",
    )
    lowercase: Flag = False
    punctuation: Literal["keep", "drop"] = "keep"
    unicode: Literal["nfc", "nfkc", "none"] = Field(
        "nfc",
        description="Unicode normal form applied to the text before tokenising, so that "
        "composed and decomposed spellings (café) match: nfc, nfkc (also folds "
        "compatibility forms: ligatures, full-width letters) or none (the text as given, "
        "as the Meteor 1.5 jar and NLTK read it)",
    )

    @model_validator(mode="before")
    @classmethod
    def _expand_shorthand(cls, value: Any) -> Any:
        return expand_normalize(value)

    @property
    def shorthand(self) -> str:
        """The shorthand naming this setting, or a ``tokenizer+lc+punct`` description
        (the Unicode form is not part of it; the signature names it separately)."""
        own = self.model_dump(exclude={"unicode"})
        for name, fields in NORMALIZE_SHORTHANDS.items():
            if own == fields:
                return name
        lc = "lc" if self.lowercase else "cased"
        return f"{self.tokenizer}+{lc}+{self.punctuation}punct"


class StageConfig(BaseModel):
    """One slot of the matching pipeline: which matcher fills it, its weight, its options.

    Keys other than ``matcher``, ``weight`` and ``name`` are the matcher's own options;
    the matcher validates them with its own model (unknown options are rejected there).
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    matcher: Name
    weight: Number = Field(1.0, ge=0.0, le=1.0)
    name: Name | None = Field(None, description="stage name; defaults to the matcher name")

    @model_validator(mode="after")
    def _bounded_options(self) -> StageConfig:
        check_option_sizes(self.model_extra)
        return self

    @property
    def stage_name(self) -> str:
        return self.name or self.matcher

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


# (aligner_options, named in the docstring below, is in meteorx.config_loading)
class AlignerConfig(BaseModel):
    """Which alignment search resolves the candidate matches, and its options.

    Keys other than ``name`` are the aligner's own options (``beam_size`` of
    ``meteor-1.5``, ``max_states`` of ``optimal``): its ``Options`` model validates them
    (:func:`aligner_options`), and only the ones differing from its defaults are kept.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    name: Name = Field("optimal", description="aligner plugin name: optimal, meteor-1.5, nltk")

    @model_validator(mode="before")
    @classmethod
    def _expand_name(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _bounded_options(self) -> AlignerConfig:
        check_option_sizes(self.model_extra)
        return self

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


#: The name of soft credit's block in statistics rows, files and reports (no stage may
#: take it).
SOFT_CREDIT = "soft-credit"


def aligned_blocks(block_names: Sequence[str]) -> int | None:
    """How many of a statistics row's blocks are the alignment's: all (None) but a last
    soft-credit block, which counts in P and R and is not alignment."""
    return len(block_names) - 1 if block_names and block_names[-1] == SOFT_CREDIT else None


class SoftCreditConfig(_Strict):
    """Partial credit, in precision and recall only, for words the alignment left out.

    Each unaligned word counts ``weight`` times its best character similarity (case-folded
    Indel similarity, ``cutoff`` or more) to an unaligned word of the other side: near
    misses a stage cannot link (a wrong inflection, a typo, a compound's part) count a
    little, as chrF's shared character n-grams make them count. Alignment and
    fragmentation do not see them.
    """

    weight: Number = Field(0.5, ge=0.0, le=1.0, description="weight of the soft credit")
    cutoff: Number = Field(
        0.5, gt=0.0, le=1.0, description="least similarity (0-1] that earns credit"
    )


class MeteorConfig(_Strict):
    """A complete METEOR configuration."""

    name: Name = Field("custom", description="preset or configuration name, for signatures")
    language: Name | None = Field(None, description="ISO 639-1 code, e.g. en, pt, de")
    normalize: NormalizeConfig = NormalizeConfig()
    stages: tuple[StageConfig, ...]
    alpha: Number = Field(0.9, ge=0.0, le=1.0, description="precision/recall balance")
    beta: Number = Field(3.0, ge=0.0, description="fragmentation penalty shape")
    gamma: Number = Field(0.5, ge=0.0, le=1.0, description="maximum fragmentation penalty")
    delta: Number = Field(0.5, ge=0.0, le=1.0, description="content vs function word weight")
    function_words: Annotated[str, Field(max_length=4096)] = Field(
        "none",
        description="function-word list: none, builtin, meteor-1.5 (from the installed jar), "
        "stop-words or stopwords-iso (those packages' lists) or a file path",
    )
    perfect_match_rule: Flag = Field(
        True, description="Meteor 1.5: a fully matched single chunk has no fragmentation penalty"
    )
    fmean: Literal["harmonic", "nltk"] = Field(
        "harmonic",
        description="how Fmean is written: 'harmonic' 1/((1-alpha)/P + alpha/R) (Meteor 1.5) "
        "or 'nltk' P*R/(alpha*P + (1-alpha)*R) (NLTK): equal in exact arithmetic, they can "
        "differ in the last bit",
    )
    units: Literal["words", "characters"] = Field(
        "words",
        description="what precision and recall count: 'words' (Meteor 1.5's default) or "
        "'characters' of the matched words, as the jar's -ch counts them (UTF-16 units); "
        "alignment and fragmentation stay over words either way",
    )
    soft_credit: SoftCreditConfig | None = Field(
        None,
        description="partial credit for unaligned near-miss words (weight, cutoff); "
        "none by default, as in Meteor 1.5",
    )
    aligner: AlignerConfig = AlignerConfig()
    system_score: Literal["statistics", "mean"] = Field(
        "statistics",
        description="system score from summed statistics (METEOR's definition, Meteor 1.5) "
        "or the mean of segment scores (what NLTK and Hugging Face evaluate users report)",
    )
    plugins: tuple[Annotated[str, Field(min_length=1, max_length=4096)], ...] = Field(
        (),
        description="plugins it needs that are not installed, loaded before it is used: "
        ".py files (relative to the configuration file) or module names (package.module)",
    )

    @field_validator("plugins")
    @classmethod
    def _plugin_references(cls, plugins: tuple[str, ...]) -> tuple[str, ...]:
        from meteorx.registry import is_module_name, is_plugin_file

        for plugin in plugins:
            if not (is_plugin_file(plugin) or is_module_name(plugin)):
                raise ValueError(
                    f"{quote(plugin)} is neither a .py file nor a module name (package.module)"
                )
        return plugins

    @model_serializer(mode="wrap")
    def _plugins_only_when_given(self, handler: SerializerFunctionWrapHandler) -> Any:
        """No ``plugins`` key when there are none: configurations written out, and
        what is keyed by them, stay as they were before the field existed."""
        data = handler(self)
        if not self.plugins and isinstance(data, dict):
            data.pop("plugins", None)
        return data

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
        if SOFT_CREDIT in seen:
            raise ValueError(f"the stage name {SOFT_CREDIT!r} is reserved for soft credit")
        return stages

    @property
    def block_names(self) -> tuple[str, ...]:
        """The weighted blocks of a statistics row: one per stage, then soft credit's
        when it is on (what statistics files, reports and tuning name)."""
        names = tuple(stage.stage_name for stage in self.stages)
        return (*names, SOFT_CREDIT) if self.soft_credit is not None else names

    @property
    def block_weights(self) -> tuple[float, ...]:
        """The weight of each of :attr:`block_names`, in their order."""
        weights = tuple(stage.weight for stage in self.stages)
        if self.soft_credit is not None:
            return (*weights, self.soft_credit.weight)
        return weights

    @property
    def aligned_blocks(self) -> int | None:
        """How many of :attr:`block_names` are the alignment's (None: all of them)."""
        return aligned_blocks(self.block_names)

    def with_block_weights(self, weights: Sequence[float]) -> MeteorConfig:
        """A copy with the weights of :attr:`block_names` replaced (the stages', then
        soft credit's), as tuning sets them."""
        if len(weights) != len(self.block_names):
            raise ValueError(f"{len(weights)} weights for {len(self.block_names)} blocks")
        stages = tuple(
            stage.model_copy(update={"weight": w})
            for stage, w in zip(self.stages, weights, strict=False)
        )
        update: dict[str, Any] = {"stages": stages}
        if self.soft_credit is not None:
            update["soft_credit"] = self.soft_credit.model_copy(update={"weight": weights[-1]})
        return self.model_copy(update=update)

    def with_overrides(self, **overrides: Any) -> MeteorConfig:
        """Return a validated copy with some top-level fields replaced (None = keep)."""
        from meteorx.config_loading import merge_configs, validate_config  # (imports this)

        data = self.model_dump(exclude_none=False)
        data["stages"] = [s.model_dump(exclude_none=True) for s in self.stages]
        data = merge_configs(data, {k: v for k, v in overrides.items() if v is not None})
        return validate_config(data, source="command-line overrides")
