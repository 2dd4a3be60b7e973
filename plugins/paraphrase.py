"""First-party plugin `paraphrase`: the ``paraphrase`` matcher (Meteor paraphrase tables).

Links a phrase of one sentence to a phrase of the other when a paraphrase table lists
them as a pair; a link can cover several words on each side ("the united states" ~
"the us"). It reproduces Meteor 1.5's ``ParaphraseMatcher``:

1. for every reference position, every table phrase starting there (shortest first),
   every paraphrase of it in table order, every hypothesis position where that
   paraphrase occurs (left to right): a candidate;
2. then the same from the hypothesis side: every hypothesis position, every phrase
   starting there, every paraphrase, every reference position where it occurs.

The rules are used in both directions, so a pair listed both ways is proposed twice
(the jar does the same; it matters for its search). Nothing is skipped because an
earlier stage already links the same words, and the table's probabilities are ignored
(Meteor 1.5 ignores them too). Candidates are emitted grouped by reference position
and, within one, in the jar's order (all of step 1, then step 2), which its beam
search's tie-breaking depends on.

Resource: a table in Meteor's format (see :mod:`meteorx.paraphrase_table`), looked up
in this order: the stage option ``path:``; ``$METEORX_PARAPHRASE_<LANG>`` (ISO code in
capitals, e.g. ``METEORX_PARAPHRASE_EN``); ``$METEORX_PARAPHRASE_DIR/paraphrase-<lang>.gz``
(Meteor's file names: ``en``, ``cz``, ``de``, ``es``, ``fr``, ...); the English table
bundled with the PyPI package ``pycocoevalcap`` (``pycocoevalcap/meteor/data/``). It
is compiled once into the user cache folder (:mod:`meteorx.paraphrase_table`; about
10 s of CPU for the English table on a small machine), and later runs open the
compiled file in milliseconds. The signature names the table by its SHA-256.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib.util import find_spec
from operator import itemgetter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.matchers import Matcher
from meteorx.paraphrase_table import ParaphraseTable, load_table
from meteorx.resources import Located, locate, short_checksum
from meteorx.types import Span

__all__ = [
    "DIR_ENV",
    "ParaphraseMatcher",
    "ParaphraseOptions",
    "find_paraphrase_table",
    "language_env_var",
]

#: Environment variable naming a folder of ``paraphrase-<lang>.gz`` tables.
DIR_ENV = "METEORX_PARAPHRASE_DIR"

#: Meteor 1.5's file-name codes where they differ from ISO 639-1.
_METEOR_CODES = {"cs": "cz", "sv": "se"}


def language_env_var(language: Language) -> str:
    """The per-language variable naming a table file, e.g. ``METEORX_PARAPHRASE_EN``."""
    return f"METEORX_PARAPHRASE_{language.code.upper().replace('-', '_')}"


def _file_names(language: Language) -> list[str]:
    codes = [language.code]
    meteor = _METEOR_CODES.get(language.code)
    if meteor:
        codes.append(meteor)
    return [f"paraphrase-{code}.gz" for code in codes]


def _pycocoevalcap_data() -> Path | None:
    """``pycocoevalcap/meteor/data`` if the package is installed (it is a namespace
    package, so its location comes from ``submodule_search_locations``)."""
    try:
        spec = find_spec("pycocoevalcap")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        folder = Path(root) / "meteor" / "data"
        if folder.is_dir():
            return folder
    return None


def _search_list(language: Language) -> Iterator[tuple[Path, str]]:
    folder = os.environ.get(DIR_ENV, "")
    if folder:
        for name in _file_names(language):
            yield Path(folder).expanduser() / name, f"${DIR_ENV}"
    data = _pycocoevalcap_data()
    if data is not None:
        for name in _file_names(language):
            yield data / name, "pycocoevalcap"


def _check(path: Path) -> str | None:
    if not path.exists():
        return "does not exist"
    if not path.is_file():
        return "is not a file"
    if not os.access(path, os.R_OK):
        return "is not readable"
    return None


def _hint(language: Language) -> str:
    english = (
        "'pip install pycocoevalcap' (it bundles the English table), or "
        if (language.code == "en")
        else ""
    )
    return (
        f"install {english}set the stage option 'path:' or ${language_env_var(language)} "
        f"to a Meteor-format paraphrase table (paraphrase-{language.code}.gz)"
    )


def find_paraphrase_table(language: Language, path: str | None = None) -> Located:
    """Locate the table: ``path`` > ``$METEORX_PARAPHRASE_<LANG>`` >
    ``$METEORX_PARAPHRASE_DIR`` > pycocoevalcap's bundled table.

    :raises ResourceError: nothing usable found (one line saying how to get a table).
    """
    return locate(
        f"{language.name} paraphrase table",
        check=_check,
        explicit=path,
        env_var=language_env_var(language),
        search=_search_list(language),
        hint=_hint(language),
    )


class ParaphraseOptions(BaseModel):
    """Options of the ``paraphrase`` matcher."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str | None = Field(
        None,
        description="paraphrase table in Meteor's format (gzip text: probability / phrase "
        "/ paraphrase lines); default: $METEORX_PARAPHRASE_<LANG>, "
        "$METEORX_PARAPHRASE_DIR/paraphrase-<lang>.gz, then pycocoevalcap's table",
    )


class _Sentence:
    """A sentence prepared for the paraphrase matcher.

    ``phrases``: the table phrases found in it as ``(start, words, paraphrases in table
    order, the same as a set)``, by start then length; ``reach_len``: the most words in
    one of their paraphrases; :meth:`ngrams`: its own n-grams.
    """

    __slots__ = ("_grams", "_grams_len", "_starts", "phrases", "reach_len", "tokens")

    def __init__(
        self,
        tokens: tuple[str, ...],
        phrases: list[tuple[int, int, tuple[str, ...], frozenset[str]]],
        reach_len: int,
    ) -> None:
        self.tokens = tokens
        self.phrases = phrases
        self.reach_len = reach_len
        self._grams: set[str] = set()
        self._grams_len = 0
        self._starts: tuple[str, dict[int, int]] | None = None

    def ngrams(self, length: int) -> set[str]:
        """Its n-grams of up to ``length`` words, as space-joined text (built on demand)."""
        if length > self._grams_len:
            tokens = self.tokens
            grams = self._grams
            if self._grams_len == 0:
                grams.update(tokens)
                self._grams_len = 1
            for size in range(self._grams_len + 1, min(length, len(tokens)) + 1):
                grams.update(map(" ".join, zip(*[tokens[i:] for i in range(size)], strict=False)))
            self._grams_len = max(length, self._grams_len)
        return self._grams

    def find(self, gram: str) -> list[int]:
        """Token positions where the n-gram ``gram`` starts, ascending."""
        located = self._starts
        if located is None:
            starts: dict[int, int] = {}
            at = 0
            for k, token in enumerate(self.tokens):
                starts[at] = k
                at += len(token) + 1
            located = self._starts = (f" {' '.join(self.tokens)} ", starts)
        text, starts = located
        gram = f" {gram} "
        found = []
        at = text.find(gram)
        while at >= 0:
            found.append(starts[at])
            at = text.find(gram, at + 1)
        return found


def _in_order(
    targets: tuple[str, ...], target_set: frozenset[str], grams: set[str]
) -> Iterable[str]:
    """The paraphrases of one phrase that are among ``grams``, in table order (a pair
    listed twice counts twice, as in Meteor 1.5)."""
    found = target_set.intersection(grams)
    if len(targets) != len(target_set):
        return [target for target in targets if target in found]
    if len(found) > 1:
        return sorted(found, key=targets.index)
    return found


def _safe(token: str) -> str:
    # A token with a space (or an empty one) can match no word of the table; keep it
    # from gluing onto its neighbours in the joined text.
    return token if token and " " not in token else "\x00"


class ParaphraseMatcher(Matcher):
    """Links phrases that a paraphrase table lists as paraphrases (Meteor 1.5's module)."""

    name = "paraphrase"
    version = "1"
    Options = ParaphraseOptions

    def __init__(self, options: BaseModel, language: Language) -> None:
        super().__init__(options, language)
        assert isinstance(options, ParaphraseOptions)
        self.located = find_paraphrase_table(language, options.path)
        self.table: ParaphraseTable = load_table(self.located.path)

    def prepare(self, tokens: Sequence[str]) -> _Sentence:
        words = tuple(tokens)
        for token in words:
            if not token or " " in token:
                words = tuple(map(_safe, words))
                break
        table = self.table
        groups = table.groups
        phrases = []
        reach_len = 0
        for start, length, value in table.occurrences(words):
            targets, target_set, most = groups.get(value) or table.group(value)
            phrases.append((start, length, targets, target_set))
            if most > reach_len:
                reach_len = most
        return _Sentence(words, phrases, reach_len)

    def candidates(self, hyp: Any, ref: Any) -> list[Span]:
        spans: list[Span] = []
        # 1. phrases of the reference, their paraphrases found in the hypothesis
        if ref.phrases:
            grams = hyp.ngrams(ref.reach_len)
            for k, length, targets, target_set in ref.phrases:
                if target_set.isdisjoint(grams):
                    continue
                for target in _in_order(targets, target_set, grams):
                    size = target.count(" ") + 1
                    for m in hyp.find(target):
                        spans.append(Span(m, size, k, length))
        # 2. phrases of the hypothesis, their paraphrases found in the reference
        if hyp.phrases:
            grams = ref.ngrams(hyp.reach_len)
            second: list[Span] = []
            for m, length, targets, target_set in hyp.phrases:
                if target_set.isdisjoint(grams):
                    continue
                for target in _in_order(targets, target_set, grams):
                    size = target.count(" ") + 1
                    for k in ref.find(target):
                        second.append(Span(m, length, k, size))
            if second:
                spans.extend(second)
                spans.sort(key=itemgetter(2))  # stable: step 1 first at each position
        return spans

    def describe(self) -> str:
        return f"{self.name}.v{self.version}(sha256:{short_checksum(self.table.sha256)})"

    def resources(self) -> dict[str, str]:
        out = {"paraphrase table": str(self.located)}
        if self.table.cache_path is not None:
            state = "loaded" if self.table.from_cache else "written"
            out["paraphrase cache"] = f"{self.table.cache_path} ({state})"
        return out


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(ParaphraseMatcher)
