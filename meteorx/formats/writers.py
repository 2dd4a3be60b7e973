"""Writing a :class:`~meteorx.formats.model.Report`: text, JSON, TSV, ``.scr``, statistics.

Every output carries the signature. The text and TSV lines are built by small
functions (:func:`text_segment_line`, :func:`text_system_line`, :func:`tsv_row`) that
:mod:`meteorx.streaming` writes with too, so a streamed run prints the same bytes as a
batch run of the same input.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any, TextIO

from meteorx.errors import output_error
from meteorx.formats.model import STATS_MAGIC, Report, ScoredSystem, stats_columns
from meteorx.scoring import Breakdown, Parameters
from meteorx.stats import HEAD_COLUMNS, STAGE_COLUMNS, TAIL_COLUMNS, Stats


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
_HEAD = attrgetter(*HEAD_COLUMNS)
_STAGES = attrgetter(*STAGE_COLUMNS)
_TAIL = attrgetter(*TAIL_COLUMNS)


def _stats_row(stats: Stats) -> Sequence[Any]:
    """``stats.to_list()``, made faster: the row of a record whose stage blocks are of
    one length (any other goes through ``to_list``)."""
    stages = _STAGES(stats)
    row = (*_HEAD(stats), *chain.from_iterable(zip(*stages, strict=False)), *_TAIL(stats))
    return row if len(row) == 7 + 4 * len(stages[0]) else stats.to_list()


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
        row = _stats_row(seg.stats)
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


def _f(x: float, p: int) -> str:
    return "nan" if math.isnan(x) else f"{x:.{p}f}"


#: The columns every TSV output starts with (then ``document``, ``ci_lower``...).
TSV_COLUMNS = ("system", "segment", "score", "precision", "recall", "fragmentation", "penalty")


def tsv_header(signature: str, extra: Sequence[str] = ()) -> str:
    """The signature comment and the header row of a TSV output."""
    return f"# {signature}\n" + "\t".join([*TSV_COLUMNS, *extra]) + "\n"


def tsv_cells(name: str, label: str, b: Breakdown, p: int) -> list[str]:
    """The :data:`TSV_COLUMNS` cells of one row (a segment, document or system)."""
    return [
        name,
        label,
        _f(b.score, p),
        _f(b.precision, p),
        _f(b.recall, p),
        _f(b.fragmentation, p),
        _f(b.penalty, p),
    ]


def text_segment_line(number: int, score: float, p: int) -> str:
    """A segment's line of the text output."""
    return f"Segment {number} score:\t{_f(score, p)}\n"


def text_system_line(
    score: float, b: Breakdown, segments: int, p: int, label: str = "", ci: str = ""
) -> str:
    """A system's line of the text output (``label`` before ``METEOR``, the confidence
    interval ``ci`` after the score)."""
    return (
        f"{label}METEOR = {_f(score, p)}{ci}  (P {b.precision:.4f}, R {b.recall:.4f}, "
        f"Fmean {b.fmean:.4f}, frag {b.fragmentation:.4f}, penalty {b.penalty:.4f}, "
        f"{segments} segments)\n"
    )


def write_tsv(report: Report, out: TextIO, precision: int = 6, system_only: bool = False) -> None:
    """Rows for segments, documents and systems.

    Columns: ``system segment score precision recall fragmentation penalty`` and, when
    the input has documents, ``document``; with confidence intervals ``ci_lower
    ci_upper``; with a paired test ``p_value``. Document rows have ``document`` in the
    segment column, system rows ``system``.
    """
    p = precision
    has_docs = report.docs is not None
    has_ci = any(s.interval is not None for s in report.systems)
    has_p = any(s.comparison is not None for s in report.systems)
    header = ["document"] if has_docs else []
    header += ["ci_lower", "ci_upper"] if has_ci else []
    header += ["p_value"] if has_p else []
    out.write(tsv_header(report.signature, header))

    def row(name: str, label: str, b: Breakdown, doc: str, extra: list[str]) -> None:
        cells = tsv_cells(name, label, b, p)
        cells += [doc] if has_docs else []
        out.write("\t".join(cells + extra) + "\n")

    blank = [""] * ((2 if has_ci else 0) + (1 if has_p else 0))
    for s in report.systems:
        if not system_only:
            for i, seg in enumerate(s.segments):
                doc = report.docs[i] if report.docs is not None else ""
                row(s.name, report.seg_ids[i], seg.breakdown, doc, blank)
        for d, sc in s.documents or []:
            row(s.name, "document", sc.breakdown, d, blank)
        extra = []
        if has_ci:
            iv = s.interval or (s.comparison.interval if s.comparison is not None else None)
            extra += [_f(iv.lower, p), _f(iv.upper, p)] if iv is not None else ["", ""]
        if has_p:
            extra += [f"{s.comparison.p_value:.4f}" if s.comparison is not None else ""]
        row(s.name, "system", s.system.breakdown, "", extra)


def write_text(report: Report, out: TextIO, precision: int = 6, system_only: bool = False) -> None:
    """Human-readable: segment lines, document lines, one line per system, the signature,
    and a significance table when requested."""
    p = precision
    several = len(report.systems) > 1
    for s in report.systems:
        if not system_only:
            for i, seg in enumerate(s.segments, 1):
                out.write(text_segment_line(i, seg.score, p))
            for d, sc in s.documents or []:
                out.write(f"Document {d} score:\t{_f(sc.score, p)}\n")
        b = s.system.breakdown
        label = f"{s.name}: " if several else ""
        ci = ""
        if s.interval is not None:
            iv = s.interval
            ci = (
                f" [95% CI {iv.lower:.{p}f}, {iv.upper:.{p}f}; μ = {iv.mean:.4f} ± "
                f"{iv.half_width:.4f}]"
            )
        out.write(text_system_line(s.system.score, b, len(s.segments), p, label, ci))
    if any(s.comparison is not None for s in report.systems):
        write_significance_table(report, out)
    out.write(f"{report.signature}\n")


def write_significance_table(report: Report, out: TextIO) -> None:
    """A sacreBLEU-style table: each system against the baseline (the first)."""
    info = report.significance
    test = info.get("test", "")
    n = info.get("n_samples", "")
    title = (
        f"Paired bootstrap resampling test with {n} resamples"
        if test == "paired-bs"
        else f"Paired approximate randomization test with {n} trials"
    )
    width = max(len("Baseline: " + report.systems[0].name), *(len(s.name) for s in report.systems))
    out.write("\n" + title + f" (seed {info.get('seed')})\n")
    with_ci = test == "paired-bs" or any(s.interval is not None for s in report.systems)
    head = "METEOR (μ ± 95% CI)" if with_ci else "METEOR"
    out.write(f"{'System':>{width}}  {head:<26}  {'delta':>8}  p-value\n")
    for k, s in enumerate(report.systems):
        name = f"Baseline: {s.name}" if k == 0 else s.name
        iv = s.interval
        if s.comparison is not None and s.comparison.interval is not None:
            iv = s.comparison.interval
        if k == 0 and iv is None and report.systems[1:]:
            other = report.systems[1].comparison
            iv = other.baseline_interval if other is not None else None
        cell = f"{s.system.score:.4f}"
        if with_ci and iv is not None:
            cell += f" ({iv.mean:.4f} ± {iv.half_width:.4f})"
        if k == 0 or s.comparison is None:
            out.write(f"{name:>{width}}  {cell:<26}  {'':>8}  -\n")
        else:
            c = s.comparison
            star = "*" if c.p_value < 0.05 else " "
            out.write(f"{name:>{width}}  {cell:<26}  {c.delta:>+8.4f}  {c.p_value:.4f}{star}\n")
    out.write(
        "p: probability of an absolute score difference at least this large arising by chance\n"
        "if system and baseline came from the same process; * = p < 0.05 (different, not\n"
        "necessarily better).\n"
    )


def scr_paths(prefix: str) -> list[str]:
    """The four files :func:`write_scr` writes."""
    return [f"{prefix}-{part}" for part in ("seg.scr", "doc.scr", "sys.scr", "signature.txt")]


def write_scr(report: Report, prefix: str) -> list[Path]:
    """Meteor 1.5 ``-sgml`` score files: ``PREFIX-seg.scr``, ``-doc.scr``, ``-sys.scr``.

    Tab-separated ``setid sysid [docid [segid]] score``, documents sorted by id and
    segments by number, as the jar writes them. The signature goes to
    ``PREFIX-signature.txt`` (the ``.scr`` format has no place for comments).
    """
    setid = report.setid or "-"
    docs = report.docs or ["-"] * len(report.seg_ids)
    seg_path, doc_path, sys_path, sig_path = (Path(p) for p in scr_paths(prefix))

    def seg_key(i: int) -> tuple[str, int, str]:
        sid = report.seg_ids[i]
        return (docs[i], int(sid) if sid.isdigit() else 0, sid)

    order = sorted(range(len(report.seg_ids)), key=seg_key)
    seg_lines, doc_lines, sys_lines = [], [], []
    for s in report.systems:
        for i in order:
            seg_lines.append(
                f"{setid}\t{s.name}\t{docs[i]}\t{report.seg_ids[i]}\t{s.segments[i].score!r}\n"
            )
        documents = s.documents or [("-", s.system)]
        for d, sc in sorted(documents, key=lambda item: item[0]):
            doc_lines.append(f"{setid}\t{s.name}\t{d}\t{sc.score!r}\n")
        sys_lines.append(f"{setid}\t{s.name}\t{s.system.score!r}\n")
    outputs = [
        (seg_path, seg_lines),
        (doc_path, doc_lines),
        (sys_path, sys_lines),
        (sig_path, [report.signature + "\n"]),
    ]
    for path, lines in outputs:
        try:
            path.write_text("".join(lines), encoding="utf-8")
        except OSError as error:
            raise output_error(path, error) from None
    return [path for path, _ in outputs]


def _g(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


class _Texts(dict[Any, str]):
    """:func:`_g` of numbers met before, remembered (counts repeat a lot). Equal
    numbers have one text (3 and 3.0 are both ``3``), so the number is the key."""

    def __missing__(self, x: float) -> str:
        text = _g(x)
        if len(self) < 4096:
            self[x] = text
        return text


def write_stats(report: Report, out: TextIO) -> None:
    """Segment statistics, one row per system and segment, to re-score later.

    The header comments hold the signature and the parameters (JSON); ``meteorx
    combine`` sums the rows back into document and system scores.
    """
    out.write(f"{STATS_MAGIC}\n")
    out.write(f"# signature: {report.signature}\n")
    out.write(f"# parameters: {json.dumps(parameters_dict(report.params, report.stage_names))}\n")
    if report.setid:
        out.write(f"# setid: {report.setid}\n")
    cols = ["system", "document", "segment", *stats_columns(report.stage_names)]
    out.write("\t".join(cols) + "\n")
    text = _Texts().__getitem__
    for s in report.systems:
        for i, seg in enumerate(s.segments):
            doc = report.docs[i] if report.docs is not None else ""
            values = "\t".join(map(text, _stats_row(seg.stats)))
            out.write(f"{s.name}\t{doc}\t{report.seg_ids[i]}\t{values}\n")
