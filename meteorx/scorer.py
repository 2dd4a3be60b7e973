"""The scorer: configuration -> matchers, aligner, normaliser -> scores.

Build a :class:`Scorer` once (resources load here), then score as many segments as
you like. Results carry the sufficient statistics and the alignment, so corpus scores
are computed from summed statistics, never from averaged segment scores.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from meteorx.align import Aligner
from meteorx.config import MeteorConfig, aligner_options, describe_error, quote
from meteorx.defaults import configure
from meteorx.engine import compiled
from meteorx.errors import ConfigError, InputError, MeteorxError, PluginError, ResourceError, cut
from meteorx.inputs import paired
from meteorx.languages import Language, resolve_language
from meteorx.matchers import KeyMatcher, Matcher, first_bad_span, span_problem
from meteorx.normalize import build_normalizer, unicode_form
from meteorx.registry import Registry, get_registry
from meteorx.resources import MissingResource, missing_resources_error
from meteorx.scoring import BREAKDOWN_FIELDS, Breakdown, Parameters, compute, formula, system_score
from meteorx.signature import signature
from meteorx.stats import Stats, sum_stats
from meteorx.types import Alignment, Match, record_maker

TextOrTokens = str | Sequence[str]

# Builds a Match without NamedTuple's Python-level __new__ (the hottest allocation).
_tuple_new = tuple.__new__


#: "Word ids" 0 and 1 with their function-word flags: lets the C statistics
#: (``alignment_stats``) take a sentence's function-word flags in place of word ids.
_FLAG_TABLE = bytearray(b"\x00\x01")

#: The word-id table of the key-stage pass is rebuilt past this many distinct words.
_MAX_WORDS = 500_000


@dataclass(frozen=True)
class SegmentResult:
    """One hypothesis scored against its best reference."""

    score: float
    breakdown: Breakdown
    stats: Stats
    alignment: Alignment
    hyp_tokens: tuple[str, ...]
    ref_tokens: tuple[str, ...]
    ref_index: int  # which reference scored best

    @property
    def precision(self) -> float:
        return self.breakdown.precision

    @property
    def recall(self) -> float:
        return self.breakdown.recall


#: SegmentResult's fields in declaration order (what ``make_record`` takes values in).
SEGMENT_FIELDS = tuple(f.name for f in fields(SegmentResult))


@dataclass(frozen=True)
class CorpusResult:
    """A system's score from summed statistics, with every segment's result."""

    score: float
    breakdown: Breakdown
    stats: Stats
    segments: tuple[SegmentResult, ...]
    signature: str


class _Words:
    """One thread's word ids, key tables and prepared references (see
    :meth:`Scorer._run`). The key tables and the prepared references hold word ids, so
    they go together: forgetting the words forgets them all."""

    __slots__ = ("function_word", "key_stages", "ref_cache", "tables", "words")

    def __init__(self, tables: list[Any], key_stages: list[tuple[Any, KeyMatcher, dict[Any, int]]]):
        self.words: dict[str, int] = {}
        self.function_word = bytearray()  # by word id: 1 for a function word
        self.tables = tables  # by stage: its KeyTable (word id -> key ids), or None
        self.key_stages = key_stages  # (table, matcher, key -> key id) of each key stage
        self.ref_cache: dict[tuple[str, ...], list[Any]] = {}


class Scorer:
    """A configured METEOR scorer; cheap to call, costly to build.

    Thread-safe: threads may share one scorer (``meteorx.score`` shares one per
    configuration). Each thread interns words into tables of its own (:meth:`_run`).
    """

    def __init__(
        self,
        config: str | Path | MeteorConfig | dict[str, Any] | None = None,
        *,
        language: str | None = None,
        normalize: str | None = None,
        registry: Registry | None = None,
    ) -> None:
        # The same resolution as the front door (meteorx.api.build_scorer), so
        # Scorer(ref, language=...) and build_scorer(ref, language=...) agree.
        cfg = configure(config, language=language, normalize=normalize)
        self.config = cfg
        self.registry = registry or get_registry()
        assert cfg.language is not None  # configure() raises for a configuration without one
        self.language: Language = resolve_language(cfg.language)
        self.normalize_line = build_normalizer(cfg.normalize, self.language, self.registry)
        self._to_form = unicode_form(cfg.normalize)  # for token lists (lines: normalize_line)
        self.matchers: list[Matcher] = []
        missing: list[tuple[str, MissingResource]] = []  # reported together, not one by one
        for i, stage in enumerate(cfg.stages):
            try:
                self.matchers.append(self._build_matcher(i, stage.matcher, stage.options))
            except MissingResource as error:
                missing.append((stage.stage_name, error))
        if missing:
            raise missing_resources_error(cfg.name, missing)
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
        self.params = Parameters(
            alpha=cfg.alpha,
            beta=cfg.beta,
            gamma=cfg.gamma,
            delta=cfg.delta,
            weights=cfg.block_weights,
            perfect_match_rule=cfg.perfect_match_rule,
            fmean_form=cfg.fmean,
            aligned_blocks=cfg.aligned_blocks,
        )
        self.function_words, self.function_words_id = self._load_function_words()
        # The compiled key-stage pass and statistics, when the engine seam runs C.
        self._fastpath = _fastpath = compiled("meteorx._fastpath")
        self._record = record_maker()  # results and breakdowns, built per segment
        # Statistics in C (the same numbers as _stats).
        self._alignment_stats = _fastpath.alignment_stats if _fastpath is not None else None
        #: a token's size in precision and recall: None for a word each (Meteor 1.5's
        #: default); for ``units: characters`` its length as the jar's -ch counts it.
        #: Characters are counted by _stats alone (no compiled twin: it would not pay).
        self._size: Callable[[tuple[str, ...]], list[int]] | None = None
        if cfg.units == "characters":
            self._size = _utf16_lengths
            self._alignment_stats = None
        #: soft credit's cut-off (None: off); counted by _stats alone, like characters.
        self._soft_cutoff: float | None = None
        if cfg.soft_credit is not None:
            from meteorx.soft_credit import best_similarities  # RapidFuzz: only when used

            self._best_similarities = best_similarities
            self._soft_cutoff = cfg.soft_credit.cutoff
            self._alignment_stats = None
        self._ref_tokens: dict[str, tuple[str, ...]] = {}
        # Key stages (KeyMatcher) run in one compiled pass over word ids; see _word_ids.
        self._plans: list[tuple[bool, int] | None] | None = None
        if (
            _fastpath is not None
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

    # -- construction -----------------------------------------------------------------

    def _build_matcher(self, index: int, name: str, options: dict[str, Any]) -> Matcher:
        cls = self.registry.matcher(name)
        try:
            opts = cls.Options.model_validate(options, strict=True)  # no "false" for false
        except ValidationError as error:
            details = "; ".join(
                f"stages.{index}.{'.'.join(cut(str(p)) for p in e['loc'])}: "
                + ("unknown option" if e["type"] == "extra_forbidden" else cut(e["msg"], 200))
                for e in error.errors()[:5]
            )
            raise ConfigError(f"invalid options for matcher {name!r}: {details}") from None
        try:
            return cls(opts, self.language)
        except MeteorxError:
            raise
        except Exception as error:
            owner = self.registry.owners.get(f"matcher:{name}", "?")
            raise ResourceError(
                f"matcher {name!r} (plugin {owner!r}) could not be set up: {describe_error(error)}"
            ) from error

    def _load_function_words(self) -> tuple[frozenset[str], str]:
        source = self.config.function_words
        provider = self.registry.function_word_source(source)
        if provider is not None:
            return provider(self.language)
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8") if path.is_file() else None
        except (OSError, ValueError) as error:  # unreadable, not UTF-8, a name too long
            raise ResourceError(
                f"cannot read function_words file {quote(source)}: {describe_error(error)}"
            ) from None
        if text is None:
            known = ", ".join(sorted(self.registry.function_words))
            raise ResourceError(
                f"function_words {quote(source)} is neither a known source ({known}) nor a file"
            )
        words = frozenset(w.strip().lower() for w in text.splitlines() if w.strip())
        return words, f"file-{path.name}"

    # -- scoring ----------------------------------------------------------------------

    def tokenize(self, text: TextOrTokens) -> tuple[str, ...]:
        """Tokens of a raw string (normalised per config) or of a ready token list."""
        if isinstance(text, str):
            if not text.isascii():
                _check_encodable(text)
            return tuple(self.normalize_line(text))
        tokens = tuple(text)
        joined = "".join(tokens)  # one C-level pass over all the tokens
        if not joined.isascii():
            try:
                joined.encode("utf-8")
            except UnicodeEncodeError:  # find the token and say where
                for token in tokens:
                    _check_encodable(token)
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

    def _run(self) -> _Words:
        """This thread's word ids, key tables and prepared references.

        Word ids grow as segments bring new words, and the compiled pass reads the key
        tables by id, so threads sharing a scorer must not share them: each thread has
        its own, made on its first segment (no lock on the hot path; the memory of
        every thread's tables, up to ``_MAX_WORDS`` words, is freed when it ends)."""
        try:
            run: _Words = self._local.run
        except AttributeError:
            run = self._reset_words()
        return run

    @property
    def _ref_cache(self) -> dict[tuple[str, ...], list[Any]]:
        """This thread's prepared references (see :meth:`_run`)."""
        return self._run().ref_cache

    def _reset_words(self) -> _Words:
        """Forget this thread's word ids (and its reference cache, which holds some)."""
        plans = self._plans or [None] * len(self.matchers)
        tables: list[Any] = [
            self._fastpath.KeyTable() if p and self._fastpath is not None else None for p in plans
        ]
        key_stages: list[tuple[Any, KeyMatcher, dict[Any, int]]] = [
            (table, matcher, {})
            for table, matcher in zip(tables, self.matchers, strict=True)
            if table is not None and isinstance(matcher, KeyMatcher)
        ]
        run = self._local.run = _Words(tables, key_stages)
        return run

    def _add_words(self, run: _Words, new: list[str]) -> None:
        """Give new (distinct) words ids and record their keys in every key stage."""
        words = run.words
        for word in new:
            words[word] = len(words)
        fw = self.function_words
        run.function_word.extend([word.lower() in fw for word in new])
        for table, matcher, key_ids in run.key_stages:
            try:
                single = matcher.single_keys(new)
                if single is not None:
                    if len(single) != len(new):
                        raise ValueError(
                            f"single_keys gave {len(single)} keys for {len(new)} words"
                        )
                    table.add_single([key_ids.setdefault(key, len(key_ids)) for key in single])
                    continue
                # = table.add(sorted({key_ids.setdefault(k, len(key_ids)) for k in keys}))
                # for each word's keys, in one call
                table.add_keysets(list(map(matcher.keys, new)), key_ids)
            except Exception as error:
                self._reset_words()  # the tables may hold part of the batch
                if isinstance(error, MeteorxError):
                    raise
                stage = self.matchers.index(matcher)
                raise self._plugin_error(stage, "keys", describe_error(error)) from error

    def _plugin_error(self, stage: int, what: str, problem: str) -> PluginError:
        """A PluginError naming the matcher of ``stage``, its plugin and the stage."""
        config = self.config.stages[stage]
        owner = self.registry.owners.get(f"matcher:{config.matcher}", "?")
        return PluginError(
            f"matcher {config.matcher!r} (plugin {owner!r}, stage {stage + 1} "
            f"{config.stage_name!r}) {what}: {problem}"
        )

    def _spans(self, stage: int, hyp_prepared: Any, ref_prepared: Any) -> list[Any]:
        """A stage's candidate spans as a list (a matcher that raises: PluginError)."""
        try:
            spans = self.matchers[stage].candidates(hyp_prepared, ref_prepared)
            return spans if type(spans) is list else list(spans)
        except MeteorxError:
            raise
        except Exception as error:
            raise self._plugin_error(stage, "candidates", describe_error(error)) from error

    def _check_alignment(self, alignment: Any, hyp_len: int, ref_len: int) -> None:
        """Raise PluginError unless ``alignment`` is an Alignment of one-to-one links
        inside the sentences, from known stages, with a count of chunks."""
        problem = _alignment_problem(alignment, hyp_len, ref_len, len(self.matchers))
        if problem is not None:
            raise PluginError(
                f"aligner {self.config.aligner.name!r} (plugin {self._aligner_owner!r}) "
                f"returned {problem}"
            )

    def _bad_span(self, stage: int, span: Any, hyp_len: int, ref_len: int) -> PluginError:
        problem = span_problem(span, hyp_len, ref_len) or "is malformed"
        return self._plugin_error(stage, "candidates", f"the span {quote(span)} {problem}")

    def _word_ids(self, tokens: tuple[str, ...], may_reset: bool) -> list[int]:
        """The words' ids in this thread's tables (new words get one); ``may_reset``
        only between segments."""
        run = self._run()
        words = run.words
        try:
            return [words[t] for t in tokens]
        except KeyError:
            pass
        if may_reset and len(words) > _MAX_WORDS:
            run = self._reset_words()
            words = run.words
        self._add_words(run, list(dict.fromkeys(t for t in tokens if t not in words)))
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

    def _prepare_error(self, tokens: tuple[str, ...], error: Exception) -> PluginError:
        """The PluginError for a failed ``prepare``: the first matcher that raises on
        ``tokens`` (the error itself if none does again)."""
        for stage, matcher in enumerate(self.matchers):
            try:
                matcher.prepare(tokens)
            except Exception as again:
                return self._plugin_error(stage, "prepare", describe_error(again))
        return PluginError(f"preparing a sentence for matching failed: {describe_error(error)}")

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
            stats = self._stats(hyp, ref, alignment)
        return stats, compute(stats, self.params), alignment

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
        _fastpath = self._fastpath
        assert plans is not None and _fastpath is not None
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
            candidates = _fastpath.key_candidates(
                Match, plans, run.tables, hyp_ids, ref_ids, explicit, n_stages
            )
        except _fastpath.BadSpan as error:
            stage, span = error.args
            raise self._bad_span(stage, span, hyp_len, ref_len) from None
        alignment = self.aligner.align(
            candidates, hyp_len, ref_len, self.weights, self.exact_stages
        )
        if not self._trust_aligner:
            self._check_alignment(alignment, hyp_len, ref_len)
        if self._alignment_stats is None:  # characters, soft credit: counted over tokens
            stats = self._stats(hyp, ref, alignment)
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

    def _stats(self, hyp: tuple[str, ...], ref: tuple[str, ...], alignment: Alignment) -> Stats:
        """The alignment's counts: a word each, or its characters with ``units:
        characters`` (lengths, function words and matches alike; the matched words that
        fragmentation divides by stay words). With soft credit, one more block after the
        stages': the unaligned words' similarities (:mod:`meteorx.soft_credit`)."""
        fw = self.function_words
        n = len(self.matchers)
        size = self._size
        hyp_size = size(hyp) if size else [1] * len(hyp)
        ref_size = size(ref) if size else [1] * len(ref)
        hyp_is_fw = [t.lower() in fw for t in hyp] if fw else [False] * len(hyp)
        ref_is_fw = [t.lower() in fw for t in ref] if fw else [False] * len(ref)
        hc = [0.0] * n
        rc = [0.0] * n
        hf = [0.0] * n
        rf = [0.0] * n
        hyp_words = 0
        ref_words = 0
        for m in alignment.matches:
            for k in range(m.hyp_start, m.hyp_start + m.hyp_len):
                if hyp_is_fw[k]:
                    hf[m.stage] += hyp_size[k]
                else:
                    hc[m.stage] += hyp_size[k]
            for k in range(m.ref_start, m.ref_start + m.ref_len):
                if ref_is_fw[k]:
                    rf[m.stage] += ref_size[k]
                else:
                    rc[m.stage] += ref_size[k]
            hyp_words += m.hyp_len
            ref_words += m.ref_len
        if self._soft_cutoff is not None:
            soft = self._soft_block(hyp, ref, alignment, hyp_is_fw, ref_is_fw, hyp_size, ref_size)
            hc.append(soft[0])
            rc.append(soft[1])
            hf.append(soft[2])
            rf.append(soft[3])
        chunks = alignment.chunks
        if (
            self.params.perfect_match_rule
            and chunks == 1
            and hyp_words == len(hyp)
            and ref_words == len(ref)
        ):
            chunks = 0  # a perfect segment adds no fragmentation (Meteor 1.5)
        return Stats(
            hyp_len=sum(hyp_size),
            ref_len=sum(ref_size),
            hyp_function=sum(k for k, f in zip(hyp_size, hyp_is_fw, strict=True) if f),
            ref_function=sum(k for k, f in zip(ref_size, ref_is_fw, strict=True) if f),
            hyp_content_matches=tuple(hc),
            ref_content_matches=tuple(rc),
            hyp_function_matches=tuple(hf),
            ref_function_matches=tuple(rf),
            chunks=chunks,
            hyp_matched_words=hyp_words,
            ref_matched_words=ref_words,
        )

    def _soft_block(
        self,
        hyp: tuple[str, ...],
        ref: tuple[str, ...],
        alignment: Alignment,
        hyp_is_fw: list[bool],
        ref_is_fw: list[bool],
        hyp_size: list[int],
        ref_size: list[int],
    ) -> tuple[float, float, float, float]:
        """Soft credit's counts (hyp content, ref content, hyp function, ref function):
        each unaligned word's size times its best similarity to the other side's."""
        assert self._soft_cutoff is not None
        hyp_free = [True] * len(hyp)
        ref_free = [True] * len(ref)
        for m in alignment.matches:
            hyp_free[m.hyp_start : m.hyp_start + m.hyp_len] = [False] * m.hyp_len
            ref_free[m.ref_start : m.ref_start + m.ref_len] = [False] * m.ref_len
        hyp_k = [k for k, free in enumerate(hyp_free) if free]
        ref_k = [k for k, free in enumerate(ref_free) if free]
        if not hyp_k or not ref_k:
            return 0.0, 0.0, 0.0, 0.0
        counts = [0.0, 0.0, 0.0, 0.0]
        hyp_best, ref_best = self._best_similarities(
            [hyp[k] for k in hyp_k], [ref[k] for k in ref_k], self._soft_cutoff
        )
        for side, positions, best, is_fw, size in (
            (0, hyp_k, hyp_best, hyp_is_fw, hyp_size),
            (1, ref_k, ref_best, ref_is_fw, ref_size),
        ):
            for k, similarity in zip(positions, best, strict=True):
                if similarity:
                    counts[side + (2 if is_fw[k] else 0)] += similarity * size[k]
        return counts[0], counts[1], counts[2], counts[3]

    def segment(
        self, hyp: TextOrTokens, refs: TextOrTokens | Sequence[TextOrTokens]
    ) -> SegmentResult:
        """Score one hypothesis against one or more references (the best one counts)."""
        return self._best(hyp, _checked_references(hyp, refs))

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

    score = segment

    def corpus(
        self,
        hyps: Iterable[TextOrTokens],
        refs: Iterable[TextOrTokens | Sequence[TextOrTokens]],
    ) -> CorpusResult:
        """Score a system: every segment, and the score of the summed statistics."""
        segments = []
        n_refs = 0  # the most references any segment has, for the signature's refs:N
        with paused_gc():
            for h, r in paired(hyps, refs):
                ref_list = _checked_references(h, r)
                segments.append(self._best(h, ref_list))
                n_refs = max(n_refs, len(ref_list))
        return self.combine(segments, refs=n_refs)

    score_many = corpus

    def combine(self, segments: Sequence[SegmentResult], refs: int | None = None) -> CorpusResult:
        """The corpus result of already scored segments; ``refs``, the number of
        references per segment (the most any had), goes into the signature."""
        total = sum_stats(s.stats for s in segments)
        breakdown = system_score(
            self.config.system_score,
            compute(total, self.params),
            lambda: (sum(s.score for s in segments), len(segments)),
        )
        return CorpusResult(
            breakdown.score, breakdown, total, tuple(segments), signature(self, refs=refs)
        )

    def rescore(self, stats: Stats) -> Breakdown:
        """Apply this scorer's parameters to a statistics record (no re-alignment);
        :class:`InputError` for a record that could not have been counted."""
        from meteorx.formats.stats_file import checked_record

        return compute(checked_record(stats, self.config.block_names), self.params)


def _utf16_lengths(tokens: tuple[str, ...]) -> list[int]:
    """Each token's length as Java's ``String.length()`` counts it (what the jar's -ch
    adds up): UTF-16 code units, so a character outside the Basic Multilingual Plane
    (an emoji, a rare CJK ideograph) counts 2. One encoding per sentence tells whether
    any token has such a character (most sentences have none)."""
    lengths = [len(t) for t in tokens]
    if len("".join(tokens).encode("utf-16-le")) == 2 * sum(lengths):
        return lengths
    return [len(t.encode("utf-16-le")) // 2 for t in tokens]


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


def _alignment_problem(alignment: Any, hyp_len: int, ref_len: int, n_stages: int) -> str | None:
    """What is wrong with an aligner's result, or None (see Scorer._check_alignment)."""
    if not isinstance(alignment, Alignment):
        return f"a {type(alignment).__name__}, not an Alignment"
    chunks = alignment.chunks
    if not isinstance(chunks, int) or isinstance(chunks, bool) or chunks < 0:
        return f"an alignment with {quote(chunks)} chunks"
    if not isinstance(alignment.matches, (tuple, list)):
        return f"an alignment whose matches are a {type(alignment.matches).__name__}"
    hyp_used = ref_used = 0
    for match in alignment.matches:
        if not isinstance(match, tuple) or len(match) != 5:
            return f"the match {quote(match)}, not a Match"
        rs, rl, hs, hl, stage = match
        if not (
            type(rs) is int
            and type(rl) is int
            and type(hs) is int
            and type(hl) is int
            and type(stage) is int
            and 0 <= hs < hs + hl <= hyp_len
            and 0 <= rs < rs + rl <= ref_len
            and 0 <= stage < n_stages
        ):
            problem = span_problem((hs, hl, rs, rl), hyp_len, ref_len)
            if problem is not None:
                return f"the match {quote(match)}, whose span {problem}"
            if not isinstance(stage, int) or not 0 <= stage < n_stages:
                return f"the match {quote(match)}, of no stage"
        hyp_mask = ((1 << hl) - 1) << hs
        ref_mask = ((1 << rl) - 1) << rs
        if hyp_used & hyp_mask or ref_used & ref_mask:
            return f"the match {quote(match)}, which overlaps another"
        hyp_used |= hyp_mask
        ref_used |= ref_mask
    return None


def _check_encodable(text: str) -> None:
    """Raise InputError for text that is not valid Unicode (lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InputError(
            f"text contains an unpaired surrogate (U+{ord(text[error.start]):04X}) at "
            f"character {error.start}: it is not valid Unicode"
        ) from None


def _check_text(value: object, what: str) -> None:
    """Raise InputError unless ``value`` is a string or a sequence of strings."""
    if isinstance(value, str):
        return
    if isinstance(value, (list, tuple)):
        try:
            "".join(value)  # a TypeError names no token: say it below
            return
        except TypeError:
            pass
    raise InputError(
        f"the {what} must be a string or a list of string tokens, not "
        f"{type(value).__name__}"
        + (" containing non-strings" if isinstance(value, (list, tuple)) else "")
    )


def _checked_references(
    hyp: TextOrTokens, refs: TextOrTokens | Sequence[TextOrTokens]
) -> Sequence[TextOrTokens]:
    """The references of a segment as a list (:func:`_reference_list`), after checking
    the hypothesis and them (InputError, or MeteorxError for no reference at all)."""
    _check_text(hyp, "hypothesis")
    if not isinstance(refs, str) and (
        not isinstance(refs, Iterable) or isinstance(refs, (bytes, bytearray, Mapping, Set))
    ):
        raise InputError(
            f"references must be a string, a token list or a list of those, "
            f"not {type(refs).__name__}"
        )
    ref_list = _reference_list(hyp, refs)
    for ref in ref_list:
        _check_text(ref, "reference")
    if not ref_list:
        raise MeteorxError("at least one reference is needed")
    return ref_list


def _reference_list(
    hyp: TextOrTokens, refs: TextOrTokens | Sequence[TextOrTokens]
) -> Sequence[TextOrTokens]:
    """Normalise the ``refs`` argument to a list of references.

    A string is one reference. With a string hypothesis, a list holds reference
    strings; with a token-list hypothesis, a list of strings is *one* tokenised
    reference and a list of lists holds several.
    """
    if isinstance(refs, str):
        return [refs]
    refs = list(refs)
    if not isinstance(hyp, str) and refs and all(isinstance(r, str) for r in refs):
        return [refs]  # type: ignore[list-item]
    return refs
