"""Scoring a Spark DataFrame in parallel: per-row scores and the exact corpus score.

Needs ``pyspark`` (``pip install "meteorx[spark]"``) and pandas/pyarrow (pulled in by it).

>>> from meteorx.spark import score                                    # doctest: +SKIP
>>> result = score(df, "hypothesis", "references", config="li", language="de")
>>> result.rows.select("id", "meteor").show()                          # per-row scores
>>> result.score, result.signature                                     # corpus score

Rows are scored in Arrow batches (``mapInArrow``). The scorer is built once per Python
worker process on each executor (Spark reuses its Python workers, so once per executor
core in practice) from the validated configuration shipped with the task, and reused
for every batch that worker gets. Every row also carries its sufficient statistics
(``meteor_stats``, Meteor 1.5's ``-ssOut`` order); the corpus score is computed once on
the driver from their column-wise sum. When the statistics are whole counts (all
presets but those with ``soft_credit``, such as ``meteorx``), the sum is exact in any
order and the corpus score is *identical* to :meth:`Scorer.corpus
<meteorx.metric.Scorer.corpus>` on the same rows; with fractional statistics it may
differ in the last bits, as Spark adds in no fixed order (``python -m meteorx.spark``
adds them in input order, and is identical). For a configuration with
``system_score: mean``, such as ``nltk``, the score is the mean of the row scores.

``python -m meteorx.spark`` (:mod:`meteorx.spark.job`) is the same as a job to submit.

The references column is a string (one reference) or an array of strings (the
best-scoring reference counts). A null hypothesis is scored as an empty one (0); a row
whose references are null or empty gets null ``meteor`` and ``meteor_stats`` and counts
nowhere.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from meteorx import errors
from meteorx.config import MeteorConfig, validate_config
from meteorx.config_models import Overrides
from meteorx.errors import InputError, MeteorxError
from meteorx.scoring import Breakdown
from meteorx.stats import Layout, Stats

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["JOB_SCRIPT", "SparkResult", "corpus_stats", "executor_errors", "score", "score_rows"]

#: The script to give ``spark-submit`` (what ``python -m meteorx.spark`` runs).
JOB_SCRIPT = str(Path(__file__).with_name("__main__.py"))

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


#: Scorers of this Python worker process, by configuration (JSON): Spark reuses its
#: Python workers, so each builds its scorer (and loads its resources) once.
_SCORERS: dict[str, Any] = {}

#: Marks a meteorx error raised on an executor, so the driver can report it in one line.
EXECUTOR_ERROR = "[meteorx executor error] "
_EXECUTOR_ERROR = re.compile(re.escape(EXECUTOR_ERROR) + r"(\w+): ([^\n]*)")

#: The per-row breakdown columns the job writes besides the score and statistics.
BREAKDOWN = ("precision", "recall", "fragmentation", "penalty")


def _executor_scorer(payload: str) -> Any:
    """The worker process's scorer for this configuration (built on first use)."""
    scorer = _SCORERS.get(payload)
    if scorer is None:
        from meteorx.api import build_scorer

        config = validate_config(json.loads(payload), source="configuration sent to the executor")
        scorer = _SCORERS[payload] = build_scorer(config, shared=True)
    return scorer


@dataclass(frozen=True)
class _Task:
    """What an executor needs to score batches (pickled with the function)."""

    payload: str  # the validated configuration, as JSON
    width: int  # numbers in a statistics row
    hypothesis: str
    references: str
    score_column: str
    stats_column: str
    breakdown: bool = False  # also write BREAKDOWN columns
    max_chars: int = 0  # refuse longer segments (0 = no limit)
    label: str | None = None  # column naming a row in errors


def _score_batches(task: _Task, batches: Iterable[Any]) -> Iterator[Any]:
    """mapInArrow's function: each Arrow batch with the score columns appended.

    A meteorx error (a missing resource, a segment too long) is re-raised with
    :data:`EXECUTOR_ERROR` so that the driver reports it in one line.
    """
    try:
        scorer = _executor_scorer(task.payload)
        for batch in batches:
            yield _score_batch(task, scorer, batch)
    except MeteorxError as error:
        raise RuntimeError(f"{EXECUTOR_ERROR}{type(error).__name__}: {error}") from None


def _score_batch(task: _Task, scorer: Any, batch: Any) -> Any:
    """One Arrow batch scored: scores and breakdowns as NumPy arrays, statistics as
    one flat array (an Arrow list column); rows without references are null."""
    import numpy as np

    from meteorx.inputs import check_length
    from meteorx.metric import paused_gc

    pa = _import("pyarrow")
    hyps = batch.column(task.hypothesis).to_pylist()
    refs = batch.column(task.references).to_pylist()
    labels = batch.column(task.label).to_pylist() if task.label else None
    n = len(hyps)
    numbers = np.zeros((n, 5))  # score and BREAKDOWN
    stats = np.zeros((n, task.width))
    missing = np.zeros(n, dtype=bool)
    with paused_gc():
        for i, (hyp, ref) in enumerate(zip(hyps, refs, strict=True)):
            references = [ref] if isinstance(ref, str) else [r for r in ref or () if r is not None]
            if not references:
                missing[i] = True
                continue
            if task.max_chars:
                where = f"segment {labels[i]!r}" if labels is not None else "a row"
                for text in (hyp or "", *references):
                    check_length(text, where, task.max_chars)
            result = scorer.segment(hyp or "", references)
            b = result.breakdown
            numbers[i] = (result.score, b.precision, b.recall, b.fragmentation, b.penalty)
            stats[i] = result.stats.to_list()
    mask = pa.array(missing) if missing.any() else None
    offsets = pa.array(np.arange(0, (n + 1) * task.width, task.width, dtype=np.int32))
    columns = [pa.array(numbers[:, 0], mask=missing)]
    names = [task.score_column]
    if task.breakdown:
        columns += [pa.array(numbers[:, k], mask=missing) for k in range(1, 5)]
        names += list(BREAKDOWN)
    columns.append(pa.ListArray.from_arrays(offsets, pa.array(stats.ravel()), mask=mask))
    names.append(task.stats_column)
    return pa.RecordBatch.from_arrays(
        [*batch.columns, *columns], names=[*batch.schema.names, *names]
    )


def _with_scores(df: Any, task: _Task) -> Any:
    """``df`` with the task's columns appended, computed in Arrow batches."""
    types = _import("pyspark.sql.types")
    fields = [types.StructField(task.score_column, types.DoubleType())]
    if task.breakdown:
        fields += [types.StructField(name, types.DoubleType()) for name in BREAKDOWN]
    fields.append(types.StructField(task.stats_column, types.ArrayType(types.DoubleType())))
    schema = types.StructType([*df.schema.fields, *fields])
    return df.mapInArrow(partial(_score_batches, task), schema)


@contextmanager
def executor_errors() -> Iterator[None]:
    """Run Spark actions; a meteorx error raised on an executor is raised again here
    as the same :class:`MeteorxError` subclass, in one line."""
    try:
        yield
    except Exception as error:
        found = _EXECUTOR_ERROR.search(str(error))
        if found is None:
            raise
        kind = getattr(errors, found.group(1), MeteorxError)
        if not (isinstance(kind, type) and issubclass(kind, MeteorxError)):
            kind = MeteorxError
        raise kind(f"on an executor: {found.group(2)}") from None


def _check_columns(df: Any, hypothesis: str, references: str) -> None:
    types = _import("pyspark.sql.types")
    for column in (hypothesis, references):
        if column not in df.columns:
            raise InputError(f"no column {column!r} in the DataFrame (columns: {df.columns})")
    kind = df.schema[references].dataType
    if not (
        isinstance(kind, types.StringType)
        or (isinstance(kind, types.ArrayType) and isinstance(kind.elementType, types.StringType))
    ):
        raise InputError(
            f"column {references!r} must be a string or an array of strings, not {kind}"
        )


def score_rows(
    df: Any,
    hypothesis: str = "hypothesis",
    references: str = "references",
    *,
    config: str | Path | MeteorConfig | dict[str, Any] | None = None,
    score_column: str = SCORE_COLUMN,
    stats_column: str = STATS_COLUMN,
    **overrides: Unpack[Overrides],
) -> Any:
    """``df`` with ``score_column`` (double) and ``stats_column`` (array<double>) added.

    Lazy, like any Spark transformation. The configuration defaults as in
    :func:`meteorx.compute` (``meteor-1.5-en`` with ``meteor`` normalisation); it is
    validated, and its resources loaded once, on the driver first, so a bad
    configuration fails here rather than in every task.
    """
    from meteorx.api import build_scorer

    _require_pyspark()
    _check_columns(df, hypothesis, references)
    # Built on the driver first: a bad configuration or missing resource fails here.
    scorer = build_scorer(config, shared=True, **overrides)
    return _with_scores(df, task_for(scorer, hypothesis, references, score_column, stats_column))


def task_for(
    scorer: Any,
    hypothesis: str,
    references: str,
    score_column: str = SCORE_COLUMN,
    stats_column: str = STATS_COLUMN,
    **options: Any,
) -> _Task:
    """The executors' task for a driver-side scorer."""
    return _Task(
        json.dumps(_payload(scorer.config)),
        Layout(len(scorer.config.block_names)).width,
        hypothesis,
        references,
        score_column,
        stats_column,
        **options,
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
    persist: bool = True,
    **overrides: Unpack[Overrides],
) -> SparkResult:
    """Score every row and the corpus. Runs the job (two passes over cached rows).

    With ``persist`` the scored rows are cached, so reading ``result.rows`` afterwards
    does not score again; call ``result.rows.unpersist()`` when done.
    """
    from meteorx.api import build_scorer
    from meteorx.formats.stats_file import checked_record

    rows = score_rows(df, hypothesis, references, config=config, **overrides)
    if persist:
        rows = rows.persist()
    scorer = build_scorer(config, shared=True, **overrides)
    with executor_errors():
        total = corpus_stats(rows, width=Layout(len(scorer.config.block_names)).width)
        breakdown = scorer.system(
            checked_record(total, scorer.config.block_names), _score_sum(rows)
        )
        n_refs = _max_references(df, references)
    return SparkResult(rows, breakdown.score, breakdown, total, scorer.signature(refs=n_refs))


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
