"""Bad input and unwritable output: one line on stderr and exit code 2, never a traceback.

One test (or a few) per finding of a hostile probe: SGML without ``</seg>`` (quadratic
reading, silently no scores), outputs that cannot be written (missing folder, full
disk, closed standard output), ``--precision -1``, JSON nested too deeply or holding a
huge integer, a 50 MB line, empty input (``nan`` and inconsistent ``refs:``), ``combine``
with counts no scorer could have produced, ``--hyp - --ref -``, and the monotonicity
counterexample of the Meteor 1.5 English preset (the jar's own behaviour).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from meteorx.cli.main import main
from meteorx.errors import InputError
from meteorx.formats import read_sgml_file, read_stats
from meteorx.inputs import MAX_SEGMENT_CHARS
from tests.conftest import REPO

LI = ["-p", "li", "-l", "en"]
SGML_HEAD = '<tstset setid="t" srclang="de" trglang="en" sysid="A">\n<doc docid="d1">\n'


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as stop:  # argparse's errors
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str, *needles: str) -> None:
    """Exit 2 and exactly one line on stderr, naming what it must."""
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert re.match(r"meteorx( \w+)?: error: ", lines[0]), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def cli(*argv: str, shell_suffix: str = "") -> subprocess.CompletedProcess[str]:
    """The real command in a fresh process (for standard output problems)."""
    command = " ".join([sys.executable, "-m", "meteorx", *(f"'{a}'" for a in argv)])
    return subprocess.run(
        ["sh", "-c", command + shell_suffix],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    hyp = tmp_path / "h.txt"
    ref = tmp_path / "r.txt"
    hyp.write_text("the cat sat on the mat\nhello world\n")
    ref.write_text("the cat sat on a mat\nhello there world\n")
    return str(hyp), str(ref)


# -- 6. SGML ------------------------------------------------------------------------


def _sgml(path: Path, body: str, tail: str = "</doc>\n</tstset>\n") -> str:
    path.write_text(SGML_HEAD + body + tail, encoding="utf-8")
    return str(path)


def test_a_megabyte_of_unclosed_seg_is_read_in_linear_time(tmp_path: Path) -> None:
    # 1 MB of '<seg id=N>' lines without '</seg>' (the old lazy pattern: 29 s for 160 KB,
    # unfinished after 200 s for 1 MB).
    lines = "".join(f'<seg id="{i}">a few words of text here\n' for i in range(1, 30_000))
    path = _sgml(tmp_path / "open.sgm", lines)
    assert Path(path).stat().st_size > 1_000_000
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"line 3: <seg> not closed"):
        read_sgml_file(path)
    assert time.perf_counter() - start < 5  # ~0.01 s here; the lazy pattern took minutes
    # one segment opened and never closed: the rest of the file is its text
    path = _sgml(tmp_path / "one.sgm", '<seg id="1">' + "word " * 200_000 + "\n")
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"line 3: <seg> not closed \(no </seg> after it\)"):
        read_sgml_file(path)
    assert time.perf_counter() - start < 5


def test_sgml_tags_are_read_in_linear_time(tmp_path: Path) -> None:
    cases = {
        "no-gt": '<seg id="1" ' + "word " * 200_000 + "\n",  # '<seg' never ends
        "long-attr": '<seg id="1">x</seg>\n<doc ' + "a" * 300_000 + ">\n",  # was quadratic
        "many-lt": '<seg id="1">' + "< a " * 200_000 + "</seg>\n",
    }
    for name, body in cases.items():
        path = _sgml(tmp_path / f"{name}.sgm", body)
        start = time.perf_counter()
        with contextlib.suppress(InputError):
            read_sgml_file(path)
        assert time.perf_counter() - start < 5, name  # ~0.03 s; quadratic was minutes
    with pytest.raises(InputError, match=r"'<seg' without the '>'"):
        read_sgml_file(str(tmp_path / "no-gt.sgm"))


def test_unclosed_segments_are_an_error_not_silence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 3,000 segments without closing tags used to exit 0 with no scores and no warning.
    ref = _sgml(
        tmp_path / "ref.sgm",
        "".join(f'<seg id="{i}">the text {i}</seg>\n' for i in range(1, 3001)),
    )
    hyp = _sgml(
        tmp_path / "test.sgm",
        "".join(f'<seg id="{i}">the text {i}\n' for i in range(1, 3001)),
    )
    code, out, err = run(capsys, "score", "-i", "sgml", "-H", hyp, "-r", ref, *LI)
    one_line_error(code, err, "test.sgm, line 3", "<seg> not closed")
    assert out == ""


def test_sgml_structure_errors(tmp_path: Path) -> None:
    bad = {
        "no segments": ("", r"no segments"),
        "stray close": ('text</seg>\n<seg id="1">x</seg>\n', r"line 3: </seg> without"),
        "nested": ('<seg id="1">a <seg id="2">b</seg>\n', r"a new <seg> starts on line 3"),
    }
    for name, (body, message) in bad.items():
        with pytest.raises(InputError, match=message):
            read_sgml_file(_sgml(tmp_path / f"{name}.sgm", body))
    # markup inside a segment stays its text; line numbers stay right
    path = _sgml(tmp_path / "ok.sgm", '<seg id="1">a <b>bold</b> &amp; x</seg>\n\n<seg id=2>y')
    with pytest.raises(InputError, match=r"line 5: <seg> not closed"):
        read_sgml_file(path)
    path = _sgml(tmp_path / "ok2.sgm", '<seg id="1">a <b>bold</b> &amp;\n x</seg>\n')
    assert read_sgml_file(path).systems == {"A": [("d1", "1", "a <b>bold</b> & x")]}


# -- 7. outputs that cannot be written ----------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "shown"),
    [
        ("--stats-out", "{tmp}/missing/s.tsv", "missing/s.tsv: no folder"),
        ("--scr", "{tmp}/missing/out", "missing/out-seg.scr: no folder"),
        ("--stats-out", "{tmp}", "it is a directory"),
        ("--stats-out", "/dev/full", "/dev/full: No space left on device"),
    ],
)
def test_unwritable_score_outputs(
    files: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    option: str,
    value: str,
    shown: str,
) -> None:
    hyp, ref = files
    code, _, err = run(
        capsys, "score", "-H", hyp, "-r", ref, *LI, option, value.format(tmp=tmp_path)
    )
    one_line_error(code, err, "cannot write", shown)


def test_unwritable_report_and_combine_outputs(
    files: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp, ref = files
    missing = str(tmp_path / "missing" / "r.html")
    code, _, err = run(capsys, "report", "-H", hyp, "-r", ref, *LI, "-o", missing, "-q")
    one_line_error(code, err, f"cannot write {missing}: no folder")
    code, _, err = run(capsys, "report", "-H", hyp, "-r", ref, *LI, "-o", "/dev/full", "-q")
    one_line_error(code, err, "cannot write /dev/full: No space left on device")
    stats = str(tmp_path / "s.tsv")
    assert run(capsys, "score", "-H", hyp, "-r", ref, *LI, "--stats-out", stats)[0] == 0
    code, _, err = run(capsys, "combine", stats, "--scr", str(tmp_path / "missing" / "x"))
    one_line_error(code, err, "no folder")
    code, _, err = run(capsys, "combine", stats, "--stats-out", "/dev/full")
    one_line_error(code, err, "cannot write /dev/full")


def test_standard_output_on_a_full_disk(files: tuple[str, str]) -> None:
    hyp, ref = files
    for fmt in ("text", "json"):
        proc = cli("score", "-H", hyp, "-r", ref, *LI, "-f", fmt, shell_suffix=" > /dev/full")
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.splitlines() == [
            "meteorx: error: cannot write to standard output: No space left on device"
        ]


def test_standard_output_closed(files: tuple[str, str]) -> None:
    hyp, ref = files
    proc = cli("score", "-H", hyp, "-r", ref, *LI, shell_suffix=" >&-")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        "meteorx: error: cannot write to standard output: standard output is closed"
    ]
    # the report writes only its file: a closed standard output does not matter
    out = Path(hyp).with_name("r.html")
    proc = cli("report", "-H", hyp, "-r", ref, *LI, "-o", str(out), "-q", shell_suffix=" >&-")
    assert proc.returncode == 0 and out.exists(), proc.stderr


def test_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    many = tmp_path / "many.txt"
    many.write_text("the cat sat\n" * 20_000)
    proc = cli(
        "score", "-H", str(many), "-r", str(many), *LI, shell_suffix=" | head -c 10 >/dev/null"
    )
    assert proc.returncode == 0
    assert proc.stderr == "", proc.stderr


@pytest.mark.parametrize("value", ["-1", "18", "x"])
def test_precision_out_of_range(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str], value: str
) -> None:
    hyp, ref = files
    code, out, err = run(capsys, "score", "-H", hyp, "-r", ref, *LI, "--precision", value)
    one_line_error(code, err, "--precision")
    assert out == ""


def test_other_numeric_arguments(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    hyp, ref = files
    for argv in (
        ["score", "-H", hyp, "-r", ref, *LI, "--jobs", "-1"],
        ["report", "-H", hyp, "-r", ref, *LI, "-o", "x.html", "--n-bootstrap", "0"],
        ["report", "-H", hyp, "-r", ref, *LI, "-o", "x.html", "--expanded", "-2"],
        ["score", "-H", hyp, "-r", ref, *LI, "--max-segment-chars", "-5"],
    ):
        code, _, err = run(capsys, *argv)
        one_line_error(code, err, "must be")


# -- 7. JSON bounds ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"hyp": ' + "[" * 200_000 + "]" * 200_000 + ', "ref": "a"}', "nested too deeply"),
        ('{"hyp": "a", "ref": "b", "n": ' + "7" * 5001 + "}", "out of range"),
    ],
)
def test_jsonl_depth_and_integer_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"hyp": "a b", "ref": "a b"}\n' + line + "\n")
    code, out, err = run(capsys, "score", "-i", "jsonl", "-H", str(path), *LI)
    one_line_error(code, err, "t.jsonl, line 2", message)
    assert len(err) < 300 and out == ""


def test_stats_json_depth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    code, _, err = run(capsys, "combine", str(path))
    one_line_error(code, err, "nested too deeply")


# -- 7. a 50 MB line -----------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_a_fifty_megabyte_line_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stream: bool
) -> None:
    # It used to end in MemoryError after 200 s; now the bound names the file and line.
    path = tmp_path / "big.txt"
    with path.open("w") as handle:
        handle.write("short line\n")
        handle.write("word " * 10_000_000 + "\n")
    start = time.perf_counter()
    extra = ["--stream"] if stream else []
    code, out, err = run(capsys, "score", "-H", str(path), "-r", str(path), *LI, *extra)
    one_line_error(code, err, "big.txt, line 2", "50,000,000 characters", "--max-segment-chars")
    assert time.perf_counter() - start < 20
    if stream:  # the scores before the line are printed
        assert out == "Segment 1 score:\t1.000000\n"
    else:
        assert out == ""


def test_segment_length_bound_is_configurable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp = tmp_path / "h.txt"
    ref = tmp_path / "r.txt"
    hyp.write_text("a b c\n" + "x " * 40 + "\n")
    ref.write_text("a b c\nx\n")
    code, _, err = run(
        capsys, "score", "-H", str(hyp), "-r", str(ref), *LI, "--max-segment-chars", "50"
    )
    one_line_error(code, err, "h.txt, line 2", "80 characters", "limit of 50")
    code, _, err = run(
        capsys, "score", "-H", str(ref), "-r", str(hyp), *LI, "--max-segment-chars", "50"
    )
    one_line_error(code, err, "h.txt, line 2")  # a reference names its own file
    assert (
        run(capsys, "score", "-H", str(hyp), "-r", str(ref), *LI, "--max-segment-chars", "0")[0]
        == 0
    )
    code, _, err = run(
        capsys, "explain", "-H", str(hyp), "-r", str(ref), *LI, "--max-segment-chars", "50"
    )
    one_line_error(code, err, "h.txt, line 2")
    table = tmp_path / "t.jsonl"
    table.write_text(json.dumps({"hyp": "x " * 40, "ref": "x"}) + "\n")
    code, _, err = run(
        capsys, "score", "-i", "jsonl", "-H", str(table), *LI, "--max-segment-chars", "50"
    )
    one_line_error(code, err, "system 'hyp', segment '1'")
    assert MAX_SEGMENT_CHARS >= 100_000


# -- 9. empty input ------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_empty_input_scores_zero_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stream: bool
) -> None:
    empty = tmp_path / "e.txt"
    empty.write_text("")
    argv = ["score", "-H", str(empty), "-r", str(empty), *LI] + (["--stream"] if stream else [])
    code, out, err = run(capsys, *argv)
    assert code == 0
    assert "nan" not in out
    assert "METEOR = 0.000000" in out and "0 segments" in out
    assert "|refs:1|" in out
    assert err == "meteorx: warning: the input has no segments; the score is 0\n"


def test_empty_table_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "t.tsv"
    table.write_text("hyp\tref\n")
    code, out, err = run(capsys, "score", "-i", "tsv", "-H", str(table), *LI, "-f", "json")
    assert code == 0 and "no segments" in err
    data = json.loads(out)
    assert data["system"]["score"] == 0.0 and data["system"]["fragmentation"] == 0.0
    assert "|refs:1|" in data["signature"]


# -- 9. combine with impossible statistics ------------------------------------------------------


@pytest.fixture
def stats_file(files: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    hyp, ref = files
    path = tmp_path / "s.tsv"
    assert run(capsys, "score", "-H", hyp, "-r", ref, *LI, "--stats-out", str(path))[0] == 0
    return path


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        (3, "nan", "hyp_len = nan is not a count"),
        (4, "-3", "ref_len = -3.0 is not a count"),
        (7, "1.5", "is not a count"),
        (3, "inf", "is not a count"),
        (5, "99", "hyp_function (99) exceeds hyp_len"),
        (7, "50", "exceeds hyp_len"),
    ],
)
def test_combine_refuses_counts_no_scorer_produces(
    stats_file: Path, capsys: pytest.CaptureFixture[str], column: int, value: str, message: str
) -> None:
    lines = stats_file.read_text().splitlines()
    row = lines[-1].split("\t")
    row[column] = value
    lines[-1] = "\t".join(row)
    stats_file.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "combine", str(stats_file))
    one_line_error(code, err, "row", message)
    assert out == ""


def test_combine_refuses_nan_parameters(
    stats_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "combine", str(stats_file), "--alpha", "nan")
    one_line_error(code, err, "--alpha nan is out of range")
    code, _, err = run(capsys, "combine", str(stats_file), "--beta", "inf")
    one_line_error(code, err, "--beta inf is out of range")
    text = stats_file.read_text().replace('"gamma": 0.7', '"gamma": NaN')
    stats_file.write_text(text)
    code, _, err = run(capsys, "combine", str(stats_file))
    one_line_error(code, err, "gamma = nan is outside 0..1")


def test_combine_json_statistics_are_checked(
    files: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp, ref = files
    code, out, _ = run(capsys, "score", "-H", hyp, "-r", ref, *LI, "-f", "json")
    data = json.loads(out)
    path = tmp_path / "s.json"
    first = data["segments"][0]
    for broken in (
        {**data, "segments": [{**first, "stats": [-1, *first["stats"][1:]]}]},
        {**data, "segments": [{**first, "stats": [*first["stats"][:2], 0.5, *first["stats"][3:]]}]},
        {**data, "segments": [{**first, "stats": "abc"}]},
        {**data, "segments": [1, 2]},
    ):
        path.write_text(json.dumps(broken))
        code, _, err = run(capsys, "combine", str(path))
        one_line_error(code, err, "s.json")
    path.write_text(json.dumps(data))
    stats = read_stats(str(path))
    assert len(stats.systems[0][1]) == 2


# -- found by fuzz/fuzz_inputs.py ---------------------------------------------------------------


def test_statistics_of_an_empty_input_are_refused_by_combine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "e.txt"
    empty.write_text("")
    stats = tmp_path / "s.tsv"
    assert (
        run(capsys, "score", "-H", str(empty), "-r", str(empty), *LI, "--stats-out", str(stats))[0]
        == 0
    )
    code, _, err = run(capsys, "combine", str(stats))  # was IndexError
    one_line_error(code, err, "no statistics rows")


def test_identifiers_with_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A line break in setid was written into the statistics file's header and broke it.
    ref = _sgml(tmp_path / "ref.sgm", '<seg id="1">a b</seg>\n')
    hyp = tmp_path / "test.sgm"
    hyp.write_text(SGML_HEAD.replace('setid="t"', 'setid="t\nx\ty"') + '<seg id="1">a</seg>\n')
    code, _, err = run(capsys, "score", "-i", "sgml", "-H", str(hyp), "-r", ref, *LI)
    one_line_error(code, err, "test.sgm, line 1", "control character", "U+000A")
    table = tmp_path / "t.jsonl"
    table.write_text(json.dumps({"hyp": "a", "ref": "a", "id": "s\t1"}) + "\n")
    code, _, err = run(capsys, "score", "-i", "jsonl", "-H", str(table), *LI, "--id-column", "id")
    one_line_error(code, err, "t.jsonl, record 1, column 'id'", "U+0009")


# -- 9. standard input named twice ---------------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--stream"]])
def test_stdin_for_hyp_and_ref(capsys: pytest.CaptureFixture[str], extra: list[str]) -> None:
    code, _, err = run(capsys, "score", "-H", "-", "-r", "-", *LI, *extra)
    one_line_error(code, err, "standard input ('-')", "--hyp - and --ref -")
    code, _, err = run(capsys, "explain", "-H", "-", "-r", "-", *LI)
    one_line_error(code, err, "standard input ('-')")


def test_a_reference_on_stdin_serves_every_system(
    files: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each file is read once: with several --hyp, a reference given on standard input
    is the reference of every system (read again, it would be empty)."""
    hyp, ref = files
    other = tmp_path / "other.txt"
    other.write_text("the cat sat\nhello\n")
    code, expected, err = run(capsys, "score", "-H", hyp, "-H", str(other), "-r", ref, *LI)
    assert code == 0, err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(Path(ref).read_bytes())))
    code, out, err = run(capsys, "score", "-H", hyp, "-H", str(other), "-r", "-", *LI)
    assert code == 0, err
    assert out == expected


def test_every_text_reader_names_the_same_over_long_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two over-long references: score, score --stream and explain all name the first
    segment that has one (references segment by segment, as the stream meets them)."""
    hyp = tmp_path / "h.txt"
    first = tmp_path / "r1.txt"
    second = tmp_path / "r2.txt"
    hyp.write_text("ab\ncd\n")
    first.write_text("ab\n" + "c" * 20 + "\n")
    second.write_text("a" * 20 + "\ncd\n")
    argv = ["-H", str(hyp), "-r", str(first), "-r", str(second), *LI]
    for command in (["score"], ["score", "--stream"], ["explain"]):
        code, out, err = run(capsys, *command, *argv, "--max-segment-chars", "10")
        one_line_error(code, err, f"{second}, line 1:", "20 characters")
        assert out == ""


@pytest.mark.parametrize("name", ["alpha", "beta", "gamma", "delta", "weight"])
def test_combine_accepts_the_parameters_a_configuration_accepts(name: str) -> None:
    """``combine --alpha`` .. ``--weights`` check their values against the configuration's
    own bounds: a value is refused exactly when a configuration refuses it."""
    from meteorx.config_models import StageConfig
    from meteorx.defaults import configure
    from meteorx.error_text import out_of_range
    from meteorx.errors import ConfigError

    base = configure("li", language="en")
    for value in [-1.0, -0.0, 0.0, 0.25, 1.0, 1.0000001, 3.0, math.inf, -math.inf, math.nan]:
        try:
            if name == "weight":
                StageConfig(matcher="exact", weight=value)
            else:
                base.with_overrides(**{name: value})
            valid = True
        except (ConfigError, ValueError):
            valid = False
        assert (out_of_range(name, value) is None) == valid, (name, value)


# -- 9. monotonicity counterexamples: Meteor 1.5's beam search -----------------------------

#: Found by fuzz/long_properties.py: inserting a word that matches nothing raises the
#: score, because the beam search keeps a better set of matches only in the second case
#: (en: 'big <-> large' by synonym; pt: 'gatos <-> gato' by stem, once the exact
#: 'gatos' is taken from the other occurrence). The jar prints exactly these scores.
#: (preset, overrides, jar arguments, reference, hypothesis, with the word, scores)
MONOTONE: dict[str, tuple[str, dict[str, Any], list[str], str, str, str, tuple[float, float]]] = {
    "en-norm": (
        "meteor-1.5-en",
        {"normalize": "meteor"},
        ["-l", "en", "-norm"],
        "large a a the",
        "the the the the the the the the a big a the",
        "the the the the the the the the a big a qzxv the",
        (0.18613968879623474, 0.30603352462804156),
    ),
    "pt": (
        "meteor-1.5-pt",
        {},
        ["-l", "pt"],
        "o a gatos um gato",
        "um gatos o o gatos",
        "qzxv um gatos o o gatos",
        (0.18000000000000002, 0.35471123652261616),
    ),
}


@pytest.mark.parametrize("case", sorted(MONOTONE))
def test_monotonicity_counterexamples_are_the_jars(case: str) -> None:
    from meteorx.metric import Scorer

    preset, overrides, _, ref, hyp, inserted, scores = MONOTONE[case]
    if case == "en-norm":
        from tests.conftest import require_full_english

        require_full_english()
    scorer = Scorer(preset, **overrides)
    assert tuple(scorer.segment(h, [ref]).score for h in (hyp, inserted)) == scores


@pytest.mark.jar
@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(MONOTONE))
def test_monotonicity_counterexamples_against_the_jar(tmp_path: Path, case: str) -> None:
    from tests.oracle import jar

    reason = jar.unavailable_reason()
    if reason:
        pytest.skip(reason)
    _, _, args, ref, hyp, inserted, scores = MONOTONE[case]
    hyp_file = tmp_path / "h"
    ref_file = tmp_path / "r"
    hyp_file.write_text(f"{hyp}\n{inserted}\n")
    ref_file.write_text(f"{ref}\n{ref}\n")
    result = jar.run_jar(hyp_file, ref_file, args)
    assert all(
        math.isclose(a, b, abs_tol=1e-12)
        for a, b in zip(result.segment_scores, scores, strict=True)
    )
