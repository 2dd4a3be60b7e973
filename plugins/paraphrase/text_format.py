"""Meteor's paraphrase tables as text: reading the ``paraphrase-<lang>.gz`` format.

Format (Meteor 1.5's ``paraphrase-<lang>.gz``)
----------------------------------------------
UTF-8 text, usually gzip-compressed, in blocks of three lines::

    0.0454...        <- probability (Meteor 1.5 reads and ignores it)
    000 deaths       <- phrase
    000 dead         <- paraphrase

Words are separated by spaces. Meteor 1.5 (``ParaphraseTransducer``) keeps every
block, in file order, as a one-way rule *phrase -> paraphrase*; its matcher applies
the rules in both directions. The English table shipped by the PyPI package
``pycocoevalcap`` has 5.27 M blocks and 430 k distinct phrases of 1-7 words, sorted.

Behaviour on malformed input (the jar would misbehave): blank phrase or paraphrase
lines are dropped (the jar keeps a zero-length paraphrase that matches everywhere); a
trailing incomplete block is an error (the jar crashes); tabs, form feeds and runs of
spaces separate words as they do for Java's ``StringTokenizer``.

Scoring never reads this format directly: :mod:`.compiler` turns it into the compiled
form once. This module imports the standard library and :mod:`meteorx.errors` only.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import zlib
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

from meteorx.errors import ResourceError

__all__ = [
    "clean_line",
    "clean_words",
    "iter_entries",
    "odd_space",
    "raw_blocks",
    "record_lines",
]

_GZIP_MAGIC = b"\x1f\x8b"
_READ_BLOCK = 1 << 20  # compressed bytes per read (about 4.5 MB of text)

# Java's StringTokenizer (what Meteor 1.5 splits lines with) delimits on " \t\n\r\f".
_DELIMITERS = re.compile(rb"[ \t\x0c]+")
_DELIMITERS_STR = re.compile(r"[ \t\x0c]+")


#: The error for a table whose last block is cut short (both scanners raise it).
TRUNCATED_BLOCK = (
    "paraphrase table is truncated: its last block does not have the three lines "
    "probability / phrase / paraphrase"
)


def odd_space(text: str) -> bool:
    """Whether lines of ``text`` hold a tab, a form feed, two spaces in a row or a space
    at either end (what Java's ``StringTokenizer`` would read differently)."""
    return (
        "\t" in text
        or "\x0c" in text
        or "  " in text
        or "\n " in text
        or " \n" in text
        or text.startswith(" ")
        or text.endswith(" ")
    )


def _inflater() -> Any:
    """A gzip decompressor: ISA-L's (3-4x faster) when ``isal`` is installed, else zlib's."""
    try:
        module: Any = importlib.import_module("isal.isal_zlib")
        return module.decompressobj(31)
    except ImportError:
        return zlib.decompressobj(31)


def raw_blocks(path: Path, digest: Any) -> Iterator[bytes]:
    """Decompressed (if gzip) blocks of the file; feeds ``digest`` the file's bytes.

    Concatenated gzip members are read one after the other; bytes after the last
    member that do not start another one (zero padding) are ignored, as Java's
    ``GZIPInputStream`` does. A stream cut short is an error.
    """
    with open(path, "rb") as handle:
        inflater = _inflater() if handle.read(2) == _GZIP_MAGIC else None
        handle.seek(0)
        block = handle.read(_READ_BLOCK)
        done = False  # the last member has ended and what follows is not a member
        pending = b""  # a lone first byte of the next member's header
        while block:
            digest.update(block)
            if inflater is None:
                yield block
            elif pending:
                block = pending + block
                pending = b""
            while block and not done and inflater is not None:
                if inflater.eof:
                    if len(block) < len(_GZIP_MAGIC):
                        pending = block
                        break
                    if not block.startswith(_GZIP_MAGIC):
                        done = True
                        break
                    inflater = _inflater()
                out = inflater.decompress(block)
                if out:
                    yield out
                block = inflater.unused_data if inflater.eof else b""
            block = handle.read(_READ_BLOCK)
        if inflater is not None:
            tail = inflater.flush()
            if tail:
                yield tail
            if not inflater.eof:
                raise ResourceError(f"paraphrase table {path} is truncated (incomplete gzip data)")


def record_lines(blocks: Iterator[bytes]) -> Generator[list[bytes], None, None]:
    """The lines of the text, in lists of whole 3-line blocks (one list per input block).

    Line ends are those of Java's ``readLine`` (``\\n``, ``\\r\\n`` or ``\\r``). Each block
    is split once; only the unfinished line at its end is carried over.
    """
    carry = b""  # the unfinished last line of the previous block
    pending: list[bytes] = []  # finished lines not yet making a whole block
    held_cr = False  # the previous block ended with "\r" (maybe half of "\r\n")
    for block in blocks:
        if held_cr:
            block = b"\r" + block
            held_cr = False
        if b"\r" in block:
            if block.endswith(b"\r"):
                block, held_cr = block[:-1], True
            block = block.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = block.split(b"\n")
        if carry:
            lines[0] = carry + lines[0]
        carry = lines.pop()
        if pending:
            lines[:0] = pending
        whole = len(lines) - len(lines) % 3
        pending = lines[whole:]
        del lines[whole:]
        if lines:
            yield lines
    if held_cr:
        pending.append(carry)
        carry = b""
    if carry:
        pending.append(carry)
    if any(line.strip() for line in pending):
        if len(pending) != 3:
            raise ResourceError(TRUNCATED_BLOCK)
        yield pending  # a last block without a final newline


def clean_line(line: bytes) -> bytes:
    """A line's words separated by single spaces (Java's ``StringTokenizer`` words)."""
    return b" ".join(_DELIMITERS.split(line.strip(b" \t\x0c")))


def clean_words(line: str) -> str:
    """:func:`clean_line` of decoded text (for lines where :func:`odd_space` holds)."""
    return " ".join(_DELIMITERS_STR.split(line.strip(" \t\x0c")))


def iter_entries(path: str | os.PathLike[str]) -> Iterator[tuple[str, str, str]]:
    """Every block of a table as ``(probability, phrase, paraphrase)`` text, in file order.

    A plain reader for inspection and tests (words are single-space separated); scoring
    uses the compiled form.
    """
    for chunk in record_lines(raw_blocks(Path(path), hashlib.sha256())):
        lines = [clean_line(line).decode("utf-8", "replace") for line in chunk]
        yield from zip(lines[0::3], lines[1::3], lines[2::3], strict=True)
