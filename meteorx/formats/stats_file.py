"""Reading statistics back (``meteorx combine``): files written by ``--stats-out``
(:func:`~meteorx.formats.writers.write_stats`) or by ``--format json``, every row checked
as counts that could have been counted."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from meteorx.config_models import SOFT_CREDIT, aligned_blocks
from meteorx.error_text import quote
from meteorx.errors import InputError
from meteorx.formats.input_checks import load_json
from meteorx.formats.model import STATS_MAGIC, stats_columns
from meteorx.inputs import read_lines
from meteorx.scoring import Parameters
from meteorx.signature import system_score_rule
from meteorx.stats import Layout, Stats


@dataclass
class StatsFile:
    """The content of a statistics file."""

    signature: str
    params: Parameters
    stage_names: list[str]
    setid: str | None
    systems: list[tuple[str, list[Stats]]]
    seg_ids: list[str]
    docs: list[str] | None

    @property
    def system_score(self) -> str:
        """The ``system_score`` rule the rows were scored under (their signature says)."""
        return system_score_rule(self.signature)


def read_stats(path: str) -> StatsFile:
    """Read a file written by :func:`write_stats` (or ``score --format json``)."""
    lines = read_lines(path)
    if lines and lines[0].lstrip().startswith("{"):
        return _read_stats_json(path, "\n".join(lines))
    if not lines or lines[0].strip() != STATS_MAGIC:
        raise InputError(
            f"{path} is not a meteorx statistics file (written by 'meteorx score --stats-out')"
        )
    meta: dict[str, str] = {}
    body = []
    for line in lines[1:]:
        if line.startswith("# ") and ":" in line:
            key, _, value = line[2:].partition(":")
            meta[key.strip()] = value.strip()
        elif line.strip():
            body.append(line)
    if "parameters" not in meta or "signature" not in meta or not body:
        raise InputError(f"{path}: statistics file without parameters, signature or header")
    params, stage_names = _params_from_dict(load_json(meta["parameters"], path), path)
    header = body[0].split("\t")
    expected = ["system", "document", "segment", *stats_columns(stage_names)]
    if header != expected:
        raise InputError(f"{path}: unexpected columns (expected {' '.join(expected)})")
    systems: dict[str, list[Stats]] = {}
    ids: dict[str, list[tuple[str, str]]] = {}
    for number, line in enumerate(body[1:], 2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise InputError(f"{path}: row {number} has {len(fields)} fields, not {len(header)}")
        try:
            values = [float(v) for v in fields[3:]]
        except ValueError:
            raise InputError(f"{path}: row {number} has a non-numeric statistic") from None
        systems.setdefault(fields[0], []).append(
            checked_stats(values, header[3:], f"{path}, row {number}")
        )
        ids.setdefault(fields[0], []).append((fields[1], fields[2]))
    if not ids:
        raise InputError(_NO_ROWS.format(path=path))
    keys = list(ids.values())
    for name, k in ids.items():
        if k != keys[0]:
            raise InputError(
                f"{path}: system {name!r} does not have the same segments as the first"
            )
    docs = [d for d, _ in keys[0]]
    return StatsFile(
        signature=meta["signature"],
        params=params,
        stage_names=stage_names,
        setid=meta.get("setid"),
        systems=list(systems.items()),
        seg_ids=[s for _, s in keys[0]],
        docs=docs if any(docs) else None,
    )


_NO_ROWS = "{path}: no statistics rows (the scored input had no segments)"


def checked_stats(values: Sequence[Any], columns: Sequence[str], where: str) -> Stats:
    """A statistics row as :class:`Stats`, refused unless it could have been counted.

    Every value is a whole number >= 0 (no NaN, infinity, fraction or sign; soft
    credit's block holds similarities, so fractions >= 0 there), function words and
    matches do not exceed the words (content matches the content words, function-word
    matches the function words), and chunks do not exceed matched words: a row that
    breaks these would print a wrong score (even one above 1) without any error.
    """
    if len(values) != len(columns):
        raise InputError(f"{where}: {len(values)} statistics, expected {len(columns)}")
    for name, value in zip(columns, values, strict=True):
        fraction = name.startswith(f"{SOFT_CREDIT}:")
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0 <= value <= 1e15  # (before isfinite: a huge int does not overflow)
            or not math.isfinite(value)
            or (value != int(value) and not fraction)
        ):
            kind = "a number >= 0" if fraction else "a count (a whole number >= 0)"
            raise InputError(f"{where}: {name} = {quote(value, 40)} is not {kind}")
    stats = Stats.from_list([float(v) for v in values])
    for side in ("hyp", "ref"):
        length = getattr(stats, f"{side}_len")
        checks = [
            (f"{side}_function", getattr(stats, f"{side}_function")),
            (f"{side} matches", getattr(stats, f"{side}_matches")),
            (f"{side}_matched_words", getattr(stats, f"{side}_matched_words")),
        ]
        for name, value in checks:
            if value > length:
                raise InputError(f"{where}: {name} ({value:g}) exceeds {side}_len ({length:g})")
        function = getattr(stats, f"{side}_function")
        content_matches = sum(getattr(stats, f"{side}_content_matches"))
        function_matches = sum(getattr(stats, f"{side}_function_matches"))
        if content_matches > length - function or function_matches > function:
            raise InputError(
                f"{where}: more {side} content or function-word matches than content or "
                "function words"
            )
    if stats.chunks > min(stats.hyp_matched_words, stats.ref_matched_words):
        raise InputError(f"{where}: more chunks ({stats.chunks:g}) than matched words")
    return stats


def check_parameters(params: Parameters, where: str) -> None:
    """α, γ, δ and the weights in [0, 1], β finite and >= 0 (NaN refused)."""
    ranges = [("alpha", params.alpha), ("gamma", params.gamma), ("delta", params.delta)]
    ranges += [(f"weight {i + 1}", w) for i, w in enumerate(params.weights)]
    for name, value in ranges:
        if not 0.0 <= value <= 1.0:
            raise InputError(f"{where}: {name} = {value!r} is outside 0..1")
    if not (math.isfinite(params.beta) and params.beta >= 0.0):
        raise InputError(f"{where}: beta = {params.beta!r} must be a finite number >= 0")


def _number(value: Any) -> float:
    """A JSON number as a float; TypeError for anything else (``"0.5"``, ``true``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(value)
    return float(value)


def _params_from_dict(data: Any, path: str) -> tuple[Parameters, list[str]]:
    if not isinstance(data, dict):
        raise InputError(f"{path}: the parameters are not a JSON object")
    fmean = data.get("fmean", "harmonic")
    if fmean not in ("harmonic", "nltk"):
        raise InputError(f"{path}: unknown fmean {str(fmean)[:40]!r} (harmonic or nltk)")
    rule = data.get("perfect_match_rule")
    if not isinstance(rule, bool):
        raise InputError(
            f"{path}: perfect_match_rule must be true or false, not {str(rule)[:40]!r}"
        )
    try:
        params = Parameters(
            alpha=_number(data["alpha"]),
            beta=_number(data["beta"]),
            gamma=_number(data["gamma"]),
            delta=_number(data["delta"]),
            weights=tuple(_number(w) for w in data["weights"]),
            perfect_match_rule=rule,
            fmean_form=fmean,
        )
        stages = [str(s) for s in data["stages"]]
        params = replace(params, aligned_blocks=aligned_blocks(stages))
    except (KeyError, TypeError, ValueError, OverflowError):
        raise InputError(f"{path}: incomplete parameters in the statistics file") from None
    if len(stages) != len(params.weights):
        raise InputError(f"{path}: {len(stages)} stages but {len(params.weights)} weights")
    check_parameters(params, path)
    return params, stages


def _read_stats_json(path: str, text: str) -> StatsFile:
    data = load_json(text, path)
    if not isinstance(data, dict) or "parameters" not in data or "signature" not in data:
        raise InputError(f"{path}: JSON output without 'parameters' and 'signature'")
    params, stage_names = _params_from_dict(data["parameters"], path)
    columns = stats_columns(stage_names)
    try:
        entries = data.get("systems", [data])
        systems = []
        first: list[dict[str, Any]] | None = None
        for entry in entries:
            segs = entry.get("segments")
            if segs is None:
                raise InputError(
                    f"{path}: no segment statistics (was it written with --system-only?)"
                )
            first = segs if first is None else first
            if len(segs) != len(first):
                raise InputError(f"{path}: systems with different numbers of segments")
            records = [
                checked_stats(s["stats"], columns, f"{path}, segment {i}")
                for i, s in enumerate(segs, 1)
            ]
            systems.append((str(entry["hyp"]), records))
        if not first:  # no system, or systems without segments: as a TSV without rows
            raise InputError(_NO_ROWS.format(path=path))
        docs = [str(s["document"]) for s in first] if first and "document" in first[0] else None
        seg_ids = [str(s.get("id", s["segment"])) for s in first]
    except (KeyError, TypeError, AttributeError):
        raise InputError(f"{path}: not the JSON output of 'meteorx score'") from None
    return StatsFile(str(data["signature"]), params, stage_names, None, systems, seg_ids, docs)


def checked_record(stats: object, block_names: Sequence[str], where: str = "rescore") -> Stats:
    """``stats`` itself, once it is known to be a :class:`Stats` record of at most
    ``block_names``' blocks that could have been counted (:func:`checked_stats`): what
    :meth:`Scorer.rescore <meteorx.metric.Scorer.rescore>` is given."""
    if not isinstance(stats, Stats):
        raise InputError(
            f"{where}: a Stats record is needed (such as SegmentResult.stats), "
            f"not {type(stats).__name__}"
        )
    segments = stats.segments
    if isinstance(segments, bool) or not isinstance(segments, int) or segments < 0:
        raise InputError(f"{where}: segments = {quote(segments, 40)} is not a count")
    try:
        row = Layout(len(block_names)).row(stats)
    except (TypeError, ValueError, IndexError) as error:
        raise InputError(f"{where}: not a record of {len(block_names)} blocks ({error})") from None
    checked_stats(row, stats_columns(block_names), where)
    return stats
