"""The ``portuguese`` plugin: Portuguese tokenizers (``pt`` and its variants).

Every variant does the same three things to a line, in this order:

1. **Characters.** Unicode NFC (so decomposed "ação" equals composed "ação"); curly
   apostrophes become ``'``.
2. **Tokens.** Punctuation is split from words (each punctuation character is a token,
   "..." stays one); URLs, e-mail addresses and numbers with separators ("1.000,50",
   "12:30") stay whole; hyphenated compounds ("guarda-chuva", "segunda-feira",
   "COVID-19") stay whole.
3. **Clitics.** A hyphenated verb + clitic pronoun is split, the hyphen dropped, so
   European enclisis and Brazilian proclisis give the same tokens: "vende-se" ->
   ``vende se`` (as in "se vende"), "disse-me" -> ``disse me``, "dá-se-lhe" ->
   ``dá se lhe``. The allomorphs of o/a are restored with the verb's lost ending:
   "fazê-lo" -> ``fazer o``, "dá-la" -> ``dar a``, "fizeram-no" -> ``fizeram o``;
   mesoclisis is undone: "dir-se-ia" -> ``diria se``, "fá-lo-ei" -> ``farei o``. A
   hyphenated word is split only when its last part is a clitic (or the middle one is,
   before a future/conditional ending), so "bem-te-vi" and "dia-a-dia" stay whole.

and then, depending on the variant name ``pt[-expand][-fold][-nospell]``:

* **Spelling variants** (unless ``-nospell``): European Portuguese and pre-2009
  spellings become the Brazilian post-2009 spelling (the test data is pt-BR), see
  :data:`SPELLING` and :func:`unify_spelling`. Sources: the systematic changes of the
  Acordo Ortográfico de 1990 in force in Brazil since 2009 (trema dropped: "freqüente"
  -> "frequente"; no accent on the open diphthongs éi/ói of paroxytones: "idéia" ->
  "ideia", "heróico" -> "heroico"; "vôo" -> "voo"; "lêem" -> "leem"; "pára" ->
  "para"), plus a hand-curated table of frequent word pairs that differ between the
  two standards (silent consonants: "acção"/"ação", "óptimo"/"ótimo", "facto"/"fato",
  "receção"/"recepção"; open/closed vowel accents: "económico"/"econômico",
  "género"/"gênero"; a few others: "registo"/"registro", "dezasseis"/"dezesseis").
  Limits: only listed words (and their regular plural/feminine/-ar verb forms) are
  changed; vocabulary differences ("autocarro"/"ônibus", "ecrã"/"tela") are not
  spelling and are left to the synonym stage; mapping is one-way, so pt-PT "fato"
  (suit) and pt-PT "facto" (fact) both become "fato".
* **Contractions** are kept by default ("do", "na", "pelo", "àquele" stay one token on
  both sides, as written); ``-expand`` splits them into preposition + article/pronoun
  ("do" -> ``de o``, "àquele" -> ``a aquele``, "num" -> ``em um``, "dele" -> ``de
  ele``), always, so both sides are treated identically. Ambiguous forms are expanded
  as contractions ("nos" -> ``em os`` even when it is the pronoun "us"; "pelo" -> ``por
  o`` even for "hair"): the choice is consistent, which is what matching needs.
  Keeping them is the default because a contraction carries the article's gender and
  number ("do" is not "da"), token counts stay those of the text as written, and
  expansion did not agree better with human judgments on the pt-BR test sets.
* **Accents** are kept by default; ``-fold`` removes diacritics ("ação" -> "acao"),
  for text typed without them.

Case is never changed here: ``normalize.lowercase`` does that, as for every tokenizer.

The parts: :mod:`.clitics`, :mod:`.contractions`, :mod:`.spelling` and the tokenizer
that puts them together, :mod:`.tokenizer`. Importing the plugin builds nothing: the
tables (:data:`CONTRACTIONS`, :data:`SPELLING`) and the token pattern are built the first
time a tokenizer needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from meteorx.hookspecs import hookimpl
from meteorx.registry import TokenizerFactory
from meteorx_plugins.portuguese.clitics import CLITICS, split_clitics
from meteorx_plugins.portuguese.contractions import contraction_table
from meteorx_plugins.portuguese.spelling import spelling_table, unify_spelling
from meteorx_plugins.portuguese.tokenizer import (
    PortugueseTokenizer,
    tokenizer_factory,
    tokenizer_names,
    variant_name,
    variants,
)

__all__ = [
    "CLITICS",
    "CONTRACTIONS",
    "SPELLING",
    "PortugueseTokenizer",
    "split_clitics",
    "tokenizer_names",
    "unify_spelling",
    "variant_name",
]

if TYPE_CHECKING:  # module attributes, built on first use (see __getattr__ below)
    CONTRACTIONS: dict[str, tuple[str, ...]]
    SPELLING: dict[str, str]


@hookimpl
def meteorx_register_tokenizers(register: Callable[[str, TokenizerFactory], None]) -> None:
    for expand, fold, spelling in variants():
        register(variant_name(expand, fold, spelling), tokenizer_factory(expand, fold, spelling))


def __getattr__(name: str) -> Any:
    # The tables, built on first use (importing the module builds nothing).
    if name == "CONTRACTIONS":
        return contraction_table()
    if name == "SPELLING":
        return spelling_table()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
