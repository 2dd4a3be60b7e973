"""The per-segment pipeline: a resolved configuration -> tokens, links, alignment, counts.

:class:`Pipeline` builds the matchers, the aligner, the normaliser and the function
words once, and turns one hypothesis and its references into a
:class:`~meteorx.results.SegmentResult`. :class:`meteorx.metric.Meteor` is the metric
built on it; nothing else scores a segment. The errors that name a misbehaving plugin
are :mod:`meteorx.pipeline_faults`'s.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from meteorx import word_ids
from meteorx.align import Aligner
from meteorx.building import build_matchers, load_function_words, parameters
from meteorx.config import MeteorConfig
from meteorx.config_loading import aligner_options
from meteorx.counts import Counting, segment_stats
from meteorx.engine import compiled
from meteorx.error_text import describe_error
from meteorx.errors import MeteorxError
from meteorx.inputs import TextOrTokens, check_encodable
from meteorx.languages import Language, resolve_language
from meteorx.matchers import KeyMatcher, Matcher, first_bad_span
from meteorx.normalize import build_normalizer, unicode_form
from meteorx.pipeline_faults import PluginFaults
from meteorx.registry import Registry, get_registry
from meteorx.results import SEGMENT_FIELDS, SegmentResult
from meteorx.scoring import BREAKDOWN_FIELDS, Breakdown, breakdown_of, formula
from meteorx.stats import Stats
from meteorx.types import Alignment, Match, record_maker
from meteorx.word_ids import KeyStageError, WordIds

# Builds a Match without NamedTuple's Python-level __new__ (the hottest allocation).
_tuple_new = tuple.__new__


#: "Word ids" 0 and 1 with their function-word flags: lets the C statistics
#: (``alignment_stats``) take a sentence's function-word flags in place of word ids.
_FLAG_TABLE = bytearray(b"\x00\x01")


class Pipeline(PluginFaults):
    """Matchers, aligner, normaliser and function words of one resolved configuration;
    costly to build (resources load here), cheap to call.

    Thread-safe: threads may share one pipeline. Each thread interns words into tables
    of its own (:meth:`_run`).
    """

    def __init__(self, cfg: MeteorConfig, registry: Registry | None = None) -> None:
        self.config = cfg
        self.registry = registry or get_registry()
        assert cfg.language is not None  # configure() raises for a configuration without one
        self.language: Language = resolve_language(cfg.language)
        self.normalize_line = build_normalizer(cfg.normalize, self.language, self.registry)
        self._to_form = unicode_form(cfg.normalize)  # for token lists (lines: normalize_line)
        self.matchers: list[Matcher] = build_matchers(self.registry, cfg, self.language)
        self.exact_stages = frozenset(i for i, m in enumerate(self.matchers) if m.is_exact)
        factory = self.registry.aligner(cfg.aligner.name)
        self.aligner: Aligner = factory(aligner_options(cfg.aligner, factory.Options))
        # An aligner may align straight from the matchers' prepared forms (skipping the
        # candidate list) when it knows them; it returns None to use the general path.
        self._align_prepared = self.aligner.align_prepared
        # ... and may say which stages' prepared forms it reads: the others are skipped
        # (and prepared after all if it ever declines a pair).
        read = self.aligner.prepared_stages(self.matchers)
        self._preparers: list[Callable[[tuple[str, ...]], Any] | None] = [
            m.prepare if read is None or i in read else None for i, m in enumerate(self.matchers)
        ]
        # Meteor 1.5 aligns identical sentences with its first stage only.
        self._identical_first_stage_only = self.aligner.identical_first_stage_only
        # The aligners shipped with meteorx return subsets of the (checked) candidates;
        # any other aligner's result is checked before it is counted (_check_alignment).
        self._aligner_owner = self.registry.owners.get(f"aligner:{cfg.aligner.name}", "?")
        self._trust_aligner = self.registry.shipped("aligner", cfg.aligner.name)
        self.weights = tuple(stage.weight for stage in cfg.stages)
        self.params = parameters(cfg)
        self.function_words, self.function_words_id = load_function_words(
            self.registry, cfg.function_words, self.language
        )
        # The compiled key-stage pass and statistics, when the engine seam runs C.
        self._links_and_counts = _links_and_counts = compiled("meteorx._links_and_counts")
        self._record = record_maker()  # results and breakdowns, built per segment
        self._counting = Counting.of(cfg, self.function_words)
        # Statistics in C (meteorx.counts.segment_stats's twin) for a word each and no
        # soft credit; characters and soft credit are counted in Python only.
        self._alignment_stats = (
            _links_and_counts.alignment_stats
            if _links_and_counts is not None and self._counting.words_only
            else None
        )
        self._ref_tokens: dict[str, tuple[str, ...]] = {}
        # Key stages (KeyMatcher) run in one compiled pass over word ids; see _word_ids.
        self._plans: list[tuple[bool, int] | None] | None = None
        if (
            _links_and_counts is not None
            and self._align_prepared is None
            and any(isinstance(m, KeyMatcher) for m in self.matchers)
        ):
            self._plans = [
                (m.link_identical, m.max_links) if isinstance(m, KeyMatcher) else None
                for m in self.matchers
            ]
        #: with key stages only, no stage has explicit spans (a list spared per segment)
        self._no_spans: list[Any] | None = (
            [None] * len(self.matchers) if all(self._plans or [None]) else None
        )
        self._local = threading.local()  # each thread's _Words, made on its first use

    # -- scoring ----------------------------------------------------------------------

    def tokenize(self, text: TextOrTokens) -> tuple[str, ...]:
        """Tokens of a raw string (normalised per config) or of a ready token list."""
        if isinstance(text, str):
            if not text.isascii():
                check_encodable(text)
            return tuple(self.normalize_line(text))
        tokens = tuple(text)
        joined = "".join(tokens)  # one C-level pass over all the tokens
        if not joined.isascii():
            try:
                joined.encode("utf-8")
            except UnicodeEncodeError:  # find the token and say where
                for token in tokens:
                    check_encodable(token)
            if self._to_form is not None:
                tokens = tuple(map(self._to_form, tokens))
        if self.config.normalize.lowercase:
            return tuple(map(str.lower, tokens))
        return tokens

    def _tokenize_ref(self, text: TextOrTokens) -> tuple[str, ...]:
        """:meth:`tokenize` for references, which recur (one per system scored)."""
        if not isinstance(text, str):
            return self.tokenize(text)
        tokens = self._ref_tokens.get(text)
        if tokens is None:
            if len(self._ref_tokens) > 20_000:
                self._ref_tokens.clear()
            tokens = self._ref_tokens[text] = self.tokenize(text)
        return tokens

    def _run(self) -> WordIds:
        """This thread's word ids, key tables and prepared references.

        Word ids grow as segments bring new words, and the compiled pass reads the key
        tables by id, so threads sharing a pipeline must not share them: each thread has
        its own, made on its first segment (no lock on the hot path; the memory of
        every thread's tables, up to ``word_ids.MAX_WORDS`` words, is freed when it
        ends)."""
        try:
            run: WordIds = self._local.run
        except AttributeError:
            run = self._reset_words()
        return run

    @property
    def _ref_cache(self) -> dict[tuple[str, ...], list[Any]]:
        """This thread's prepared references (see :meth:`_run`)."""
        return self._run().ref_cache

    def _reset_words(self) -> WordIds:
        """Forget this thread's word ids (and its reference cache, which holds some)."""
        run = self._local.run = WordIds(
            self._links_and_counts, self.matchers, self._plans, self.function_words
        )
        return run

    def _spans(self, stage: int, hyp_prepared: Any, ref_prepared: Any) -> list[Any]:
        """A stage's candidate spans as a list (a matcher that raises: PluginError)."""
        try:
            spans = self.matchers[stage].candidates(hyp_prepared, ref_prepared)
            return spans if type(spans) is list else list(spans)
        except MeteorxError:
            raise
        except Exception as error:
            raise self._plugin_error(stage, "candidates", describe_error(error)) from error

    def _word_ids(self, tokens: tuple[str, ...], may_reset: bool) -> list[int]:
        """The words' ids in this thread's tables (new words get one); ``may_reset``
        only between segments."""
        run = self._run()
        words = run.words
        try:
            return [words[t] for t in tokens]
        except KeyError:
            pass
        if may_reset and len(words) > word_ids.MAX_WORDS:
            run = self._reset_words()
            words = run.words
        try:
            run.add(list(dict.fromkeys(t for t in tokens if t not in words)))
        except KeyStageError as failed:
            self._reset_words()  # the tables may hold part of the batch
            error = failed.__cause__ or failed
            if isinstance(error, MeteorxError):
                raise error from None
            raise self._plugin_error(failed.stage, "keys", describe_error(error)) from error
        return [words[t] for t in tokens]

    def _prepare(self, tokens: tuple[str, ...], may_reset: bool = False) -> list[Any]:
        """Every stage's prepared form of a sentence; with the key-stage pass, key stages
        get None and the last element holds the word ids. A matcher whose ``prepare``
        raises is a PluginError naming it."""
        try:
            return self._prepare_unchecked(tokens, may_reset)
        except MeteorxError:
            raise
        except Exception as error:
            raise self._prepare_error(tokens, error) from error

    def _prepare_all(self, tokens: tuple[str, ...]) -> list[Any]:
        """Every matcher's ``prepare(tokens)`` (a matcher that raises: PluginError)."""
        try:
            return [m.prepare(tokens) for m in self.matchers]
        except MeteorxError:
            raise
        except Exception as error:
            raise self._prepare_error(tokens, error) from error

    def _prepare_unchecked(self, tokens: tuple[str, ...], may_reset: bool) -> list[Any]:
        plans = self._plans
        if plans is None:
            return [None if p is None else p(tokens) for p in self._preparers]
        ids = self._word_ids(tokens, may_reset)
        prepared: list[Any] = [
            None if plan else m.prepare(tokens)
            for m, plan in zip(self.matchers, plans, strict=True)
        ]
        prepared.append(ids)
        return prepared

    def _prepared_ref(self, tokens: tuple[str, ...]) -> list[Any]:
        cache = self._run().ref_cache
        prepared = cache.get(tokens)
        if prepared is None:
            if len(cache) > 20_000:
                cache.clear()
            prepared = self._prepare(tokens)
            cache[tokens] = prepared
        return prepared

    def _pair(
        self,
        hyp: tuple[str, ...],
        hyp_prepared: list[Any],
        ref: tuple[str, ...],
    ) -> tuple[Stats, Breakdown, Alignment]:
        ref_prepared = self._prepared_ref(ref)
        n_stages = len(self.matchers)
        if self._identical_first_stage_only and hyp == ref:
            n_stages = 1
        if self._plans is not None:
            return self._pair_keyed(hyp, ref, hyp_prepared, ref_prepared, n_stages)
        fast = self._align_prepared
        alignment = (
            fast(self.matchers[:n_stages], hyp_prepared, ref_prepared, len(hyp), len(ref))
            if fast is not None
            else None
        )
        if alignment is None:
            if None in self._preparers:  # the aligner declined: prepare what it skipped
                hyp_prepared = self._prepare_all(hyp)
                ref_prepared = self._prepare_all(ref)
            alignment = self._align(hyp, hyp_prepared, ref, ref_prepared, n_stages)
        if not self._trust_aligner:
            self._check_alignment(alignment, len(hyp), len(ref))
        if self._alignment_stats is not None:  # the same, in C
            fw = self.function_words
            hyp_flags = [int(t.lower() in fw) for t in hyp] if fw else [0] * len(hyp)
            ref_flags = [int(t.lower() in fw) for t in ref] if fw else [0] * len(ref)
            stats = self._alignment_stats(
                alignment.matches,
                alignment.chunks,
                len(self.matchers),
                hyp_flags,
                ref_flags,
                _FLAG_TABLE,
                self.params.perfect_match_rule,
                Stats,
            )
        else:
            stats = segment_stats(self._counting, hyp, ref, alignment)
        return stats, breakdown_of(stats, self.params), alignment

    def _align(
        self,
        hyp: tuple[str, ...],
        hyp_prepared: list[Any],
        ref: tuple[str, ...],
        ref_prepared: list[Any],
        n_stages: int,
    ) -> Alignment:
        candidates: list[Match] = []
        new = _tuple_new
        for s in range(n_stages):
            spans = self._spans(s, hyp_prepared[s], ref_prepared[s])
            bad = first_bad_span(spans, len(hyp), len(ref))
            if bad is not None:
                raise self._bad_span(s, bad[0], len(hyp), len(ref))
            candidates.extend([new(Match, (h[2], h[3], h[0], h[1], s)) for h in spans])
        return self.aligner.align(candidates, len(hyp), len(ref), self.weights, self.exact_stages)

    def _pair_keyed(
        self,
        hyp: tuple[str, ...],
        ref: tuple[str, ...],
        hyp_prepared: list[Any],
        ref_prepared: list[Any],
        n_stages: int,
    ) -> tuple[Stats, Breakdown, Alignment]:
        """:meth:`_pair` with the key stages' links and the counts done by the compiled
        pass over word ids (same results as :meth:`_align` and :meth:`_stats`)."""
        plans = self._plans
        _links_and_counts = self._links_and_counts
        assert plans is not None and _links_and_counts is not None
        explicit = self._no_spans or [
            None if plans[s] else self._spans(s, hyp_prepared[s], ref_prepared[s])
            for s in range(n_stages)
        ]
        hyp_ids = hyp_prepared[-1]
        ref_ids = ref_prepared[-1]
        run = self._run()  # the tables the ids are in
        hyp_len = len(hyp_ids)
        ref_len = len(ref_ids)
        try:  # checks every explicit span (see meteorx.matchers.span_problem)
            candidates = _links_and_counts.key_candidates(
                Match, plans, run.tables, hyp_ids, ref_ids, explicit, n_stages
            )
        except _links_and_counts.BadSpan as error:
            stage, span = error.args
            raise self._bad_span(stage, span, hyp_len, ref_len) from None
        alignment = self.aligner.align(
            candidates, hyp_len, ref_len, self.weights, self.exact_stages
        )
        if not self._trust_aligner:
            self._check_alignment(alignment, hyp_len, ref_len)
        if self._alignment_stats is None:  # characters, soft credit: counted over tokens
            stats = segment_stats(self._counting, hyp, ref, alignment)
        else:
            stats = self._alignment_stats(
                alignment.matches,
                alignment.chunks,
                len(self.matchers),
                hyp_ids,
                ref_ids,
                run.function_word,
                self.params.perfect_match_rule,
                Stats,
            )
        breakdown = self._record(Breakdown, BREAKDOWN_FIELDS, formula(stats, self.params))
        return stats, breakdown, alignment

    def _best(self, hyp: TextOrTokens, ref_list: Sequence[TextOrTokens]) -> SegmentResult:
        """The result of the best-scoring of ``ref_list`` (checked references)."""
        hyp_tokens = self.tokenize(hyp)
        hyp_prepared = self._prepare(hyp_tokens, may_reset=True)
        best: SegmentResult | None = None
        for index, ref in enumerate(ref_list):
            ref_tokens = self._tokenize_ref(ref)
            stats, breakdown, alignment = self._pair(hyp_tokens, hyp_prepared, ref_tokens)
            if best is None or breakdown.score > best.score:
                best = self._record(
                    SegmentResult,
                    SEGMENT_FIELDS,
                    (breakdown.score, breakdown, stats, alignment, hyp_tokens, ref_tokens, index),
                )
        assert best is not None
        return best
