"""The ``omw`` plugin: a ``synonym-omw`` matcher for every language with an Open
Multilingual Wordnet.

Meteor 1.5's synonym module reads English WordNet only. This matcher reads any wordnet
in OMW's tab format (``<offset>-<pos> TAB [<lang>:]lemma TAB <lemma>``), such as the
ones in `omwn/omw-data <https://github.com/omwn/omw-data>`_ (``wns/<code>/``):
OpenWordnet-PT (``por``), WOLF (``fra``), MultiWordNet (``ita``), Open Dutch WordNet
(``nld``), plWordNet (``pol``), DanNet (``dan``), the Norwegian, Icelandic, MCR
(Galician, Catalan, Basque), Bulgarian, Croatian and Slovak wordnets, and others.

Matching. Two *different* words (or phrases) match when they share a synset. Wordnets
list base forms, so a token is looked up through its base forms, as Meteor does:

* by its lowercased form, and by its simplemma lemma followed to a fixed point
  ("lindas" -> "linda" -> "lindo"), when simplemma has the language (``lemma_lookup``);
* optionally by its Snowball stem, against the stems of the wordnet's lemmas
  (``stem_lookup``: ``never``, the default; ``fallback`` = only when form and lemma
  find nothing; ``always``), and optionally against the simplemma lemmas of the
  wordnet's own entries (``lemma_index``, for wordnets that list inflected forms).
  Both widen recall at a cost in precision (on Portuguese they link e.g. *logado* to
  *logo*, *somos* to *momento*), so they are off by default;
* ``skip_function_words`` keeps function words (meteorx's built-in list) out: in a
  wordnet they are mostly rare senses (Portuguese *é* ~ *está*, *de* ~ *faminto*).

So *carros* ~ *automóveis*, *lindas* ~ *bonitas* and *faleceu* ~ *morreu* match though
the wordnet lists only *carro*, *lindo*, *falecer*. Multi-word lemmas ("pelo menos",
"entrar em contato") are matched as phrases up to ``max_phrase_len`` words, by their
lowercased form (a phrase on one side may link to one word on the other:
*contatar* ~ *entrar em contato*).

Resources. The tab file is found in this order: the stage option ``path:`` (a tab
file, or a folder holding ``<code>/wn-data-<code>.tab`` or ``wn-data-<code>.tab``),
``$METEORX_OMW_DIR`` (a folder laid out the same way), then the user cache, where
``meteorx resources install omw-<code> --from FILE`` puts it. The parsed index is
compiled once into the user cache (a data-only, checksummed file keyed by the tab
file's SHA-256, see :mod:`meteorx.cache`) and loads in well under a second afterwards;
the signature names the file's checksum.

Modules: :mod:`.tabfile` (locating, checking, installing the tab file), :mod:`.index`
(reading and compiling it), :mod:`.matcher` (the matcher); the hooks are here.
"""

from __future__ import annotations

from collections.abc import Callable

from meteorx.hookspecs import hookimpl
from meteorx.matchers import Matcher
from meteorx.registry import ResourceKind
from meteorx_plugins.omw.index import OmwIndex, load_index
from meteorx_plugins.omw.matcher import OmwOptions, OmwSynonymMatcher
from meteorx_plugins.omw.tabfile import (
    OMW_CODES,
    OMW_COMMIT,
    OMW_ENV,
    OMW_SHA256,
    OmwResource,
    check_tab_file,
    find_omw_file,
    known_resources,
    language_resources,
    omw_code,
    omw_resource,
    tab_file_language,
)

__all__ = [
    "OMW_CODES",
    "OMW_COMMIT",
    "OMW_ENV",
    "OMW_SHA256",
    "OmwIndex",
    "OmwOptions",
    "OmwResource",
    "OmwSynonymMatcher",
    "check_tab_file",
    "find_omw_file",
    "known_resources",
    "load_index",
    "omw_code",
    "omw_resource",
    "tab_file_language",
]


@hookimpl
def meteorx_register_matchers(register: Callable[[type[Matcher]], None]) -> None:
    register(OmwSynonymMatcher)


@hookimpl
def meteorx_register_resources(register: Callable[[str, ResourceKind], None]) -> None:
    register(
        "omw",
        ResourceKind(
            names="omw-<code> for any omw-data wordnet",
            spec=omw_resource,
            listed=known_resources,
            needed=language_resources,
        ),
    )
