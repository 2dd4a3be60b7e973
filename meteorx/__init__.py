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
    from meteorx.config import MeteorConfig
    from meteorx.scorer import CorpusResult, Scorer, SegmentResult, TextOrTokens

__all__ = [
    "MeteorConfig",
    "Scorer",
    "__version__",
    "compute",
    "corpus_score",
    "load_config",
    "score",
]


def _cached_scorer(config: Any, language: str | None) -> Scorer:
    """One scorer per distinct validated configuration (shared with ``meteorx.compute``)."""
    from meteorx.api import get_scorer
    from meteorx.defaults import configure

    return get_scorer(configure(config, language=language))


def score(
    hypothesis: TextOrTokens, references: Any, config: Any = None, *, language: str | None = None
) -> SegmentResult:
    """Score one hypothesis against one or more references.

    ``config`` is a preset name, a YAML path, a dict or a :class:`MeteorConfig`;
    ``language`` an ISO 639-1 code. With no ``config``, the language's recommended
    configuration (English, the default language: ``meteor-1.5-en`` with the jar's
    ``-norm``; any other: the ``meteorx`` preset for it). Scorers are cached per
    configuration.
    """
    return _cached_scorer(config, language).segment(hypothesis, references)


def corpus_score(
    hypotheses: Any, references: Any, config: Any = None, *, language: str | None = None
) -> CorpusResult:
    """Score a whole system (statistics summed over segments); see :func:`score`."""
    return _cached_scorer(config, language).corpus(hypotheses, references)


def __getattr__(name: str) -> Any:
    # Lazy imports keep ``import meteorx`` (and CLI start-up) fast.
    if name == "compute":
        from meteorx.api import compute

        return compute
    if name == "Scorer":
        from meteorx.scorer import Scorer

        return Scorer
    if name == "load_config":
        from meteorx.config import load_config

        return load_config
    if name == "MeteorConfig":
        from meteorx.config import MeteorConfig

        return MeteorConfig
    raise AttributeError(name)
