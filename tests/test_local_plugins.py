"""Plugins that are not installed: ``--plugin FILE.py``, a configuration's ``plugins:``
and ``meteorx.register``, checked as installed plugins are, and named in signatures."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import meteorx
from meteorx import engine, registry
from meteorx.cli.main import main
from meteorx.errors import PluginError
from meteorx.hookspecs import hookimpl
from meteorx.matchers import Matcher

REPO = Path(__file__).resolve().parents[1]

#: A key matcher in a file of its own: different words sharing their first N characters.
PREFIX_SOURCE = """
from pydantic import BaseModel, ConfigDict, Field

from meteorx.hookspecs import hookimpl
from meteorx.matchers import KeyMatcher


class PrefixOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    length: int = Field(5, ge=1)


class PrefixMatcher(KeyMatcher):
    name = "prefix"
    version = "1"
    Options = PrefixOptions

    def __init__(self, options, language):
        super().__init__(options, language)
        self.length = options.length

    def keys(self, word):
        return (word[: self.length],) if len(word) >= self.length else ()

    def describe(self):
        return f"prefix.v{self.version}(len={self.length})"


@hookimpl
def meteorx_register_matchers(register):
    register(PrefixMatcher)
"""

#: li's parameters with stages exact (1.0) and prefix (0.5, 4 characters), no
#: function words (delta then plays no part).
CONFIG = {
    "extends": "li",
    "language": "en",
    "function_words": "none",
    "stages": [{"matcher": "exact"}, {"matcher": "prefix", "weight": 0.5, "length": 4}],
}
HYP = "the organisation grew quickly"
REF = "the organization grows quick"
# By hand: exact links the/the; prefix links organisation/organization ("orga") and
# quickly/quick ("quic"), not grew/grows ("grew", "grow"). P = R = (1 + 0.5 * 2) / 4
# = 0.5, so Fmean = 0.5 whatever alpha; 3 matches in 2 chunks ([the organisation]
# [quickly]): penalty = gamma * (2/3)^beta with li's gamma 0.7 and beta 1.4.
EXPECTED = 0.5 * (1 - 0.7 * (2 / 3) ** 1.4)


def _local_names() -> set[str]:
    """The plugins registered in this process (not installed)."""
    return {n for n, info in registry.get_registry().plugins.items() if info.digest is not None}


@pytest.fixture(autouse=True)
def forget_local_plugins() -> Iterator[None]:
    """Each test starts and ends with the installed plugins only."""
    before = _local_names()
    yield
    for name in _local_names() - before:
        registry.unregister(name)


@pytest.fixture
def prefix_file(tmp_path: Path) -> Path:
    path = tmp_path / "prefix.py"
    path.write_text(PREFIX_SOURCE, encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """The hypothesis, the reference and CONFIG as a YAML file."""
    import yaml

    out = {"hyp": tmp_path / "hyp.txt", "ref": tmp_path / "ref.txt", "config": tmp_path / "c.yaml"}
    out["hyp"].write_text(HYP + "\n", encoding="utf-8")
    out["ref"].write_text(REF + "\n", encoding="utf-8")
    out["config"].write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    return out


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:8]


def _require(which: str) -> None:
    """Skip a test of the compiled engine where it is not built."""
    missing = [name for name, _, state in engine.report() if state != "in use"]
    if which == "c" and missing:
        pytest.skip(f"compiled modules not built: {', '.join(missing)}")


@pytest.mark.parametrize("which", ["c", "python"])
def test_plugin_file_scores_and_explains_through_the_cli(
    which: str,
    prefix_file: Path,
    files: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _require(which)
    monkeypatch.setenv("METEORX_ENGINE", which)
    common = ["--plugin", str(prefix_file), "--config", str(files["config"])]
    texts = ["--hyp", str(files["hyp"]), "--ref", str(files["ref"])]
    assert main(["score", *common, *texts, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["segments"][0]["score"] == pytest.approx(EXPECTED, abs=1e-12)
    assert "prefix=prefix.v1(len=4):0.5" in data["signature"]
    assert f"|plugins:prefix@sha256:{_digest(prefix_file)}|" in data["signature"]
    assert main(["explain", *common, *texts]) == 0
    out = capsys.readouterr().out
    assert re.search(r"organisation\s+<->\s+ref\[ 1\] organization\s+prefix", out), out
    assert re.search(r"quickly\s+<->\s+ref\[ 3\] quick\s+prefix", out), out


def test_every_listing_command_takes_plugins(
    prefix_file: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plugins", "--plugin", str(prefix_file)]) == 0
    out = capsys.readouterr().out
    assert f"prefix (local sha256:{_digest(prefix_file)})" in out and "matcher:prefix" in out
    assert main(["config", "--plugin", str(prefix_file), "--config", str(files["config"])]) == 0
    assert "matcher: prefix" in capsys.readouterr().out
    for command in (["presets"], ["languages", "en"]):
        assert main([*command, "--plugin", str(prefix_file)]) == 0


def test_installed_plugins_leave_signatures_as_they_were(prefix_file: Path) -> None:
    """A local plugin the configuration does not use is not named."""
    before = meteorx.compute(predictions=[HYP], references=[REF], config="li", language="en",
                             signature=True)  # fmt: skip
    assert "plugins:" not in before["signature"]
    meteorx.register(prefix_file)
    after = meteorx.compute(predictions=[HYP], references=[REF], config="li", language="en",
                            signature=True)  # fmt: skip
    assert after == before


def _matcher_class(prefix_file: Path) -> type[Matcher]:
    """The file's matcher class, imported under a name of this test's own."""
    spec = importlib.util.spec_from_file_location("prefix_for_register_test", prefix_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cls: type[Matcher] = module.PrefixMatcher
    return cls


@pytest.mark.parametrize("which", ["c", "python"])
def test_object_registered_in_python_scores(which: str, prefix_file: Path) -> None:
    _require(which)
    matcher = _matcher_class(prefix_file)

    class PrefixPlugin:
        @hookimpl
        def meteorx_register_matchers(self, register: Callable[[type[Matcher]], None]) -> None:
            register(matcher)

    with pytest.raises(PluginError, match="no matcher named 'prefix'"):
        meteorx.score(HYP, REF, CONFIG)
    assert meteorx.register(PrefixPlugin()) == "PrefixPlugin"
    with engine.use(which):
        assert meteorx.score(HYP, REF, CONFIG).score == pytest.approx(EXPECTED, abs=1e-12)
        assert meteorx.Scorer(CONFIG).segment(HYP, REF).score == pytest.approx(EXPECTED, abs=1e-12)
        signature = meteorx.compute(
            predictions=[HYP], references=[REF], config=CONFIG, signature=True
        )["signature"]
    # named with the digest of the file defining the object: this one
    assert f"|plugins:PrefixPlugin@sha256:{_digest(Path(__file__))}|" in signature


def test_registering_again_replaces_and_shared_scorers_follow(prefix_file: Path) -> None:
    """A changed file is read again; scorers shared by ``meteorx.score`` are rebuilt."""

    def signature() -> str:
        result = meteorx.compute(predictions=[HYP], references=[REF], config=CONFIG, signature=True)
        text: str = result["signature"]
        return text

    assert meteorx.register(prefix_file) == "prefix"
    assert meteorx.register(str(prefix_file)) == "prefix"  # the same file: nothing to do
    first = signature()
    assert "prefix.v1(len=4)" in first and _digest(prefix_file) in first
    prefix_file.write_text(PREFIX_SOURCE.replace('version = "1"', 'version = "2"'))
    meteorx.register(prefix_file)
    second = signature()
    assert "prefix.v2(len=4)" in second and _digest(prefix_file) in second
    registry.unregister("prefix")
    with pytest.raises(PluginError, match="no matcher named 'prefix'"):
        meteorx.score(HYP, REF, CONFIG)


def test_configuration_names_its_plugins(
    prefix_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``plugins:`` files are relative to the configuration file; a configuration
    extending it needs them too."""
    import yaml

    folder = tmp_path / "conf"
    folder.mkdir()
    base = folder / "base.yaml"
    base.write_text(yaml.safe_dump({**CONFIG, "plugins": ["../prefix.py"]}), encoding="utf-8")
    child = folder / "child.yaml"
    child.write_text("extends: base.yaml\nalpha: 0.5\n", encoding="utf-8")
    for path in (base, child):
        scorer = meteorx.Scorer(str(path))
        assert scorer.config.plugins == (str(folder / "../prefix.py"),)
        assert scorer.segment(HYP, REF).score == pytest.approx(EXPECTED, abs=1e-12)
    (tmp_path / "h.txt").write_text(HYP + "\n")
    (tmp_path / "r.txt").write_text(REF + "\n")
    args = ["--hyp", str(tmp_path / "h.txt"), "--ref", str(tmp_path / "r.txt")]
    assert main(["score", "--config", str(child), *args, "--system-only"]) == 0
    assert f"plugins:prefix@sha256:{_digest(prefix_file)}" in capsys.readouterr().out
    bad = folder / "bad.yaml"
    bad.write_text("extends: li\nplugins: [not a module]\n")
    assert main(["config", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "plugins: 'not a module' is neither a .py file" in err


def test_presets_without_plugins_dump_as_before() -> None:
    """No ``plugins`` key where there are none: written configurations (and what is
    keyed by them) are unchanged."""
    config = meteorx.load_config("li")
    assert config.plugins == ()
    assert "plugins" not in config.model_dump() and "plugins" not in config.model_dump_json()


_HOOK = "from meteorx.hookspecs import hookimpl\n"
BROKEN: dict[str, tuple[str | None, str]] = {
    "not-found": (None, r"plugin file .*broken\.py not found"),
    "syntax": ("def f(:\n", r"failed to import: SyntaxError"),
    "import": ("import does_not_exist_anywhere\n", r"failed to import: ModuleNotFoundError"),
    "no-hooks": ("x = 1\n", r"implements no meteorx hook"),
    "misspelled": (
        _HOOK + "@hookimpl\ndef meteorx_register_matcher(register):\n    pass\n",
        r"implements an unknown hook",
    ),
    "raising": (
        _HOOK
        + "@hookimpl\ndef meteorx_register_matchers(register):\n    raise RuntimeError('x')\n",
        r"failed in meteorx_register_matchers: RuntimeError: x",
    ),
    "name-taken": (
        textwrap.dedent(
            """
            from meteorx.hookspecs import hookimpl
            from meteorx.matchers import KeyMatcher

            class Exact(KeyMatcher):
                name = "exact"

                def keys(self, word):
                    return (word,)

            @hookimpl
            def meteorx_register_matchers(register):
                register(Exact)
            """
        ),
        r"registers matcher 'exact', which plugin 'core' already registered",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_plugin_file_is_one_line_and_exit_2(
    case: str, tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    source, message = BROKEN[case]
    path = tmp_path / "broken.py"
    if source is not None:
        path.write_text(source, encoding="utf-8")
    before = registry.get_registry()
    args = ["--plugin", str(path), "--preset", "li", "--lang", "en"]
    assert main(["score", *args, "--hyp", str(files["hyp"]), "--ref", str(files["ref"])]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("meteorx: error: plugin "), err
    assert re.search(message, err) and "Traceback" not in err, err
    if source is not None:
        assert f"plugin 'broken' ({path.resolve()})" in err
    with pytest.raises(PluginError, match=message):
        meteorx.register(path)
    # nothing of it is left, and the registry is the one it was
    assert registry.get_registry() is before and "broken" not in before.plugins
    assert meteorx.Scorer("li", language="en").segment("a cat", "a cat").score > 0.9


def test_module_name_and_its_errors(
    prefix_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(prefix_file.parent))
    assert meteorx.register("prefix") == "prefix"  # the module, found on sys.path
    assert meteorx.score(HYP, REF, CONFIG).score == pytest.approx(EXPECTED, abs=1e-12)
    with pytest.raises(PluginError, match=r"'no_such_module_anywhere' .*ModuleNotFoundError"):
        meteorx.register("no_such_module_anywhere")
    with pytest.raises(PluginError, match=r"neither a \.py file nor a module name"):
        meteorx.register("two words")


def test_a_local_plugin_cannot_take_an_installed_plugins_name(tmp_path: Path) -> None:
    path = tmp_path / "core.py"
    path.write_text(PREFIX_SOURCE, encoding="utf-8")
    with pytest.raises(PluginError, match=r"plugin 'core' .*an installed plugin has that name"):
        meteorx.register(path)


def test_shipped_example_scores_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/prefix_matcher.py with examples/prefix.yaml, as the README uses them."""
    example = REPO / "examples"
    args: list[Any] = ["score", "--plugin", example / "prefix_matcher.py"]
    args += ["--config", example / "prefix.yaml", "--hyp", example / "hyp.txt"]
    args += ["--ref", example / "ref.txt", "--system-only"]
    assert main([str(a) for a in args]) == 0
    out = capsys.readouterr().out
    digest = _digest(example / "prefix_matcher.py")
    assert "prefix=prefix.v1(len=5):0.3" in out and f"plugins:prefix_matcher@sha256:{digest}" in out


# -- correlate and tune: a plugin from a file and one registered in Python ---------------

#: Two segments, three systems. C is the reference, A needs the prefix stage (segment
#: 1: organisation/organization, quickly/quick; segment 2: commission/committee,
#: postponing/postponed), B shares only "the". Human: C > A > B, every pair more than
#: 25 apart: 6 DARR pairs.
JUDGED_REFS = ["the organization grows quick", "the committee postponed the meeting"]
JUDGED_HYPS = {
    "sysA": [HYP, "the commission postponing the meeting"],
    "sysB": ["the banana fell slowly", "the dog ate the apples"],
    "sysC": JUDGED_REFS,
}
JUDGED_HUMAN = {"sysA": (60, 70), "sysB": (10, 20), "sysC": (90, 100)}


@pytest.fixture
def judged(tmp_path: Path, files: dict[str, Path]) -> list[str]:
    """The data options of ``correlate`` and ``tune`` for the set above."""
    systems = tmp_path / "systems"
    systems.mkdir()
    for name, lines in JUDGED_HYPS.items():
        (systems / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ref = tmp_path / "judged-ref.txt"
    ref.write_text("\n".join(JUDGED_REFS) + "\n", encoding="utf-8")
    human = tmp_path / "human.tsv"
    rows = [f"{s}\t{i}\t{v}" for s, vs in JUDGED_HUMAN.items() for i, v in enumerate(vs, 1)]
    human.write_text("system\tsegment\tscore\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return ["--hyp-dir", str(systems), "--ref", str(ref), "--human", str(human)]


def _prefix_plugin(prefix_file: Path) -> object:
    matcher = _matcher_class(prefix_file)

    class PrefixPlugin:
        @hookimpl
        def meteorx_register_matchers(self, register: Callable[[type[Matcher]], None]) -> None:
            register(matcher)

    return PrefixPlugin()


@pytest.mark.parametrize("which", ["c", "python"])
@pytest.mark.parametrize("route", ["file", "python"])
def test_plugin_correlates_and_tunes(
    which: str,
    route: str,
    prefix_file: Path,
    files: dict[str, Path],
    judged: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without the prefix stage A and B tie on segment 1 (one exact "the" each, a
    discordant pair): tau 4/6. With it every pair is concordant: tau 1 (6 pairs), for
    the configuration as it is (correlate, tune's default row)."""
    _require(which)
    plugin = ["--plugin", str(prefix_file)] if route == "file" else []
    if route == "python":
        meteorx.register(_prefix_plugin(prefix_file))
    config = ["--config", str(files["config"])]
    with engine.use(which):
        code = main(["correlate", *plugin, *config, *judged, "--samples", "20", "--format",
                     "json", "-q"])  # fmt: skip
        assert code == 0, capsys.readouterr().err
        segment = json.loads(capsys.readouterr().out)["metrics"]["c"]["segment"]
        assert (segment["tau"], segment["n"]) == (1.0, 6)
        out = tmp_path / "tuned.yaml"
        code = main(["tune", *plugin, *config, *judged, "--folds", "2", "--samples", "20",
                     "-o", str(out)])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert re.search(r"^seg-tau\s+tune\s+\+1\.0000", captured.out, flags=re.M), captured.out
    written = yaml.safe_load(out.read_text(encoding="utf-8"))
    if route == "file":
        assert written["plugins"] == ["prefix.py"]  # next to the written file
    else:  # an object: no file to name; said so
        assert "plugins" not in written
        assert "plugin 'PrefixPlugin' was registered from Python" in captured.err


def test_tuned_configuration_loads_its_plugins(
    prefix_file: Path,
    files: dict[str, Path],
    judged: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``tune --plugin P.py -o DIR/tuned.yaml`` writes ``plugins:`` relative to DIR, so
    ``score --config DIR/tuned.yaml`` needs no --plugin."""
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "tuned.yaml"
    args = ["tune", "--plugin", str(prefix_file), "--config", str(files["config"]), *judged]
    assert main([*args, "--folds", "0", "-o", str(out), "-q"]) == 0
    assert yaml.safe_load(out.read_text(encoding="utf-8"))["plugins"] == ["../prefix.py"]
    registry.unregister("prefix")
    texts = ["--hyp", str(files["hyp"]), "--ref", str(files["ref"]), "--system-only"]
    capsys.readouterr()
    assert main(["score", "--config", str(out), *texts]) == 0
    assert f"|plugins:prefix@sha256:{_digest(prefix_file)}|" in capsys.readouterr().out
