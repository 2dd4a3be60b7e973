"""Reading segment files: one segment a line, UTF-8, with errors that name file and line."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping, Set
from pathlib import Path
from typing import Any, TypeVar

from meteorx.errors import InputError

H = TypeVar("H")
R = TypeVar("R")

#: The longest segment meteorx reads from a file, in characters (``--max-segment-chars``;
#: 0 = no limit). Alignment time and memory grow faster than a segment's length: a
#: 500,000-character English line against itself takes about 9 s and 650 MB with the
#: full Meteor 1.5 English stages, a 50 MB line exhausts memory after minutes.
MAX_SEGMENT_CHARS = 500_000


def check_length(text: str, where: str, limit: int = MAX_SEGMENT_CHARS) -> None:
    """Refuse a segment longer than ``limit`` characters (0 = no limit)."""
    if limit and len(text) > limit:
        raise InputError(
            f"{where}: the segment has {len(text):,} characters, more than the limit of "
            f"{limit:,} (--max-segment-chars N raises it; 0 removes it)"
        )


def check_stdin_once(paths: list[str]) -> None:
    """Standard input can feed one input only: ``--hyp - --ref -`` cannot both read it."""
    if sum(1 for p in paths if str(p) == "-") > 1:
        raise InputError(
            "standard input ('-') is given for more than one input (e.g. --hyp - and --ref -); "
            "it can feed only one of them: give the others as files"
        )


def read_lines(path: str | Path) -> list[str]:
    """Lines of a UTF-8 text file (``-`` reads standard input).

    A byte-order mark is dropped, CRLF and CR line ends are accepted, and invalid
    UTF-8 is an :class:`InputError` naming the file, line and byte.
    """
    name = str(path)
    if name == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        try:
            data = Path(path).read_bytes()
        except FileNotFoundError:
            raise InputError(f"file not found: {name}") from None
        except IsADirectoryError:
            raise InputError(f"expected a file, got a directory: {name}") from None
        except OSError as error:
            raise InputError(f"cannot read {name}: {error.strerror}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(
            f"{name}, line {line}, byte {column}: invalid UTF-8 "
            f"(byte 0x{data[error.start]:02x}); re-encode the file as UTF-8"
        ) from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_parallel(hyp_path: str | Path, ref_paths: list[str]) -> tuple[list[str], list[list[str]]]:
    """A hypothesis file and its reference files, checked to have equal line counts."""
    check_stdin_once([str(hyp_path), *ref_paths])
    hyps = read_lines(hyp_path)
    refs = [read_lines(p) for p in ref_paths]
    for path, lines in zip(ref_paths, refs, strict=True):
        if len(lines) != len(hyps):
            raise InputError(
                f"{hyp_path} has {len(hyps)} lines but {path} has {len(lines)}; "
                "hypothesis and reference files must be line-aligned"
            )
    return hyps, refs


def paired(hyps: Iterable[H], refs: Iterable[R]) -> Iterator[tuple[H, R]]:
    """Each hypothesis with its references, in order: what a corpus is made of.

    Both must be lists, tuples or other iterables of one item per segment, equally long:
    a string (whose characters would be segments), a mapping (whose keys would be) or a
    set (no order) is an :class:`InputError`, and so is one running out before the other.
    """
    for what, value in (("hypotheses", hyps), ("references", refs)):
        if isinstance(value, (str, bytes, bytearray, Mapping, Set)) or not isinstance(
            value, Iterable
        ):
            raise InputError(
                f"the {what} must be a list (or another iterable) with one item per "
                f"segment, not {type(value).__name__}"
            )
    ref_iter = iter(refs)
    count = 0
    for hyp in hyps:
        ref: Any = next(ref_iter, _END)
        if ref is _END:
            raise InputError(f"there are more hypotheses than references ({count})")
        yield hyp, ref
        count += 1
    if next(ref_iter, _END) is not _END:
        raise InputError(f"there are more references than hypotheses ({count})")


_END = object()
