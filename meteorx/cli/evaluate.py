"""From inputs to a :class:`~meteorx.formats.Report`: scoring, documents, significance.

Shared by ``score``, ``combine`` and ``report``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from meteorx import scoring
from meteorx.errors import InputError
from meteorx.formats import Report, Scored, ScoredSystem, TestSet, document_scores
from meteorx.metric import Scorer, SegmentResult
from meteorx.scoring import Parameters, breakdown_of
from meteorx.stats import Stats, sum_stats


def score_testset(
    scorer: Scorer, testset: TestSet, jobs: int = 1, quiet: bool = False, detail: bool = True
) -> list[list[SegmentResult]]:
    """Every system's segment results (in ``jobs`` processes, with a progress bar).

    ``detail=False``: without links and tokens (see :func:`meteorx.parallel.score_pairs`).
    """
    from meteorx.parallel import score_pairs
    from meteorx.progress import progress_bar

    if not testset.refs:
        print("meteorx: warning: the input has no segments; the score is 0", file=sys.stderr)
    for name, hyps in testset.systems:
        empty = sum(1 for h in hyps if not h.strip())
        if empty:
            print(f"meteorx: warning: {name}: {empty} empty line(s) score 0", file=sys.stderr)
    pairs = [
        (hyp, refs)
        for _, hyps in testset.systems
        for hyp, refs in zip(hyps, testset.refs, strict=True)
    ]
    with progress_bar(len(pairs), enabled=False if quiet else None) as bar:
        flat = score_pairs(scorer, pairs, jobs=jobs, progress=bar, detail=detail)
    n = len(testset.refs)
    return [flat[k * n : (k + 1) * n] for k in range(len(testset.systems))]


def build_report(
    names: Sequence[str],
    segment_stats: Sequence[Sequence[Stats]],
    params: Parameters,
    stage_names: Sequence[str],
    signature: str,
    seg_ids: Sequence[str],
    docs: Sequence[str] | None,
    setid: str | None = None,
    results: Sequence[Sequence[SegmentResult]] | None = None,
    system_score: str = "statistics",
) -> Report:
    """Score every segment, document and system from statistics records.

    ``system_score="mean"`` (the ``nltk`` preset) reports the mean of segment scores as
    the system score, as NLTK users do; the statistics are still summed.
    """
    systems = []
    for k, (name, records) in enumerate(zip(names, segment_stats, strict=True)):
        if results is not None:
            segments = [Scored(r.breakdown, r.stats) for r in results[k]]
        else:
            segments = [Scored(breakdown_of(r, params), r) for r in records]
        total = sum_stats(records)
        scores = [seg.score for seg in segments]
        breakdown = scoring.system_breakdown(total, params, system_score, scores)
        system = ScoredSystem(
            name=name,
            system=Scored(breakdown, total),
            segments=segments,
            documents=document_scores(docs, segments, params) if docs is not None else None,
            chunks=[r.alignment.chunks for r in results[k]] if results is not None else None,
            ref_index=[r.ref_index for r in results[k]] if results is not None else None,
        )
        systems.append(system)
    return Report(
        systems=systems,
        signature=signature,
        seg_ids=list(seg_ids),
        docs=list(docs) if docs is not None else None,
        setid=setid,
        params=params,
        stage_names=list(stage_names),
        system_score=system_score,
    )


def _asked(args: argparse.Namespace) -> tuple[bool, str | None]:
    """Whether the arguments ask for confidence intervals, and which paired test."""
    test: str | None = None
    if getattr(args, "paired_bs", False):
        test = "bs"
    elif getattr(args, "paired_ar", False):
        test = "ar"
    return bool(getattr(args, "confidence", False)), test


def resampling_fields(args: argparse.Namespace) -> list[str]:
    """The signature's significance fields for the arguments (none without resampling):
    ``bs:N`` / ``ar:N`` and ``seed:S``, as sacreBLEU's, so resampled numbers are
    reproducible too."""
    want_ci, test = _asked(args)
    if not want_ci and test is None:
        return []
    fields = [f"bs:{args.n_bootstrap}"] if want_ci or test == "bs" else []
    if test == "ar":
        fields.append(f"ar:{args.ar_trials}")
    return [*fields, f"seed:{args.seed}"]


def add_significance(report: Report, args: argparse.Namespace) -> None:
    """Attach confidence intervals and paired tests as the arguments ask (the
    report's signature names them already: :func:`resampling_fields`)."""
    want_ci, test = _asked(args)
    if not want_ci and test is None:
        return
    from meteorx import significance as sig

    n_stages = len(report.stage_names)
    rows = [
        sig.stats_matrix([s.stats for s in system.segments], n_stages) for system in report.systems
    ]
    seed: int = args.seed
    if want_ci:
        for system, matrix in zip(report.systems, rows, strict=True):
            system.interval = sig.bootstrap_ci(
                matrix, report.params, args.n_bootstrap, seed, report.system_score
            )
    if test is not None:
        if len(report.systems) < 2:
            raise InputError(
                f"--paired-{test} compares systems with the first one: give at least two --hyp"
            )
        base = rows[0]
        for system, matrix in zip(report.systems[1:], rows[1:], strict=True):
            if test == "bs":
                system.comparison = sig.paired_bootstrap(
                    base, matrix, report.params, args.n_bootstrap, seed, report.system_score
                )
            else:
                system.comparison = sig.paired_approximate_randomization(
                    base, matrix, report.params, args.ar_trials, seed, report.system_score
                )
        report.significance = {
            "test": f"paired-{test}",
            "baseline": report.systems[0].name,
            "n_samples": args.n_bootstrap if test == "bs" else args.ar_trials,
            "seed": seed,
        }
    if want_ci:
        report.significance.setdefault(
            "confidence", {"n_bootstrap": args.n_bootstrap, "seed": seed}
        )


def check_report_files(args: argparse.Namespace) -> None:
    """Fail before any work if a file :func:`write_report` writes (--stats-out,
    --scr) cannot be created."""
    from meteorx.cli.output import check_writable
    from meteorx.formats import scr_paths

    scr = getattr(args, "scr", None)
    check_writable(getattr(args, "stats_out", None), *(scr_paths(scr) if scr else []))


def write_report(report: Report, args: argparse.Namespace) -> None:
    """Print in the requested format; write --stats-out and --scr files."""
    from meteorx import formats

    out = sys.stdout
    stats_out = getattr(args, "stats_out", None)
    if stats_out:
        if stats_out == "-":
            formats.write_stats(report, out)
            return
        from meteorx.errors import output_error

        try:
            with open(stats_out, "w", encoding="utf-8") as handle:
                formats.write_stats(report, handle)
        except OSError as error:  # cannot create it, or the disk filled up while writing
            raise output_error(stats_out, error) from None
    scr = getattr(args, "scr", None)
    if scr:
        formats.write_scr(report, scr)
    if args.format == "json":
        formats.write_json(report, out, system_only=args.system_only)
    elif args.format == "tsv":
        formats.write_tsv(report, out, args.precision, system_only=args.system_only)
    else:
        formats.write_text(report, out, args.precision, system_only=args.system_only)
