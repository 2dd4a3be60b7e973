"""What the report says (:mod:`meteorx.report`): a system's line in the score table,
and every segment's results as the data the page's script draws from.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from meteorx.metric import SegmentResult


@dataclass
class SystemSummary:
    """A system's line in the score table."""

    name: str
    score: float
    precision: float
    recall: float
    fragmentation: float
    penalty: float
    ci: tuple[float, float] | None = None
    p_value: float | None = None


def segment_payload(
    results: Sequence[SegmentResult],
) -> dict[str, Any]:
    """One segment as each system scored it: the references (each once) and per system
    the hypothesis words, its reference, the links and the numbers."""
    refs: list[list[str]] = []
    ref_slot: dict[tuple[str, ...], int] = {}
    systems = []
    for r in results:
        slot = ref_slot.get(r.ref_tokens)
        if slot is None:
            slot = ref_slot[r.ref_tokens] = len(refs)
            refs.append(list(r.ref_tokens))
        b = r.breakdown
        systems.append(
            {
                "h": list(r.hyp_tokens),
                "r": slot,
                "ri": r.ref_index,
                "l": [
                    [m.hyp_start, m.hyp_len, m.ref_start, m.ref_len, m.stage]
                    for m in r.alignment.matches
                ],
                "s": round(b.score, 6),
                "p": round(b.precision, 4),
                "rc": round(b.recall, 4),
                "f": None if math.isnan(b.fragmentation) else round(b.fragmentation, 4),
                "pen": None if math.isnan(b.penalty) else round(b.penalty, 4),
                "c": r.alignment.chunks,
            }
        )
    return {"refs": refs, "sys": systems}


def segments_data(
    results: Sequence[Sequence[SegmentResult]],
    seg_ids: Sequence[str],
    docs: Sequence[str] | None,
) -> list[dict[str, Any]]:
    """Every segment's id, document and results (all systems), for the script."""
    return [
        {
            "id": seg_ids[i],
            "doc": docs[i] if docs is not None else None,
            **segment_payload([system[i] for system in results]),
        }
        for i in range(len(results[0]) if results else 0)
    ]
