"""Shared fixtures: where the evaluation data lives, and skip helpers.

Real data is never copied into the repository: tests read it from ``$METEORX_DATA``
or ``../shared/data`` beside the checkout, and skip with the reason when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METEORX_DATA", REPO.parent / "shared" / "data"))
XRAY = DATA / "meteor15-examples"


def require_data(*parts: str) -> Path:
    """Path under the shared data folder, or skip the test saying what is missing."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"evaluation data not found: {path} (set METEORX_DATA to the shared data folder)"
        )
    return path


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="session")
def xray() -> dict[str, list[str]]:
    """The Meteor 1.5 example data: reference and two systems, 2,489 lines each."""
    base = require_data("meteor15-examples")
    return {
        "ref": read_lines(base / "xray.reference"),
        "system1": read_lines(base / "xray.system1.hyp"),
        "system2": read_lines(base / "xray.system2.hyp"),
    }
