"""Random damage to every kind of cache file: the scores never change.

For each kind of compiled-resource cache (WordNet, simplemma's lemma table, an OMW
index, a paraphrase table) the script compiles the resource into an empty cache
folder, scores a test set (the uncorrupted scores), then runs ``--rounds`` rounds.
Each round damages the cache file in one of four ways, chosen in turn:

* ``flip``: 1-8 random bits anywhere in the file;
* ``flip-ends``: 1-8 random bits in its first or last 4 KiB (digest and header);
* ``truncate``: cut to a random length;
* ``garbage``: random bytes of a random length appended or written over a range,

then loads the resource as a new run does (the process's loaded copy is dropped) and
scores the set again. Outcomes: ``same`` (every segment and system score identical
to the uncorrupted ones), ``error`` (a one-line meteorx error), or a failure:
``different`` scores, a ``crash`` (any other exception), or a cache file that does not
verify after the round (``not rebuilt``). Also counted: rounds that gave exactly one
cache warning.

    nice -n 10 python benchmarks/cache_corruption.py [--rounds 100] [--kinds wordnet,...]
        [--segments 400] [--seed 1] [--data ../shared/data]

Needs the shared data folder (``meteor15-examples``, ``pt/ntrex128_en-pt_two_refs``,
``omw/por``), WordNet and pycocoevalcap's English paraphrase table; a kind whose
resources are missing is skipped with the reason. Exit code 1 if any round failed.
"""

from __future__ import annotations

import argparse
import os
import random
import struct
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
WAYS = ("flip", "flip-ends", "truncate", "garbage")


@dataclass(frozen=True)
class Kind:
    """One kind of cache: its folder, a configuration using it, the test set, and how
    to forget the process's loaded copy (as a new process would not have it)."""

    name: str
    folder: str  # the cache's subfolder name
    config: dict[str, Any]
    hyps: str  # file names under the data folder
    refs: str
    forget: Callable[[], None]


def _forget_wordnet() -> None:
    from meteorx_plugins.wordnet import reader

    reader._LOADED.clear()


def _forget_lemma() -> None:
    from meteorx_plugins import lemma

    lemma._FACTORY._tables.clear()
    lemma.lemmatizer.cache_clear()


def _forget_omw() -> None:
    from meteorx_plugins import omw

    omw.load_index.cache_clear()


def _forget_paraphrase() -> None:
    from meteorx_plugins.paraphrase.table import clear_loaded

    clear_loaded()


def kinds(data: Path) -> list[Kind]:
    xray = "meteor15-examples/xray"
    pt = "pt/ntrex128_en-pt_two_refs"
    english = {"language": "en", "normalize": "lower"}
    return [
        Kind(
            "wordnet",
            "wordnet-v3",
            {**english, "stages": [{"matcher": "exact"}, {"matcher": "synonym"}]},
            f"{xray}.system1.hyp",
            f"{xray}.reference",
            _forget_wordnet,
        ),
        Kind(
            "lemma",
            "simplemma-flat-v2",
            {"language": "pt", "stages": [{"matcher": "exact"}, {"matcher": "lemma"}]},
            f"{pt}/ref.pt-PT.txt",
            f"{pt}/ref.pt-BR.txt",
            _forget_lemma,
        ),
        Kind(
            "omw",
            "omw-index-v3",
            {
                "language": "pt",
                "stages": [
                    {"matcher": "exact"},
                    {"matcher": "synonym-omw", "path": str(data / "omw" / "por")},
                ],
            },
            f"{pt}/ref.pt-PT.txt",
            f"{pt}/ref.pt-BR.txt",
            _forget_omw,
        ),
        Kind(
            "paraphrase",
            "paraphrase-v4",
            {**english, "stages": [{"matcher": "exact"}, {"matcher": "paraphrase"}]},
            f"{xray}.system1.hyp",
            f"{xray}.reference",
            _forget_paraphrase,
        ),
    ]


def _lines(path: Path, n: int) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return handle.read().split("\n")[:n]


def _scores(kind: Kind, hyps: list[str], refs: list[str]) -> tuple[float, ...]:
    from meteorx.metric import Scorer

    kind.forget()
    result = Scorer(kind.config).corpus(hyps, refs)
    return (result.score, *(segment.score for segment in result.segments))


def damage(path: Path, how: str, rng: random.Random) -> str:
    """Damage ``path`` in place (``how``: see the module docstring); says what was done."""
    data = bytearray(path.read_bytes())
    size = len(data)
    if how in {"flip", "flip-ends"}:
        spots = []
        for _ in range(rng.randint(1, 8)):
            if how == "flip":
                at = rng.randrange(size)
            else:
                edge = min(4096, size)
                at = rng.randrange(edge) if rng.random() < 0.5 else size - 1 - rng.randrange(edge)
            data[at] ^= 1 << rng.randrange(8)
            spots.append(at)
        done = f"{how} at {sorted(spots)}"
    elif how == "truncate":
        cut = rng.randrange(size)
        del data[cut:]
        done = f"truncate to {cut} of {size}"
    else:
        junk = rng.randbytes(rng.randint(1, 64))
        if rng.random() < 0.5:
            data += junk
            done = f"append {len(junk)} bytes"
        else:
            at = rng.randrange(size)
            data[at : at + len(junk)] = junk
            done = f"overwrite {len(junk)} bytes at {at}"
    with open(path, "r+b") as handle:  # in place, as a disk or another process would
        handle.write(data)
        handle.truncate(len(data))
    return done


def verifies(path: Path) -> bool:
    """Whether ``path`` is a complete, verified cache file (of the kind and source its
    own header names)."""
    import json

    from meteorx.cache import CacheError, parse

    try:
        data = path.read_bytes()
        (length,) = struct.unpack_from("<Q", data, len(data) - 8)
        header = json.loads(data[len(data) - 8 - length : len(data) - 8])
        parse(data, header["kind"], header["source"])
    except (OSError, ValueError, KeyError, struct.error, CacheError):
        return False
    return True


def run_kind(
    kind: Kind, data: Path, rounds: int, segments: int, rng: random.Random
) -> tuple[Counter[str], str]:
    from meteorx.cache import CacheWarning
    from meteorx.cache import store as cache_store
    from meteorx.errors import MeteorxError

    outcomes: Counter[str] = Counter()
    hyps = _lines(data / kind.hyps, segments)
    refs = _lines(data / kind.refs, segments)
    try:
        baseline = _scores(kind, hyps, refs)
    except MeteorxError as error:
        return outcomes, f"skipped: {error}"
    files = sorted((Path(os.environ["METEORX_CACHE_DIR"]) / kind.folder).glob("*.mxc"))
    if len(files) != 1:
        return outcomes, f"skipped: expected one cache file, found {len(files)}"
    target = files[0]
    for number in range(rounds):
        how = WAYS[number % len(WAYS)]
        done = damage(target, how, rng)
        cache_store._WARNED.clear()  # a new process would warn again
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                scores = _scores(kind, hyps, refs)
            except MeteorxError as error:
                outcome = "error" if "\n" not in str(error) else "crash"
            except Exception as error:  # counted and shown
                outcome = "crash"
                print(f"  round {number}: {done}: {type(error).__name__}: {error}")
            else:
                outcome = "same" if scores == baseline else "different"
        outcomes[outcome] += 1
        outcomes[how] += 1
        cache_warnings = [w for w in caught if issubclass(w.category, CacheWarning)]
        if len(cache_warnings) == 1:
            outcomes["one warning"] += 1
        if not verifies(target):
            outcomes["not rebuilt"] += 1
        if outcome == "different":
            print(f"  round {number}: {done}: DIFFERENT SCORES")
    return outcomes, f"{len(hyps)} segments, system score {baseline[0]:.6f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--kinds", default="wordnet,lemma,omw,paraphrase")
    parser.add_argument("--segments", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--data", default=os.environ.get("METEORX_DATA", str(REPO.parent / "shared" / "data"))
    )
    args = parser.parse_args()
    data = Path(args.data)
    rng = random.Random(args.seed)
    failed = False
    with tempfile.TemporaryDirectory(prefix="meteorx-cache-") as folder:
        os.environ["METEORX_CACHE_DIR"] = folder
        wanted = args.kinds.split(",")
        for kind in (k for k in kinds(data) if k.name in wanted):
            started = time.perf_counter()
            outcomes, about = run_kind(kind, data, args.rounds, args.segments, rng)
            seconds = time.perf_counter() - started
            bad = outcomes["different"] + outcomes["crash"] + outcomes["not rebuilt"]
            failed = failed or bad > 0
            counts = " ".join(
                f"{name}={outcomes[name]}"
                for name in ("same", "error", "different", "crash", "not rebuilt", "one warning")
            )
            ways = " ".join(
                f"{w}={outcomes[w]}" for w in ("flip", "flip-ends", "truncate", "garbage")
            )
            print(f"{kind.name:10s} {counts}  ({ways}; {about}; {seconds:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
