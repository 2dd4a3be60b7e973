"""The command line under a second hostile pass: one line on stderr and exit code 2
(or a correct result), never a traceback.

One test (or a few) per finding: negative seeds, a trillion randomisation trials,
``--jobs`` beyond reason or beyond the open-file limit, a standard output that is not
UTF-8, ``combine`` of statistics without segments, Ctrl-C during the imports, a closed
standard error, non-finite human judgments, a lone surrogate in JSON input, echoed
values of any length, ``METEORX_TRACE_HOOKS=0``, repeated TSV columns and
``meteorx languages`` with an unknown code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from meteorx.cli.arg_types import MAX_RESAMPLES, MAX_SEED
from meteorx.cli.main import build_parser, main
from meteorx.parallel import JOBS_PER_CPU, JobsError, default_jobs, resolve_jobs
from tests.conftest import REPO
from tests.test_hardening_inputs import one_line_error, run

EXAMPLES = REPO / "examples"
LI = ["-p", "li", "-l", "en"]
TWO_SYSTEMS = [
    "-H", str(EXAMPLES / "systems" / "sysA.txt"),
    "-H", str(EXAMPLES / "systems" / "sysB.txt"),
    "-r", str(EXAMPLES / "ref.txt"),
]  # fmt: skip


def command(*argv: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    """``python -m meteorx ARGV`` in a fresh process (the interpreter itself, no shell)."""
    return subprocess.run(
        [sys.executable, "-m", "meteorx", *argv], capture_output=True, timeout=300, **kwargs
    )


# -- 6. tracebacks ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def stats_tsv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stats") / "stats.tsv"
    assert main(["score", *TWO_SYSTEMS, *LI, "--stats-out", str(path), "--system-only"]) == 0
    return path


@pytest.mark.parametrize("seed", ["-1", str(MAX_SEED + 1)])
@pytest.mark.parametrize(
    "argv",
    [
        ["score", *TWO_SYSTEMS, *LI, "--confidence"],
        ["score", *TWO_SYSTEMS, *LI, "--paired-ar"],
        ["combine", "STATS", "--confidence"],
        ["report", *TWO_SYSTEMS, *LI, "-o", "OUT"],
    ],
    ids=["confidence", "paired-ar", "combine", "report"],
)
def test_a_seed_numpy_cannot_take_is_refused_when_parsing(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    stats_tsv: Path,
    argv: list[str],
    seed: str,
) -> None:
    argv = [str(stats_tsv) if a == "STATS" else a for a in argv]
    argv = [str(tmp_path / "r.html") if a == "OUT" else a for a in argv]
    code, out, err = run(capsys, *argv, "--seed", seed)
    one_line_error(code, err, "--seed", seed)
    assert out == ""


def test_the_largest_seed_works(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "score", *TWO_SYSTEMS, *LI, "--paired-ar", "--ar-trials", "50",
        "--seed", str(MAX_SEED), "--system-only",
    )  # fmt: skip
    assert code == 0, err
    assert f"seed:{MAX_SEED}" in out


@pytest.mark.parametrize("option", ["--ar-trials", "--n-bootstrap"])
def test_resample_counts_are_bounded(capsys: pytest.CaptureFixture[str], option: str) -> None:
    code, out, err = run(capsys, "score", *TWO_SYSTEMS, *LI, "--paired-ar", option, "1000000000000")
    one_line_error(code, err, option, f"{MAX_RESAMPLES:,}")
    assert out == ""
    parsed = build_parser().parse_args(["combine", "x", option, str(MAX_RESAMPLES)])
    assert getattr(parsed, option[2:].replace("-", "_")) == MAX_RESAMPLES


def test_jobs_beyond_the_bound_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    bound = JOBS_PER_CPU * default_jobs()
    assert resolve_jobs(bound) == bound
    assert resolve_jobs(0) == default_jobs()
    with pytest.raises(JobsError, match=f"at most {bound}"):
        resolve_jobs(bound + 1)
    code, out, err = run(capsys, "score", *TWO_SYSTEMS, *LI, "--jobs", "10000")
    one_line_error(code, err, "--jobs 10000", f"at most {bound}")
    assert out == ""


@pytest.mark.skipif(sys.platform != "linux", reason="sets RLIMIT_NOFILE, forks workers")
@pytest.mark.parametrize("stream", [False, True], ids=["batch", "stream"])
def test_running_out_of_open_files_for_workers_is_one_line(tmp_path: Path, stream: bool) -> None:
    import resource

    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat on the mat\n" * 64, encoding="utf-8")
    ref.write_text("a cat sat on a mat\n" * 64, encoding="utf-8")
    jobs = min(4, JOBS_PER_CPU * default_jobs())

    def few_files() -> None:  # enough for one process, not for the workers' pipes
        resource.setrlimit(resource.RLIMIT_NOFILE, (12, 12))

    done = command(
        "score", "-H", str(hyp), "-r", str(ref), *LI, "--jobs", str(jobs),
        *(["--stream"] if stream else []), preexec_fn=few_files,
    )  # fmt: skip
    err = done.stderr.decode()
    one_line_error(done.returncode, err, "worker process", "Too many open files", "--jobs")


def test_outputs_are_utf8_whatever_the_locale(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    table = tmp_path / "t.tsv"
    table.write_text("id\thyp\tref\nsegment-é\ta b\ta c\n", encoding="utf-8")
    text = tmp_path / "pt.txt"
    text.write_text("o gato é azul\n", encoding="utf-8")
    runs = {
        "plugins": command("plugins", env=env),
        "languages": command("languages", "sv", env=env),
        "explain": command("explain", "-H", str(text), "-r", str(text), "--lang", "pt", env=env),
        "tsv": command(
            "score", "-i", "tsv", "-H", str(table), "--id-column", "id", *LI, "-f", "tsv", env=env
        ),
        "json": command(
            "score", "-i", "tsv", "-H", str(table), "--id-column", "id", *LI, "-f", "json", env=env
        ),
    }
    for name, done in runs.items():
        assert done.returncode == 0, (name, done.stderr.decode())
        assert done.stderr == b"", name
        done.stdout.decode("utf-8")  # UTF-8, not escapes or a partial write
    assert b"Swedish" in runs["languages"].stdout
    assert "o gato é azul".encode() in runs["explain"].stdout
    assert "segment-é".encode() in runs["tsv"].stdout
    assert json.loads(runs["json"].stdout)["segments"][0]["id"] == "segment-é"


@pytest.mark.parametrize("content", ["no systems", "no segments"])
def test_combine_of_json_without_segments_is_refused_like_an_empty_tsv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str
) -> None:
    code, out, err = run(capsys, "score", *TWO_SYSTEMS[:2], *TWO_SYSTEMS[4:], *LI, "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    if content == "no systems":
        data = {"systems": [], "parameters": data["parameters"], "signature": data["signature"]}
    else:
        data["segments"] = []
    path = tmp_path / "stats.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = run(capsys, "combine", str(path))
    one_line_error(code, err, str(path), "no statistics rows")
    # the same as a statistics TSV without rows
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    tsv = tmp_path / "stats.tsv"
    assert main(["score", "-H", str(empty), "-r", str(empty), *LI, "--stats-out", str(tsv)]) == 0
    capsys.readouterr()
    code, _, tsv_err = run(capsys, "combine", str(tsv))
    one_line_error(code, tsv_err, "no statistics rows")
    assert err.replace(str(path), "FILE") == tsv_err.replace(str(tsv), "FILE")


def test_json_systems_with_different_segments_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "score", *TWO_SYSTEMS, *LI, "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    data["systems"][0]["segments"] = []
    path = tmp_path / "stats.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = run(capsys, "combine", str(path))
    one_line_error(code, err, str(path))


@pytest.mark.parametrize(
    "module",
    [
        "argparse",
        "meteorx.engine",
        "meteorx.cli.output",
        "meteorx.cli.arguments",
        "meteorx.cli.score_cmd",
    ],
)
def test_ctrl_c_during_the_imports_exits_130_quietly(module: str) -> None:
    """Ctrl-C while the command's modules load (the first ~0.15 s) is simulated by a
    KeyboardInterrupt raised when ``module`` is imported."""
    code = (
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name == {module!r}:\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "from meteorx.cli.main import main\n"
        "sys.exit(main(['score', '-H', 'h.txt', '-r', 'r.txt']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.returncode == 130, done.stderr.decode()
    assert done.stderr == b""
    assert done.stdout == b""


# -- 7. standard error closed -------------------------------------------------------------


@pytest.mark.skipif(os.name != "posix", reason="closes file descriptor 2 before exec")
def test_a_run_with_standard_error_closed_still_works() -> None:
    def close_stderr() -> None:
        os.close(2)

    argv = ["score", "-H", str(EXAMPLES / "hyp.txt"), "-r", str(EXAMPLES / "ref.txt"), *LI]
    done = subprocess.run(
        [sys.executable, "-m", "meteorx", *argv],
        stdout=subprocess.PIPE,
        preexec_fn=close_stderr,
        timeout=120,
    )
    assert done.returncode == 0
    assert b"METEOR = " in done.stdout
    failed = subprocess.run(
        [sys.executable, "-m", "meteorx", *argv, "--lang", "xx"],
        stdout=subprocess.PIPE,
        preexec_fn=close_stderr,
        timeout=120,
    )
    assert failed.returncode == 2
    assert failed.stdout == b""  # the error does not go to standard output instead


def test_an_error_written_to_a_closed_stderr_pipe_exits_2() -> None:
    for _ in range(3):
        process = subprocess.Popen(
            [sys.executable, "-m", "meteorx", "score", "-H", "h", "-r", "r", "--lang", "xx"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        assert process.stderr is not None
        process.stderr.close()  # long before the error is written
        assert process.wait(timeout=120) == 2


# -- 9. smaller ones ------------------------------------------------------------------------


@pytest.fixture
def judgments(tmp_path: Path) -> Path:
    return tmp_path / "judgments.tsv"


def _tune(judgments: Path, tmp_path: Path, *extra: str) -> list[str]:
    return [
        "tune", *LI, "--hyp-dir", str(EXAMPLES / "systems"), "--ref", str(EXAMPLES / "ref.txt"),
        "-o", str(tmp_path / "tuned.yaml"), "--rounds", "1", "-q", *extra,
    ]  # fmt: skip


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "NaN"])
def test_tune_refuses_non_finite_human_scores(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, judgments: Path, value: str
) -> None:
    lines = (EXAMPLES / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    fields = lines[3].split("\t")
    lines[3] = "\t".join([*fields[:2], value])
    judgments.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(capsys, *_tune(judgments, tmp_path), "--human", str(judgments))
    one_line_error(code, err, f"{judgments}, line 4", "not a finite number")
    assert out == ""


def test_tune_refuses_non_finite_system_scores(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, judgments: Path
) -> None:
    judgments.write_text('{"sysA": 1.0, "sysB": Infinity, "sysC": 0.5}', encoding="utf-8")
    code, out, err = run(capsys, *_tune(judgments, tmp_path), "--human-sys", str(judgments))
    one_line_error(code, err, str(judgments), "sysB", "not a finite number")
    judgments.write_text("{not json", encoding="utf-8")
    code, out, err = run(capsys, *_tune(judgments, tmp_path), "--human-sys", str(judgments))
    one_line_error(code, err, str(judgments), "invalid JSON")
    assert out == ""


@pytest.mark.parametrize("column", ["hyp", "ref"])
def test_jsonl_with_a_lone_surrogate_names_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, column: str
) -> None:
    path = tmp_path / "in.jsonl"
    good = {"hyp": "a b", "ref": "a \ud83d\ude00 b"}  # an escaped pair: one character
    bad = dict(good)
    bad[column] = "a \ud800 b"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "score", "-i", "jsonl", "-H", str(path), *LI)
    one_line_error(code, err, f"{path}, line 2", "surrogate")
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "score", "-i", "jsonl", "-H", str(path), *LI)
    assert code == 0, err
    assert "METEOR = " in out


def test_echoed_values_are_cut(capsys: pytest.CaptureFixture[str]) -> None:
    long = "x" * 10_000
    argv = ["score", "-H", str(EXAMPLES / "hyp.txt"), "-r", str(EXAMPLES / "ref.txt")]
    code, out, err = run(capsys, *argv, "--lang", long)
    one_line_error(code, err, "unknown language")
    assert long not in err and len(err) < 2_000
    assert out == ""
    done = command(*argv, *LI, env={**os.environ, "METEORX_ENGINE": long})
    one_line_error(done.returncode, done.stderr.decode(), "METEORX_ENGINE")
    assert len(done.stderr) < 300


@pytest.mark.parametrize("value", ["0", "false", "no", "FALSE", " 0 ", ""])
def test_trace_hooks_off_values(value: str) -> None:
    done = command("presets", env={**os.environ, "METEORX_TRACE_HOOKS": value})
    assert done.returncode == 0
    assert b"trace" not in done.stderr


def test_trace_hooks_on() -> None:
    done = command("presets", env={**os.environ, "METEORX_TRACE_HOOKS": "1"})
    assert b"meteorx: trace: " in done.stderr


def test_a_tsv_column_named_twice_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "in.tsv"
    path.write_text("hyp\tref\thyp\na b\ta c\ta d\n", encoding="utf-8")
    code, out, err = run(capsys, "score", "-i", "tsv", "-H", str(path), *LI)
    one_line_error(code, err, str(path), "'hyp'", "twice")
    assert out == ""


@pytest.mark.parametrize("codes", [["xx"], ["pt", "xx"]])
def test_languages_with_an_unknown_code_prints_nothing(
    capsys: pytest.CaptureFixture[str], codes: list[str]
) -> None:
    code, out, err = run(capsys, "languages", *codes)
    one_line_error(code, err, "unknown language 'xx'")
    assert out == ""
