"""``meteorx.spark`` on a local[2] Spark: same row scores and corpus score as ``Scorer``.

Skips, with the reason, when pyspark (``pip install "meteorx[spark]"``) or Java is
missing. Starting Spark takes several seconds; the tests share one session.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from meteorx.errors import ConfigError, InputError
from meteorx.metric import Scorer

pytestmark = [pytest.mark.slow, pytest.mark.data]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'meteorx[spark]')")
    if shutil.which("java") is None:
        pytest.skip("`java` not found on PATH (Spark needs a Java 17+ runtime)")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("meteorx-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def scorer() -> Scorer:
    return Scorer("li", language="en", normalize="lower")


def test_rows_and_corpus_equal_the_scorer(
    spark: Any, scorer: Scorer, xray: dict[str, list[str]]
) -> None:
    from meteorx.spark import score

    hyps, refs = xray["system1"], xray["ref"]
    df = spark.createDataFrame(
        list(enumerate(zip(hyps, refs, strict=True))), "id long, pair struct<h:string,r:string>"
    ).selectExpr("id", "pair.h as hypothesis", "pair.r as reference")
    df = df.repartition(4)
    result = score(df, "hypothesis", "reference", config="li", language="en", normalize="lower")
    want = scorer.corpus(hyps, refs)
    rows = result.rows.orderBy("id").select("meteor", "meteor_stats").collect()
    result.rows.unpersist()
    assert len(rows) == len(hyps) == 2489
    assert [r.meteor for r in rows] == [s.score for s in want.segments]
    assert [list(r.meteor_stats) for r in rows] == [s.stats.to_list() for s in want.segments]
    assert result.stats == want.stats
    assert result.score == want.score
    assert result.signature.endswith(f"|refs:1|version:{want.signature.split(':')[-1]}")


def test_several_references_and_nulls(
    spark: Any, scorer: Scorer, xray: dict[str, list[str]]
) -> None:
    from meteorx.spark import score

    n = 300
    data: list[tuple[int, str | None, list[str] | None]] = [
        (i, xray["system1"][i], [xray["ref"][i], xray["system2"][i]]) for i in range(n)
    ]
    data += [(n, None, ["a reference"]), (n + 1, "no references", None), (n + 2, "empty", [])]
    df = spark.createDataFrame(data, "id long, hypothesis string, references array<string>")
    result = score(df, config="li", language="en", normalize="lower")
    rows = {r.id: r for r in result.rows.collect()}
    result.rows.unpersist()
    want = scorer.corpus(
        [xray["system1"][i] for i in range(n)] + [""],
        [[xray["ref"][i], xray["system2"][i]] for i in range(n)] + [["a reference"]],
    )
    assert [rows[i].meteor for i in range(n + 1)] == [s.score for s in want.segments]
    assert rows[n].meteor == 0.0  # a null hypothesis is an empty one
    assert rows[n + 1].meteor is None and rows[n + 1].meteor_stats is None
    assert rows[n + 2].meteor is None
    assert result.stats == want.stats
    assert result.score == want.score
    assert "|refs:2|" in result.signature


def test_bad_columns_and_config(spark: Any) -> None:
    from meteorx.spark import score_rows

    df = spark.createDataFrame([("a", 1)], "hypothesis string, references int")
    with pytest.raises(InputError, match="no column 'hyp'"):
        score_rows(df, "hyp", "references", config="li", language="en")
    with pytest.raises(InputError, match="string or an array of strings"):
        score_rows(df, config="li", language="en")
    good = spark.createDataFrame([("a", "a")], "hypothesis string, references string")
    with pytest.raises(ConfigError, match="unknown preset"):
        score_rows(good, config="nope")


def test_mean_system_score_configuration(spark: Any, xray: dict[str, list[str]]) -> None:
    from meteorx.spark import score

    hyps, refs = xray["system1"][:60], xray["ref"][:60]
    df = spark.createDataFrame(
        list(zip(hyps, refs, strict=True)), "hypothesis string, references string"
    )
    result = score(df, config="nltk")
    result.rows.unpersist()
    want = Scorer("nltk").corpus(hyps, refs)
    assert result.stats == want.stats
    assert result.score == pytest.approx(want.score, abs=1e-12)  # a mean: order may differ


@pytest.fixture(scope="module")
def job_inputs(tmp_path_factory: pytest.TempPathFactory, xray: dict[str, list[str]]) -> Any:
    """1,000 xray lines: two systems and two references, as text files."""
    folder = tmp_path_factory.mktemp("spark-job")
    n = 1000
    parts = {
        "hyp1": xray["system1"][:n],
        "hyp2": xray["system2"][:n],
        "ref": xray["ref"][:n],
        "ref2": xray["system2"][n : 2 * n],
    }
    for name, lines in parts.items():
        (folder / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("preset", ["li", "meteorx", None])
def test_job_equals_meteorx_score(
    spark: Any, job_inputs: Any, tmp_path: Any, capsys: Any, preset: str | None
) -> None:
    """``python -m meteorx.spark`` (in this process, on the test's local[2] session):
    the JSON of ``meteorx score`` without its segments, and the same segments in the
    per-row output, for li (whole statistics), meteorx (fractional: soft credit) and
    the English default (meteor-1.5-en with -norm)."""
    import json
    import subprocess
    import sys

    import pyarrow.parquet as pq

    from meteorx.spark.job import main

    if preset is None:
        from tests.conftest import full_english_missing

        if full_english_missing():
            pytest.skip(str(full_english_missing()))
    names = [("--hyp", "hyp1"), ("--hyp", "hyp2"), ("--ref", "ref"), ("--ref", "ref2")]
    data = [x for flag, name in names for x in (flag, str(job_inputs / f"{name}.txt"))]
    data += ["--preset", preset, "--lang", "en"] if preset else []
    rows = tmp_path / "rows"
    assert main([*data, "--master", "local[2]", "--format", "json", "--rows", str(rows)]) == 0
    got = json.loads(capsys.readouterr().out)
    want = subprocess.run(
        [sys.executable, "-m", "meteorx", "score", "--quiet", *data, "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    expected = json.loads(want)
    segments = {s["hyp"]: s.pop("segments") for s in expected["systems"]}
    assert got == expected
    table = {(r["system"], r["segment"]): r for r in pq.read_table(rows).to_pylist()}
    assert len(table) == 2000
    for system, items in segments.items():
        for item in items:
            row = table[(system, str(item["segment"]))]
            assert (row["score"], row["stats"]) == (item["score"], item["stats"])


def test_job_errors_are_one_line(spark: Any, job_inputs: Any, tmp_path: Any, capsys: Any) -> None:
    from meteorx.spark.job import main

    short = tmp_path / "short.txt"
    short.write_text("one line\n", encoding="utf-8")
    hyp = str(job_inputs / "hyp1.txt")
    cases = [
        (["--hyp", hyp, "--ref", str(short)], "has 1000 lines but"),
        (["--hyp", hyp], "text input needs --ref"),
        (["--hyp", str(tmp_path / "nope.txt"), "--ref", hyp], "file not found"),
        (["--input-format", "parquet", "--hyp", str(short), "--ref", hyp], "--ref-column"),
        (["--hyp", hyp, "--ref", hyp, "--preset", "nope"], "unknown preset"),
    ]
    for args, message in cases:
        assert main([*args, "--master", "local[2]"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("meteorx: error:"), err
        assert message in err[0]
