"""Soft credit (meteorx.soft_credit, ``soft_credit:`` in a configuration) and the
``meteorx`` preset it is part of: worked examples computed by hand, the statistics
block it adds (files, combine, tuning), its signature, its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from meteorx import soft_credit
from meteorx.cli.main import main
from meteorx.config import load_config, validate_config
from meteorx.config_models import SOFT_CREDIT
from meteorx.errors import ConfigError
from meteorx.explain import explain_segment
from meteorx.metric import Scorer
from meteorx.soft_credit import MAX_COMPARED, best_similarities
from meteorx.tune import Setting, tuned_config
from meteorx.tune.output import config_yaml

#: exact matches only, every word content, whitespace tokens: the arithmetic stays small.
BASE: dict[str, Any] = {
    "name": "soft-test",
    "language": "en",
    "normalize": "none",
    "stages": [{"matcher": "exact"}],
    "alpha": 0.9,
    "beta": 3.0,
    "gamma": 0.5,
    "delta": 0.5,
    "function_words": "none",
    "soft_credit": {"weight": 0.5, "cutoff": 0.5},
}


def _scorer(**changes: Any) -> Scorer:
    return Scorer(validate_config({**BASE, **changes}, source="test"))


def test_similarity_is_case_folded_indel_with_a_cut_off() -> None:
    # colour~color: longest common subsequence 5, lengths 6 + 5 -> 10/11
    hyp, ref = best_similarities(["Colour", "red"], ["color", "blue"], 0.5)
    assert hyp == [pytest.approx(10 / 11), 0.0]  # red~blue is 2/7, under the cut-off
    assert ref == [pytest.approx(10 / 11), 0.0]  # blue~colour is 4/10
    assert best_similarities(["red"], ["blue"], 0.2) == ([pytest.approx(2 / 7)],) * 2
    assert best_similarities([], ["x"], 0.5) == ([], [0.0])


def test_worked_example() -> None:
    """the colour is red / the color is blue: 'the' and 'is' match exactly (two chunks);
    'colour' and 'color' earn 0.5 x 10/11 each in P and R, 'red' and 'blue' nothing."""
    result = _scorer().segment("the colour is red", "the color is blue")
    p = (2 + 0.5 * 10 / 11) / 4
    assert result.precision == pytest.approx(p, abs=1e-15)
    assert result.recall == pytest.approx(p, abs=1e-15)
    # fragmentation is the alignment's alone: 2 chunks / 2 matched words
    assert result.breakdown.fragmentation == 1.0
    assert result.score == pytest.approx(p * (1 - 0.5), abs=1e-15)
    assert result.stats.hyp_content_matches == (2.0, pytest.approx(0.5 * 10 / 11 / 0.5))
    without = Scorer(validate_config({**BASE, "soft_credit": None}, source="test"))
    assert without.segment("the colour is red", "the color is blue").score == pytest.approx(
        0.5 * 0.5, abs=1e-15
    )


def test_characters_weight_the_credit_by_length() -> None:
    result = _scorer(units="characters").segment("the colour is red", "the color is blue")
    # hypothesis: 3 + 2 matched characters, colour's 6 x 10/11 x 0.5 soft, 14 in all
    assert result.precision == pytest.approx((5 + 0.5 * 6 * 10 / 11) / 14, abs=1e-15)
    assert result.recall == pytest.approx((5 + 0.5 * 5 * 10 / 11) / 14, abs=1e-15)


def test_nothing_aligned_scores_the_fmean_of_the_credit() -> None:
    """No alignment, so no fragmentation to penalise: the score is the Fmean (was 0)."""
    result = _scorer().segment("Estrangeiro", "Estranho")
    credit = 0.5 * 14 / 19  # LCS 'estrano' (7) over 11 + 8 characters
    assert result.score == pytest.approx(credit, abs=1e-15)
    assert result.breakdown.fragmentation != result.breakdown.fragmentation  # NaN
    assert _scorer(soft_credit=None).segment("Estrangeiro", "Estranho").score == 0.0


def test_identical_sentences_and_no_near_miss_are_unchanged() -> None:
    scorer, plain = _scorer(), _scorer(soft_credit=None)
    for hyp, ref in (("a b c", "a b c"), ("a b c", "c a x"), ("one two", "three four")):
        assert scorer.segment(hyp, ref).score == plain.segment(hyp, ref).score


def test_configuration_checks() -> None:
    with pytest.raises(ConfigError, match=r"soft_credit\.weight"):
        validate_config({**BASE, "soft_credit": {"weight": 1.5}}, source="test")
    with pytest.raises(ConfigError, match=r"soft_credit\.cutoff"):
        validate_config({**BASE, "soft_credit": {"cutoff": 0}}, source="test")
    with pytest.raises(ConfigError, match=r"soft_credit\.typo"):
        validate_config({**BASE, "soft_credit": {"typo": 1}}, source="test")
    with pytest.raises(ConfigError, match="reserved for soft credit"):
        validate_config({**BASE, "stages": [{"matcher": "exact", "name": SOFT_CREDIT}]}, "t")
    config = validate_config(BASE, source="test")
    assert config.block_names == ("exact", SOFT_CREDIT)
    assert config.block_weights == (1.0, 0.5)
    changed = config.with_block_weights([0.9, 0.25])
    assert changed.stages[0].weight == 0.9 and changed.soft_credit is not None
    assert changed.soft_credit.weight == 0.25 and changed.soft_credit.cutoff == 0.5
    with pytest.raises(ValueError, match="2 blocks"):
        config.with_block_weights([1.0])


def test_signature_explain_and_tuned_config() -> None:
    scorer = _scorer()
    result = scorer.corpus(["the colour is red"], [["the color is blue"]])
    assert ",soft-credit=indel(0.5):0.5|" in result.signature
    text = explain_segment(scorer, result.segments[0])
    assert "soft credit (hypothesis, similarity x weight 0.5): colour~0.91" in text
    assert "soft credit (reference, similarity x weight 0.5): color~0.91" in text
    tuned = tuned_config(scorer.config, Setting(0.8, 1.0, 0.4, 0.5, (1.0, 0.7)))
    assert tuned.soft_credit is not None and tuned.soft_credit.weight == 0.7
    # the file tuning writes spells soft credit out, and loads back the same
    text = config_yaml(tuned)
    assert "soft_credit:\n  weight: 0.7\n  cutoff: 0.5\n" in text
    assert validate_config(yaml.safe_load(text), source="tuned") == tuned


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(list(args)) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_statistics_file_and_combine_carry_the_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp, ref, stats = tmp_path / "hyp.txt", tmp_path / "ref.txt", tmp_path / "s.tsv"
    hyp.write_text("The colour of the houses is red .\nEstrangeiro\n", encoding="utf-8")
    ref.write_text("the color of the housing is red .\nEstranho\n", encoding="utf-8")
    common = ("-H", str(hyp), "-r", str(ref), "--lang", "en", "-f", "json")
    scored = _run(capsys, "score", *common, "--preset", "meteorx", "--stats-out", str(stats))
    header = next(line for line in stats.read_text().splitlines() if not line.startswith("#"))
    assert "soft-credit:hyp_content" in header.split("\t")
    combined = _run(capsys, "combine", str(stats), "-f", "json")
    assert combined["system"]["score"] == scored["system"]["score"]
    # re-weighting soft credit from the statistics equals a fresh run with that weight
    rescored = _run(capsys, "combine", str(stats), "--weights", "1,0.6,0.5,0.9", "-f", "json")
    config = tmp_path / "c.yaml"
    config.write_text("extends: meteorx\nsoft_credit:\n  weight: 0.9\n", encoding="utf-8")
    fresh = _run(capsys, "score", *common, "-c", str(config))
    assert rescored["system"]["score"] == pytest.approx(fresh["system"]["score"], abs=1e-12)
    assert "soft-credit=indel(0.5):0.9" in rescored["signature"]


def test_meteorx_preset_loads_with_its_figures() -> None:
    config = load_config("meteorx")
    assert config.soft_credit is not None and config.units == "characters"
    header = (Path(__file__).parents[1] / "configs" / "meteorx.yaml").read_text()
    assert "Held-out" in header and "measured 2026-12-01" in header


def test_perfect_match_rule_counts_the_alignment_only() -> None:
    """'The cat sat' / 'the cat sat' with exact matching on case-kept tokens: one chunk,
    'The' unaligned but fully credited (similarity 1). The segment is not a perfect
    match: fragmentation 1 chunk / 2 matched words, in the segment's record and in a
    statistics file read back."""
    scorer = _scorer()
    result = scorer.segment("The cat sat", "the cat sat")
    assert result.alignment.chunks == 1 and len(result.alignment.matches) == 2
    assert result.breakdown.fragmentation == 0.5
    assert scorer.rescore(result.stats).score == result.score
    assert scorer.params.aligned_blocks == 1


def test_tuning_objectives_equal_the_scorer_with_soft_credit() -> None:
    """The tuner's vectorised objectives give what scoring every segment gives, at β = 0
    too, with segments that align nothing (their score is the Fmean of the credit)."""
    from meteorx.tune import Evaluator, Objective, StatsBank, TuningData
    from meteorx.tune.objectives import darr_pairs

    refs = ["the cats sat on the mat", "a house", "dogs were running", "Estranho"]
    hyps = [
        ["the cat sat on a mat", "houses", "dog was running", "Estrangeiro"],
        ["the cats sat on the mat", "a houses", "dogs run", "Estrangeiros"],
        ["cat mat", "the house", "dogs running", "nada"],
    ]
    systems = ["a", "b", "c"]
    human = {(s, i): float(40 * ((k + i) % 3) + i) for k, s in enumerate(systems) for i in range(4)}
    data = TuningData(systems, hyps, [refs], human)
    config = validate_config(BASE, source="test")
    bank = StatsBank(config, data)
    for setting in (
        Setting(0.75, 1.4, 0.7, 0.5, (1.0, 0.5)),
        Setting(0.5, 0.0, 0.6, 0.5, (1.0, 0.8)),
    ):
        scorer = Scorer(
            config.with_block_weights(setting.weights).model_copy(
                update={"alpha": setting.alpha, "beta": setting.beta, "gamma": setting.gamma}
            )
        )
        scores = [[scorer.segment(h, r).score for h, r in zip(out, refs, strict=True)]
                  for out in hyps]  # fmt: skip
        flat = [x for system in scores for x in system]
        better, worse = darr_pairs(data, range(4))
        concordant = sum(flat[b] - flat[w] > 1e-12 for b, w in zip(better, worse, strict=True))
        expected = (2 * concordant - len(better)) / len(better)
        got = Evaluator(bank, Objective("seg-tau", data, range(4)), True).value(setting)
        assert got == pytest.approx(expected, abs=1e-12)
        keys = sorted(human)
        x = [scores[systems.index(s)][i] for s, i in keys]
        pearson = float(np.corrcoef(x, [human[k] for k in keys])[0, 1])
        got = Evaluator(bank, Objective("seg-pearson", data, range(4)), True).value(setting)
        assert got == pytest.approx(pearson, abs=1e-9)
    assert scorer.segment("Estrangeiro", "Estranho").breakdown.fragmentation != 0.0


def test_workers_and_significance_carry_the_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--jobs 2 gives every segment's bits of a one-process run; --confidence resamples
    the soft-credit block like a stage's."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyps = ["The colour of the houses is red .", "Estrangeiro", "a cat sat", "the dogs runs"]
    refs = ["the color of the housing is red .", "Estranho", "the cat sat", "the dog ran"]
    hyp.write_text("\n".join(hyps * 5) + "\n", encoding="utf-8")
    ref.write_text("\n".join(refs * 5) + "\n", encoding="utf-8")
    common = ("-H", str(hyp), "-r", str(ref), "--preset", "meteorx", "--lang", "en")
    one = _run(capsys, "score", *common, "-f", "json")
    two = _run(capsys, "score", *common, "-f", "json", "--jobs", "2")
    assert one == two
    ci = _run(capsys, "score", *common, "-f", "json", "--confidence", "--seed", "1")
    low, high = ci["system"]["confidence"]["lower"], ci["system"]["confidence"]["upper"]
    assert low <= one["system"]["score"] <= high


def test_only_the_first_distinct_words_of_a_side_are_compared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a cap of 2: the hypothesis Cat dog CAT cow compares cat and dog (CAT is cat
    again; cow is the third distinct word), the reference cot dig cat compares cot and
    dig. cat~cot and dog~dig share 2 of 3 + 3 letters: 2/3; dog~cot (1/3) and cat~dig
    (0) are under the cut-off; a word not compared earns 0."""
    hyp, ref = ["Cat", "dog", "CAT", "cow"], ["cot", "dig", "cat"]
    monkeypatch.setattr(soft_credit, "MAX_COMPARED", 2)
    two_thirds = pytest.approx(2 / 3)
    assert best_similarities(hyp, ref, 0.5) == ([two_thirds] * 3 + [0.0], [two_thirds] * 2 + [0.0])
    monkeypatch.undo()
    # under the real cap all are compared: Cat~cat is 1, cow~cot (c, o of 3 + 3) 2/3
    assert best_similarities(hyp, ref, 0.5) == (
        [1.0, two_thirds, 1.0, two_thirds],
        [two_thirds, two_thirds, 1.0],
    )


def test_the_compared_words_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    """2,500 distinct words a side: one MAX_COMPARED x MAX_COMPARED matrix, the rest 0."""
    shapes = []

    def recorded(hyp: list[str], ref: list[str], cutoff: float) -> np.ndarray:
        shapes.append((len(hyp), len(ref)))
        return np.ones((len(hyp), len(ref)))

    monkeypatch.setattr(soft_credit, "similarity_matrix", recorded)
    words = [f"w{k}" for k in range(MAX_COMPARED + 500)]
    hyp, ref = best_similarities(words * 2, words, 0.5)  # repeats are compared once
    assert shapes == [(MAX_COMPARED, MAX_COMPARED)]
    assert hyp == ([1.0] * MAX_COMPARED + [0.0] * 500) * 2
    assert ref == [1.0] * MAX_COMPARED + [0.0] * 500


def test_the_cap_binds_on_no_xray_segment(
    xray: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The meteorx preset's scores on ordinary data are those of comparing every word."""
    scorer = Scorer("meteorx", language="en")
    most = 0

    def counted(hyp: list[str], ref: list[str], cutoff: float) -> tuple[list[float], list[float]]:
        nonlocal most
        most = max(most, len({w.casefold() for w in hyp}), len({w.casefold() for w in ref}))
        return best_similarities(hyp, ref, cutoff)

    monkeypatch.setattr(scorer, "_counting", replace(scorer._counting, similarities=counted))
    for system in ("system1", "system2"):
        scorer.corpus(xray[system], xray["ref"])
    assert 0 < most < MAX_COMPARED


def test_a_long_disjoint_segment_stays_small(tmp_path: Path) -> None:
    """240,000 Chinese characters against as many others (10,496 distinct a side, nothing
    aligned) through the CLI: a score, in well under 1 GB (comparing every character
    with every other needed 460 GB and ended in a MemoryError traceback)."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    half = 10_496  # U+4E00-U+9FFF in two disjoint halves
    hyp.write_text("".join(chr(0x4E00 + k % half) for k in range(240_000)), encoding="utf-8")
    ref.write_text("".join(chr(0x4E00 + half + k % half) for k in range(240_000)), "utf-8")
    out, err, peak = tmp_path / "out.txt", tmp_path / "err.txt", tmp_path / "peak.txt"
    # The peak is read from the child's own /proc/self/status (VmHWM): the kernel's
    # getrusage/wait4 figure of a child also counts the memory of the process that
    # spawned it (here the whole test session), up to its exec.
    if not Path("/proc/self/status").is_file():
        pytest.skip("needs /proc/self/status (Linux) to read the peak memory")
    run_and_report_peak = (
        "import sys\n"
        "from meteorx.cli.main import main\n"
        "code = main(sys.argv[2:])\n"
        "status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
        "open(sys.argv[1], 'w').write(status.split()[0])\n"
        "sys.exit(code)\n"
    )
    args = [sys.executable, "-c", run_and_report_peak, str(peak), "score", "-H", str(hyp)]
    args += ["-r", str(ref), "--lang", "zh"]
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(args, stdout=stdout, stderr=stderr)
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail("no score in 120 s")
    assert (process.returncode, err.read_text()) == (0, "")
    assert "METEOR = 0.000000" in out.read_text()
    assert int(peak.read_text()) < 500 * 1024  # KiB
