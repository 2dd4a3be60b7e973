"""``meteorx.Meteor``: the one metric object, and every entry point agreeing with it.

German and the ``li`` preset need no downloaded resource, so most of these run
anywhere; the xray comparisons skip without the shared data.
"""

from __future__ import annotations

import json
import pickle
import statistics
from pathlib import Path

import pytest

import meteorx
from meteorx.api import compute
from meteorx.cli.main import main
from meteorx.metric import Meteor, Scorer
from meteorx.stats import sum_stats
from meteorx.streaming import score_stream

HYPS = ["die Katze saß auf der Matte", "ein Hund bellt laut", "heute regnet es nicht"]
REFS = ["die Katze sitzt auf der Matte", "der Hund bellt", "es regnet heute"]


def test_the_metric_methods_agree_with_each_other() -> None:
    metric = Meteor("meteorx", language="de")
    for hyp, ref in zip(HYPS, REFS, strict=True):
        result = metric.sentence_score(hyp, [ref])
        stats = metric.extract_stats(hyp, [ref])
        assert stats == result.stats
        assert metric.score(stats) == result.breakdown  # the same formula, bit for bit
    corpus = metric.corpus_score(HYPS, REFS)
    assert corpus.stats == sum_stats(
        metric.extract_stats(h, r) for h, r in zip(HYPS, REFS, strict=True)
    )
    assert corpus.breakdown == metric.system(corpus.stats, [s.score for s in corpus.segments])
    assert corpus.signature == metric.signature(refs=1)
    assert Scorer is Meteor and meteorx.Meteor is Meteor


def test_the_mean_rule_is_applied_in_one_place() -> None:
    metric = Meteor("nltk", language="en")
    corpus = metric.corpus_score(HYPS, REFS)
    mean = statistics.fmean(s.score for s in corpus.segments)
    assert corpus.score == pytest.approx(mean, abs=1e-15)
    # the statistics still decide every other field
    assert corpus.breakdown.precision == metric.score(corpus.stats).precision
    by_compute = compute(HYPS, REFS, config="nltk", language="en")["meteor"]
    assert by_compute == corpus.score


def test_a_meteor_pickles_as_its_configuration() -> None:
    metric = Meteor("li", language="en", normalize="lower")
    data = pickle.dumps(metric)
    assert len(data) < 20_000  # the configuration, not the matchers' tables
    again = pickle.loads(data)
    assert again.config == metric.config
    assert pickle.loads(data) is again  # a process builds each configuration once
    for hyp, ref in zip(HYPS, REFS, strict=True):
        assert again.sentence_score(hyp, ref) == metric.sentence_score(hyp, ref)


def test_every_entry_point_reports_the_metrics_system_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], xray: dict[str, list[str]]
) -> None:
    hyps, refs = xray["system1"][:300], xray["ref"][:300]
    metric = Meteor("li", language="en", normalize="lower")
    corpus = metric.corpus_score(hyps, refs)
    stream = score_stream(metric, hyps, refs)
    for _ in stream:
        pass
    assert stream.summary().breakdown == corpus.breakdown
    by_compute = compute(hyps, refs, config="li", language="en", normalize="lower")
    assert by_compute["meteor"] == corpus.score
    (tmp_path / "h.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    for jobs in ("1", "2"):
        argv = ["score", "-H", str(tmp_path / "h.txt"), "-r", str(tmp_path / "r.txt")]
        argv += ["--preset", "li", "--lang", "en", "--norm", "lower", "--format", "json"]
        assert main([*argv, "--jobs", jobs]) == 0
        by_cli = json.loads(capsys.readouterr().out)
        assert by_cli["system"]["score"] == corpus.score
        assert by_cli["signature"] == corpus.signature


def test_the_overrides_are_one_set_of_keywords_everywhere() -> None:
    """``language``, ``normalize`` and ``alpha`` .. ``delta`` mean the same in every entry
    point (one declaration, :class:`meteorx.config_models.Overrides`), and a misspelt one
    is refused as Python refuses an unknown keyword."""
    given = {"language": "en", "normalize": "lower", "alpha": 0.8, "beta": 2.0, "gamma": 0.3}
    metric = Meteor("li", **given)  # type: ignore[arg-type]
    cfg = metric.config
    assert (cfg.language, cfg.alpha, cfg.beta, cfg.gamma) == ("en", 0.8, 2.0, 0.3)
    hyp, ref = "The cats sat on a mat", "the cat sat on the mat"
    want = metric.sentence_score(hyp, ref).score
    assert meteorx.score(hyp, ref, "li", **given).score == want  # type: ignore[arg-type]
    assert compute([hyp], [ref], config="li", **given)["meteor"] == want  # type: ignore[arg-type]
    for call in (
        lambda: Meteor("li", lang="en"),  # type: ignore[call-arg]
        lambda: meteorx.score(hyp, ref, "li", lang="en"),  # type: ignore[call-arg]
        lambda: compute([hyp], [ref], config="li", lang="en"),  # type: ignore[call-arg]
    ):
        with pytest.raises(TypeError, match="unexpected keyword argument 'lang'"):
            call()
