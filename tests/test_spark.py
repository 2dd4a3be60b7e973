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
from meteorx.scorer import Scorer

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


def test_stats_sum() -> None:
    from meteorx.spark import stats_sum

    assert stats_sum([[1.0, 2.0], [3.0, 4.0, 5.0]]) == [4.0, 6.0, 5.0]
    assert stats_sum([]) == []


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
