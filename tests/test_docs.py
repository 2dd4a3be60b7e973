"""Documentation meta-tests: every hook is documented, and the README quick start runs."""

from __future__ import annotations

import inspect
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from meteorx import hookspecs

REPO = Path(__file__).resolve().parents[1]


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
