"""The JSON output: the document ``meteorx score --format json`` prints, and its parts.

:func:`write_json` writes the text ``json.dump`` would give the whole document, but
writes the segments one by one, formatting the usual ones without building their dicts
(most of a run's output time otherwise). ``tests/test_writers.py`` checks that the text
stays ``json.dump``'s, byte for byte.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from operator import attrgetter
from typing import Any, TextIO

from meteorx.formats.model import Report, ScoredSystem, stats_row
from meteorx.scoring import Breakdown, Parameters


def _num(x: float) -> float | None:
    """JSON has no NaN: an undefined quantity (nothing matched) is null."""
    return None if math.isnan(x) else x


def breakdown_dict(b: Breakdown) -> dict[str, Any]:
    return {
        "score": b.score,
        "precision": b.precision,
        "recall": b.recall,
        "fmean": b.fmean,
        "fragmentation": _num(b.fragmentation),
        "penalty": _num(b.penalty),
    }


def interval_dict(interval: Any) -> dict[str, Any]:
    return {
        "mean": interval.mean,
        "lower": interval.lower,
        "upper": interval.upper,
        "half_width": interval.half_width,
        "level": 0.95,
        "n_bootstrap": interval.n_samples,
        "seed": interval.seed,
    }


def comparison_dict(result: Any, baseline: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "baseline": baseline,
        "test": "paired-bs" if result.test == "bs" else "paired-ar",
        "delta": result.delta,
        "p_value": result.p_value,
        "n_samples": result.n_samples,
        "seed": result.seed,
    }
    if result.interval is not None:
        out["confidence"] = interval_dict(result.interval)
    return out


def parameters_dict(params: Parameters, stage_names: Sequence[str]) -> dict[str, Any]:
    return {
        "alpha": params.alpha,
        "beta": params.beta,
        "gamma": params.gamma,
        "delta": params.delta,
        "weights": list(params.weights),
        "stages": list(stage_names),
        "perfect_match_rule": params.perfect_match_rule,
        "fmean": params.fmean_form,
    }


#: ``json.dumps(value, ensure_ascii=False)`` (the C encoder: the same text as
#: ``json.dump``, many times faster).
_encode = json.JSONEncoder(ensure_ascii=False).encode

#: The number types whose ``repr`` is what ``json`` writes for them (finite values).
_PLAIN_NUMBERS = frozenset((int, float))
_FLOAT = frozenset((float,))
_NON_FINITE = frozenset(("nan", "inf", "-inf"))
_BREAKDOWN = attrgetter("score", "precision", "recall", "fmean", "fragmentation", "penalty")


class _FloatTexts(dict[float, str]):
    """``repr`` of floats met before, remembered: a segment's precision, recall,
    fragmentation and penalty are ratios of small counts, met again and again, and
    ``repr`` is most of the JSON writer's time. Equal floats have one ``repr``, but
    for 0.0 and -0.0 (never remembered, nor NaN)."""

    def __missing__(self, x: float) -> str:
        text = repr(x)
        if x and x == x and len(self) < 65536:
            self[x] = text
        return text


def _segment_dict(report: Report, s: ScoredSystem, i: int) -> dict[str, Any]:
    """Segment ``i`` of system ``s`` as the JSON output's ``segments`` list holds it."""
    seg = s.segments[i]
    item: dict[str, Any] = {"segment": i + 1, **breakdown_dict(seg.breakdown)}
    if report.docs is not None:
        item["document"] = report.docs[i]
    if report.seg_ids[i] != str(i + 1):
        item["id"] = report.seg_ids[i]
    if s.chunks is not None:
        item["chunks"] = s.chunks[i]
    if s.ref_index is not None:
        item["ref_index"] = s.ref_index[i]
    item["stats"] = seg.stats.to_list()
    return item


def _json_int(x: Any) -> str:
    return repr(x) if type(x) is int else _encode(x)


def _json_segments(report: Report, s: ScoredSystem) -> Iterator[str]:
    """The items of the ``segments`` list, each preceded by its separator: the text
    ``json.dumps`` gives :func:`_segment_dict`, written without building the dict.

    Numbers are written with ``repr``, which is what ``json`` does for a finite
    ``int`` or ``float``; a segment holding anything else (NaN or infinity, another
    number type) goes through ``json`` itself.
    """
    docs, ids, chunks, refs = report.docs, report.seg_ids, s.chunks, s.ref_index
    float_text = _FloatTexts().__getitem__
    sep = ""
    for i, seg in enumerate(s.segments):
        breakdown = _BREAKDOWN(seg.breakdown)
        row = stats_row(seg.stats)
        texts = None
        if _FLOAT.issuperset(map(type, breakdown)) and _PLAIN_NUMBERS.issuperset(map(type, row)):
            texts = [*map(float_text, breakdown), *map(repr, row)]
            if texts[4] == "nan":  # fragmentation and penalty: undefined is null
                texts[4] = "null"
            if texts[5] == "nan":
                texts[5] = "null"
        if texts is None or not _NON_FINITE.isdisjoint(texts):
            yield sep + _encode(_segment_dict(report, s, i))
            sep = ", "
            continue
        extra = ""
        if docs is not None:
            extra += ', "document": ' + _encode(docs[i])
        if ids[i] != str(i + 1):
            extra += ', "id": ' + _encode(ids[i])
        if chunks is not None:
            extra += ', "chunks": ' + _json_int(chunks[i])
        if refs is not None:
            extra += ', "ref_index": ' + _json_int(refs[i])
        yield (
            f'{sep}{{"segment": {i + 1}, "score": {texts[0]}, "precision": {texts[1]}, '
            f'"recall": {texts[2]}, "fmean": {texts[3]}, "fragmentation": {texts[4]}, '
            f'"penalty": {texts[5]}{extra}, "stats": [{", ".join(texts[6:])}]}}'
        )
        sep = ", "


def write_json(report: Report, out: TextIO, system_only: bool = False) -> None:
    """One JSON object: ``{"hyp", "system", "segments", "signature"}`` for one system,
    ``{"systems": [...], "signature"}`` for several.

    The text is ``json.dump(document, out, ensure_ascii=False)``'s, but the segments
    (:func:`_segment_dict`) are written one by one as they are formatted, not gathered
    into one dict first.
    """
    baseline = report.systems[0].name

    def one(s: ScoredSystem) -> dict[str, Any]:
        system = {**breakdown_dict(s.system.breakdown), "stats": s.system.stats.to_list()}
        if s.interval is not None:
            system["confidence"] = interval_dict(s.interval)
        data: dict[str, Any] = {"hyp": s.name, "system": system}
        if s.comparison is not None:
            data["comparison"] = comparison_dict(s.comparison, baseline)
        if s.documents is not None:
            data["documents"] = [
                {"document": d, **breakdown_dict(sc.breakdown), "stats": sc.stats.to_list()}
                for d, sc in s.documents
            ]
        return data

    def open_system(s: ScoredSystem) -> None:
        """A system's object without its closing brace; ``segments`` is its last key."""
        out.write(_encode(one(s))[:-1])
        if not system_only:
            out.write(', "segments": [')
            out.writelines(_json_segments(report, s))
            out.write("]")

    rest: dict[str, Any] = {}
    if report.significance:
        rest["significance"] = report.significance
    rest["parameters"] = parameters_dict(report.params, report.stage_names)
    rest["signature"] = report.signature
    if len(report.systems) == 1:
        open_system(report.systems[0])
    else:
        out.write('{"systems": [')
        for k, s in enumerate(report.systems):
            out.write(", " if k else "")
            open_system(s)
            out.write("}")
        out.write("]")
    out.write(", " + _encode(rest)[1:] + "\n")  # the keys after the systems
