"""Reading inputs into a :class:`~meteorx.formats.model.TestSet`: text, TSV, JSONL, SGML.

See :mod:`meteorx.formats` for the formats; :func:`read_input` reads any of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from meteorx.errors import InputError, cut
from meteorx.formats.model import TestSet
from meteorx.inputs import (
    MAX_SEGMENT_CHARS,
    check_length,
    check_stdin_once,
    read_lines,
    read_parallel,
)

INPUT_FORMATS = ("text", "tsv", "jsonl", "sgml")


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
    repeated = next((name for k, name in enumerate(header) if name in header[:k]), None)
    if repeated is not None:
        raise InputError(f"{path}: the header names the column {cut(repeated)!r} twice")
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
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: invalid JSON ({error.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply") from None
    except ValueError as error:  # an integer beyond int_max_str_digits
        reason = str(error).split(":")[0]
        raise InputError(f"{where}: JSON value out of range ({reason})") from None
    if _SURROGATE_ESCAPE.search(text):
        _check_surrogates(value, where)
    return value


#: ``\uD800``-``\uDFFF`` escapes: JSON's only way to a lone surrogate (the text itself
#: was decoded as UTF-8, which has none), a string no UTF-8 output can hold.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_surrogates(value: Any, where: str) -> None:
    """Refuse a decoded JSON value holding a lone surrogate (a pair of escapes that
    forms one character is fine). Iterative: the value may nest deeply."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                raise InputError(
                    f"{where}: a JSON string holds an unpaired surrogate "
                    f"(\\u{ord(found.group()):04X}): it is not valid Unicode"
                )


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
