"""Scoring in several processes gives exactly the single-process results (meteorx.parallel)."""

from __future__ import annotations

import io
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from meteorx import engine
from meteorx.cli.main import main
from meteorx.metric import Scorer
from meteorx.parallel import score_pairs
from meteorx.progress import progress_bar

REPO = Path(__file__).resolve().parents[1]


def _pairs(n: int) -> list[tuple[str, list[str]]]:
    rng = random.Random(5)
    words = [
        "the",
        "a",
        "cats",
        "cat",
        "dog",
        "dogs",
        "sat",
        "sits",
        "on",
        "under",
        "mat",
        "mats",
        "house",
        "houses",
        "big",
        "small",
    ]
    out = []
    for _ in range(n):
        ref = [rng.choice(words) for _ in range(rng.randint(0, 14))]
        hyp = [w if rng.random() < 0.7 else rng.choice(words) for w in ref]
        if rng.random() < 0.2:
            rng.shuffle(hyp)
        out.append((" ".join(hyp), [" ".join(ref), " ".join(reversed(ref))]))
    return out


@pytest.mark.parametrize("jobs", [2, 3])
def test_identical_results(jobs: int) -> None:
    scorer = Scorer("li", language="en")
    pairs = _pairs(400)
    serial = score_pairs(scorer, pairs, jobs=1)
    parallel = score_pairs(scorer, pairs, jobs=jobs)
    # Scores, statistics, alignments, tokens, best reference (repr: nan == nan).
    assert repr(parallel) == repr(serial)


def test_few_pairs_stay_in_process() -> None:
    scorer = Scorer("li", language="en")
    assert repr(score_pairs(scorer, _pairs(3), jobs=4)) == repr(score_pairs(scorer, _pairs(3)))


def test_progress_counts_every_segment() -> None:
    class Counter:
        total = 0

        def update(self, n: int = 1) -> None:
            self.total += n

    counter = Counter()
    score_pairs(Scorer("li", language="en"), _pairs(100), jobs=2, progress=counter)
    assert counter.total == 100


def test_progress_bar_is_silent_when_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with progress_bar(10) as bar:  # stderr is not a terminal
        bar.update(10)
    with progress_bar(10, enabled=False) as bar:  # --quiet
        bar.update(10)
    assert err.getvalue() == ""


def test_progress_bar_draws_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tqdm")

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with progress_bar(5, "scoring", enabled=True) as bar:
        bar.update(5)
    # tqdm waits 2 s before drawing, so a quick run leaves stderr clean.
    assert "scoring" not in err.getvalue()


def test_cli_jobs_gives_identical_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = _pairs(120)
    hyp = tmp_path / "h.txt"
    ref = tmp_path / "r.txt"
    hyp.write_text("\n".join(h or "x" for h, _ in pairs) + "\n")
    ref.write_text("\n".join(r[0] or "y" for _, r in pairs) + "\n")
    args = [
        "score",
        "-H",
        str(hyp),
        "-H",
        str(ref),
        "-r",
        str(ref),
        "-p",
        "li",
        "-l",
        "en",
        "-f",
        "json",
    ]
    assert main([*args, "--jobs", "1"]) == 0
    one = capsys.readouterr().out
    assert main([*args, "--jobs", "2", "--quiet"]) == 0
    two = capsys.readouterr().out
    assert one == two


def test_worker_errors_reach_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from meteorx.errors import MeteorxError

    scorer = Scorer("li", language="en")
    original = scorer.segment
    parent = os.getpid()

    def segment(hyp: object, refs: object) -> object:
        if os.getpid() != parent:  # fail in the worker processes only
            raise MeteorxError("bad segment")
        return original(hyp, refs)  # type: ignore[arg-type]

    monkeypatch.setattr(scorer, "segment", segment)
    with pytest.raises(MeteorxError, match="bad segment"):
        score_pairs(scorer, _pairs(3000), jobs=2)


def test_a_dead_worker_is_an_error_not_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from meteorx.errors import MeteorxError

    scorer = Scorer("li", language="en")
    original = scorer.segment
    parent = os.getpid()

    def segment(hyp: object, refs: object) -> object:
        if os.getpid() != parent:
            os._exit(3)  # a worker killed without a word (e.g. by the OOM killer)
        return original(hyp, refs)  # type: ignore[arg-type]

    monkeypatch.setattr(scorer, "segment", segment)
    with pytest.raises(MeteorxError, match="worker process died"):
        score_pairs(scorer, _pairs(3000), jobs=2)


def test_results_without_detail() -> None:
    from meteorx.transfer import without_detail

    scorer = Scorer("li", language="en")
    pairs = _pairs(300)
    full = score_pairs(scorer, pairs, jobs=1)
    for jobs in (1, 2):
        light = score_pairs(scorer, pairs, jobs=jobs, detail=False)
        assert repr(light) == repr([without_detail(r) for r in full])
        assert [r.stats for r in light] == [r.stats for r in full]
        assert [r.alignment.chunks for r in light] == [r.alignment.chunks for r in full]
        assert all(r.alignment.matches == () and r.hyp_tokens == () for r in light)


def test_pack_round_trip() -> None:
    from meteorx.transfer import pack, unpack_all, without_detail

    scorer = Scorer("li", language="en")
    results = [scorer.segment(hyp, refs) for hyp, refs in _pairs(200)]
    results.append(scorer.segment("odd\x1ftoken here", ["odd\x1ftoken there"]))
    assert repr([unpack_all([pack(r)])[0] for r in results]) == repr(results)
    assert repr(unpack_all([pack(r) for r in results])) == repr(results)
    light = unpack_all([pack(r, detail=False) for r in results])
    assert repr(light) == repr([without_detail(r) for r in results])
    assert [r.stats for r in light] == [r.stats for r in results]


def test_token_list_references_in_processes() -> None:
    scorer = Scorer("li", language="en")
    pairs = [(hyp, [ref.split() for ref in refs]) for hyp, refs in _pairs(200)]
    serial = score_pairs(scorer, pairs, jobs=1)  # type: ignore[arg-type]
    assert repr(score_pairs(scorer, pairs, jobs=2)) == repr(serial)  # type: ignore[arg-type]


@pytest.mark.parametrize(("n_chunks", "n"), [(0, 2), (1, 2), (7, 2), (100, 3), (5, 8)])
def test_regions_hand_out_every_chunk_once_own_run_first(n_chunks: int, n: int) -> None:
    from meteorx.parallel import _Regions

    regions = _Regions(n_chunks, n)
    taken: list[int] = []
    # process 0 works alone: its own run in order, then the others' from their backs
    while (index := regions.take(0)) is not None:
        taken.append(index)
    assert sorted(taken) == list(range(n_chunks))
    own = n_chunks // n
    assert taken[:own] == list(range(own))
    assert regions.take(1) is None


# -- moving results between processes in C (meteorx/_transfer.pyx) ------------------

_transfer = pytest.importorskip("meteorx._transfer", reason="the C extension is not built")


@pytest.fixture
def compiled_engine() -> Iterator[None]:
    """The pool's transfer kernel is the compiled one, whatever $METEORX_ENGINE says."""
    with engine.use("c"):
        yield


def _types(value: object) -> object:
    """A value's structure with every leaf replaced by its type (repr hides int/float)."""
    if isinstance(value, tuple):
        return (type(value), tuple(_types(v) for v in value))
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return (type(value), tuple(_types(getattr(value, name)) for name in fields))
    return type(value)


def _round_trip(results: list, detail: bool = True) -> list:  # type: ignore[type-arg]
    from meteorx.worker_pool import decode_results, encode_results, transfer_kernel

    kernel = transfer_kernel()
    assert kernel is _transfer
    data, by_definition = encode_results(kernel, results, detail)
    assert not by_definition  # written in the compiled form
    return decode_results(kernel, data, by_definition)


@pytest.mark.usefixtures("compiled_engine")
def test_encoded_results_decode_to_the_same_records() -> None:
    from meteorx.transfer import without_detail

    scorer = Scorer("li", language="en")
    pairs = sorted(_pairs(300), key=lambda pair: pair[1])  # consecutive shared references
    results = [scorer.segment(hyp, refs) for hyp, refs in pairs]
    results.append(scorer.segment("odd\x1ftoken here ünïcödé 中文 😀", ["odd\x1ftoken there 中文"]))
    results.append(scorer.segment("", ["a b"]))
    decoded = _round_trip(results)
    assert repr(decoded) == repr(results)  # floats bit for bit: repr; nan as nan
    assert [_types(r) for r in decoded] == [_types(r) for r in results]
    assert all(
        type(m) is type(n)
        for r, d in zip(results, decoded, strict=True)
        for m, n in zip(r.alignment.matches, d.alignment.matches, strict=True)
    )
    light = _round_trip(results, detail=False)
    assert repr(light) == repr([without_detail(r) for r in results])
    # A reference shared by consecutive results travels once and is one tuple again.
    same = [i for i in range(1, len(results)) if results[i].ref_tokens is results[i - 1].ref_tokens]
    assert same
    assert all(decoded[i].ref_tokens is decoded[i - 1].ref_tokens for i in same)


@pytest.mark.usefixtures("compiled_engine")
def test_encoding_keeps_every_float_bit_and_int_size() -> None:
    from meteorx.metric import SEGMENT_FIELDS, SegmentResult
    from meteorx.scoring import BREAKDOWN_FIELDS, Breakdown
    from meteorx.stats import STATS_FIELDS, Stats
    from meteorx.types import ALIGNMENT_FIELDS, Alignment, Match, make_record

    floats = [0.0, -0.0, float("nan"), float("inf"), -float("inf"), 5e-324, 1.7976931348623157e308]
    ints = [0, 255, 256, -1, -(2**63), 2**63 - 1, True, False]
    stats = make_record(Stats, STATS_FIELDS, tuple(
        (floats + ints)[i % 15] if i not in (4, 5, 6, 7) else tuple(floats[: i - 2])
        for i in range(len(STATS_FIELDS))
    ))  # fmt: skip
    breakdown = make_record(Breakdown, BREAKDOWN_FIELDS, tuple(floats[: len(BREAKDOWN_FIELDS)]))
    matches = (Match(0, 1, 300, 2**40, 7), Match(-5, 0, 1, 1, 0))
    alignment = make_record(Alignment, ALIGNMENT_FIELDS, (matches, 2**62, None))
    result = make_record(SegmentResult, SEGMENT_FIELDS, (
        float("nan"), breakdown, stats, alignment, ("x", ""), ("", "ÿ"), 3,
    ))  # fmt: skip
    (decoded,) = _round_trip([result])
    assert repr(decoded) == repr(result)
    assert _types(decoded) == _types(result)
    assert [struct_bits(x) for x in decoded.breakdown.__dict__.values()] == [
        struct_bits(x) for x in breakdown.__dict__.values()
    ]


def struct_bits(value: float) -> bytes:
    import struct

    return struct.pack("<d", value)


def test_values_the_c_form_does_not_hold_fall_back_to_pickled_tuples() -> None:
    from meteorx.transfer import ENCODE_ARGS
    from meteorx.types import ALIGNMENT_FIELDS, Alignment, make_record
    from meteorx.worker_pool import decode_results, encode_results

    scorer = Scorer("li", language="en")
    results = [scorer.segment(hyp, refs) for hyp, refs in _pairs(20)]
    odd = [
        2**70,  # an int beyond 64 bits
        [1, 2],  # a list
        "lone \ud800 surrogate",  # not UTF-8
    ]
    for value in odd:
        a = results[3].alignment
        changed = list(results)
        changed[3] = make_record(
            type(results[3]),
            tuple(results[3].__dict__),
            tuple(
                make_record(Alignment, ALIGNMENT_FIELDS, (a.matches, value, a.optimal))
                if name == "alignment"
                else v
                for name, v in results[3].__dict__.items()
            ),
        )
        assert _transfer.encode(changed, True, *ENCODE_ARGS) is None
        data, by_definition = encode_results(_transfer, changed, True)
        assert by_definition  # the packed tuples, pickled (meteorx.transfer's form)
        assert repr(decode_results(_transfer, data, by_definition)) == repr(changed)


@pytest.mark.usefixtures("compiled_engine")
def test_corrupt_transfer_data_is_an_error_not_a_crash() -> None:
    from meteorx.transfer import DECODE_ARGS, ENCODE_ARGS

    def decode(data: bytes) -> object:
        return _transfer.decode(data, *DECODE_ARGS)

    scorer = Scorer("li", language="en")
    encoded = _transfer.encode([scorer.segment(h, r) for h, r in _pairs(30)], True, *ENCODE_ARGS)
    assert isinstance(encoded, bytes)
    for cut in (0, 1, 3, 4, 10, len(encoded) // 2, len(encoded) - 1):
        with pytest.raises(ValueError, match=r"corrupt|truncated"):
            decode(encoded[:cut])
    with pytest.raises(ValueError, match="left over"):
        decode(encoded + b"\x00")
    bad_tag = bytearray(encoded)
    bad_tag[4] = 200  # the first result's score tag
    with pytest.raises(ValueError, match="tag 200"):
        decode(bytes(bad_tag))


def test_the_c_form_assumes_these_field_orders() -> None:
    from meteorx.metric import SEGMENT_FIELDS
    from meteorx.types import ALIGNMENT_FIELDS

    # _transfer.decode sets the fields in this order (as transfer.pack reads them).
    assert SEGMENT_FIELDS == (
        "score", "breakdown", "stats", "alignment", "hyp_tokens", "ref_tokens", "ref_index",
    )  # fmt: skip
    assert ALIGNMENT_FIELDS == ("matches", "chunks", "optimal")


def test_the_two_transfer_kernels_take_the_same_arguments() -> None:
    """meteorx.transfer is the compiled module's definition: the pool calls either."""
    import inspect

    from meteorx import transfer

    for name in ("encode", "decode"):
        compiled = list(inspect.signature(getattr(_transfer, name)).parameters)
        assert list(inspect.signature(getattr(transfer, name)).parameters) == compiled
    assert issubclass(transfer.Unsupported, Exception)
    assert issubclass(_transfer.Unsupported, Exception)
