"""Documentation meta-tests: every hook is documented, and the README quick start runs."""

from __future__ import annotations

import inspect
import re
import shlex
import subprocess
import sys
from pathlib import Path

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
