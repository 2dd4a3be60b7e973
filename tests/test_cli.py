"""The command-line tool: output contract and one-line errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from meteorx.cli.main import main

REPO = Path(__file__).resolve().parents[1]
HYP = REPO / "examples" / "hyp.txt"
REF = REPO / "examples" / "ref.txt"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "score",
        "--hyp",
        str(HYP),
        "--ref",
        str(REF),
        "--preset",
        "li",
        "--lang",
        "en",
        "--norm",
        "lower",
        "--format",
        "json",
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"system", "segments", "signature"}
    assert len(data["segments"]) == 4
    assert 0 < data["system"]["score"] < 1
    assert data["segments"][0]["score"] == pytest.approx(0.7347, abs=1e-4)
    assert data["signature"].startswith("meteorx|preset:li|lang:en|norm:lower|")


def test_text_and_tsv_outputs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "-H", str(HYP), "-r", str(REF), "-p", "li", "-l", "en")
    assert code == 0
    assert out.splitlines()[0].startswith("Segment 1 score:\t")
    assert "METEOR = " in out
    assert out.rstrip().splitlines()[-1].startswith("meteorx|")
    code, out, _ = run(
        capsys, "score", "-H", str(HYP), "-r", str(REF), "-p", "li", "-l", "en", "-f", "tsv"
    )
    assert out.splitlines()[1].startswith("system\tsegment\tscore")
    assert out.splitlines()[-1].split("\t")[1] == "system"


def test_config_file_and_two_references(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("extends: meteor-2005\nstages:\n- matcher: exact\n")
    code, out, _ = run(
        capsys,
        "score",
        "--hyp",
        str(HYP),
        "--ref",
        str(REF),
        "--ref",
        str(HYP),
        "--config",
        str(cfg),
        "--format",
        "json",
    )
    assert code == 0
    data = json.loads(out)
    hyps = HYP.read_text().splitlines()
    for seg, line in zip(data["segments"], hyps, strict=True):
        # The hypothesis itself is the second reference: one chunk, no perfect-match rule.
        assert seg["ref_index"] == 1
        assert seg["score"] == pytest.approx(1 - 0.5 / len(line.split()) ** 3)


def test_stdin_hypothesis(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "meteorx",
            "score",
            "--hyp",
            "-",
            "--ref",
            str(REF),
            "--preset",
            "li",
            "--lang",
            "en",
            "--format",
            "json",
        ],
        input=HYP.read_bytes(),
        capture_output=True,
        check=True,
    )
    assert len(json.loads(proc.stdout)["segments"]) == 4


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("mismatch", "has 2 lines but"),
        ("utf8", "line 2, byte 3: invalid UTF-8"),
        ("missing", "file not found"),
        ("lang", "unknown language 'klingon'"),
        ("yaml", "invalid YAML"),
        ("range", "alpha: Input should be less than or equal to 1"),
        ("preset", "unknown preset 'nope'"),
    ],
)
def test_bad_input_is_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: str, message: str
) -> None:
    hyp = tmp_path / "h.txt"
    hyp.write_text("a b\nc d\n")
    ref = tmp_path / "r.txt"
    ref.write_text("a b\nc d\n")
    extra: list[str] = ["--preset", "li", "--lang", "en"]
    if setup == "mismatch":
        ref.write_text("a b\nc d\ne f\n")
    elif setup == "utf8":
        hyp.write_bytes(b"a b\nc \xff\n")
    elif setup == "missing":
        hyp = tmp_path / "nothere.txt"
    elif setup == "lang":
        extra = ["--preset", "li", "--lang", "klingon"]
    elif setup == "yaml":
        (tmp_path / "c.yaml").write_text("alpha: [oops\n")
        extra = ["--config", str(tmp_path / "c.yaml")]
    elif setup == "range":
        (tmp_path / "c.yaml").write_text("extends: li\nlanguage: en\nalpha: 3\n")
        extra = ["--config", str(tmp_path / "c.yaml")]
    elif setup == "preset":
        extra = ["--preset", "nope"]
    code, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(ref), *extra)
    assert code == 2
    assert out == ""
    assert err.startswith("meteorx: error: ")
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_empty_lines_score_zero_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp = tmp_path / "h.txt"
    hyp.write_text("the cat\n\n")
    ref = tmp_path / "r.txt"
    ref.write_text("the cat\nthe dog\n")
    code, out, err = run(
        capsys, "score", "-H", str(hyp), "-r", str(ref), "-p", "li", "-l", "en", "-f", "json"
    )
    assert code == 0
    assert json.loads(out)["segments"][1]["score"] == 0.0
    assert "1 empty line(s)" in err


def test_bom_and_crlf_are_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyp = tmp_path / "h.txt"
    hyp.write_bytes(b"\xef\xbb\xbfthe cat\r\nthe dog\r\n")
    ref = tmp_path / "r.txt"
    ref.write_text("the cat\nthe dog\n")
    code, out, _ = run(
        capsys, "score", "-H", str(hyp), "-r", str(ref), "-p", "li", "-l", "en", "-f", "json"
    )
    assert code == 0
    assert json.loads(out)["system"]["score"] == 1.0


def test_help_is_complete(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    out = capsys.readouterr().out
    for flag in ["--hyp", "--ref", "--preset", "--config", "--lang", "--norm", "--format"]:
        assert flag in out


def test_listing_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "presets")[1].count("meteor-1.5-") >= 10
    assert "matcher:exact" in run(capsys, "plugins")[1]
    langs = run(capsys, "languages")[1]
    assert "\npt " in langs and "\nzh " in langs
    _, out, _ = run(capsys, "config", "--preset", "li", "--lang", "de")
    assert "language: de" in out
