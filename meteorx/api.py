"""The front door, :func:`build_scorer`, and ``meteorx.compute`` (``evaluate``'s convention).

:func:`build_scorer` turns a configuration reference plus overrides into a
:class:`~meteorx.metric.Scorer`; every entry point (``meteorx.score``, ``compute``,
the command line, the ``evaluate`` module, Spark, the compat layers) builds its scorer
there, so they share one set of defaults. :func:`compute` scores like Hugging Face
``evaluate``'s metric, without ``evaluate``:

>>> import meteorx.api as api
>>> api.compute(predictions=["the cat sat on the mat"],
...             references=[["the cat sat on the mat", "a cat sat"]], config="li",
...             language="en")
{'meteor': 1.0}

Inputs are those of ``evaluate.load("meteor").compute``: ``predictions`` is a list of
strings; ``references`` a list holding, for each prediction, one reference string or
a list of reference strings (the best-scoring one counts). ``alpha``, ``beta`` and
``gamma`` override the configuration's, as in ``evaluate``'s metric.

The output has the same key, ``"meteor"``, with two deliberate choices:

* the default configuration, the same as ``meteorx.score``'s and ``meteorx score``'s,
  is the language's recommended one: for English (the
  default language) ``meteor-1.5-en`` with the jar's ``-norm`` normalisation (what
  ``pycocoevalcap`` and ``java -jar meteor-1.5.jar -l en -norm`` report), not NLTK's
  approximation; for another ``language`` the ``meteorx`` preset resolved for it;
  ``config="nltk"`` gives NLTK's numbers (with whitespace tokens, where ``evaluate``
  uses ``nltk.word_tokenize``);
* ``aggregate="corpus"`` is the METEOR system score, computed once from the summed
  sufficient statistics; ``aggregate="mean"`` is the mean of the segment scores, which
  is what ``evaluate``'s "meteor" reports. By default the configuration's
  ``system_score`` decides (``statistics`` for every preset but ``nltk``, whose
  ``mean`` makes ``config="nltk"`` give ``evaluate``'s numbers).

``segment_scores=True`` adds ``"scores"`` (one per prediction) and ``signature=True``
adds ``"signature"`` (every setting that affects the numbers). Bad input raises
:class:`~meteorx.errors.InputError`; a bad configuration
:class:`~meteorx.errors.ConfigError` (both :class:`~meteorx.errors.MeteorxError`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from meteorx import engine
from meteorx.config import MeteorConfig
from meteorx.config_models import Overrides
from meteorx.defaults import configure
from meteorx.errors import InputError
from meteorx.registry import get_registry
from meteorx.scoring import system_breakdown
from meteorx.stats import sum_stats

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from meteorx.metric import Meteor
    from meteorx.registry import Registry

__all__ = ["build_scorer", "compute"]

#: Shared scorers (``build_scorer(..., shared=True)``) by the validated configuration,
#: and by the reference itself when it is a preset name (or None): a preset ships with
#: the package, so the name and overrides say the configuration, and a repeated call
#: skips reading and validating its YAML.
_SHARED: dict[Any, Meteor] = {}
_LOCK = threading.Lock()
_MAX_SHARED = 32


def build_scorer(
    config: str | Path | MeteorConfig | dict[str, Any] | None = None,
    *,
    registry: Registry | None = None,
    shared: bool = False,
    **overrides: Unpack[Overrides],
) -> Meteor:
    """The front door: a configuration reference plus overrides -> a :class:`Meteor`.

    ``config`` is a preset name, a YAML path, a dict, a :class:`MeteorConfig` or
    ``None`` (the language's recommended configuration: English, the default language,
    is ``meteor-1.5-en`` with the jar's ``-norm``; any other the ``meteorx`` preset for
    it). The :class:`~meteorx.config_models.Overrides` (``language``, ``normalize``,
    ``alpha`` .. ``delta``) replace its settings (:func:`meteorx.defaults.configure`,
    the one place overrides apply). The API, the
    command line, the ``evaluate`` module, Spark and the compat layers all build their
    scorers here, so the same arguments give the same numbers everywhere.

    ``shared=True`` returns one scorer per distinct configuration, built once per
    process (what ``meteorx.score``/``compute`` and Spark's executors use): building
    loads the resources; threads may score with it at once (see :class:`Scorer`).
    """
    from meteorx.metric import Meteor

    if not shared or registry is not None:
        return Meteor(config, registry=registry, **overrides)
    named = config is None or (isinstance(config, str) and not config.endswith((".yaml", ".yml")))
    # A shared scorer runs the engine it was built on (meteorx.engine.use switches it)
    # and the plugins it was built with (meteorx.register makes another registry; a
    # shared scorer keeps its registry alive, so no other registry can have that id).
    plugins = get_registry()
    built_with = (engine.requested(), id(plugins))
    name_key: tuple[Any, ...] | None = None
    if named:
        name_key = (config, tuple(sorted(overrides.items())), built_with)
        try:
            hash(name_key)
        except TypeError:  # a mapping for normalize: found by the configuration instead
            name_key = None
    with _LOCK:
        scorer = _SHARED.get(name_key)
    if scorer is None:
        cfg = configure(config, **overrides)  # (may register the configuration's plugins)
        key = (cfg.model_dump_json(), engine.requested(), id(get_registry()))
        with _LOCK:
            scorer = _SHARED.get(key)
        if scorer is None:
            scorer = Meteor(cfg)
        with _LOCK:
            if len(_SHARED) >= _MAX_SHARED:
                _SHARED.clear()
            _SHARED[key] = scorer
            if name_key is not None and scorer.registry is plugins:
                _SHARED[name_key] = scorer
    return scorer


def _as_references(references: Any, n: int) -> list[list[str]]:
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise InputError(
            "references must be a list with one reference (a string) or a list of "
            f"references for each prediction, got {type(references).__name__}"
        )
    if len(references) != n:
        raise InputError(f"got {n} predictions but {len(references)} references; they must pair up")
    out: list[list[str]] = []
    for i, item in enumerate(references):
        if isinstance(item, str):
            out.append([item])
            continue
        if not isinstance(item, Sequence) or not all(isinstance(r, str) for r in item):
            raise InputError(
                f"references[{i}] must be a string or a list of strings, got {type(item).__name__}"
            )
        if not item:
            raise InputError(f"references[{i}] is an empty list: give at least one reference")
        out.append(list(item))
    return out


def compute(
    predictions: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    *,
    config: str | Path | MeteorConfig | dict[str, Any] | None = None,
    preset: str | None = None,
    aggregate: str | None = None,
    segment_scores: bool = False,
    signature: bool = False,
    **overrides: Unpack[Overrides],
) -> dict[str, Any]:
    """METEOR of ``predictions`` against ``references``; ``{"meteor": score}``.

    ``preset`` is an alias of ``config`` (give one of them). See the module docstring
    for the defaults and for ``aggregate``.
    """
    if preset is not None:
        if config is not None:
            raise InputError("give either config or preset, not both")
        config = preset
    if aggregate not in (None, "corpus", "statistics", "mean"):
        raise InputError(f"aggregate must be 'corpus' or 'mean', got {aggregate!r}")
    if isinstance(predictions, str) or not isinstance(predictions, Sequence):
        raise InputError(f"predictions must be a list of strings, got {type(predictions).__name__}")
    for i, p in enumerate(predictions):
        if not isinstance(p, str):
            raise InputError(f"predictions[{i}] must be a string, got {type(p).__name__}")
    refs = _as_references(references, len(predictions))
    if not predictions:
        raise InputError("no predictions to score")
    scorer = build_scorer(config, shared=True, **overrides)
    results = [scorer.segment(p, r) for p, r in zip(predictions, refs, strict=True)]
    scores = [r.score for r in results]
    rule = scorer.config.system_score if aggregate is None else aggregate
    value = system_breakdown(sum_stats(r.stats for r in results), scorer.params, rule, scores).score
    out: dict[str, Any] = {"meteor": float(value)}
    if segment_scores:
        out["scores"] = scores
    if signature:
        out["signature"] = scorer.signature(refs=max(len(r) for r in refs))
    return out
