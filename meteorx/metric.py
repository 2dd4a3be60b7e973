"""The METEOR metric of one configuration: :class:`Meteor`, the object every entry point
scores through.

``Meteor(config, language=..., normalize=...)`` resolves the configuration once
(:func:`meteorx.defaults.configure`, the one place overrides apply) and builds its
pipeline (matchers, aligner, normaliser: resources load here). Then, in the spirit of
sacreBLEU's ``Metric``:

* :meth:`Meteor.extract_stats` -- a segment's sufficient statistics;
* :meth:`Meteor.score` -- statistics -> precision, recall, penalty, score;
* :meth:`Meteor.sentence_score` -- one hypothesis against its references;
* :meth:`Meteor.corpus_score` -- a system: summed statistics, then the formula;
* :meth:`Meteor.system` -- the one corpus aggregation (summed statistics and the
  configuration's ``system_score`` rule), which streaming, ``--jobs``, Spark, reports
  and ``meteorx.compute`` all call;
* :meth:`Meteor.signature` -- every setting that can change a number.

>>> from meteorx.metric import Meteor
>>> metric = Meteor("li", language="en")
>>> metric.sentence_score("the cat sat", ["the cat sat"]).score
1.0

A ``Meteor`` is safe to share between threads and pickles as its configuration, so
sending one to another process is cheap (the receiving process builds it once).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from meteorx.config import MeteorConfig
from meteorx.config_models import Overrides
from meteorx.defaults import configure
from meteorx.inputs import TextOrTokens, checked_references, paired
from meteorx.pipeline import Pipeline
from meteorx.registry import Registry
from meteorx.results import SEGMENT_FIELDS, CorpusResult, SegmentResult
from meteorx.scoring import Breakdown, breakdown_of, system_breakdown
from meteorx.signature import signature as make_signature
from meteorx.stats import Stats, sum_stats

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "SEGMENT_FIELDS",
    "CorpusResult",
    "Meteor",
    "Scorer",
    "SegmentResult",
    "TextOrTokens",
    "paused_gc",
]


class Meteor(Pipeline):
    """The METEOR metric of one configuration; costly to build, cheap to call.

    ``config`` is a preset name, a YAML path, a dict, a :class:`MeteorConfig` or
    ``None`` (the language's recommended configuration); the
    :class:`~meteorx.config_models.Overrides` (``language``, ``normalize``, ``alpha`` ..
    ``delta``) replace its settings. Thread-safe: threads may share one.
    """

    def __init__(
        self,
        config: str | Path | MeteorConfig | dict[str, Any] | None = None,
        *,
        registry: Registry | None = None,
        **overrides: Unpack[Overrides],
    ) -> None:
        super().__init__(configure(config, **overrides), registry)

    def __reduce__(self) -> tuple[Callable[..., Meteor], tuple[MeteorConfig]]:
        # Sent as its configuration: the receiving process builds (and keeps) its own,
        # registering the configuration's plugins on the way (meteorx.config.load_config).
        return _rebuilt, (self.config,)

    # -- the metric -------------------------------------------------------------------

    def extract_stats(
        self, hyp: TextOrTokens, refs: TextOrTokens | Sequence[TextOrTokens]
    ) -> Stats:
        """A segment's sufficient statistics (those of its best-scoring reference)."""
        return self.sentence_score(hyp, refs).stats

    def score(self, stats: Stats) -> Breakdown:
        """Apply this configuration's formula to a statistics record (no re-alignment);
        :class:`~meteorx.errors.InputError` for a record that could not have been counted."""
        from meteorx.formats.stats_file import checked_record

        return breakdown_of(checked_record(stats, self.config.block_names), self.params)

    rescore = score

    def sentence_score(
        self, hyp: TextOrTokens, refs: TextOrTokens | Sequence[TextOrTokens]
    ) -> SegmentResult:
        """Score one hypothesis against one or more references (the best one counts)."""
        return self._best(hyp, checked_references(hyp, refs))

    segment = sentence_score

    def corpus_score(
        self,
        hyps: Iterable[TextOrTokens],
        refs: Iterable[TextOrTokens | Sequence[TextOrTokens]],
    ) -> CorpusResult:
        """Score a system: every segment, and the score of the summed statistics."""
        segments = []
        n_refs = 0  # the most references any segment has, for the signature's refs:N
        with paused_gc():
            for h, r in paired(hyps, refs):
                ref_list = checked_references(h, r)
                segments.append(self._best(h, ref_list))
                n_refs = max(n_refs, len(ref_list))
        return self.combine(segments, refs=n_refs)

    corpus = corpus_score

    def combine(self, segments: Sequence[SegmentResult], refs: int | None = None) -> CorpusResult:
        """The corpus result of already scored segments; ``refs``, the number of
        references per segment (the most any had), goes into the signature."""
        total = sum_stats(s.stats for s in segments)
        breakdown = self.system(total, lambda: (sum(s.score for s in segments), len(segments)))
        return CorpusResult(
            breakdown.score, breakdown, total, tuple(segments), self.signature(refs=refs)
        )

    def system(
        self, total: Stats, scores: Sequence[float] | Callable[[], tuple[float, int]]
    ) -> Breakdown:
        """A system's breakdown from its summed statistics ``total`` under the
        configuration's ``system_score`` rule; ``scores`` (its segment scores, or a
        function giving their sum and number) are read only by the ``mean`` rule."""
        return system_breakdown(total, self.params, self.config.system_score, scores)

    def signature(self, refs: int | None = None, resampling: Sequence[str] = ()) -> str:
        """The one-line signature naming every setting that affects the numbers;
        ``refs``, the number of references per segment, adds ``refs:N``;
        ``resampling``, the significance fields (``bs:N``, ``ar:N``, ``seed:S``)."""
        return make_signature(self, refs=refs, resampling=resampling)


#: The name meteorx used before :class:`Meteor`; the same class.
Scorer = Meteor


def _rebuilt(config: MeteorConfig) -> Meteor:
    """The process's Meteor of ``config``, built on first use (what an unpickled
    Meteor is): the front door's shared Meteor, so a pool's workers and Spark's
    executors build each configuration once."""
    from meteorx.api import build_scorer

    return build_scorer(config, shared=True)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for a scoring loop.

    Scoring creates many small container objects and keeps them (the results); the
    collector's repeated passes over them cost 25-35% of the run, and scoring makes
    (almost) no reference cycles to collect. The previous state is restored after.
    On the way out the loop's objects move straight to the oldest generation (the
    documented ``freeze``/``unfreeze`` pair), so the first allocation after the loop
    does not examine them all at once; the next full collection sees them as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:  # nothing of the caller's is frozen
                gc.freeze()
                gc.unfreeze()
            gc.enable()
