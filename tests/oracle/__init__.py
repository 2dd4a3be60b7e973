"""Test oracle for meteorx: the reference Meteor 1.5 jar (from ``pycocoevalcap``).

See :mod:`tests.oracle.jar`.
"""

from .jar import (
    JarError,
    JarResult,
    JarUnavailable,
    SegmentVerbose,
    SufficientStats,
    cache_dir,
    find_jar,
    find_paraphrase_table,
    jar_function_words,
    jar_sha256,
    jar_stems,
    parse_output,
    require_jar,
    run_jar,
    unavailable_reason,
)

__all__ = [
    "JarError",
    "JarResult",
    "JarUnavailable",
    "SegmentVerbose",
    "SufficientStats",
    "cache_dir",
    "find_jar",
    "find_paraphrase_table",
    "jar_function_words",
    "jar_sha256",
    "jar_stems",
    "parse_output",
    "require_jar",
    "run_jar",
    "unavailable_reason",
]
