"""Input and output formats: plain text, TSV, JSONL, WMT SGML, statistics files.

The package has three parts: :mod:`~meteorx.formats.model` (the test set read in, the
scored systems and report written out, the statistics file's columns), the readers
(:mod:`~meteorx.formats.readers`: any input format, and plain text;
:mod:`~meteorx.formats.tables`: TSV and JSONL; :mod:`~meteorx.formats.sgml`: WMT SGML;
:mod:`~meteorx.formats.input_checks`: JSON text and identifiers, checked alike by all;
statistics files read back in :mod:`~meteorx.formats.stats_file`) and
:mod:`~meteorx.formats.writers` (every output; JSON in
:mod:`~meteorx.formats.json_writer`). The names below are importable from
``meteorx.formats`` itself.

Reading gives a :class:`TestSet`: the hypotheses of one or more systems and the
references, aligned by segment, with document and segment identifiers when the format
has them. Writing turns scored systems (:class:`ScoredSystem`) into text, JSON, TSV,
the jar's ``.scr`` files or a statistics file that ``meteorx combine`` can re-score
later; every output carries the signature.

Formats
-------
``text``
    One segment a line (the default; several ``--ref`` files = several references).
``tsv``
    Tab-separated with a header row naming the columns; ``--hyp-column`` (repeatable:
    several systems in one table) and ``--ref-column`` (repeatable: several references)
    pick the columns, ``--doc-column`` and ``--id-column`` optional ones.
``jsonl``
    One JSON object a line; same column options. A reference field may also hold a
    list of strings (several references).
``sgml``
    WMT SGML as read by Meteor 1.5's ``-sgml``: ``<tstset setid=…>`` / ``<refset>``,
    ``<doc sysid=… docid=…>``, ``<seg id=…>``. A test file may hold several systems,
    a reference file several references (``sysid``). Entities ``&quot; &apos; &lt; &gt;
    &amp;`` are unescaped, as the jar does.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from meteorx.formats.model import (
        STATS_MAGIC,
        Report,
        Scored,
        ScoredSystem,
        TestSet,
        document_scores,
        stats_columns,
    )
    from meteorx.formats.readers import INPUT_FORMATS, read_input, read_text
    from meteorx.formats.sgml import read_sgml, read_sgml_file, unescape_sgml
    from meteorx.formats.stats_file import StatsFile, read_stats
    from meteorx.formats.tables import read_table
    from meteorx.formats.writers import (
        scr_paths,
        write_json,
        write_scr,
        write_stats,
        write_text,
        write_tsv,
    )

#: Where each name is defined: imported when first asked for, so a run imports the
#: readers and writers of its own formats only.
_HOMES = {
    **dict.fromkeys(
        (
            "STATS_MAGIC",
            "Report",
            "Scored",
            "ScoredSystem",
            "TestSet",
            "document_scores",
            "stats_columns",
        ),
        "model",
    ),
    **dict.fromkeys(("INPUT_FORMATS", "read_input", "read_text"), "readers"),
    **dict.fromkeys(("read_sgml", "read_sgml_file", "unescape_sgml"), "sgml"),
    **dict.fromkeys(("StatsFile", "read_stats"), "stats_file"),
    "read_table": "tables",
    **dict.fromkeys(
        ("scr_paths", "write_json", "write_scr", "write_stats", "write_text", "write_tsv"),
        "writers",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'meteorx.formats' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"meteorx.formats.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "INPUT_FORMATS",
    "STATS_MAGIC",
    "Report",
    "Scored",
    "ScoredSystem",
    "StatsFile",
    "TestSet",
    "document_scores",
    "read_input",
    "read_sgml",
    "read_sgml_file",
    "read_stats",
    "read_table",
    "read_text",
    "scr_paths",
    "stats_columns",
    "unescape_sgml",
    "write_json",
    "write_scr",
    "write_stats",
    "write_text",
    "write_tsv",
]
