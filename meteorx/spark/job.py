"""``python -m meteorx.spark``: ``meteorx score`` as a Spark job.

Reads two (or more) text files or a table, scores every row on the executors, writes
per-row scores and statistics (``--rows``, Parquet or TSV) and prints the document and
system scores and the signature exactly as ``meteorx score`` prints them, without the
segment lines (those are in ``--rows``). The driver never collects rows: system and
document scores come from statistics summed per document, so its memory does not grow
with the input.

Sums are exact when the statistics are whole counts. With fractional statistics
(``soft_credit``, as in the ``meteorx`` preset) or a mean system score (``nltk``),
floating-point additions depend on their order, so a second pass streams each
partition's statistics, in input order, to the driver as arrays and adds them there
in that order: the numbers are then those of ``meteorx score`` to the last bit.

The same file runs under ``spark-submit`` (:data:`meteorx.spark.JOB_SCRIPT`).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from meteorx.cli.common import (
    Parser,
    add_config_args,
    add_input_args,
    add_output_args,
    check_writable,
    config_from_args,
    load_plugin_args,
    standard_streams,
)
from meteorx.errors import InputError, MeteorxError

#: Input formats: meteorx score's, with Spark's readers (and CSV and Parquet added).
FORMATS = ("text", "tsv", "csv", "jsonl", "parquet")

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


def parser() -> argparse.ArgumentParser:
    """``meteorx score``'s options where they apply, plus the cluster and output ones."""
    p = Parser(
        prog="python -m meteorx.spark",
        description="Score hypotheses against references on a Spark cluster: per-row "
        "scores and statistics to --rows, document and system scores and the signature "
        "to standard output (as 'meteorx score' prints them, without segment lines).",
    )
    add_input_args(p)
    for action in p._actions:  # meteorx score's input options, with Spark's formats
        if action.dest == "input_format":
            action.choices = FORMATS
            action.help = (
                "text: one segment a line (default); tsv/csv/jsonl/parquet: a table with "
                "named columns (--hyp-column, --ref-column, --doc-column, --id-column, "
                "--system-column)"
            )
    p.add_argument(
        "--system-column",
        metavar="NAME",
        help="tables: column naming each row's system (one system per value, in order of "
        "first appearance); default: one system per --hyp-column",
    )
    add_config_args(p)
    add_output_args(p)
    spark = p.add_argument_group("spark")
    spark.add_argument(
        "--master",
        metavar="URL",
        help="Spark master (spark://HOST:7077, yarn, local[4], ...); default: spark-submit's "
        "--master, else Spark's default",
    )
    spark.add_argument(
        "--rows",
        metavar="PATH",
        help="write per-row scores and statistics to this folder (Spark's output: one "
        "file per partition)",
    )
    spark.add_argument(
        "--rows-format",
        choices=["parquet", "tsv"],
        default="parquet",
        help="parquet (default; statistics as an array column) or tsv (a header row; one "
        "column per statistic, named as in --stats-out files)",
    )
    spark.add_argument(
        "--summary",
        metavar="FILE.json",
        help="also write the document and system scores and the signature as JSON "
        "('meteorx score --format json --system-only')",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    # spark-submit sends the job's standard error to its standard output: keep pyspark's
    # advice about pandas versions out of the scores.
    warnings.filterwarnings("ignore", "PySpark does not yet fully support", FutureWarning)
    with standard_streams():
        try:
            args = parser().parse_args(argv)
            load_plugin_args(args)
            run(args)
        except MeteorxError as error:
            print(f"meteorx: error: {error}", file=sys.stderr)
            return 2
        except Exception as error:
            if not type(error).__module__.startswith(("pyspark", "py4j")):
                raise
            first = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
            print(f"meteorx: error: spark: {first}", file=sys.stderr)
            return 2
    return 0


def run(args: argparse.Namespace) -> None:
    from meteorx.api import build_scorer
    from meteorx.signature import signature
    from meteorx.spark import executor_errors, task_for

    check_args(args)
    scorer = build_scorer(config_from_args(args))  # a bad configuration fails here
    spark = session(args.master)
    with executor_errors():
        rows, names, declared_refs = read(spark, args)
        task = task_for(
            scorer,
            HYP,
            REFS,
            "score",
            "stats",
            breakdown=True,
            max_chars=args.max_segment_chars,
            label=SEGMENT,
        )
        from meteorx.spark import _with_scores

        scored = _with_scores(rows, task)
        if args.rows:
            scored = scored.persist(_import_storage().DISK_ONLY)
            write_rows(scored, args, scorer)
        totals = summed(scored, names, scorer.config.system_score, task.width)
    n_refs = totals.max_refs if totals.max_refs is not None else declared_refs
    report = totals.report(scorer, signature(scorer, refs=n_refs))
    write_summary(report, args)


def check_args(args: argparse.Namespace) -> None:
    """Problems found before Spark starts."""
    if args.input_format == "text" and not args.ref:
        raise InputError("text input needs --ref (a file of references, one a line)")
    if args.input_format != "text" and len(args.hyp) != 1:
        raise InputError(f"--input-format {args.input_format} takes one table: give one --hyp")
    if args.input_format == "text" and (args.hyp_column or args.ref_column or args.system_column):
        raise InputError("--hyp-column, --ref-column and --system-column are for tables")
    if args.input_format != "text" and args.ref:
        raise InputError("a table holds its references: give --ref-column, not --ref")
    for path in [*args.hyp, *args.ref]:
        if path == "-":
            raise InputError("a Spark job reads files, not standard input ('-')")
        if "://" not in path and not os.path.exists(path):
            raise InputError(f"file not found: {path}")
    check_writable(args.summary)
    if args.rows and "://" not in args.rows and os.path.exists(args.rows):
        raise InputError(f"--rows {args.rows} exists; give a new folder")


def _import_storage() -> Any:
    from pyspark import StorageLevel

    return StorageLevel


def session(master: str | None) -> Any:
    """The Spark session (``--master`` wins over spark-submit's)."""
    from meteorx.spark import _import

    sql = _import("pyspark.sql")
    builder = sql.SparkSession.builder.appName("meteorx").config(
        "spark.ui.showConsoleProgress", "false"
    )
    if master:
        builder = builder.master(master)
    spark = builder.getOrCreate()
    # A failed task's log holds the whole executor traceback; the job reports the
    # error itself, in one line.
    spark.sparkContext.setLogLevel("FATAL")
    return spark


# -- reading -----------------------------------------------------------------------------


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


# -- writing the rows --------------------------------------------------------------------


def write_rows(scored: Any, args: argparse.Namespace, scorer: Any) -> None:
    """The per-row output: system, segment, [document], score, its breakdown and the
    statistics (an array in Parquet; named columns in TSV)."""
    from pyspark.sql import functions as F

    from meteorx.formats import stats_columns
    from meteorx.spark import BREAKDOWN

    head = [SYSTEM, SEGMENT, *([DOCUMENT] if DOCUMENT in scored.columns else []), "score"]
    out = scored.select(*head, *BREAKDOWN, "stats")
    if args.rows_format == "parquet":
        out.write.parquet(args.rows)
        return
    names = stats_columns(list(scorer.config.block_names))
    stats = [F.col("stats").getItem(i).alias(name) for i, name in enumerate(names)]
    flat = out.select(*head, *BREAKDOWN, *stats)
    flat.write.option("sep", "\t").option("header", True).option("quote", "").csv(args.rows)


# -- summing statistics ------------------------------------------------------------------


@dataclass
class Totals:
    """Summed statistics of every system and document, in output order."""

    systems: list[tuple[str, Any, int, float]]  # name, Stats, segments, score sum
    documents: dict[str, list[tuple[str, Any]]]  # system -> [(document, Stats)]
    has_documents: bool
    max_refs: int | None

    def report(self, scorer: Any, signature: str) -> Any:
        from meteorx.formats import Report, Scored, ScoredSystem
        from meteorx.scoring import compute, system_score

        params, rule = scorer.params, scorer.config.system_score
        systems = []
        for name, total, count, score_sum in self.systems:

            def sums(total: float = score_sum, n: int = count) -> tuple[float, int]:
                return total, n  # asked only by the `mean` rule

            breakdown = system_score(rule, compute(total, params), sums)
            documents = [
                (doc, Scored(compute(stats, params), stats))
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


# -- printing ----------------------------------------------------------------------------


def write_summary(report: Any, args: argparse.Namespace) -> None:
    """Standard output as ``meteorx score`` prints it without segment lines; the JSON
    (``--system-only``) to ``--summary`` too."""
    from meteorx import formats
    from meteorx.errors import output_error

    out = sys.stdout
    if args.format == "json":
        formats.write_json(report, out, system_only=True)
    elif args.format == "tsv":
        formats.write_tsv(report, out, args.precision, system_only=args.system_only)
    else:
        formats.write_text(report, out, args.precision, system_only=args.system_only)
    if args.summary:
        try:
            with open(args.summary, "w", encoding="utf-8") as handle:
                formats.write_json(report, handle, system_only=True)
        except OSError as error:
            raise output_error(args.summary, error) from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
