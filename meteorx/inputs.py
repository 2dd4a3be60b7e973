"""Reading segment files: one segment a line, UTF-8, with errors that name file and line."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from pathlib import Path
from typing import Any, TypeVar

from meteorx.errors import InputError, MeteorxError

#: A sentence: raw text (normalised per configuration) or a ready token list.
TextOrTokens = str | Sequence[str]

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


#: The UTF-8 byte-order mark, dropped at the start of a file.
UTF8_BOM = b"\xef\xbb\xbf"


def open_error(name: str, error: OSError) -> InputError:
    """The :class:`InputError` for a segment file that cannot be opened or read."""
    if isinstance(error, FileNotFoundError):
        return InputError(f"file not found: {name}")
    if isinstance(error, IsADirectoryError):
        return InputError(f"expected a file, got a directory: {name}")
    return InputError(f"cannot read {name}: {error.strerror}")


def split_lines(data: bytes, name: str, first_line: int = 1) -> list[str]:
    """The lines of ``data``, bytes of the segment file ``name`` from line ``first_line``.

    At the start of the file (``first_line`` 1) a byte-order mark is dropped; LF, CRLF
    and CR end lines; invalid UTF-8 is an :class:`InputError` naming the file, line and
    byte. :func:`read_lines` gives a whole file to it, a streaming reader one line at a
    time: the same lines and errors either way.
    """
    if first_line == 1 and data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = first_line + data.count(b"\n", 0, error.start)
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(
            f"{name}, line {line}, byte {column}: invalid UTF-8 "
            f"(byte 0x{data[error.start]:02x}); re-encode the file as UTF-8"
        ) from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_lines(path: str | Path) -> list[str]:
    """Lines of a UTF-8 text file (``-`` reads standard input), as :func:`split_lines`
    splits them; a file that cannot be read is an :class:`InputError` (:func:`open_error`).
    """
    name = str(path)
    if name == "-":
        return split_lines(sys.stdin.buffer.read(), "<stdin>")
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise open_error(name, error) from None
    return split_lines(data, name)


def read_aligned(
    hyp_paths: Sequence[str | Path], ref_paths: Sequence[str | Path], max_chars: int = 0
) -> tuple[list[list[str]], list[list[str]]]:
    """The lines of hypothesis files (one per system) and of the reference files they
    share: ``(hypotheses per system, lines per reference file)``.

    Every file is read once (:func:`read_lines`; standard input feeds one of them at
    most), and each hypothesis file must have as many lines as each reference file.
    With ``max_chars``, a line longer than that is an :class:`InputError` naming file
    and line (:func:`check_length`): the hypothesis files are checked first, then the
    references segment by segment.
    """
    check_stdin_once([str(p) for p in (*hyp_paths, *ref_paths)])
    systems: list[list[str]] = []
    refs: list[list[str]] | None = None
    for hyp_path in hyp_paths:
        hyps = read_lines(hyp_path)
        if refs is None:
            refs = [read_lines(p) for p in ref_paths]
        for path, lines in zip(ref_paths, refs, strict=True):
            if len(lines) != len(hyps):
                raise InputError(
                    f"{hyp_path} has {len(hyps)} lines but {path} has {len(lines)}; "
                    "hypothesis and reference files must be line-aligned"
                )
        systems.append(hyps)
    if refs is None:
        refs = []
    if max_chars:
        for hyp_path, hyps in zip(hyp_paths, systems, strict=True):
            for number, line in enumerate(hyps, 1):
                if len(line) > max_chars:
                    check_length(line, f"{hyp_path}, line {number}", max_chars)
        for number, segment in enumerate(zip(*refs, strict=True), 1):
            for path, line in zip(ref_paths, segment, strict=True):
                if len(line) > max_chars:
                    check_length(line, f"{path}, line {number}", max_chars)
    return systems, refs


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


def check_encodable(text: str) -> None:
    """Raise InputError for text that is not valid Unicode (lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InputError(
            f"text contains an unpaired surrogate (U+{ord(text[error.start]):04X}) at "
            f"character {error.start}: it is not valid Unicode"
        ) from None


def check_text(value: object, what: str) -> None:
    """Raise InputError unless ``value`` is a string or a sequence of strings."""
    if isinstance(value, str):
        return
    if isinstance(value, (list, tuple)):
        try:
            "".join(value)  # a TypeError names no token: say it below
            return
        except TypeError:
            pass
    raise InputError(
        f"the {what} must be a string or a list of string tokens, not "
        f"{type(value).__name__}"
        + (" containing non-strings" if isinstance(value, (list, tuple)) else "")
    )


def checked_references(
    hyp: TextOrTokens, refs: TextOrTokens | Sequence[TextOrTokens]
) -> Sequence[TextOrTokens]:
    """The references of a segment as a list (:func:`reference_list`), after checking
    the hypothesis and them (InputError, or MeteorxError for no reference at all)."""
    check_text(hyp, "hypothesis")
    if not isinstance(refs, str) and (
        not isinstance(refs, Iterable) or isinstance(refs, (bytes, bytearray, Mapping, Set))
    ):
        raise InputError(
            f"references must be a string, a token list or a list of those, "
            f"not {type(refs).__name__}"
        )
    ref_list = reference_list(hyp, refs)
    for ref in ref_list:
        check_text(ref, "reference")
    if not ref_list:
        raise MeteorxError("at least one reference is needed")
    return ref_list


def reference_list(
    hyp: TextOrTokens, refs: TextOrTokens | Sequence[TextOrTokens]
) -> Sequence[TextOrTokens]:
    """Normalise the ``refs`` argument to a list of references.

    A string is one reference. With a string hypothesis, a list holds reference
    strings; with a token-list hypothesis, a list of strings is *one* tokenised
    reference and a list of lists holds several.
    """
    if isinstance(refs, str):
        return [refs]
    refs = list(refs)
    if not isinstance(hyp, str) and refs and all(isinstance(r, str) for r in refs):
        return [refs]  # type: ignore[list-item]
    return refs
