"""meteorx: the METEOR metric for every language, fast, configurable, extensible.

Quick use::

    >>> import meteorx
    >>> round(meteorx.score("the cat sat on the mat", "the cat sat on the mat").score, 4)
    1.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from meteorx.config_models import MeteorConfig, Overrides
    from meteorx.metric import CorpusResult, Meteor, Scorer, SegmentResult, TextOrTokens

__all__ = [
    "Meteor",
    "MeteorConfig",
    "Scorer",
    "__version__",
    "build_scorer",
    "compute",
    "corpus_score",
    "load_config",
    "register",
    "score",
]


def score(
    hypothesis: TextOrTokens,
    references: Any,
    config: Any = None,
    **overrides: Unpack[Overrides],
) -> SegmentResult:
    """Score one hypothesis against one or more references.

    ``config`` is a preset name, a YAML path, a dict or a :class:`MeteorConfig`;
    ``language`` (an ISO 639-1 code), ``normalize`` and ``alpha`` .. ``delta`` override
    its settings (:class:`~meteorx.config_models.Overrides`). The
    defaults are those of :func:`meteorx.compute` and ``meteorx score`` (all three go
    through :func:`meteorx.api.build_scorer`): with no ``config``, the language's
    recommended configuration (English, the default language: ``meteor-1.5-en`` with
    the jar's ``-norm``; any other: the ``meteorx`` preset for it). Scorers are built
    once per configuration and shared.
    """
    from meteorx.api import build_scorer

    return build_scorer(config, shared=True, **overrides).segment(hypothesis, references)


def corpus_score(
    hypotheses: Any, references: Any, config: Any = None, **overrides: Unpack[Overrides]
) -> CorpusResult:
    """Score a whole system (statistics summed over segments); see :func:`score`."""
    from meteorx.api import build_scorer

    return build_scorer(config, shared=True, **overrides).corpus(hypotheses, references)


def register(plugin: Any, *, name: str | None = None) -> str:
    """Use a plugin that is not installed, in this process; return its name.

    ``plugin`` is a ``.py`` file's path, a module name (``package.module``), a module,
    or an object whose methods are hook implementations (``@hookimpl`` from
    :mod:`meteorx.hookspecs`), such as one defined in a notebook. It is checked like an
    installed plugin, and a broken one raises :class:`~meteorx.errors.PluginError`.
    Scorers built afterwards see what it registers, and signatures name it with a
    digest of its file (:func:`meteorx.registry.register`).
    """
    from meteorx.registry import register as register_plugin

    return register_plugin(plugin, name=name)


def __getattr__(name: str) -> Any:
    # Lazy imports keep ``import meteorx`` (and CLI start-up) fast.
    if name in ("compute", "build_scorer"):
        from meteorx import api

        return getattr(api, name)
    if name in ("Meteor", "Scorer"):
        from meteorx import metric

        return getattr(metric, name)
    if name == "load_config":
        from meteorx.config_loading import load_config

        return load_config
    if name == "MeteorConfig":
        from meteorx.config_models import MeteorConfig

        return MeteorConfig
    raise AttributeError(name)
