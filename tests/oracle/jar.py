"""Test oracle: run the reference Meteor 1.5 jar and parse what it prints.

The jar (``meteor-1.5.jar``) and its English paraphrase table
(``data/paraphrase-en.gz``) come from the PyPI package ``pycocoevalcap``
(``<site-packages>/pycocoevalcap/meteor/``). ``METEORX_METEOR_JAR`` may point
at another copy of the jar instead. Nothing here imports ``meteorx``.

Main entry points
-----------------
* :func:`run_jar` -- ``java -Xmx2G -jar meteor-1.5.jar HYP REF <args>``,
  parsed into a :class:`JarResult` and cached on disk.
* :func:`jar_function_words` -- ``function/<language>.words`` from the jar.
* :func:`jar_stems` -- stems from the jar's own Snowball stemmers (via the
  tiny Java helper ``JarStem.java`` next to this file, compiled on first use).
* :func:`unavailable_reason` / :func:`require_jar` -- for ``pytest.skip``.

Disk cache
----------
A jar run takes seconds, so :func:`run_jar` results are stored under
``$METEORX_ORACLE_CACHE`` (default ``~/.cache/meteorx-oracle``), keyed by
the SHA-256 of the hypothesis and reference file contents, the argument list,
the jar's SHA-256, the paraphrase table's SHA-256, and the contents of any
files named by ``-s/-e/-a/-d/-new`` options. The raw output is cached and
re-parsed on load, so parser fixes apply to old cache entries. Set
``METEORX_ORACLE_CACHE=off`` (or pass ``use_cache=False``) to disable it.

Reproducibility details
-----------------------
The JVM is started with ``-Duser.language=en -Duser.country=US
-Dfile.encoding=UTF-8`` (Meteor lower-cases with the default locale), and
with a fresh temporary working directory (``-sgml`` and
``-writeAlignments`` write their output files to the working directory;
those files are returned in :attr:`JarResult.files`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "JarError",
    "JarResult",
    "JarUnavailable",
    "SegmentVerbose",
    "SufficientStats",
    "cache_dir",
    "find_jar",
    "find_paraphrase_table",
    "jar_function_words",
    "jar_sha256",
    "jar_stems",
    "parse_output",
    "require_jar",
    "run_jar",
    "unavailable_reason",
]

PathLike = str | os.PathLike[str]

#: JVM options used for every run (part of the cache key).
JVM_OPTIONS: tuple[str, ...] = (
    "-Xmx2G",
    "-Duser.language=en",
    "-Duser.country=US",
    "-Dfile.encoding=UTF-8",
)

#: Bump to invalidate every cached run.
_CACHE_VERSION = 1

_HERE = Path(__file__).resolve().parent
_JARSTEM_SOURCE = _HERE / "JarStem.java"

# Options whose value names a file (or, for -d / -new, a directory).
_FILE_OPTIONS = frozenset({"-s", "-e", "-a"})
_DIR_OPTIONS = frozenset({"-d", "-new"})
_VALUE_OPTIONS = (
    frozenset({"-l", "-t", "-p", "-m", "-w", "-r", "-x", "-f"}) | _FILE_OPTIONS | _DIR_OPTIONS
)


class JarUnavailable(RuntimeError):
    """The oracle cannot run: pycocoevalcap's jar, ``java`` or ``javac`` is missing.

    Tests should turn this into ``pytest.skip(str(exc))``.
    """


class JarError(RuntimeError):
    """The jar ran but failed, or its output could not be parsed."""


# --------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SegmentVerbose:
    """One ``-vOut`` segment line: ``Segment N score:\\tP\\tR\\tfrag\\tscore``."""

    precision: float
    recall: float
    frag_penalty: float
    score: float


@dataclass(frozen=True)
class SufficientStats:
    """One ``-ssOut`` line (``MeteorStats.toString()``, space separated).

    Layout (23 numbers in Meteor 1.5, which always prints 4 stages): test
    length, reference length, test function words, reference function words;
    then per stage (exact, stem, synonym, paraphrase order *as configured by
    -m*): test content matches, reference content matches, test function
    matches, reference function matches; then chunks, test word matches,
    reference word matches. Lengths are characters when ``-ch`` is used.
    """

    values: tuple[float, ...]

    @property
    def n_stages(self) -> int:
        return (len(self.values) - 7) // 4

    @property
    def test_length(self) -> float:
        return self.values[0]

    @property
    def ref_length(self) -> float:
        return self.values[1]

    @property
    def test_function_words(self) -> float:
        return self.values[2]

    @property
    def ref_function_words(self) -> float:
        return self.values[3]

    def stage(self, i: int) -> tuple[float, float, float, float]:
        """Stage ``i`` (0-based): (test content, ref content, test function, ref function)."""
        if not 0 <= i < self.n_stages:
            raise IndexError(i)
        a, b, c, d = self.values[4 + 4 * i : 8 + 4 * i]
        return (a, b, c, d)

    @property
    def chunks(self) -> float:
        return self.values[-3]

    @property
    def test_word_matches(self) -> float:
        return self.values[-2]

    @property
    def ref_word_matches(self) -> float:
        return self.values[-1]


@dataclass
class JarResult:
    """Parsed output of one jar run.

    ``segment_scores`` -- per-segment Meteor scores in input order (from
    ``Segment N score:`` lines, or from stderr with ``-q``); with ``-sgml``
    they come from ``<prefix>-seg.scr``, in the jar's order there (sorted by
    set, system, document id, segment id -- not file order). Empty with
    ``-ssOut``.

    ``system_score`` -- the ``Final score:`` value; ``math.nan`` with
    ``-ssOut`` (the jar prints no score then). With ``-sgml`` and several
    systems it is the last system printed (see ``final_scores``).

    ``raw`` -- the jar's stdout, verbatim.
    """

    segment_scores: list[float]
    system_score: float
    raw: str
    stderr: str = ""
    #: ``-vOut``: per-segment precision / recall / fragmentation penalty / score.
    segment_verbose: list[SegmentVerbose] | None = None
    #: ``-ssOut``: per-segment sufficient statistics.
    sufficient_stats: list[SufficientStats] | None = None
    #: Header lines ("Eval ID", "Modules", "Weights", "Parameters", ...).
    header: dict[str, str] = field(default_factory=dict)
    #: System-level lines: "Test words", "Reference words", "Chunks",
    #: "Precision", "Recall", "f1", "fMean", "Fragmentation penalty",
    #: "Final score" (keys exactly as printed, without the colon).
    system_stats: dict[str, float] = field(default_factory=dict)
    #: Stage table rows keyed "1", "2", ..., "Total": (test content, test
    #: function, test total, ref content, ref function, ref total).
    stage_table: dict[str, tuple[float, ...]] = field(default_factory=dict)
    #: Every ``Final score:`` value printed (several with multi-system SGML).
    final_scores: list[float] = field(default_factory=list)
    #: Files the jar wrote into its working directory (name -> UTF-8 text).
    files: dict[str, str] = field(default_factory=dict)
    #: Wall-clock seconds of the actual jar run (the cached value on a hit).
    elapsed: float = 0.0
    #: True if this result came from the disk cache.
    cached: bool = False
    #: The command line that was run (paths are those at first run time).
    command: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------
# Locating the jar
# --------------------------------------------------------------------------


def find_jar() -> Path | None:
    """Path of ``meteor-1.5.jar``, or ``None`` if it cannot be found.

    ``$METEORX_METEOR_JAR`` wins if set; otherwise the jar shipped in the
    ``pycocoevalcap`` package (a namespace package, hence
    ``submodule_search_locations`` rather than ``__file__``).
    """
    env = os.environ.get("METEORX_METEOR_JAR")
    if env:
        p = Path(env).expanduser()
        return p.resolve() if p.is_file() else None
    try:
        spec = importlib.util.find_spec("pycocoevalcap")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    roots = list(spec.submodule_search_locations or [])
    if spec.origin and spec.origin not in ("namespace", "built-in", "frozen"):
        roots.append(str(Path(spec.origin).parent))
    for root in roots:
        p = Path(root) / "meteor" / "meteor-1.5.jar"
        if p.is_file():
            return p.resolve()
    return None


def find_paraphrase_table(language: str = "en") -> Path | None:
    """``data/paraphrase-<language>.gz`` next to the jar (where Meteor looks), or ``None``."""
    jar = find_jar()
    if jar is None:
        return None
    p = jar.parent / "data" / f"paraphrase-{language}.gz"
    return p if p.is_file() else None


def unavailable_reason(*, need_javac: bool = False) -> str | None:
    """``None`` if the oracle can run, else a human-readable reason (for ``pytest.skip``)."""
    if find_jar() is None:
        if os.environ.get("METEORX_METEOR_JAR"):
            return f"METEORX_METEOR_JAR={os.environ['METEORX_METEOR_JAR']!r} is not a file"
        return (
            "Meteor 1.5 jar not found: `pip install pycocoevalcap` "
            "(provides pycocoevalcap/meteor/meteor-1.5.jar)"
        )
    if shutil.which("java") is None:
        return "`java` not found on PATH (Meteor 1.5 jar needs a Java 8+ runtime)"
    if need_javac and shutil.which("javac") is None:
        return "`javac` not found on PATH (needed to compile tests/oracle/JarStem.java)"
    return None


def require_jar(*, need_javac: bool = False) -> Path:
    """Path of the jar; raises :class:`JarUnavailable` if it (or java/javac) is missing."""
    reason = unavailable_reason(need_javac=need_javac)
    if reason is not None:
        raise JarUnavailable(reason)
    jar = find_jar()
    assert jar is not None
    return jar


# --------------------------------------------------------------------------
# Hashing / cache
# --------------------------------------------------------------------------


@functools.cache
def _sha256_file_cached(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _sha256_file(path: PathLike) -> str:
    st = os.stat(path)
    return _sha256_file_cached(os.fspath(Path(path).resolve()), st.st_size, st.st_mtime_ns)


def jar_sha256() -> str:
    """SHA-256 of the jar in use (raises :class:`JarUnavailable` if absent)."""
    return _sha256_file(require_jar())


def cache_dir() -> Path | None:
    """Oracle cache directory (``$METEORX_ORACLE_CACHE`` or ``~/.cache/meteorx-oracle``).

    ``None`` if caching is disabled (``METEORX_ORACLE_CACHE`` set to ``off``,
    ``0``, ``none`` or ``""``).
    """
    env = os.environ.get("METEORX_ORACLE_CACHE")
    if env is not None:
        if env.strip().lower() in ("", "0", "off", "none", "no", "false"):
            return None
        return Path(env).expanduser()
    return Path.home() / ".cache" / "meteorx-oracle"


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _dir_digest(path: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(q for q in path.rglob("*") if q.is_file()):
        h.update(os.fspath(p.relative_to(path)).encode("utf-8", "surrogateescape"))
        h.update(b"\0")
        h.update(_sha256_file(p).encode())
    return h.hexdigest()


# --------------------------------------------------------------------------
# Running the jar
# --------------------------------------------------------------------------

_JAVA_LINE_SPLIT = re.compile(rb"\r\n|\r|\n")


def _java_lines(data: bytes) -> list[bytes]:
    """Split like Java's ``BufferedReader.readLine`` (``\\n``, ``\\r`` or ``\\r\\n``)."""
    if not data:
        return []
    parts = _JAVA_LINE_SPLIT.split(data)
    if parts[-1] == b"":
        parts.pop()
    return parts


def _prepare_args(args: Sequence[str]) -> tuple[list[str], list[Any]]:
    """Absolutise file options (the jar runs in a temp cwd); return (args, key material)."""
    out: list[str] = []
    key: list[Any] = []
    i = 0
    args = [str(a) for a in args]
    while i < len(args):
        a = args[i]
        out.append(a)
        if a in _VALUE_OPTIONS:
            if i + 1 >= len(args):
                raise ValueError(f"option {a} needs a value")
            v = args[i + 1]
            if a in _FILE_OPTIONS or a in _DIR_OPTIONS:
                p = Path(v).expanduser().resolve()
                if a in _FILE_OPTIONS and p.is_file():
                    key.append([a, _sha256_file(p)])
                elif a in _DIR_OPTIONS and p.is_dir():
                    key.append([a, _dir_digest(p)])
                else:
                    raise FileNotFoundError(f"{a} {v}: not found")
                v = os.fspath(p)
            out.append(v)
            i += 2
        else:
            i += 1
    return out, key


def run_jar(
    hyp_path: PathLike,
    ref_paths: PathLike | Sequence[PathLike],
    args: Sequence[str] = (),
    *,
    use_cache: bool = True,
    timeout: float | None = 3600.0,
) -> JarResult:
    """Run ``java -Xmx2G -jar meteor-1.5.jar HYP REF <args>`` and parse the output.

    ``ref_paths`` is one reference file or a list of them. With several
    references (plaintext only) the files are interleaved line by line into
    one temporary file (segment 1 ref 1, segment 1 ref 2, ..., segment 2 ref
    1, ...) and ``-r N`` is added -- that is how Meteor 1.5 reads multiple
    references. Do not put ``-r`` in ``args`` then. A single pre-interleaved
    file plus ``-r N`` in ``args`` also works.

    ``args`` are Meteor options, e.g. ``["-l", "en", "-lower", "-m", "exact stem"]``
    (one list element per argv element). Supported output modes: default,
    ``-vOut``, ``-ssOut``, ``-q``, ``-sgml`` (and ``-writeAlignments``, whose
    file ends up in :attr:`JarResult.files`). ``-stdio`` is not supported.

    Results are cached on disk (see module docstring). Raises
    :class:`JarUnavailable` if the jar or java is missing, :class:`JarError` if
    the jar fails, ``ValueError`` for inconsistent inputs.
    """
    jar = require_jar()
    args = [str(a) for a in args]
    if "-stdio" in args or "-mira" in args:
        raise ValueError("run_jar does not support -stdio")

    hyp = Path(hyp_path).expanduser().resolve()
    if isinstance(ref_paths, (str, os.PathLike)):
        refs = [Path(ref_paths).expanduser().resolve()]
    else:
        refs = [Path(r).expanduser().resolve() for r in ref_paths]
    if not refs:
        raise ValueError("need at least one reference file")
    for p in [hyp, *refs]:
        if not p.is_file():
            raise FileNotFoundError(p)
    if len(refs) > 1:
        if "-r" in args:
            raise ValueError("pass either several ref_paths or -r in args, not both")
        if "-sgml" in args:
            raise ValueError("several ref_paths is plaintext only; SGML refs go in one file")

    run_args, file_key = _prepare_args(args)
    para = find_paraphrase_table("en")
    key_material = {
        "v": _CACHE_VERSION,
        "jvm": list(JVM_OPTIONS),
        "jar": _sha256_file(jar),
        "para_en": _sha256_file(para) if para else None,
        "hyp": _sha256_file(hyp),
        "refs": [_sha256_file(r) for r in refs],
        "args": args,
        "files": file_key,
    }
    key = hashlib.sha256(json.dumps(key_material, sort_keys=True).encode()).hexdigest()

    cdir = cache_dir() if use_cache else None
    cache_file = cdir / "runs" / key[:2] / f"{key}.json" if cdir else None
    if cache_file is not None and cache_file.is_file():
        try:
            rec = json.loads(cache_file.read_text(encoding="utf-8"))
            res = parse_output(rec["stdout"], rec["stderr"], args, rec.get("files", {}))
            res.elapsed = float(rec.get("elapsed", 0.0))
            res.cached = True
            res.command = list(rec.get("command", []))
            return res
        except (OSError, ValueError, KeyError, JarError):
            pass  # corrupt / stale entry: rerun

    with tempfile.TemporaryDirectory(prefix="meteorx-oracle-") as tmp:
        work = Path(tmp) / "cwd"
        work.mkdir()
        if len(refs) > 1:
            hyp_n = len(_java_lines(hyp.read_bytes()))
            ref_lines = [_java_lines(r.read_bytes()) for r in refs]
            for r, lines in zip(refs, ref_lines, strict=True):
                if len(lines) != hyp_n:
                    raise ValueError(f"{r}: {len(lines)} lines, hypothesis has {hyp_n}")
            inter = Path(tmp) / "refs.interleaved"
            groups = zip(*ref_lines, strict=True)
            inter.write_bytes(b"".join(line + b"\n" for group in groups for line in group))
            ref_arg = inter
            run_args = [*run_args, "-r", str(len(refs))]
        else:
            ref_arg = refs[0]
        cmd = ["java", *JVM_OPTIONS, "-jar", os.fspath(jar)]
        cmd += [os.fspath(hyp), os.fspath(ref_arg), *run_args]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=work, capture_output=True, timeout=timeout, check=False)
        except FileNotFoundError as exc:  # java vanished between check and run
            raise JarUnavailable(f"cannot run java: {exc}") from exc
        elapsed = time.perf_counter() - t0
        stdout = proc.stdout.decode("utf-8", errors="replace")
        stderr = proc.stderr.decode("utf-8", errors="replace")
        files = {
            p.name: p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(work.iterdir())
            if p.is_file()
        }
    if proc.returncode != 0:
        raise JarError(
            f"jar exited with {proc.returncode}: {' '.join(cmd)}\n--- stderr ---\n{stderr[-4000:]}"
        )
    res = parse_output(stdout, stderr, args, files)
    if not res.segment_scores and res.sufficient_stats is None and "-sgml" not in args:
        raise JarError(f"no segment scores in jar output\n--- stderr ---\n{stderr[-4000:]}")
    if "-sgml" not in args:
        seg_list = res.sufficient_stats if res.sufficient_stats is not None else res.segment_scores
        n_seg = len(seg_list)
        hyp_n = len(_java_lines(hyp.read_bytes()))
        if n_seg != hyp_n:
            raise JarError(f"jar reported {n_seg} segments for {hyp_n} hypothesis lines")
    res.elapsed = elapsed
    res.command = cmd
    if cache_file is not None:
        rec = {
            "stdout": stdout,
            "stderr": stderr,
            "files": files,
            "elapsed": elapsed,
            "command": cmd,
            "key": key_material,
        }
        with contextlib.suppress(OSError):  # the cache is best effort
            _atomic_write(cache_file, json.dumps(rec).encode("utf-8"))
    return res


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------

_SEG_RE = re.compile(r"^Segment (\d+) score:\t(.*)$")
_HEADER_RE = re.compile(
    r"^(Meteor version|Eval ID|Language|Format|Task|Modules|Weights|Parameters):\s*(.*?)\s*$"
)
_STAT_RE = re.compile(
    r"^(Test words|Reference words|Test chars|Reference chars|Chunks|Precision|Recall"
    r"|f1|fMean|Fragmentation penalty|Final score):\s+(\S+)\s*$"
)
_STAGE_RE = re.compile(r"^(\d+|Total)((?:\s+\S+){6})\s*$")


def _float(s: str) -> float:
    try:
        return float(s)
    except ValueError as exc:
        raise JarError(f"cannot parse number {s!r}") from exc


def _try_floats(line: str) -> list[float] | None:
    parts = line.split()
    if not parts:
        return None
    try:
        return [float(p) for p in parts]
    except ValueError:
        return None


def parse_output(
    stdout: str, stderr: str = "", args: Sequence[str] = (), files: dict[str, str] | None = None
) -> JarResult:
    """Parse jar output produced with ``args`` (see :class:`JarResult`).

    Raises :class:`JarError` when the expected lines are missing (e.g. the
    jar printed ``Error: test and reference not same length`` and stopped).
    """
    args = list(args)
    files = dict(files or {})
    ss_out = "-ssOut" in args
    quiet = "-q" in args
    sgml = "-sgml" in args
    res = JarResult(
        segment_scores=[], system_score=math.nan, raw=stdout, stderr=stderr, files=files
    )

    if ss_out and not sgml:
        stats: list[SufficientStats] = []
        for line in stdout.splitlines():
            vals = _try_floats(line)
            if vals is not None:
                stats.append(SufficientStats(tuple(vals)))
        res.sufficient_stats = stats
        if not stats and stdout.strip() == "" and "Error" in stderr:
            raise JarError(f"jar reported an error:\n{stderr[-4000:]}")
        return res

    if quiet and not sgml:
        for line in stderr.splitlines():
            vals = _try_floats(line)
            if vals is not None and len(vals) == 1:
                res.segment_scores.append(vals[0])
        parsed = (_try_floats(line) for line in stdout.splitlines())
        finals = [v[0] for v in parsed if v is not None and len(v) == 1]
        if not finals:
            raise JarError(f"no final score in -q output\n--- stderr ---\n{stderr[-4000:]}")
        res.final_scores = finals
        res.system_score = finals[-1]
        return res

    verbose: list[SegmentVerbose] = []
    expected = 1
    for line in stdout.splitlines():
        m = _SEG_RE.match(line)
        if m:
            n = int(m.group(1))
            if n != expected:
                raise JarError(f"segment numbering jumps from {expected - 1} to {n}")
            expected += 1
            vals = [_float(v) for v in m.group(2).split("\t")]
            if len(vals) == 4:
                verbose.append(SegmentVerbose(*vals))
                res.segment_scores.append(vals[3])
            elif len(vals) == 1:
                res.segment_scores.append(vals[0])
            else:
                raise JarError(f"unexpected segment line {line!r}")
            continue
        m = _HEADER_RE.match(line)
        if m:
            res.header[m.group(1)] = m.group(2)
            continue
        m = _STAT_RE.match(line)
        if m:
            v = _float(m.group(2))
            res.system_stats[m.group(1)] = v
            if m.group(1) == "Final score":
                res.final_scores.append(v)
            continue
        m = _STAGE_RE.match(line)
        if m:
            vals_ = _try_floats(m.group(2))
            if vals_ is not None:
                res.stage_table[m.group(1)] = tuple(vals_)
    if verbose:
        if len(verbose) != len(res.segment_scores):
            raise JarError("mixed -vOut and plain segment lines")
        res.segment_verbose = verbose

    if sgml:
        prefix = _option_value(args, "-f") or "meteor"
        seg_name = Path(prefix).name + "-seg.scr"
        seg_text = files.get(seg_name)
        if seg_text is not None:
            for line in seg_text.splitlines():
                cols = line.split("\t")
                if ss_out:
                    vals = _try_floats(cols[-1])
                    if vals is not None:
                        if res.sufficient_stats is None:
                            res.sufficient_stats = []
                        res.sufficient_stats.append(SufficientStats(tuple(vals)))
                elif "-vOut" in args and len(cols) >= 8:
                    sv = SegmentVerbose(*(_float(c) for c in cols[-4:]))
                    res.segment_verbose = (res.segment_verbose or []) + [sv]
                    res.segment_scores.append(sv.score)
                elif cols and cols[-1]:
                    res.segment_scores.append(_float(cols[-1]))
        if ss_out:
            return res

    if not res.final_scores:
        raise JarError(
            "no 'Final score:' line in jar output"
            + (f"\n--- stderr ---\n{stderr[-4000:]}" if stderr else "")
        )
    res.system_score = res.final_scores[-1]
    return res


def _option_value(args: Sequence[str], opt: str) -> str | None:
    args = list(args)
    for i, a in enumerate(args[:-1]):
        if a == opt:
            return args[i + 1]
    return None


# --------------------------------------------------------------------------
# Function words and stems
# --------------------------------------------------------------------------

_LANG_NAMES = {
    "en": "english", "cz": "czech", "cs": "czech", "fr": "french", "de": "german",
    "es": "spanish", "ar-bw-red": "arabic-buckwalter-reduced", "pt": "portuguese",
    "ru": "russian", "da": "danish", "ro": "romanian", "hu": "hungarian",
    "tr": "turkish", "fi": "finnish", "nl": "dutch", "it": "italian",
    "no": "norwegian", "se": "swedish", "sv": "swedish", "xx": "other",
}  # fmt: skip


def _norm_language(language: str) -> str:
    lang = language.lower()
    return _LANG_NAMES.get(lang, lang)


def jar_function_words(language: str) -> list[str]:
    """Lines of ``function/<language>.words`` inside the jar, in file order.

    ``language`` is a Meteor language name or code (``"english"``/``"en"``,
    ``"portuguese"``/``"pt"``, ...). Lines are decoded as UTF-8 (as Meteor
    does), stripped of surrounding whitespace, blank lines dropped. Note that
    several bundled lists are empty in Meteor 1.5 (e.g. portuguese, danish),
    in which case ``[]`` is returned. Raises ``KeyError`` if the jar has no
    such list.
    """
    jar = find_jar()
    if jar is None:
        raise JarUnavailable(unavailable_reason() or "jar not found")
    name = f"function/{_norm_language(language)}.words"
    with zipfile.ZipFile(jar) as zf:
        try:
            data = zf.read(name)
        except KeyError:
            raise KeyError(f"{name} not in {jar}") from None
    return [w.strip() for w in data.decode("utf-8").splitlines() if w.strip()]


def _jarstem_classes() -> Path:
    """Compile JarStem.java once (per jar + source hash) and return the class dir."""
    jar = require_jar(need_javac=True)
    src = _JARSTEM_SOURCE.read_bytes()
    tag = hashlib.sha256(src + _sha256_file(jar).encode()).hexdigest()[:16]
    base = cache_dir() or Path(tempfile.gettempdir()) / "meteorx-oracle"
    out = base / "jarstem" / tag
    if (out / "JarStem.class").is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=".build-", dir=out.parent))
    try:
        proc = subprocess.run(
            ["javac", "-nowarn", "-encoding", "UTF-8", "-cp", os.fspath(jar),
             "-d", os.fspath(build), os.fspath(_JARSTEM_SOURCE)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            raise JarError(f"javac JarStem.java failed:\n{proc.stderr}")
        try:
            os.replace(build, out)  # atomic; loses harmlessly to a concurrent build
        except OSError:
            if not (out / "JarStem.class").is_file():
                raise
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return out


def jar_stems(words: Sequence[str], language: str) -> list[str]:
    """Stem ``words`` with the jar's own Snowball stemmer, in one JVM call.

    Uses Meteor's ``Constants.newStemmer`` (``SnowballStemmerWrapper`` around
    ``org.tartarus.snowball.ext.<language>Stemmer``), i.e. exactly what the stem
    module uses; ``language`` may be a name or code (``"english"``, ``"pt"``).
    Words are passed verbatim (no lower-casing: Meteor lower-cases before
    stemming only with ``-lower``/``-norm``). Words must not contain ``\\r`` or
    ``\\n``. Returns one stem per word, in order.
    """
    words = list(words)
    for w in words:
        if "\n" in w or "\r" in w:
            raise ValueError(f"word contains a line break: {w!r}")
    if not words:
        return []
    jar = require_jar(need_javac=True)
    classes = _jarstem_classes()
    payload = "".join(w + "\n" for w in words).encode("utf-8")
    proc = subprocess.run(
        ["java", *JVM_OPTIONS, "-cp", os.pathsep.join([os.fspath(jar), os.fspath(classes)]),
         "JarStem", language],
        input=payload, capture_output=True, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        raise JarError(f"JarStem failed ({proc.returncode}): {err}")
    out = proc.stdout.decode("utf-8").split("\n")
    if out and out[-1] == "":
        out.pop()
    if len(out) != len(words):
        raise JarError(f"JarStem returned {len(out)} stems for {len(words)} words")
    return out
