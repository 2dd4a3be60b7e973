"""Streaming: same lines, same scores and same output as the batch path, flat memory.

Peak memory on 100k / 1M segments is measured by ``benchmarks/memory_streaming.py``
(too slow for the test suite); here: correctness, error messages, and that the first
score is printed before the input has been fully read.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from meteorx.cli.score_cmd import run_stream
from meteorx.errors import InputError
from meteorx.formats import read_text
from meteorx.inputs import read_lines
from meteorx.metric import Scorer
from meteorx.streaming import (
    LineReader,
    iter_lines,
    iter_parallel,
    score_files,
    score_stream,
    write_stream,
)
from tests.conftest import require_data

TRICKY: list[bytes] = [
    b"",
    b"\n",
    b"a\n",
    b"a",
    b"a\nb",
    b"a\r\nb\r\n",
    b"a\rb\r",
    b"a\r\r\nb",
    b"\xef\xbb\xbfa b\nc\n",
    b"\xef\xbb\xbf",
    b"\n\n\nx\n\n",
    "caf\u00e9 \u05e9\u05dc\u05d5\u05dd \U0001f600 e\u0301 \u200b\u200d\n\t\x0b\x0c x\n".encode(),
]


@pytest.mark.parametrize("data", TRICKY)
def test_reader_gives_the_lines_read_lines_gives(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    assert list(iter_lines(path)) == read_lines(path)


@pytest.mark.parametrize(
    "data",
    [b"ok\nbad \xff here\n", b"\xef\xbb\xbf\xc3\n", b"a\r\nb\r\nc \xe2\x82\n", b"\xc0\xaf"],
)
def test_reader_errors_match_read_lines(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    with pytest.raises(InputError) as batch:
        read_lines(path)
    with pytest.raises(InputError) as stream:
        list(iter_lines(path))
    assert str(stream.value) == str(batch.value)
    assert str(path) in str(stream.value)


def test_reader_yields_good_lines_before_a_bad_one(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"one\ntwo\n\xff\n")
    reader = LineReader(path)
    assert next(reader) == "one"
    assert next(reader) == "two"
    with pytest.raises(InputError, match="line 3, byte 1: invalid UTF-8"):
        next(reader)
    reader.close()


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        LineReader(tmp_path / "nope.txt")
    with pytest.raises(InputError, match="expected a file, got a directory"):
        LineReader(tmp_path)


def test_mismatched_line_counts(tmp_path: Path) -> None:
    hyp = tmp_path / "h.txt"
    ref = tmp_path / "r.txt"
    hyp.write_text("a\nb\n")
    ref.write_text("a\nb\nc\nd\n")
    pairs = iter_parallel(hyp, [ref])
    assert next(pairs) == ("a", ["a"])
    assert next(pairs) == ("b", ["b"])
    with pytest.raises(InputError, match=r"h\.txt has 2 lines but .*r\.txt has 4"):
        next(pairs)
    with pytest.raises(InputError, match="at least one reference"):
        iter_parallel(hyp, [])
    with pytest.raises(InputError, match="file not found"):
        iter_parallel(hyp, [hyp, tmp_path / "missing.txt"])


def test_missing_file_fails_before_any_output(li_scorer: Scorer, tmp_path: Path) -> None:
    hyp = tmp_path / "h.txt"
    hyp.write_text("a\n")
    out = io.StringIO()
    with pytest.raises(InputError, match="file not found"):
        run_stream(li_scorer, str(hyp), [str(tmp_path / "nope.txt")], fmt="tsv", out=out)
    assert out.getvalue() == ""


def test_unequal_iterables() -> None:
    scorer = Scorer("li", language="en")
    stream = score_stream(scorer, ["a", "b"], ["a"])
    with pytest.raises(InputError, match="references ran out at segment 2"):
        list(stream)
    assert stream.count == 1


@pytest.fixture(scope="module")
def xray_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """First 300 lines of the xray data (system1, system2, reference), as files."""
    base = require_data("meteor15-examples")
    folder = tmp_path_factory.mktemp("xray")
    out = []
    for name in ("xray.system1.hyp", "xray.system2.hyp", "xray.reference"):
        lines = read_lines(base / name)[:300]
        path = folder / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.append(path)
    return out[0], out[1], out[2]


@pytest.fixture(scope="module")
def li_scorer() -> Scorer:
    return Scorer("li", language="en", normalize="lower")


def test_stream_equals_corpus(li_scorer: Scorer, xray_files: tuple[Path, Path, Path]) -> None:
    hyp, hyp2, ref = xray_files
    stream = score_files(li_scorer, hyp, [ref, hyp2])
    scores = [r.score for r in stream]
    testset = read_text([str(hyp)], [str(ref), str(hyp2)])
    corpus = li_scorer.corpus(testset.systems[0][1], testset.refs)
    assert scores == [s.score for s in corpus.segments]
    summary = stream.summary()
    assert summary.stats == corpus.stats
    assert summary.score == corpus.score
    assert summary.segments == 300
    assert summary.signature.endswith("|refs:2|version:" + summary.signature.split(":")[-1])


def test_mean_system_score_configurations(xray_files: tuple[Path, Path, Path]) -> None:
    hyp, _, ref = xray_files
    scorer = Scorer("nltk")
    stream = score_files(scorer, hyp, [ref])
    list(stream)
    testset = read_text([str(hyp)], [str(ref)])
    want = scorer.corpus(testset.systems[0][1], testset.refs)
    assert stream.summary().score == want.score
    assert stream.summary().stats == want.stats


def test_parallel_stream_is_identical(
    li_scorer: Scorer, xray_files: tuple[Path, Path, Path]
) -> None:
    hyp, _, ref = xray_files
    one = score_files(li_scorer, hyp, [ref])
    two = score_files(li_scorer, hyp, [ref], jobs=2)
    assert [r.score for r in one] == [r.score for r in two]
    assert one.summary().stats == two.summary().stats


def test_parallel_stream_scores_what_it_read_before_an_error(
    li_scorer: Scorer, tmp_path: Path
) -> None:
    hyp = tmp_path / "h.txt"
    ref = tmp_path / "r.txt"
    hyp.write_text("a b c\n" * 50)
    ref.write_text("a b c\n" * 40)
    stream = score_files(li_scorer, hyp, [ref], jobs=2)
    seen = 0
    with pytest.raises(InputError, match="has 50 lines but"):
        for _ in stream:
            seen += 1
    assert seen == 40


@pytest.mark.parametrize("fmt", ["text", "tsv"])
@pytest.mark.parametrize("system_only", [False, True])
def test_output_is_the_batch_output(
    xray_files: tuple[Path, Path, Path],
    capsys: pytest.CaptureFixture[str],
    fmt: str,
    system_only: bool,
) -> None:
    from meteorx.cli.main import main

    hyp, _, ref = xray_files
    args = ["--preset", "li", "--lang", "en", "--norm", "lower", "--format", fmt]
    args += ["--system-only"] if system_only else []
    assert main(["score", "--hyp", str(hyp), "--ref", str(ref), *args]) == 0
    batch = capsys.readouterr().out
    out = io.StringIO()
    run_stream(
        Scorer("li", language="en", normalize="lower"),
        str(hyp),
        [str(ref)],
        fmt=fmt,
        system_only=system_only,
        out=out,
    )
    assert out.getvalue() == batch


def test_empty_lines_warn_at_the_end(li_scorer: Scorer, tmp_path: Path) -> None:
    hyp = tmp_path / "h.txt"
    ref = tmp_path / "r.txt"
    hyp.write_text("a b\n\n  \nc\n")
    ref.write_text("a b\nx\ny\nc\n")
    out, err = io.StringIO(), io.StringIO()
    assert run_stream(li_scorer, str(hyp), [str(ref)], out=out, err=err) == 0
    assert "Segment 2 score:\t0.000000" in out.getvalue()
    assert err.getvalue().strip() == f"meteorx: warning: {hyp}: 2 empty line(s) score 0"


def test_write_stream_rejects_json(li_scorer: Scorer) -> None:
    from meteorx.errors import MeteorxError

    with pytest.raises(MeteorxError, match="text or tsv"):
        write_stream(score_stream(li_scorer, [], []), io.StringIO(), fmt="json")


def test_a_stream_is_iterated_once(li_scorer: Scorer) -> None:
    from meteorx.errors import MeteorxError

    stream = score_stream(li_scorer, ["a"], ["a"])
    list(stream)
    with pytest.raises(MeteorxError, match="only once"):
        list(stream)


def test_first_score_before_the_input_ends(tmp_path: Path) -> None:
    """The hypothesis comes through a pipe that stays open: the first score must show."""
    ref = tmp_path / "r.txt"
    ref.write_text("the cat sat on the mat\n" * 5)
    code = (
        "from meteorx import Scorer\n"
        "from meteorx.cli.score_cmd import run_stream\n"
        f"run_stream(Scorer('li', language='en'), '-', [{str(ref)!r}])\n"
    )
    env = dict(os.environ, PYTHONUNBUFFERED="0")
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b"the cat sat on the mat\n")
        proc.stdin.flush()
        start = time.monotonic()
        first = proc.stdout.readline()  # blocks until the line is flushed
        elapsed = time.monotonic() - start
        assert first == b"Segment 1 score:\t1.000000\n"
        assert proc.poll() is None  # still waiting for the rest of the input
        proc.stdin.write(b"the cat\n" * 4)
        proc.stdin.close()
        rest = proc.stdout.read().decode()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "5 segments" in rest
    assert elapsed < 30


def test_stream_arguments_are_checked() -> None:
    import argparse

    from meteorx.cli.score_cmd import check_stream_args
    from meteorx.errors import InputError as Err

    ok = argparse.Namespace(input_format="text", hyp=["h"], format="tsv", confidence=False)
    check_stream_args(ok)
    bad = argparse.Namespace(
        input_format="sgml", hyp=["a", "b"], format="json", paired_bs=True, scr="x"
    )
    with pytest.raises(Err) as info:
        check_stream_args(bad)
    for text in ("--input-format sgml", "several --hyp", "--format json", "--paired-bs", "--scr"):
        assert text in str(info.value)


def test_cli_stream_flag(
    xray_files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Once ``meteorx score --stream`` exists, it prints what the batch path prints."""
    from meteorx.cli.main import build_parser, main

    try:
        build_parser().parse_args(["score", "--hyp", "h", "--ref", "r", "--stream"])
    except SystemExit:
        capsys.readouterr()
        pytest.skip("meteorx score has no --stream option yet (see meteorx/streaming.py)")
    hyp, _, ref = xray_files
    args = ["score", "--hyp", str(hyp), "--ref", str(ref), "-p", "li", "-l", "en"]
    assert main(args) == 0
    batch = capsys.readouterr().out
    assert main([*args, "--stream"]) == 0
    assert capsys.readouterr().out == batch
