"""Second hostile pass, assorted findings: the HTML report's embedded data, odd files in
the cache folder, the first run's cache notice, ``meteorx languages``' resources,
scripts tokenised by character, Turkish case, the README's install lines and the
package build configuration."""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from meteorx import cache
from meteorx.cache import CacheWarning, Record, cached
from meteorx.cache import store as cache_store
from meteorx.cli.main import main
from meteorx.languages import resolve_language
from meteorx.metric import Scorer
from meteorx.signature import signature
from meteorx_plugins.paraphrase import table as paraphrase_table
from meteorx_plugins.paraphrase.table import clear_loaded
from tests.conftest import require_full_english, require_jar

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "cache"
    monkeypatch.setenv("METEORX_CACHE_DIR", str(folder))
    cache_store._WARNED.clear()
    clear_loaded()
    yield folder
    cache_store._WARNED.clear()
    clear_loaded()


def _tiny_table(path: Path) -> Path:
    pairs = [("big", "large"), ("kick the bucket", "die")]
    path.write_bytes(gzip.compress("".join(f"0.5\n{a}\n{b}\n" for a, b in pairs).encode()))
    return path


# -- 3. the HTML report's data ---------------------------------------------------------------


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_report_data_is_json_that_no_text_can_end(tmp_path: Path) -> None:
    nasty = "x <!-- <script> y </script> z & w \u2028 </SCRIPT >"
    hyp, ref, out = tmp_path / "hyp.txt", tmp_path / "ref.txt", tmp_path / "report.html"
    hyp.write_text(f"{nasty}\nthe cat\n", encoding="utf-8")
    ref.write_text("x y\nthe cat\n", encoding="utf-8")
    code = main(["report", "-H", str(hyp), "-r", str(ref), "-p", "li", "-l", "en", "-o", str(out),
                 "--n-bootstrap", "20"])  # fmt: skip
    assert code == 0
    page = out.read_text(encoding="utf-8")
    # What a browser takes as the script element's text: up to the first "</script".
    start = page.index('<script type="application/json" id="report-data">')
    body = page[page.index(">", start) + 1 : page.lower().index("</script", start)]
    assert "<!--" not in body and "<" not in body  # no comment or tag can start inside
    data = json.loads(body)  # JSON.parse reads the same text
    words = set(_strings(data))
    assert {"<!--", "<script>", "</script>", "&", "</SCRIPT"} <= words


# -- 5. a FIFO or a huge sparse file in the cache folder ----------------------------------------


_FIFO_SCRIPT = textwrap.dedent(
    """
    import os, sys, warnings
    from pathlib import Path
    from meteorx.cache import Record, cached
    from meteorx_plugins.paraphrase.table import clear_loaded, load_table

    def small():
        record = Record({}, {"x": b"1"})
        return cached("kind-v1", "a", lambda: record, lambda r: bytes(r.sections["x"]))

    table = load_table(sys.argv[1])
    value = small()
    for path in (table.cache_path, value[1]):
        path.unlink()
        os.mkfifo(path)
    clear_loaded()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = load_table(sys.argv[1])
        value = small()
    print(again.paraphrases("big"), again.from_cache, again.cache_path.is_file())
    print(value[0], value[2], value[1].is_file())
    for w in caught:
        print("warning:", w.message)
    """
)


def test_a_fifo_in_the_cache_folder_does_not_hang(tmp_path: Path) -> None:
    """Opening a FIFO to read blocks until someone writes: the run must not wait."""
    env = {**os.environ, "METEORX_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-c", _FIFO_SCRIPT, str(_tiny_table(tmp_path / "t.gz"))]
    try:
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("loading a cache file that is a FIFO hung")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "('large',) False True"  # rebuilt: a regular file again
    assert lines[1] == "b'1' False True"
    warned = [line for line in lines if line.startswith("warning:")]
    assert len(warned) == 2 and all("is not a regular file; rebuilding it" in w for w in warned)


def test_a_fifo_in_the_cache_folder_does_not_hang_the_cli(tmp_path: Path) -> None:
    table = _tiny_table(tmp_path / "t.gz")
    config = tmp_path / "para.yaml"
    config.write_text(
        f"language: en\nstages:\n- matcher: exact\n- matcher: paraphrase\n  path: {table}\n"
    )
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("a big house\n")
    ref.write_text("a large house\n")
    env = {**os.environ, "METEORX_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "meteorx", "score", "-H", str(hyp), "-r", str(ref),
               "--config", str(config)]  # fmt: skip
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    (entry,) = (tmp_path / "cache").glob("paraphrase-*/*.mxc")
    entry.unlink()
    os.mkfifo(entry)
    try:
        again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("meteorx score hung on a cache file that is a FIFO")
    assert again.returncode == 0 and again.stdout == first.stdout
    assert again.stderr.splitlines() == [
        f"meteorx: warning: cache file {entry} is not a regular file; rebuilding it"
    ]
    assert entry.is_file()


def test_a_huge_sparse_cache_file_is_not_read(private_cache: Path) -> None:
    def build() -> Record:
        return Record({}, {"x": b"1"})

    def decode(record: Record) -> bytes:
        return bytes(record.sections["x"])

    value, target, _ = cached("kind-v1", "a", build, decode)
    assert target is not None
    os.truncate(target, 200 << 30)  # 200 GB of holes: reading it whole fails
    started = time.perf_counter()
    with pytest.warns(CacheWarning, match=r"is larger than any cache file .*; rebuilding it"):
        again, again_target, from_cache = cached("kind-v1", "a", build, decode)
    assert time.perf_counter() - started < 10
    assert (again, again_target, from_cache) == (value, target, False)
    assert target.stat().st_size < cache.MAX_FILE_BYTES


# -- 14. the first run says it is building the cache ----------------------------------------------


def _notices(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "meteorx"]


def test_a_slow_compilation_is_announced_once(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(cache_store, "NOTICE_AFTER_SECONDS", 0.05)
    monkeypatch.setattr(cache_store, "_ANNOUNCED", threading.Event())
    caplog.set_level(logging.INFO, logger="meteorx")

    def slow(text: str) -> Record:
        time.sleep(0.5)
        return Record({}, {"x": text.encode()})

    cached("kind-v1", "quick", lambda: Record({}, {"x": b"1"}), lambda r: r)
    assert _notices(caplog) == []  # quick: silent
    cached("kind-v1", "slow", lambda: slow("a"), lambda r: r)
    (notice,) = _notices(caplog)
    assert notice.startswith("building the resource cache once (") and str(private_cache) in notice
    cached("kind-v1", "slow-too", lambda: slow("b"), lambda r: r)
    cached("kind-v1", "slow", lambda: slow("a"), lambda r: r)  # loaded: nothing to build
    assert len(_notices(caplog)) == 1  # once per process


@pytest.mark.parametrize("quiet", [False, True])
def test_the_cli_shows_the_notice_unless_quiet(
    quiet: bool,
    tmp_path: Path,
    private_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(cache_store, "NOTICE_AFTER_SECONDS", 0.05)
    monkeypatch.setattr(cache_store, "_ANNOUNCED", threading.Event())
    compile_table = paraphrase_table.compile_table

    def slow_compile(*args: Any) -> Any:
        time.sleep(0.5)
        return compile_table(*args)

    monkeypatch.setattr(paraphrase_table, "compile_table", slow_compile)
    table = _tiny_table(tmp_path / "t.gz")
    config = tmp_path / "para.yaml"
    config.write_text(
        f"language: en\nstages:\n- matcher: exact\n- matcher: paraphrase\n  path: {table}\n"
    )
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a big house\n")
    argv = ["score", "-H", str(hyp), "-r", str(hyp), "--config", str(config)]
    assert main(argv + (["--quiet"] if quiet else [])) == 0
    err = capsys.readouterr().err
    if quiet:
        assert err == ""
    else:
        assert err == (
            "meteorx: building the resource cache once (a few seconds; later runs load it "
            f"from {private_cache})\n"
        )


@pytest.mark.slow
def test_first_full_english_run_says_so_and_later_runs_do_not(tmp_path: Path) -> None:
    require_full_english()
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("the cat sat on the mat\n")
    env = {**os.environ, "METEORX_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("METEORX_WORDNET", None)
    command = [sys.executable, "-m", "meteorx", "score", "-H", str(hyp), "-r", str(hyp), "-l", "en"]
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    assert first.stderr.splitlines() == [
        "meteorx: building the resource cache once (a few seconds; later runs load it "
        f"from {tmp_path / 'cache'})"
    ]
    later = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert later.returncode == 0 and later.stderr == ""


# -- 13. meteorx languages: what scoring reads, and what is optional ------------------------------


def test_languages_names_the_wordnet_scoring_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    require_jar()
    from meteorx.defaults import language_report
    from meteorx_plugins.wordnet import WORDNET_ENV, SynonymMatcher, SynonymOptions

    monkeypatch.delenv(WORDNET_ENV, raising=False)
    english = resolve_language("en")
    read = SynonymMatcher(SynonymOptions(), english).wordnet.location
    state = language_report(english)["resources"]["synonym"]
    assert state == "installed (Meteor 1.5 jar (pycocoevalcap))"
    assert read is not None and "meteor-1.5.jar" in str(read)


def test_languages_marks_stages_the_default_does_not_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from meteorx.defaults import language_report

    portuguese = language_report(resolve_language("pt"))
    assert "synonym-omw" not in portuguese["stages"]
    assert portuguese["resources"]["synonym-omw"].startswith("optional, ")
    german = language_report(resolve_language("de"))
    assert german["resources"]["paraphrase"].startswith("optional, ")
    english = language_report(resolve_language("en"))
    assert not any(state.startswith("optional") for state in english["resources"].values())
    assert main(["languages", "pt"]) == 0
    assert "synonym-omw: optional, " in capsys.readouterr().out


# -- 10. scripts: grapheme clusters, width, Turkish case ------------------------------------------


@pytest.mark.parametrize(
    ("code", "text"),
    [("th", "ฉันกินข้าวที่บ้าน"), ("km", "ខ្ញុំញ៉ាំបាយ"), ("my", "ကျွန်တော် ထမင်းစားတယ်"),
     ("lo", "ຂ້ອຍກິນເຂົ້າ"), ("bo", "ང་ཟས་ཟ་གི་ཡོད།")],
)  # fmt: skip
def test_no_token_is_a_combining_mark_alone(code: str, text: str) -> None:
    tokens = Scorer(language=code).segment(text, text).hyp_tokens
    assert "".join(tokens) == text.replace(" ", "")
    assert all(unicodedata.category(t[0])[0] != "M" for t in tokens), tokens


def test_thai_words_sharing_only_a_tone_mark_do_not_match() -> None:
    scorer = Scorer(language="th")
    assert scorer.segment("กิน", "กิน").hyp_tokens == ("กิ", "น")
    unrelated = scorer.segment("ข้าว", "น้ำ")  # rice, water: only the tone mark is shared
    assert unrelated.alignment.matches == ()


@pytest.mark.parametrize(
    ("code", "hyp", "ref"),
    [("ja", "ｶﾀｶﾅ を 読む", "カタカナ を 読む"), ("zh", "价格是１２３元", "价格是123元"),
     ("ja", "ＡＢＣ の 本", "ABC の 本")],
)  # fmt: skip
def test_width_variants_match_in_chinese_and_japanese(code: str, hyp: str, ref: str) -> None:
    scorer = Scorer(language=code)
    assert scorer.config.normalize.unicode == "nfkc"
    assert "|unicode:nfkc|" in signature(scorer)
    assert scorer.segment(hyp, ref).score == scorer.segment(ref, ref).score == 1.0


def test_half_width_katakana_is_split_like_full_width() -> None:
    config = {
        "language": "ja",
        "normalize": {"tokenizer": "characters"},
        "stages": [{"matcher": "exact"}],
    }
    scorer = Scorer(config)
    assert scorer.config.normalize.unicode == "nfc"
    assert scorer.segment("ｶﾞｷ", "ｶﾞｷ").hyp_tokens == ("ｶﾞ", "ｷ")


@pytest.mark.parametrize("code", ["en", "de", "pt", "ko", "th"])
def test_other_languages_keep_nfc(code: str) -> None:
    assert Scorer(language=code).config.normalize.unicode in {"nfc", "none"}


@pytest.mark.parametrize(
    ("code", "hyp", "ref"),
    [("tr", "İSTANBUL güzel", "istanbul güzel"), ("tr", "IRMAK akar", "ırmak akar"),
     ("az", "İSTANBUL gözəl", "istanbul gözəl")],
)  # fmt: skip
def test_turkic_case_links_dotted_and_dotless_i(code: str, hyp: str, ref: str) -> None:
    scorer = Scorer(language=code)
    result = scorer.segment(hyp, ref)
    first = [m for m in result.alignment.matches if m.hyp_start == 0]
    assert len(first) == 1 and scorer.config.stages[first[0].stage].stage_name == "case"
    assert "case.v1(turkic-i)" in signature(scorer)


def test_turkish_dotless_i_stays_apart_from_i() -> None:
    result = Scorer(language="tr").segment("ISTANBUL güzel", "istanbul güzel")
    assert all(m.hyp_start != 0 for m in result.alignment.matches)  # I is ı's capital


def test_other_languages_fold_case_as_unicode_does() -> None:
    scorer = Scorer(language="de")
    assert "turkic" not in signature(scorer)
    result = scorer.segment("ISTANBUL ist schön", "istanbul ist schön")
    assert any(m.hyp_start == 0 for m in result.alignment.matches)  # I ~ i
    dotted = scorer.segment("İSTANBUL ist schön", "istanbul ist schön")
    assert all(m.hyp_start != 0 for m in dotted.alignment.matches)  # İ folds to i + U+0307


# -- 11. README's install lines; 15. the build configuration --------------------------------------


def test_readme_installs_from_a_checkout_and_names_no_missing_file() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert not re.search(r"pip install (-U )?[\"']?meteorx(?![-\w])", readme)  # not on PyPI
    assert "score_job.py" not in readme
    assert 'pip install ".[spark]"' in readme
    from meteorx.align import ilp

    assert "meteorx[" not in ilp.INSTALL_HINT and "pip install scipy" in ilp.INSTALL_HINT


def _pyproject() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads TOML")
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_spark_extra_keeps_pandas_pyspark_supports() -> None:
    spark = {
        r.name: r
        for r in map(Requirement, _pyproject()["project"]["optional-dependencies"]["spark"])
    }
    assert not spark["pandas"].specifier.contains("3.0.0")  # pyspark warns on pandas 3
    assert spark["pandas"].specifier.contains("2.2.3")


def test_license_is_an_spdx_expression() -> None:
    assert _pyproject()["project"]["license"] == "Apache-2.0"


def test_every_folder_of_package_files_is_a_listed_package() -> None:
    """setuptools warns (and will stop building) when data sits in a folder that is not
    in ``packages``."""
    tool = _pyproject()["tool"]["setuptools"]
    packages, roots = set(tool["packages"]), tool["package-dir"]
    for name, folder in roots.items():
        for path in (REPO / folder).rglob("*"):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix in {".so", ".c"}:
                continue
            package = ".".join([name, *path.parent.relative_to(REPO / folder).parts])
            if package.split(".")[:2] == ["meteorx", "configs"] and name == "meteorx":
                continue  # configs/ is mapped on its own
            if any(package == p or package.startswith(p + ".") for p in roots if p != name):
                continue
            assert package in packages, f"{path.relative_to(REPO)}: {package} is not listed"
    for package, patterns in tool["package-data"].items():
        assert package in packages
        assert all("/" not in pattern for pattern in patterns), (package, patterns)
