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


#: Scorers by (preset name or None, language): a preset ships with the package, so the
#: name alone says the configuration, and a call skips reading and validating its YAML.
_BY_NAME: dict[tuple[str | None, str | None], Scorer] = {}


def _cached_scorer(config: Any, language: str | None) -> Scorer:
    """One scorer per distinct validated configuration (shared with ``meteorx.compute``)."""
    from meteorx.api import _MAX_CACHED, get_scorer
    from meteorx.defaults import configure

    named = config is None or (isinstance(config, str) and not config.endswith((".yaml", ".yml")))
    key = (config, language)
    scorer = _BY_NAME.get(key) if named else None
    if scorer is None:
        scorer = get_scorer(configure(config, language=language))
        if named:
            if len(_BY_NAME) >= _MAX_CACHED:
                _BY_NAME.clear()
            _BY_NAME[key] = scorer
    return scorer


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
