"""Alignment searches: turn all stages' candidate matches into one alignment.

:class:`Aligner` is what every aligner provides, built in or from a plugin; the scorer,
the signature and tuning read an aligner only through it (never by its name).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel

from meteorx.matchers import Matcher, NoOptions
from meteorx.types import Alignment, Match

#: ``align_prepared(matchers, hyp_prepared, ref_prepared, hyp_len, ref_len)``.
PreparedAlign = Callable[
    [Sequence[Matcher], Sequence[Any], Sequence[Any], int, int], Alignment | None
]


class Aligner(Protocol):
    """An alignment search: every stage's candidate links -> one alignment.

    A plugin registers the class (``meteorx_register_aligners``); the scorer builds it
    as ``cls(options)``, with the configuration's ``aligner:`` keys (other than
    ``name``) validated by ``cls.Options``. meteorx's own aligners subclass this
    Protocol and inherit the defaults below; a plugin's aligner may too, or provide every
    member itself. ``align`` and ``describe`` have no default.
    """

    #: Its options model (pydantic, ``extra="forbid"``, so a misspelt key is an error).
    Options: ClassVar[type[BaseModel]] = NoOptions
    #: Whether the stage weights can change the alignment it chooses. When they cannot,
    #: tuning aligns each segment once for all the weights it tries.
    uses_weights: ClassVar[bool] = True
    #: Whether a hypothesis identical to its reference is aligned with the first
    #: stage's candidates only (Meteor 1.5 does so; it can change the chunk count).
    identical_first_stage_only: ClassVar[bool] = False
    #: A shortcut, or ``None``: the alignment straight from the matchers' prepared
    #: forms, skipping the candidate list; it returns ``None`` to take the general path
    #: (the candidates and :meth:`align`). A scorer with a shortcut does not run its
    #: compiled pass over the key stages (the shortcut replaces it).
    align_prepared: PreparedAlign | None = None

    def __init__(self, options: Any) -> None:
        """Build it from its validated options (this default, for aligners without
        options, ignores them)."""
        return None

    def align(
        self,
        candidates: Sequence[Match],
        hyp_len: int,
        ref_len: int,
        weights: Sequence[float],
        exact_stages: frozenset[int],
    ) -> Alignment:
        """Choose one-to-one links among ``candidates`` (in stage order, each a
        :class:`~meteorx.types.Match`): an :class:`~meteorx.types.Alignment`."""
        ...

    def describe(self) -> str:
        """Its name and every setting that shapes its result, for the signature
        (``meteor-1.5(beam=40)``)."""
        ...

    def prepared_stages(self, matchers: Sequence[Matcher]) -> frozenset[int] | None:
        """The stages whose prepared forms :attr:`align_prepared` reads (``None``: all
        of them), so that a scorer can skip preparing the others."""
        return None
