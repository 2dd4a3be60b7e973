"""``meteorx.api.build_scorer``: every entry point builds its scorer there.

German is used where a default is compared: its recommended configuration (the
``meteorx`` preset) needs no downloaded resource, so these tests run anywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import meteorx
from meteorx.api import build_scorer, compute
from meteorx.cli.main import main
from meteorx.config import load_config
from meteorx.errors import ConfigError
from meteorx.metric import Scorer

HYP = "die Katze saß auf der Matte"
REF = "die Katze sitzt auf der Matte"


def test_score_compute_and_the_cli_share_their_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    by_score = meteorx.score(HYP, REF, language="de")
    by_compute = compute([HYP], [REF], language="de", segment_scores=True, signature=True)
    (tmp_path / "h.txt").write_text(HYP + "\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text(REF + "\n", encoding="utf-8")
    argv = ["score", "-H", str(tmp_path / "h.txt"), "-r", str(tmp_path / "r.txt"), "-l", "de"]
    assert main([*argv, "--format", "json"]) == 0
    by_cli = json.loads(capsys.readouterr().out)
    assert by_score.score == by_compute["scores"][0] == by_cli["segments"][0]["score"]
    assert by_compute["signature"] == by_cli["signature"]
    assert "preset:meteorx|lang:de|" in by_cli["signature"]


def test_every_reference_to_one_configuration_gives_the_same_scorer() -> None:
    shared = build_scorer("li", language="en", shared=True)
    assert build_scorer("li", language="en", shared=True) is shared
    as_model = load_config("li").with_overrides(language="en")
    assert build_scorer(as_model, shared=True) is shared
    assert build_scorer("li", language="en") is not shared  # not shared: a new one
    assert Scorer("li", language="en").config == shared.config  # the same resolution


def test_overrides_apply_in_one_place() -> None:
    scorer = build_scorer("li", language="pt", normalize="lower", alpha=0.5, delta=0.25)
    cfg = scorer.config
    got = (cfg.language, cfg.normalize.shorthand, cfg.alpha, cfg.delta)
    assert got == ("pt", "lower", 0.5, 0.25)
    assert (cfg.beta, cfg.gamma) == (load_config("li").beta, load_config("li").gamma)
    with pytest.raises(ConfigError, match="names no language"):
        build_scorer("li")
    with pytest.raises(ConfigError, match="alpha"):
        build_scorer("li", language="en", alpha=2.0)
