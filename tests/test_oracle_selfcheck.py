"""Self-checks for the Meteor 1.5 jar test oracle (tests/oracle/jar.py).

These check the *oracle*, not meteorx: that the jar is found, runs, and that
its output is parsed consistently across output modes. Tests that need the jar
are marked ``jar`` and skip with a clear reason when pycocoevalcap, java,
javac or the shared data are missing. Shared data is looked up in
``$METEORX_DATA`` or ``<repo>/../shared/data``.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[1]
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))

from tests.oracle import jar as oracle  # noqa: E402

DATA = Path(os.environ.get("METEORX_DATA", _REPO.parent / "shared" / "data"))
XRAY = DATA / "meteor15-examples"

# Canned jar output (`-l en -lower -m 'exact stem'` on the first two xray lines).
_CANNED = """Meteor version: 1.5

Eval ID:        meteor-1.5-wo-en-lc_only-0.85_0.2_0.6_0.75-ex_st-1.0_0.6

Language:       English
Format:         plaintext
Task:           Custom
Modules:        exact stem
Weights:        1.0 0.6
Parameters:     0.85 0.2 0.6 0.75

Segment 1 score:\t0.447752250844953
Segment 2 score:\t0.34501173255956885

System level statistics:


           Test Matches                  Reference Matches
Stage      Content  Function    Total    Content  Function    Total
1               42        37       79         42        37       79
2                1         0        1          1         0        1
Total           43        37       80         43        37       80

Test words:             124
Reference words:        122
Chunks:                 34
Precision:              0.6699186991869919
Recall:                 0.6242424242424243
f1:                     0.6462745098039216
fMean:                  0.630692690394183
Fragmentation penalty:  0.5056255791390839

Final score:            0.31179833355483727
"""


def _need_jar(*, javac: bool = False) -> None:
    reason = oracle.unavailable_reason(need_javac=javac)
    if reason:
        pytest.skip(reason)


def _need_xray() -> None:
    if not (XRAY / "xray.reference").is_file():
        pytest.skip(f"shared data not found at {XRAY} (set METEORX_DATA)")


def _head(src: Path, dst: Path, n: int) -> Path:
    lines = src.read_text(encoding="utf-8").split("\n")[:n]
    dst.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dst


def test_parse_output_canned() -> None:
    res = oracle.parse_output(_CANNED)
    assert res.segment_scores == [0.447752250844953, 0.34501173255956885]
    assert res.system_score == 0.31179833355483727
    assert res.header["Modules"] == "exact stem"
    assert res.header["Parameters"] == "0.85 0.2 0.6 0.75"
    assert res.system_stats["Chunks"] == 34
    assert res.stage_table["Total"] == (43, 37, 80, 43, 37, 80)
    with pytest.raises(oracle.JarError):
        oracle.parse_output(_CANNED.split("System level")[0])


@pytest.mark.jar
@pytest.mark.data
def test_run_jar_modes_agree(tmp_path: Path) -> None:
    _need_jar()
    _need_xray()
    hyp = _head(XRAY / "xray.system1.hyp", tmp_path / "hyp", 40)
    ref = _head(XRAY / "xray.reference", tmp_path / "ref", 40)
    other = _head(XRAY / "xray.system2.hyp", tmp_path / "other", 40)
    args = ["-l", "en", "-lower", "-m", "exact stem"]

    plain = oracle.run_jar(hyp, ref, args)
    assert len(plain.segment_scores) == 40
    assert all(0.0 <= s <= 1.0 for s in plain.segment_scores)
    assert 0.0 < plain.system_score < 1.0
    assert plain.header["Modules"] == "exact stem"

    verbose = oracle.run_jar(hyp, ref, [*args, "-vOut"])
    assert verbose.segment_scores == plain.segment_scores
    assert verbose.system_score == plain.system_score
    assert verbose.segment_verbose is not None and len(verbose.segment_verbose) == 40
    for v in verbose.segment_verbose:
        assert 0.0 <= v.precision <= 1.0 and 0.0 <= v.recall <= 1.0

    quiet = oracle.run_jar(hyp, ref, [*args, "-q"])
    assert quiet.segment_scores == plain.segment_scores
    assert quiet.system_score == plain.system_score

    ss = oracle.run_jar(hyp, ref, [*args, "-ssOut"])
    assert ss.sufficient_stats is not None and len(ss.sufficient_stats) == 40
    assert math.isnan(ss.system_score)
    # Summed sufficient statistics reproduce the system-level table.
    assert sum(s.test_length for s in ss.sufficient_stats) == plain.system_stats["Test words"]
    assert sum(s.ref_length for s in ss.sufficient_stats) == plain.system_stats["Reference words"]

    # Meteor 1.5 quirk (MeteorStats.addStats): a segment matched perfectly in
    # one chunk (all test and reference words matched, chunks == 1) adds 0
    # chunks to the aggregate, not 1.
    def perfect(s: oracle.SufficientStats) -> bool:
        return (
            s.test_word_matches == s.test_length
            and s.ref_word_matches == s.ref_length
            and s.chunks == 1
        )

    chunks = sum(0.0 if perfect(s) else s.chunks for s in ss.sufficient_stats)
    assert chunks == plain.system_stats["Chunks"]
    assert sum(s.stage(1)[0] for s in ss.sufficient_stats) == plain.stage_table["2"][0]

    # Multiple references: duplicating the reference changes nothing, and an
    # extra reference can only raise each segment's score (Meteor keeps the best).
    dup = oracle.run_jar(hyp, [ref, ref], args)
    assert dup.segment_scores == plain.segment_scores
    multi = oracle.run_jar(hyp, [other, ref], args)
    pairs = zip(multi.segment_scores, plain.segment_scores, strict=True)
    assert all(m >= p - 1e-12 for m, p in pairs)
    assert multi.system_score > plain.system_score

    # Second call is served from the disk cache (unless caching is disabled).
    again = oracle.run_jar(hyp, ref, args)
    assert again.segment_scores == plain.segment_scores
    if oracle.cache_dir() is not None:
        assert again.cached


@pytest.mark.jar
def test_run_jar_length_mismatch_raises(tmp_path: Path) -> None:
    _need_jar()
    (tmp_path / "h").write_text("a b\nc d\n", encoding="utf-8")
    (tmp_path / "r").write_text("a b\n", encoding="utf-8")
    with pytest.raises(oracle.JarError):
        oracle.run_jar(tmp_path / "h", tmp_path / "r", ["-l", "en", "-m", "exact"], use_cache=False)
    with pytest.raises(ValueError):
        oracle.run_jar(tmp_path / "h", [tmp_path / "r", tmp_path / "h"], ["-l", "en"])


@pytest.mark.jar
def test_function_words() -> None:
    if oracle.find_jar() is None:
        pytest.skip(oracle.unavailable_reason() or "jar not found")
    en = oracle.jar_function_words("english")
    assert en == oracle.jar_function_words("en")
    assert len(en) == 93 and en[:3] == ["the", ",", "."]
    assert oracle.jar_function_words("portuguese") == []  # empty list in Meteor 1.5
    with pytest.raises(KeyError):
        oracle.jar_function_words("klingon")


@pytest.mark.jar
def test_jar_stems() -> None:
    _need_jar(javac=True)
    assert oracle.jar_stems(["running", "Running", "generously", ""], "english") == [
        "run",
        "Run",  # Snowball does not lower-case
        "generous",
        "",
    ]
    assert oracle.jar_stems(["informação", "ações"], "pt") == ["inform", "açõ"]
    assert oracle.jar_stems([], "english") == []
    with pytest.raises(ValueError):
        oracle.jar_stems(["a\nb"], "english")
