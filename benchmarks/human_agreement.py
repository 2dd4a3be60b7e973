#!/usr/bin/env python3
"""Agreement with human judgments on every development set, held out where tuned.

For each development set with human judgments (see ``benchmarks/_agreement_data.py``
for the sets and the measures) this prints, side by side from one run:

* the segment-level τ (WMT's DARR convention for DA; Kendall over pairs of systems'
  translations of one segment for MQM and error counts; τ-b over segments for the
  one-system MAIA set) with the number of pairs, and the system-level Pearson r where
  a set has at least three systems, with the number of systems;
* the anchors: sentence chrF and BLEU (sacreBLEU), NLTK's meteor (on sacreBLEU 13a
  tokens), and the Meteor 1.5 jar in its best mode for the language (``-l en -norm``;
  ``-l de -norm -m "exact stem"``, the jar has no German paraphrase table here;
  ``-l pt -lower`` on 13a tokens, the jar has no Portuguese ``-norm``);
* meteorx configurations given with ``--config`` (presets or YAML files, ``NAME@NORM``
  overrides the normalisation, ``{lang}`` stands for the set's target language);
  configurations without a language take the set's; those for another language skip
  the set;
* with ``--mechanisms``, candidate mechanisms of a language-independent METEOR,
  computed from one alignment per set (exact + Snowball stem on lowercased ``-norm``
  tokens; ``cased``: tokens keep case, stages exact, case variants and case-folded
  stems, ``plugins/case.py``): word or character precision and recall (``ch``:
  Meteor 1.5's ``-ch``, P and R over the characters of the matched words, alignment
  and fragmentation at word level; equal to the jar's ``-ch`` scores), with and without
  a ``fuzzy`` stage (``benchmarks/fuzzy_matcher.py``: different words linked by character
  similarity, each link weighted by that similarity unless ``unweighted``); ``soft``:
  soft credit of unaligned words (meteorx's ``soft_credit``; ``soft1:1``: paired one
  to one, most similar first, instead of each word's best match); ``lex``: the stages
  pip-installed resources give the target language (English WordNet synonyms and
  paraphrases, simplemma lemmas for German and Portuguese; zero blocks elsewhere). Their
  α β γ δ and stage weights are either ``li``'s or tuned **jointly over the other
  sets** (objective: mean segment τ; ``--sys-weight`` adds the mean system r):
  leave-one-set-out (``lo-set``) and leave-one-language-out (``lo-lang``: tuned only
  on sets whose target language differs). Figures tuned on all sets are printed only
  with ``--in-sample``, and labelled so.

The ``pt`` preset needs OpenWordnet-PT (``meteorx resources install omw-por`` or
``$METEORX_OMW_DIR``); configurations that cannot run on a set are listed as skipped,
with the reason.

Everything expensive is cached under ``$METEORX_AGREEMENT_CACHE`` (default
``~/.cache/meteorx-agreement``): anchor scores, meteorx scores and the per-segment
alignment counts (jar runs also go through the oracle's own cache). A rerun with a
warm cache takes seconds.

    nice -n 10 python benchmarks/human_agreement.py --mechanisms [--sets de-en,ja-en]
        [--config li@auto --config 'meteor-1.5-{lang}@auto' --config pt]
        [--skip jar,nltk] [--in-sample] [--json OUT.json] [--write-configs DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import _agreement_data as D  # noqa: E402
from meteorx.tune import Setting  # noqa: E402

FloatArray = D.FloatArray
CACHE = Path(
    os.environ.get("METEORX_AGREEMENT_CACHE", Path.home() / ".cache" / "meteorx-agreement")
)
ALL_SETS = tuple(D.LOADERS)

#: The anchors in wmt21-dev/README.md: (seg τ, seg r, sys r); None where not given.
README_ANCHORS: dict[str, dict[str, tuple[float | None, float | None, float | None]]] = {
    "de-en": {
        "jar": (0.015, 0.233, 0.389),
        "nltk": (-0.014, 0.201, 0.417),
        "BLEU": (-0.005, 0.210, 0.166),
        "chrF": (0.069, 0.235, 0.353),
    },
    "ja-en": {
        "jar": (0.094, 0.272, 0.806),
        "nltk": (0.080, 0.263, 0.827),
        "BLEU": (0.071, 0.214, 0.807),
        "chrF": (0.119, 0.280, 0.832),
    },
    "en-de": {
        "jar": (None, None, 0.512),
        "nltk": (None, None, 0.425),
        "BLEU": (None, None, 0.493),
        "chrF": (None, None, 0.536),
    },
}
#: mqm20/README.md: chrF τ-b over all items pooled, and system r.
MQM20_CHRF = {"ted-en-de": (0.1468, 0.5623), "ted-zh-en": (0.1246, 0.3401)}


# -- scores and their cache ---------------------------------------------------------------


@dataclass
class Scores:
    """A metric's scores on one set: per (system, segment), and per system."""

    seg: FloatArray  # (systems, segments)
    sys: FloatArray  # (systems,)


def _data_digest(data: D.DevSet) -> str:
    h = hashlib.sha256()
    for line in data.refs:
        h.update(line.encode("utf-8", "surrogatepass") + b"\n")
    for name, lines in zip(data.systems, data.hyps, strict=True):
        h.update(b"\0" + name.encode() + b"\0")
        for line in lines:
            h.update(line.encode("utf-8", "surrogatepass") + b"\n")
    return h.hexdigest()[:16]


_DIGESTS: dict[int, str] = {}


def _cache_file(data: D.DevSet, kind: str, material: Any) -> Path:
    digest = _DIGESTS.get(id(data))
    if digest is None:
        digest = _DIGESTS[id(data)] = _data_digest(data)
    key = hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:20]
    return CACHE / kind / f"{data.folder.replace('/', '_')}-{digest}-{key}.npz"


def cached_scores(
    data: D.DevSet, material: Any, compute: Callable[[], Scores], use_cache: bool = True
) -> Scores:
    path = _cache_file(data, "scores", material)
    if use_cache and path.is_file():
        with np.load(path) as saved:
            return Scores(saved["seg"], saved["sys"])
    result = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as tmp:
        np.savez(tmp, seg=result.seg, sys=result.sys)
    os.replace(tmp.name, path)
    return result


Skip = D.Skip


# -- anchors ------------------------------------------------------------------------------


def chrf(data: D.DevSet) -> Scores:
    import sacrebleu

    seg = [[sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(hyps, data.refs, strict=True)]
           for hyps in data.hyps]  # fmt: skip
    sys_ = [sacrebleu.corpus_chrf(hyps, [data.refs]).score for hyps in data.hyps]
    return Scores(np.asarray(seg, dtype=np.float64), np.asarray(sys_, dtype=np.float64))


def bleu(data: D.DevSet) -> Scores:
    import sacrebleu

    seg = [[sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, data.refs, strict=True)]
           for hyps in data.hyps]  # fmt: skip
    sys_ = [sacrebleu.corpus_bleu(hyps, [data.refs]).score for hyps in data.hyps]
    return Scores(np.asarray(seg, dtype=np.float64), np.asarray(sys_, dtype=np.float64))


def nltk_meteor(data: D.DevSet) -> Scores:
    """NLTK's meteor_score on 13a tokens; NLTK has no corpus score: the mean."""
    seg = np.asarray(D.nltk_sentence_scores(data.refs, data.hyps), dtype=np.float64)
    return Scores(seg, seg.mean(axis=1))


def jar_mode(target: str) -> tuple[list[str], bool]:
    """The jar's arguments for a target language, and whether to 13a-tokenise first."""
    if target == "en":
        return ["-l", "en", "-norm"], False
    if target in ("de", "fr", "es", "cz", "ru"):
        return ["-l", target, "-norm", "-m", "exact stem"], False
    return ["-l", target, "-lower"], True


def jar(data: D.DevSet) -> Scores:
    from tests.oracle import jar as oracle

    reason = oracle.unavailable_reason()
    if reason:
        raise Skip(reason)
    args, tokenize = jar_mode(data.target)
    tok = D.tok13a() if tokenize else (lambda s: s)

    def clean(line: str) -> str:  # Java splits lines on \r too
        return tok(line.replace("\r", " "))

    seg: list[list[float]] = []
    sys_: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        ref_path = Path(tmp) / "ref.txt"
        ref_path.write_text("\n".join(map(clean, data.refs)) + "\n", encoding="utf-8")
        for system, hyps in zip(data.systems, data.hyps, strict=True):
            hyp_path = Path(tmp) / "hyp.txt"
            hyp_path.write_text("\n".join(map(clean, hyps)) + "\n", encoding="utf-8")
            result = oracle.run_jar(hyp_path, ref_path, args)
            if len(result.segment_scores) != len(hyps):
                raise Skip(f"the jar gave {len(result.segment_scores)} scores for {system}")
            seg.append(list(result.segment_scores))
            sys_.append(result.system_score)
    return Scores(np.asarray(seg, dtype=np.float64), np.asarray(sys_, dtype=np.float64))


ANCHORS: dict[str, Callable[[D.DevSet], Scores]] = {
    "chrF": chrf,
    "BLEU": bleu,
    "nltk": nltk_meteor,
    "jar": jar,
}
ANCHOR_VERSIONS = {"chrF": "sacrebleu-chrf-1", "BLEU": "sacrebleu-bleu-1", "nltk": "nltk-13a-1"}


def anchor_scores(name: str, data: D.DevSet) -> Scores:
    version: Any = ANCHOR_VERSIONS.get(name)
    if name == "jar":
        version = ["jar-1", *jar_mode(data.target)[0]]
    return cached_scores(data, ["anchor", name, version], lambda: ANCHORS[name](data))


# -- meteorx configurations ---------------------------------------------------------------


def _registry() -> Any:
    """The installed plugins' registry plus the ``fuzzy`` matcher the harness measured
    (benchmarks/fuzzy_matcher.py: it did not pay, so no plugin registers it)."""
    from benchmarks.fuzzy_matcher import FuzzyMatcher
    from meteorx.registry import get_registry

    base = get_registry()
    extra = {m.name: m for m in (FuzzyMatcher,) if m.name not in base.matchers}
    if not extra:
        return base
    registry = base.copy()
    registry.matchers.update(extra)
    return registry


def _config_spec(spec: str, target: str) -> tuple[str, str | None]:
    name, _, norm = spec.replace("{lang}", target).partition("@")
    return name, norm or None


#: 2: the perfect-match rule counts aligned words only (soft credit is not alignment).
SCORER_REVISION = 2


def meteorx_scores(spec: str, data: D.DevSet, timing: dict[str, list[float]]) -> Scores:
    from meteorx.config import load_config
    from meteorx.errors import MeteorxError
    from meteorx.metric import Scorer, paused_gc

    name, norm = _config_spec(spec, data.target)
    try:
        config = load_config(name)
        normalize: Any = normalize_for(data.target) if norm == "auto" else norm
        if config.language is not None and config.language != data.target:
            raise Skip(f"configuration for {config.language}, the set's target is {data.target}")
        config = config.with_overrides(
            language=None if config.language else data.target, normalize=normalize
        )
        scorer = Scorer(config, registry=_registry())
    except MeteorxError as error:
        raise Skip(f"{type(error).__name__}: {error}") from None
    # SCORER_REVISION: bumped when meteorx's arithmetic changes, so cached scores of
    # the same configuration are not reused across it.
    material = ["meteorx", SCORER_REVISION, name, norm, scorer.config.model_dump(mode="json")]
    if name.endswith((".yaml", ".yml")):
        material.append(Path(name).read_text(encoding="utf-8"))

    def compute() -> Scores:
        seg: list[list[float]] = []
        sys_: list[float] = []
        start = time.perf_counter()
        with paused_gc():
            for hyps in data.hyps:
                results = [scorer.segment(h, r) for h, r in zip(hyps, data.refs, strict=True)]
                seg.append([r.score for r in results])
                sys_.append(scorer.combine(results).score)
        spent = time.perf_counter() - start
        timing.setdefault(spec, [0.0, 0.0])
        timing[spec][0] += spent
        timing[spec][1] += data.n_segments * len(data.hyps)
        return Scores(np.asarray(seg, dtype=np.float64), np.asarray(sys_, dtype=np.float64))

    return cached_scores(data, material, compute)


# -- mechanisms: per-segment counts from one alignment ------------------------------------

#: Columns of the count array (per system and segment); stage blocks follow.
BASE = ("hyp_w", "ref_w", "hyp_fw_w", "ref_fw_w", "hyp_c", "ref_c", "hyp_fw_c", "ref_fw_c",
        "chunks", "hyp_mw", "ref_mw")  # fmt: skip
#: Per stage: matched content / function words of each side, in words and characters,
#: plain and weighted by the link's similarity (the same but for the fuzzy stage).
STAGE = tuple(
    f"{weighting}_{unit}_{what}"
    for weighting in ("plain", "sim")
    for unit in ("w", "c")
    for what in ("hyp_c", "ref_c", "hyp_f", "ref_f")
)
N_BASE = len(BASE)


def normalize_for(target: str, lowercase: bool = True) -> str | dict[str, Any]:
    """Meteor's -norm where meteorx has it for the language, else punctuation split
    (``lowercase=False``: the same tokens, case kept)."""
    from meteorx.registry import get_registry

    if target in ("en", "de", "fr", "es", "cs", "ru"):
        tokenizer = "meteor"
    else:
        tokenizer = "split-punct" if "split-punct" in get_registry().tokenizers else "auto"
    if lowercase:
        return "meteor" if tokenizer == "meteor" else {"tokenizer": tokenizer, "lowercase": True}
    # Meteor's tokenizer lowercases by itself: keeping case needs another one.
    tokenizer = "split-punct" if "split-punct" in get_registry().tokenizers else "auto"
    return {"tokenizer": tokenizer, "lowercase": False, "punctuation": "keep"}


#: ``lexical``: the extra stages pip-installed resources give each target language, in
#: one block order for every set (a set without a stage gets zero counts there).
LEXICAL_STAGES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("en", {"matcher": "synonym", "weight": 0.5}),
    ("en", {"matcher": "paraphrase", "weight": 0.5}),
    ("de pt", {"matcher": "lemma", "weight": 0.5}),
)


def alignment_config(
    target: str, fuzzy: dict[str, Any] | None, lowercase: bool = True, lexical: bool = False
) -> dict[str, Any]:
    """The language-independent METEOR's alignment set-up (α β γ δ are irrelevant here):
    exact, stem (and fuzzy) on lowercased tokens, or, keeping case, exact, case
    variants, case-folded stems (and fuzzy on case-folded words)."""
    stages: list[dict[str, Any]] = [{"matcher": "exact", "weight": 1.0}]
    if lowercase:
        stages.append({"matcher": "stem", "weight": 0.5})
    else:
        stages.append({"matcher": "case", "weight": 0.5})
        stages.append({"matcher": "case", "name": "case-stem", "weight": 0.5, "stem": True})
    if fuzzy is not None:
        fuzzy = fuzzy if lowercase else {**fuzzy, "ignore_case": True}
        stages.append({"matcher": "fuzzy", "weight": 0.5, **fuzzy})
    if lexical:
        stages += [stage for targets, stage in LEXICAL_STAGES if target in targets.split()]
    return {
        "name": "mechanisms",
        "language": target,
        "normalize": normalize_for(target, lowercase),
        "stages": stages,
        "alpha": 0.75,
        "beta": 1.4,
        "gamma": 0.7,
        "delta": 0.5,
        "function_words": "builtin",
        "perfect_match_rule": True,
        "aligner": {"name": "meteor-1.5", "beam_size": 40},
    }


def segment_counts(
    result: Any, function_words: frozenset[str], similarity: Any, soft: float | None = None
) -> list[float]:
    """One row of counts (``BASE`` then ``STAGE`` per stage) from a SegmentResult.

    ``similarity[stage]`` is None or a function giving a link's weight from its two
    words. With ``soft`` (a cut-off), one more block: the *soft credit* of the words
    left unaligned, each counted with its best character similarity (case-folded
    Indel similarity, 0 below the cut-off) to an unaligned word of the other side;
    it adds partial matches to P and R without touching alignment or fragmentation."""
    hyp, ref = result.hyp_tokens, result.ref_tokens
    hyp_fw = [t.lower() in function_words for t in hyp]
    ref_fw = [t.lower() in function_words for t in ref]
    n_stages = len(similarity)
    stage = [[0.0] * len(STAGE) for _ in range(n_stages)]
    for m in result.alignment.matches:
        block = stage[m.stage]
        sim = similarity[m.stage]
        weight = (
            float(sim(hyp[m.hyp_start], ref[m.ref_start]))
            if sim is not None and m.hyp_len == 1 and m.ref_len == 1
            else 1.0
        )
        for side, tokens, flags, start, length in (
            (0, hyp, hyp_fw, m.hyp_start, m.hyp_len),
            (1, ref, ref_fw, m.ref_start, m.ref_len),
        ):
            for k in range(start, start + length):
                slot = side + (2 if flags[k] else 0)
                chars = len(tokens[k])
                block[slot] += 1.0
                block[4 + slot] += chars
                block[8 + slot] += weight
                block[12 + slot] += weight * chars
    stats = result.stats
    row = [
        float(len(hyp)),
        float(len(ref)),
        float(sum(hyp_fw)),
        float(sum(ref_fw)),
        float(sum(map(len, hyp))),
        float(sum(map(len, ref))),
        float(sum(len(t) for t, f in zip(hyp, hyp_fw, strict=True) if f)),
        float(sum(len(t) for t, f in zip(ref, ref_fw, strict=True) if f)),
        float(stats.chunks),
        float(stats.hyp_matched_words),
        float(stats.ref_matched_words),
    ]
    for block in stage:
        row.extend(block)
    if soft is not None:
        row.extend(_soft_block(result, hyp_fw, ref_fw, soft))
    return row


def _one_to_one(hyp: list[str], ref: list[str], cutoff: float) -> tuple[list[float], list[float]]:
    """Soft credit clipped like chrF's counts: unaligned words paired one to one, most
    similar pairs first (a variant measured against :func:`best_similarities`)."""
    from meteorx.soft_credit import similarity_matrix

    hyp_best, ref_best = [0.0] * len(hyp), [0.0] * len(ref)
    if not hyp or not ref:
        return hyp_best, ref_best
    matrix = similarity_matrix(hyp, ref, cutoff)
    order = np.argsort(-matrix, axis=None, kind="stable")
    for flat in order:
        i, j = divmod(int(flat), len(ref))
        value = float(matrix[i, j])
        if value <= 0:
            break
        if hyp_best[i] == 0.0 and ref_best[j] == 0.0:
            hyp_best[i] = ref_best[j] = value
    return hyp_best, ref_best


def _soft_block(result: Any, hyp_fw: list[bool], ref_fw: list[bool], cutoff: float) -> list[float]:
    from meteorx.soft_credit import best_similarities  # what the scorer's soft credit uses

    similarities = best_similarities
    if cutoff < 0:  # the one-to-one variant, cut-off -cutoff
        similarities, cutoff = _one_to_one, -cutoff

    hyp, ref = result.hyp_tokens, result.ref_tokens
    hyp_linked: set[int] = set()
    ref_linked: set[int] = set()
    for m in result.alignment.matches:
        hyp_linked.update(range(m.hyp_start, m.hyp_start + m.hyp_len))
        ref_linked.update(range(m.ref_start, m.ref_start + m.ref_len))
    hyp_free = [i for i in range(len(hyp)) if i not in hyp_linked]
    ref_free = [j for j in range(len(ref)) if j not in ref_linked]
    block = [0.0] * len(STAGE)
    hyp_best, ref_best = similarities(
        [hyp[i] for i in hyp_free], [ref[j] for j in ref_free], cutoff
    )
    for side, tokens, flags, free, best in (
        (0, hyp, hyp_fw, hyp_free, hyp_best),
        (1, ref, ref_fw, ref_free, ref_best),
    ):
        for k, weight in zip(free, best, strict=True):
            if weight > 0:
                slot = side + (2 if flags[k] else 0)
                for base in (0, 8):  # plain and similarity-weighted: the same here
                    block[base + slot] += weight
                    block[base + 4 + slot] += weight * len(tokens[k])
    return block


def counts(
    data: D.DevSet,
    fuzzy: dict[str, Any] | None,
    timing: dict[str, list[float]],
    lowercase: bool = True,
    soft: float | None = None,
    lexical: bool = False,
) -> FloatArray:
    """Counts of every (system, segment): array (systems, segments, columns), cached.
    With ``lexical``, the blocks of every stage of :data:`LEXICAL_STAGES` follow the
    others' (zeros for a stage the set's language does not have)."""
    array = _counts(data, fuzzy, timing, lowercase, soft, lexical)
    if not lexical:
        return array
    present = [data.target in targets.split() for targets, _ in LEXICAL_STAGES]
    tail = len(STAGE) if soft is not None else 0
    width = len(STAGE)
    n_base_blocks = (array.shape[-1] - N_BASE - tail) // width - sum(present)
    split = N_BASE + n_base_blocks * width
    blocks = [array[..., :split]]
    at = split
    for here in present:
        if here:
            blocks.append(array[..., at : at + width])
            at += width
        else:
            blocks.append(np.zeros((*array.shape[:-1], width)))
    blocks.append(array[..., at:])
    return np.concatenate(blocks, axis=-1)


def _counts(
    data: D.DevSet,
    fuzzy: dict[str, Any] | None,
    timing: dict[str, list[float]],
    lowercase: bool,
    soft: float | None,
    lexical: bool,
) -> FloatArray:
    from meteorx.metric import Scorer, paused_gc

    config = alignment_config(data.target, fuzzy, lowercase, lexical)
    material: list[Any] = ["counts-1", config]
    if soft is not None:
        material.append(["soft-2", soft])  # 2: similarities as float64 (float32 before)
    path = _cache_file(data, "counts", material)
    if path.is_file():
        with np.load(path) as saved:
            array: FloatArray = saved["counts"]
            return array
    scorer = Scorer(config, registry=_registry())
    similarity = [getattr(m, "similarity", None) for m in scorer.matchers]
    rows: list[list[float]] = []
    start = time.perf_counter()
    with paused_gc():
        for hyps in data.hyps:
            for h, r in zip(hyps, data.refs, strict=True):
                result = scorer.segment(h, r)
                rows.append(segment_counts(result, scorer.function_words, similarity, soft))
    label = "align " + "+".join(
        s["name"] if "name" in s else s["matcher"] for s in config["stages"]
    )
    timing.setdefault(label, [0.0, 0.0])
    timing[label][0] += time.perf_counter() - start
    timing[label][1] += len(rows)
    array = np.asarray(rows, dtype=np.float64).reshape(len(data.hyps), data.n_segments, -1)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as tmp:
        np.savez(tmp, counts=array)
    os.replace(tmp.name, path)
    return array


def with_value(setting: Setting, name: str, value: float) -> Setting:
    """``setting`` with one parameter (alpha…delta, or ``wK``: stage K's weight) changed."""
    if name.startswith("w"):
        k = int(name[1:])
        weights = tuple(value if i == k else w for i, w in enumerate(setting.weights))
        return dataclasses.replace(setting, weights=weights)
    return dataclasses.replace(setting, **{name: value})


def setting_text(s: Setting) -> str:
    ws = "/".join(f"{w:g}" for w in s.weights)
    return f"α={s.alpha:g} β={s.beta:g} γ={s.gamma:g} δ={s.delta:g} w={ws}"


def li_setting(n_stages: int) -> Setting:
    """The ``li`` task's parameters; every stage after exact weighted 0.5."""
    return Setting(0.75, 1.4, 0.7, 0.5, (1.0,) + (0.5,) * (n_stages - 1))


@dataclass(frozen=True)
class Mechanism:
    """How counts become a score: units of P and R, similarity-weighted links or not."""

    name: str
    fuzzy: bool  # counts from the alignment with a fuzzy stage
    chars: bool  # P and R over characters
    cased: bool = False  # tokens keep case (exact, case, case-stem stages)
    sim_weighted: bool = True
    soft: bool = False  # a last block: soft credit of unaligned words
    lexical: bool = False  # the language's pip-installed stages (LEXICAL_STAGES)
    one_to_one: bool = False  # soft credit paired one to one (clipped), not best match

    @property
    def alignment(self) -> tuple[bool, bool, bool, bool, bool]:
        return (self.fuzzy, self.cased, self.soft, self.lexical, self.one_to_one)


@dataclass
class Compact:
    """What a mechanism's formula reads from one set's counts, flat over its items
    (system-major), and the same over each system's summed counts."""

    content: FloatArray  # (2, items): hypothesis and reference content length
    function: FloatArray  # (2, items): function-word length
    frag: FloatArray  # (items,): chunks / mean matched words (0 when nothing matched)
    matches: FloatArray  # (stages, 4, items): hyp content, ref content, hyp fn, ref fn
    shape: tuple[int, int]  # (systems, segments)

    @classmethod
    def of(cls, c: FloatArray, mech: Mechanism) -> Compact:
        unit = 4 if mech.chars else 0
        flat = c.reshape(-1, c.shape[-1])
        n_stages = (c.shape[-1] - N_BASE) // len(STAGE)
        lengths = flat[:, unit : unit + 4].T  # hyp, ref, hyp fn, ref fn
        with np.errstate(divide="ignore", invalid="ignore"):
            frag = flat[:, 8] / ((flat[:, 9] + flat[:, 10]) / 2.0)
        base = N_BASE + (8 if mech.sim_weighted else 0) + unit
        matches = np.stack(
            [flat[:, base + k * len(STAGE) : base + k * len(STAGE) + 4].T for k in range(n_stages)]
        )
        return cls(
            content=np.ascontiguousarray(lengths[:2] - lengths[2:]),
            function=np.ascontiguousarray(lengths[2:]),
            frag=np.nan_to_num(frag),
            matches=np.ascontiguousarray(matches),
            shape=(c.shape[0], c.shape[1]),
        )


def formula(
    x: Compact | tuple[FloatArray, FloatArray, FloatArray, FloatArray],
    s: Setting,
    frag_pow: FloatArray | None = None,
) -> FloatArray:
    """METEOR's score of every item: Fmean of weighted P and R, fragmentation penalty."""
    content, function, frag, matches = (
        (x.content, x.function, x.frag, x.matches) if isinstance(x, Compact) else x
    )
    d = s.delta
    hyp_m = np.zeros(content.shape[1:])
    ref_m = np.zeros(content.shape[1:])
    for k in range(min(matches.shape[0], len(s.weights))):
        w = s.weights[k]
        if w:
            hyp_m += (w * d) * matches[k, 0] + (w * (1 - d)) * matches[k, 2]
            ref_m += (w * d) * matches[k, 1] + (w * (1 - d)) * matches[k, 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = hyp_m / (d * content[0] + (1 - d) * function[0])
        r = ref_m / (d * content[1] + (1 - d) * function[1])
        f = p * r / (s.alpha * p + (1 - s.alpha) * r)
    if frag_pow is None:
        frag_pow = np.power(frag, s.beta)
    score = f * (1.0 - s.gamma * frag_pow)
    return np.maximum(np.nan_to_num(np.where((p > 0) & (r > 0), score, 0.0)), 0.0)


def mechanism_scores(c: FloatArray, mech: Mechanism, s: Setting) -> tuple[FloatArray, FloatArray]:
    """Segment scores (systems, segments) and system scores (systems,) of a setting;
    a system's score is that of its summed counts, as meteorx computes it."""
    seg = formula(Compact.of(c, mech), s).reshape(c.shape[0], c.shape[1])
    sys_ = formula(Compact.of(c.sum(axis=1, keepdims=True), mech), s)
    return seg, sys_


def check_against_jar(data: D.DevSet, n: int = 300) -> str:
    """Scores from the counts (word and character units, ``li`` parameters) against the
    jar's ``-l en -norm -m "exact stem"`` without and with ``-ch``, on the first ``n``
    segments of the first system: the largest absolute difference of each."""
    from meteorx.metric import Scorer
    from tests.oracle import jar as oracle

    reason = oracle.unavailable_reason()
    if reason:
        return f"skipped ({reason})"
    hyps = [h.replace("\r", " ") for h in data.hyps[0][:n]]
    refs = [r.replace("\r", " ") for r in data.refs[:n]]
    config = alignment_config(data.target, None)
    config["function_words"] = "meteor-1.5"  # the jar's list
    scorer = Scorer(config)
    rows = [
        segment_counts(scorer.segment(h, r), scorer.function_words, [None, None])
        for h, r in zip(hyps, refs, strict=True)
    ]
    c = np.asarray(rows, dtype=np.float64)[None]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        hyp_path, ref_path = Path(tmp) / "hyp.txt", Path(tmp) / "ref.txt"
        hyp_path.write_text("\n".join(hyps) + "\n", encoding="utf-8")
        ref_path.write_text("\n".join(refs) + "\n", encoding="utf-8")
        for chars in (False, True):
            seg, _ = mechanism_scores(c, Mechanism("check", False, chars), li_setting(2))
            args = ["-l", "en", "-norm", "-m", "exact stem", "-p", "0.75 1.4 0.7 0.5"]
            args += ["-w", "1.0 0.5"] + (["-ch"] if chars else [])
            result = oracle.run_jar(hyp_path, ref_path, args)
            diff = float(np.abs(seg[0] - np.asarray(result.segment_scores)).max())
            out.append(f"{'characters' if chars else 'words'}: max |Δ| {diff:.1e}")
    return f"{data.name}, {n} segments: " + "; ".join(out)


# -- tuning jointly over sets -------------------------------------------------------------

GRID: dict[str, list[float]] = {
    "alpha": [round(0.05 * k, 2) for k in range(1, 20)],
    "beta": [0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0],
    "gamma": [round(0.05 * k, 2) for k in range(0, 21)],
    "delta": [round(0.05 * k, 2) for k in range(0, 21)],
    "w": [round(0.1 * k, 1) for k in range(0, 11)],
}


class Pool:
    """Several sets' items concatenated, so that one vectorised pass scores them all.

    The objective is the mean segment τ over the sets with segment judgments, plus
    ``sys_weight`` times the mean system r over the sets with three or more systems."""

    def __init__(
        self, sets: Sequence[tuple[FloatArray, D.Measures]], mech: Mechanism, sys_weight: float
    ) -> None:
        parts = [Compact.of(c, mech) for c, _ in sets]
        self.all = Compact(
            np.concatenate([p.content for p in parts], axis=1),
            np.concatenate([p.function for p in parts], axis=1),
            np.concatenate([p.frag for p in parts]),
            np.concatenate([p.matches for p in parts], axis=2),
            (0, 0),
        )
        offsets = np.cumsum([0] + [p.frag.size for p in parts])
        self.segment_sets = sorted(  # pair measures first, then τ-b (the means' order)
            [
                (slice(int(offsets[k]), int(offsets[k + 1])), m)
                for k, (_, m) in enumerate(sets)
                if m.has_segments
            ],
            key=lambda item: item[1].data.seg_measure != "pairs",
        )
        self.sys_weight = sys_weight
        self.systems = [
            (Compact.of(c.sum(axis=1, keepdims=True), mech), m)
            for c, m in sets
            if sys_weight and m.has_system
        ]
        self._pow: dict[float, FloatArray] = {}

    def objective(self, s: Setting) -> float:
        frag_pow = self._pow.get(s.beta)
        if frag_pow is None:
            frag_pow = self._pow[s.beta] = np.power(self.all.frag, s.beta)
        scores = formula(self.all, s, frag_pow)
        taus = [D.seg_tau(scores[part], m) for part, m in self.segment_sets]
        value = float(np.mean(taus)) if taus else 0.0
        if self.systems:
            rs = [D.sys_pearson(formula(x, s), m) for x, m in self.systems]
            value += self.sys_weight * float(np.mean(rs))
        return value


def tune(
    mech: Mechanism,
    sets: Sequence[tuple[FloatArray, D.Measures]],
    n_stages: int,
    sys_weight: float,
    rounds: int = 4,
) -> tuple[Setting, float]:
    """Coordinate ascent over α β γ δ and the stage weights but exact's, from a few
    starting points (li's defaults, Meteor 1.5 English's, the 2005 metric's)."""
    pool = Pool(sets, mech, sys_weight)
    starts = [
        li_setting(n_stages),
        Setting(0.85, 0.2, 0.6, 0.75, (1.0,) + (0.6,) * (n_stages - 1)),
        Setting(0.9, 3.0, 0.5, 0.5, (1.0,) + (0.8,) * (n_stages - 2) + (0.3,)),
    ]
    names = ["alpha", "beta", "gamma", "delta"] + [f"w{k}" for k in range(1, n_stages)]
    best_setting, best_value = starts[0], -math.inf
    for start in starts:
        current, value = start, pool.objective(start)
        for _ in range(rounds):
            improved = False
            for name in names:
                for v in GRID["w" if name.startswith("w") else name]:
                    candidate = with_value(current, name, v)
                    if candidate == current:
                        continue
                    cv = pool.objective(candidate)
                    if cv > value + 1e-9:
                        current, value, improved = candidate, cv, True
            if not improved:
                break
        if value > best_value:
            best_setting, best_value = current, value
    return best_setting, best_value


def cached_tune(
    mech: Mechanism,
    sets: Sequence[tuple[FloatArray, D.Measures]],
    n_stages: int,
    sys_weight: float,
) -> tuple[Setting, float]:
    """:func:`tune`, its result cached on disk by everything it depends on."""
    h = hashlib.sha256()
    h.update(json.dumps([TUNE_VERSION, dataclasses.asdict(mech), n_stages, sys_weight, GRID])
             .encode())  # fmt: skip
    for c, m in sets:
        h.update(np.ascontiguousarray(c).tobytes())
        h.update(m.better.tobytes() + m.worse.tobytes() + m.items.tobytes())
    path = CACHE / "tuned" / f"{h.hexdigest()[:24]}.json"
    if path.is_file():
        saved = json.loads(path.read_text(encoding="utf-8"))
        setting = saved["setting"]
        return Setting(**{**setting, "weights": tuple(setting["weights"])}), saved["value"]
    setting_found, value = tune(mech, sets, n_stages, sys_weight)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"setting": dataclasses.asdict(setting_found), "value": value}
    path.write_text(json.dumps(payload), encoding="utf-8")
    return setting_found, value


#: Bump when the search changes (invalidates cached tuning results).
TUNE_VERSION = 1


# -- report -------------------------------------------------------------------------------


@dataclass
class Row:
    """One metric's figures on every set."""

    label: str
    kind: str  # "anchor", "meteorx", "held-out", "default", "in-sample"
    cells: dict[str, dict[str, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def figures(scores: Scores, m: D.Measures) -> dict[str, float]:
    out = {"n_seg": float(m.seg_count), "n_sys": float(m.sys_index.size)}
    if m.has_segments:
        out["tau"] = D.seg_tau(scores.seg, m)
        out["seg_r"] = D.seg_pearson(scores.seg, m)
    if m.has_system:
        out["sys_r"] = D.sys_pearson(scores.sys, m)
    return out


def _cell(values: dict[str, float] | None, key: str) -> str:
    if not values or key not in values or math.isnan(values[key]):
        return "—"
    return f"{values[key]:.3f}"


def table(rows: Sequence[Row], sets: Sequence[str], measures: dict[str, D.Measures]) -> str:
    head = ["metric"]
    for key in sets:
        m = measures[key]
        if m.has_segments:
            what = "τ-b" if m.data.seg_measure == "tau-b" else "τ"
            head.append(f"{key} {what} (n={m.seg_count})")
        if m.has_system:
            head.append(f"{key} sys r (n={m.sys_index.size})")
    head += ["mean τ", "mean sys r"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row.label]
        taus: list[float] = []
        rs: list[float] = []
        for key in sets:
            m = measures[key]
            values = row.cells.get(key)
            if m.has_segments:
                cells.append(_cell(values, "tau"))
                if values and "tau" in values:
                    taus.append(values["tau"])
            if m.has_system:
                cells.append(_cell(values, "sys_r"))
                if values and "sys_r" in values:
                    rs.append(values["sys_r"])
        n_seg_sets = sum(1 for k in sets if measures[k].has_segments)
        n_sys_sets = sum(1 for k in sets if measures[k].has_system)
        cells.append(f"{np.mean(taus):.3f}" if taus and len(taus) == n_seg_sets else "—")
        cells.append(f"{np.mean(rs):.3f}" if rs and len(rs) == n_sys_sets else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def check_anchors(rows: Sequence[Row]) -> list[str]:
    """Our anchor figures next to the READMEs' (they validate the loading and measures)."""
    out = []
    by_label = {row.label: row for row in rows}
    for key, anchors in README_ANCHORS.items():
        for name, (tau, seg_r, sys_r) in anchors.items():
            row = by_label.get(name)
            if row is None or key not in row.cells:
                continue
            got = row.cells[key]
            parts = []
            for label, want, have in (
                ("τ", tau, got.get("tau")),
                ("seg r", seg_r, got.get("seg_r")),
                ("sys r", sys_r, got.get("sys_r")),
            ):
                if want is not None and have is not None:
                    flag = "" if abs(want - have) <= 0.006 else "  <-- differs"
                    parts.append(f"{label} {have:.3f} (README {want:.3f}){flag}")
            out.append(f"  {key} {name}: " + "; ".join(parts))
    return out


# -- main ---------------------------------------------------------------------------------

FUZZY_DEFAULT: dict[str, Any] = {"threshold": 0.5, "measure": "indel", "min_length": 3}
MECHANISMS = (
    Mechanism("word", fuzzy=False, chars=False),
    Mechanism("ch", fuzzy=False, chars=True),
    Mechanism("fuzzy", fuzzy=True, chars=False),
    Mechanism("fuzzy+ch", fuzzy=True, chars=True),
    Mechanism("cased+ch", fuzzy=False, chars=True, cased=True),
    Mechanism("cased+fuzzy+ch", fuzzy=True, chars=True, cased=True),
    Mechanism("cased+fuzzy+ch unweighted", fuzzy=True, chars=True, cased=True, sim_weighted=False),
    Mechanism("cased+soft+ch", fuzzy=False, chars=True, cased=True, soft=True),
    Mechanism("cased+lex+soft+ch", fuzzy=False, chars=True, cased=True, soft=True, lexical=True),
    Mechanism("cased+soft1:1+ch", fuzzy=False, chars=True, cased=True, soft=True, one_to_one=True),
)
#: Soft credit: similarities below this count nothing.
SOFT_CUTOFF = 0.5
LANGUAGE_GROUPS = ("en", "de", "pt")


def evaluate_mechanisms(
    datasets: dict[str, D.DevSet],
    measures: dict[str, D.Measures],
    mechanisms: Sequence[Mechanism],
    fuzzies: Sequence[dict[str, Any]],
    sys_weight: float,
    in_sample: bool,
    timing: dict[str, list[float]],
    schemes: Sequence[str] = ("lo-set", "lo-lang"),
    soft_cutoff: float = 0.5,
) -> tuple[list[Row], dict[str, Any]]:
    """Rows for every mechanism: li's parameters, then tuned leave-one-set-out and
    leave-one-language-out (and, if asked, on all sets: in-sample). A fuzzy mechanism
    has one alignment per fuzzy option set; each fold keeps the option set whose tuned
    parameters score best on the fold's training sets."""
    keys = list(datasets)
    variants: dict[bool, list[dict[str, Any] | None]] = {False: [None], True: list(fuzzies)}
    arrays: dict[tuple[str, int, tuple[bool, bool, bool]], FloatArray] = {}
    for mech in mechanisms:
        for v, options in enumerate(variants[mech.fuzzy]):
            for key, data in datasets.items():
                if (key, v, mech.alignment) not in arrays:
                    soft = (-soft_cutoff if mech.one_to_one else soft_cutoff) if mech.soft else None
                    arrays[(key, v, mech.alignment)] = counts(
                        data, options, timing, not mech.cased, soft, mech.lexical
                    )
    rows: list[Row] = []
    tuned: dict[str, Any] = {}
    for mech in mechanisms:
        n_stages = (arrays[(keys[0], 0, mech.alignment)].shape[-1] - N_BASE) // len(STAGE)
        options_list = variants[mech.fuzzy]

        def pool(v: int, names: Sequence[str], mech: Mechanism = mech) -> list[Any]:
            return [(arrays[(k, v, mech.alignment)], measures[k]) for k in names]

        default = Row(f"{mech.name} (li parameters)", "default")
        for key in keys:
            ((c, m),) = pool(0, [key])
            default.cells[key] = figures(
                Scores(*mechanism_scores(c, mech, li_setting(n_stages))), m
            )
        rows.append(default)
        memo: dict[tuple[str, ...], tuple[int, Setting, float]] = {}

        def best(
            names: tuple[str, ...],
            mech: Mechanism = mech,
            memo: dict[tuple[str, ...], tuple[int, Setting, float]] = memo,
            n_stages: int = n_stages,
            n_variants: int = len(options_list),
        ) -> tuple[int, Setting, float]:
            if names not in memo:
                found = [
                    (v, *cached_tune(mech, pool(v, names), n_stages, sys_weight))
                    for v in range(n_variants)
                ]
                memo[names] = max(found, key=lambda t: t[2])
            return memo[names]

        def describe(
            v: int, setting: Setting, mech: Mechanism = mech, options: Any = options_list
        ) -> str:
            fuzzy = f" fuzzy {json.dumps(options[v])}" if mech.fuzzy else ""
            return setting_text(setting) + fuzzy

        for scheme in schemes:
            row = Row(f"{mech.name} tuned {scheme}", "held-out")
            for key in keys:
                target = datasets[key].target
                train = tuple(
                    k
                    for k in keys
                    if k != key and (scheme == "lo-set" or datasets[k].target != target)
                )
                if not train:
                    row.notes.append(f"{key}: no other set to tune on")
                    continue
                v, setting, value = best(train)
                ((c, m),) = pool(v, [key])
                row.cells[key] = figures(Scores(*mechanism_scores(c, mech, setting)), m)
                row.notes.append(f"{key}: {describe(v, setting)} (train objective {value:.4f})")
                tuned.setdefault(mech.name, {}).setdefault(scheme, {})[key] = {
                    **dataclasses.asdict(setting),
                    "fuzzy": options_list[v],
                }
            rows.append(row)
        if in_sample:
            v, setting, value = best(tuple(keys))
            tuned.setdefault(mech.name, {})["all"] = {
                **dataclasses.asdict(setting),
                "fuzzy": options_list[v],
            }
            row = Row(f"{mech.name} tuned on all (IN-SAMPLE)", "in-sample")
            for key in keys:
                ((c, m),) = pool(v, [key])
                row.cells[key] = figures(Scores(*mechanism_scores(c, mech, setting)), m)
            row.notes.append(f"all sets: {describe(v, setting)} (objective {value:.4f})")
            rows.append(row)
    return rows, tuned


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=D.DATA, help="shared data folder")
    parser.add_argument("--sets", default=",".join(ALL_SETS), help="comma-separated set keys")
    parser.add_argument("--config", action="append", default=[], metavar="PRESET[@NORM]",
                        help="meteorx configuration to score as is (repeatable)")  # fmt: skip
    parser.add_argument("--skip", default="", help="anchors to leave out: jar,nltk,chrF,BLEU")
    parser.add_argument("--mechanisms", nargs="?", const=",".join(m.name for m in MECHANISMS),
                        default="", metavar="LIST",
                        help="evaluate candidate mechanisms (default: all of "
                        f"{', '.join(m.name for m in MECHANISMS)}), held out")  # fmt: skip
    parser.add_argument("--fuzzy", action="append", default=[], metavar="JSON",
                        help="options of the fuzzy stage (repeatable: each fold keeps the "
                        "best on its training sets; default "
                        f"{json.dumps(FUZZY_DEFAULT)})")  # fmt: skip
    parser.add_argument("--schemes", default="lo-set,lo-lang",
                        help="held-out schemes: lo-set (leave one set out), lo-lang "
                        "(leave one target language out)")  # fmt: skip
    parser.add_argument("--soft-cutoff", type=float, default=SOFT_CUTOFF,
                        help="soft credit: least similarity that counts")  # fmt: skip
    parser.add_argument("--sys-weight", type=float, default=0.0,
                        help="weight of the mean system r in the tuning objective")  # fmt: skip
    parser.add_argument("--in-sample", action="store_true",
                        help="also print figures tuned on all sets (in-sample)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="write every figure as JSON")
    parser.add_argument("--write-configs", type=Path, metavar="DIR",
                        help="write the tuned settings as YAML files into DIR")  # fmt: skip
    args = parser.parse_args(argv)

    keys = [k.strip() for k in args.sets.split(",") if k.strip()]
    unknown = [k for k in keys if k not in D.LOADERS]
    if unknown:
        print(f"unknown set(s): {', '.join(unknown)}; known: {', '.join(ALL_SETS)}",
              file=sys.stderr)  # fmt: skip
        return 2
    absent = D.missing(keys, args.data)
    if absent:
        print(f"data not found under {args.data}: {', '.join(absent)} (set METEORX_DATA)",
              file=sys.stderr)  # fmt: skip
        return 2
    started = time.perf_counter()
    datasets = {k: D.load(k, args.data) for k in keys}
    measures = {k: D.measures(d) for k, d in datasets.items()}
    skip = {s.strip().lower() for s in args.skip.split(",") if s.strip()}
    timing: dict[str, list[float]] = {}
    rows: list[Row] = []

    for name in ANCHORS:
        if name.lower() in skip:
            continue
        row = Row(name, "anchor")
        for key, data in datasets.items():
            try:
                scores = anchor_scores(name, data)
            except Skip as why:
                row.notes.append(f"{key}: {why}")
                continue
            row.cells[key] = figures(scores, measures[key])
            if key in MQM20_CHRF and name == "chrF":
                row.notes.append(
                    f"{key}: pooled τ-b {D.pooled_tau_b(scores.seg, measures[key]):.4f} "
                    f"(README {MQM20_CHRF[key][0]:.4f}), sys r "
                    f"{row.cells[key].get('sys_r', math.nan):.4f} "
                    f"(README {MQM20_CHRF[key][1]:.4f})"
                )
        rows.append(row)

    for spec in args.config:
        row = Row(f"meteorx:{spec}", "meteorx")
        for key, data in datasets.items():
            try:
                scores = meteorx_scores(spec, data, timing)
            except Skip as why:
                row.notes.append(f"{key}: {why}")
                continue
            row.cells[key] = figures(scores, measures[key])
        rows.append(row)

    tuned: dict[str, Any] = {}
    if args.mechanisms:
        wanted = [m for m in MECHANISMS if m.name in args.mechanisms.split(",")]
        fuzzies = [json.loads(f) for f in args.fuzzy] or [FUZZY_DEFAULT]
        found, tuned = evaluate_mechanisms(
            datasets, measures, wanted, fuzzies, args.sys_weight,
            args.in_sample or bool(args.write_configs), timing, args.schemes.split(","),
            args.soft_cutoff,
        )  # fmt: skip
        rows.extend(r for r in found if args.in_sample or r.kind != "in-sample")

    print(table(rows, keys, measures))
    print()
    if args.mechanisms and "jar" not in skip and "de-en" in datasets:
        print("Counts -> scores vs the jar (-ch):", check_against_jar(datasets["de-en"]))
    print("Anchor check against wmt21-dev/README.md:")
    for line in check_anchors(rows):
        print(line)
    for row in rows:
        for note in row.notes:
            print(f"  [{row.label}] {note}")
    for label, (seconds, n) in timing.items():
        if seconds:
            print(f"speed {label}: {n / seconds:.0f} segments/s ({int(n)} segments)")
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json:
        payload = {
            "sets": {
                k: {"pairs": measures[k].seg_count, "systems": int(measures[k].sys_index.size)}
                for k in keys
            },
            "rows": [dataclasses.asdict(r) for r in rows],
            "tuned": tuned,
            "fuzzy": [json.loads(f) for f in args.fuzzy] or [FUZZY_DEFAULT],
            "sys_weight": args.sys_weight,
        }
        args.json.write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
    if args.write_configs and tuned:
        write_configs(args.write_configs, tuned, soft_cutoff=args.soft_cutoff)
    return 0


def write_configs(
    folder: Path, tuned: dict[str, Any], target: str = "en", soft_cutoff: float = 0.5
) -> None:
    """The settings tuned on all sets as YAML, one file per mechanism (for ``target``'s
    normalisation and stages). ``units`` and ``soft_credit`` are meteorx options (the
    ``cased+soft+ch`` file is configs/meteorx.yaml's configuration); the fuzzy stage's
    ``weight_by_similarity`` and one-to-one soft credit exist only in this harness."""
    import yaml

    folder.mkdir(parents=True, exist_ok=True)
    for mech in MECHANISMS:
        setting = tuned.get(mech.name, {}).get("all")
        if setting is None:
            continue
        config = alignment_config(target, setting["fuzzy"], not mech.cased, mech.lexical)
        del config["name"], config["language"]
        weights = list(setting["weights"])
        if mech.lexical:  # the target's own lexical blocks only
            soft_weight = [weights.pop()] if mech.soft else []
            n_lexical = len(LEXICAL_STAGES)
            lexical = weights[-n_lexical:]
            weights = weights[:-n_lexical] + [
                w for (targets, _), w in zip(LEXICAL_STAGES, lexical, strict=True)
                if target in targets.split()
            ] + soft_weight  # fmt: skip
        if mech.soft:
            config["soft_credit"] = {"weight": weights.pop(), "cutoff": soft_cutoff}
        for stage, weight in zip(config["stages"], weights, strict=True):
            stage["weight"] = weight
            if stage["matcher"] == "fuzzy" and mech.sim_weighted:
                stage["weight_by_similarity"] = True
        config.update({k: setting[k] for k in ("alpha", "beta", "gamma", "delta")})
        if mech.chars:
            config["units"] = "characters"
        text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
        (folder / f"{mech.name.replace('+', '-').replace(' ', '-')}.yaml").write_text(
            text, encoding="utf-8"
        )


if __name__ == "__main__":
    sys.exit(main())
