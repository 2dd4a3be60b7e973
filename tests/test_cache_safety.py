"""Resource caches hold data only and are checked: a planted pickle never runs, a
damaged file is rebuilt (never a different result, never a traceback), a mapped-file
crash (SIGBUS) cannot happen, cache folders others can write are not used, and
``meteorx resources install`` writes only into its own folder."""

from __future__ import annotations

import errno
import gzip
import json
import os
import pickle
import random
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from meteorx import cache
from meteorx.cache import CacheWarning, Record, cache_dir, cached
from meteorx.cache import folder as cache_folder
from meteorx.cache import store as cache_store
from meteorx.cli.main import main as cli_main
from meteorx.cli.resources_cmd import install_resource, read_manifest
from meteorx.errors import MeteorxError, ResourceError
from meteorx_plugins import lemma, omw
from meteorx_plugins import wordnet as wn
from meteorx_plugins.paraphrase.table import clear_loaded, load_table
from meteorx_plugins.wordnet import reader as wn_reader

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh cache folder, and every in-process copy of a loaded resource forgotten
    before and after (each load then reads the cache as a new process would)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("METEORX_CACHE_DIR", str(folder))
    _forget_all()
    yield folder
    _forget_all()


def _forget_all() -> None:
    cache_store._WARNED.clear()
    cache_folder._FOLDER_WARNED.clear()
    wn_reader._LOADED.clear()
    lemma._FACTORY._tables.clear()
    omw.load_index.cache_clear()
    clear_loaded()


class Planted:
    """A pickle that, when loaded, creates the file ``marker`` (stands for any code)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.marker), "w"))


# -- the kinds of cache, on small resources ---------------------------------------------


def _tiny_wordnet(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    index = {
        "noun": ["car n 1 1 @ 1 0 00000100", "automobile n 1 1 @ 1 0 00000100"],
        "verb": ["run v 1 1 @ 1 0 00000800", "operate v 1 1 @ 1 0 00000800"],
        "adj": ["big a 1 1 & 1 0 00000100", "large a 1 1 & 1 0 00000100"],
        "adv": ["well r 1 0 1 0 00000100"],
    }
    for pos, lines in index.items():
        (folder / f"index.{pos}").write_text("  1 licence\n" + "\n".join(sorted(lines)) + "\n")
    for pos, lines in {"noun": ["geese goose"], "verb": ["ran run"], "adj": [], "adv": []}.items():
        (folder / f"{pos}.exc").write_text("".join(f"{line}\n" for line in lines))
    return folder


_TAB = "# tiny\n00000100-n\tlemma\tcarro\n00000100-n\tlemma\tautomóvel\n00000200-v\tlemma\tcorrer\n"
_PAIRS = [("big", "large"), ("kick the bucket", "die"), ("the united states", "america")]


@dataclass
class Kind:
    """One kind of cache: ``load()`` returns (a comparable value, the cache file,
    whether it came from the cache)."""

    name: str
    load: Callable[[], tuple[Any, Path | None, bool]]


def _kinds(tmp_path: Path, private_cache: Path) -> dict[str, Kind]:
    tiny = _tiny_wordnet(tmp_path / "wordnet")
    tab = tmp_path / "wn-data-xyz.tab"
    tab.write_text(_TAB, encoding="utf-8")
    table = tmp_path / "paraphrase-en.gz"
    table.write_bytes(gzip.compress("".join(f"0.5\n{a}\n{b}\n" for a, b in _PAIRS).encode("utf-8")))

    def load_wordnet() -> tuple[Any, Path | None, bool]:
        wn_reader._LOADED.clear()
        w = wn.load_wordnet(tiny)
        value = (w.words, w.starts.tolist(), w.ids.tolist(), w.exceptions, w.checksum)
        return value, w.cache_file, w.from_cache

    def load_lemma() -> tuple[Any, Path | None, bool]:
        lemma._FACTORY._tables.clear()
        files = sorted((private_cache / "simplemma-flat-v2").glob("*.mxc"))
        before = files[0].stat().st_mtime_ns if files else None
        table = lemma._FACTORY.get_dictionary("ms")  # Malay: simplemma's smallest
        (file,) = sorted((private_cache / "simplemma-flat-v2").glob("*.mxc"))
        return list(table.items()), file, file.stat().st_mtime_ns == before

    def load_omw() -> tuple[Any, Path | None, bool]:
        omw.load_index.cache_clear()
        files = sorted((private_cache / "omw-index-v3").glob("*.mxc"))
        before = files[0].stat().st_mtime_ns if files else None
        index, file = omw.load_index(tab, "0" * 64, None, None, False)
        assert file is not None
        return index, file, file.stat().st_mtime_ns == before

    def load_paraphrase() -> tuple[Any, Path | None, bool]:
        clear_loaded()
        t = load_table(table)
        value = [t.paraphrases(a) for a, _ in _PAIRS], t.sha256, len(t)
        return value, t.cache_path, t.from_cache

    return {
        "wordnet": Kind("wordnet", load_wordnet),
        "lemma": Kind("lemma", load_lemma),
        "omw": Kind("omw", load_omw),
        "paraphrase": Kind("paraphrase", load_paraphrase),
    }


KINDS = ["wordnet", "lemma", "omw", "paraphrase"]


def _first_load(kind: Kind) -> tuple[Any, Path]:
    value, file, from_cache = kind.load()
    assert file is not None and file.is_file() and not from_cache
    again, _, from_cache = kind.load()
    assert from_cache and again == value
    return value, file


def _verifies(path: Path) -> bool:
    data = path.read_bytes()
    length = int.from_bytes(data[-8:], "little")
    header = json.loads(data[len(data) - 8 - length : -8])
    try:
        cache.parse(data, header["kind"], header["source"])
    except cache.CacheError:
        return False
    return True


def _reload_after(kind: Kind, value: Any, file: Path) -> None:
    """Loading again gives the same value, not from the damaged file, with one
    warning; the file is then rebuilt and later loads use it."""
    cache_store._WARNED.clear()
    with pytest.warns(CacheWarning, match="rebuilding it") as caught:
        again, again_file, from_cache = kind.load()
    assert len([w for w in caught if issubclass(w.category, CacheWarning)]) == 1
    assert again == value and again_file == file and not from_cache
    assert _verifies(file)
    third, _, from_cache = kind.load()
    assert third == value and from_cache


# -- planted pickles, garbage, bit flips, truncation ----------------------------------------


@pytest.mark.parametrize("name", KINDS)
def test_planted_pickle_does_not_run_and_is_rebuilt(
    name: str, tmp_path: Path, private_cache: Path
) -> None:
    kind = _kinds(tmp_path, private_cache)[name]
    value, file = _first_load(kind)
    marker = tmp_path / "code-ran"
    file.write_bytes(pickle.dumps(Planted(marker), protocol=pickle.HIGHEST_PROTOCOL))
    _reload_after(kind, value, file)
    assert not marker.exists()


@pytest.mark.parametrize("name", KINDS)
def test_damaged_cache_is_rebuilt(name: str, tmp_path: Path, private_cache: Path) -> None:
    kind = _kinds(tmp_path, private_cache)[name]
    value, file = _first_load(kind)
    rng = random.Random(name)
    original = file.read_bytes()
    damages = [
        b"",  # empty
        b"garbage" * 10,
        original[: len(original) // 2],  # truncated
        original[:-1],
        original + b"\0",  # extended
    ]
    for spot in (0, 9, 30, len(original) // 2, len(original) - 9, len(original) - 1):
        flipped = bytearray(original)
        flipped[spot] ^= 1 << rng.randrange(8)
        damages.append(bytes(flipped))
    for damaged in damages:
        file.write_bytes(damaged)
        _reload_after(kind, value, file)


def test_symlinked_cache_file_is_not_followed(tmp_path: Path, private_cache: Path) -> None:
    kind = _kinds(tmp_path, private_cache)["wordnet"]
    value, file = _first_load(kind)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    file.unlink()
    file.symlink_to(victim)
    with pytest.warns(CacheWarning, match="symbolic link"):
        again, _, from_cache = kind.load()
    assert again == value and not from_cache
    assert victim.read_text() == "keep me\n"
    assert not file.is_symlink() and _verifies(file)


def test_stale_source_or_kind_is_rebuilt(private_cache: Path) -> None:
    """A verified file of another source, copied under this source's name, is not used."""
    calls: list[str] = []

    def build(text: str) -> Callable[[], Record]:
        def run() -> Record:
            calls.append(text)
            return Record({"text": text}, {"data": text.encode()})

        return run

    def decode(record: Record) -> str:
        return str(record.sections["data"], "utf-8")

    first, file_a, _ = cached("kind-v1", "a", build("A"), decode)
    second, file_b, _ = cached("kind-v1", "b", build("B"), decode)
    assert (first, second) == ("A", "B") and file_a is not None and file_b is not None
    file_b.write_bytes(file_a.read_bytes())
    with pytest.warns(CacheWarning, match="another source"):
        again, _, from_cache = cached("kind-v1", "b", build("B"), decode)
    assert again == "B" and not from_cache and calls == ["A", "B", "B"]
    assert cached("kind-v1", "b", build("B"), decode)[0::2] == ("B", True)


def test_cache_off_writes_nothing(monkeypatch: pytest.MonkeyPatch, private_cache: Path) -> None:
    monkeypatch.setenv("METEORX_CACHE_DIR", "off")
    assert cache_dir() is None
    value = cached(
        "kind-v1", "a", lambda: Record({}, {"x": b"1"}), lambda r: bytes(r.sections["x"])
    )
    assert value == (b"1", None, False)
    assert not private_cache.exists()


def test_truncating_a_loaded_paraphrase_table_during_a_run(tmp_path: Path) -> None:
    """The table is read, not mapped: truncating its file mid-run changes nothing (it
    killed the process with SIGBUS when mapped)."""
    table = tmp_path / "paraphrase-en.gz"
    table.write_bytes(
        gzip.compress("".join(f"0.5\n{a}\n{b}\n" for a, b in _PAIRS * 2000).encode("utf-8"))
    )
    script = textwrap.dedent(
        """
        import sys
        from meteorx.engine import compiled
        from meteorx_plugins.paraphrase.table import load_table
        first = load_table(sys.argv[1])
        assert first.cache_path is not None
        before = [first.paraphrases(a) for a in ("big", "kick the bucket", "the united states")]
        from meteorx_plugins.paraphrase.table import clear_loaded
        clear_loaded()
        table = load_table(sys.argv[1])
        assert table.from_cache
        with open(table.cache_path, "r+b") as handle:
            handle.truncate(64)
        after = [table.paraphrases(a) for a in ("big", "kick the bucket", "the united states")]
        fast = compiled("meteorx_plugins.paraphrase._phrase_lookup")
        native = table.native(fast) if fast is not None else None
        print(before == after and after[0][0] == "large", native is not None)
        """
    )
    env = {**os.environ, "METEORX_CACHE_DIR": str(tmp_path / "cache")}
    run = subprocess.run(
        [sys.executable, "-c", script, str(table)], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[0] == "True"


def test_cli_run_with_a_planted_pickle(tmp_path: Path) -> None:
    """End to end: a planted file gives the uncorrupted scores, exit 0, one warning line
    on stderr, and its code never runs."""
    tiny = _tiny_wordnet(tmp_path / "wordnet")
    config = tmp_path / "synonyms.yaml"
    config.write_text(
        "language: en\nnormalize: lower\nstages:\n- matcher: exact\n"
        f"- matcher: synonym\n  path: {tiny}\n",
        encoding="utf-8",
    )
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the car ran well\nbig geese\n", encoding="utf-8")
    ref.write_text("the automobile runs well\nlarge goose\n", encoding="utf-8")
    env = {**os.environ, "METEORX_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "meteorx", "score", "--hyp", str(hyp), "--ref", str(ref)]
    command += ["--config", str(config)]

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path)

    clean = run()
    assert clean.returncode == 0 and clean.stderr == "", clean.stderr
    (file,) = (tmp_path / "cache" / f"wordnet-v{wn_reader._FORMAT}").glob("*.mxc")
    marker = tmp_path / "code-ran"
    file.write_bytes(pickle.dumps(Planted(marker)))
    planted = run()
    assert planted.returncode == 0 and planted.stdout == clean.stdout
    assert not marker.exists()
    lines = planted.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("meteorx: warning: cache file ")
    assert run().stderr == ""  # rebuilt


# -- cache folders others can write -----------------------------------------------------------


def _score_synonyms(tiny: Path) -> float:
    from meteorx.metric import Scorer

    wn_reader._LOADED.clear()
    config = {
        "language": "en",
        "stages": [{"matcher": "exact"}, {"matcher": "synonym", "path": str(tiny)}],
    }
    return Scorer(config).segment("the car", "the automobile").score


def test_created_folders_are_private(tmp_path: Path, private_cache: Path) -> None:
    old = os.umask(0)
    try:
        folder = cache_dir("kind-v1")
    finally:
        os.umask(old)
    assert folder is not None
    for path in (private_cache, folder):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777, 0o722])
def test_folder_writable_by_others_is_not_used(
    mode: int, tmp_path: Path, private_cache: Path
) -> None:
    private_cache.mkdir()
    private_cache.chmod(mode)
    with pytest.warns(CacheWarning, match="writable by other users"):
        assert cache_dir("wordnet-v3") is None
    assert _score_synonyms(_tiny_wordnet(tmp_path / "wordnet")) > 0.99  # compiled in memory
    assert list(private_cache.iterdir()) == []  # nothing read or written there


def test_folder_in_a_parent_anyone_can_write(tmp_path: Path, private_cache: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.environ["METEORX_CACHE_DIR"] = str(shared / "meteorx")
    shared.chmod(0o777)
    with pytest.warns(CacheWarning, match="anyone can write"):
        assert cache_dir("kind-v1") is None
    shared.chmod(0o1777)  # sticky, as /tmp: others cannot replace our folder
    assert cache_dir("kind-v1") == shared / "meteorx" / "kind-v1"
    shared.chmod(0o700)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_folder_of_another_user_is_not_used(tmp_path: Path, private_cache: Path) -> None:
    private_cache.mkdir(mode=0o755)
    try:
        os.chown(private_cache, 65534, 65534)
    except OSError as error:  # root of a user namespace that does not map that user
        if error.errno != errno.EINVAL:
            raise
        pytest.skip(f"cannot give a folder to another user here: chown says {error.strerror}")
    with pytest.warns(CacheWarning, match="belongs to another user"):
        assert cache_dir("kind-v1") is None
    assert list(private_cache.iterdir()) == []


def test_symlinked_subfolder_is_not_used(tmp_path: Path, private_cache: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    private_cache.mkdir(mode=0o700)
    (private_cache / "kind-v1").symlink_to(elsewhere)
    with pytest.warns(CacheWarning, match="symbolic link"):
        assert cache_dir("kind-v1") is None


# -- resources install ------------------------------------------------------------------------


def _tab(tmp_path: Path) -> Path:
    path = tmp_path / "download" / "wn-data-xyz.tab"
    path.parent.mkdir(exist_ok=True)
    path.write_text(_TAB, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "name", ["omw-por\n", "omw-POR", "../omw-por", "omw-por/../x", "omw-por ", "", "omw--por"]
)
def test_install_refuses_odd_names(
    name: str, tmp_path: Path, private_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(MeteorxError) as info:
        install_resource(name, str(_tab(tmp_path)), verify=False)
    assert "\n" not in str(info.value)
    assert cli_main(["resources", "install", name, "--from", str(_tab(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("meteorx: error: ")
    assert not (private_cache / "resources").exists() or not any(
        (private_cache / "resources").iterdir()
    )


@pytest.mark.parametrize("entry", ["wn-data-xyz.tab", "manifest.json", "LICENSE"])
def test_install_refuses_symlinks_in_its_folder(
    entry: str, tmp_path: Path, private_cache: Path
) -> None:
    source = _tab(tmp_path)
    (source.parent / "LICENSE").write_text("CC BY 4.0\n")
    assert install_resource("omw-xyz", str(source), verify=False).is_file()
    folder = private_cache / "resources" / "omw-xyz"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (folder / entry).unlink()
    (folder / entry).symlink_to(victim)
    with pytest.raises(ResourceError, match="symbolic link") as info:
        install_resource("omw-xyz", str(source), verify=False, force=True)
    assert "\n" not in str(info.value)
    assert victim.read_text() == "keep me\n"


def test_install_refuses_a_symlinked_resource_folder(tmp_path: Path, private_cache: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (private_cache / "resources").mkdir(parents=True, mode=0o700)
    (private_cache / "resources" / "omw-xyz").symlink_to(elsewhere)
    with pytest.warns(CacheWarning, match="symbolic link"), pytest.raises(ResourceError):
        install_resource("omw-xyz", str(_tab(tmp_path)), verify=False)
    assert list(elsewhere.iterdir()) == []


def test_manifest_is_not_read_through_a_symlink(tmp_path: Path, private_cache: Path) -> None:
    install_resource("omw-xyz", str(_tab(tmp_path)), verify=False)
    folder = private_cache / "resources" / "omw-xyz"
    assert read_manifest("omw-xyz") is not None
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"name": "omw-xyz", "secret": "x"}))
    (folder / "manifest.json").unlink()
    (folder / "manifest.json").symlink_to(other)
    assert read_manifest("omw-xyz") is None
