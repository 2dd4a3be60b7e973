"""Reading inputs into a :class:`~meteorx.formats.model.TestSet`: :func:`read_input`
reads any format (see :mod:`meteorx.formats`) and bounds the segments' length.

Plain text is read here (:func:`read_text`, through :func:`meteorx.inputs.read_aligned`,
the reader of every line-aligned segment file); tables in
:mod:`~meteorx.formats.tables`, SGML in :mod:`~meteorx.formats.sgml`.
"""

from __future__ import annotations

from collections.abc import Sequence

from meteorx.errors import InputError
from meteorx.formats.model import TestSet
from meteorx.inputs import MAX_SEGMENT_CHARS, check_length, check_stdin_once, read_aligned

__all__ = ["INPUT_FORMATS", "read_input", "read_text"]

INPUT_FORMATS = ("text", "tsv", "jsonl", "sgml")


def read_text(hyp_paths: Sequence[str], ref_paths: Sequence[str], max_chars: int = 0) -> TestSet:
    """Plain text: each hypothesis file is a system, each reference file a reference.

    A line longer than ``max_chars`` characters is refused, naming file and line (0 =
    no limit; :func:`meteorx.inputs.read_aligned`).
    """
    systems, ref_lines = read_aligned(hyp_paths, ref_paths, max_chars)
    refs = [list(r) for r in zip(*ref_lines, strict=True)] if ref_lines else []
    return TestSet(
        list(zip(hyp_paths, systems, strict=True)),
        refs,
        [str(i) for i in range(1, len(refs) + 1)],
        declared_refs=len(ref_paths),
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
        return read_text(hyp_paths, ref_paths, max_chars)
    if fmt == "sgml":
        if not ref_paths:
            raise InputError("SGML input needs a reference set (--ref ref.sgm)")
        from meteorx.formats.sgml import read_sgml  # (each format's reader when used)

        testset = read_sgml(hyp_paths, ref_paths)
    elif fmt in ("tsv", "jsonl"):
        from meteorx.formats.tables import read_table

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
        _check_lengths(testset, max_chars)
    return testset


def _check_lengths(testset: TestSet, limit: int) -> None:
    """Every segment of a table or SGML test set within ``limit`` characters; the error
    names system or reference, document and segment (text input names file and line:
    :func:`read_text`)."""
    for name, hyps in testset.systems:
        for i, hyp in enumerate(hyps):
            if len(hyp) > limit:
                check_length(hyp, f"system {name!r}" + _segment_label(testset, i), limit)
    for i, refs in enumerate(testset.refs):
        for k, ref in enumerate(refs):
            if len(ref) > limit:
                check_length(ref, f"reference {k + 1}" + _segment_label(testset, i), limit)


def _segment_label(testset: TestSet, i: int) -> str:
    doc = f"document {testset.docs[i]!r}, " if testset.docs is not None else ""
    return f", {doc}segment {testset.seg_ids[i]!r}"
