"""Tuning on stored statistics (meteorx.tune) and ``meteorx tune``.

The synthetic case has a known answer: "human" scores are METEOR itself under a target
setting on the search grid, so the search must reach perfect agreement (DARR τ = 1).
The vectorised objectives are checked against a brute-force computation from the
scorer's own segment scores, with one and with several references.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import yaml

from meteorx.cli.main import main
from meteorx.config import load_config
from meteorx.metric import Scorer
from meteorx.tune import (
    Evaluator,
    Objective,
    Setting,
    StatsBank,
    TuningData,
    darr_pairs,
    fold_segments,
    read_human_segments,
    read_human_systems,
    split_segments,
    tune,
)
from tests.conftest import require_data

WORDS = [
    ("cat", "cats"), ("dog", "dogs"), ("run", "running"), ("jump", "jumped"),
    ("house", "houses"), ("walk", "walked"), ("play", "playing"), ("tree", "trees"),
    ("the", "the"), ("a", "a"), ("on", "on"), ("under", "under"), ("big", "big"),
    ("small", "small"), ("red", "red"), ("quickly", "quickly"),
]  # fmt: skip
TARGET = {"alpha": 0.2, "beta": 2.0, "gamma": 0.9, "weights": (1.0, 0.3)}


def _synthetic(n_segments: int = 40, n_systems: int = 6, seed: int = 3) -> TuningData:
    rng = random.Random(seed)
    refs, outputs = [], [[] for _ in range(n_systems)]
    for _ in range(n_segments):
        ref = [rng.choice(WORDS)[0] for _ in range(rng.randint(5, 12))]
        refs.append(" ".join(ref))
        for k in range(n_systems):
            hyp = []
            for word in ref:
                r = rng.random()
                if r < 0.1 + 0.05 * k:
                    hyp.append(dict(WORDS)[word])  # inflected: a stem match
                elif r < 0.15 + 0.08 * k:
                    hyp.append(rng.choice(WORDS)[0])
                elif r > 0.97 - 0.02 * k:
                    continue
                else:
                    hyp.append(word)
            if rng.random() < 0.3 and len(hyp) > 3:
                cut = rng.randrange(1, len(hyp) - 1)
                hyp = hyp[cut:] + hyp[:cut]  # fragmentation
            outputs[k].append(" ".join(hyp))
    target = Scorer(
        {
            "extends": "li",
            "language": "en",
            "function_words": "none",  # every word weighs the same: delta plays no part
            "alpha": TARGET["alpha"],
            "beta": TARGET["beta"],
            "gamma": TARGET["gamma"],
            "stages": [{"matcher": "exact"}, {"matcher": "stem", "weight": 0.3}],
        }
    )
    names = [f"sys{k}" for k in range(n_systems)]
    human = {
        (name, i): 100 * target.segment(out[i], refs[i]).score
        for name, out in zip(names, outputs, strict=True)
        for i in range(n_segments)
    }
    return TuningData(names, outputs, [refs], human)


@pytest.fixture(scope="module")
def data() -> TuningData:
    return _synthetic()


BASE = load_config({"extends": "li", "language": "en", "function_words": "none"})


def _brute(data: TuningData, kind: str, setting: Setting, refs: list[list[str]]) -> float:
    cfg = BASE.model_copy(
        update={
            "alpha": setting.alpha,
            "beta": setting.beta,
            "gamma": setting.gamma,
            "delta": setting.delta,
            "stages": tuple(
                s.model_copy(update={"weight": w})
                for s, w in zip(BASE.stages, setting.weights, strict=True)
            ),
        }
    )
    scorer = Scorer(cfg)
    results = [
        [scorer.segment(h, [r[i] for r in refs]) for i, h in enumerate(hyps)] for hyps in data.hyps
    ]
    if kind == "seg-tau":
        better, worse = darr_pairs(data, range(data.n_segments))
        flat = [r.score for system in results for r in system]
        concordant = sum(flat[b] - flat[w] > 1e-12 for b, w in zip(better, worse, strict=True))
        return (2 * concordant - len(better)) / len(better)
    if kind == "seg-pearson":
        keys = sorted(data.human_seg)
        index = {s: k for k, s in enumerate(data.systems)}
        x = [results[index[s]][i].score for s, i in keys]
        y = [data.human_seg[k] for k in keys]
        return float(np.corrcoef(x, y)[0, 1])
    system_scores = [scorer.combine(system).score for system in results]
    human = [np.mean([v for (s, _), v in data.human_seg.items() if s == name])
             for name in data.systems]  # fmt: skip
    return float(np.corrcoef(system_scores, human)[0, 1])


@pytest.mark.parametrize("kind", ["seg-tau", "seg-pearson", "sys-pearson"])
@pytest.mark.parametrize("n_refs", [1, 2])
def test_objectives_equal_brute_force(data: TuningData, kind: str, n_refs: int) -> None:
    refs = data.refs if n_refs == 1 else [data.refs[0], data.hyps[0]]
    multi = TuningData(data.systems, data.hyps, refs, data.human_seg)
    bank = StatsBank(BASE, multi)
    objective = Objective(kind, multi, range(multi.n_segments))
    for setting in (
        Setting(0.75, 1.4, 0.7, 0.5, (1.0, 0.5)),
        Setting(0.3, 0.5, 0.95, 0.5, (1.0, 0.9)),
    ):
        got = Evaluator(bank, objective, True).value(setting)
        assert got == pytest.approx(_brute(multi, kind, setting, refs), abs=1e-9)
    assert bank.alignments == 1  # one alignment pass serves every setting


def test_darr_pairs() -> None:
    data = TuningData(
        ["a", "b", "c"],
        [["x y", "p"], ["x z", "r"], ["x y", "q"]],
        [["x y", "p"]],
        {("a", 0): 90, ("b", 0): 60, ("c", 0): 10, ("a", 1): 50, ("b", 1): 80, ("c", 1): 70},
    )
    better, worse = darr_pairs(data, [0, 1])
    n = 2
    pairs = {(int(b) // n, int(b) % n, int(w) // n) for b, w in zip(better, worse, strict=True)}
    # Segment 0: a>b (30) and b>c (50) count; a and c have identical outputs.
    # Segment 1: b>a (30); c>a is 20 (not > 25); b and c differ by 10.
    assert pairs == {(0, 0, 1), (1, 0, 2), (1, 1, 0)}
    # A metric tie counts as discordant: identical segment scores give tau = -1.
    bank = StatsBank(BASE, data)
    bank._cache[()] = np.ones((1, 3, 2, 15))
    objective = Objective("seg-tau", data, [0, 1])
    assert Evaluator(bank, objective, True).value(Setting(0.5, 1, 0.5, 0.5, (1, 1))) == -1.0


def test_tuning_finds_the_target(data: TuningData) -> None:
    bank = StatsBank(BASE, data)
    # Every pair with different human scores (threshold 0): only the target agrees fully.
    objective = Objective("seg-tau", data, range(data.n_segments), darr_threshold=0.0)
    result = tune(BASE, bank, objective)
    assert result.tune_before < 0.95
    assert result.tune_after == 1.0
    assert result.best.weights[0] == 1.0  # the first stage's weight stays fixed
    assert bank.alignments == 1


def test_weight_dependent_aligner_realigns(data: TuningData) -> None:
    small = TuningData(data.systems[:3], [h[:10] for h in data.hyps[:3]], [data.refs[0][:10]],
                       {k: v for k, v in data.human_seg.items() if k[1] < 10})  # fmt: skip
    optimal = BASE.model_copy(
        update={"aligner": BASE.aligner.model_copy(update={"name": "optimal"})}
    )
    bank = StatsBank(optimal, small)
    objective = Objective("seg-pearson", small, range(10))
    tune(optimal, bank, objective, rounds=1)
    assert bank.alignments > 1  # one pass per distinct weight vector tried


def test_split_keeps_documents_whole() -> None:
    docs = [f"d{i // 3}" for i in range(30)]
    first, second = split_segments(30, docs, seed=4)
    assert sorted(first + second) == list(range(30))
    assert {docs[i] for i in first}.isdisjoint({docs[i] for i in second})
    assert abs(len(first) - len(second)) <= 3
    assert split_segments(30, docs, seed=4) == (first, second)


def test_reading_judgments(tmp_path: Path) -> None:
    wmt = tmp_path / "seg.tsv"
    wmt.write_text("system\tline\tsid\traw\tz\tn\nA\t1\t9\t80\t0.5\t2\nB\t2\t10\t20\t-1\t1\n")
    got, what = read_human_segments(str(wmt), score_column="raw")
    assert got == {("A", 0): 80.0, ("B", 1): 20.0} and "'line' (1-based)" in what
    assert read_human_segments(str(wmt))[0][("A", 0)] == 80.0  # raw before z
    pt = tmp_path / "pt.tsv"
    pt.write_text("system\tsegment_index\tscore\nMT\t0\t0.25\n")
    got, what = read_human_segments(str(pt), lower_is_better=True)
    assert got == {("MT", 0): -0.25} and "0-based" in what
    bare = tmp_path / "bare.tsv"
    bare.write_text("A\t3\t0.5\n")
    assert read_human_segments(str(bare))[0] == {("A", 2): 0.5}
    sys_json = tmp_path / "sys.json"
    sys_json.write_text('{"A": {"z": 0.1, "raw": 70}, "B": {"z": -0.2, "raw": 60}}')
    assert read_human_systems(str(sys_json)) == {"A": 0.1, "B": -0.2}
    assert read_human_systems(str(sys_json), key="raw") == {"A": 70, "B": 60}


def _write(data: TuningData, folder: Path) -> tuple[Path, Path, Path]:
    hyp_dir = folder / "hyp"
    hyp_dir.mkdir()
    for name, hyps in zip(data.systems, data.hyps, strict=True):
        (hyp_dir / f"{name}.en").write_text("\n".join(hyps) + "\n")
    (hyp_dir / "unjudged.en").write_text("\n".join(data.refs[0]) + "\n")
    ref = folder / "ref.en"
    ref.write_text("\n".join(data.refs[0]) + "\n")
    human = folder / "human.tsv"
    human.write_text("system\tline\tscore\n" + "".join(
        f"{s}\t{i + 1}\t{v}\n" for (s, i), v in sorted(data.human_seg.items())
    ))  # fmt: skip
    return hyp_dir, ref, human


def test_cli_tune_writes_a_usable_config(
    data: TuningData, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp_dir, ref, human = _write(data, tmp_path)
    out = tmp_path / "tuned.yaml"
    code = main(["tune", "-p", "li", "-l", "en", "--human", str(human), "--hyp-dir", str(hyp_dir),
                 "--ref", str(ref), "--split", "half", "-o", str(out), "--description",
                 "synthetic test", "--darr-threshold", "0"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "not used: unjudged" in captured.err
    lines = captured.out.splitlines()
    assert lines[0].startswith("objective: seg-tau (tuned on half of the segments")
    rows = {tuple(line.split()[:2]): line.split()[2:] for line in lines if line.startswith("seg")}
    before, after = map(float, rows[("seg-tau", "tune")])
    assert after > before
    assert ("seg-tau", "held-out") in rows and ("seg-pearson", "held-out") in rows
    assert any(line.startswith("sys-pearson  held-out") for line in lines)
    text = out.read_text()
    assert text.startswith("# synthetic test\n")
    tuned = yaml.safe_load(text)
    assert tuned["name"] == "tuned" and tuned["language"] == "en"
    assert main(["score", "-H", str(hyp_dir / "sys0.en"), "-r", str(ref), "-c", str(out),
                 "--system-only"]) == 0  # fmt: skip
    assert "preset:tuned|" in capsys.readouterr().out


def test_folds_partition_the_segments_keeping_documents_whole() -> None:
    docs = [f"d{i // 3}" for i in range(30)]
    folds = fold_segments(30, docs, 4, seed=2)
    assert sorted(i for f in folds for i in f) == list(range(30))
    owners = {docs[i]: k for k, f in enumerate(folds) for i in f}
    assert all(owners[docs[i]] == k for k, f in enumerate(folds) for i in f)  # docs whole
    assert sorted(map(len, folds)) == [6, 6, 9, 9]  # ten documents of 3 into 4 parts
    assert fold_segments(30, docs, 2, seed=4) == list(split_segments(30, docs, seed=4))


def test_cli_tune_reports_held_out_folds(
    data: TuningData, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The "human" scores are METEOR under a setting on the search grid: tuned on any
    # folds, the held-out segments agree better than with the default setting.
    hyp_dir, ref, human = _write(data, tmp_path)
    code = main(["tune", "-p", "li", "-l", "en", "--human", str(human), "--hyp-dir", str(hyp_dir),
                 "--ref", str(ref), "-o", str(tmp_path / "t.yaml"), "--darr-threshold", "0",
                 "--folds", "3", "--samples", "50", "-q"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    rows = {line.split("  ")[0].strip(): line for line in out.splitlines() if "[" in line}
    default = float(rows["li (default)"].split()[2])
    held_out = float(rows["tuned, 3-fold held out"].split()[4])
    assert "held out (3 folds, split seed 1)" in out
    assert held_out > default


def test_cli_tune_errors(
    data: TuningData, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp_dir, ref, human = _write(data, tmp_path)
    base = ["tune", "-p", "li", "-l", "en", "--hyp-dir", str(hyp_dir), "--ref", str(ref), "-o",
            str(tmp_path / "t.yaml")]  # fmt: skip
    assert main(base) == 2
    assert "needs human judgments" in capsys.readouterr().err
    assert main([*base, "--human", str(human), "--segment-base", "0"]) == 2
    assert "beyond the" in capsys.readouterr().err


@pytest.mark.data
@pytest.mark.slow
def test_tuned_presets_load_and_pt_data_tunes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("tuned/de-en", "tuned/ja-en", "tuned/en-de", "tuned/en-pt"):
        cfg = load_config(name)
        assert cfg.name.startswith("tuned-")
    folder = require_data("pt", "wmt22_chat_en-ptbr_mqm")
    out = tmp_path / "pt.yaml"
    code = main(["tune", "-p", "meteor-1.5-pt", "--norm", "lower", "--human",
                 str(folder / "human_scores_seg.tsv"), "--hyp-dir", str(folder / "hyps"),
                 "--ref", str(folder / "refs.txt"), "--docs", str(folder / "docids.txt"),
                 "--split", "half", "-o", str(out), "-j", "2", "-q"])  # fmt: skip
    assert code == 0
    assert "seg-tau      held-out" in capsys.readouterr().out
    assert load_config(str(out)).language == "pt"
