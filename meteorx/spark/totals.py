"""The Spark job's sums (:mod:`meteorx.spark.job`): statistics per system and
document, and the report ``meteorx score``'s writers print from them.

The driver never collects rows: system and document scores come from statistics
summed per document, so its memory does not grow with the input. Each system's score
is :meth:`Meteor.system <meteorx.metric.Meteor.system>` of its summed statistics (the
one corpus aggregation, ``system_score`` rule included).

Sums are exact when the statistics are whole counts. With fractional statistics
(``soft_credit``, as in the ``meteorx`` preset) or a mean system score (``nltk``),
floating-point additions depend on their order, so a second pass streams each
partition's statistics, in input order, to the driver as arrays and adds them there
in that order: the numbers are then those of ``meteorx score`` to the last bit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from meteorx.spark.reading import DOCUMENT, ORDER, REFS, ROW, SYSTEM


@dataclass
class Totals:
    """Summed statistics of every system and document, in output order."""

    systems: list[tuple[str, Any, int, float]]  # name, Stats, segments, score sum
    documents: dict[str, list[tuple[str, Any]]]  # system -> [(document, Stats)]
    has_documents: bool
    max_refs: int | None

    def report(self, scorer: Any, signature: str) -> Any:
        from meteorx.formats import Report, Scored, ScoredSystem
        from meteorx.scoring import breakdown_of

        params = scorer.params
        systems = []
        for name, total, count, score_sum in self.systems:

            def sums(total: float = score_sum, n: int = count) -> tuple[float, int]:
                return total, n  # asked only by the `mean` rule

            breakdown = scorer.system(total, sums)
            documents = [
                (doc, Scored(breakdown_of(stats, params), stats))
                for doc, stats in self.documents.get(name, [])
            ]
            systems.append(
                ScoredSystem(
                    name=name,
                    system=Scored(breakdown, total),
                    segments=cast(list[Scored], Uncollected(count)),
                    documents=documents if self.has_documents else None,
                )
            )
        return Report(
            systems=systems,
            signature=signature,
            seg_ids=[],
            docs=[] if self.has_documents else None,
            setid=None,
            params=params,
            stage_names=list(scorer.config.block_names),
        )


class Uncollected(Sequence[Any]):
    """A system's segments that stay on the cluster: their number, not their rows, so
    the writers print the system line ("N segments") and no segment line."""

    def __init__(self, number: int) -> None:
        self.number = number

    def __len__(self) -> int:
        return self.number

    def __getitem__(self, index: Any) -> Any:
        raise IndexError("the segments are in the per-row output, not on the driver")

    def __iter__(self) -> Iterator[Any]:
        return iter(())


def summed(scored: Any, names: list[str], rule: str, width: int) -> Totals:
    """Per-document sums in Spark (one row per system and document to the driver);
    in input order on the driver when the additions' order matters (see the module)."""
    import numpy as np
    from pyspark.sql import functions as F

    from meteorx.stats import Layout

    has_docs = DOCUMENT in scored.columns
    keys = [SYSTEM, *([DOCUMENT] if has_docs else [])]
    valid = scored.where(F.col("stats").isNotNull())
    stats = F.col("stats")
    groups = (
        valid.groupBy(*keys)
        .agg(
            F.min(ORDER).alias("o"),
            F.min(ROW).alias("first"),
            F.count(F.lit(1)).alias("n"),
            F.max(F.size(REFS)).alias("refs"),
            F.max(F.exists(stats, lambda x: x != F.floor(x))).alias("fractional"),
            F.sum("score").alias("score_sum"),
            *(F.sum(stats.getItem(i)).alias(f"s{i}") for i in range(width)),
        )
        .collect()  # one row per system and document
    )
    groups.sort(key=lambda g: (g["o"], g["first"]))
    system_names = list(dict.fromkeys([*names, *(g[SYSTEM] for g in groups)]))
    of_system = np.array([system_names.index(g[SYSTEM]) for g in groups], dtype=np.int64)
    counts = np.zeros(len(system_names), dtype=np.int64)
    np.add.at(counts, of_system, np.array([g["n"] for g in groups], dtype=np.int64))
    if rule == "mean" or any(g["fractional"] for g in groups):
        sums, system_sums = ordered_sums(valid, groups, keys, of_system, len(system_names), width)
    else:  # whole numbers: Spark's sums are exact, in any order
        sums = np.array(
            [[g["score_sum"], *(g[f"s{i}"] for i in range(width))] for g in groups], dtype=float
        ).reshape(len(groups), width + 1)
        system_sums = np.zeros((len(system_names), width + 1))
        np.add.at(system_sums, of_system, sums)
    layout = Layout.of_width(width)
    systems = [
        (name, layout.record(system_sums[k, 1:].tolist(), int(counts[k])), int(counts[k]),
         float(system_sums[k, 0]))
        for k, name in enumerate(system_names)
    ]  # fmt: skip
    documents: dict[str, list[tuple[str, Any]]] = {}
    if has_docs:
        for g, row in zip(groups, sums, strict=True):
            documents.setdefault(g[SYSTEM], []).append(
                (g[DOCUMENT], layout.record(row[1:].tolist(), int(g["n"])))
            )
    max_refs = max((int(g["refs"]) for g in groups if g["refs"] is not None), default=None)
    return Totals(systems, documents, has_docs, max_refs)


def ordered_sums(
    valid: Any, groups: list[Any], keys: list[str], of_system: Any, n_systems: int, width: int
) -> tuple[Any, Any]:
    """Score and statistics sums of every group (system and document) and system, each
    added in input order, as ``meteorx score`` adds them.

    The rows are sorted by system and position; each Arrow batch goes to the driver as
    one array (no per-row objects), in order, and ``numpy.add.at`` adds its rows one
    after another. Memory: one batch at a time.
    """
    import numpy as np
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    spark = valid.sparkSession
    lookup = spark.createDataFrame(
        [(*(g[k] for k in keys), k, int(of_system[k])) for k, g in enumerate(groups)],
        T.StructType(
            [*(T.StructField(k, T.StringType()) for k in keys),
             T.StructField("gid", T.LongType()), T.StructField("sid", T.LongType())]
        ),
    )  # fmt: skip
    ordered = (
        valid.join(F.broadcast(lookup), on=keys)
        .select("sid", "gid", ROW, "score", "stats")
        .orderBy("sid", ROW)
    )
    blobs = ordered.mapInArrow(partial(_as_matrix, width), "m binary")
    sums = np.zeros((len(groups), width + 1))
    system_sums = np.zeros((n_systems, width + 1))
    for (blob,) in blobs.toLocalIterator():
        matrix = np.frombuffer(blob, dtype=float).reshape(-1, width + 3)
        np.add.at(system_sums, matrix[:, 0].astype(np.int64), matrix[:, 2:])
        np.add.at(sums, matrix[:, 1].astype(np.int64), matrix[:, 2:])
    return sums, system_sums


def _as_matrix(width: int, batches: Iterator[Any]) -> Iterator[Any]:
    """Each batch as one binary cell: rows of (system, group, score, statistics)."""
    import numpy as np

    from meteorx.spark import _import

    pa = _import("pyarrow")
    for batch in batches:
        n = batch.num_rows
        matrix = np.empty((n, width + 3))
        matrix[:, 0] = batch.column("sid").to_numpy()
        matrix[:, 1] = batch.column("gid").to_numpy()
        matrix[:, 2] = batch.column("score").to_numpy(zero_copy_only=False)
        matrix[:, 3:] = batch.column("stats").flatten().to_numpy().reshape(n, width)
        yield pa.RecordBatch.from_arrays([pa.array([matrix.tobytes()], pa.binary())], ["m"])
