"""The HTML report: self-contained, and rendered correctly by a real headless browser.

The browser test needs Debian's ``chromium`` (``apt-get install -y chromium``); it is
skipped, saying so, when no chromium binary is found.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from meteorx.cli.main import main
from meteorx.report import histogram_svg

REPO = Path(__file__).resolve().parents[1]
HYP = REPO / "examples" / "hyp.txt"
REF = REPO / "examples" / "ref.txt"


def _systems(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two systems over the example references; the second is better on two lines."""
    refs = REF.read_text().splitlines()
    hyps = HYP.read_text().splitlines()
    better = [refs[0], hyps[1], refs[2].replace("fox", "foxes"), hyps[3]]
    worse = [" ".join(reversed(h.split())) for h in hyps]
    a, b, r = tmp_path / "sysA.txt", tmp_path / "sysB.txt", tmp_path / "ref.txt"
    a.write_text("\n".join(worse) + "\n")
    b.write_text("\n".join(better) + "\n")
    r.write_text("\n".join(refs) + "\n")
    return a, b, r


@pytest.fixture
def report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    a, b, r = _systems(tmp_path)
    out = tmp_path / "report.html"
    code = main(
        [
            "report",
            "-H",
            str(a),
            "-H",
            str(b),
            "-r",
            str(r),
            "-p",
            "li",
            "-l",
            "en",
            "--norm",
            "lower",
            "-o",
            str(out),
            "--n-bootstrap",
            "200",
            "--expanded",
            "3",
            "--title",
            "demo <report>",
        ]
    )
    assert code == 0
    assert "wrote" in capsys.readouterr().err
    return out


def test_report_is_self_contained(report: Path) -> None:
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # Nothing is fetched: no external scripts, styles, images or fonts.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "@import" not in page and "url(" not in page
    assert "<title>demo &lt;report&gt;</title>" in page
    for marker in ('id="systems"', 'class="histogram"', 'class="scatter"', 'id="report-data"'):
        assert marker in page
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', page, re.S).group(1))  # type: ignore[union-attr]
    assert data["stages"] == ["exact", "stem"]
    assert len(data["segments"]) == 4 and len(data["segments"][0]["sys"]) == 2
    assert "|bs:200|seed:12345|" in page


def test_report_follows_the_nltk_presets_mean_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report's system score is the one ``meteorx score`` reports (under the nltk
    preset: the mean of segment scores), and its interval is resampled the same way."""
    a, _, r = _systems(tmp_path)
    out = tmp_path / "nltk.html"
    common = ["-H", str(a), "-r", str(r), "-p", "nltk", "-l", "en"]
    assert main(["report", *common, "-o", str(out), "--n-bootstrap", "100"]) == 0
    assert main(["score", *common, "-f", "json"]) == 0
    system = json.loads(capsys.readouterr().out)  # (one system: its object is the top level)
    scores = [seg["score"] for seg in system["segments"]]
    assert system["system"]["score"] == pytest.approx(sum(scores) / len(scores), abs=1e-12)
    cells = re.findall(r'<td class="num score">([0-9.]+)</td>', out.read_text(encoding="utf-8"))
    assert cells[0] == f"{system['system']['score']:.4f}"


def test_histogram_counts() -> None:
    svg = histogram_svg(["a"], [[0.0, 0.01, 0.99, 1.0]], bins=2)
    assert svg.count('class="hist-series"') == 1 and svg.startswith("<svg")


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no headless browser: install Debian's chromium (apt-get install -y chromium)")


def _browser(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--window-size=1200,2000",
        "--virtual-time-budget=5000",
        *extra,
        url,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)


@pytest.mark.slow
def test_report_renders_in_a_headless_browser(report: Path, tmp_path: Path) -> None:
    url = report.resolve().as_uri()
    dom = _browser(url, tmp_path / "profile-dom", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert 'data-ready="1"' in html  # the script ran to the end
    # The script built the segment table and the expanded alignment grids.
    assert len(re.findall(r'<tr class="seg-row"', html)) == 4
    assert len(re.findall(r'<tr class="detail"', html)) == 3
    assert len(re.findall(r'<table class="grid"', html)) == 6  # 3 segments x 2 systems
    assert re.search(r'<td class="m s0" title="[^"]+ \(exact\)"', html)
    assert re.search(r'<td class="m s1" title="[^"]+ \(stem\)"', html)  # foxes ~ fox
    assert "showing 4 of 4 segments" in html
    # Sorted by the score difference, largest first: the line the second system got
    # exactly right (line 1) comes first.
    first_row = re.search(r'<tr class="seg-row" data-segment="(\d+)"', html)
    assert first_row is not None and first_row.group(1) == "1"

    png = tmp_path / "report.png"
    shot = _browser(url, tmp_path / "profile-png", f"--screenshot={png}")
    assert shot.returncode == 0, shot.stderr[-2000:]
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1200, 2000)
    assert len(data) > 20_000  # a rendered page, not a blank one
