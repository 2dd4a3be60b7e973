"""Signatures are honest: every entry point names the number of references, and the
tokenisation of languages written without spaces is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import meteorx
import meteorx.api as api
from meteorx.cli.main import main
from meteorx.metric import Scorer

HYPS = ["the cat sat on the mat", "a quick brown fox"]
REFS = [["the cat sat on a mat", "a cat sat"], ["the quick brown fox"]]


def _field(signature: str, key: str) -> str | None:
    for item in signature.split("|"):
        name, _, value = item.partition(":")
        if name == key:
            return value
    return None


def test_scorer_corpus_names_the_references() -> None:
    scorer = Scorer("li", language="en")
    assert _field(scorer.corpus(HYPS, REFS).signature, "refs") == "2"
    assert _field(scorer.corpus(HYPS, [r[0] for r in REFS]).signature, "refs") == "1"
    tokens = [h.split() for h in HYPS]
    assert _field(scorer.corpus(tokens, [r[0].split() for r in REFS]).signature, "refs") == "1"
    assert _field(scorer.corpus(HYPS, [iter(r) for r in REFS]).signature, "refs") == "2"
    assert _field(meteorx.corpus_score(HYPS, REFS, "li", language="en").signature, "refs") == "2"


def test_every_entry_point_gives_the_same_signature(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp = tmp_path / "h.txt"
    ref1, ref2 = tmp_path / "r1.txt", tmp_path / "r2.txt"
    hyp.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    ref1.write_text("\n".join(r[0] for r in REFS) + "\n", encoding="utf-8")
    ref2.write_text("\n".join(r[-1] for r in REFS) + "\n", encoding="utf-8")
    two = [[r[0], r[-1]] for r in REFS]
    expected = Scorer("li", language="en").corpus(HYPS, two).signature
    assert _field(expected, "refs") == "2"
    got = api.compute(HYPS, two, config="li", language="en", signature=True)
    assert got["signature"] == expected
    base = ["score", "--hyp", str(hyp), "--ref", str(ref1), "--ref", str(ref2)]
    base += ["--preset", "li", "--lang", "en"]
    assert main([*base, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["signature"] == expected
    assert main([*base, "--stream"]) == 0
    assert capsys.readouterr().out.rstrip("\n").endswith(expected)


@pytest.mark.parametrize("code", ["zh", "ja", "th"])
def test_spaceless_languages_name_the_character_split(code: str) -> None:
    """Text in a language written without spaces is split into characters: the
    signature must say so, whatever the normalisation's name."""
    line = {"zh": "我爱你", "ja": "私は猫が好き", "th": "ฉันรักแมว"}[code]
    # one token per character: a Thai vowel or tone mark stays with its consonant
    expected = {"th": ["ฉั", "น", "รั", "ก", "แ", "ม", "ว"]}.get(code, list(line))
    for config in (None, {"extends": "meteor-1.5-other", "language": code}):
        scorer = Scorer(config, language=code)
        result = scorer.corpus([line], [line])
        assert result.score == 1.0
        assert list(result.segments[0].hyp_tokens) == expected
        assert _field(result.signature, "tok") == "characters", result.signature


def test_languages_with_spaces_have_no_tokenizer_field() -> None:
    for code in ("en", "pt", "ko"):
        signature = Scorer(language=code).corpus(["a b"], ["a b"]).signature
        assert _field(signature, "tok") is None, signature
    explicit = Scorer({"extends": "meteor-1.5-other", "language": "zh",
                       "normalize": {"tokenizer": "characters"}})  # fmt: skip
    signature = explicit.corpus(["我爱你"], ["我爱你"]).signature
    assert _field(signature, "norm") == "characters+cased+keeppunct"
    assert _field(signature, "tok") is None  # the normalisation already names it
