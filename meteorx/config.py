"""The configuration of a METEOR run, as users and plugins name it.

:class:`MeteorConfig` is the model (:mod:`meteorx.config_models`, with its parts);
:func:`load_config` reads a preset name, a YAML path or a dict into one, following
``extends``, and :func:`validate_config` validates a plain dict
(:mod:`meteorx.config_loading`). YAML is read by :mod:`meteorx.safe_yaml`; error
messages are worded by :mod:`meteorx.error_text`.
"""

from __future__ import annotations

from meteorx.config_loading import load_config, validate_config
from meteorx.config_models import MeteorConfig

__all__ = ["MeteorConfig", "load_config", "validate_config"]
