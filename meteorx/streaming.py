"""Scoring at any size: read line by line, score segment by segment, keep only sums.

:func:`score_files` (files) and :func:`score_stream` (any iterables) return a
:class:`ScoreStream`: iterate over it to get each segment's
:class:`~meteorx.metric.SegmentResult` as soon as it is scored; meanwhile it adds the
segment's :class:`~meteorx.stats.Stats` to a running total and forgets the segment.
When the iteration ends, :meth:`ScoreStream.summary` gives the system score of the
summed statistics, the same number :meth:`Scorer.corpus <meteorx.metric.Scorer.corpus>`
gives for the same input. Memory stays flat however long the input is: one line per
file, one segment, the running total (and the scorer's bounded caches).

Files are read as :func:`meteorx.inputs.read_lines` reads them (the same lines, the
same error messages): strict UTF-8 with file, line and byte in the error, a leading
byte-order mark dropped, LF, CRLF and CR line ends. ``-`` is standard input.

Unlike the batch readers, a stream only finds out that files have different line
counts, or that a later line is not UTF-8, when it gets there: by then earlier scores
have been produced. The error is the same :class:`~meteorx.errors.InputError`.

>>> from meteorx import Scorer
>>> stream = score_stream(Scorer("li", language="en"), ["a b c"], [["a b c"]])
>>> [round(r.score, 4) for r in stream]
[1.0]
>>> round(stream.summary().score, 4)
1.0
"""

from __future__ import annotations

import itertools
import sys
import time
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, TextIO

from meteorx.errors import InputError, MeteorxError
from meteorx.formats.writers import text_segment_line, text_system_line, tsv_cells, tsv_header
from meteorx.inputs import check_length, open_error, split_lines
from meteorx.metric import Scorer, SegmentResult, TextOrTokens
from meteorx.parallel import score_iter
from meteorx.scoring import Breakdown
from meteorx.stats import Stats

__all__ = [
    "REF_CACHE_LIMIT",
    "LineReader",
    "ScoreStream",
    "StreamSummary",
    "iter_lines",
    "iter_parallel",
    "score_files",
    "score_stream",
    "write_stream",
]

#: While streaming, the scorer's reference cache is emptied past this many entries.
#: Each entry costs a few kB (about 7 kB for 25-word references with exact + stem), and
#: in a stream references rarely repeat, so the scorer's own cap (200,000) would let a
#: long stream of distinct references grow to more than a gigabyte.
REF_CACHE_LIMIT = 5_000

#: One task: a hypothesis and its references (a string is one reference).
Pair = tuple[TextOrTokens, "TextOrTokens | Sequence[TextOrTokens]"]


# -- reading --------------------------------------------------------------------------


class LineReader:
    """The lines of a UTF-8 text file, read lazily (``-`` = standard input).

    Yields exactly the lines :func:`meteorx.inputs.read_lines` returns, one at a time
    (each physical line goes through the same :func:`meteorx.inputs.split_lines`).
    Opening is eager, so a missing file fails at construction; a decoding error fails
    when the bad line is reached. ``lines_read`` counts the lines yielded so far.
    """

    def __init__(self, path: str | Path, stdin: IO[bytes] | None = None) -> None:
        self.name = str(path)
        self.lines_read = 0
        self._physical = 0  # LF-terminated lines consumed, for error messages
        self._pending: deque[str] = deque()
        self._owned = True
        if self.name == "-":
            self._handle: IO[bytes] = stdin if stdin is not None else sys.stdin.buffer
            self.name = "<stdin>"
            self._owned = False
            return
        try:
            self._handle = open(path, "rb")  # noqa: SIM115 - closed by close()/__exit__
        except OSError as error:
            raise open_error(self.name, error) from None

    def __iter__(self) -> LineReader:
        return self

    def __next__(self) -> str:
        while not self._pending:
            try:
                raw = self._handle.readline()
            except OSError as error:
                raise open_error(self.name, error) from None
            if not raw:
                raise StopIteration
            self._physical += 1
            # A lone CR ends a line too (old Mac files): one physical line may hold several.
            self._pending.extend(split_lines(raw, self.name, self._physical))
        self.lines_read += 1
        return self._pending.popleft()

    def count_rest(self) -> int:
        """Read to the end without keeping anything; the total number of lines."""
        for _ in self:
            pass
        return self.lines_read

    def close(self) -> None:
        if self._owned:
            self._handle.close()

    def __enter__(self) -> LineReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def iter_lines(path: str | Path) -> Iterator[str]:
    """Lines of a UTF-8 file one at a time (see :class:`LineReader`)."""
    with LineReader(path) as reader:
        yield from reader


def iter_parallel(
    hyp_path: str | Path,
    ref_paths: Sequence[str | Path],
    stdin: IO[bytes] | None = None,
    max_chars: int = 0,
) -> Iterator[tuple[str, list[str]]]:
    """``(hypothesis, [reference, …])`` for each line of line-aligned files.

    The files are opened at once (a missing file fails here, before anything is
    scored); an :class:`InputError` with both line counts, worded as
    :func:`meteorx.inputs.read_aligned` words it, comes as soon as one file ends
    before another. A line longer than ``max_chars`` characters is an :class:`InputError`
    naming it (0 = no limit; see :data:`meteorx.inputs.MAX_SEGMENT_CHARS`).
    """
    if not ref_paths:
        raise InputError("at least one reference file is needed")
    if [str(p) for p in (hyp_path, *ref_paths)].count("-") > 1:
        raise InputError("only one of the input files can be standard input ('-')")
    readers: list[LineReader] = []
    try:
        for path in (hyp_path, *ref_paths):
            readers.append(LineReader(path, stdin))
    except BaseException:
        for reader in readers:
            reader.close()
        raise
    return _aligned_lines(readers, [str(hyp_path), *(str(p) for p in ref_paths)], max_chars)


def _aligned_lines(
    readers: list[LineReader], names: list[str], max_chars: int = 0
) -> Iterator[tuple[str, list[str]]]:
    number = 0
    try:
        while True:
            lines = [next(r, None) for r in readers]
            if all(line is None for line in lines):
                return
            if any(line is None for line in lines):
                counts = [r.count_rest() for r in readers]
                k = next(i for i in range(1, len(counts)) if counts[i] != counts[0])
                raise InputError(
                    f"{names[0]} has {counts[0]} lines but {names[k]} has {counts[k]}; "
                    "hypothesis and reference files must be line-aligned"
                )
            number += 1
            if max_chars:
                for name, line in zip(names, lines, strict=True):
                    check_length(line, f"{name}, line {number}", max_chars)  # type: ignore[arg-type]
            yield lines[0], lines[1:]  # type: ignore[misc]
    finally:
        for reader in readers:
            reader.close()


# -- scoring --------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamSummary:
    """The system result of a stream: the score of the summed statistics."""

    score: float
    breakdown: Breakdown
    stats: Stats
    segments: int
    empty: int  # segments whose hypothesis was empty (they score 0)
    signature: str


class ScoreStream:
    """Segment results, one by one, with the running total of their statistics.

    Iterate once. ``total`` (a :class:`Stats`), ``count`` and ``empty`` are up to date
    after each yielded segment; :meth:`summary` gives the system score so far.
    ``detail=False`` leaves the links and tokens out of the results (scores,
    statistics and chunk counts kept), as :func:`meteorx.parallel.score_pairs` does:
    all that printing scores needs, and cheaper to bring back from worker processes.
    """

    def __init__(
        self,
        scorer: Scorer,
        pairs: Iterable[Pair],
        *,
        jobs: int = 1,
        chunk_size: int = 64,
        refs: int | None = None,
        ref_cache_limit: int = REF_CACHE_LIMIT,
        detail: bool = True,
    ) -> None:
        self.scorer = scorer
        self.total = Stats(segments=0)
        self.count = 0
        self.empty = 0
        self.score_sum = 0.0  # for configurations whose system score is the mean
        self._pairs = pairs
        self._jobs = jobs
        self._chunk_size = max(1, chunk_size)
        self.refs = refs  # references per segment, for the signature's refs:N
        self._ref_cache_limit = ref_cache_limit
        self._detail = detail
        self._started = False

    def __iter__(self) -> Generator[SegmentResult, None, None]:
        if self._started:
            raise MeteorxError("a ScoreStream can be iterated only once")
        self._started = True
        results = score_iter(
            self.scorer,
            self._counted(self._pairs),
            self._jobs,
            chunk_size=self._chunk_size,
            cache_limit=self._ref_cache_limit,
            detail=self._detail,
        )
        try:
            for result in results:
                self.total = self.total + result.stats
                self.score_sum += result.score
                self.count += 1
                yield result
        finally:  # stopped early (an error, a closed output): the workers stop now
            results.close()

    def _counted(self, pairs: Iterable[Pair]) -> Iterator[Pair]:
        for hyp, refs in pairs:
            if not (hyp.strip() if isinstance(hyp, str) else hyp):
                self.empty += 1  # counted as read, like the batch path's warning
            yield hyp, refs

    def summary(self) -> StreamSummary:
        """Score of the statistics summed so far (all of them once iteration ended).

        With ``system_score: mean`` in the configuration, ``score`` is the mean of the
        segment scores instead (the breakdown's other fields still come from the sums).
        """
        breakdown = self.scorer.system(self.total, lambda: (self.score_sum, self.count))
        return StreamSummary(
            breakdown.score,
            breakdown,
            self.total,
            self.count,
            self.empty,
            self.scorer.signature(refs=self.refs),
        )


def score_stream(
    scorer: Scorer,
    hyps: Iterable[TextOrTokens],
    refs: Iterable[TextOrTokens | Sequence[TextOrTokens]],
    *,
    jobs: int = 1,
) -> ScoreStream:
    """Stream-score hypotheses against references (iterables of equal length).

    ``refs`` holds, for each hypothesis, one reference or a list of them, as
    :meth:`Scorer.segment` takes them. Unequal lengths raise :class:`InputError` when
    the shorter iterable runs out.
    """
    return ScoreStream(scorer, _zip_checked(hyps, refs), jobs=jobs)


def score_files(
    scorer: Scorer,
    hyp_path: str | Path,
    ref_paths: Sequence[str | Path],
    *,
    jobs: int = 1,
    stdin: IO[bytes] | None = None,
    detail: bool = True,
    max_chars: int = 0,
) -> ScoreStream:
    """Stream-score a hypothesis file against line-aligned reference files (lines
    longer than ``max_chars`` characters refused; 0 = no limit)."""
    pairs = iter_parallel(hyp_path, ref_paths, stdin, max_chars)
    return ScoreStream(scorer, pairs, jobs=jobs, refs=len(ref_paths), detail=detail)


def _zip_checked(hyps: Iterable[TextOrTokens], refs: Iterable[object]) -> Iterator[Pair]:
    n = 0
    for n, pair in enumerate(itertools.zip_longest(hyps, refs, fillvalue=_MISSING), 1):
        hyp, ref = pair
        if hyp is _MISSING or ref is _MISSING:
            which = "hypotheses" if hyp is _MISSING else "references"
            raise InputError(f"{which} ran out at segment {n}: the inputs differ in length")
        yield hyp, ref  # type: ignore[misc]


_MISSING: object = object()


# -- writing --------------------------------------------------------------------------


def write_stream(
    stream: ScoreStream,
    out: TextIO,
    *,
    fmt: str = "text",
    precision: int = 6,
    system_only: bool = False,
    name: str = "",
    flush_every: float = 0.0,
) -> StreamSummary:
    """Write segment scores as they come, then the system line and the signature.

    The output is the same as :func:`meteorx.formats.write_text` /
    :func:`~meteorx.formats.write_tsv` give for one system of plain-text input.
    ``out`` is flushed after a segment line whenever ``flush_every`` seconds have
    passed since the last flush (0 = after every line), so scores show up while the
    input is still being read.
    """
    if fmt not in ("text", "tsv"):
        raise MeteorxError(f"streaming output is text or tsv, not {fmt!r}")
    p = precision
    tsv = fmt == "tsv"
    if tsv:
        out.write(tsv_header(stream.scorer.signature(refs=stream.refs)))
        out.flush()
    last = time.monotonic()
    results = iter(stream)
    try:
        for result in results:
            if system_only:
                continue
            if tsv:
                out.write("\t".join(tsv_cells(name, str(stream.count), result.breakdown, p)) + "\n")
            else:
                out.write(text_segment_line(stream.count, result.score, p))
            now = time.monotonic()
            if now - last >= flush_every:
                out.flush()
                last = now
    finally:  # a failed write (closed pipe, full disk) stops the worker processes first
        results.close()
    summary = stream.summary()
    b = summary.breakdown
    if tsv:
        out.write("\t".join(tsv_cells(name, "system", b, p)) + "\n")
    else:
        out.write(text_system_line(summary.score, b, summary.segments, p))
        out.write(f"{summary.signature}\n")
    out.flush()
    return summary
