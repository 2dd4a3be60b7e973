"""Meta-evaluation (meteorx.metaeval) and ``meteorx correlate``.

Every expected value below is worked out by hand in the comments, from the measures'
definitions (see meteorx/metaeval/), not taken from the implementation.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from meteorx import metaeval as M
from meteorx.cli.main import main

NAN = math.nan
ONE = np.ones((1, 1))


def value(measure: M.SegmentMeasure, scores: np.ndarray) -> float:
    return float(measure.values(np.asarray(scores, dtype=float), np.ones((1, scores.shape[1])))[0])


# Three systems A B C, three segments. Human (DA-like):
#   seg 0: A 90, B 60, C 65   seg 1: A 30, B 80, C 70   seg 2: A 10, B 50, C 90
# A's and C's translations of seg 1 are the same text.
HUMAN = np.array([[90.0, 30.0, 10.0], [60.0, 80.0, 50.0], [65.0, 70.0, 90.0]])
HYPS = [["a0", "same", "a2"], ["b0", "b1", "b2"], ["c0", " same ", "c2"]]
METRIC = np.array([[0.5, 0.3, 0.10], [0.5, 0.4, 0.20], [0.2, 0.3, 0.15]])


def test_darr_threshold_identical_and_ties() -> None:
    # Threshold 25 (more than 25 apart): seg 0 A>B (30); A-C is exactly 25: out; B-C 5:
    # out. seg 1: B>A (50); A-C identical text: out; B-C 10: out. seg 2: B>A, C>A, C>B.
    # Metric: seg 0 A=B is a tie -> discordant; seg 1 B .4 > A .3 concordant; seg 2
    # B>A and C>A concordant, C .15 < B .20 discordant. 5 pairs, 3 concordant:
    # tau = (3 - 2) / 5 = 0.2.
    measure = M.segment_measure("darr", HUMAN, HYPS, darr_threshold=25.0)
    assert measure.n == 5
    assert value(measure, METRIC) == pytest.approx(0.2)


def test_pairwise_every_pair_the_humans_do_not_tie() -> None:
    # Threshold 0: seg 0 adds A>C (concordant) and C>B (.2 < .5: discordant); seg 1
    # adds B>C (.4 > .3: concordant), A-C stays out (identical). 8 pairs, 5 concordant:
    # tau = (5 - 3) / 8 = 0.25.
    measure = M.segment_measure("pairwise", HUMAN, HYPS)
    assert measure.n == 8
    assert value(measure, METRIC) == pytest.approx(0.25)


def test_pairwise_leaves_human_ties_out() -> None:
    human = np.array([[1.0], [1.0], [0.0]])
    measure = M.segment_measure("pairwise", human)
    assert measure.n == 2  # A-B tie out; A>C, B>C


def test_acc_eq_calibrates_epsilon_and_averages_over_segments() -> None:
    # seg 0: human A 1, B 1, C 0; metric A .50, B .52, C .40.
    #   eps 0:   A-B untied (humans tie): wrong; A-C, B-C right: 2/3
    #   eps .02: A-B tied: right; 3/3.   eps .10: A-C tied, humans not: 2/3.  eps .12: 1/3
    # seg 1: C not judged; human A 0, B -1; metric A = B = .3: a tie the humans do not
    #   make, at every eps: 0.
    # Mean over the two segments: eps 0: 1/3; eps .02: 1/2 (pooled it would be 3/4).
    human = np.array([[1.0, 0.0], [1.0, -1.0], [0.0, NAN]])
    metric = np.array([[0.50, 0.3], [0.52, 0.3], [0.40, 0.9]])
    measure = M.segment_measure("acc-eq", human)
    assert measure.n == 4
    assert value(measure, metric) == pytest.approx(0.5)
    assert isinstance(measure, M.AccEq)
    assert measure.epsilon == pytest.approx(0.02)


def test_acc_eq_keeps_epsilon_zero_when_ties_do_not_pay() -> None:
    # One segment, no human ties, metric right on both pairs at eps 0: accuracy 1.
    human = np.array([[3.0], [2.0], [1.0]])
    measure = M.AccEq(human)
    assert value(measure, np.array([[0.9], [0.5], [0.4]])) == 1.0
    assert measure.epsilon == 0.0


def test_tau_b_with_ties() -> None:
    # One system, four segments: x = 1 1 2 3, y = 1 2 3 3. Pairs: (1,2) tied in x,
    # (3,4) tied in y, the other four concordant: tau-b = 4 / sqrt(5 * 5) = 0.8.
    human = np.array([[1.0, 2.0, 3.0, 3.0]])
    measure = M.segment_measure("tau-b", human)
    assert value(measure, np.array([[1.0, 1.0, 2.0, 3.0]])) == pytest.approx(0.8)
    # No ties: x = 1 2 3 4 against y = 1 3 2 4: 5 concordant, 1 discordant: 4/6.
    measure = M.segment_measure("tau-b", np.array([[1.0, 3.0, 2.0, 4.0]]))
    assert value(measure, np.array([[1.0, 2.0, 3.0, 4.0]])) == pytest.approx(2 / 3)


def test_system_measures() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0])
    # y = 2 4 5 9: deviations x -1.5 -.5 .5 1.5, y -3 -1 0 4; sum xy 11, xx 5, yy 26.
    assert M.pearson(x, np.array([2.0, 4.0, 5.0, 9.0])) == pytest.approx(11 / math.sqrt(130))
    # y = 2 4 4 9: ranks 1 2.5 2.5 4; deviations -1.5 0 0 1.5: rho = 4.5 / sqrt(5 * 4.5).
    y = np.array([2.0, 4.0, 4.0, 9.0])
    assert M.spearman(x, y) == pytest.approx(4.5 / math.sqrt(22.5))
    # 6 pairs; only (2, 3) disagrees (x differs, y ties): 5/6.
    assert M.pairwise_accuracy(x, y) == pytest.approx(5 / 6)


def test_default_segment_measure() -> None:
    assert M.default_segment_measure(HUMAN) == "darr"  # 0..100
    assert M.default_segment_measure(-HUMAN / 100) == "pairwise"  # MQM-like, <= 0
    assert M.default_segment_measure(np.array([[0.1, 0.2]])) == "tau-b"  # one system


# -- bootstrap -----------------------------------------------------------------------


def _two_segments() -> tuple[M.Judgments, M.SegmentMeasure]:
    # Two segments, one pair each (A better than B in both).
    human = np.array([[80.0, 80.0], [20.0, 20.0]])
    return M.Judgments(human), M.segment_measure("darr", human)


def _metric(name: str, scores: list[list[float]]) -> M.Metric:
    seg = np.asarray(scores, dtype=float)
    return M.Metric(name, seg, M.mean_system_scores(seg))


def test_bootstrap_interval_of_a_known_distribution() -> None:
    # Concordant on segment 0, discordant on 1. A resample of two segments is {0,0}
    # (tau 1, probability 1/4), {1,1} (tau -1, 1/4) or mixed (tau 0, 1/2): the 2.5th
    # and 97.5th percentiles of 1000 resamples are -1 and 1.
    judgments, measure = _two_segments()
    metric = _metric("m", [[0.9, 0.1], [0.1, 0.9]])
    figures, _ = M.evaluate([metric], judgments, measure, samples=1000, seed=7)
    fig = figures["m"]["segment"]["tau"]
    assert fig.value == 0.0 and fig.n == 2
    assert fig.ci == (-1.0, 1.0)
    share = np.mean(fig.samples == 0.0)
    assert 0.45 < share < 0.55  # mixed resamples: probability 1/2
    again, _ = M.evaluate([metric], judgments, measure, samples=1000, seed=7)
    assert np.array_equal(again["m"]["segment"]["tau"].samples, fig.samples)  # the seed


def test_bootstrap_degenerate_cases_and_paired_test() -> None:
    # Always concordant: every resample gives 1, the interval is [1, 1]. Against an
    # always discordant first metric the difference is 2 in every resample: centred,
    # no resample reaches 2, so p = 1 / (1 + 500). Against itself: 0, [0, 0], p = 1.
    judgments, measure = _two_segments()
    bad = _metric("bad", [[0.1, 0.1], [0.9, 0.9]])
    good = _metric("good", [[0.9, 0.9], [0.1, 0.1]])
    same = _metric("same", [[0.1, 0.1], [0.9, 0.9]])
    figures, comparisons = M.evaluate([bad, good, same], judgments, measure, samples=500, seed=1)
    assert figures["good"]["segment"]["tau"].ci == (1.0, 1.0)
    assert figures["bad"]["segment"]["tau"].ci == (-1.0, -1.0)
    by_name = {c.metric: c for c in comparisons}
    assert (by_name["good"].delta, by_name["good"].ci) == (2.0, (2.0, 2.0))
    assert by_name["good"].p == pytest.approx(1 / 501)
    assert (by_name["same"].delta, by_name["same"].ci, by_name["same"].p) == (0.0, (0.0, 0.0), 1.0)


def test_documents_resampled_whole() -> None:
    # Both segments in one document: every resample is the data itself.
    human = np.array([[80.0, 80.0], [20.0, 20.0]])
    judgments = M.Judgments(human, units=np.array([0, 0]))
    metric = _metric("m", [[0.9, 0.1], [0.1, 0.9]])
    figures, _ = M.evaluate([metric], judgments, M.segment_measure("darr", human), samples=200)
    assert figures["m"]["segment"]["tau"].ci == (0.0, 0.0)


def test_system_level_interval_of_an_exact_metric() -> None:
    # Metric = 2 * human + 1 on every segment; system scores are means on both sides,
    # so every resample has r = 1 and rho = 1.
    rng = np.random.default_rng(0)
    human = rng.uniform(0, 100, size=(4, 30))
    judgments = M.Judgments(human)
    metric = _metric("m", (2 * human + 1).tolist())
    figures, _ = M.evaluate([metric], judgments, None, samples=100)
    r = figures["m"]["system"]["pearson"]
    assert r.value == pytest.approx(1.0) and r.n == 4
    assert r.ci == pytest.approx((1.0, 1.0))
    assert figures["m"]["system"]["spearman"].ci == pytest.approx((1.0, 1.0))
    assert figures["m"]["segment"] == {}


# -- the command ----------------------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_correlate_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sacrebleu")
    code = main([
        "correlate", "--preset", "meteorx", "--preset", "li", "--lang", "en",
        "--baseline", "chrf,bleu", "--hyp-dir", str(EXAMPLES / "systems"),
        "--ref", str(EXAMPLES / "ref.txt"), "--human", str(EXAMPLES / "judgments.tsv"),
        "--samples", "100", "--format", "json", "--quiet",
    ])  # fmt: skip
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["metrics"]) == ["meteorx", "li", "chrF", "BLEU"]
    seg = out["metrics"]["li"]["segment"]
    assert -1 <= seg["tau"] <= 1 and seg["n"] > 0 and len(seg["ci"]) == 2
    assert out["metrics"]["chrF"]["system"]["n"] == 3
    assert {c["metric"] for c in out["comparisons"]} == {"li", "chrF", "BLEU"}


def test_correlate_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([
        "correlate", "--baseline", "ter", "--hyp-dir", str(EXAMPLES / "systems"),
        "--ref", str(EXAMPLES / "ref.txt"), "--human", str(EXAMPLES / "judgments.tsv"),
    ])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "unknown baseline 'ter'" in err


# -- judgments on any scale -----------------------------------------------------------

JUDGED = EXAMPLES / "judged"
HUGE = 2.0**1018  # the example's scores - 50 times this reach ±1.4e308: their
# differences (up to 2.8e308) and sums exceed the largest float


def _judgments_times(factor: float, path: Path) -> Path:
    """The example judgments minus 50 (-50..50), times ``factor``: a power of two, so
    the scaled scores are exact and every figure must be the same bit for bit."""
    rows = (JUDGED / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    out = [rows[0]]
    for row in rows[1:]:
        system, segment, score = row.split("\t")
        out.append(f"{system}\t{segment}\t{(float(score) - 50) * factor!r}")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def _run_quietly(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """``main(args)``'s standard output; any warning (numpy's overflow) is an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = main(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.err == "", captured.err
    return captured.out


@pytest.mark.wordnet  # meteor-2005 has a synonym stage
@pytest.mark.parametrize("measure", ["darr", "acc-eq"])
def test_correlate_huge_judgments_give_the_same_figures(
    measure: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--hyp-dir", str(JUDGED / "systems"), "--ref", str(JUDGED / "ref.txt")]
    common = ["correlate", "-p", "li", "-p", "meteor-2005", "-l", "en", *data, "--segment-measure",
              measure, "--samples", "200", "--format", "json", "-q"]  # fmt: skip
    results = []
    for factor in (1.0, HUGE):
        human = _judgments_times(factor, tmp_path / f"human-{factor:g}.tsv")
        threshold = ["--darr-threshold", repr(25.0 * factor)]
        out = json.loads(_run_quietly([*common, "--human", str(human), *threshold], capsys))
        out.pop("segment_measure")  # names the threshold, on each scale
        results.append(out)
    assert results[0] == results[1]
    # pairs: DARR those more than 25 apart (no two outputs of a segment are the same
    # text), acc-eq all 25 * 6
    scores: dict[str, list[float]] = {}
    for row in (JUDGED / "judgments.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        system, _, score = row.split("\t")
        scores.setdefault(system, []).append(float(score))
    per_segment = list(zip(*scores.values(), strict=True))
    darr = sum(abs(a - b) > 25 for seg in per_segment for a, b in itertools.combinations(seg, 2))
    assert results[0]["metrics"]["li"]["segment"]["n"] == (darr if measure == "darr" else 150)
    assert results[0]["metrics"]["li"]["system"]["pearson"] is not None


def test_tune_huge_judgments_give_the_same_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = []
    for factor in (1.0, HUGE):
        human = _judgments_times(factor, tmp_path / f"human-{factor:g}.tsv")
        out = _run_quietly([
            "tune", "-p", "li", "-l", "en", "--hyp-dir", str(JUDGED / "systems"),
            "--ref", str(JUDGED / "ref.txt"), "--human", str(human), "--darr-threshold", "0",
            "--folds", "2", "--samples", "50", "-o", str(tmp_path / "t.yaml"), "-q",
        ], capsys)  # fmt: skip
        outputs.append([ln for ln in out.splitlines() if not ln.startswith("alignment:")])
    assert outputs[0] == outputs[1]
    objectives = ("seg-tau ", "seg-pearson ", "sys-pearson ")
    rows = [ln.split() for ln in outputs[0] if ln.startswith(objectives)]
    # three measures, each defined (not the +0.0000 of an overflow)
    assert len(rows) == 3 and all(float(row[2]) != 0 for row in rows), rows


def test_segment_pairs_and_accuracy_order_huge_scores() -> None:
    # One segment, three systems at -1e308, 1e308 and 1.5e308. Differences: 2e308 and
    # 2.5e308 overflow a float (so beyond any threshold), 0.5e308 is exact.
    human = np.array([[-1e308], [1e308], [1.5e308]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        better, worse, _ = M.segment_pairs(human, threshold=1e308)
        assert sorted(zip(better.tolist(), worse.tolist(), strict=True)) == [(1, 0), (2, 0)]
        assert M.pairwise_accuracy(human[:, 0], np.array([0.1, 0.2, 0.3])) == 1.0
        assert value(M.AccEq(human), np.array([[0.1], [0.2], [0.3]])) == 1.0
        assert M.pearson(human[:, 0], np.array([-2.0, 2.0, 3.0])) == pytest.approx(1.0)


def test_seeds_and_resample_counts_follow_one_rule(capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--hyp-dir", str(EXAMPLES / "systems"), "--ref", str(EXAMPLES / "ref.txt"),
            "--human", str(EXAMPLES / "judgments.tsv")]  # fmt: skip
    cases = [
        (["correlate", "-p", "li", "--seed", str(2**32)], "must be 0..4294967295"),
        (["correlate", "-p", "li", "--samples", "1000001"], "must be at most 1,000,000"),
        (["tune", "-p", "li", "-o", "t.yaml", "--seed", "-1"], "must be 0 or more"),
        (["tune", "-p", "li", "-o", "t.yaml", "--samples", "0"], "must be at least 1"),
        (["tune", "-p", "li", "-o", "t.yaml", "--split-seed", str(2**32)], "must be 0..4294967295"),
    ]
    for args, message in cases:
        with pytest.raises(SystemExit) as exit_info:
            main([*args, *data])
        err = capsys.readouterr().err
        assert exit_info.value.code == 2 and err.count("\n") == 1 and message in err, (args, err)
