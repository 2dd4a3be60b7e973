"""Writing a :class:`~meteorx.formats.model.Report`: text, TSV, ``.scr``, statistics.

The JSON output is :mod:`meteorx.formats.json_writer`'s (its names are importable from
here too). Every output carries the signature. The text and TSV lines are built by small
functions (:func:`text_segment_line`, :func:`text_system_line`, :func:`tsv_cells`) that
:mod:`meteorx.streaming` writes with too, so a streamed run prints the same bytes as a
batch run of the same input.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from meteorx.errors import output_error
from meteorx.formats.json_writer import (
    breakdown_dict,
    comparison_dict,
    interval_dict,
    parameters_dict,
    write_json,
)
from meteorx.formats.model import STATS_MAGIC, Report, stats_columns, stats_row
from meteorx.scoring import Breakdown

__all__ = [
    "TSV_COLUMNS",
    "breakdown_dict",
    "comparison_dict",
    "interval_dict",
    "parameters_dict",
    "scr_paths",
    "text_segment_line",
    "text_system_line",
    "tsv_cells",
    "tsv_header",
    "write_json",
    "write_scr",
    "write_significance_table",
    "write_stats",
    "write_text",
    "write_tsv",
]


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
            values = "\t".join(map(text, stats_row(seg.stats)))
            out.write(f"{s.name}\t{doc}\t{report.seg_ids[i]}\t{values}\n")
