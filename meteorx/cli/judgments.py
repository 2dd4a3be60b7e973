"""The data of ``tune`` and ``correlate`` from their options (see
:func:`meteorx.cli.arguments.add_judgment_args`): systems' outputs, references and
human judgments; and the progress log that first says what was read."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

__all__ = ["judged_data_from_args", "judged_data_log", "judgments_of"]


def judged_data_from_args(args: argparse.Namespace) -> tuple[Any, str]:
    """The data of :func:`~meteorx.cli.arguments.add_judgment_args` (a
    :class:`meteorx.tune.TuningData`) and a description of the judgment columns used."""
    import math

    from meteorx import tune as T
    from meteorx.errors import InputError

    if not math.isfinite(args.darr_threshold) or args.darr_threshold < 0:
        raise InputError(f"--darr-threshold must be a number >= 0, got {args.darr_threshold}")
    human_seg: dict[tuple[str, int], float] = {}
    seg_what = ""
    if args.human:
        human_seg, seg_what = T.read_human_segments(
            args.human, args.human_score_column, args.segment_base, args.lower_is_better
        )
    human_sys = (
        T.read_human_systems(args.human_sys, args.human_sys_key, args.lower_is_better)
        if args.human_sys
        else None
    )
    data = T.load_tuning_data(
        args.hyp_dir, args.ref, human_seg, human_sys, args.docs, args.hyp_glob
    )
    return data, seg_what


def judged_data_log(
    args: argparse.Namespace, data: Any, seg_what: str, *, system_judgments: bool = False
) -> Callable[[str], None]:
    """The log of a command reading judged data (``meteorx: ...`` lines on stderr, none
    with --quiet), after saying what was read (``system_judgments``: the systems with
    system-level judgments too) and which systems have no judgments."""
    import sys

    def log(text: str) -> None:
        if not args.quiet:
            print(f"meteorx: {text}", file=sys.stderr)

    log(
        f"{len(data.systems)} systems x {data.n_segments} segments, {len(data.refs)} "
        f"reference(s); {len(data.human_seg)} segment judgments ({seg_what or 'none'})"
        + (
            f"; system judgments for {len(data.human_sys)} systems"
            if system_judgments and data.human_sys
            else ""
        )
    )
    if data.skipped:
        log(f"no human judgments, not used: {', '.join(data.skipped)}")
    return log


def judgments_of(data: Any, measure: str | None, darr_threshold: float) -> tuple[Any, Any]:
    """The :class:`meteorx.metaeval.Judgments` of a TuningData and its segment measure
    (``measure`` or the default for the judgments; None without segment judgments)."""
    import numpy as np

    from meteorx import metaeval

    human = data.human_matrix()
    human_sys = None
    if data.human_sys is not None:
        human_sys = np.asarray([data.human_sys.get(s, np.nan) for s in data.systems])
    judgments = metaeval.Judgments(human, human_sys, data.units())
    if not data.human_seg:
        return judgments, None
    kind = measure or metaeval.default_segment_measure(human)
    return judgments, metaeval.segment_measure(kind, human, data.hyps, darr_threshold)
