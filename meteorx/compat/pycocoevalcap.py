"""A drop-in ``pycocoevalcap.meteor.meteor.Meteor`` that needs no Java.

``pycocoevalcap`` (the COCO caption evaluation toolkit) runs ``meteor-1.5.jar -stdio
-l en -norm`` in a subprocess. :class:`Meteor` here has the same methods and contract
and computes the same numbers in Python, with the ``meteor-1.5-en`` preset and the
``meteor`` normaliser (the jar's ``-norm``)::

    # from pycocoevalcap.meteor.meteor import Meteor
    from meteorx.compat.pycocoevalcap import Meteor

    score, scores = Meteor().compute_score(gts, res)

``gts`` maps an id to its reference captions (a list of strings), ``res`` the same ids
to a one-element list holding the candidate caption. The result is the corpus score
(from summed statistics, as the jar's ``EVAL`` line computes it) and the list of
segment scores in the order of ``gts``' keys.

What the wrapper does to the text is reproduced too: ``|||`` is deleted from the
candidate, and a reference containing ``|||`` is split there into several references
(the wrapper joins references with ``|||`` and the jar splits on it). Where the
original hangs or crashes (a caption with a line break desynchronises the jar's
line protocol; an id without references makes it fail), this class raises
:class:`CompatInputError` instead. It is an :class:`~meteorx.errors.InputError` and also
an :class:`AssertionError`, the error pycocoevalcap raises for mismatched keys and
candidate lists that do not hold exactly one caption.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from meteorx.api import build_scorer
from meteorx.config_models import MeteorConfig
from meteorx.errors import InputError, ResourceError
from meteorx.metric import SegmentResult

__all__ = ["CompatInputError", "Meteor"]


class CompatInputError(InputError, AssertionError):
    """Input pycocoevalcap would reject (with ``assert``) or choke on."""


def _default_config() -> dict[str, Any]:
    """``meteor-1.5-en`` with the jar's own English function-word list when it can be read.

    The list is read from the ``meteor-1.5.jar`` that the ``pycocoevalcap`` package
    installs; without it, meteorx's builtin English list is used (and a warning says
    that the numbers then differ slightly from the jar's, through δ).
    """
    from meteorx.registry import get_registry

    config: dict[str, Any] = {"extends": "meteor-1.5-en", "function_words": "meteor-1.5"}
    source = get_registry().function_word_source("meteor-1.5")
    try:
        if source is None:
            raise ResourceError("no 'meteor-1.5' function-word source is installed")
        from meteorx.languages import resolve_language

        source(resolve_language("en"))
    except ResourceError as error:
        warnings.warn(
            f"Meteor 1.5's English function words are not available ({error}); using "
            "meteorx's builtin list, so scores can differ slightly from the jar's",
            stacklevel=3,
        )
        config["function_words"] = "builtin"
    return config


class Meteor:
    """``pycocoevalcap.meteor.meteor.Meteor`` without the jar.

    :param config: the configuration (default ``meteor-1.5-en`` with the jar's English
        function words, as ``-l en``).
    :param normalize: the normalisation (default ``meteor``, as ``-norm``).
    """

    def __init__(
        self,
        config: str | Path | MeteorConfig | dict[str, Any] | None = None,
        *,
        normalize: str | None = "meteor",
    ) -> None:
        if config is None:
            config = _default_config()
        self.scorer = build_scorer(config, normalize=normalize)
        self.lock = threading.Lock()

    def method(self) -> str:
        return "METEOR"

    def compute_score(
        self, gts: Mapping[Any, Sequence[str]], res: Mapping[Any, Sequence[str]]
    ) -> tuple[float, list[float]]:
        """Corpus score and per-id scores (in ``gts``' key order)."""
        if not isinstance(gts, Mapping) or not isinstance(res, Mapping):
            raise CompatInputError(
                "gts and res must be dicts of id -> list of captions, not "
                f"{type(gts).__name__} and {type(res).__name__}"
            )
        if gts.keys() != res.keys():
            missing = set(gts.keys()) ^ set(res.keys())
            example = sorted(map(repr, missing))[:3]
            raise CompatInputError(
                f"gts and res must have the same ids; {len(missing)} differ "
                f"(e.g. {', '.join(example)})"
            )
        results: list[SegmentResult] = []
        with self.lock:
            for key in gts:
                candidates = res[key]
                if (
                    not isinstance(candidates, Sequence)
                    or isinstance(candidates, str)
                    or len(candidates) != 1
                ):
                    raise CompatInputError(
                        f"res[{key!r}] must be a list holding exactly one caption"
                    )
                results.append(self._segment(key, candidates[0], gts[key]))
        if not results:
            return 0.0, []
        return self.scorer.combine(results).score, [r.score for r in results]

    def _score(self, hypothesis_str: str, reference_list: Sequence[str]) -> float:
        """One caption's score (pycocoevalcap's ``_score``)."""
        with self.lock:
            return self._segment(None, hypothesis_str, reference_list).score

    def _segment(self, key: Any, hypothesis: str, references: Sequence[str]) -> SegmentResult:
        where = "" if key is None else f" (id {key!r})"
        if not isinstance(hypothesis, str):
            raise CompatInputError(f"a caption must be a string{where}")
        if (
            not isinstance(references, Sequence)
            or isinstance(references, str)
            or not all(isinstance(r, str) for r in references)
        ):
            raise CompatInputError(f"references must be a list of strings{where}")
        if not references:
            raise CompatInputError(f"no reference captions{where}")
        if any("\n" in t or "\r" in t for t in (hypothesis, *references)):
            raise CompatInputError(
                f"a caption contains a line break{where}; the Meteor jar's line protocol "
                "cannot take it (replace line breaks with spaces)"
            )
        hypothesis = hypothesis.replace("|||", "")
        refs = [r.strip() for r in " ||| ".join(references).split("|||")]
        return self.scorer.segment(hypothesis.strip(), refs)

    def close(self) -> None:
        """Nothing to release (there is no subprocess); kept for symmetry."""

    def __enter__(self) -> Meteor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
