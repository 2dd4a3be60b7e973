"""Progress bars for long scoring runs: tqdm on stderr when it is a terminal, else silent."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

__all__ = ["Progress", "progress_bar", "silent"]


class Progress(Protocol):
    """What the scoring loops need from a progress bar."""

    def update(self, n: int = 1) -> Any: ...


class _Silent:
    def update(self, n: int = 1) -> None:
        return None


#: A progress bar that shows nothing.
silent: Progress = _Silent()


@contextmanager
def progress_bar(
    total: int, description: str = "scoring", enabled: bool | None = None, unit: str = "seg"
) -> Iterator[Progress]:
    """A tqdm progress bar on stderr, or a silent stand-in.

    ``enabled=None`` (the default) shows the bar only when stderr is a terminal; the
    bar itself appears only once the run has lasted two seconds, so quick runs stay
    silent. ``enabled=False`` (``--quiet``) never shows it.
    """
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield silent
        return
    try:
        tqdm: Any = importlib.import_module("tqdm").tqdm
    except ImportError:  # tqdm is optional at run time
        yield silent
        return
    # No monitor thread: worker processes are forked while the bar is shown.
    bar_class = type("MeteorxBar", (tqdm,), {"monitor_interval": 0})
    bar = bar_class(
        total=total,
        desc=description,
        unit=unit,
        file=sys.stderr,
        delay=2.0,
        dynamic_ncols=True,
        leave=False,
    )
    try:
        yield bar
    finally:
        bar.close()
