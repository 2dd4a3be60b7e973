"""Loading a configuration: a preset name, a YAML file, a dict or a ready model becomes a
validated :class:`~meteorx.config_models.MeteorConfig`.

Precedence, lowest first: the model's defaults < a preset (``configs/*.yaml``) < the
files that ``extends`` it < the user's YAML < command-line overrides. Presets are found
through the plugin registry (``meteorx_register_presets``); YAML is read by
:mod:`meteorx.safe_yaml`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from meteorx.config_models import AlignerConfig, MeteorConfig, normalize_fields
from meteorx.error_text import format_validation_error, quote
from meteorx.errors import ConfigError, cut
from meteorx.safe_yaml import read_config_file, read_yaml

#: The longest chain of configurations ``extends`` may follow.
MAX_EXTENDS_DEPTH = 32


def aligner_options(
    aligner: AlignerConfig, model: type[BaseModel], source: str = "configuration"
) -> BaseModel:
    """The aligner's options, validated by its ``Options`` model; errors read like the
    rest of the configuration's (``aligner.beam_size: ... (allowed: ...; got 0)``)."""
    try:
        return model.model_validate(aligner.options, strict=True)
    except ValidationError as error:
        raise ConfigError(format_validation_error(error, source, ("aligner",), model)) from None


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
        raise ConfigError(format_validation_error(error, source)) from None
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
        text = read_config_file(path, source)
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
    data = read_yaml(text, source)
    if next_dir is not None and isinstance(data.get("plugins"), list):
        data["plugins"] = [_next_to(next_dir, plugin) for plugin in data["plugins"]]
    parent = data.pop("extends", None)
    if parent is None:
        data.setdefault("name", Path(ref).stem if next_dir is not None else ref)
        return data
    if not isinstance(parent, str):
        raise ConfigError(f"{source}: 'extends' must be a preset name or a file path")
    base = _load_raw(parent, next_dir, (*seen, key), presets)
    merged = merge_configs(base, data)
    if "name" not in data:
        merged["name"] = f"{base.get('name', parent)}+{Path(ref).stem}"
    return merged


def _next_to(folder: Path, plugin: Any) -> Any:
    """A ``plugins:`` file named in a configuration file is relative to its folder."""
    from meteorx.registry import is_plugin_file

    if isinstance(plugin, str) and is_plugin_file(plugin):
        return str(folder / os.path.expanduser(plugin))
    return plugin


def merge_configs(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Override top-level keys; nested mappings (normalize, aligner) merge one level deep
    (an ``aligner`` naming another aligner replaces the base's, options and all).

    A ``normalize`` shorthand stands for its fields, so ``normalize: lower`` over a
    preset keeps the preset's Unicode form.
    """
    merged = dict(base)
    for key, value in override.items():
        current = merged.get(key)
        if key == "normalize" and isinstance(current, (str, dict)):
            value, current = normalize_fields(value), normalize_fields(current)
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
            data = merge_configs(_load_raw(str(parent), None, (), presets), data)
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
