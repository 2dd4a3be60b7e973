"""The Spark job's input (:mod:`meteorx.spark.job`): text files or a table, as the
rows to score.

Text files (one segment a line) are joined by line number; a Parquet, CSV, TSV or
JSONL table names its columns. Either way every row gets its system, its position in
read order, its segment id, its document (when given), its hypothesis and its
references (an array), under the column names below, which the per-row output keeps.
"""

from __future__ import annotations

import argparse
from typing import Any

from meteorx.errors import InputError

#: Lines of text input per scoring task (about 4 s of one core's work).
ROWS_PER_TASK = 20_000

#: Columns of the scored rows, as the per-row output names them.
SYSTEM, ORDER, ROW, SEGMENT, DOCUMENT, HYP, REFS = (
    "system",
    "system_order",
    "row",
    "segment",
    "document",
    "hypothesis",
    "references",
)


def numbered(df: Any) -> tuple[Any, int]:
    """``df`` with ``row``, its 0-based position in read order, and its row count.

    Computed in the JVM from each partition's count (one small job), not by sending
    rows through Python.
    """
    from pyspark.sql import functions as F

    tagged = df.withColumn("__part", F.spark_partition_id()).withColumn(
        "__id", F.monotonically_increasing_id()
    )
    counts = dict(tagged.groupBy("__part").count().collect())  # one row per partition
    offsets, total = [], 0
    for part in range(max(counts, default=-1) + 1):
        offsets.append(total)
        total += counts.get(part, 0)
    if not offsets:
        return tagged.withColumn(ROW, F.lit(0).cast("long")).drop("__part", "__id"), 0
    start = F.element_at(F.array(*(F.lit(o).cast("long") for o in offsets)), F.col("__part") + 1)
    position = start + F.col("__id") - F.shiftleft(F.col("__part").cast("long"), 33)
    return tagged.withColumn(ROW, position).drop("__part", "__id"), total


def read(spark: Any, args: argparse.Namespace) -> tuple[Any, list[str], int]:
    """The rows to score (system, system_order, row, segment, [document], hypothesis,
    references), the systems' names in output order (empty: in order of first
    appearance) and the number of references per row the input declares."""
    if args.input_format == "text":
        return read_text(spark, args.hyp, args.ref)
    return read_table(spark, args)


def read_text(spark: Any, hyp_paths: list[str], ref_paths: list[str]) -> tuple[Any, list[str], int]:
    """Text files joined by line number (CR, LF and CRLF end a line, as in meteorx)."""
    from pyspark.sql import functions as F

    def lines(path: str, name: str) -> tuple[Any, int]:
        df, n = numbered(spark.read.text(path))
        return df.withColumnRenamed("value", name), n

    refs, n_refs = lines(ref_paths[0], "ref0")
    # The join's partitions are the scoring tasks: hash-partitioned by line, ROWS_PER_TASK
    # lines each, at least 4 per core (Spark would otherwise merge small partitions or
    # broadcast a small file, scoring it all in one task on one core).
    cores = spark.sparkContext.defaultParallelism
    tasks = max(4 * cores, -(-n_refs // ROWS_PER_TASK))
    spark.conf.set("spark.sql.shuffle.partitions", str(tasks))
    spark.conf.set("spark.sql.adaptive.coalescePartitions.enabled", "false")
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    for k, path in enumerate(ref_paths[1:], 1):
        more, n = lines(path, f"ref{k}")
        if n != n_refs:
            raise InputError(f"{ref_paths[0]} has {n_refs} lines but {path} has {n}")
        refs = refs.join(more, ROW)
    refs = refs.select(ROW, F.array(*(f"ref{k}" for k in range(len(ref_paths)))).alias(REFS))
    systems = []
    for order, path in enumerate(hyp_paths):
        hyps, n = lines(path, HYP)
        if n != n_refs:
            raise InputError(f"{path} has {n} lines but {ref_paths[0]} has {n_refs}")
        systems.append(
            hyps.join(refs, ROW).select(
                F.lit(path).alias(SYSTEM),
                F.lit(order).alias(ORDER),
                ROW,
                (F.col(ROW) + 1).cast("string").alias(SEGMENT),
                HYP,
                REFS,
            )
        )
    return _union(systems), list(hyp_paths), len(ref_paths)


def read_table(spark: Any, args: argparse.Namespace) -> tuple[Any, list[str], int]:
    """A Parquet, CSV, TSV (no quoting, as meteorx reads it) or JSONL table."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    path, fmt = args.hyp[0], args.input_format
    reader = spark.read
    if fmt == "parquet":
        table = reader.parquet(path)
    elif fmt == "jsonl":
        table = reader.json(path)
    else:
        reader = reader.option("header", True)
        if fmt == "tsv":
            reader = reader.option("sep", "\t").option("quote", "")
        table = reader.csv(path)
    table, _ = numbered(table)
    hyp_columns = args.hyp_column or ["hyp"]
    ref_columns = args.ref_column or ["ref"]
    wanted = [*hyp_columns, *ref_columns, args.doc_column, args.id_column, args.system_column]
    for name in filter(None, wanted):
        if name not in table.columns:
            raise InputError(
                f"{path} has no column {name!r}; its columns are: {', '.join(table.columns)}"
            )
    refs = []
    for name in ref_columns:
        kind = table.schema[name].dataType
        refs.append(F.array(name) if isinstance(kind, T.StringType) else F.col(name))
    common = [
        ROW,
        (
            F.col(args.id_column).cast("string")
            if args.id_column
            else (F.col(ROW) + 1).cast("string")
        ).alias(SEGMENT),
        *([F.col(args.doc_column).cast("string").alias(DOCUMENT)] if args.doc_column else []),
        F.concat(*refs).alias(REFS),
    ]
    if args.system_column:
        if len(hyp_columns) != 1:
            raise InputError("--system-column takes one --hyp-column")
        one = table.select(
            F.col(args.system_column).cast("string").alias(SYSTEM),
            F.lit(0).alias(ORDER),
            F.col(hyp_columns[0]).cast("string").alias(HYP),
            *common,
        )
        return one, [], len(ref_columns)
    systems = [
        table.select(
            F.lit(name).alias(SYSTEM),
            F.lit(order).alias(ORDER),
            F.col(name).cast("string").alias(HYP),
            *common,
        )
        for order, name in enumerate(hyp_columns)
    ]
    return _union(systems), list(hyp_columns), len(ref_columns)


def _union(frames: list[Any]) -> Any:
    out = frames[0]
    for frame in frames[1:]:
        out = out.unionByName(frame)
    return out
