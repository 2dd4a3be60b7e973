"""Hardening, round 2: the Python API, configurations extending ``meteorx``, the formula.

Each test reproduces a finding of the second hostile pass and checks the fix:

* a configuration that ``extends: meteorx`` resolves per language exactly as
  ``--preset meteorx --lang L`` (it failed for languages Snowball lacks);
* the formula never divides by zero, never returns NaN and stays in [0, 1] for every
  valid configuration (a stage weight of 5e-324 raised ZeroDivisionError);
* the public entry points raise meteorx's own errors, with a sentence, for arguments of
  the wrong type or shape;
* configuration booleans are strict, and malformed language tags are refused.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import replace
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import meteorx
from meteorx import engine as engine_seam
from meteorx.config import load_config
from meteorx.defaults import configure
from meteorx.errors import ConfigError, InputError, LanguageError, MeteorxError
from meteorx.formats.stats_file import _params_from_dict
from meteorx.metric import Scorer
from meteorx.scoring import Parameters, breakdown_of, fmean, formula
from meteorx.stats import Layout, Stats
from tests.conftest import wordnet_missing

REPO = Path(__file__).resolve().parents[1]
PAIRS = [
    ("O gato azul comeu o peixe.", "o gato é azul e comeu peixes"),
    ("我们今天去公园散步。", "今天我们在公园里散步"),
    ("ผมกินข้าวแล้ว", "ฉันกินข้าวแล้วครับ"),
    ("오늘 날씨가 좋네요", "오늘은 날씨가 좋습니다"),
    ("שלום עולם יפה", "שלום לעולם"),
    ("The Cats sat", "the cat sat on the mat"),
]


@pytest.fixture(params=["compiled", "python"])
def engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test on the compiled path and on the pure-Python one."""
    if request.param == "compiled" and not find_spec("meteorx._links_and_counts"):
        pytest.skip("C extensions not built")
    with engine_seam.use("c" if request.param == "compiled" else "python"):
        yield request.param


def _without_name(config: meteorx.MeteorConfig) -> dict[str, Any]:
    return config.model_dump(exclude={"name"})


# -- 4. extends: meteorx -------------------------------------------------------------------


@pytest.mark.parametrize("language", ["zh", "ja", "th", "ko", "he", "pt"])
def test_config_extending_meteorx_resolves_like_the_preset(
    tmp_path: Path, language: str, engine: str
) -> None:
    preset = configure("meteorx", language=language)
    own = tmp_path / "own.yaml"
    own.write_text(f"extends: meteorx\nlanguage: {language}\n", encoding="utf-8")
    bare = tmp_path / "bare.yaml"  # the language comes from --lang / language=
    bare.write_text("extends: meteorx\n", encoding="utf-8")
    routes = [
        configure(str(own)),
        configure(str(bare), language=language),
        configure(str(own), language=language),
        configure({"extends": "meteorx", "language": language}),
        load_config(str(own)),
    ]
    for config in routes:
        assert _without_name(config) == _without_name(preset)
    expected = Scorer("meteorx", language=language)
    for config in (routes[0], routes[1]):
        scorer = Scorer(config)
        for hyp, ref in PAIRS:
            assert scorer.segment(hyp, ref).score == expected.segment(hyp, ref).score


def test_config_extending_meteorx_follows_the_language_override(tmp_path: Path) -> None:
    """A file written for Portuguese, scored with --lang zh, loses the stem stage."""
    path = tmp_path / "pt.yaml"
    path.write_text("extends: meteorx\nlanguage: pt\nalpha: 0.7\n", encoding="utf-8")
    config = configure(str(path), language="zh")
    assert config.language == "zh" and config.alpha == 0.7
    assert [s.stage_name for s in config.stages] == [
        s.stage_name for s in configure("meteorx", language="zh").stages
    ]
    assert "case-stem" in [s.stage_name for s in configure(str(path)).stages]


def test_a_stem_stage_written_by_the_configuration_is_kept(tmp_path: Path) -> None:
    """Only what the preset gives is resolved: a stage the user writes stays, and a
    language without a stemmer is then an error saying so."""
    path = tmp_path / "stem.yaml"
    path.write_text(
        "extends: meteorx\nlanguage: zh\nstages:\n- {matcher: exact}\n"
        "- {matcher: case, stem: true, weight: 0.3}\n",
        encoding="utf-8",
    )
    with pytest.raises(LanguageError, match="no Snowball stemmer for Chinese"):
        Scorer(str(path))


def test_cli_config_extending_meteorx_scores_like_the_preset(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("extends: meteorx\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("我们今天去公园散步。\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("今天我们在公园里散步\n", encoding="utf-8")
    outputs = []
    for how in (["--config", "m.yaml"], ["--preset", "meteorx"]):
        run = subprocess.run(
            [sys.executable, "-m", "meteorx", "score", "--hyp", "hyp.txt", "--ref", "ref.txt",
             "--lang", "zh", "--system-only", *how],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        outputs.append(run.stdout.splitlines()[0])  # METEOR = ... (P ..., R ..., ...)
    assert outputs[0] == outputs[1] and outputs[0].startswith("METEOR = ")


# -- 6. the formula ------------------------------------------------------------------------


def _record(hyp_function: int, blocks: int = 1) -> Stats:
    """``the`` against ``the``: one word a side, matched in one chunk by the first block."""
    first, rest = (1,), (0,) * (blocks - 1)
    content = (0, *rest) if hyp_function else (*first, *rest)
    function = (*first, *rest) if hyp_function else (0, *rest)
    return Stats(1, 1, hyp_function, hyp_function, content, content, function, function, 1, 1, 1)


def test_subnormal_weight_scores_without_division_by_zero(engine: str) -> None:
    config = {
        "language": "en",
        "function_words": "builtin",
        "fmean": "nltk",
        "alpha": 0.5,
        "delta": 0.0,
        "aligner": "meteor-1.5",
        "stages": [{"matcher": "exact", "weight": 5e-324}],
    }
    result = Scorer(config).segment("the", "the")
    assert result.stats.hyp_matched_words == 1  # "the" (a function word) was aligned
    assert result.score == 0.0
    # the same record through the formula: P = R = 5e-324, NLTK's form underflows
    params = Parameters(0.5, 3.0, 0.5, 0.0, (5e-324,), True, "nltk")
    breakdown = breakdown_of(_record(hyp_function=1), params)
    assert breakdown.precision == breakdown.recall == 5e-324
    assert breakdown.fmean == 0.0 and breakdown.score == 0.0
    # the exact Fmean is 5e-324 here: both forms are within 1e-323 of it
    assert fmean(5e-324, 5e-324, 0.5, "harmonic") <= 1e-323


def test_nltk_form_underflow_matches_nltk_on_arrays() -> None:
    """Rows take the same path: 0 where the denominator underflows, no NumPy warning."""
    p = np.array([5e-324, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = fmean(p, p, 0.5, "nltk")
    assert values.tolist() == [0.0, fmean(0.5, 0.5, 0.5, "nltk")]


def test_recall_rounding_past_one_is_cut_back() -> None:
    """Found by the property test below: two stages of weight 1 sum to 1 + 1 ulp."""
    stats = Stats(0, 4, 0, 3, (0, 0), (1, 0), (0, 0), (2, 1), 0, 0, 4)
    params = Parameters(0.0, 0.0, 0.0, 0.5740482683671045, (1.0, 1.0), False)
    assert breakdown_of(stats, params).recall == 1.0


unit = st.one_of(
    st.floats(0.0, 1.0),
    st.sampled_from([0.0, 1.0, 5e-324, 1e-320, 2.2250738585072014e-308, 1 - 2**-53, 2**-53]),
)


@st.composite
def counted(draw: st.DrawFn, blocks: int) -> Stats:
    """A statistics record that could have been counted with ``blocks`` blocks."""

    def side() -> tuple[int, int, list[int], list[int]]:
        length = draw(st.integers(0, 30))
        function = draw(st.integers(0, length))
        content_left, function_left = length - function, function
        content, functions = [], []
        for _ in range(blocks):
            content.append(draw(st.integers(0, content_left)))
            functions.append(draw(st.integers(0, function_left)))
            content_left -= content[-1]
            function_left -= functions[-1]
        return length, function, content, functions

    hl, hf, hc, hfm = side()
    rl, rf, rc, rfm = side()
    hw, rw = sum(hc) + sum(hfm), sum(rc) + sum(rfm)
    chunks = draw(st.integers(min(1, hw, rw), min(hw, rw)))
    return Stats(hl, rl, hf, rf, tuple(hc), tuple(rc), tuple(hfm), tuple(rfm), chunks, hw, rw)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_formula_is_finite_and_in_range_for_every_valid_configuration(data: st.DataObject) -> None:
    blocks = data.draw(st.integers(1, 4))
    stats = data.draw(counted(blocks))
    params = Parameters(
        alpha=data.draw(unit),
        beta=data.draw(st.one_of(st.floats(0.0, 1e6), st.sampled_from([0.0, 5e-324, 1e308]))),
        gamma=data.draw(unit),
        delta=data.draw(unit),
        weights=tuple(data.draw(unit) for _ in range(blocks)),
        perfect_match_rule=data.draw(st.booleans()),
        fmean_form=data.draw(st.sampled_from(["harmonic", "nltk"])),
    )
    breakdown = breakdown_of(stats, params)
    for name in ("precision", "recall", "fmean", "score"):
        value = getattr(breakdown, name)
        assert math.isfinite(value) and 0.0 <= value <= 1.0, (name, value)
    # the vectorised path (tuning, significance) gives the same floats, without warnings
    layout = Layout(blocks)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # (only the harmonic form's 1/P overflowing to inf for a subnormal P, the intended
        # value: its Fmean is then 0)
        warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
        rows = formula(layout.view(np.array([layout.row(stats)], dtype=float)), params)
    names = ("precision", "recall", "fmean", "fragmentation", "penalty", "score")
    for name, row, one in zip(
        names, rows, formula(replace(stats, segments=1), params), strict=True
    ):
        value = float(np.asarray(row).reshape(-1)[0])
        if math.isnan(value) or math.isnan(one):
            assert math.isnan(value) and math.isnan(one), name
        elif name in ("penalty", "score"):
            # NumPy's vectorised x**y may differ from libm's pow in the last bits (as
            # test_significance says): an ulp of the penalty, which 1 - penalty can turn
            # into a large relative error of a score near 0, hence the absolute bound;
            # everything before the penalty is the same float
            assert value == pytest.approx(one, rel=1e-12, abs=1e-15), name
        else:
            assert value == one, name


# -- 8. the public API's front door --------------------------------------------------------


def test_score_accepts_a_normalize_mapping() -> None:
    normalize: Any = {"tokenizer": "whitespace", "lowercase": True}
    shared = meteorx.score("The cat sat", "the cat sat", "li", language="en", normalize=normalize)
    own = Scorer("li", language="en", normalize=normalize)
    assert shared.score == own.segment("The cat sat", "the cat sat").score == 1.0
    corpus = meteorx.corpus_score(["The"], ["the"], "li", language="en", normalize=normalize)
    assert corpus.score == 1.0


@pytest.mark.parametrize(
    ("call", "error", "says"),
    [
        (lambda: meteorx.score("a", "a", language=1), LanguageError, "not int"),  # type: ignore[arg-type]
        (lambda: meteorx.score("a", "a", config=5), ConfigError, "not int"),
        (lambda: meteorx.corpus_score({"a": 1}, {"b": 2}, language="pt"), InputError, "not dict"),
        (lambda: meteorx.corpus_score("ab", "ab", "li", language="en"), InputError, "not str"),
        (lambda: meteorx.corpus_score(5, [], "li", language="en"), InputError, "not int"),
        (lambda: meteorx.score("a", {"a": 1}, "li", language="en"), InputError, "not dict"),
        (lambda: meteorx.score("a", 5, "li", language="en"), InputError, "not int"),
        (lambda: meteorx.score("a", {"a"}, "li", language="en"), InputError, "not set"),
        (lambda: meteorx.compute(["a"], ["a"], alpha="0.5"), ConfigError, "alpha"),
    ],
)
def test_wrong_arguments_are_meteorx_errors(call: Any, error: type, says: str) -> None:
    with pytest.raises(error, match=says):
        call()


@pytest.mark.parametrize(
    ("hyps", "refs", "says"),
    [
        (["a", "b"], ["a"], "more hypotheses than references"),
        (["a"], ["a", "b"], "more references than hypotheses"),
        (iter(["a", "b"]), iter(["a"]), "more hypotheses than references"),
    ],
)
def test_corpus_of_unequal_lengths_is_an_input_error(hyps: Any, refs: Any, says: str) -> None:
    with pytest.raises(InputError, match=says):
        Scorer("li", language="en").corpus(hyps, refs)


def test_rescore_checks_its_record() -> None:
    scorer = Scorer("li", language="en")
    with pytest.raises(InputError, match=r"a Stats record is needed.*not NoneType"):
        scorer.rescore(None)  # type: ignore[arg-type]
    result = scorer.segment("the cat sat", "the cat sat on the mat")
    assert scorer.rescore(result.stats) == breakdown_of(result.stats, scorer.params)
    zeros = (0,) * (len(scorer.config.block_names) - 1)
    # two words, one a function word: two content matches cannot have been counted
    too_many = Stats(2, 2, 1, 1, (2, *zeros), (1, *zeros), (0, *zeros), (1, *zeros), 1, 2, 2)
    with pytest.raises(InputError, match="more hyp content or function-word matches"):
        scorer.rescore(too_many)
    with pytest.raises(InputError, match="is not a count"):
        scorer.rescore(replace(result.stats, hyp_len=math.nan))
    with pytest.raises(InputError, match="is not a count"):
        scorer.rescore(replace(result.stats, hyp_len=10**400))
    # found by fuzz/fuzz_api.py: the quoted value held a line break
    with pytest.raises(InputError) as error:
        scorer.rescore(replace(result.stats, ref_len="\n\x01"))
    assert "\n" not in str(error.value) and "is not a count" in str(error.value)


def test_nltk_compat_errors_are_meteorx_and_nltk_errors() -> None:
    from meteorx.compat.nltk import NltkTypeError, NltkValueError, meteor_score

    with pytest.raises(NltkTypeError) as bad_type:
        meteor_score([["a"]], ["a"], alpha="x")  # type: ignore[arg-type]
    assert isinstance(bad_type.value, TypeError) and isinstance(bad_type.value, MeteorxError)
    with pytest.raises(NltkValueError) as bad_value:
        meteor_score([["a"]], ["a"], beta=math.inf)
    assert isinstance(bad_value.value, ValueError) and isinstance(bad_value.value, MeteorxError)
    missing = wordnet_missing()
    if missing:
        pytest.skip(missing)
    for args in ([None, ["a"]], [[["a"]], 5], [[["a"]], [1]], [[["a"]], "a b"]):
        with pytest.raises(NltkTypeError):
            meteor_score(*args)
    with pytest.raises(NltkValueError, match="at least one reference"):
        meteor_score([], ["a"])


def test_pycocoevalcap_compat_refuses_non_mappings() -> None:
    from meteorx.compat.pycocoevalcap import CompatInputError, Meteor

    meteor = Meteor({"extends": "li", "language": "en"}, normalize="lower")
    for gts, res in (([1], {}), ({1: ["a"]}, {1: 5}), ({1: 5}, {1: ["a"]})):
        with pytest.raises(CompatInputError):
            meteor.compute_score(gts, res)  # type: ignore[arg-type]


# -- 9. strict booleans, language tags -----------------------------------------------------


def test_statistics_file_parameters_are_strict() -> None:
    good = {"alpha": 0.9, "beta": 3, "gamma": 0.5, "delta": 0.5, "weights": [1.0],
            "perfect_match_rule": False, "stages": ["exact"]}  # fmt: skip
    assert _params_from_dict(good, "f.json")[0].perfect_match_rule is False
    with pytest.raises(InputError, match="perfect_match_rule must be true or false"):
        _params_from_dict({**good, "perfect_match_rule": "false"}, "f.json")
    with pytest.raises(InputError, match="incomplete parameters"):
        _params_from_dict({**good, "alpha": "0.9"}, "f.json")


@pytest.mark.parametrize("value", ["false", "yes", 1, 0])
def test_matcher_options_are_strict(value: Any) -> None:
    config = {"language": "pt", "stages": [{"matcher": "case", "stem": value}]}
    with pytest.raises(ConfigError, match=r"stages\.0\.stem"):
        Scorer(config)


@pytest.mark.parametrize("tag", ["pt--BR", "pt-", "pt-BR-", "pt_", "p-BR", "pt-toolongsubtag"])
def test_malformed_language_tags_are_refused_everywhere(tag: str, tmp_path: Path) -> None:
    with pytest.raises(LanguageError, match="unknown language"):
        meteorx.score("a", "a", language=tag)
    with pytest.raises(LanguageError, match="unknown language"):
        Scorer({"language": tag, "stages": [{"matcher": "exact"}]})


@pytest.mark.parametrize(("tag", "code"), [("en_US", "en"), ("pt-BR", "pt"), ("zh-Hant-TW", "zh")])
def test_well_formed_tags_resolve(tag: str, code: str) -> None:
    assert Scorer({"language": tag, "stages": [{"matcher": "exact"}]}).language.code == code
    assert Scorer("meteorx", language=tag).language.code == code


def test_cli_refuses_a_malformed_tag(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("a\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "meteorx", "score", "--hyp", "t.txt", "--ref", "t.txt",
         "--lang", "pt--BR"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 2
    assert "unknown language 'pt--BR'" in run.stderr and "Traceback" not in run.stderr
