"""Language codes: one table mapping ISO 639-1 codes to what each language has.

Users type ISO codes (``pt``, ``de``); Meteor 1.5 used its own short names (``cz``)
and Snowball uses English names (``portuguese``). Everything that needs a language goes
through :func:`resolve_language`, so aliases are accepted in one place only.

Every ISO 639-1 code (:mod:`meteorx.iso639`) is a language: those listed in
``_LANGUAGES`` below have a Snowball stemmer or a Meteor 1.5 name; the others get
exact matching and a tokenisation fitting their script. A region or script subtag is
ignored (``pt-BR``, ``zh_Hant``). Meteor 1.5's ``se`` (Swedish) is *not* an alias:
``se`` is ISO 639-1's Northern Sami; Swedish is ``sv``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from meteorx.errors import LanguageError
from meteorx.iso639 import ISO_639_1, SPACELESS


@dataclass(frozen=True)
class Language:
    """A language known to meteorx."""

    code: str  # ISO 639-1 (or 639-3 where no 639-1 code exists)
    name: str
    snowball: str | None  # Snowball algorithm name, if Snowball has one
    meteor_name: str | None = None  # name Meteor 1.5 uses for its resources
    spaceless: bool = False  # written without spaces between words


_LANGUAGES: tuple[Language, ...] = (
    Language("ar", "Arabic", "arabic"),
    Language("hy", "Armenian", "armenian"),
    Language("eu", "Basque", "basque"),
    Language("bg", "Bulgarian", None),
    Language("ca", "Catalan", "catalan"),
    Language("zh", "Chinese", None, spaceless=True),
    Language("hr", "Croatian", None),
    Language("cs", "Czech", "czech", "czech"),
    Language("da", "Danish", "danish", "danish"),
    Language("nl", "Dutch", "dutch", "dutch"),
    Language("en", "English", "english", "english"),
    Language("eo", "Esperanto", "esperanto"),
    Language("et", "Estonian", "estonian"),
    Language("fi", "Finnish", "finnish", "finnish"),
    Language("fr", "French", "french", "french"),
    Language("gl", "Galician", None),
    Language("de", "German", "german", "german"),
    Language("el", "Greek", "greek"),
    Language("hi", "Hindi", "hindi"),
    Language("hu", "Hungarian", "hungarian", "hungarian"),
    Language("is", "Icelandic", None),
    Language("id", "Indonesian", "indonesian"),
    Language("ga", "Irish", "irish"),
    Language("it", "Italian", "italian", "italian"),
    Language("ja", "Japanese", None, spaceless=True),
    Language("lt", "Lithuanian", "lithuanian"),
    Language("ne", "Nepali", "nepali"),
    Language("no", "Norwegian", "norwegian", "norwegian"),
    Language("nb", "Norwegian Bokmål", "norwegian", "norwegian"),
    Language("nn", "Norwegian Nynorsk", "norwegian", "norwegian"),
    Language("fa", "Persian", "persian"),
    Language("pl", "Polish", "polish"),
    Language("pt", "Portuguese", "portuguese", "portuguese"),
    Language("ro", "Romanian", "romanian", "romanian"),
    Language("ru", "Russian", "russian", "russian"),
    Language("sr", "Serbian", "serbian"),
    Language("sk", "Slovak", None),
    Language("st", "Sesotho", "sesotho"),
    Language("es", "Spanish", "spanish", "spanish"),
    Language("sv", "Swedish", "swedish", "swedish"),
    Language("ta", "Tamil", "tamil"),
    Language("th", "Thai", None, spaceless=True),
    Language("tr", "Turkish", "turkish", "turkish"),
    Language("yi", "Yiddish", "yiddish"),
)

_DETAILED = {lang.code: lang for lang in _LANGUAGES}

#: Every ISO 639-1 language: the detailed entries above, the others from the ISO table.
LANGUAGES: dict[str, Language] = {
    code: _DETAILED.get(code) or Language(code, name, None, spaceless=code in SPACELESS)
    for code, name in sorted(ISO_639_1.items())
}

# Meteor 1.5's own codes and common alternative spellings.
ALIASES: dict[str, str] = {"cz": "cs"}
for _lang in LANGUAGES.values():
    ALIASES.setdefault(_lang.name.lower(), _lang.code)


#: A language tag with subtags, as BCP 47 writes them (``pt-BR``, ``zh-Hant-TW``; subtags
#: of 1-8 letters or digits), or with POSIX locales' underscore (``pt_BR``, ``en_US``).
_TAG = re.compile(r"([a-z]{2})(?:[-_][a-z0-9]{1,8})+", re.ASCII)


def resolve_language(code: str) -> Language:
    """Return the language for an ISO 639-1 code (with optional region or script
    subtags), a Meteor 1.5 code or an English name.

    Raises :class:`LanguageError` when the code is none of those: a malformed tag
    (``pt--BR``, ``pt-``) is refused, not cut to its first two letters.
    """
    if not isinstance(code, str):
        raise LanguageError(
            f"a language is a code such as 'en' or 'pt-BR', not {type(code).__name__}"
        )
    key = code.strip().lower()
    key = ALIASES.get(key, key)
    language = LANGUAGES.get(key)
    tag = _TAG.fullmatch(key) if language is None else None
    if tag is not None:
        language = LANGUAGES.get(tag.group(1))  # pt-br, en_us, zh-hant
    if language is None:
        shown = code if len(code) <= 40 else code[:39] + "\u2026"
        raise LanguageError(
            f"unknown language {shown!r}: not an ISO 639-1 code (two letters, e.g. en, pt, "
            f"zh, ha, optionally with subtags: pt-BR, zh-Hant), nor a language name; known "
            f"languages: {' '.join(LANGUAGES)}"
        )
    return language
