"""Which of meteorx's modules one command executes, traced.

Runs ``meteorx ARGS`` in this process under a call tracer and reports every module of
``meteorx`` and ``meteorx_plugins`` whose code ran (not merely imported: a module counts
when one of its functions or methods was called), in order of first use, and
the number of switches between modules (a call from one module into another, or a
return to it). The input files are made up of ten xray lines.

    python benchmarks/trace_modules.py --lang pt
    python benchmarks/trace_modules.py --preset meteor-1.5-en

``--lang pt`` needs the Portuguese wordnet (``METEORX_OMW_DIR`` or the shared data's
``omw/`` folder, found as the tests find it).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import DATA, XRAY  # noqa: E402

OURS = ("meteorx", "meteorx_plugins")


def trace(argv: list[str]) -> tuple[list[str], int]:
    """(modules in order of first use, switches between modules) of ``meteorx argv``."""
    from meteorx.cli.main import main

    order: dict[str, None] = {}
    switches = 0
    last: str | None = None

    def tracer(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal switches, last
        if event not in ("call", "return"):
            return
        if event == "return":
            back = frame.f_back
            if back is None:
                return
            frame = back
        name = frame.f_globals.get("__name__", "")
        if name.split(".")[0] not in OURS:
            return
        order.setdefault(name, None)
        if name != last:
            if last is not None:
                switches += 1
            last = name

    sys.setprofile(tracer)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
    finally:
        sys.setprofile(None)
    if code != 0:
        raise SystemExit(f"meteorx {' '.join(argv)} exited {code}")
    return list(order), switches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang")
    parser.add_argument("--preset")
    parser.add_argument("--list", action="store_true", help="print the modules too")
    args = parser.parse_args()
    if (DATA / "omw").is_dir():
        os.environ.setdefault("METEORX_OMW_DIR", str(DATA / "omw"))
    lines = (XRAY / "xray.system1.hyp").read_text(encoding="utf-8").splitlines()[:10]
    refs = (XRAY / "xray.reference").read_text(encoding="utf-8").splitlines()[:10]
    with tempfile.TemporaryDirectory() as tmp:
        hyp, ref = Path(tmp) / "hyp.txt", Path(tmp) / "ref.txt"
        hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
        ref.write_text("\n".join(refs) + "\n", encoding="utf-8")
        argv = ["score", "--quiet", "-H", str(hyp), "-r", str(ref)]
        if args.lang:
            argv += ["--lang", args.lang]
        if args.preset:
            argv += ["--preset", args.preset]
        modules, switches = trace(argv)
    core = [m for m in modules if m.split(".")[0] == "meteorx"]
    plugins = [m for m in modules if m.split(".")[0] == "meteorx_plugins"]
    command = " ".join(argv[argv.index("-r") + 2 :])
    print(f"meteorx score {command}: {len(modules)} modules executed ({len(core)} core, "
          f"{len(plugins)} plugin), {switches} switches between modules")  # fmt: skip
    if args.list:
        for name in modules:
            print(f"  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
