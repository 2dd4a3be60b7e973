"""The ``normalize`` shorthands and the settings each stands for: the one list of them.

A configuration may write ``normalize: lower`` (:mod:`meteorx.config` expands it), and
the command line offers the same names as ``--norm``'s choices. Free of imports, so the
command line can build its parser without loading the configuration model.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NORMALIZE_SHORTHANDS"]

NORMALIZE_SHORTHANDS: dict[str, dict[str, Any]] = {
    "none": {"tokenizer": "auto", "lowercase": False, "punctuation": "keep"},
    "lower": {"tokenizer": "auto", "lowercase": True, "punctuation": "keep"},
    "meteor": {"tokenizer": "meteor", "lowercase": True, "punctuation": "keep"},
    "meteor-nopunct": {"tokenizer": "meteor-nopunct", "lowercase": True, "punctuation": "keep"},
}
