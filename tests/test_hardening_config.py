"""Hostile plugins and configurations: a clear one-line error, never a crash.

Each test reproduces a finding of a hostile probe: a matcher yielding malformed spans
(a 3-tuple crashed the compiled path with SIGSEGV), a YAML alias bomb, unbounded
``extends`` chains, numbers the compiled aligners cannot hold, messages quoting
another file's content or growing with their input, silently accepted duplicate keys
and booleans, non-finite parameters, and composed/decomposed Unicode not matching.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import unicodedata
from collections.abc import Iterator
from importlib.util import find_spec, module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

import pytest

from meteorx import engine as engine_seam
from meteorx.align import Aligner
from meteorx.config import load_config
from meteorx.config_loading import MAX_EXTENDS_DEPTH
from meteorx.errors import QUOTE_LIMIT, ConfigError, MeteorxError, PluginError
from meteorx.matchers import Matcher, span_problem
from meteorx.metric import Scorer
from meteorx.registry import get_registry
from meteorx.types import Alignment, Match
from tests.conftest import require_data

REPO = Path(__file__).resolve().parents[1]
ENGINES = ["compiled", "python"]


def run_cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``meteorx ARGS`` in a fresh interpreter, in ``folder``."""
    return subprocess.run(
        [sys.executable, "-m", "meteorx", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test on the compiled path and on the pure-Python one."""
    built = find_spec("meteorx._links_and_counts") and find_spec("meteorx.align._fast")
    if request.param == "compiled" and not built:
        pytest.skip("C extensions not built")
    with engine_seam.use("c" if request.param == "compiled" else "python"):
        yield request.param


# -- 1. plugin output --------------------------------------------------------------------


def hostile_scorer(span: Any, aligner: str = "meteor-1.5") -> Scorer:
    """li (exact + stem) with a third stage whose matcher yields ``span``."""

    class Hostile(Matcher):
        name = "hostile"

        def candidates(self, hyp: Any, ref: Any) -> Any:
            yield (0, 1, 0, 1)
            yield span

    registry = get_registry().copy()
    registry.matchers["hostile"] = Hostile
    registry.owners["matcher:hostile"] = "hostile-plugin"
    config = {
        "extends": "li",
        "language": "en",
        "aligner": aligner,
        "stages": [{"matcher": "exact"}, {"matcher": "stem"}, {"matcher": "hostile"}],
    }
    return Scorer(config, registry=registry)


BAD_SPANS = [
    ((0, 1, 0), "is not a 4-tuple"),
    ((0, 1, 0, 1, 0), "is not a 4-tuple"),
    ("abcd", "is not a 4-tuple"),
    (None, "is not a 4-tuple"),
    ((0, 1, 9, 1), "runs past the reference's 4 words"),
    ((3, 1, 0, 1), "runs past the hypothesis's 3 words"),
    ((0, 1, 0, 2**70), "runs past the reference's 4 words"),
    ((-1, 1, 0, 1), "has a negative start"),
    ((0, 1, -2, 1), "has a negative start"),
    ((0, 0, 0, 1), "has a length below 1"),
    ((0, 1, 0, -1), "has a length below 1"),
    ((0.0, 1, 0, 1), "has a value that is not an int"),
    ((0, 1, 0, 1.0), "has a value that is not an int"),
    ((True, 1, 0, 1), "has a value that is not an int"),
]


@pytest.mark.parametrize("aligner", ["meteor-1.5", "optimal"])
@pytest.mark.parametrize(("span", "problem"), BAD_SPANS)
def test_malformed_span_is_a_plugin_error(
    engine: str, aligner: str, span: Any, problem: str
) -> None:
    scorer = hostile_scorer(span, aligner)
    with pytest.raises(PluginError) as caught:
        scorer.segment("a b c", "a b c d")
    message = str(caught.value)
    assert "matcher 'hostile' (plugin 'hostile-plugin', stage 3 'hostile')" in message
    assert problem in message
    assert span_problem(span, 3, 4) is not None


@pytest.mark.parametrize("span", [(0, 1, 0, 1), [2, 1, 3, 1]])
def test_well_formed_spans_score_the_same_on_both_engines(engine: str, span: Any) -> None:
    result = hostile_scorer(span).segment("a b c", "a b c d")
    assert result.alignment.matches  # (a -> a) at least
    assert 0.0 < result.score <= 1.0


def test_raising_matcher_is_a_plugin_error(engine: str) -> None:
    class Raising(Matcher):
        name = "raising"

        def candidates(self, hyp: Any, ref: Any) -> Any:
            raise KeyError("boom")

    registry = get_registry().copy()
    registry.matchers["raising"] = Raising
    registry.owners["matcher:raising"] = "raising-plugin"
    scorer = Scorer(
        {"extends": "li", "language": "en", "stages": [{"matcher": "raising"}]},
        registry=registry,
    )
    with pytest.raises(PluginError, match=r"matcher 'raising' \(plugin 'raising-plugin', stage 1"):
        scorer.segment("a b", "a b")


@pytest.mark.parametrize("aligner", ["meteor-1.5", "optimal"])
def test_matcher_whose_prepare_raises_is_a_plugin_error(engine: str, aligner: str) -> None:
    class RaisingPrepare(Matcher):
        name = "raising-prepare"

        def prepare(self, tokens: Any) -> Any:
            raise ValueError("cannot prepare")

        def candidates(self, hyp: Any, ref: Any) -> Any:
            return []

    registry = get_registry().copy()
    registry.matchers["raising-prepare"] = RaisingPrepare
    registry.owners["matcher:raising-prepare"] = "prep-plugin"
    config = {
        "extends": "li",
        "language": "en",
        "aligner": aligner,
        "stages": [{"matcher": "exact"}, {"matcher": "raising-prepare"}],
    }
    scorer = Scorer(config, registry=registry)
    with pytest.raises(PluginError) as caught:
        scorer.segment("a b", "a c")
    message = str(caught.value)
    assert "matcher 'raising-prepare' (plugin 'prep-plugin', stage 2" in message
    assert "prepare" in message and "cannot prepare" in message


@pytest.mark.parametrize("output", [None, [1, 2], ["a", None], 7])
def test_tokenizer_returning_non_strings_is_a_plugin_error(engine: str, output: Any) -> None:
    registry = get_registry().copy()
    registry.tokenizers["odd"] = lambda language: lambda line: output
    registry.owners["tokenizer:odd"] = "odd-plugin"
    scorer = Scorer(
        {"extends": "li", "language": "en", "normalize": {"tokenizer": "odd"}}, registry=registry
    )
    with pytest.raises(PluginError, match=r"tokenizer 'odd' \(plugin 'odd-plugin'\) failed"):
        scorer.segment("a b", "a b")


@pytest.mark.parametrize(
    ("result", "problem"),
    [
        (None, "returned a NoneType, not an Alignment"),
        (Alignment((Match(0, 1, 0, 1, 0),), -1), "with -1 chunks"),
        (Alignment((Match(0, 1, 0, 1, 7),), 1), "of no stage"),
        (Alignment((Match(0, 1, 5, 1, 0),), 1), "runs past the hypothesis's 3 words"),
        (Alignment((Match(-1, 1, 0, 1, 0),), 1), "has a negative start"),
        (Alignment((Match(0, 2, 0, 1, 0), Match(1, 1, 1, 1, 0)), 2), "overlaps another"),
        (Alignment(((0, 1),), 1), "not a Match"),  # type: ignore[arg-type]
    ],
)
def test_aligner_result_is_checked(engine: str, result: Any, problem: str) -> None:
    """A plugin aligner's result is counted in C (or indexes lists): checked first."""

    class Hostile(Aligner):
        def align(self, *args: Any) -> Any:
            return result

        def describe(self) -> str:
            return "hostile"

    registry = get_registry().copy()
    registry.aligners["hostile"] = Hostile
    registry.owners["aligner:hostile"] = "hostile-plugin"
    scorer = Scorer({"extends": "li", "language": "en", "aligner": "hostile"}, registry=registry)
    with pytest.raises(
        PluginError, match=r"aligner 'hostile' \(plugin 'hostile-plugin'\)"
    ) as caught:
        scorer.segment("a b c", "a b c d")
    assert problem in str(caught.value)


_CLI_WITH_HOSTILE_PLUGIN = """
import os
import sys
import meteorx.pipeline as scorer_module
from meteorx.cli.main import main
from meteorx.matchers import Matcher

class Hostile(Matcher):
    name = "hostile"

    def candidates(self, hyp, ref):
        yield (0, 1, 0)

plain = scorer_module.get_registry

def with_hostile():
    registry = plain()
    registry.matchers["hostile"] = Hostile
    registry.owners["matcher:hostile"] = "hostile-plugin"
    return registry

scorer_module.get_registry = with_hostile
if sys.argv[1] == "python":
    os.environ["METEORX_ENGINE"] = "python"
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("which", ENGINES)
def test_three_item_span_exits_2_instead_of_a_segfault(tmp_path: Path, which: str) -> None:
    """SIGSEGV (exit 139) before: the compiled pass read span[3] of a 3-tuple."""
    config = tmp_path / "hostile.yaml"
    config.write_text(
        "extends: li\nlanguage: en\nstages:\n- {matcher: exact}\n- {matcher: hostile}\n"
    )
    (tmp_path / "hyp.txt").write_text("the cat sat\n")
    (tmp_path / "ref.txt").write_text("the cat sat down\n")
    args = ["score", "--hyp", "hyp.txt", "--ref", "ref.txt", "--config", str(config)]
    done = subprocess.run(
        [sys.executable, "-c", _CLI_WITH_HOSTILE_PLUGIN, which, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("meteorx: error")]
    assert len(errors) == 1, done.stderr
    assert "matcher 'hostile' (plugin 'hostile-plugin', stage 2 'hostile')" in errors[0]
    assert "is not a 4-tuple" in errors[0]
    assert "Traceback" not in done.stderr


# -- 2. YAML alias bomb, messages that cut what they quote --------------------------------


def alias_bomb(levels: int) -> str:
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]")
    lines.append(f"alpha: *l{levels}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("levels", [8, 9])
def test_alias_bomb_is_refused_quickly(tmp_path: Path, levels: int) -> None:
    """9 levels ran to 3 GB and aborted; 8 wrote a 312 MB error line."""
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb(levels))
    assert len(path.read_bytes()) < 500
    start = time.monotonic()
    with pytest.raises(ConfigError, match=r"more than 100,000 values once its aliases") as caught:
        load_config(str(path))
    assert time.monotonic() - start < 5
    assert len(str(caught.value)) < 200


def test_recursive_alias_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "loop.yaml"
    path.write_text("extends: li\nstages: &s [*s]\n")
    with pytest.raises(ConfigError, match="aliases"):
        load_config(str(path))


def test_a_few_aliases_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "anchors.yaml"
    path.write_text(
        "extends: li\nlanguage: en\nstages:\n- &e {matcher: exact, weight: 1.0}\n"
        "- {matcher: stem, weight: 0.5}\n"
    )
    assert load_config(str(path)).stages[0].matcher == "exact"


def test_huge_config_file_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text("extends: li\n" + "# padding\n" * 200_000)
    start = time.monotonic()
    with pytest.raises(ConfigError, match="longer than 1,000,000 characters"):
        load_config(str(path))
    assert time.monotonic() - start < 2


def test_deep_nesting_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("alpha: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(str(path))


@pytest.mark.parametrize(
    "text",
    [
        "extends: li\nalpha: " + "x" * 100_000 + "\n",
        "extends: li\n" + "k" * 100_000 + ": 1\n",
        "extends: li\nnormalize: " + "n" * 100_000 + "\n",
        "extends: li\n" + "".join(f"unknown{i}: 1\n" for i in range(5000)),
        "extends: li\naligner: {name: meteor-1.5, beam_size: " + "9" * 4000 + "}\n",
    ],
)
def test_messages_cut_what_they_quote(tmp_path: Path, text: str) -> None:
    path = tmp_path / "long.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(str(path))
    message = str(caught.value)
    assert len(message) < 12 * QUOTE_LIMIT, message[:300]
    assert "\n" not in message


@pytest.mark.parametrize(
    "override",
    [
        {"language": "x" * 100_000},
        {"normalize": {"tokenizer": "t" * 100_000}},
        {"stages": [{"matcher": "m" * 100_000}]},
        {"stages": [{"matcher": "exact", "o" * 100_000: 1}]},
        {"stages": [{"matcher": "stem", "algorithm": "a" * 100_000}]},
        {"function_words": "f" * 100_000},
        {"function_words": "f" * 1000},  # a file name too long for the system
        {"aligner": "a" * 100_000},
        {"name": "n" * 100_000},
    ],
)
def test_long_names_give_short_messages(override: dict[str, Any]) -> None:
    with pytest.raises(MeteorxError) as caught:
        Scorer({"extends": "li", "language": "en", **override}).segment("a", "a")
    assert len(str(caught.value)) < 6 * QUOTE_LIMIT, str(caught.value)[:300]


@pytest.mark.parametrize(
    "text",
    [
        'extends: li\nnormalize: {"tok\\nenizer": meteor}\n',
        "extends: li\nnormalize: {tok  <<er:.inf\n\n\neor, lowercase: true}\n",  # (fuzzer)
        'extends: li\n"a\\u2028b\\tc": 1\n',
    ],
)
def test_keys_with_line_breaks_stay_on_one_line(tmp_path: Path, text: str) -> None:
    """fuzz/fuzz_config.py found an 'unknown key' message spread over many lines."""
    path = tmp_path / "keys.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match="unknown key") as caught:
        load_config(str(path))
    assert str(caught.value).isprintable(), str(caught.value)


# -- 7. unreadable configs, numbers, extends chains ----------------------------------------


def test_unreadable_config_is_a_config_error(tmp_path: Path) -> None:
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(str(folder))
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"alpha: \xff\xfe\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(str(binary))
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked.yaml"
        locked.write_text("extends: li\n")
        locked.chmod(0)
        with pytest.raises(ConfigError, match="cannot read"):
            load_config(str(locked))


def test_unreadable_config_on_the_command_line_exits_2(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").mkdir()
    (tmp_path / "h.txt").write_text("a\n")
    done = run_cli(tmp_path, "score", "--hyp", "h.txt", "--ref", "h.txt", "--config", "x.yaml")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "cannot read" in done.stderr, done.stderr


@pytest.mark.parametrize(
    "value", ["1.0e+26", "100000000000000000000000000", "2147483648", "0", "true", "40.0", ".inf"]
)
@pytest.mark.parametrize(
    ("aligner", "field"), [("meteor-1.5", "beam_size"), ("optimal", "max_states")]
)
def test_counts_fit_the_compiled_aligners(
    tmp_path: Path, aligner: str, field: str, value: str
) -> None:
    """beam_size: 1e26 was an OverflowError in C (and scored on the Python path)."""
    path = tmp_path / "big.yaml"
    path.write_text(f"extends: li\naligner: {{name: {aligner}, {field}: {value}}}\n")
    with pytest.raises(
        ConfigError, match=rf"aligner\.{field}: .*\(allowed: 1 <= {field} <= 2147483647"
    ):
        load_config(str(path))


@pytest.mark.parametrize(
    ("aligner", "field"), [("meteor-1.5", "beam_size"), ("optimal", "max_states")]
)
def test_largest_counts_score(engine: str, aligner: str, field: str) -> None:
    limit = 2**31 - 1
    config = {"extends": "li", "language": "en", "aligner": {"name": aligner, field: limit}}
    assert Scorer(config).segment("the cat sat", "the cat sat").score == 1.0


def test_extends_loop_through_parent_folder(tmp_path: Path) -> None:
    """``extends: ../d/x.yaml`` in d/x.yaml grew the path until 'File name too long'."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.yaml").write_text("extends: ../d/x.yaml\n")
    with pytest.raises(ConfigError, match="'extends' loop"):
        load_config(str(tmp_path / "d" / "x.yaml"))


def test_extends_chain_is_bounded(tmp_path: Path) -> None:
    """A chain of 1,100 files hit the recursion limit (a traceback)."""
    for i in range(1100):
        parent = f"c{i + 1}.yaml" if i < 1099 else "li"
        (tmp_path / f"c{i}.yaml").write_text(f"extends: {parent}\n")
    with pytest.raises(ConfigError, match=f"longer than {MAX_EXTENDS_DEPTH}"):
        load_config(str(tmp_path / "c0.yaml"))
    (tmp_path / "c20.yaml").write_text("extends: li\nlanguage: en\n")
    assert load_config(str(tmp_path / "c0.yaml")).language == "en"  # 21 files: fine


# -- 8. messages never quote a file that is not a configuration ---------------------------


@pytest.mark.parametrize("how", ["extends-relative", "extends-absolute", "direct"])
def test_other_files_content_is_never_quoted(tmp_path: Path, how: str) -> None:
    """A config extending /etc/shadow echoed its lines as 'unknown keys'."""
    secret = tmp_path / "shadow"
    secret.write_text("root-secret-hash: x\nsecond-secret-line: y\n")
    if how == "direct":
        ref = str(secret)
    else:
        target = "shadow" if how == "extends-relative" else str(secret)
        (tmp_path / "c.yaml").write_text(f"extends: {target}\n")
        ref = str(tmp_path / "c.yaml")
    with pytest.raises(ConfigError, match=r"is not a configuration file") as caught:
        load_config(ref)
    assert "secret" not in str(caught.value).replace(str(tmp_path), "")


def test_preset_names_cannot_leave_the_presets_folder() -> None:
    with pytest.raises(ConfigError, match="unknown preset"):
        load_config({"extends": "../configs/li"})
    assert load_config("tuned/de-en").language == "en"  # (de-en: into English)


# -- 9. Unicode normal form, non-finite numbers, duplicate keys, booleans ------------------

CAFE_NFC = unicodedata.normalize("NFC", "café crème")
CAFE_NFD = unicodedata.normalize("NFD", "café crème")


def test_nfc_and_nfd_match_under_meteorx_presets(engine: str) -> None:
    assert CAFE_NFC != CAFE_NFD
    li = Scorer("li", language="fr")
    assert li.config.normalize.unicode == "nfc"
    assert li.segment(CAFE_NFD, CAFE_NFC).score == 1.0
    assert li.segment(CAFE_NFD.split(), CAFE_NFC.split()).score == 1.0  # token lists too
    assert "|unicode:nfc|" in li.corpus([CAFE_NFD], [CAFE_NFC]).signature


def test_jar_presets_read_text_as_given(engine: str) -> None:
    """The jar compares Java strings as read: NFC and NFD spellings differ there."""
    exact_only = {"extends": "meteor-1.5-fr", "stages": [{"matcher": "exact"}]}
    jar = Scorer(exact_only)
    assert jar.config.normalize.unicode == "none"
    assert jar.segment(CAFE_NFD, CAFE_NFC).score < 1.0
    assert "|unicode:none|" in jar.corpus([CAFE_NFD], [CAFE_NFC]).signature
    # a normalize shorthand over a jar preset keeps its Unicode form
    assert Scorer(exact_only, normalize="lower").config.normalize.unicode == "none"
    lowered = load_config({**exact_only, "normalize": "lower"})
    assert lowered.normalize.unicode == "none" and lowered.normalize.lowercase
    assert load_config("nltk").normalize.unicode == "none"


def test_nfkc_folds_compatibility_forms(engine: str) -> None:
    nfkc = Scorer({"extends": "li", "language": "en", "normalize": {"unicode": "nfkc"}})
    assert nfkc.segment("ﬁne ＣＡＴ", "fine CAT").score == 1.0
    assert Scorer("li", language="en").segment("ﬁne", "fine").score == 0.0  # nfc keeps them


def test_unicode_form_leaves_xray_unchanged() -> None:
    """xray (1,283 non-ASCII characters) is NFC already: the form changes no score."""
    base = require_data("meteor15-examples")
    refs = (base / "xray.reference").read_text(encoding="utf-8").splitlines()[:600]
    hyps = (base / "xray.system1.hyp").read_text(encoding="utf-8").splitlines()[:600]
    scores = {
        form: Scorer({"extends": "li", "language": "en", "normalize": {"unicode": form}}).corpus(
            hyps, refs
        )
        for form in ("none", "nfc")
    }
    assert [s.score for s in scores["none"].segments] == [s.score for s in scores["nfc"].segments]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("beta: .inf\n", "beta: Input should be a finite number"),
        ("alpha: .nan\n", "alpha: Input should be a finite number"),
        ("gamma: -.inf\n", "gamma: Input should be a finite number"),
        ("stages:\n- {matcher: exact, weight: .inf}\n", "weight: Input should be a finite"),
        ("alpha: true\n", "alpha: Input should be a valid number"),
        ("beta: '2'\n", "beta: Input should be a valid number"),
        ("perfect_match_rule: 1\n", "perfect_match_rule: Input should be a valid boolean"),
        ("normalize: {lowercase: 'yes'}\n", "lowercase: Input should be a valid boolean"),
        ("normalize: {unicode: nfd}\n", "normalize.unicode: Input should be 'nfc', 'nfkc'"),
    ],
)
def test_values_of_the_wrong_kind_are_refused(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("extends: li\n" + text)
    with pytest.raises(ConfigError, match=expected):
        load_config(str(path))


def test_infinite_beta_never_reaches_json_output(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("extends: li\nlanguage: en\nbeta: .inf\n")
    (tmp_path / "h.txt").write_text("a b\n")
    done = run_cli(
        tmp_path,
        "score",
        "--hyp",
        "h.txt",
        "--ref",
        "h.txt",
        "--config",
        "c.yaml",
        "--format",
        "json",
    )
    assert done.returncode == 2 and "Infinity" not in done.stdout
    assert "beta: Input should be a finite number" in done.stderr


@pytest.mark.parametrize(
    ("text", "key", "line", "first"),
    [
        ("extends: li\nalpha: 0.5\nbeta: 1\nalpha: 0.6\n", "alpha", 4, 2),
        ("extends: li\naligner:\n  name: optimal\n  name: meteor-1.5\n", "name", 4, 3),
        ("extends: li\nstages:\n- {matcher: exact, weight: 1, weight: 0.5}\n", "weight", 3, 3),
    ],
)
def test_duplicate_keys_name_the_key_and_line(
    tmp_path: Path, text: str, key: str, line: int, first: int
) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(str(path))
    message = str(caught.value)
    assert f"duplicate key '{key}'" in message
    assert f"line {line}" in message


def test_yaml_merge_keys_may_override(tmp_path: Path) -> None:
    path = tmp_path / "merge.yaml"
    path.write_text(
        "extends: li\nlanguage: en\nbase: &b {name: optimal, max_states: 5}\n"
        "aligner:\n  <<: *b\n  max_states: 7\n"
    )
    with pytest.raises(ConfigError, match="base: unknown key"):  # merged fine, 'base' unknown
        load_config(str(path))


def test_yaml_errors_do_not_quote_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("extends: li\nalpha: [secret-content-here\n")
    with pytest.raises(ConfigError, match=r"invalid YAML in .*line \d+") as caught:
        load_config(str(path))
    assert "secret-content-here" not in str(caught.value)


def test_fuzz_target_runs_its_seed_inputs() -> None:
    """fuzz/fuzz_config.py's checks hold on its own seeds (without atheris)."""
    spec = spec_from_file_location("fuzz_config", REPO / "fuzz" / "fuzz_config.py")
    assert spec is not None and spec.loader is not None
    fuzz_config = module_from_spec(spec)
    spec.loader.exec_module(fuzz_config)
    for seed in fuzz_config.SEEDS:
        fuzz_config.check(seed.encode("utf-8"))
