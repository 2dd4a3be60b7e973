"""What tuning writes: the tuned configuration, as a model and as a YAML file."""

from __future__ import annotations

import re
from collections.abc import Sequence

import yaml

from meteorx.config_models import MeteorConfig
from meteorx.tune.search import Setting


def tuned_config(config: MeteorConfig, setting: Setting, name: str | None = None) -> MeteorConfig:
    """``config`` with the tuned α β γ δ and stage (and soft credit) weights, values
    rounded to 4 places."""
    weighted = config.with_block_weights([round(w, 4) for w in setting.weights])
    return weighted.model_copy(
        update={
            "name": name or f"{config.name}+tuned",
            "alpha": round(setting.alpha, 4),
            "beta": round(setting.beta, 4),
            "gamma": round(setting.gamma, 4),
            "delta": round(setting.delta, 4),
        }
    )


_ALWAYS_WRITTEN = (
    "name", "language", "normalize", "stages", "alpha", "beta", "gamma", "delta",
    "function_words", "perfect_match_rule", "units", "soft_credit", "aligner",
)  # fmt: skip


def config_yaml(config: MeteorConfig, header: Sequence[str] = ()) -> str:
    """A standalone YAML file for ``config`` (loadable with ``--config`` or as a preset),
    preceded by ``header`` as comment lines."""
    full = config.model_dump(mode="json", exclude_none=True)
    # The settings that define the metric are always written out; any other field only
    # when it differs from the model's default (so the file keeps loading if fields
    # with defaults are added to the model later).
    data = {key: full[key] for key in _ALWAYS_WRITTEN if key in full}
    data["stages"] = [s.model_dump(exclude_none=True) for s in config.stages]
    aligner = config.aligner.model_dump(mode="json", exclude_defaults=True)
    data["aligner"] = {"name": config.aligner.name, **aligner}
    for key, value in config.model_dump(mode="json", exclude_defaults=True).items():
        data.setdefault(key, value)
    comments = "".join(f"# {line}\n".replace("# \n", "#\n") for line in header)
    return comments + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", text).strip("-") or "tuned"
