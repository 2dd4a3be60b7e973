"""Coverage-guided fuzzing of the structured inputs (WMT SGML, JSONL, TSV) with atheris,
through the real readers, scoring, every writer and the statistics-file round trip.

    pip install atheris
    python fuzz/fuzz_inputs.py --engine compiled -max_total_time=600 -max_len=8192 corpus/
    python fuzz/fuzz_inputs.py --engine python -max_total_time=600 -max_len=8192 corpus/

The first byte picks the format and the configuration, the second the table options
(a second reference column ``ref2``, the ``doc`` and ``id`` columns, the references
read from the table given again as a reference file). The rest is the file: for SGML,
the test set, and after a line ``====`` the reference set (else the reference set is
the test set with ``tstset`` renamed ``refset``, so that segments match and scoring
runs). An empty corpus folder is seeded with valid files of each format.
``--engine python`` blocks meteorx's compiled modules before import, so every fallback
written in Python runs instead (the default, ``compiled``, requires them).

Checked for each input: reading either succeeds or raises :class:`MeteorxError` (any
other exception is a crash); every score is a number in [0, 1]; the JSON output is
strict JSON (no NaN); the text output has one line per segment (TSV is written too);
and the statistics file written for ``meteorx combine`` reads back to the same
statistics, identifiers and system scores. Writing and reading back must not raise at all.
A crash is written to ``crash-<sha1>``; ``python fuzz/fuzz_inputs.py crash-<sha1>``
reproduces it.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _engine import take_engine_option, use_engine

ENGINE = take_engine_option(sys.argv)
use_engine(ENGINE)

with atheris.instrument_imports():
    from meteorx import formats
    from meteorx.cli.evaluate import build_report
    from meteorx.errors import MeteorxError
    from meteorx.metric import Scorer
    from meteorx.parallel import score_pairs
    from meteorx.scoring import breakdown_of
    from meteorx.stats import sum_stats

CONFIGS: list[tuple[Any, dict[str, Any]]] = [
    ("li", {"language": "en"}),
    (
        {
            "extends": "meteor-2005",
            "stages": [
                {"matcher": "exact", "weight": 1.0},
                {"matcher": "stem", "weight": 1.0, "algorithm": "porter"},
            ],
        },
        {},
    ),
    ("meteor-1.5-en", {"normalize": "meteor"}),
]
SCORERS: list[Scorer] = []
for config, kwargs in CONFIGS:
    try:
        SCORERS.append(Scorer(config, **kwargs))
    except MeteorxError as error:  # e.g. no WordNet here
        print(f"skipping {config}: {error}", file=sys.stderr)
if ENGINE == "python":
    assert all(s._alignment_stats is None for s in SCORERS), "compiled path still in use"

FORMATS = ("sgml", "jsonl", "tsv")
MAX_CHARS = 2_000  # per segment: the fuzzer explores inputs, not alignment time
WORK = Path(
    tempfile.mkdtemp(prefix="meteorx-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
)
HYP = WORK / "hyp"
REF = WORK / "ref"
STATS = WORK / "stats.tsv"

SEEDS = {
    "sgml": b'<tstset setid="t" srclang="de" trglang="en" sysid="A">\n<doc docid="d1">\n'
    b'<seg id="1">the cat sat on the mat</seg>\n<seg id="2">a &amp; b &lt;c&gt;</seg>\n'
    b'</doc>\n<doc docid="d2">\n<seg id=1>big house</seg>\n</doc>\n'
    b'<doc docid="d2" sysid="B">\n<seg id=1>a house</seg>\n</doc>\n<doc docid="d1" sysid="B">'
    b'\n<seg id="2">a b c</seg>\n<seg id="1">the cat</seg>\n</doc>\n</tstset>\n'
    b"====\n"
    b'<refset setid="t" srclang="de" trglang="en" refid="r1">\n<doc docid="d1">\n'
    b'<seg id="1">the cat sat on a mat</seg>\n<seg id="2">a and b</seg>\n</doc>\n'
    b'<doc docid="d2">\n<seg id="1">the large house</seg>\n</doc>\n</refset>\n',
    "jsonl": b'{"hyp": "the cat sat", "ref": "the cat sat on the mat", "doc": "d", "id": "1"}\n'
    b'{"hyp": "hello world", "ref": ["hello there world", "hi world"], "doc": "d", "id": "2"}\n',
    "tsv": b"hyp\tref\tref2\tdoc\tid\nthe cat sat\tthe cat sat down\ta cat sat\td1\ts1\n"
    b"big house\tlarge house\tthe house\td1\ts2\n",
}


def seed_corpus(folder: str) -> None:
    """Valid files of each format in an empty corpus folder (prefixed with the two
    control bytes that select them)."""
    path = Path(folder)
    if not path.is_dir() or any(path.iterdir()):
        return
    for k, (fmt, body) in enumerate(SEEDS.items()):
        for flags in (0, 15):
            (path / f"seed-{fmt}-{flags}").write_bytes(bytes([k, flags]) + body)


def check_outputs(report: formats.Report, n_segments: int) -> None:
    """Every writer runs; the outputs are well formed."""
    text = io.StringIO()
    formats.write_text(report, text)
    lines = text.getvalue().split("\n")[:-1]
    assert len(lines) == len(report.systems) * (n_segments + 1) + 1 + sum(
        len(s.documents or []) for s in report.systems
    ), lines[:5]
    tsv = io.StringIO()
    formats.write_tsv(report, tsv)
    out = io.StringIO()
    formats.write_json(report, out)

    def no_constant(name: str) -> None:
        raise AssertionError(f"JSON output holds {name}")

    json.loads(out.getvalue(), parse_constant=no_constant)


def check_stats_round_trip(report: formats.Report) -> None:
    """``--stats-out`` then ``meteorx combine``'s reader: the same numbers come back."""
    with STATS.open("w", encoding="utf-8") as handle:
        formats.write_stats(report, handle)
    back = formats.read_stats(str(STATS))
    assert [name for name, _ in back.systems] == [s.name for s in report.systems]
    assert back.seg_ids == report.seg_ids
    assert back.docs == (report.docs if report.docs and any(report.docs) else None)
    for (_, records), system in zip(back.systems, report.systems, strict=True):
        assert [r.to_list() for r in records] == [s.stats.to_list() for s in system.segments]
        assert breakdown_of(sum_stats(records), back.params).score == system.system.score


def test_one_input(data: bytes) -> None:
    if len(data) < 2 or not SCORERS:
        return
    fmt = FORMATS[data[0] % len(FORMATS)]
    scorer = SCORERS[(data[0] // len(FORMATS)) % len(SCORERS)]
    flags = data[1]
    body = data[2:]
    columns: dict[str, object] = {}
    refs: list[str] = []
    if fmt == "sgml":
        hyp_part, sep, ref_part = body.partition(b"\n====\n")
        if not sep:
            ref_part = hyp_part.replace(b"tstset", b"refset").replace(b"sysid", b"refid")
        HYP.write_bytes(hyp_part)
        REF.write_bytes(ref_part)
        refs = [str(REF)]
    else:
        HYP.write_bytes(body)
        columns = {
            "hyp_columns": ["hyp"],
            "ref_columns": ["ref", "ref2"] if flags & 1 else ["ref"],
            "doc_column": "doc" if flags & 2 else None,
            "id_column": "id" if flags & 4 else None,
        }
        if flags & 8:  # references in a second table (the same file)
            refs = [str(HYP)]
    try:
        testset = formats.read_input(fmt, [str(HYP)], refs, max_chars=MAX_CHARS, **columns)  # type: ignore[arg-type]
    except MeteorxError:
        return
    pairs = [
        (h, refs) for _, hyps in testset.systems for h, refs in zip(hyps, testset.refs, strict=True)
    ]
    try:
        flat = score_pairs(scorer, pairs, jobs=1, detail=False)
    except MeteorxError:
        return  # e.g. a language's tokenizer refusing text: a clean error
    for result in flat:
        assert 0.0 <= result.score <= 1.0, result.score
    n = len(testset.refs)
    results = [flat[k * n : (k + 1) * n] for k in range(len(testset.systems))]
    report = build_report(
        [name for name, _ in testset.systems],
        [[r.stats for r in system] for system in results],
        scorer.params,
        [s.stage_name for s in scorer.config.stages],
        "fuzz|refs:1",
        testset.seg_ids,
        testset.docs,
        testset.setid,
        results=results,
    )
    check_outputs(report, n)
    if n:  # (a statistics file without rows is refused by the reader, as it should)
        check_stats_round_trip(report)


def main() -> None:
    for arg in sys.argv[1:]:
        if not arg.startswith("-"):
            seed_corpus(arg)
    print(f"engine: {ENGINE}; configurations: {len(SCORERS)}", file=sys.stderr)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
