"""Human-readable explanation of one segment: the alignment and the calculation.

Laid out like the worked-example table of the METEOR article: which words matched by
which stage, then P, R, Fmean, chunks, matches, fragmentation, penalty and score.
"""

from __future__ import annotations

from meteorx.metric import Scorer, SegmentResult


def explain_segment(scorer: Scorer, result: SegmentResult, title: str = "") -> str:
    """A multi-line text explaining how ``result`` was computed."""
    stage_names = [s.stage_name for s in scorer.config.stages]
    hyp, ref = result.hyp_tokens, result.ref_tokens
    lines = []
    if title:
        lines.append(title)
    lines.append(f"hypothesis: {' '.join(hyp)}")
    lines.append(f"reference:  {' '.join(ref)}")
    lines.append("")
    lines.append("alignment (reference order):")
    spans = [" ".join(hyp[m.hyp_start : m.hyp_end]) for m in result.alignment.matches]
    width = max((len(text) for text in spans), default=4)
    chunk = 0
    last_ref_end = last_hyp_end = -1
    for m in result.alignment.matches:
        if m.ref_start != last_ref_end or m.hyp_start != last_hyp_end:
            chunk += 1
        last_ref_end, last_hyp_end = m.ref_end, m.hyp_end
        h = " ".join(hyp[m.hyp_start : m.hyp_end])
        r = " ".join(ref[m.ref_start : m.ref_end])
        lines.append(
            f"  hyp[{m.hyp_start:>2}] {h:<{width}}  <->  ref[{m.ref_start:>2}] {r:<{width}}  "
            f"{stage_names[m.stage]:<10} chunk {chunk}"
        )
    matched_hyp = {i for m in result.alignment.matches for i in range(m.hyp_start, m.hyp_end)}
    matched_ref = {i for m in result.alignment.matches for i in range(m.ref_start, m.ref_end)}
    unmatched_h = [t for i, t in enumerate(hyp) if i not in matched_hyp]
    unmatched_r = [t for i, t in enumerate(ref) if i not in matched_ref]
    lines.append(f"  unmatched hypothesis words: {' '.join(unmatched_h) or '-'}")
    lines.append(f"  unmatched reference words:  {' '.join(unmatched_r) or '-'}")
    soft = scorer.config.soft_credit
    if soft is not None:  # what the unmatched words earned (meteorx.soft_credit)
        from meteorx.soft_credit import best_similarities

        hyp_best, ref_best = best_similarities(unmatched_h, unmatched_r, soft.cutoff)
        for side, words, best in (("hypothesis", unmatched_h, hyp_best),
                                  ("reference", unmatched_r, ref_best)):  # fmt: skip
            credited = " ".join(f"{w}~{x:.2f}" for w, x in zip(words, best, strict=True) if x)
            lines.append(
                f"  soft credit ({side}, similarity x weight {soft.weight:g}): {credited or '-'}"
            )
    if not result.alignment.optimal:
        lines.append("  (search bound reached: greedy fallback, alignment may not be optimal)")
    b = result.breakdown
    s = result.stats
    cfg = scorer.config
    lines.append("")
    header = ["P", "R", "Fmean", "chunks", "matches", "frag", "penalty"]
    widths = [14, 14, 14, 8, 9, 10, 10]
    lines.append("  " + "".join(f"{h:<{w}}" for h, w in zip(header, widths, strict=True)) + "score")
    lines.append(
        f"  {b.precision:<14.4f}{b.recall:<14.4f}{b.fmean:<14.4f}{result.alignment.chunks:<8}"
        f"{(s.hyp_matched_words + s.ref_matched_words) / 2:<9g}{b.fragmentation:<10.4f}"
        f"{b.penalty:<10.4f}{b.score:.4f}"
    )
    lines.append("")
    lines.append(
        f"  Fmean = P*R / (alpha*P + (1-alpha)*R) with alpha={cfg.alpha:g}; "
        f"penalty = gamma * frag^beta with gamma={cfg.gamma:g}, beta={cfg.beta:g}; "
        f"frag = chunks / mean matched words"
        + ("; a fully matched single chunk has frag 0" if cfg.perfect_match_rule else "")
    )
    if cfg.units != "words" or soft is not None:
        counted = "characters of words" if cfg.units != "words" else "words"
        extra = ", plus soft credit" if soft is not None else ""
        lines.append(f"  P and R count the {counted} matched by each stage (x its weight){extra}")
    lines.append(f"  score = Fmean * (1 - penalty) = {b.score:.4f}")
    return "\n".join(lines)
