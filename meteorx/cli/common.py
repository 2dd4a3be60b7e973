"""Arguments and helpers shared by several subcommands (kept free of heavy imports)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from meteorx.config import MeteorConfig

EPILOG = """examples:
  meteorx score --hyp hyp.txt --ref ref.txt --preset meteor-1.5-en --norm lower
  meteorx score --hyp hyp.txt --ref ref.txt --preset li --lang pt --format json
  meteorx score --hyp a.txt --hyp b.txt --ref ref.txt -p li -l en --paired-bs --confidence
  meteorx score --input-format sgml --hyp test.sgm --ref ref.sgm -p li -l en --scr out
  meteorx score --hyp hyp.txt --ref ref.txt --config my.yaml --jobs 2 --stats-out s.tsv
  meteorx combine s.tsv --alpha 0.8                (re-score stored statistics)
  meteorx report --hyp a.txt --hyp b.txt --ref ref.txt -p li -l en -o report.html
  meteorx tune --config base.yaml --human seg.tsv --hyp-dir hyp/ --ref ref.txt -o tuned.yaml
  meteorx correlate -p meteorx -p li -l en --baseline chrf --human seg.tsv --hyp-dir hyp/ -r r.txt
  meteorx config --preset li --lang de        (show the resolved configuration)
  meteorx presets | plugins | languages

Configuration precedence: preset < --config file (which may 'extends' a preset) <
--lang/--norm. Documentation: README.md and docs/ in the source distribution."""


class Parser(argparse.ArgumentParser):
    """An argument error is one line, like every other error (``--help`` shows usage);
    subcommand parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def add_plugin_arg(parser: argparse.ArgumentParser) -> None:
    """--plugin, repeatable: plugins that are not installed. :func:`load_plugin_args`
    (which ``main`` calls before any command runs) registers them."""
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        dest="plugins",
        metavar="FILE.py|MODULE",
        help="use a plugin that is not installed: a .py file or a module name "
        "(package.module); repeatable. Its matchers, aligners, tokenizers and presets can "
        "then be named in --config/--preset, and signatures name it with its file's digest",
    )


def load_plugin_args(args: argparse.Namespace) -> None:
    """Register the plugins given with --plugin (a broken one is a PluginError)."""
    from meteorx.registry import register

    for plugin in getattr(args, "plugins", None) or ():
        register(plugin)


def add_config_args(parser: argparse.ArgumentParser) -> None:
    """--preset/--config, --lang, --norm, --plugin."""
    add_plugin_arg(parser)
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--preset",
        "-p",
        metavar="NAME",
        help="a named configuration (see 'meteorx presets', e.g. meteorx, li, "
        "meteor-1.5-en, tuned/de-en); default: the language's recommended one "
        "(English: meteor-1.5-en with --norm meteor; others: meteorx)",
    )
    group.add_argument(
        "--config", "-c", metavar="FILE.yaml", help="a YAML configuration (may 'extends' a preset)"
    )
    parser.add_argument(
        "--lang",
        "-l",
        metavar="CODE",
        help="language (any ISO 639-1 code, e.g. en, pt, de, zh, ha); overrides the "
        "config; without --preset/--config it picks the language's recommended one "
        "(default: en)",
    )
    parser.add_argument(
        "--norm",
        choices=["none", "lower", "meteor", "meteor-nopunct"],
        help="normalisation: none; lower = lowercase + whitespace tokens (the jar's -lower); "
        "meteor = the jar's -norm tokenisation; meteor-nopunct = -norm -noPunct",
    )


def config_from_args(args: argparse.Namespace) -> MeteorConfig:
    """The configuration named by --preset/--config with --lang/--norm applied; with
    neither --preset nor --config, the recommended one for --lang (meteorx.defaults)."""
    from meteorx.defaults import configure

    return configure(
        args.config or args.preset,
        language=args.lang,
        normalize=args.norm,
        hint="pass --lang (e.g. --lang pt)",
    )


def add_judgment_args(parser: argparse.ArgumentParser) -> None:
    """Systems' outputs, references and human judgments (``tune`` and ``correlate``)."""
    data = parser.add_argument_group("data")
    data.add_argument(
        "--hyp-dir",
        required=True,
        metavar="DIR",
        help="one file per system, named SYSTEM.<ext> (SYSTEM as in the judgments)",
    )
    data.add_argument("--hyp-glob", default="*", metavar="PATTERN", help="files to use ('*')")
    data.add_argument(
        "--ref",
        "-r",
        action="append",
        required=True,
        metavar="FILE",
        help="reference file; repeat for several references",
    )
    data.add_argument(
        "--human",
        metavar="FILE.tsv",
        help="segment judgments: TSV system, segment, score (a header may name the columns)",
    )
    data.add_argument(
        "--human-score-column",
        metavar="NAME",
        help="score column of --human (default: the first of score, raw, z, human)",
    )
    data.add_argument(
        "--segment-base",
        type=int,
        choices=[0, 1],
        help="numbering of --human segments (default 1; 0 when the column is *index*)",
    )
    data.add_argument(
        "--human-sys",
        metavar="FILE",
        help="system judgments: JSON {system: score or {z: …}} or TSV system, score "
        "(default: the mean of the segment judgments)",
    )
    data.add_argument("--human-sys-key", metavar="KEY", help="key in --human-sys objects ('z')")
    data.add_argument(
        "--lower-is-better",
        action="store_true",
        help="human scores are errors or edit rates (e.g. HTER): negate them",
    )
    data.add_argument(
        "--docs", metavar="FILE", help="document ids (kept whole when splitting or resampling)"
    )
    data.add_argument(
        "--segment-measure",
        choices=["darr", "pairwise", "acc-eq", "tau-b"],
        help="segment-level agreement: darr = WMT DARR Kendall tau (pairs of one segment's "
        "translations whose human scores differ by more than --darr-threshold); pairwise "
        "= the same over every pair the humans do not tie (MQM, error counts); acc-eq = "
        "WMT23's tie-calibrated pairwise accuracy; tau-b = Kendall tau-b over all "
        "translations. Default: tau-b for one system, darr when every human score is in "
        "0..100 (DA), else pairwise",
    )
    data.add_argument(
        "--darr-threshold",
        type=float,
        default=25.0,
        metavar="X",
        help="darr: minimum human score difference of a pair (default 25, as in WMT DA)",
    )


def judged_data_from_args(args: argparse.Namespace) -> tuple[Any, str]:
    """The data of :func:`add_judgment_args` (a :class:`meteorx.tune.TuningData`) and
    a description of the judgment columns used."""
    import math

    from meteorx import tune as T
    from meteorx.errors import InputError

    if not math.isfinite(args.darr_threshold) or args.darr_threshold < 0:
        raise InputError(f"--darr-threshold must be a number >= 0, got {args.darr_threshold}")
    human_seg: dict[tuple[str, int], float] = {}
    seg_what = ""
    if args.human:
        human_seg, seg_what = T.read_human_segments(
            args.human, args.human_score_column, args.segment_base, args.lower_is_better
        )
    human_sys = (
        T.read_human_systems(args.human_sys, args.human_sys_key, args.lower_is_better)
        if args.human_sys
        else None
    )
    data = T.load_tuning_data(
        args.hyp_dir, args.ref, human_seg, human_sys, args.docs, args.hyp_glob
    )
    return data, seg_what


def judgments_of(data: Any, measure: str | None, darr_threshold: float) -> tuple[Any, Any]:
    """The :class:`meteorx.metaeval.Judgments` of a TuningData and its segment measure
    (``measure`` or the default for the judgments; None without segment judgments)."""
    import numpy as np

    from meteorx import metaeval

    human = data.human_matrix()
    human_sys = None
    if data.human_sys is not None:
        human_sys = np.asarray([data.human_sys.get(s, np.nan) for s in data.systems])
    judgments = metaeval.Judgments(human, human_sys, data.units())
    if not data.human_seg:
        return judgments, None
    kind = measure or metaeval.default_segment_measure(human)
    return judgments, metaeval.segment_measure(kind, human, data.hyps, darr_threshold)


def add_input_args(parser: argparse.ArgumentParser, several_hyps: bool = True) -> None:
    """--hyp, --ref and the input-format options."""
    parser.add_argument(
        "--hyp",
        "-H",
        action="append",
        required=True,
        metavar="FILE",
        help="hypothesis file ('-' for stdin)"
        + ("; repeat for several systems (the first is the baseline)" if several_hyps else ""),
    )
    parser.add_argument(
        "--ref",
        "-r",
        action="append",
        default=[],
        metavar="FILE",
        help="reference file; repeat for several references (each segment keeps its best). "
        "Optional for tsv/jsonl input whose rows hold the references",
    )
    fmt = parser.add_argument_group("input format")
    fmt.add_argument(
        "--input-format",
        "-i",
        choices=["text", "tsv", "jsonl", "sgml"],
        default="text",
        help="text: one segment a line (default); tsv/jsonl: named columns; sgml: WMT SGML "
        "(<tstset>/<refset>, <doc sysid docid>, <seg id>) with per-document scores",
    )
    fmt.add_argument(
        "--hyp-column",
        action="append",
        metavar="NAME",
        help="tsv/jsonl: column holding hypotheses (default 'hyp'); repeat for several systems",
    )
    fmt.add_argument(
        "--ref-column",
        action="append",
        metavar="NAME",
        help="tsv/jsonl: column holding a reference (default 'ref'); repeat for several",
    )
    fmt.add_argument("--doc-column", metavar="NAME", help="tsv/jsonl: document id column")
    fmt.add_argument("--id-column", metavar="NAME", help="tsv/jsonl: segment id column")
    add_max_chars_arg(parser)


def add_max_chars_arg(parser: argparse.ArgumentParser) -> None:
    """--max-segment-chars: the bound on one segment's length (meteorx.inputs)."""
    from meteorx.inputs import MAX_SEGMENT_CHARS

    parser.add_argument(
        "--max-segment-chars",
        type=non_negative_int,
        default=MAX_SEGMENT_CHARS,
        metavar="N",
        help=f"refuse a segment longer than N characters (default {MAX_SEGMENT_CHARS:,}; "
        "0 = no limit): alignment time and memory grow faster than length",
    )


def add_run_args(parser: argparse.ArgumentParser) -> None:
    """--jobs, --quiet and --verbose."""
    parser.add_argument(
        "--jobs",
        "-j",
        type=non_negative_int,
        default=1,
        metavar="N",
        help="score in N processes (identical results; 0 = one per CPU); default 1",
    )
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress bar (it is shown on stderr only when stderr is a terminal and "
        "the run takes more than a couple of seconds)",
    )
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="say on stderr which configuration, stages and engine (compiled or pure Python) run",
    )


def report_setup(scorer: Any) -> None:
    """The ``--verbose`` lines: what runs, on stderr (never mixed with the scores)."""
    from meteorx import engine

    cfg = scorer.config
    stages = ", ".join(f"{s.stage_name} {s.weight:g}" for s in cfg.stages)
    if cfg.soft_credit is not None:
        soft = cfg.soft_credit
        stages += f"; soft credit {soft.weight:g} (cutoff {soft.cutoff:g})"
    if cfg.units != "words":
        stages += f"; precision and recall over {cfg.units}"
    print(f"meteorx: configuration: {cfg.name} ({cfg.language}); stages: {stages}", file=sys.stderr)
    print(f"meteorx: {engine.describe()}", file=sys.stderr)


def add_significance_args(parser: argparse.ArgumentParser) -> None:
    """--confidence, --paired-bs, --paired-ar and their sample sizes and seed."""
    group = parser.add_argument_group(
        "significance (resampling stored statistics; see meteorx/significance.py)"
    )
    group.add_argument(
        "--confidence",
        action="store_true",
        help="95%% bootstrap confidence interval of each system score",
    )
    paired = group.add_mutually_exclusive_group()
    paired.add_argument(
        "--paired-bs",
        action="store_true",
        help="paired bootstrap resampling: every system against the first (baseline)",
    )
    paired.add_argument(
        "--paired-ar",
        action="store_true",
        help="paired approximate randomisation: every system against the first (baseline)",
    )
    group.add_argument(
        "--n-bootstrap",
        type=resample_count,
        default=1000,
        metavar="N",
        help="bootstrap resamples for --confidence and --paired-bs "
        f"(default 1000, at most {MAX_RESAMPLES:,})",
    )
    group.add_argument(
        "--ar-trials",
        type=resample_count,
        default=10000,
        metavar="N",
        help=f"trials for --paired-ar (default 10000, at most {MAX_RESAMPLES:,})",
    )
    add_seed_arg(group)


#: The most bootstrap resamples or randomisation trials a run may ask for: memory and
#: time grow with them (a trillion trials would allocate terabytes), and p-values do
#: not need more.
MAX_RESAMPLES = 1_000_000
#: Random seeds are what NumPy's generators take: 0 <= seed < 2**32.
MAX_SEED = 2**32 - 1


def resample_count(text: str) -> int:
    """--n-bootstrap, --ar-trials, --samples: 1..MAX_RESAMPLES."""
    value = positive_int(text)
    if value > MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_RESAMPLES:,}, got {value:,}")
    return value


def seed_number(text: str) -> int:
    """--seed: 0..MAX_SEED, checked here rather than by NumPy in the middle of a run."""
    value = non_negative_int(text)
    if value > MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be 0..{MAX_SEED}, got {value}")
    return value


def add_seed_arg(parser: Any) -> None:
    """--seed (``score``, ``combine``, ``report``, ``correlate``, ``tune``)."""
    parser.add_argument(
        "--seed",
        type=seed_number,
        default=12345,
        metavar="N",
        help=f"random seed, 0..{MAX_SEED} (default 12345)",
    )


def add_output_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", "-f", choices=["text", "json", "tsv"], default="text", help="output format"
    )
    parser.add_argument(
        "--system-only", action="store_true", help="print only system scores, not segments"
    )
    parser.add_argument(
        "--precision",
        type=_precision,
        default=6,
        metavar="N",
        help=f"decimals in text/tsv output (0..{MAX_PRECISION}; default 6)",
    )


#: A double has 17 significant digits: more decimals print noise.
MAX_PRECISION = 17


def _precision(text: str) -> int:
    value = non_negative_int(text)
    if value > MAX_PRECISION:
        raise argparse.ArgumentTypeError(f"must be 0..{MAX_PRECISION}, got {value}")
    return value


def non_negative_int(text: str) -> int:
    return _whole_number(text, 0, "must be 0 or more")


def positive_int(text: str) -> int:
    return _whole_number(text, 1, "must be at least 1")


def _whole_number(text: str, minimum: int, wording: str) -> int:
    """``text`` as an int of at least ``minimum``; else argparse's error, ``wording``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{wording}, got {value}")
    return value


# -- output files and standard output ---------------------------------------------------


def check_writable(*paths: str | None) -> None:
    """Fail before any work if an output file cannot be created: its folder must exist
    and be writable, and an existing path must be a writable file. ``None`` and ``-``
    (standard output) are skipped."""
    from meteorx.errors import OutputError

    for path in paths:
        if path is None or path == "-":
            continue
        folder = os.path.dirname(path) or "."
        if os.path.isdir(path):
            raise OutputError(f"cannot write {path}: it is a directory")
        if not os.path.isdir(folder):
            raise OutputError(f"cannot write {path}: no folder {folder}")
        if os.path.exists(path):
            if not os.access(path, os.W_OK):
                raise OutputError(f"cannot write {path}: permission denied")
        elif not os.access(folder, os.W_OK):
            raise OutputError(f"cannot write {path}: the folder {folder} is not writable")


class ClosedStdout(io.TextIOBase):
    """Stands in for ``sys.stdout`` when the process started with standard output
    closed: the first write fails like a write to a closed descriptor would."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


class SafeStderr(io.TextIOBase):
    """Stands in for ``sys.stderr`` during a command: messages are a courtesy, so a
    standard error that is closed (``2>&-``: ``None``), a closed pipe or a bad
    descriptor never changes the run. The first failed write points descriptor 2 at
    the null device (nothing left buffered can fail at exit) and later ones are dropped.
    """

    def __init__(self, target: Any) -> None:
        super().__init__()
        self._target = target

    def write(self, text: str) -> int:
        if self._target is not None:
            try:
                self._target.write(text)
            except (OSError, ValueError):
                self._drop()
        return len(text)

    def flush(self) -> None:
        if self._target is not None:
            try:
                self._target.flush()
            except (OSError, ValueError):
                self._drop()

    def isatty(self) -> bool:
        try:
            return self._target is not None and bool(self._target.isatty())
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self._target is None:
            raise io.UnsupportedOperation("standard error is closed")
        return int(self._target.fileno())

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self._target, "encoding", None) or "utf-8")

    def _drop(self) -> None:
        with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._target.fileno())
            os.close(null)
        self._target = None


@contextlib.contextmanager
def standard_streams() -> Iterator[None]:
    """Standard output and error as a command needs them, for its duration.

    Standard output is UTF-8, whatever the locale or ``PYTHONIOENCODING`` say: inputs
    are UTF-8 and outputs are read by programs (a character the text cannot hold,
    such as an undecodable file name, is written as a backslash escape). Standard
    error is a :class:`SafeStderr`. Standard output closed at start-up is a
    :class:`ClosedStdout` (its first write is the error).
    """
    if sys.stdout is None:
        sys.stdout = ClosedStdout()
    elif isinstance(sys.stdout, io.TextIOWrapper):
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.reconfigure(encoding="utf-8", errors="backslashreplace")
    original = sys.stderr
    sys.stderr = SafeStderr(original)
    try:
        yield
    finally:
        sys.stderr = original


#: Errors a write to standard output gives (closed pipe, full disk, closed or bad fd).
_STDOUT_ERRNOS = {errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EBADF, errno.EDQUOT, errno.EFBIG}


def is_stdout_failure(error: OSError) -> bool:
    """Whether ``error`` is a failed write to standard output (files opened by meteorx
    report their own failures with the file's name, as :class:`OutputError`)."""
    return error.errno in _STDOUT_ERRNOS and error.filename is None


def stdout_failed(error: OSError) -> int:
    """Report a failed write to standard output; the exit code to return.

    A closed pipe (``meteorx score ... | head``) is the reader's choice: exit 0
    silently. Anything else (disk full, closed descriptor) is one line on stderr and
    exit 2. Standard output is then pointed at the null device, so that the
    interpreter's final flush cannot print a traceback.
    """
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass
    if error.errno == errno.EPIPE:
        return 0
    if sys.stderr is not None:
        with contextlib.suppress(OSError):
            print(
                f"meteorx: error: cannot write to standard output: {error.strerror or error}",
                file=sys.stderr,
            )
    return 2
