"""The writers' texts: the JSON output is ``json.dump``'s text of the documented document,
a statistics file's numbers are the numbers.

:func:`~meteorx.formats.write_json` formats the segments one by one instead of handing
one big dict to ``json``. These tests build the document independently, from the
report's objects, and require the writer's text to be exactly ``json.dumps(document,
ensure_ascii=False)``: the same keys in the same order, the same numbers (every float
parses back to itself), non-ASCII text unescaped.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meteorx.cli.main import main
from meteorx.formats import Report, Scored, ScoredSystem, write_json, write_stats
from meteorx.scoring import Breakdown, Parameters
from meteorx.significance import Interval, PairedResult
from meteorx.stats import Stats

PARAMS = Parameters(alpha=0.85, beta=0.2, gamma=0.6, delta=0.75, weights=(1.0, 0.6))
STAGES = ["exact", "stem"]


# -- an independent reference -------------------------------------------------------


def row(s: Stats) -> list[Any]:
    """A statistics row as the output documents it (7 + 4 x stages numbers)."""
    out: list[Any] = [s.hyp_len, s.ref_len, s.hyp_function, s.ref_function]
    for i in range(len(s.hyp_content_matches)):
        out += [
            s.hyp_content_matches[i],
            s.ref_content_matches[i],
            s.hyp_function_matches[i],
            s.ref_function_matches[i],
        ]
    return [*out, s.chunks, s.hyp_matched_words, s.ref_matched_words]


def numbers(b: Breakdown) -> dict[str, Any]:
    def undefined_is_null(x: float) -> float | None:
        return None if math.isnan(x) else x

    return {
        "score": b.score,
        "precision": b.precision,
        "recall": b.recall,
        "fmean": b.fmean,
        "fragmentation": undefined_is_null(b.fragmentation),
        "penalty": undefined_is_null(b.penalty),
    }


def interval(iv: Interval) -> dict[str, Any]:
    return {
        "mean": iv.mean,
        "lower": iv.lower,
        "upper": iv.upper,
        "half_width": iv.half_width,
        "level": 0.95,
        "n_bootstrap": iv.n_samples,
        "seed": iv.seed,
    }


def expected_document(report: Report, system_only: bool = False) -> dict[str, Any]:
    def system(s: ScoredSystem) -> dict[str, Any]:
        head = {**numbers(s.system.breakdown), "stats": row(s.system.stats)}
        if s.interval is not None:
            head["confidence"] = interval(s.interval)
        data: dict[str, Any] = {"hyp": s.name, "system": head}
        if s.comparison is not None:
            c = s.comparison
            data["comparison"] = {
                "baseline": report.systems[0].name,
                "test": "paired-bs" if c.test == "bs" else "paired-ar",
                "delta": c.delta,
                "p_value": c.p_value,
                "n_samples": c.n_samples,
                "seed": c.seed,
            }
            if c.interval is not None:
                data["comparison"]["confidence"] = interval(c.interval)
        if s.documents is not None:
            data["documents"] = [
                {"document": d, **numbers(sc.breakdown), "stats": row(sc.stats)}
                for d, sc in s.documents
            ]
        if system_only:
            return data
        segments = []
        for i, seg in enumerate(s.segments):
            item: dict[str, Any] = {"segment": i + 1, **numbers(seg.breakdown)}
            if report.docs is not None:
                item["document"] = report.docs[i]
            if report.seg_ids[i] != str(i + 1):
                item["id"] = report.seg_ids[i]
            if s.chunks is not None:
                item["chunks"] = s.chunks[i]
            if s.ref_index is not None:
                item["ref_index"] = s.ref_index[i]
            item["stats"] = row(seg.stats)
            segments.append(item)
        data["segments"] = segments
        return data

    doc: dict[str, Any] = (
        system(report.systems[0])
        if len(report.systems) == 1
        else {"systems": [system(s) for s in report.systems]}
    )
    if report.significance:
        doc["significance"] = report.significance
    doc["parameters"] = {
        "alpha": PARAMS.alpha,
        "beta": PARAMS.beta,
        "gamma": PARAMS.gamma,
        "delta": PARAMS.delta,
        "weights": list(PARAMS.weights),
        "stages": STAGES,
        "perfect_match_rule": PARAMS.perfect_match_rule,
        "fmean": PARAMS.fmean_form,
    }
    doc["signature"] = report.signature
    return doc


# -- reports ------------------------------------------------------------------------


def stats(hyp: Any = 5, matches: Any = 3.0, chunks: Any = 2) -> Stats:
    return Stats(
        hyp_len=hyp,
        ref_len=6,
        hyp_function=1,
        ref_function=2,
        hyp_content_matches=(matches, 0.0),
        ref_content_matches=(matches, 1.0),
        hyp_function_matches=(1.0, 0.0),
        ref_function_matches=(1.0, 0.0),
        chunks=chunks,
        hyp_matched_words=4,
        ref_matched_words=5,
    )


def breakdown(score: Any = 0.5625, fragmentation: Any = 0.25, penalty: Any = 0.1) -> Breakdown:
    return Breakdown(
        precision=0.8,
        recall=2 / 3,
        fmean=0.7272727272727273,
        fragmentation=fragmentation,
        penalty=penalty,
        score=score,
    )


def report(
    segments: list[Scored],
    names: tuple[str, ...] = ("système",),
    seg_ids: list[str] | None = None,
    docs: list[str] | None = None,
    details: bool = True,
) -> Report:
    n = len(segments)
    systems = [
        ScoredSystem(
            name=name,
            system=Scored(breakdown(0.125), stats(10, 6.0, 3)),
            segments=segments,
            documents=[(d, Scored(breakdown(), stats())) for d in dict.fromkeys(docs)]
            if docs is not None
            else None,
            chunks=[k % 3 for k in range(n)] if details else None,
            ref_index=[k % 2 for k in range(n)] if details else None,
        )
        for name in names
    ]
    return Report(
        systems=systems,
        signature="nrefs:1|case:mixed|tok:13a|ω|version:1.0",
        seg_ids=seg_ids if seg_ids is not None else [str(k + 1) for k in range(n)],
        docs=docs,
        setid=None,
        params=PARAMS,
        stage_names=STAGES,
    )


def written(r: Report, system_only: bool = False) -> str:
    out = io.StringIO()
    write_json(r, out, system_only=system_only)
    return out.getvalue()


def assert_as_json_writes(r: Report, system_only: bool = False) -> None:
    want = expected_document(r, system_only)
    text = written(r, system_only)
    assert text == json.dumps(want, ensure_ascii=False) + "\n"
    if "NaN" not in text and "Infinity" not in text:
        assert json.loads(text) == want


SEGMENTS = [
    Scored(breakdown(), stats()),
    Scored(breakdown(0.0, math.nan, math.nan), stats(3, 0.0, 0)),  # nothing matched
    Scored(breakdown(1.0, 0.0, 0.0), stats(7, 7.0, 1)),
    Scored(breakdown(1e-05, 1e-300, 5e-324), stats(2**60, 0.1 + 0.2, 1)),
    Scored(breakdown(-0.0, -0.0, 0.25), stats(0, -0.0, 0)),  # after 0.0: still -0.0
    Scored(breakdown(), stats()),  # the same numbers again
]


@pytest.mark.parametrize("system_only", [False, True])
@pytest.mark.parametrize("details", [False, True])
@pytest.mark.parametrize(
    ("seg_ids", "docs"),
    [
        (None, None),
        (["a", "2", "ü-3", '"4"\t\\', "5", "6"], None),
        (None, ["doc-ä", "doc-ä", "文書", "d\n", "e", "doc-ä"]),
    ],
)
def test_the_text_is_json_dumps_of_the_document(
    seg_ids: list[str] | None, docs: list[str] | None, details: bool, system_only: bool
) -> None:
    r = report(SEGMENTS, seg_ids=seg_ids, docs=docs, details=details)
    assert_as_json_writes(r, system_only)


def test_several_systems_with_significance() -> None:
    iv = Interval(score=0.5, mean=0.49, lower=0.41, upper=0.58, n_samples=100, seed=12)
    r = report(SEGMENTS, names=("base", "système B", "c"), docs=["x", "y", "y", "z", "z", "x"])
    r.systems[0].interval = iv
    r.systems[1].comparison = PairedResult(0.5, 0.55, 0.03, "bs", 100, 12, iv, iv)
    r.systems[2].comparison = PairedResult(0.5, 0.45, 0.9, "ar", 50, 12)
    r.significance = {"test": "paired-bs", "baseline": "base", "n_samples": 100, "seed": 12}
    for system_only in (False, True):
        assert_as_json_writes(r, system_only)
    assert "système B" in written(r)  # UTF-8 as it is, not \u escapes


def test_no_segments() -> None:
    assert_as_json_writes(report([]))
    assert json.loads(written(report([])))["segments"] == []


class Count(int):
    def __repr__(self) -> str:
        return f"Count({int(self)})"


class Ratio(float):
    def __repr__(self) -> str:
        return f"Ratio({float(self)})"


def test_values_json_writes_its_own_way() -> None:
    """NaN and infinities (json's NaN, Infinity), booleans and other number types:
    whatever ``json`` writes for them."""
    np = pytest.importorskip("numpy")
    odd = [
        Scored(breakdown(math.nan), stats()),
        Scored(breakdown(fragmentation=math.inf, penalty=-math.inf), stats()),
        Scored(breakdown(), stats(matches=math.inf)),
        Scored(breakdown(np.float64(0.1)), stats(hyp=np.float64(3.0))),
        Scored(breakdown(Ratio(0.5)), stats(hyp=True, chunks=Count(2))),
        Scored(breakdown(1, 0, 0), stats()),  # an int in the breakdown
        Scored(breakdown(), stats()),
    ]
    assert_as_json_writes(report(odd, details=False))


finite = st.floats(allow_nan=False, allow_infinity=False)
anything = st.floats() | st.integers(-(2**70), 2**70)


@settings(max_examples=300, deadline=None)
@given(
    score=finite,
    fragmentation=st.floats(allow_infinity=False),
    counts=st.lists(anything, min_size=5, max_size=5),
)
def test_numbers_parse_back_to_themselves(
    score: float, fragmentation: float, counts: list[Any]
) -> None:
    seg = Scored(
        breakdown(score, fragmentation, -score),
        stats(counts[0], counts[1], counts[2]),
    )
    other = Scored(breakdown(counts[3], score), stats(counts[4]))
    r = report([seg, other])
    assert_as_json_writes(r)
    got = json.loads(written(r))["segments"][0]
    assert float.hex(got["score"]) == float.hex(score)  # -0.0 and subnormals too
    assert float.hex(got["penalty"]) == float.hex(-score)
    if math.isnan(fragmentation):
        assert got["fragmentation"] is None
    else:
        assert float.hex(got["fragmentation"]) == float.hex(fragmentation)
    assert got["stats"][0] == counts[0] or math.isnan(counts[0])
    assert type(got["stats"][0]) is type(counts[0])  # 3 stays 3, 3.0 stays 3.0


def test_the_command_line_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyp = tmp_path / "h.txt"
    hyp.write_text("the cat sat on the mat\nzebra\nnaïve café\n", encoding="utf-8")
    ref = tmp_path / "r.txt"
    ref.write_text("the cat sat on a mat\nthe dog\nnaïve cafés\n", encoding="utf-8")
    code = main(["score", "-H", str(hyp), "-r", str(ref), "-p", "li", "-l", "en", "-f", "json"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert json.dumps(data, ensure_ascii=False) + "\n" == out
    assert [s["segment"] for s in data["segments"]] == [1, 2, 3]
    assert data["segments"][1]["fragmentation"] is None
    assert data["segments"][0]["score"] > 0


# -- statistics files ---------------------------------------------------------------


STATS_TEXTS = [
    (3, "3"),
    (3.0, "3"),
    (True, "1"),
    (1.0, "1"),
    (0.0, "0"),
    (-0.0, "0"),
    (0.1 + 0.2, "0.30000000000000004"),
    (2.5, "2.5"),
    (10**20, "100000000000000000000"),
    (1e20, "100000000000000000000"),
    (2**53 + 1, "9007199254740993"),
    (float(2**53), "9007199254740992"),
    (1e-05, "1e-05"),
    (1 / 3, "0.3333333333333333"),
    (math.nan, "nan"),
]


def test_statistics_rows_hold_the_numbers(tmp_path: Path) -> None:
    """Integral counts are written as integers (``3``, not ``3.0``), others as the
    float's shortest text, whatever the number's type; equal numbers of different types
    (3 and 3.0, 0.0 and -0.0, 10**20 and 1e20) follow each other in one file."""
    r = report([Scored(breakdown(), stats(hyp=x)) for x, _ in STATS_TEXTS], details=False)
    path = tmp_path / "stats.tsv"
    with path.open("w", encoding="utf-8") as handle:
        write_stats(r, handle)
    lines = path.read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if not line.startswith("#")][1:]
    assert [row[3] for row in rows] == [text for _, text in STATS_TEXTS]
    assert {row[8] for row in rows} == {"3"}  # hyp_content_matches 3.0
