"""Scoring in several processes gives exactly the single-process results (meteorx.parallel)."""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path

import pytest

from meteorx.cli.main import main
from meteorx.parallel import progress_bar, score_pairs
from meteorx.scorer import Scorer

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
    import meteorx.parallel as parallel

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with parallel.progress_bar(5, "scoring", enabled=True) as bar:
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
    from meteorx.parallel import without_detail

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
    from meteorx.parallel import pack, unpack, unpack_all, without_detail

    scorer = Scorer("li", language="en")
    results = [scorer.segment(hyp, refs) for hyp, refs in _pairs(200)]
    results.append(scorer.segment("odd\x1ftoken here", ["odd\x1ftoken there"]))
    assert repr([unpack(pack(r)) for r in results]) == repr(results)
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
    import multiprocessing

    from meteorx.parallel import _Regions

    regions = _Regions(multiprocessing.get_context("fork"), n_chunks, n)
    taken: list[int] = []
    # process 0 works alone: its own run in order, then the others' from their backs
    while (index := regions.take(0)) is not None:
        taken.append(index)
    assert sorted(taken) == list(range(n_chunks))
    own = n_chunks // n
    assert taken[:own] == list(range(own))
    assert regions.take(1) is None
