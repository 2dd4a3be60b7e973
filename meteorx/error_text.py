"""How error messages word what they are given: a value quoted (:func:`quote`), a
plugin's exception in one line (:func:`describe_error`), a configuration's validation
errors in one line (:func:`format_validation_error`), and the allowed range of a
parameter given out of it (:func:`out_of_range`). No message grows with its input.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ValidationError

from meteorx.errors import QUOTE_LIMIT, cut


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters, so that no message grows with its input."""
    if isinstance(value, (dict, list, tuple, set)) and len(value) > limit:
        return f"<{type(value).__name__} of {len(value)} items>"
    if isinstance(value, int) and value.bit_length() > 1000:  # (repr refuses 4,300 digits)
        return f"<an int of {value.bit_length():,} bits>"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def describe_error(error: BaseException) -> str:
    """``Type: message`` of an exception a plugin raised, cut to one short line."""
    return cut(" ".join(f"{type(error).__name__}: {error}".split()), 200)


# Allowed ranges, quoted in error messages next to the offending value.
_RANGES = {
    "alpha": "0 <= alpha <= 1",
    "beta": "beta >= 0",
    "gamma": "0 <= gamma <= 1",
    "delta": "0 <= delta <= 1",
    "weight": "0 <= weight <= 1",
}


def _bounds(model: type[BaseModel], field: str) -> tuple[Any, Any]:
    """A field's inclusive bounds ``(ge, le)``, each None when it has none."""
    info = model.model_fields.get(field)
    low = high = None
    for bound in info.metadata if info is not None else ():
        low = getattr(bound, "ge", low)
        high = getattr(bound, "le", high)
    return low, high


def _allowed(model: type[BaseModel], field: str) -> str | None:
    """A field's allowed range, from its bounds (``1 <= beam_size <= 2147483647``)."""
    low, high = _bounds(model, field)
    if low is None:
        return None if high is None else f"{field} <= {high}"
    return f"{field} >= {low}" if high is None else f"{low} <= {field} <= {high}"


def out_of_range(name: str, value: float) -> str | None:
    """The allowed range of parameter ``name`` (alpha, beta, gamma, delta, or a stage's
    ``weight``), worded as configuration errors word it (``0 <= alpha <= 1``), if
    ``value`` is outside it or not a finite number; else None. The bounds are the
    configuration's own, for callers that check a value given outside a configuration
    (``meteorx combine --alpha``)."""
    from meteorx.config_models import MeteorConfig, StageConfig  # (they import this module)

    low, high = _bounds(StageConfig if name == "weight" else MeteorConfig, name)
    if math.isfinite(value) and (low is None or value >= low) and (high is None or value <= high):
        return None
    return _RANGES[name]


#: At most this many problems are listed in one message.
_MAX_PROBLEMS = 5


def format_validation_error(
    error: ValidationError,
    source: str,
    prefix: tuple[str, ...] = (),
    model: type[BaseModel] | None = None,
) -> str:
    """One line for a validation error; ``prefix`` is where ``model`` (validating part
    of the configuration, such as the aligner's options) sits in it."""
    parts = []
    problems = error.errors()
    for item in problems[:_MAX_PROBLEMS]:
        loc = ".".join(cut(str(p)) for p in (*prefix, *item["loc"])) or "(top level)"
        msg = cut(item["msg"].removeprefix("Value error, "), 4 * QUOTE_LIMIT)
        if item["type"] == "extra_forbidden":
            msg = "unknown key (check the spelling)"
        field = str(item["loc"][-1]) if item["loc"] else ""
        allowed = _RANGES.get(field) if model is None else _allowed(model, field)
        if allowed is not None and item["type"] != "extra_forbidden":
            msg += f" (allowed: {allowed}; got {quote(item.get('input'))})"
        parts.append(f"{loc}: {msg}")
    if len(problems) > _MAX_PROBLEMS:
        parts.append(f"and {len(problems) - _MAX_PROBLEMS} more")
    return f"invalid configuration in {source}: " + "; ".join(parts)
