"""NLTK's own WordNet reader on meteorx's WordNet, without ``nltk.download``.

:func:`build_nltk_data` turns a plain WordNet folder into an NLTK data folder (it adds
the ``lexnames`` file NLTK needs) under the user cache directory and registers it in
``nltk.data.path``, so NLTK itself can run offline; the tests and benchmarks use it to
compare against the real NLTK.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

from meteorx_plugins.wordnet.locate import DATA_FILES, EXCEPTION_FILES, INDEX_FILES, WordNetFiles
from meteorx_plugins.wordnet.locate import find_wordnet as _find

__all__ = ["build_nltk_data", "nltk_wordnet_reader"]

#: The 45 lexicographer files of WordNet 3.0 (lexnames(5WN)): name and POS number.
_LEXNAMES = (
    ("adj.all", 3), ("adj.pert", 3), ("adv.all", 4), ("noun.Tops", 1), ("noun.act", 1),
    ("noun.animal", 1), ("noun.artifact", 1), ("noun.attribute", 1), ("noun.body", 1),
    ("noun.cognition", 1), ("noun.communication", 1), ("noun.event", 1),
    ("noun.feeling", 1), ("noun.food", 1), ("noun.group", 1), ("noun.location", 1),
    ("noun.motive", 1), ("noun.object", 1), ("noun.person", 1), ("noun.phenomenon", 1),
    ("noun.plant", 1), ("noun.possession", 1), ("noun.process", 1), ("noun.quantity", 1),
    ("noun.relation", 1), ("noun.shape", 1), ("noun.state", 1), ("noun.substance", 1),
    ("noun.time", 1), ("verb.body", 2), ("verb.change", 2), ("verb.cognition", 2),
    ("verb.communication", 2), ("verb.competition", 2), ("verb.consumption", 2),
    ("verb.contact", 2), ("verb.creation", 2), ("verb.emotion", 2), ("verb.motion", 2),
    ("verb.perception", 2), ("verb.possession", 2), ("verb.social", 2),
    ("verb.stative", 2), ("verb.weather", 2), ("adj.ppl", 3),
)  # fmt: skip


#: Files the synonym relation needs.
_REQUIRED = INDEX_FILES + DATA_FILES + EXCEPTION_FILES
#: Further files NLTK's own reader opens (copied into an NLTK data folder when present).
_OPTIONAL = ("index.sense", "cntlist.rev", "cntlist", "lexnames")


def _cache_root() -> Path:
    """The meteorx cache folder, if it is usable and safe (see :func:`meteorx.cache.cache_dir`;
    NLTK may load pickles from its data folders), else a new private temporary folder."""
    from meteorx.cache import cache_dir

    root = cache_dir()
    if root is None:
        root = Path(tempfile.mkdtemp(prefix="meteorx-nltk-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def build_nltk_data(
    wordnet_dir: str | os.PathLike[str] | None = None,
    target: str | os.PathLike[str] | None = None,
    *,
    prepend: bool = False,
) -> Path:
    """An NLTK data folder holding ``corpora/wordnet``, registered in ``nltk.data.path``.

    Copies the files of the WordNet the search order finds
    (:mod:`meteorx_plugins.wordnet.locate`; NLTK refuses symbolic links that leave its
    data folders) into ``target`` (default
    ``<user cache>/meteorx/nltk_data``, or ``$METEORX_CACHE_DIR/nltk_data``) and writes
    the ``lexnames`` file NLTK's reader requires. Rebuilt only when the source changes.
    Returns the data folder; afterwards ``nltk.corpus.wordnet`` works without
    ``nltk.download`` (``prepend=True`` puts the folder first, so it wins over any
    other WordNet NLTK would find).
    """
    import nltk

    source = WordNetFiles.of(_find(wordnet_dir, data=True, explicit_origin="wordnet_dir"))
    root = Path(target) if target is not None else _cache_root() / "nltk_data"
    corpus = root / "corpora" / "wordnet"
    names = [n for n in (*_REQUIRED, *_OPTIONAL) if n == "lexnames" or source.has(n)]
    stamp = f"{source}\n" + "\n".join(f"{n} {source.size(n)}" for n in names if n != "lexnames")
    stamp_file = corpus / ".meteorx-source"
    if not (stamp_file.is_file() and stamp_file.read_text(encoding="utf-8") == stamp):
        corpus.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=corpus.parent))
        for name in names:
            if name != "lexnames":
                (staging / name).write_bytes(source.read(name))
        if not (staging / "lexnames").exists():
            (staging / "lexnames").write_text(
                "".join(f"{i:02d}\t{n}\t{p}\n" for i, (n, p) in enumerate(_LEXNAMES)),
                encoding="ascii",
            )
        (staging / ".meteorx-source").write_text(stamp, encoding="utf-8")
        staging.chmod(0o755)
        if corpus.exists():
            shutil.rmtree(corpus)
        staging.rename(corpus)
    entry = str(root)
    if prepend:
        if entry in nltk.data.path:
            nltk.data.path.remove(entry)
        nltk.data.path.insert(0, entry)
    elif entry not in nltk.data.path:
        nltk.data.path.append(entry)
    return root


def nltk_wordnet_reader(wordnet_dir: str | os.PathLike[str] | None = None) -> Any:
    """NLTK's own ``WordNetCorpusReader`` on the same files (slow to load: seconds)."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    root = build_nltk_data(wordnet_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available"
        return WordNetCorpusReader(str(root / "corpora" / "wordnet"), None)
