"""Bootstrap intervals and paired tests on stored statistics (meteorx.significance).

Known answers: identical systems give p = 1; a system that wins every segment gives the
smallest possible p, 1/(n+1); systems differing in a single segment cannot be told
apart by approximate randomisation (swapping that segment gives the same |delta|), so
p = 1; intervals contain the point estimate and depend only on the seed. The resampling
draws are sacreBLEU's (same generator calls), so with the same seed the p-values equal
those of sacreBLEU's own implementation (checked when sacrebleu is installed).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from meteorx import significance as sig
from meteorx.cli.main import main
from meteorx.metric import Scorer
from meteorx.scoring import Parameters, breakdown_of, formula
from meteorx.stats import Layout, Stats, sum_stats

REPO = Path(__file__).resolve().parents[1]
PARAMS = Parameters(0.85, 0.2, 0.6, 0.75, (1.0, 0.6))


def _random_stats(rng: random.Random, n_stages: int = 2) -> Stats:
    hyp_len = rng.randint(0, 30)
    ref_len = rng.randint(0, 30)
    hyp_fn = rng.randint(0, hyp_len)
    ref_fn = rng.randint(0, ref_len)
    matched = rng.randint(0, min(hyp_len, ref_len))
    hc, rc, hf, rf = [0.0] * n_stages, [0.0] * n_stages, [0.0] * n_stages, [0.0] * n_stages
    for _ in range(matched):
        s = rng.randrange(n_stages)
        if rng.random() < 0.3:
            hf[s] += 1
            rf[s] += 1
        else:
            hc[s] += 1
            rc[s] += 1
    chunks = 0 if matched == 0 else rng.randint(1, matched)
    return Stats(
        hyp_len=hyp_len,
        ref_len=ref_len,
        hyp_function=hyp_fn,
        ref_function=ref_fn,
        hyp_content_matches=tuple(hc),
        ref_content_matches=tuple(rc),
        hyp_function_matches=tuple(hf),
        ref_function_matches=tuple(rf),
        chunks=chunks,
        hyp_matched_words=matched,
        ref_matched_words=matched,
    )


@pytest.fixture(scope="module")
def systems() -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(7)
    a = [_random_stats(rng) for _ in range(300)]
    b = [_random_stats(rng) for _ in range(300)]
    return sig.stats_matrix(a, 2), sig.stats_matrix(b, 2)


def test_vectorised_scores_equal_compute() -> None:
    rng = random.Random(3)
    records = [_random_stats(rng) for _ in range(2000)]
    records.append(
        Stats(
            hyp_len=3,
            ref_len=3,
            hyp_content_matches=(3.0, 0.0),
            ref_content_matches=(3.0, 0.0),
            hyp_function_matches=(0.0, 0.0),
            ref_function_matches=(0.0, 0.0),
            chunks=1,
            hyp_matched_words=3,
            ref_matched_words=3,
        )
    )  # perfect match: no penalty
    for params in (PARAMS, Parameters(0.9, 3.0, 0.5, 0.5, (1.0, 1.0), False)):
        rows = sig.stats_matrix(records, 2)
        got = sig.scores_of_rows(rows, params)
        want = [breakdown_of(r, params).score for r in records]
        # One formula; only NumPy's vectorised x**y may differ from libm's pow in the
        # last bits (precision, recall and Fmean are the same floats).
        assert np.allclose(got, want, atol=1e-12, rtol=0)
        steps = formula(Layout(2).view(rows), params)
        for k, name in enumerate(("precision", "recall", "fmean")):
            assert steps[k].tolist() == [getattr(breakdown_of(r, params), name) for r in records]
        assert sig.corpus_score(rows, params) == pytest.approx(
            breakdown_of(sum_stats(records), params).score, abs=1e-12
        )


def test_interval_contains_estimate_and_is_deterministic(systems: Any) -> None:
    a, _ = systems
    one = sig.bootstrap_ci(a, PARAMS, 500, seed=1)
    assert one.lower <= one.score <= one.upper
    assert one.lower < one.upper
    assert one.half_width == pytest.approx((one.upper - one.lower) / 2)
    assert abs(one.mean - one.score) < one.half_width
    assert sig.bootstrap_ci(a, PARAMS, 500, seed=1) == one
    assert sig.bootstrap_ci(a, PARAMS, 500, seed=2) != one


def test_interval_of_identical_segments_is_a_point() -> None:
    rng = random.Random(1)
    row = sig.stats_matrix([_random_stats(rng)], 2)
    rows = np.repeat(row, 50, axis=0)
    ci = sig.bootstrap_ci(rows, PARAMS, 200)
    assert ci.lower == pytest.approx(ci.score) and ci.upper == pytest.approx(ci.score)


def test_identical_systems_are_not_different(systems: Any) -> None:
    a, _ = systems
    assert sig.paired_bootstrap(a, a.copy(), PARAMS, 1000).p_value == 1.0
    assert sig.paired_approximate_randomization(a, a.copy(), PARAMS, 2000).p_value == 1.0


def test_one_differing_segment_cannot_be_significant_under_ar(systems: Any) -> None:
    a, b = systems
    c = a.copy()
    c[17] = b[17]
    assert sig.paired_approximate_randomization(a, c, PARAMS, 1000).p_value == 1.0


def test_dominating_system_is_significant(systems: Any) -> None:
    a, _ = systems
    # Every word matched by the exact stage in one chunk: score 1 on every segment (the
    # scorer stores 0 chunks for such a segment: Meteor 1.5's perfect-match rule).
    layout = Layout(2)
    lengths = np.maximum(a[:, layout.column("hyp_len")], 1)
    perfect = np.zeros_like(a)
    for name in ("hyp_len", "ref_len", "hyp_matched_words", "ref_matched_words"):
        perfect[:, layout.column(name)] = lengths
    for name in ("hyp_content_matches", "ref_content_matches"):
        perfect[:, layout.column(name, 0)] = lengths
    assert np.all(sig.scores_of_rows(perfect, PARAMS) == 1.0)
    n = 1000
    bs = sig.paired_bootstrap(a, perfect, PARAMS, n)
    ar = sig.paired_approximate_randomization(a, perfect, PARAMS, n)
    assert bs.score == 1.0 and bs.delta > 0.3
    assert bs.p_value == pytest.approx(1 / (n + 1))
    assert ar.p_value == pytest.approx(1 / (n + 1))


def test_p_values_are_seeded(systems: Any) -> None:
    a, b = systems
    assert sig.paired_bootstrap(a, b, PARAMS, 300, seed=5) == sig.paired_bootstrap(
        a, b, PARAMS, 300, seed=5
    )
    first = sig.paired_approximate_randomization(a, b, PARAMS, 500, seed=5)
    assert first == sig.paired_approximate_randomization(a, b, PARAMS, 500, seed=5)
    assert 0 < first.p_value <= 1


def test_mismatched_systems_are_rejected(systems: Any) -> None:
    a, b = systems
    with pytest.raises(ValueError, match="same segments"):
        sig.paired_bootstrap(a, b[:-1], PARAMS)


class _FakeMetric:
    """Just enough of sacreBLEU's Metric for its paired tests, on meteorx statistics."""

    def __init__(self, rows: dict[str, np.ndarray], params: Parameters) -> None:
        self.rows = rows
        self.params = params

    class _Score:
        def __init__(self, score: float) -> None:
            self.score = score

    def _extract_corpus_statistics(self, hyps: Any, refs: Any) -> np.ndarray:
        return self.rows[hyps[0]]

    def _aggregate_and_compute(self, stats: np.ndarray) -> Any:
        return self._Score(sig.corpus_score(np.asarray(stats, dtype=np.float64), self.params))

    def _compute_score_from_stats(self, stats: np.ndarray) -> Any:
        return self._Score(float(sig.scores_of_rows(np.asarray(stats, np.float64), self.params)))


def test_same_p_values_as_sacrebleu(systems: Any) -> None:
    significance = pytest.importorskip("sacrebleu.significance")
    a, b = systems
    metric = _FakeMetric({"a": a, "b": b}, PARAMS)
    base_info = {"M": (a, significance.Result(sig.corpus_score(a, PARAMS)))}
    hyps = ["b"] * len(a)
    _, theirs = significance._paired_bs_test(
        base_info, "b", hyps, None, {"M": metric}, 1000, seed=12345
    )
    ours = sig.paired_bootstrap(a, b, PARAMS, 1000, seed=12345)
    assert ours.p_value == pytest.approx(theirs["M"].p_value, abs=2 / 1001)
    assert ours.interval is not None
    assert ours.interval.mean == pytest.approx(theirs["M"].mean, abs=1e-6)
    assert ours.interval.half_width == pytest.approx(theirs["M"].ci, abs=1e-6)
    _, theirs = significance._paired_ar_test(
        base_info, "b", hyps, None, {"M": metric}, 2000, seed=12345
    )
    ours = sig.paired_approximate_randomization(a, b, PARAMS, 2000, seed=12345)
    assert ours.p_value == pytest.approx(theirs["M"].p_value, abs=2 / 2001)


# -- the command line ---------------------------------------------------------------


def _lines(tmp_path: Path) -> tuple[Path, Path, Path]:
    rng = random.Random(11)
    words = [
        "the",
        "a",
        "cat",
        "dog",
        "sat",
        "ran",
        "on",
        "under",
        "mat",
        "house",
        "big",
        "small",
        "red",
        "blue",
        "quickly",
    ]
    refs, hyp_a, hyp_b = [], [], []
    for _ in range(60):
        ref = [rng.choice(words) for _ in range(rng.randint(4, 12))]
        a = [w if rng.random() < 0.6 else rng.choice(words) for w in ref]
        b = [w if rng.random() < 0.9 else rng.choice(words) for w in ref]
        refs.append(" ".join(ref))
        hyp_a.append(" ".join(a))
        hyp_b.append(" ".join(b))
    paths = tmp_path / "ref.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    for path, lines in zip(paths, (refs, hyp_a, hyp_b), strict=True):
        path.write_text("\n".join(lines) + "\n")
    return paths


def test_cli_confidence_and_paired_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, a, b = _lines(tmp_path)
    base = ["score", "-H", str(a), "-H", str(b), "-r", str(ref), "-p", "li", "-l", "en"]
    assert main([*base, "--confidence", "--paired-bs", "-f", "json", "--n-bootstrap", "300"]) == 0
    data = json.loads(capsys.readouterr().out)
    first, second = data["systems"]
    assert first["system"]["confidence"]["lower"] <= first["system"]["score"]
    assert second["comparison"]["test"] == "paired-bs"
    assert second["comparison"]["p_value"] < 0.05  # b is much closer to the references
    assert "|bs:300|seed:12345|" in data["signature"]
    assert data["significance"]["baseline"] == str(a)

    assert main([*base, "--paired-ar", "--ar-trials", "500", "--system-only"]) == 0
    out = capsys.readouterr().out
    assert "Paired approximate randomization test with 500 trials" in out
    assert "Baseline: " in out and "*" in out
    assert "|ar:500|seed:12345|" in out.rstrip().splitlines()[-1]


def test_cli_paired_test_needs_two_systems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, a, _ = _lines(tmp_path)
    code = main(["score", "-H", str(a), "-r", str(ref), "-p", "li", "-l", "en", "--paired-bs"])
    assert code == 2
    assert "at least two --hyp" in capsys.readouterr().err


def test_point_estimate_matches_scorer(tmp_path: Path) -> None:
    ref, a, _ = _lines(tmp_path)
    scorer = Scorer("li", language="en")
    result = scorer.corpus(a.read_text().splitlines(), ref.read_text().splitlines())
    rows = sig.stats_matrix([s.stats for s in result.segments], 2)
    assert sig.bootstrap_ci(rows, scorer.params, 100).score == pytest.approx(
        result.score, abs=1e-12
    )


# -- the `mean` system-score rule (the nltk preset) --------------------------------------


def test_mean_rule_resamples_the_mean_of_segment_scores(systems: Any) -> None:
    a, b = systems
    scores_a = [breakdown_of(Layout(2).record(list(row)), PARAMS).score for row in a]
    mean_a = float(np.mean(scores_a))
    one = sig.bootstrap_ci(a, PARAMS, 400, seed=3, rule="mean")
    assert one.score == pytest.approx(mean_a, abs=1e-12)
    assert one.score != pytest.approx(sig.corpus_score(a, PARAMS), abs=1e-6)
    assert one.lower <= one.score <= one.upper
    # a resample is a draw of segments: its score is the mean of the drawn segments' scores
    summable, score = sig.resampled(a, PARAMS, "mean")
    draws = np.zeros(a.shape[0])
    draws[0], draws[5] = 2.0, 1.0
    assert float(score(draws @ summable)) == pytest.approx(
        (2 * scores_a[0] + scores_a[5]) / 3, abs=1e-12
    )
    for test in (sig.paired_bootstrap, sig.paired_approximate_randomization):
        same = test(a, a, PARAMS, 200, 1, rule="mean")
        assert same.p_value == 1.0 and same.score == pytest.approx(mean_a, abs=1e-12)
        other = test(a, b, PARAMS, 200, 1, rule="mean")
        assert other.baseline_score == pytest.approx(mean_a, abs=1e-12)


def test_cli_intervals_follow_the_nltk_presets_mean_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, a, b = _lines(tmp_path)
    args = ["score", "-H", str(a), "-H", str(b), "-r", str(ref), "-p", "nltk", "-l", "en"]
    assert main([*args, "--confidence", "--paired-bs", "--n-bootstrap", "200", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "|sys:mean|" in data["signature"] and "|bs:200|seed:12345|" in data["signature"]
    for system in data["systems"]:
        scores = [seg["score"] for seg in system["segments"]]
        mean = sum(scores) / len(scores)
        assert system["system"]["score"] == pytest.approx(mean, abs=1e-12)
        interval = system["system"]["confidence"]
        assert interval["lower"] <= system["system"]["score"] <= interval["upper"]


def test_combine_keeps_the_mean_rule_of_its_statistics_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Statistics scored under the nltk preset combine to the same system score (the
    mean of segment scores), with the same interval, as ``meteorx score`` gives."""
    ref, a, _ = _lines(tmp_path)
    stats = tmp_path / "a.stats"
    args = ["score", "-H", str(a), "-r", str(ref), "-p", "nltk", "-l", "en", "-f", "json"]
    assert main([*args, "--stats-out", str(stats), "--confidence", "--n-bootstrap", "200"]) == 0
    scored = json.loads(capsys.readouterr().out)["system"]
    combine = ["combine", str(stats), "-f", "json", "--confidence", "--n-bootstrap", "200"]
    assert main(combine) == 0
    combined = json.loads(capsys.readouterr().out)["system"]
    assert combined["score"] == pytest.approx(scored["score"], abs=1e-12)
    assert combined["confidence"] == pytest.approx(scored["confidence"], abs=1e-12)
