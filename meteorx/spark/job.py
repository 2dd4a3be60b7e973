"""``python -m meteorx.spark``: ``meteorx score`` as a Spark job.

Reads two (or more) text files or a table, scores every row on the executors, writes
per-row scores and statistics (``--rows``, Parquet or TSV) and prints the document and
system scores and the signature exactly as ``meteorx score`` prints them, without the
segment lines (those are in ``--rows``). The driver never collects rows: system and
document scores come from statistics summed per document, so its memory does not grow
with the input (:mod:`meteorx.spark.totals` says how the sums stay exact).

This module holds the command line (options, checks, the session) and the outputs;
:mod:`meteorx.spark.reading` reads the input, :mod:`meteorx.spark.totals` sums the
statistics. The same job runs under ``spark-submit`` (:data:`meteorx.spark.JOB_SCRIPT`).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from meteorx.cli.arguments import add_config_args, add_input_args, add_output_args
from meteorx.cli.configuration import config_from_args, load_plugin_args
from meteorx.cli.output import check_writable, standard_streams
from meteorx.cli.parser import Parser
from meteorx.errors import InputError, MeteorxError
from meteorx.spark.reading import DOCUMENT, HYP, REFS, SEGMENT, SYSTEM, read
from meteorx.spark.totals import summed

#: Input formats: meteorx score's, with Spark's readers (and CSV and Parquet added).
FORMATS = ("text", "tsv", "csv", "jsonl", "parquet")


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
    report = totals.report(scorer, scorer.signature(refs=n_refs))
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
