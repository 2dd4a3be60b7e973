"""Configuration: presets, extends, overrides and readable validation errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from meteorx.config import load_config
from meteorx.config_loading import preset_names
from meteorx.errors import ConfigError, LanguageError
from meteorx.metric import Scorer


def test_every_preset_loads() -> None:
    names = preset_names()
    for required in ["meteor-2005", "li", "meteor-1.5-en", "meteor-1.5-pt", "meteor-1.5-cz"]:
        assert required in names
    for name in names:
        assert load_config(name).stages


def test_jar_defaults_table() -> None:
    """Meteor 1.5 defaults as printed by the jar (reference page table)."""
    en = load_config("meteor-1.5-en")
    assert [s.matcher for s in en.stages] == ["exact", "stem", "synonym", "paraphrase"]
    assert [s.weight for s in en.stages] == [1.0, 0.6, 0.8, 0.6]
    assert (en.alpha, en.beta, en.gamma, en.delta) == (0.85, 0.20, 0.60, 0.75)
    de = load_config("meteor-1.5-de")
    assert (de.alpha, de.beta, de.gamma, de.delta) == (0.95, 1.00, 0.55, 0.55)
    li = load_config("li")
    assert [s.weight for s in li.stages] == [1.0, 0.5]
    assert (li.alpha, li.beta, li.gamma, li.delta) == (0.75, 1.40, 0.70, 0.50)
    m05 = load_config("meteor-2005")
    assert (m05.alpha, m05.beta, m05.gamma, m05.delta) == (0.9, 3.0, 0.5, 0.5)
    assert m05.perfect_match_rule is False
    assert m05.aligner.name == "optimal"
    assert en.aligner.name == "meteor-1.5"


def test_user_yaml_extends_and_overrides(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("extends: li\nlanguage: pt\nalpha: 0.5\nnormalize: lower\n")
    cfg = load_config(path)
    assert cfg.alpha == 0.5
    assert cfg.language == "pt"
    assert cfg.beta == 1.4  # inherited
    assert cfg.normalize.lowercase is True
    assert cfg.name == "li+mine"


def test_extends_chain_of_files(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("extends: meteor-2005\ngamma: 0.3\n")
    (tmp_path / "top.yaml").write_text("extends: base.yaml\nbeta: 2.0\n")
    cfg = load_config(tmp_path / "top.yaml")
    assert (cfg.beta, cfg.gamma, cfg.alpha) == (2.0, 0.3, 0.9)


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        (
            "extends: li\nalpha: 1.5\n",
            "alpha: Input should be less than or equal to 1 (allowed: 0 <= alpha <= 1; got 1.5)",
        ),
        ("extends: li\ngamma: -0.1\n", "gamma: Input should be greater than or equal to 0"),
        ("extends: li\ndelta: 2\n", "delta: Input should be less than or equal to 1"),
        ("extends: li\nbeta: -1\n", "beta: Input should be greater than or equal to 0"),
        ("extends: li\ngama: 0.5\n", "gama: unknown key"),
        ("extends: li\nstages: []\n", "stages: at least one stage is needed"),
        (
            "extends: li\nstages:\n- {matcher: exact}\n- {matcher: exact}\n",
            "duplicate stage name 'exact'",
        ),
        (
            "extends: li\nstages:\n- {matcher: exact, weight: 1.2}\n",
            "stages.0.weight: Input should be less than or equal to 1",
        ),
        ("extends: li\nnormalize: shouting\n", "unknown normalisation 'shouting'"),
        ("alpha: [1\n", "invalid YAML"),
        ("extends: nosuchpreset\n", "unknown preset 'nosuchpreset'"),
    ],
)
def test_invalid_configs_name_the_field(tmp_path: Path, yaml_text: str, expected: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml_text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert expected in str(info.value)


def test_unknown_matcher_option_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"stages\.1\.colour: unknown option"):
        Scorer(
            {
                "extends": "li",
                "language": "en",
                "stages": [{"matcher": "exact"}, {"matcher": "stem", "colour": "red"}],
            }
        )


def test_unknown_language_lists_known_ones() -> None:
    with pytest.raises(LanguageError, match=r"unknown language 'xx'.*known languages: .*pt"):
        Scorer("li", language="xx")


def test_li_needs_a_language() -> None:
    with pytest.raises(ConfigError, match="names no language"):
        Scorer("li")


def test_language_aliases() -> None:
    assert Scorer("li", language="cz").language.code == "cs"
    assert Scorer("li", language="pt-BR").language.code == "pt"
