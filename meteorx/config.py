"""The configuration model: every knob of a METEOR run, validated once.

Precedence, lowest first: the model's defaults < a preset (``configs/*.yaml``) < the
files that ``extends`` it < the user's YAML < command-line overrides. Defaults are
declared only here, on the model.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from meteorx.errors import QUOTE_LIMIT, ConfigError, cut

#: Numbers in a configuration: ``true`` is not 1.0, and ``.inf``/``.nan`` are refused
#: (they would reach the JSON output as bare ``Infinity``).
Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
#: Counts handed to the compiled aligners, which hold them in C ints.
Count = Annotated[int, Field(strict=True, ge=1, le=2**31 - 1)]
Flag = Annotated[bool, Field(strict=True)]
#: Names of plugins, languages, stages (they end up in messages and signatures).
Name = Annotated[str, Field(min_length=1, max_length=200)]

#: Limits on what a configuration may ask of the loader (see _read_yaml and _load_raw).
MAX_YAML_NODES = 100_000
MAX_CONFIG_CHARS = 1_000_000
MAX_EXTENDS_DEPTH = 32

NORMALIZE_SHORTHANDS: dict[str, dict[str, Any]] = {
    "none": {"tokenizer": "auto", "lowercase": False, "punctuation": "keep"},
    "lower": {"tokenizer": "auto", "lowercase": True, "punctuation": "keep"},
    "meteor": {"tokenizer": "meteor", "lowercase": True, "punctuation": "keep"},
    "meteor-nopunct": {"tokenizer": "meteor-nopunct", "lowercase": True, "punctuation": "keep"},
}


def _normalize_fields(value: Any) -> Any:
    """A known ``normalize`` shorthand as its fields; anything else as it is."""
    if isinstance(value, str) and value in NORMALIZE_SHORTHANDS:
        return dict(NORMALIZE_SHORTHANDS[value])
    return value


def expand_normalize(value: Any) -> Any:
    """A ``normalize`` shorthand as the mapping it stands for (other values as given)."""
    if isinstance(value, str) and value not in NORMALIZE_SHORTHANDS:
        known = ", ".join(NORMALIZE_SHORTHANDS)
        raise ValueError(f"unknown normalisation {quote(value)}; use one of: {known}")
    return _normalize_fields(value)


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters, so that no message grows with its input."""
    if isinstance(value, (dict, list, tuple, set)) and len(value) > limit:
        return f"<{type(value).__name__} of {len(value)} items>"
    if isinstance(value, int) and value.bit_length() > 1000:  # (repr refuses 4,300 digits)
        return f"<an int of {value.bit_length():,} bits>"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


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
        for key, value in (self.model_extra or {}).items():
            if len(key) > 100 or (isinstance(value, str) and len(value) > 4096):
                raise ValueError(f"option {quote(key)} is too long (keys: 100, values: 4096)")
        return self

    @property
    def stage_name(self) -> str:
        return self.name or self.matcher

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


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
        for key, value in (self.model_extra or {}).items():
            if len(key) > 100 or (isinstance(value, str) and len(value) > 4096):
                raise ValueError(f"option {quote(key)} is too long (keys: 100, values: 4096)")
        return self

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def aligner_options(
    aligner: AlignerConfig, model: type[BaseModel], source: str = "configuration"
) -> BaseModel:
    """The aligner's options, validated by its ``Options`` model; errors read like the
    rest of the configuration's (``aligner.beam_size: ... (allowed: ...; got 0)``)."""
    try:
        return model.model_validate(aligner.options, strict=True)
    except ValidationError as error:
        raise ConfigError(_format_validation_error(error, source, ("aligner",), model)) from None


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
        data = self.model_dump(exclude_none=False)
        data["stages"] = [s.model_dump(exclude_none=True) for s in self.stages]
        data = _merge(data, {k: v for k, v in overrides.items() if v is not None})
        return validate_config(data, source="command-line overrides")


# Allowed ranges, quoted in error messages next to the offending value.
_RANGES = {
    "alpha": "0 <= alpha <= 1",
    "beta": "beta >= 0",
    "gamma": "0 <= gamma <= 1",
    "delta": "0 <= delta <= 1",
    "weight": "0 <= weight <= 1",
}


def _allowed(model: type[BaseModel], field: str) -> str | None:
    """A field's allowed range, from its bounds (``1 <= beam_size <= 2147483647``)."""
    info = model.model_fields.get(field)
    low = high = None
    for bound in info.metadata if info is not None else ():
        low = getattr(bound, "ge", low)
        high = getattr(bound, "le", high)
    if low is None:
        return None if high is None else f"{field} <= {high}"
    return f"{field} >= {low}" if high is None else f"{low} <= {field} <= {high}"


#: At most this many problems are listed in one message.
_MAX_PROBLEMS = 5


def describe_error(error: BaseException) -> str:
    """``Type: message`` of an exception a plugin raised, cut to one short line."""
    return cut(" ".join(f"{type(error).__name__}: {error}".split()), 200)


def _format_validation_error(
    error: ValidationError,
    source: str,
    prefix: tuple[str, ...] = (),
    model: type[BaseModel] | None = None,
) -> str:
    """One line for a validation error; ``prefix`` is where ``model`` (validating part
    of the configuration, such as the aligner's options) sits in it."""
    parts = []
    problems = error.errors()
    for item in problems[:_MAX_PROBLEMS]:
        loc = ".".join(cut(str(p)) for p in (*prefix, *item["loc"])) or "(top level)"
        msg = cut(item["msg"].removeprefix("Value error, "), 4 * QUOTE_LIMIT)
        if item["type"] == "extra_forbidden":
            msg = "unknown key (check the spelling)"
        field = str(item["loc"][-1]) if item["loc"] else ""
        allowed = _RANGES.get(field) if model is None else _allowed(model, field)
        if allowed is not None and item["type"] != "extra_forbidden":
            msg += f" (allowed: {allowed}; got {quote(item.get('input'))})"
        parts.append(f"{loc}: {msg}")
    if len(problems) > _MAX_PROBLEMS:
        parts.append(f"and {len(problems) - _MAX_PROBLEMS} more")
    return f"invalid configuration in {source}: " + "; ".join(parts)


def validate_config(data: dict[str, Any], source: str = "configuration") -> MeteorConfig:
    """Validate a plain dict into a :class:`MeteorConfig`, with readable errors.

    An installed aligner's options are validated too, and kept only where they differ
    from its defaults (one spelling per configuration); an aligner no plugin provides
    is the scorer's error. The configuration's ``plugins`` are registered first.
    """
    from meteorx.registry import get_registry, register

    try:
        config = MeteorConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(_format_validation_error(error, source)) from None
    for plugin in config.plugins:
        register(plugin)
    aligner = get_registry().aligners.get(config.aligner.name)
    if aligner is None:
        return config
    options = aligner_options(config.aligner, aligner.Options, source)
    written = AlignerConfig(name=config.aligner.name, **options.model_dump(exclude_defaults=True))
    return config if written == config.aligner else config.model_copy(update={"aligner": written})


def preset_names() -> list[str]:
    """Names of the presets (``tuned/NAME`` ones left out): those the plugins register
    (``meteorx_register_presets``), meteorx's own ``configs/`` folder among them."""
    from meteorx.registry import get_registry

    return [name for name in get_registry().preset_names() if "/" not in name]


class _ConfigLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses duplicate keys and documents that anchors and
    aliases expand past ``MAX_YAML_NODES`` nodes (a few hundred bytes can otherwise
    stand for billions of nodes)."""

    def construct_document(self, node: yaml.Node) -> Any:
        if _expanded_size(node) > MAX_YAML_NODES:
            raise ConfigError(
                f"more than {MAX_YAML_NODES:,} values once its aliases (*name) are expanded"
            )
        return super().construct_document(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: dict[tuple[str, str], int] = {}
            for key, _ in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                line = key.start_mark.line + 1
                if (key.tag, key.value) in seen:
                    first = seen[key.tag, key.value]
                    raise ConfigError(
                        f"duplicate key {quote(key.value)} (line {line}; first on line {first})"
                    )
                seen[key.tag, key.value] = line
        return super().construct_mapping(node, deep=deep)


def _expanded_size(root: yaml.Node) -> int:
    """Nodes of the document with every alias expanded (a node counts at each use);
    a recursive alias counts as too many. Iterative: nesting depth costs no stack."""
    size: dict[int, int] = {}
    open_nodes: set[int] = set()  # entered, not left: the ancestors of the next node
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        children = (
            [n for pair in node.value for n in pair]
            if isinstance(node, yaml.MappingNode)
            else node.value
            if isinstance(node, yaml.SequenceNode)
            else []
        )
        if leaving:
            open_nodes.discard(id(node))
            size[id(node)] = min(1 + sum(size[id(c)] for c in children), MAX_YAML_NODES + 1)
        elif id(node) in open_nodes:
            return MAX_YAML_NODES + 1
        elif id(node) not in size:
            open_nodes.add(id(node))
            stack.append((node, True))
            stack.extend((c, False) for c in children)
    return size[id(root)]


def _read_yaml(text: str, source: str) -> dict[str, Any]:
    try:
        data = yaml.load(text, Loader=_ConfigLoader)  # a SafeLoader
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        # ``problem`` only: str(error) quotes the offending line
        problem = cut(getattr(error, "problem", None) or type(error).__name__)
        raise ConfigError(f"invalid YAML in {source}{where}: {problem}") from None
    except ConfigError as error:
        raise ConfigError(f"invalid YAML in {source}: {error}") from None
    except RecursionError:
        raise ConfigError(f"invalid YAML in {source}: nested too deeply") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source} must hold a mapping of settings, not {type(data).__name__}")
    return data


def _preset_text(name: str) -> str:
    """The YAML text of a registered preset (see :func:`preset_names`)."""
    from meteorx.registry import get_registry

    file = get_registry().presets.get(name)
    if file is None:
        known = ", ".join(preset_names())
        raise ConfigError(f"unknown preset {name!r}; known presets: {known}")
    return file.read_text(encoding="utf-8")


def _is_preset(name: str) -> bool:
    """Whether ``name`` names a registered preset (``li``, ``tuned/de-en``): a name,
    never a path."""
    from meteorx.registry import get_registry

    return name in get_registry().presets


def _read_config_file(path: Path, source: str) -> str:
    try:
        with path.open(encoding="utf-8") as file:
            text = file.read(MAX_CONFIG_CHARS + 1)
    except FileNotFoundError:
        raise ConfigError(f"configuration file not found: {source}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{source} is not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise ConfigError(f"cannot read {source}: {error.strerror or error}") from None
    if len(text) > MAX_CONFIG_CHARS:
        raise ConfigError(f"{source} is longer than {MAX_CONFIG_CHARS:,} characters")
    return text


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long, a NUL byte...
        return False


def _load_raw(
    ref: str, base_dir: Path | None, seen: tuple[str, ...], presets: list[str]
) -> dict[str, Any]:
    """Load a preset name or a YAML file, resolving ``extends`` chains (the presets of
    the chain are added to ``presets``).

    Files are read only when their name ends in ``.yaml`` or ``.yml``: error messages
    quote a configuration's keys, and must never quote another file's content. A chain
    is at most ``MAX_EXTENDS_DEPTH`` files; a loop is found by resolved path.
    """
    if len(seen) >= MAX_EXTENDS_DEPTH:
        raise ConfigError(
            f"'extends' chain longer than {MAX_EXTENDS_DEPTH} configurations, from {seen[0]}"
        )
    path = Path(ref) if base_dir is None else base_dir / ref
    if ref.endswith((".yaml", ".yml")):
        source = cut(str(path))
        try:
            key = str(path.resolve())
        except (OSError, RuntimeError, ValueError) as error:
            raise ConfigError(f"cannot resolve configuration path {source}: {error}") from None
        if key in seen:
            raise ConfigError(f"'extends' loop: {' -> '.join(cut(s) for s in (*seen, key))}")
        text = _read_config_file(path, source)
        next_dir: Path | None = path.parent
    else:
        source = f"preset {quote(ref)}"
        key = f"preset:{ref}"
        if key in seen:
            raise ConfigError(f"'extends' loop: {' -> '.join(cut(s) for s in (*seen, key))}")
        if not _is_preset(ref):
            if _is_file(path):
                raise ConfigError(
                    f"{cut(str(path))} is not a configuration file: "
                    "their names end in .yaml or .yml"
                )
            raise ConfigError(
                f"unknown preset {quote(ref)}; known presets: {', '.join(preset_names())}"
            )
        text = _preset_text(ref)
        next_dir = None
        presets.append(ref)
    data = _read_yaml(text, source)
    if next_dir is not None and isinstance(data.get("plugins"), list):
        data["plugins"] = [_next_to(next_dir, plugin) for plugin in data["plugins"]]
    parent = data.pop("extends", None)
    if parent is None:
        data.setdefault("name", Path(ref).stem if next_dir is not None else ref)
        return data
    if not isinstance(parent, str):
        raise ConfigError(f"{source}: 'extends' must be a preset name or a file path")
    base = _load_raw(parent, next_dir, (*seen, key), presets)
    merged = _merge(base, data)
    if "name" not in data:
        merged["name"] = f"{base.get('name', parent)}+{Path(ref).stem}"
    return merged


def _next_to(folder: Path, plugin: Any) -> Any:
    """A ``plugins:`` file named in a configuration file is relative to its folder."""
    from meteorx.registry import is_plugin_file

    if isinstance(plugin, str) and is_plugin_file(plugin):
        return str(folder / os.path.expanduser(plugin))
    return plugin


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Override top-level keys; nested mappings (normalize, aligner) merge one level deep
    (an ``aligner`` naming another aligner replaces the base's, options and all).

    A ``normalize`` shorthand stands for its fields, so ``normalize: lower`` over a
    preset keeps the preset's Unicode form.
    """
    merged = dict(base)
    for key, value in override.items():
        current = merged.get(key)
        if key == "normalize" and isinstance(current, (str, dict)):
            value, current = _normalize_fields(value), _normalize_fields(current)
        if (
            key == "aligner"
            and isinstance(value, dict)
            and isinstance(current, dict)
            and value.get("name", current.get("name")) != current.get("name")
        ):
            current = {}  # another aligner: the options were the other one's
        if key == "plugins" and isinstance(value, list) and isinstance(current, list):
            value = [*current, *(plugin for plugin in value if plugin not in current)]
        if isinstance(value, dict) and isinstance(current, dict):
            merged[key] = {**current, **value}
        else:
            merged[key] = value
    return merged


def load_config(
    ref: str | Path | MeteorConfig | dict[str, Any] | None = None, *, language: str | None = None
) -> MeteorConfig:
    """Load a configuration from a preset name, a YAML path, a dict or a ready model.

    ``None`` gives the ``meteor-1.5-en`` preset, the reference implementation's default.
    A configuration extending the per-language ``meteorx`` preset gets what it inherits
    from it resolved for ``language`` (default: its own ``language:``), as ``--preset
    meteorx --lang L`` does (:func:`meteorx.defaults.for_language`).
    """
    if isinstance(ref, MeteorConfig):
        from meteorx.registry import register

        for plugin in ref.plugins:  # (a process given a validated configuration: a worker)
            register(plugin)
        return ref
    if ref is None:
        ref = "meteor-1.5-en"
    presets: list[str] = []
    if isinstance(ref, dict):
        data = dict(ref)
        parent = data.pop("extends", None)
        if parent is not None:
            if not isinstance(parent, (str, Path)):
                raise ConfigError("'extends' must be a preset name or a file path")
            data = _merge(_load_raw(str(parent), None, (), presets), data)
        source = "the configuration dict"
    elif isinstance(ref, (str, Path)):
        data = _load_raw(str(ref), None, (), presets)
        source = cut(str(ref))
    else:
        raise ConfigError(
            "a configuration is a preset name, a YAML path, a dict or a MeteorConfig, "
            f"not {type(ref).__name__}"
        )
    if presets:
        from meteorx.defaults import for_language  # (defaults imports this module)

        data = for_language(data, presets, language)
    return validate_config(data, source=source)
