"""Locating, checking and installing an OMW wordnet's tab file.

The tab file is found in this order: the stage option ``path:`` (a tab file, or a
folder holding ``<code>/wn-data-<code>.tab`` or ``wn-data-<code>.tab``),
``$METEORX_OMW_DIR`` (a folder laid out the same way), then the user cache, where
``meteorx resources install omw-<code> --from FILE`` puts it (:class:`OmwResource`
says what that command needs to know: address, pinned checksum, format check).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from meteorx.errors import ResourceError
from meteorx.languages import Language
from meteorx.registry import LanguageResource
from meteorx.resources import MissingResource, installed_dir

#: Environment variable naming a folder laid out like omw-data's ``wns/``.
OMW_ENV = "METEORX_OMW_DIR"

#: ISO 639-1 (meteorx) code -> the OMW folder code (ISO 639-3).
OMW_CODES: dict[str, str] = {
    "pt": "por",
    "fr": "fra",
    "it": "ita",
    "nl": "nld",
    "pl": "pol",
    "da": "dan",
    "nb": "nob",
    "no": "nob",
    "nn": "nno",
    "is": "isl",
    "gl": "glg",
    "ca": "cat",
    "eu": "eus",
    "bg": "bul",
    "hr": "hrv",
    "sk": "slk",
    # Other omw-data wordnets (no pinned checksum; install them with --from):
    "sq": "als",
    "ar": "arb",
    "zh": "cmn",
    "el": "ell",
    "fi": "fin",
    "he": "heb",
    "id": "ind",
    "ja": "jpn",
    "lt": "lit",
    "ro": "ron",
    "sl": "slv",
    "es": "spa",
    "sv": "swe",
    "th": "tha",
    "ms": "zsm",
}

#: The omw-data commit whose files have the checksums below.
OMW_COMMIT = "f75be19ec590da12a7a5665e361690b5badb7a25"

#: SHA-256 of ``wns/<code>/wn-data-<code>.tab`` at :data:`OMW_COMMIT`.
OMW_SHA256: dict[str, str] = {
    "bul": "ccc1d3de2fd33eaf3dde6e7ba9b042052ce2a3ba7660fe6de56eb7874ce561a2",
    "cat": "3c83c0c5298ed700a56dff9e9ea85dad2032162825778fec2c3df99fbccd3060",
    "dan": "3510c66a67957ac1a18a80f5042a95415e85555c6d8d0067404e1385595b6b4a",
    "eus": "b3278c13f92cd4f3165fcee612a127d3a6695be3bfd55499a7d87ba5b68a6211",
    "fra": "6effab15723bbb482f2922d42eb1db37c8586984ce7735ebfe0a096000b69f86",
    "glg": "ff86280838b1ea0bc490cc51a80d9654df1b5602efe97ca4d041167e7fdcb019",
    "hrv": "640879334f5a801a39aff42e274db58c96c5621f53ec5c7e9c2beb1cd77c9f7c",
    "isl": "896b8dccc4eb3e6cef557a06fd52bcef4bb938ad8daf6e8775bf472df0874261",
    "ita": "251ac0097ef81a7ed0d283f6852953106a37dbb8c1b9f93d87079641c271eafa",
    "nld": "ace21f3ea700f4ed8f4ac6dd9a4d12e2d732931ce766797afda1827330b08fa0",
    "nno": "b74637170cc63cca01a87a5226333633acd219684b0ba5b7de95f0d8ab90ea3c",
    "nob": "0a819aa7d708ca64818236c641745a2ff9eaee31d833af6705b84be294f3ab43",
    "pol": "0c9fc6d9f22f180f241895d2520f762423790e7df6f9438aaa42113da1eb6b10",
    "por": "0ba180e2d2a5317e61b4ebe94a7e969e68eea2d9e60705e1e9053c6e2ac5e684",
    "slk": "000b93c614bc23ff1f81ff13670cfbe1ae811f76d305ff5088eac9695ea3c52a",
}

_NAMES: dict[str, str] = {
    "por": "OpenWordnet-PT",
    "fra": "WOLF",
    "ita": "MultiWordNet (Italian)",
    "nld": "Open Dutch WordNet",
    "pol": "plWordNet",
    "dan": "DanNet",
    "nob": "Norwegian Wordnet (Bokmål)",
    "nno": "Norwegian Wordnet (Nynorsk)",
    "isl": "IceWordNet",
    "glg": "Galician wordnet (MCR)",
    "cat": "Catalan wordnet (MCR)",
    "eus": "Basque wordnet (MCR)",
    "bul": "BulTreeBank Wordnet",
    "hrv": "Croatian Wordnet",
    "slk": "Slovak WordNet",
}

_RESOURCE_NAME = re.compile(r"omw-([a-z]{3})")
_SYNSET = re.compile(r"^\d{8}-[nvasr]$")


@dataclass(frozen=True)
class OmwResource:
    """What ``meteorx resources install omw-<code>`` needs to know about one wordnet."""

    name: str  # omw-por
    code: str  # por
    filename: str  # wn-data-por.tab
    url: str  # the official download address (pinned omw-data commit)
    sha256: str | None  # expected checksum of that file, if known
    description: str

    def check(self, path: Path) -> str | None:
        """``None`` if ``path`` looks like this wordnet's OMW tab file, else why not."""
        problem = check_tab_file(path)
        if problem is None:
            code = tab_file_language(path)
            if code is not None and code != self.code:
                return f"is the {code} wordnet, not {self.code}"
        return problem


def tab_file_language(path: Path) -> str | None:
    """The language code in an OMW tab file's header (``# name<TAB>code<TAB>…``), if any."""
    try:
        with open(path, encoding="utf-8") as handle:
            first = handle.readline()
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("#"):
        return None
    cols = first[1:].strip().split("\t")
    code = cols[1].strip() if len(cols) > 1 else ""
    return code if re.fullmatch(r"[a-z]{3}", code) else None


def omw_resource(name: str) -> OmwResource | None:
    """The installable resource called ``name`` (``omw-por``…), or ``None``."""
    match = _RESOURCE_NAME.fullmatch(name)
    if match is None:
        return None
    code = match.group(1)
    filename = f"wn-data-{code}.tab"
    return OmwResource(
        name=name,
        code=code,
        filename=filename,
        url=f"https://raw.githubusercontent.com/omwn/omw-data/{OMW_COMMIT}/wns/{code}/{filename}",
        sha256=OMW_SHA256.get(code),
        description=f"{_NAMES.get(code, code)} in OMW tab format (omw-data wns/{code})",
    )


def known_resources() -> list[OmwResource]:
    """The OMW resources with a pinned checksum (listed by ``meteorx resources list``)."""
    out = [omw_resource(f"omw-{code}") for code in sorted(OMW_SHA256)]
    return [r for r in out if r is not None]


def check_tab_file(path: Path) -> str | None:
    """``None`` if ``path`` is a readable OMW tab file, else a short reason."""
    if not path.is_file():
        return "does not exist" if not path.exists() else "is not a file"
    try:
        with open(path, encoding="utf-8") as handle:
            for n, line in enumerate(handle):
                if n > 200:
                    break
                if not line.strip() or line.startswith("#"):
                    continue
                cols = line.rstrip("\n").split("\t")
                if len(cols) >= 3 and _SYNSET.match(cols[0]):
                    return None
                return (
                    f"is not an OMW tab file (line {n + 1} is not "
                    "'<offset>-<pos> TAB lemma TAB <word>')"
                )
    except (OSError, UnicodeDecodeError) as error:
        return f"cannot be read as UTF-8 text ({type(error).__name__})"
    return "holds no wordnet entries"


def installed_path(code: str) -> Path | None:
    """Where ``meteorx resources install omw-<code>`` puts the tab file (may not exist)."""
    folder = installed_dir(f"omw-{code}")
    return None if folder is None else folder / f"wn-data-{code}.tab"


def _in_folder(folder: Path, code: str) -> Path | None:
    for candidate in (folder / code / f"wn-data-{code}.tab", folder / f"wn-data-{code}.tab"):
        if candidate.is_file():
            return candidate
    return None


def _install_hint(code: str) -> str:
    name = f"omw-{code}"
    return (
        f"install it with: meteorx resources install {name} --from FILE "
        f"(FILE = wn-data-{code}.tab from github.com/omwn/omw-data, folder wns/{code}/), "
        f"set ${OMW_ENV} to a folder holding {code}/wn-data-{code}.tab, "
        "or give the stage a 'path:' option"
    )


def find_omw_file(code: str, explicit: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """Locate the tab file of wordnet ``code``: ``(path, how it was found)``.

    :raises ResourceError: one line saying what is missing and how to install it.
    """
    what = f"{_NAMES.get(code, 'the OMW wordnet')} ({code}, resource omw-{code})"
    if explicit is not None and os.fspath(explicit) != "":
        path = Path(os.path.expandvars(os.path.expanduser(os.fspath(explicit))))
        if path.is_dir():
            found = _in_folder(path, code)
            if found is None:
                raise ResourceError(
                    f"{what}: folder {path} (from option 'path') holds neither "
                    f"{code}/wn-data-{code}.tab nor wn-data-{code}.tab"
                )
            path = found
        reason = check_tab_file(path)
        if reason is not None:
            raise ResourceError(f"{what}: {path} (from option 'path') {reason}")
        return path, "option 'path'"
    env = os.environ.get(OMW_ENV, "")
    looked: list[str] = []
    if env:
        folder = Path(os.path.expandvars(os.path.expanduser(env)))
        if not folder.is_dir():
            raise ResourceError(f"{what}: ${OMW_ENV}={env} is not a folder")
        found = _in_folder(folder, code)
        if found is not None:
            reason = check_tab_file(found)
            if reason is not None:
                raise ResourceError(f"{what}: {found} (from ${OMW_ENV}) {reason}")
            return found, f"${OMW_ENV}"
        looked.append(f"${OMW_ENV}={folder}")
    cached = installed_path(code)
    if cached is not None:
        if cached.is_file():
            reason = check_tab_file(cached)
            if reason is not None:
                raise ResourceError(
                    f"{what}: the installed copy {cached} {reason}; reinstall it with: "
                    f"meteorx resources install omw-{code} --from FILE --force"
                )
            return cached, "user cache"
        looked.append(f"the user cache ({cached.parent})")
    where = f"looked in {' and '.join(looked)}; " if looked else ""
    raise MissingResource(what, where + _install_hint(code), f"omw-{code}", f"wn-data-{code}.tab")


def omw_code(language: Language) -> str | None:
    """The OMW folder code of a meteorx language, or ``None``."""
    return OMW_CODES.get(language.code)


def language_resources(language: Language) -> list[LanguageResource]:
    """The wordnet the ``synonym-omw`` stage reads for ``language`` (none if OMW has none),
    for ``meteorx languages``."""
    code = omw_code(language)
    if code is None:
        return []
    return [LanguageResource("synonym-omw", lambda: find_omw_file(code)[1], f"omw-{code}")]
