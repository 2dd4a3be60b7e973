"""Values of numeric options, checked as argparse parses them (``type=``): an
out-of-range value is argparse's one-line error naming the option."""

from __future__ import annotations

import argparse

__all__ = [
    "MAX_PRECISION",
    "MAX_RESAMPLES",
    "MAX_SEED",
    "decimal_places",
    "non_negative_int",
    "positive_int",
    "resample_count",
    "seed_number",
]

#: The most bootstrap resamples or randomisation trials a run may ask for: memory and
#: time grow with them (a trillion trials would allocate terabytes), and p-values do
#: not need more.
MAX_RESAMPLES = 1_000_000
#: Random seeds are what NumPy's generators take: 0 <= seed < 2**32.
MAX_SEED = 2**32 - 1


def resample_count(text: str) -> int:
    """--n-bootstrap, --ar-trials, --samples: 1..MAX_RESAMPLES."""
    value = positive_int(text)
    if value > MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_RESAMPLES:,}, got {value:,}")
    return value


def seed_number(text: str) -> int:
    """--seed: 0..MAX_SEED, checked here rather than by NumPy in the middle of a run."""
    return _zero_to(MAX_SEED, text)


#: A double has 17 significant digits: more decimals print noise.
MAX_PRECISION = 17


def decimal_places(text: str) -> int:
    """--precision: 0..MAX_PRECISION decimals."""
    return _zero_to(MAX_PRECISION, text)


def non_negative_int(text: str) -> int:
    return _whole_number(text, 0, "must be 0 or more")


def positive_int(text: str) -> int:
    return _whole_number(text, 1, "must be at least 1")


def _zero_to(maximum: int, text: str) -> int:
    """``text`` as an int in 0..``maximum``, the range its error names."""
    value = non_negative_int(text)
    if value > maximum:
        raise argparse.ArgumentTypeError(f"must be 0..{maximum}, got {value}")
    return value


def _whole_number(text: str, minimum: int, wording: str) -> int:
    """``text`` as an int of at least ``minimum``; else argparse's error, ``wording``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{wording}, got {value}")
    return value
