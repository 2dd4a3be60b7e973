"""Coverage-guided fuzzing of scoring and line reading with atheris (libFuzzer).

    pip install atheris
    python fuzz/fuzz_score.py -max_total_time=300 -max_len=4096 -timeout=20 fuzz/corpus

Each input picks a configuration (``li`` English, ``meteor-2005`` exact + stem,
``meteor-1.5-pt``, ``meteor-1.5-en`` with ``-norm`` when its resources are installed)
and scores a hypothesis against one to three references made of arbitrary Unicode
(no lone surrogates: that known failure is pinned in tests/test_hostile.py), or feeds
arbitrary bytes to the streaming line reader. Checked: only
:class:`~meteorx.errors.MeteorxError` may be raised, scores are in [0, 1], an identical
non-empty hypothesis scores 1.0 under the Meteor 1.5 presets, and the streaming reader
gives the lines (or the error) the batch reader gives. Segments are cut to 80 words a
side so that the fuzzer explores inputs instead of timing alignments (tests/test_hostile.py
covers sizes). A crash is written to ``crash-<sha1>``; reproduce with
``python fuzz/fuzz_score.py crash-<sha1>``.
"""

from __future__ import annotations

import io
import sys

import atheris

with atheris.instrument_imports():
    from meteorx.errors import InputError, MeteorxError
    from meteorx.metric import Scorer
    from meteorx.streaming import LineReader

CONFIGS = [
    ("li", {"language": "en"}, True),
    (
        {
            "extends": "meteor-2005",
            "stages": [
                {"matcher": "exact", "weight": 1.0},
                {"matcher": "stem", "weight": 1.0, "algorithm": "porter"},
            ],
        },
        {},
        False,
    ),
    ("meteor-1.5-pt", {}, True),
    ("meteor-1.5-en", {"normalize": "meteor"}, True),
]
SCORERS: list[tuple[Scorer, bool]] = []
for config, kwargs, perfect in CONFIGS:
    try:
        SCORERS.append((Scorer(config, **kwargs), perfect))
    except MeteorxError as error:  # e.g. no WordNet here
        print(f"skipping {config}: {error}", file=sys.stderr)

MAX_WORDS = 80


def _cut(text: str) -> str:
    words = text.split()
    return " ".join(words[:MAX_WORDS]) if len(words) > MAX_WORDS else text


def _batch_lines(data: bytes) -> list[str] | None:
    """What meteorx.inputs.read_lines returns for these bytes (None: invalid UTF-8)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def check_reader(data: bytes) -> None:
    want = _batch_lines(data)
    try:
        got = list(LineReader("-", stdin=io.BytesIO(data)))
    except InputError:
        assert want is None, "reader rejected valid UTF-8"
        return
    assert got == want, (got, want)


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    choice = fdp.ConsumeIntInRange(0, len(SCORERS))
    if choice == len(SCORERS):
        check_reader(fdp.ConsumeBytes(fdp.remaining_bytes()))
        return
    scorer, perfect = SCORERS[choice]
    hyp = _cut(fdp.ConsumeUnicodeNoSurrogates(300))
    refs = [_cut(fdp.ConsumeUnicodeNoSurrogates(300)) for _ in range(fdp.ConsumeIntInRange(1, 3))]
    same = fdp.ConsumeBool()
    if same:
        refs[0] = hyp
    try:
        result = scorer.segment(hyp, refs)
    except MeteorxError:
        return
    assert 0.0 <= result.score <= 1.0, result.score
    if same and perfect and result.hyp_tokens:
        assert result.score == 1.0, (hyp, result.score)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
