"""Documentation meta-tests: every hook is documented, and every command in the README
runs as written.

The README is read when the tests are collected: each logical line of its ``bash``
blocks, each ``python`` block and each shown ``$ meteorx ...`` session is one test,
run in a scratch folder holding ``examples/`` and ``configs/`` (and the files the README
shows in ``yaml`` blocks named by their first comment, such as ``my-metric.yaml``),
with this interpreter's ``bin`` folder first on ``PATH``. The commands not run are
listed in ``NOT_RUN`` with the reason. A command failing because WordNet, the jar or
the paraphrase table is not installed skips (see ``tests/conftest.py``).
"""

from __future__ import annotations

import inspect
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from meteorx import hookspecs
from tests.conftest import STRICT, missing_resources, unavailable

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

#: README commands the tests do not run, and why (matched at the start of the command).
NOT_RUN: dict[str, str] = {
    r"pip install\b": "installs packages: what the test environment was made with",
    r"python -m pytest\b": "runs this test suite itself",
    r"(ruff|mypy)\b": "development checks over the whole tree: CI (.ci/run) runs them",
    r"spark-submit\b": "needs a Spark cluster (tests/test_spark_cluster.py starts one and "
    "submits the job to it when pyspark and Java are installed)",
    r"meteorx resources install\b": "installs resources into the user's data folder",
}


class Snippet(NamedTuple):
    """One runnable piece of the README."""

    kind: str  # "bash", "python" or "session" ($ command, then its exact output)
    line: int  # line of the README where it starts
    text: str
    output: str = ""


def _readme_snippets(text: str) -> list[Snippet]:
    snippets: list[Snippet] = []
    for block in re.finditer(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M):
        lang, body = block.group(1), block.group(2)
        first = text.count("\n", 0, block.start()) + 2  # the block's first line
        if lang == "bash":
            logical = ""
            for offset, raw in enumerate(body.splitlines()):
                if not logical:
                    start = first + offset
                logical += raw
                if logical.endswith("\\"):  # a continued line
                    logical = logical[:-1]
                    continue
                if logical.strip() and not logical.lstrip().startswith("#"):
                    snippets.append(Snippet("bash", start, logical.strip()))
                logical = ""
        elif lang == "python":
            snippets.append(Snippet("python", first, body))
        elif not lang and body.startswith("$ meteorx "):
            command, _, output = body.partition("\n")
            snippets.append(Snippet("session", first, command[2:], output))
    return snippets


def _named_files(text: str) -> dict[str, str]:
    """The README's ``yaml`` blocks whose first line names a file (``# my-metric.yaml``)."""
    files = {}
    for block in re.finditer(r"^```yaml\n# ([\w.-]+\.yaml)\n(.*?)^```", text, flags=re.S | re.M):
        files[block.group(1)] = block.group(2)
    return files


def _not_run(snippet: Snippet) -> str | None:
    if snippet.kind != "bash":
        return None
    return next((why for rx, why in NOT_RUN.items() if re.match(rx, snippet.text)), None)


SNIPPETS = _readme_snippets(README.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder laid out like a checkout, for the README's relative paths."""
    folder = tmp_path_factory.mktemp("readme")
    for name in ("examples", "configs"):
        shutil.copytree(REPO / name, folder / name)
    for name, body in _named_files(README.read_text(encoding="utf-8")).items():
        (folder / name).write_text(body, encoding="utf-8")
    return folder


def _run_snippet(snippet: Snippet, folder: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("METEORX_PLUGINS", None)
    if snippet.kind == "python":
        argv = [sys.executable, "-c", snippet.text]
    else:
        argv = ["bash", "-c", snippet.text]
    return subprocess.run(
        argv, cwd=folder, env=env, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.parametrize(
    "snippet", SNIPPETS, ids=[f"L{s.line}-{s.kind}-{s.text.split()[0]}" for s in SNIPPETS]
)
def test_readme_command_runs_as_written(snippet: Snippet, scratch: Path) -> None:
    reason = _not_run(snippet)
    if reason:
        pytest.skip(f"README line {snippet.line} not run: {reason}")
    done = _run_snippet(snippet, scratch)
    if done.returncode != 0:
        missing = missing_resources()
        if missing and not STRICT and "install" in done.stderr:
            error = done.stderr.strip().splitlines()[-1]  # the message, not a traceback
            unavailable(f"README line {snippet.line}: {error}")
        pytest.fail(
            f"README line {snippet.line} failed (exit {done.returncode}):\n{snippet.text}\n"
            f"--- stdout ---\n{done.stdout}\n--- stderr ---\n{done.stderr}",
            pytrace=False,
        )
    if snippet.kind == "session":
        assert done.stdout == snippet.output, f"README line {snippet.line}: output differs"


def test_readme_has_commands_of_every_kind() -> None:
    """The parser finds the README's commands (a guard against a silent empty test)."""
    kinds = {s.kind for s in SNIPPETS}
    assert kinds == {"bash", "python", "session"}
    assert sum(s.kind == "bash" and _not_run(s) is None for s in SNIPPETS) >= 10
    assert "my-metric.yaml" in _named_files(README.read_text(encoding="utf-8"))


def _hook_names() -> list[str]:
    return [name for name, _ in inspect.getmembers(hookspecs) if name.startswith("meteorx_")]


def test_every_hook_has_a_documentation_heading() -> None:
    text = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^### (meteorx_\w+)\(register\)$", text, flags=re.M))
    assert set(_hook_names()) == headings


def test_every_hook_has_a_docstring_and_types() -> None:
    for name in _hook_names():
        func = getattr(hookspecs, name)
        assert func.__doc__ and ":param register:" in func.__doc__
        assert list(inspect.signature(func).parameters) == ["register"]


def test_readme_quick_start_scoring_command_runs() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Quick start\s+```bash\n(.*?)```", readme, flags=re.S)
    assert block
    lines = [ln.split("#")[0].strip() for ln in block.group(1).splitlines()]
    score = next(ln for ln in lines if ln.startswith("meteorx score"))
    args = shlex.split(score)[1:]
    out = subprocess.run(
        [sys.executable, "-m", "meteorx", *args],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "METEOR = " in out
    shown = re.search(r"prints one score per segment.*?```\n(.*?)```", readme, flags=re.S)
    assert shown
    assert out.strip() == shown.group(1).strip().replace("version:0.1.0", f"version:{_version()}")


def _version() -> str:
    import meteorx

    return meteorx.__version__


def test_every_public_name_resolves() -> None:
    """``meteorx.__all__`` names only things ``import meteorx`` really provides."""
    import meteorx

    for name in meteorx.__all__:
        assert getattr(meteorx, name) is not None, name
    assert meteorx.MeteorConfig.__name__ == "MeteorConfig"


def test_presets_are_described_by_whole_sentences(capsys: pytest.CaptureFixture[str]) -> None:
    """``meteorx presets`` shows each preset's first sentence, never a cut one."""
    from importlib import resources

    from meteorx.cli.info_cmd import _description
    from meteorx.cli.main import main

    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    entries = re.split(r"\n(?=\S)", out.strip())
    files = resources.files("meteorx.configs")
    assert len(entries) >= 20
    for entry in entries:
        name, shown = entry.split(None, 1)
        shown = " ".join(shown.split())  # undo the wrapping
        header = " ".join(
            ln[1:].strip()
            for ln in files.joinpath(f"{name}.yaml").read_text("utf-8").splitlines()
            if ln.startswith("#")
        )
        assert shown == _description(files.joinpath(f"{name}.yaml").read_text("utf-8"))
        assert header.startswith(shown), name
    assert _description("# One. Two.\n# Three.\nx: 1\n") == "One."
    assert _description("# Uses e.g. stems. More.\n") == "Uses e.g. stems."
    assert _description("# Meteor 1.5 English tuned on WMT21\n#\n# Written by...\n") == (
        "Meteor 1.5 English tuned on WMT21"
    )
