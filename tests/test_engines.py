"""The engine seam: every compiled twin against its pure-Python definition, on real data.

Each configuration is built twice in one process, once per engine
(:func:`meteorx.engine.use`), and scores the same xray segments (Meteor 1.5's example
MT output): every score, statistic, breakdown, alignment and the corpus record must be
equal bit for bit (compared by ``repr``, which shows every bit of a float and
makes NaN equal to NaN). Together the configurations run every twin: the beam search (li,
meteor-1.5-en), the optimal search (meteor-2005, pt), the key-stage pass and statistics
(all), the paraphrase matcher and Meteor's ``-norm`` tokenizer (meteor-1.5-en), NLTK's
greedy alignment (nltk) and the transfer between processes (``--jobs``).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from meteorx import engine
from meteorx.cli.main import main
from meteorx.errors import ConfigError
from meteorx.metric import CorpusResult, Scorer
from meteorx.transfer import DECODE_ARGS, ENCODE_ARGS
from meteorx.worker_pool import transfer_kernel
from tests.conftest import DATA, require_data, require_full_english, require_wordnet

#: id -> (preset, language, normalisation, what it needs)
CONFIGS = {
    "li": ("li", "en", None, None),
    "meteor-1.5-en-norm": ("meteor-1.5-en", "en", "meteor", require_full_english),
    "meteor-2005": ("meteor-2005", "en", None, require_wordnet),
    "nltk": ("nltk", "en", None, require_wordnet),
    "pt": ("pt", "pt", None, None),
    "meteorx": ("meteorx", "en", None, None),  # case stages, characters, soft credit
}

_RESULTS: dict[tuple[str, str], CorpusResult] = {}


def _corpus(name: str, which: str, xray: dict[str, list[str]]) -> CorpusResult:
    """The xray system 1 scored with configuration ``name`` on engine ``which``."""
    key = (name, which)
    if key not in _RESULTS:
        preset, language, norm, need = CONFIGS[name]
        if need is not None:
            need()
        with engine.use(which):
            scorer = Scorer(preset, language=language, normalize=norm)
        refs = [[r] for r in xray["ref"]]
        _RESULTS[key] = scorer.corpus(xray["system1"], refs)
    return _RESULTS[key]


@pytest.fixture(autouse=True)
def _omw(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pt preset's OpenWordnet-PT, from the shared data folder."""
    monkeypatch.setenv("METEORX_OMW_DIR", str(DATA / "omw"))


def _compiled_built() -> None:
    missing = [name for name, _, state in engine.report() if state != "in use"]
    if missing:
        pytest.skip(f"compiled modules not built: {', '.join(missing)}")


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_both_engines_give_the_same_results(name: str, xray: dict[str, list[str]]) -> None:
    require_data("meteor15-examples")
    if name == "pt":
        require_data("omw", "por")
    with engine.use("c"):
        _compiled_built()
    c = _corpus(name, "c", xray)
    python = _corpus(name, "python", xray)
    assert len(c.segments) == len(python.segments) > 0
    for i, (a, b) in enumerate(zip(c.segments, python.segments, strict=True)):
        assert repr(a) == repr(b), f"segment {i + 1} differs between the engines"
    assert repr((c.score, c.stats, c.breakdown, c.signature)) == repr(
        (python.score, python.stats, python.breakdown, python.signature)
    )
    assert any(s.alignment.matches for s in c.segments)


@pytest.mark.parametrize("detail", [True, False])
def test_transfer_twins_round_trip_real_results(detail: bool, xray: dict[str, list[str]]) -> None:
    """What a worker sends (the C form or the pickled packed tuples) decodes to the
    same results; each engine's pool picks its kernel, the two modules take the same
    arguments."""
    from meteorx import transfer

    require_data("meteor15-examples")
    with engine.use("c"):
        _compiled_built()
        c = transfer_kernel()
    with engine.use("python"):
        python = transfer_kernel()
    assert python is transfer and c is not transfer
    segments = list(_corpus("li", "c", xray).segments[:500])
    sent_c = c.encode(segments, detail, *ENCODE_ARGS)
    sent_py = python.encode(segments, detail, *ENCODE_ARGS)
    assert isinstance(sent_c, bytes) and isinstance(sent_py, bytes) and sent_c != sent_py
    got_c = c.decode(sent_c, *DECODE_ARGS)
    got_py = python.decode(sent_py, *DECODE_ARGS)
    assert repr(got_c) == repr(got_py)
    if detail:
        assert repr(got_c) == repr(segments)


def test_the_switch_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engine.ENV_VAR, "fast")
    with pytest.raises(ConfigError, match=r"METEORX_ENGINE is one of auto, c, python, not 'fast'"):
        engine.requested()
    with pytest.raises(ConfigError), engine.use("gpu"):
        pass
    monkeypatch.setenv(engine.ENV_VAR, "PYTHON")
    assert engine.requested() == "python" and engine.active() == "python"
    assert engine.compiled("meteorx.align._fast") is None


def test_a_missing_compiled_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """``c`` names every missing module and the fix; ``auto`` warns once and runs Python."""
    monkeypatch.setitem(engine.MODULES, "meteorx._not_built", "a twin that was not built")
    with engine.use("c"), pytest.raises(engine.EngineError) as caught:
        engine.compiled("meteorx._not_built")
    assert "meteorx._not_built (not built)" in str(caught.value)
    assert "METEORX_ENGINE=python" in str(caught.value)
    monkeypatch.setattr(engine, "_warned", set())
    with engine.use("auto"), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert engine.compiled("meteorx._not_built") is None
        assert engine.compiled("meteorx._not_built") is None
    assert len(seen) == 1 and issubclass(seen[0].category, engine.EngineWarning)
    assert "meteorx._not_built" in str(seen[0].message)
    with engine.use("auto"):
        assert engine.active() in ("mixed", "python")
        assert ("meteorx._not_built", "a twin that was not built", "not built") in engine.report()


def test_info_and_verbose_name_the_engine(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(engine.ENV_VAR, "python")
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "engine: python (METEORX_ENGINE=python)" in out
    assert "meteorx.align._fast" in out
    text = tmp_path / "h.txt"
    text.write_text("the cat sat on the mat\n")
    args = ["score", "-H", str(text), "-r", str(text), "-p", "li", "-l", "en", "--verbose"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "engine: python" in captured.err and "stages: exact 1, stem 0.5" in captured.err
    assert "engine" not in captured.out
    monkeypatch.setenv(engine.ENV_VAR, "rust")
    assert main(["info"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "METEORX_ENGINE" in captured.err


def test_a_broken_compiled_module_is_named_as_broken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module that is there but fails to load (a stale build) is not 'not built'."""
    (tmp_path / "mx_stale_twin.py").write_text('raise ImportError("built for another Python")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(engine.MODULES, "mx_stale_twin", "a stale twin")
    with engine.use("c"), pytest.raises(engine.EngineError) as caught:
        engine.compiled("mx_stale_twin")
    assert "mx_stale_twin (broken (ImportError: built for another Python))" in str(caught.value)
    with engine.use("auto"):
        assert "broken" in engine.describe()


def test_a_shared_scorer_runs_the_engine_it_was_asked_for() -> None:
    """meteorx.score keeps one scorer per configuration and engine, not per configuration."""
    from meteorx.api import build_scorer

    with engine.use("c"):
        compiled_scorer = build_scorer("li", language="en", shared=True)
    with engine.use("python"):
        python_scorer = build_scorer("li", language="en", shared=True)
        assert build_scorer("li", language="en", shared=True) is python_scorer
    assert python_scorer is not compiled_scorer
    assert python_scorer._links_and_counts is None
