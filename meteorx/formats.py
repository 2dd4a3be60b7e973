"""Input and output formats: plain text, TSV, JSONL, WMT SGML, statistics files.

Reading gives a :class:`TestSet`: the hypotheses of one or more systems and the
references, aligned by segment, with document and segment identifiers when the format
has them. Writing turns scored systems (:class:`ScoredSystem`) into text, JSON, TSV,
the jar's ``.scr`` files or a statistics file that ``meteorx combine`` can re-score
later; every output carries the signature.

Formats
-------
``text``
    One segment a line (the default; several ``--ref`` files = several references).
``tsv``
    Tab-separated with a header row naming the columns; ``--hyp-column`` (repeatable:
    several systems in one table) and ``--ref-column`` (repeatable: several references)
    pick the columns, ``--doc-column`` and ``--id-column`` optional ones.
``jsonl``
    One JSON object a line; same column options. A reference field may also hold a
    list of strings (several references).
``sgml``
    WMT SGML as read by Meteor 1.5's ``-sgml``: ``<tstset setid=…>`` / ``<refset>``,
    ``<doc sysid=… docid=…>``, ``<seg id=…>``. A test file may hold several systems,
    a reference file several references (``sysid``). Entities ``&quot; &apos; &lt; &gt;
    &amp;`` are unescaped, as the jar does.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from meteorx.errors import InputError, output_error
from meteorx.inputs import (
    MAX_SEGMENT_CHARS,
    check_length,
    check_stdin_once,
    read_lines,
    read_parallel,
)
from meteorx.scoring import Breakdown, Parameters, compute
from meteorx.stats import Stats, sum_stats

INPUT_FORMATS = ("text", "tsv", "jsonl", "sgml")
STATS_MAGIC = "# meteorx-stats v1"


# -- the data model -----------------------------------------------------------------


@dataclass
class TestSet:
    """Systems' hypotheses and the references, aligned by segment.

    ``refs[i]`` lists the references of segment ``i``; ``docs[i]`` is its document
    (``None`` when the format has no documents); ``seg_ids[i]`` its identifier
    (1-based line numbers for text).
    """

    systems: list[tuple[str, list[str]]]
    refs: list[list[str]]
    seg_ids: list[str]
    docs: list[str] | None = None
    setid: str | None = None
    #: references per segment when there are no segments (the number of reference
    #: files or columns), so that an empty input's signature still says ``refs:N``
    declared_refs: int = 0

    @property
    def n_refs(self) -> int:
        return max((len(r) for r in self.refs), default=self.declared_refs)

    def __post_init__(self) -> None:
        n = len(self.refs)
        for name, hyps in self.systems:
            if len(hyps) != n:
                raise InputError(
                    f"system {name!r} has {len(hyps)} segments but there are {n} references"
                )
        if len(self.seg_ids) != n or (self.docs is not None and len(self.docs) != n):
            raise InputError("segment identifiers do not match the number of segments")


@dataclass(frozen=True)
class Scored:
    """A score with its breakdown and statistics (a segment, a document or a system)."""

    breakdown: Breakdown
    stats: Stats

    @property
    def score(self) -> float:
        return self.breakdown.score


@dataclass
class ScoredSystem:
    """Everything printed about one system."""

    name: str
    system: Scored
    segments: list[Scored]
    documents: list[tuple[str, Scored]] | None = None
    chunks: list[int] | None = None  # alignment chunks per segment (not in stats files)
    ref_index: list[int] | None = None  # best reference per segment
    interval: Any = None  # significance.Interval
    comparison: Any = None  # significance.PairedResult (vs. the baseline)


@dataclass
class Report:
    """A complete run: systems, identifiers, parameters, signature, significance info."""

    systems: list[ScoredSystem]
    signature: str
    seg_ids: list[str]
    docs: list[str] | None
    setid: str | None
    params: Parameters
    stage_names: list[str]
    significance: dict[str, Any] = field(default_factory=dict)


def document_scores(
    docs: Sequence[str], segments: Sequence[Scored], params: Parameters
) -> list[tuple[str, Scored]]:
    """Per-document scores from summed segment statistics, in first-appearance order."""
    grouped: dict[str, list[Stats]] = {}
    for doc, seg in zip(docs, segments, strict=True):
        grouped.setdefault(doc, []).append(seg.stats)
    out = []
    for doc, records in grouped.items():
        total = sum_stats(records)
        out.append((doc, Scored(compute(total, params), total)))
    return out


# -- reading ------------------------------------------------------------------------


def read_text(hyp_paths: Sequence[str], ref_paths: Sequence[str]) -> TestSet:
    """Plain text: each hypothesis file is a system, each reference file a reference."""
    systems = []
    refs: list[list[str]] = []
    for path in hyp_paths:
        hyps, ref_lines = read_parallel(path, list(ref_paths))
        if not refs:
            refs = [list(r) for r in zip(*ref_lines, strict=True)] if ref_lines else []
        systems.append((path, hyps))
    return TestSet(
        systems, refs, [str(i) for i in range(1, len(refs) + 1)], declared_refs=len(ref_paths)
    )


def _read_tsv_rows(path: str) -> tuple[list[str], list[dict[str, Any]]]:
    lines = read_lines(path)
    if not lines:
        raise InputError(f"{path} is empty; a TSV file needs a header row naming its columns")
    header = lines[0].split("\t")
    rows = []
    for number, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise InputError(
                f"{path}, line {number}: {len(fields)} fields but the header has {len(header)}"
            )
        rows.append(dict(zip(header, fields, strict=True)))
    return header, rows


def load_json(text: str, where: str) -> Any:
    """``json.loads`` with every failure an :class:`InputError` naming ``where``.

    Besides syntax errors, the decoder refuses nesting deeper than the interpreter's
    recursion limit (``RecursionError``) and integers of more than 4,300 digits
    (``ValueError``); both are bad input, not crashes.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: invalid JSON ({error.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply") from None
    except ValueError as error:  # an integer beyond int_max_str_digits
        reason = str(error).split(":")[0]
        raise InputError(f"{where}: JSON value out of range ({reason})") from None


def _read_jsonl_rows(path: str) -> tuple[list[str], list[dict[str, Any]]]:
    rows = []
    columns: dict[str, None] = {}
    for number, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        row = load_json(line, f"{path}, line {number}")
        if not isinstance(row, dict):
            raise InputError(f"{path}, line {number}: expected a JSON object")
        columns.update(dict.fromkeys(row))
        rows.append(row)
    return list(columns), rows


#: Tabs, line breaks and other control characters: identifiers holding one would break
#: the line- and tab-separated outputs (text, TSV, statistics and .scr files).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def check_identifier(value: str, where: str) -> None:
    """Refuse an identifier (set, system, document, segment) with a control character."""
    found = _CONTROL.search(value)
    if found:
        raise InputError(
            f"{where}: the identifier {value[:40]!r} holds a control character "
            f"(U+{ord(found.group()):04X}: a tab or line break would break the outputs)"
        )


def _identifiers(values: list[list[str]], path: str, name: str) -> list[str]:
    for number, (value,) in enumerate(values, 1):
        check_identifier(value, f"{path}, record {number}, column {name!r}")
    return [v[0] for v in values]


def _column(
    rows: list[dict[str, Any]], columns: list[str], name: str, path: str, many: bool = False
) -> list[list[str]]:
    if name not in columns:
        raise InputError(
            f"{path} has no column {name!r}; its columns are: {', '.join(columns) or '(none)'}"
        )
    out = []
    for number, row in enumerate(rows, 1):
        value = row.get(name)
        if isinstance(value, str):
            out.append([value])
        elif many and isinstance(value, list) and all(isinstance(v, str) for v in value):
            out.append(list(value))
        elif value is None:
            raise InputError(f"{path}, record {number}: column {name!r} is missing")
        else:
            kind = "a string or a list of strings" if many else "a string"
            raise InputError(f"{path}, record {number}: column {name!r} must be {kind}")
    return out


def read_table(
    hyp_paths: Sequence[str],
    fmt: str,
    hyp_columns: Sequence[str] = ("hyp",),
    ref_columns: Sequence[str] = ("ref",),
    ref_paths: Sequence[str] = (),
    doc_column: str | None = None,
    id_column: str | None = None,
) -> TestSet:
    """TSV or JSONL tables with named columns.

    Each hypothesis table gives one system per ``hyp_columns`` entry (named after the
    column for a single table, ``path:column`` otherwise). References come from
    ``ref_columns`` of the ``ref_paths`` tables when given, else of the (first)
    hypothesis table; several columns or JSON lists are several references.
    """
    reader = _read_tsv_rows if fmt == "tsv" else _read_jsonl_rows
    tables = [(p, *reader(p)) for p in hyp_paths]
    systems = []
    for path, columns, rows in tables:
        for col in hyp_columns:
            hyps = [v[0] for v in _column(rows, columns, col, path)]
            name = col if len(tables) == 1 else f"{path}:{col}"
            systems.append((name, hyps))
    ref_tables = [(p, *reader(p)) for p in ref_paths] if ref_paths else tables[:1]
    n = len(tables[0][2])
    refs: list[list[str]] = [[] for _ in range(n)]
    for path, columns, rows in ref_tables:
        if len(rows) != n:
            raise InputError(
                f"{tables[0][0]} has {n} records but {path} has {len(rows)}; "
                "tables must be record-aligned"
            )
        for col in ref_columns:
            for seg_refs, values in zip(
                refs, _column(rows, columns, col, path, many=True), strict=True
            ):
                seg_refs.extend(values)
    for path, _, rows in tables[1:]:
        if len(rows) != n:
            raise InputError(f"{tables[0][0]} has {n} records but {path} has {len(rows)}")
    first_path, first_columns, first_rows = tables[0]
    docs = (
        _identifiers(
            _column(first_rows, first_columns, doc_column, first_path), first_path, doc_column
        )
        if doc_column
        else None
    )
    seg_ids = (
        _identifiers(
            _column(first_rows, first_columns, id_column, first_path), first_path, id_column
        )
        if id_column
        else [str(i) for i in range(1, n + 1)]
    )
    return TestSet(
        systems, refs, seg_ids, docs, declared_refs=len(ref_columns) * max(1, len(ref_paths))
    )


# SGML, as Meteor 1.5's SGMData reads it. One pass over the tags: no pattern spans a
# segment body, so an unclosed <seg> costs linear time (a lazy ``<seg.*?</seg>`` pattern
# rescans the rest of the file from every unclosed tag: quadratic).
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z]+)([^<>]*)>")
_SEG_START = re.compile(r"<\s*seg\b", re.IGNORECASE)
_ATTR = re.compile(r"(?<!\w)(\w+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))")
_ENTITIES = [("&quot;", '"'), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")]


def _attrs(text: str, where: str) -> dict[str, str]:
    attrs = {
        m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None)
        for m in _ATTR.finditer(text)
    }
    for name, value in attrs.items():
        check_identifier(value, f"{where}: attribute {name}")
    return attrs


def unescape_sgml(text: str) -> str:
    """Meteor 1.5's ``Normalizer.unescapeSGML`` (case-insensitive, ``&amp;`` last)."""
    for entity, char in _ENTITIES:
        text = re.sub(re.escape(entity), char, text, flags=re.IGNORECASE)
    return text


@dataclass
class SgmlSet:
    """One SGML file: ``system -> [(docid, segid, text)]`` in file order, and its setid."""

    setid: str | None
    systems: dict[str, list[tuple[str, str, str]]]


def read_sgml_file(path: str) -> SgmlSet:
    """Parse a WMT SGML file (test, reference or source set).

    Tags other than the set, ``doc`` and ``seg`` tags are ignored; inside a segment
    everything up to ``</seg>`` is its text. A ``<seg>`` left open is an error.
    """
    text = "\n".join(read_lines(path))
    setid: str | None = None
    system: str | None = None
    doc: str | None = None
    systems: dict[str, list[tuple[str, str, str]]] = {}
    found_set = False
    open_seg: tuple[int, int, dict[str, str]] | None = None  # (line, body start, attrs)
    seg_tags: set[int] = set()
    line, counted = 1, 0
    for match in _TAG.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        closing, name, rest = match.group(1), match.group(2).lower(), match.group(3)
        if open_seg is not None:
            if name != "seg":
                continue  # markup inside a segment is its text
            if not closing:
                raise InputError(
                    f"{path}, line {open_seg[0]}: <seg> not closed "
                    f"(a new <seg> starts on line {line} before </seg>)"
                )
            seg_line, body_start, attrs = open_seg
            open_seg = None
            if doc is None or system is None:
                raise InputError(f"{path}, line {seg_line}: <seg> outside a <doc>")
            if "id" not in attrs:
                raise InputError(f"{path}, line {seg_line}: <seg> needs an id attribute")
            body = unescape_sgml(" ".join(text[body_start : match.start()].split()))
            systems.setdefault(system, []).append((doc, attrs["id"], body))
        elif closing:
            if name == "seg":
                raise InputError(f"{path}, line {line}: </seg> without an opening <seg>")
        elif name in ("tstset", "refset", "srcset"):
            found_set = True
            attrs = _attrs(rest, f"{path}, line {line}")
            if "setid" not in attrs:
                raise InputError(f"{path}, line {line}: set header needs a setid attribute")
            setid = attrs["setid"]
            system = attrs.get("sysid", attrs.get("refid", system))
        elif name == "doc":
            attrs = _attrs(rest, f"{path}, line {line}")
            system = attrs.get("sysid", attrs.get("refid", system))
            if system is None:
                raise InputError(f"{path}, line {line}: no sysid in the document or set header")
            if "docid" not in attrs:
                raise InputError(f"{path}, line {line}: document header needs a docid attribute")
            doc = attrs["docid"]
        elif name == "seg":
            open_seg = (line, match.end(), _attrs(rest, f"{path}, line {line}"))
            seg_tags.add(match.start())
    if open_seg is not None:
        raise InputError(f"{path}, line {open_seg[0]}: <seg> not closed (no </seg> after it)")
    for start in (m.start() for m in _SEG_START.finditer(text)):
        if start not in seg_tags:  # '<seg' with no '>' before the next '<'
            line = text.count("\n", 0, start) + 1
            raise InputError(f"{path}, line {line}: '<seg' without the '>' that ends the tag")
    if not found_set:
        raise InputError(f"{path}: not WMT SGML (no <tstset>, <refset> or <srcset> header)")
    if not systems:
        raise InputError(f"{path}: no segments (<seg id=...>text</seg> inside a <doc>)")
    return SgmlSet(setid, systems)


def read_sgml(hyp_paths: Sequence[str], ref_paths: Sequence[str]) -> TestSet:
    """WMT SGML test and reference sets, matched by (document, segment id).

    Segments are in the order of the (first) reference set; every system must cover
    exactly those segments. Each reference system (``sysid``) is one reference.
    """
    ref_sets = [read_sgml_file(p) for p in ref_paths]
    order: list[tuple[str, str]] = []
    refs: dict[tuple[str, str], list[str]] = {}
    for ref_set in ref_sets:
        for entries in ref_set.systems.values():
            for doc, seg, body in entries:
                key = (doc, seg)
                if key not in refs:
                    refs[key] = []
                    order.append(key)
                refs[key].append(body)
    if not order:
        raise InputError(f"no reference segments in {', '.join(ref_paths)}")
    systems = []
    setid = ref_sets[0].setid
    for path in hyp_paths:
        test_set = read_sgml_file(path)
        setid = setid or test_set.setid
        for sysid, entries in test_set.systems.items():
            segs = {(doc, seg): body for doc, seg, body in entries}
            missing = [k for k in order if k not in segs]
            extra = [k for k in segs if k not in refs]
            if missing or extra:
                doc, seg = (missing or extra)[0]
                what = "has no" if missing else "has a segment without"
                raise InputError(
                    f"{path}: system {sysid!r} {what} reference segment "
                    f"(doc {doc!r}, seg {seg!r}); {len(missing)} missing, {len(extra)} extra"
                )
            systems.append((sysid, [segs[k] for k in order]))
    return TestSet(
        systems,
        [refs[k] for k in order],
        [seg for _, seg in order],
        [doc for doc, _ in order],
        setid,
    )


def read_input(
    fmt: str,
    hyp_paths: Sequence[str],
    ref_paths: Sequence[str],
    hyp_columns: Sequence[str] | None = None,
    ref_columns: Sequence[str] | None = None,
    doc_column: str | None = None,
    id_column: str | None = None,
    max_chars: int = MAX_SEGMENT_CHARS,
) -> TestSet:
    """Read any input format (see the module docstring).

    Segments longer than ``max_chars`` characters are refused (0 = no limit; see
    :data:`meteorx.inputs.MAX_SEGMENT_CHARS`).
    """
    check_stdin_once([*hyp_paths, *ref_paths])
    if fmt == "text":
        if not ref_paths:
            raise InputError("text input needs at least one --ref file")
        testset = read_text(hyp_paths, ref_paths)
    elif fmt == "sgml":
        if not ref_paths:
            raise InputError("SGML input needs a reference set (--ref ref.sgm)")
        testset = read_sgml(hyp_paths, ref_paths)
    elif fmt in ("tsv", "jsonl"):
        testset = read_table(
            hyp_paths,
            fmt,
            hyp_columns or ["hyp"],
            ref_columns or ["ref"],
            ref_paths,
            doc_column,
            id_column,
        )
    else:
        raise InputError(f"unknown input format {fmt!r}; use one of: {', '.join(INPUT_FORMATS)}")
    if max_chars:
        _check_lengths(testset, fmt, ref_paths, max_chars)
    return testset


def _check_lengths(testset: TestSet, fmt: str, ref_paths: Sequence[str], limit: int) -> None:
    """Every segment within ``limit`` characters; the error names file and line (text)
    or system and segment (other formats)."""
    for name, hyps in testset.systems:
        for i, hyp in enumerate(hyps):
            if len(hyp) > limit:
                where = f"{name}, line {i + 1}" if fmt == "text" else f"system {name!r}"
                check_length(hyp, where + _segment_label(testset, fmt, i), limit)
    for i, refs in enumerate(testset.refs):
        for k, ref in enumerate(refs):
            if len(ref) > limit:
                if fmt == "text":
                    where = f"{ref_paths[k]}, line {i + 1}"
                else:
                    where = f"reference {k + 1}" + _segment_label(testset, fmt, i)
                check_length(ref, where, limit)


def _segment_label(testset: TestSet, fmt: str, i: int) -> str:
    if fmt == "text":
        return ""
    doc = f"document {testset.docs[i]!r}, " if testset.docs is not None else ""
    return f", {doc}segment {testset.seg_ids[i]!r}"


# -- writing ------------------------------------------------------------------------


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


def write_json(report: Report, out: TextIO, system_only: bool = False) -> None:
    """One JSON object: ``{"hyp", "system", "segments", "signature"}`` for one system,
    ``{"systems": [...], "signature"}`` for several."""
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
        if not system_only:
            segs = []
            for i, seg in enumerate(s.segments):
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
                segs.append(item)
            data["segments"] = segs
        return data

    data: dict[str, Any] = (
        one(report.systems[0])
        if len(report.systems) == 1
        else {"systems": [one(s) for s in report.systems]}
    )
    if report.significance:
        data["significance"] = report.significance
    data["parameters"] = parameters_dict(report.params, report.stage_names)
    data["signature"] = report.signature
    json.dump(data, out, ensure_ascii=False)
    out.write("\n")


def _f(x: float, p: int) -> str:
    return "nan" if math.isnan(x) else f"{x:.{p}f}"


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
    out.write(f"# {report.signature}\n")
    header = ["system", "segment", "score", "precision", "recall", "fragmentation", "penalty"]
    header += ["document"] if has_docs else []
    header += ["ci_lower", "ci_upper"] if has_ci else []
    header += ["p_value"] if has_p else []
    out.write("\t".join(header) + "\n")

    def row(name: str, label: str, b: Breakdown, doc: str, extra: list[str]) -> None:
        cells = [
            name,
            label,
            _f(b.score, p),
            _f(b.precision, p),
            _f(b.recall, p),
            _f(b.fragmentation, p),
            _f(b.penalty, p),
        ]
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
                out.write(f"Segment {i} score:\t{_f(seg.score, p)}\n")
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
        out.write(
            f"{label}METEOR = {_f(s.system.score, p)}{ci}  (P {b.precision:.4f}, "
            f"R {b.recall:.4f}, Fmean {b.fmean:.4f}, frag {b.fragmentation:.4f}, "
            f"penalty {b.penalty:.4f}, {len(s.segments)} segments)\n"
        )
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


# -- statistics files ---------------------------------------------------------------


def stats_columns(stage_names: Sequence[str]) -> list[str]:
    """Column names of a statistics row, in :meth:`Stats.to_list` order."""
    cols = ["hyp_len", "ref_len", "hyp_function", "ref_function"]
    for name in stage_names:
        cols += [
            f"{name}:hyp_content",
            f"{name}:ref_content",
            f"{name}:hyp_function",
            f"{name}:ref_function",
        ]
    return [*cols, "chunks", "hyp_matched_words", "ref_matched_words"]


def _g(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


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
    for s in report.systems:
        for i, seg in enumerate(s.segments):
            doc = report.docs[i] if report.docs is not None else ""
            values = "\t".join(_g(v) for v in seg.stats.to_list())
            out.write(f"{s.name}\t{doc}\t{report.seg_ids[i]}\t{values}\n")


@dataclass
class StatsFile:
    """The content of a statistics file."""

    signature: str
    params: Parameters
    stage_names: list[str]
    setid: str | None
    systems: list[tuple[str, list[Stats]]]
    seg_ids: list[str]
    docs: list[str] | None


def read_stats(path: str) -> StatsFile:
    """Read a file written by :func:`write_stats` (or ``score --format json``)."""
    lines = read_lines(path)
    if lines and lines[0].lstrip().startswith("{"):
        return _read_stats_json(path, "\n".join(lines))
    if not lines or lines[0].strip() != STATS_MAGIC:
        raise InputError(
            f"{path} is not a meteorx statistics file (written by 'meteorx score --stats-out')"
        )
    meta: dict[str, str] = {}
    body = []
    for line in lines[1:]:
        if line.startswith("# ") and ":" in line:
            key, _, value = line[2:].partition(":")
            meta[key.strip()] = value.strip()
        elif line.strip():
            body.append(line)
    if "parameters" not in meta or "signature" not in meta or not body:
        raise InputError(f"{path}: statistics file without parameters, signature or header")
    params, stage_names = _params_from_dict(load_json(meta["parameters"], path), path)
    header = body[0].split("\t")
    expected = ["system", "document", "segment", *stats_columns(stage_names)]
    if header != expected:
        raise InputError(f"{path}: unexpected columns (expected {' '.join(expected)})")
    systems: dict[str, list[Stats]] = {}
    ids: dict[str, list[tuple[str, str]]] = {}
    for number, line in enumerate(body[1:], 2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise InputError(f"{path}: row {number} has {len(fields)} fields, not {len(header)}")
        try:
            values = [float(v) for v in fields[3:]]
        except ValueError:
            raise InputError(f"{path}: row {number} has a non-numeric statistic") from None
        systems.setdefault(fields[0], []).append(
            checked_stats(values, header[3:], f"{path}, row {number}")
        )
        ids.setdefault(fields[0], []).append((fields[1], fields[2]))
    if not ids:
        raise InputError(f"{path}: no statistics rows (the scored input had no segments)")
    keys = list(ids.values())
    for name, k in ids.items():
        if k != keys[0]:
            raise InputError(
                f"{path}: system {name!r} does not have the same segments as the first"
            )
    docs = [d for d, _ in keys[0]]
    return StatsFile(
        signature=meta["signature"],
        params=params,
        stage_names=stage_names,
        setid=meta.get("setid"),
        systems=list(systems.items()),
        seg_ids=[s for _, s in keys[0]],
        docs=docs if any(docs) else None,
    )


def checked_stats(values: Sequence[Any], columns: Sequence[str], where: str) -> Stats:
    """A statistics row as :class:`Stats`, refused unless it could have been counted.

    Every value is a whole number >= 0 (no NaN, infinity, fraction or sign), function
    words and matches do not exceed the words, and chunks do not exceed matched words:
    a row that breaks these would print a wrong score without any error.
    """
    if len(values) != len(columns):
        raise InputError(f"{where}: {len(values)} statistics, expected {len(columns)}")
    for name, value in zip(columns, values, strict=True):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or not 0 <= value <= 1e15
            or value != int(value)
        ):
            raise InputError(
                f"{where}: {name} = {str(value)[:40]} is not a count (a whole number >= 0)"
            )
    stats = Stats.from_list([float(v) for v in values])
    for side in ("hyp", "ref"):
        length = getattr(stats, f"{side}_len")
        checks = [
            (f"{side}_function", getattr(stats, f"{side}_function")),
            (f"{side} matches", getattr(stats, f"{side}_matches")),
            (f"{side}_matched_words", getattr(stats, f"{side}_matched_words")),
        ]
        for name, value in checks:
            if value > length:
                raise InputError(f"{where}: {name} ({value:g}) exceeds {side}_len ({length:g})")
    if stats.chunks > min(stats.hyp_matched_words, stats.ref_matched_words):
        raise InputError(f"{where}: more chunks ({stats.chunks:g}) than matched words")
    return stats


def check_parameters(params: Parameters, where: str) -> None:
    """α, γ, δ and the weights in [0, 1], β finite and >= 0 (NaN refused)."""
    ranges = [("alpha", params.alpha), ("gamma", params.gamma), ("delta", params.delta)]
    ranges += [(f"weight {i + 1}", w) for i, w in enumerate(params.weights)]
    for name, value in ranges:
        if not 0.0 <= value <= 1.0:
            raise InputError(f"{where}: {name} = {value!r} is outside 0..1")
    if not (math.isfinite(params.beta) and params.beta >= 0.0):
        raise InputError(f"{where}: beta = {params.beta!r} must be a finite number >= 0")


def _params_from_dict(data: Any, path: str) -> tuple[Parameters, list[str]]:
    if not isinstance(data, dict):
        raise InputError(f"{path}: the parameters are not a JSON object")
    fmean = data.get("fmean", "harmonic")
    if fmean not in ("harmonic", "nltk"):
        raise InputError(f"{path}: unknown fmean {str(fmean)[:40]!r} (harmonic or nltk)")
    try:
        params = Parameters(
            alpha=float(data["alpha"]),
            beta=float(data["beta"]),
            gamma=float(data["gamma"]),
            delta=float(data["delta"]),
            weights=tuple(float(w) for w in data["weights"]),
            perfect_match_rule=bool(data["perfect_match_rule"]),
            fmean_form=fmean,
        )
        stages = [str(s) for s in data["stages"]]
    except (KeyError, TypeError, ValueError, OverflowError):
        raise InputError(f"{path}: incomplete parameters in the statistics file") from None
    if len(stages) != len(params.weights):
        raise InputError(f"{path}: {len(stages)} stages but {len(params.weights)} weights")
    check_parameters(params, path)
    return params, stages


def _read_stats_json(path: str, text: str) -> StatsFile:
    data = load_json(text, path)
    if not isinstance(data, dict) or "parameters" not in data or "signature" not in data:
        raise InputError(f"{path}: JSON output without 'parameters' and 'signature'")
    params, stage_names = _params_from_dict(data["parameters"], path)
    columns = stats_columns(stage_names)
    try:
        entries = data.get("systems", [data])
        systems = []
        first: list[dict[str, Any]] = []
        for entry in entries:
            segs = entry.get("segments")
            if segs is None:
                raise InputError(
                    f"{path}: no segment statistics (was it written with --system-only?)"
                )
            first = first or segs
            if len(segs) != len(first):
                raise InputError(f"{path}: systems with different numbers of segments")
            records = [
                checked_stats(s["stats"], columns, f"{path}, segment {i}")
                for i, s in enumerate(segs, 1)
            ]
            systems.append((str(entry["hyp"]), records))
        docs = [str(s["document"]) for s in first] if first and "document" in first[0] else None
        seg_ids = [str(s.get("id", s["segment"])) for s in first]
    except (KeyError, TypeError, AttributeError):
        raise InputError(f"{path}: not the JSON output of 'meteorx score'") from None
    return StatsFile(str(data["signature"]), params, stage_names, None, systems, seg_ids, docs)


def iter_scored(records: Iterable[Stats], params: Parameters) -> list[Scored]:
    """Score each record with ``params``."""
    return [Scored(compute(r, params), r) for r in records]
