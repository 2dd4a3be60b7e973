"""Reading TSV and JSONL tables with named columns into a :class:`TestSet`
(:func:`read_table`; ``--input-format tsv`` and ``jsonl``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from meteorx.errors import InputError, cut
from meteorx.formats.input_checks import check_identifier, load_json
from meteorx.formats.model import TestSet
from meteorx.inputs import read_lines

__all__ = ["read_table"]


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
