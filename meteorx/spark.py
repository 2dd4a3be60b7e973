"""Scoring a Spark DataFrame in parallel: per-row scores and the exact corpus score.

Needs ``pyspark`` (``pip install "meteorx[spark]"``) and pandas/pyarrow (pulled in by it).

>>> from meteorx.spark import score                                    # doctest: +SKIP
>>> result = score(df, "hypothesis", "references", config="li", language="de")
>>> result.rows.select("id", "meteor").show()                          # per-row scores
>>> result.score, result.signature                                     # corpus score

Each row is scored by a vectorised (pandas) UDF. The scorer is built once per Python
worker process on each executor (Spark reuses its Python workers, so once per executor
core in practice) from the validated configuration shipped with the task, and reused
for every batch that worker gets. Every row also carries its sufficient statistics
(``meteor_stats``, Meteor 1.5's ``-ssOut`` order); the corpus score is computed once on
the driver from their column-wise sum. The statistics are whole counts, so the sum is
exact in any order and the corpus score is *identical* to
:meth:`Scorer.corpus <meteorx.scorer.Scorer.corpus>` on the same rows (for a
configuration with ``system_score: mean``, such as ``nltk``, it is the mean of the row
scores instead, as there).

The references column is a string (one reference) or an array of strings (the
best-scoring reference counts). A null hypothesis is scored as an empty one (0); a row
whose references are null or empty gets null ``meteor`` and ``meteor_stats`` and counts
nowhere.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meteorx.config import MeteorConfig, validate_config
from meteorx.errors import InputError, MeteorxError
from meteorx.scoring import Breakdown, system_score
from meteorx.stats import Layout, Stats

__all__ = ["SparkResult", "corpus_stats", "score", "score_rows"]

SCORE_COLUMN = "meteor"
STATS_COLUMN = "meteor_stats"


@dataclass(frozen=True)
class SparkResult:
    """Per-row results (a DataFrame) and the corpus score of their summed statistics."""

    rows: Any  # pyspark.sql.DataFrame with the score and statistics columns added
    score: float
    breakdown: Breakdown
    stats: Stats
    signature: str


def _import(name: str) -> Any:
    """An optional dependency, imported by name (so type checking does not need it)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise MeteorxError(
            f"meteorx.spark needs {name.split('.')[0]}: pip install 'meteorx[spark]' "
            "(or pip install pyspark)"
        ) from None


def _require_pyspark() -> Any:
    return _import("pyspark.sql.functions")


def _payload(cfg: MeteorConfig) -> dict[str, Any]:
    """A plain, picklable form of a configuration (validated again on the executors)."""
    data = cfg.model_dump(mode="json")
    data["stages"] = [s.model_dump(mode="json", exclude_none=True) for s in cfg.stages]
    return data


def _executor_scorer(payload: dict[str, Any]) -> Any:
    """The worker process's scorer for this configuration (built on first use)."""
    from meteorx.api import build_scorer

    config = validate_config(payload, source="configuration sent to the executor")
    return build_scorer(config, shared=True)


def _text(value: Any) -> str | None:
    """A cell as a string; ``None`` for null (None, or NaN as pandas may give it)."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and value != value):
        return None
    return str(value)


def _references(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if value is None or (isinstance(value, float) and value != value):
        return None
    refs = [t for t in map(_text, value) if t is not None]
    return refs or None


def _score_batch(payload: dict[str, Any], hyps: Any, refs: Any) -> Any:
    """Score one Arrow batch: pandas Series in, a DataFrame (score, stats) out."""
    pd = _import("pandas")
    scorer = _executor_scorer(payload)
    scores: list[float | None] = []
    stats: list[list[float] | None] = []
    for hyp, ref in zip(hyps, refs, strict=True):
        references = _references(ref)
        if references is None:
            scores.append(None)
            stats.append(None)
            continue
        result = scorer.segment(_text(hyp) or "", references)
        scores.append(result.score)
        stats.append([float(x) for x in result.stats.to_list()])
    return pd.DataFrame({"score": scores, "stats": stats})


def score_rows(
    df: Any,
    hypothesis: str = "hypothesis",
    references: str = "references",
    *,
    config: str | Path | MeteorConfig | dict[str, Any] | None = None,
    language: str | None = None,
    normalize: str | None = None,
    score_column: str = SCORE_COLUMN,
    stats_column: str = STATS_COLUMN,
) -> Any:
    """``df`` with ``score_column`` (double) and ``stats_column`` (array<double>) added.

    Lazy, like any Spark transformation. The configuration defaults as in
    :func:`meteorx.compute` (``meteor-1.5-en`` with ``meteor`` normalisation); it is
    validated, and its resources loaded once, on the driver first, so a bad
    configuration fails here rather than in every task.
    """
    from meteorx.api import build_scorer

    functions = _require_pyspark()
    types = _import("pyspark.sql.types")
    ArrayType, DoubleType, StringType = types.ArrayType, types.DoubleType, types.StringType

    for column in (hypothesis, references):
        if column not in df.columns:
            raise InputError(f"no column {column!r} in the DataFrame (columns: {df.columns})")
    kind = df.schema[references].dataType
    if not (
        isinstance(kind, StringType)
        or (isinstance(kind, ArrayType) and isinstance(kind.elementType, StringType))
    ):
        raise InputError(
            f"column {references!r} must be a string or an array of strings, not {kind}"
        )
    # Built on the driver first: a bad configuration or missing resource fails here.
    scorer = build_scorer(config, language=language, normalize=normalize, shared=True)
    payload = _payload(scorer.config)
    schema = types.StructType(
        [
            types.StructField("score", DoubleType()),
            types.StructField("stats", ArrayType(DoubleType())),
        ]
    )

    def batch(hyps: Any, refs: Any) -> Any:
        return _score_batch(payload, hyps, refs)

    # Spark picks the UDF kind (Series -> DataFrame) from real type annotations.
    pd = _import("pandas")
    batch.__annotations__ = {"hyps": pd.Series, "refs": pd.Series, "return": pd.DataFrame}
    # Non-deterministic, so that Catalyst never duplicates the call for each field of
    # the struct it returns (or each statistic summed): one evaluation per row.
    udf = functions.pandas_udf(batch, schema).asNondeterministic()
    tmp = "__meteorx_result"
    return (
        df.withColumn(tmp, udf(functions.col(hypothesis), functions.col(references)))
        .withColumn(score_column, functions.col(f"{tmp}.score"))
        .withColumn(stats_column, functions.col(f"{tmp}.stats"))
        .drop(tmp)
    )


def corpus_stats(scored: Any, stats_column: str = STATS_COLUMN, width: int | None = None) -> Stats:
    """Column-wise sum of the statistics column (rows with null statistics skipped).

    ``width`` is the length of a statistics row (:attr:`Layout.width
    <meteorx.stats.Layout.width>`); when not given it is read from the first row, which
    costs a small extra job.
    """
    functions = _require_pyspark()
    column = functions.col(stats_column)
    if width is None:
        first = scored.select(stats_column).where(column.isNotNull()).first()
        if first is None:
            return Stats(segments=0)
        width = len(first[0])
    sums = (
        scored.where(column.isNotNull())
        .agg(
            functions.count(functions.lit(1)).alias("n"),
            *(functions.sum(column.getItem(i)).alias(f"s{i}") for i in range(width)),
        )
        .first()
    )
    if not sums["n"]:
        return Stats(segments=0)
    values = [float(sums[f"s{i}"]) for i in range(width)]
    return Layout.of_width(width).record(values, segments=int(sums["n"]))


def score(
    df: Any,
    hypothesis: str = "hypothesis",
    references: str = "references",
    *,
    config: str | Path | MeteorConfig | dict[str, Any] | None = None,
    language: str | None = None,
    normalize: str | None = None,
    persist: bool = True,
) -> SparkResult:
    """Score every row and the corpus. Runs the job (two passes over cached rows).

    With ``persist`` the scored rows are cached, so reading ``result.rows`` afterwards
    does not score again; call ``result.rows.unpersist()`` when done.
    """
    from meteorx.api import build_scorer
    from meteorx.signature import signature

    rows = score_rows(
        df, hypothesis, references, config=config, language=language, normalize=normalize
    )
    if persist:
        rows = rows.persist()
    scorer = build_scorer(config, language=language, normalize=normalize, shared=True)
    total = corpus_stats(rows, width=Layout(len(scorer.config.block_names)).width)
    breakdown = system_score(scorer.config.system_score, scorer.rescore(total), _score_sum(rows))
    n_refs = _max_references(df, references)
    return SparkResult(rows, breakdown.score, breakdown, total, signature(scorer, refs=n_refs))


def _score_sum(rows: Any) -> Callable[[], tuple[float, int]]:
    """The sum and number of the rows' scores, from a job run only when asked."""

    def run() -> tuple[float, int]:
        functions = _require_pyspark()
        column = functions.col(SCORE_COLUMN)
        found = rows.agg(functions.sum(column), functions.count(column)).first()
        return (float(found[0]), int(found[1])) if found[1] else (0.0, 0)

    return run


def _max_references(df: Any, column: str) -> int | None:
    functions = _require_pyspark()
    if isinstance(df.schema[column].dataType, _import("pyspark.sql.types").StringType):
        return 1
    row = df.agg(functions.max(functions.size(functions.col(column)))).first()
    return None if row is None or row[0] is None else max(1, int(row[0]))


def stats_sum(records: Iterable[Sequence[float]]) -> list[float]:
    """Element-wise sum of statistics rows (for collecting ``meteor_stats`` yourself)."""
    total: list[float] = []
    for row in records:
        if len(total) < len(row):
            total += [0.0] * (len(row) - len(total))
        for i, x in enumerate(row):
            total[i] += x
    return total
