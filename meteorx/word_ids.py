"""One thread's word ids and key tables: what the compiled key-stage pass reads.

The key stages (:class:`~meteorx.matchers.KeyMatcher`) of a segment are linked in one
compiled pass over word ids (``meteorx._links_and_counts.key_candidates``). Each word
gets an id once, and each key stage records that word's key ids in its table. Threads
sharing a pipeline each keep their own (:meth:`meteorx.pipeline.Pipeline._run`).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from meteorx.matchers import KeyMatcher, Matcher

#: The word-id tables are rebuilt past this many distinct words.
MAX_WORDS = 500_000


class KeyStageError(Exception):
    """A key stage's ``keys``/``single_keys`` raised (the cause) on a batch of words."""

    def __init__(self, stage: int) -> None:
        super().__init__(stage)
        self.stage = stage


class WordIds:
    """Word ids, each key stage's table and the prepared references of one thread.
    The key tables and the prepared references hold word ids, so they go together:
    forgetting the words forgets them all."""

    __slots__ = ("_fw", "function_word", "key_stages", "ref_cache", "tables", "words")

    def __init__(
        self,
        links_and_counts: ModuleType | None,
        matchers: list[Matcher],
        plans: list[Any] | None,
        function_words: frozenset[str],
    ) -> None:
        plans = plans or [None] * len(matchers)
        self.words: dict[str, int] = {}
        self.function_word = bytearray()  # by word id: 1 for a function word
        #: by stage: its KeyTable (word id -> key ids), or None
        self.tables: list[Any] = [
            links_and_counts.KeyTable() if plan and links_and_counts is not None else None
            for plan in plans
        ]
        #: (stage, table, matcher, key -> key id) of each key stage
        self.key_stages: list[tuple[int, Any, KeyMatcher, dict[Any, int]]] = [
            (stage, table, matcher, {})
            for stage, (table, matcher) in enumerate(zip(self.tables, matchers, strict=True))
            if table is not None and isinstance(matcher, KeyMatcher)
        ]
        self.ref_cache: dict[tuple[str, ...], list[Any]] = {}
        self._fw = function_words

    def add(self, new: list[str]) -> None:
        """Give new (distinct) words ids and record their keys in every key stage;
        :class:`KeyStageError` (caused by the matcher's error) if a stage's keys fail,
        after which these tables must be dropped (they may hold part of the batch)."""
        words = self.words
        for word in new:
            words[word] = len(words)
        fw = self._fw
        self.function_word.extend([word.lower() in fw for word in new])
        for stage, table, matcher, key_ids in self.key_stages:
            try:
                single = matcher.single_keys(new)
                if single is not None:
                    if len(single) != len(new):
                        raise ValueError(
                            f"single_keys gave {len(single)} keys for {len(new)} words"
                        )
                    table.add_single([key_ids.setdefault(key, len(key_ids)) for key in single])
                    continue
                # = table.add(sorted({key_ids.setdefault(k, len(key_ids)) for k in keys}))
                # for each word's keys, in one call
                table.add_keysets(list(map(matcher.keys, new)), key_ids)
            except Exception as error:
                raise KeyStageError(stage) from error
