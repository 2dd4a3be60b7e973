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
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import cache
from itertools import product

from meteorx.hookspecs import hookimpl
from meteorx.languages import Language
from meteorx.registry import TokenizerFactory

__all__ = [
    "CLITICS",
    "CONTRACTIONS",
    "SPELLING",
    "PortugueseTokenizer",
    "split_clitics",
    "tokenizer_names",
    "unify_spelling",
]

# -- clitics ----------------------------------------------------------------------------

#: Clitic pronouns that may follow a hyphen (including contracted ones: lho = lhe + o).
CLITICS: frozenset[str] = frozenset(
    {
        "me",
        "te",
        "se",
        "lhe",
        "lhes",
        "nos",
        "vos",
        "o",
        "a",
        "os",
        "as",
        "lo",
        "la",
        "los",
        "las",
        "no",
        "na",
        "nas",
        "mo",
        "ma",
        "mos",
        "mas",
        "to",
        "ta",
        "tos",
        "tas",
        "lho",
        "lha",
        "lhos",
        "lhas",
    }
)
_LO = {"lo": "o", "la": "a", "los": "os", "las": "as"}
_NO = {"no": "o", "na": "a"}  # after a nasal verb ending; "-nos" stays "nos" (us)
#: Future and conditional endings that follow the clitic in mesoclisis.
_MESOCLITIC_ENDINGS: frozenset[str] = frozenset(
    {"ei", "ás", "á", "emos", "eis", "ão", "ia", "ias", "íamos", "íeis", "iam"}
)
#: Forms of "haver" written with a hyphen before "de" in pre-1990 European spelling.
_HAVER: frozenset[str] = frozenset({"hei", "hás", "há", "havemos", "haveis", "hão"})
_DEACCENT = str.maketrans("áâéêíóôú", "aaeeioou")


def _restore_infinitive(verb: str) -> str:
    """The verb before -lo/-la: "fazê" -> "fazer", "dá" -> "dar", "parti" -> "partir"."""
    last = verb[-1:].lower()
    if last in "áâéêíóô":
        base = verb[:-1] + verb[-1].translate(_DEACCENT)
        return base + ("R" if verb.isupper() else "r")
    if last == "i" and len(verb) > 2:
        return verb + ("R" if verb.isupper() else "r")
    if verb.lower().endswith("mo"):  # comemo-lo -> comemos o
        return verb + ("S" if verb.isupper() else "s")
    return verb


def _same_case(word: str, model: str) -> str:
    return word.upper() if model.isupper() and len(model) > 1 else word


def split_clitics(word: str) -> list[str] | None:
    """Split a hyphenated verb + clitic(s); ``None`` if ``word`` is no such form."""
    parts = word.split("-")
    if len(parts) < 2 or not all(parts) or not parts[0].isalpha():
        return None
    lower = [p.lower() for p in parts]
    if len(parts) == 2 and lower[1] == "de" and lower[0] in _HAVER:  # hei-de, há-de
        return parts
    # Mesoclisis: dir-se-ia, dar-lhe-ei, fá-lo-ei.
    if len(parts) == 3 and lower[1] in CLITICS and lower[2] in _MESOCLITIC_ENDINGS:
        stem = parts[0]
        clitic = lower[1]
        if clitic in _LO:
            stem = _restore_infinitive(stem)
            clitic = _LO[clitic]
        if not stem.lower().endswith("r"):
            return None
        return [stem + parts[2], _same_case(clitic, parts[1])]
    if lower[-1] not in CLITICS:
        return None
    k = len(parts)
    while k > 1 and lower[k - 1] in CLITICS:
        k -= 1
    if k != 1:  # e.g. "porta-a-porta" style compounds: leave whole
        return None
    verb = parts[0]
    clitics = lower[1:]
    first = clitics[0]
    if first in _LO:
        verb = _restore_infinitive(verb)
        clitics[0] = _LO[first]
    elif first in _NO and verb.lower().endswith(("m", "ão", "õe", "ãe")):
        clitics[0] = _NO[first]
    return [verb, *(_same_case(c, p) for c, p in zip(clitics, parts[1:], strict=True))]


# -- contractions -----------------------------------------------------------------------

_PRONOUNS = [
    "ele", "ela", "eles", "elas",
    "este", "esta", "estes", "estas", "isto",
    "esse", "essa", "esses", "essas", "isso",
    "aquele", "aquela", "aqueles", "aquelas", "aquilo",
    "outro", "outra", "outros", "outras",
]  # fmt: skip
_ARTICLES = ["o", "a", "os", "as"]
_INDEFINITES = {"um": "um", "uma": "uma", "uns": "uns", "umas": "umas"}


def _contractions() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for art in _ARTICLES:
        table["d" + art] = ("de", art)
        table["n" + art] = ("em", art)
        table["pel" + art] = ("por", art)
    for art, form in {"o": "ao", "a": "à", "os": "aos", "as": "às"}.items():
        table[form] = ("a", art)
    for ind in _INDEFINITES:
        table["d" + ind] = ("de", ind)
        table["n" + ind] = ("em", ind)
    for pron in _PRONOUNS:
        table["d" + pron] = ("de", pron)
        table["n" + pron] = ("em", pron)
    for pron in ["aquele", "aquela", "aqueles", "aquelas", "aquilo"]:
        table["à" + pron[1:]] = ("a", pron)
    table.update(
        {
            "daqui": ("de", "aqui"),
            "daí": ("de", "aí"),
            "dali": ("de", "ali"),
            "dacolá": ("de", "acolá"),
            "donde": ("de", "onde"),
            "aonde": ("a", "onde"),
            "doutrem": ("de", "outrem"),
        }
    )
    return table


#: Contractions and their expansion (lowercase), used by the ``-expand`` variants.
CONTRACTIONS: dict[str, tuple[str, ...]] = _contractions()


def _expand(word: str) -> list[str] | None:
    parts = CONTRACTIONS.get(word.lower())
    if parts is None:
        return None
    if word.isupper() and len(word) > 1:
        return [p.upper() for p in parts]
    if word[:1].isupper():
        return [parts[0].capitalize(), *parts[1:]]
    return list(parts)


# -- spelling variants ------------------------------------------------------------------

# One pair a line: European (or pre-2009) spelling, Brazilian post-2009 spelling, and the
# inflection class used to generate the other forms of both words in step:
#   n = noun/adjective (-o/-a/-os/-as, -ção/-ções, -or/-ores/-ora/-oras, -al/-ais, -s)
#   v = regular -ar verb (common finite forms, participles, gerund)
#   x = this form only
_PAIRS = """
acção ação n
actual atual n
actualmente atualmente x
actualidade atualidade n
actualizar atualizar v
actualização atualização n
activo ativo n
actividade atividade n
activar ativar v
acto ato n
actor ator n
actriz atriz x
actrizes atrizes x
actuar atuar v
actuação atuação n
adjectivo adjetivo n
adopção adoção n
adoptar adotar v
arquitecto arquiteto n
arquitectura arquitetura n
baptismo batismo n
baptizar batizar v
colecção coleção n
colectivo coletivo n
colectividade coletividade n
correcto correto n
correctamente corretamente x
correcção correção n
dialecto dialeto n
didáctico didático n
direcção direção n
director diretor n
directo direto n
directamente diretamente x
directiva diretiva n
efectivo efetivo n
efectivamente efetivamente x
efectuar efetuar v
eléctrico elétrico n
electricidade eletricidade n
electrónico eletrônico n
eletrónico eletrônico n
electrónica eletrônica n
eletrónica eletrônica n
exacto exato n
exactamente exatamente x
excepção exceção n
excepto exceto x
factor fator n
facto fato n
contacto contato n
contactar contatar v
infra-estrutura infraestrutura n
inspector inspetor n
insecto inseto n
objecto objeto n
objectivo objetivo n
objectivamente objetivamente x
óptimo ótimo n
óptica ótica n
óptico ótico n
projecto projeto n
projectar projetar v
protecção proteção n
protector protetor n
reacção reação n
redacção redação n
respetivo respectivo n
respetivamente respectivamente x
selecção seleção n
seleccionar selecionar v
seleccionado selecionado n
sector setor n
tacto tato n
colecta coleta n
conceção concepção n
receção recepção n
perceção percepção n
deceção decepção n
contraceção contracepção n
aspeto aspecto n
espetador espectador n
espectáculo espetáculo n
carácter caráter x
egipto egito x
académico acadêmico n
anónimo anônimo n
agrónomo agrônomo n
astronómico astronômico n
autónomo autônomo n
bebé bebê n
bónus bônus x
cómodo cômodo n
cómico cômico n
crónica crônica n
crónico crônico n
económico econômico n
fenómeno fenômeno n
gastronómico gastronômico n
género gênero n
génio gênio n
génese gênese x
higiénico higiênico n
icónico icônico n
ingénuo ingênuo n
irónico irônico n
polémica polêmica n
polémico polêmico n
prémio prêmio n
quilómetro quilômetro n
sinónimo sinônimo n
telefónico telefônico n
ténis tênis x
tónico tônico n
ónus ônus x
vénus vênus x
antónio antônio x
amazónia amazônia x
registo registro n
registar registrar v
connosco conosco x
dezasseis dezesseis x
dezassete dezessete x
dezanove dezenove x
húmido úmido n
humidade umidade n
pêlo pelo x
pêlos pelos x
pára para x
pólo polo n
pêra pera n
"""

_AR_SUFFIXES: tuple[str, ...] = (
    "ar",
    "o",
    "as",
    "a",
    "amos",
    "ais",
    "am",
    "ei",
    "aste",
    "ou",
    "astes",
    "aram",
    "ava",
    "avas",
    "ávamos",
    "avam",
    "e",
    "es",
    "emos",
    "em",
    "asse",
    "assem",
    "ará",
    "arão",
    "aria",
    "ariam",
    "ado",
    "ada",
    "ados",
    "adas",
    "ando",
    "ação",
    "ações",
)


def _forms(word: str, kind: str) -> Iterator[tuple[str, str]]:
    """(suffix-removed stem, ending) pairs generating a word's inflected forms."""
    yield word, ""
    if kind == "n":
        for end, alts in (
            ("ção", ["ções"]),
            ("o", ["os", "a", "as"]),
            ("a", ["as"]),
            ("or", ["ores", "ora", "oras"]),
            ("al", ["ais"]),
            ("e", ["es"]),
            ("ê", ["ês"]),
        ):
            if word.endswith(end):
                for alt in alts:
                    yield word[: -len(end)], alt
                return
        if word[-1:] not in "sx":
            yield word, "s"
    elif kind == "v" and word.endswith("ar"):
        for suffix in _AR_SUFFIXES:
            yield word[:-2], suffix


def _spelling_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in _PAIRS.strip().splitlines():
        old, new, kind = line.lower().split()
        old_forms = [a + b for a, b in _forms(old, kind)]
        new_forms = [a + b for a, b in _forms(new, kind)]
        for a, b in zip(old_forms, new_forms, strict=True):
            if a != b:
                table.setdefault(a, b)
    return table


#: European / pre-2009 spelling -> Brazilian post-2009 spelling (exact words).
SPELLING: dict[str, str] = _spelling_table()

# Systematic pre-2009 -> post-2009 changes (Acordo Ortográfico de 1990, Brazil 2009).
_AO_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"éi(as?)$"), r"ei\1"),  # idéia, assembléias
    (re.compile(r"ói([ao]s?|c[ao]s?)$"), r"oi\1"),  # jóia, heróico, apóio
    (re.compile(r"ôo(s?)$"), r"oo\1"),  # vôo, enjôos
    (re.compile(r"êem$"), "eem"),  # lêem, vêem, dêem
)


def _match_case(new: str, old: str) -> str:
    if old.isupper() and len(old) > 1:
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def unify_spelling(word: str) -> str:
    """The Brazilian post-2009 spelling of one word (unchanged if not a known variant)."""
    lower = word.lower()
    new = SPELLING.get(lower)
    if new is None:
        new = lower.replace("ü", "u") if "ü" in lower else lower
        for pattern, repl in _AO_RULES:
            if pattern.search(new):
                new = pattern.sub(repl, new)
                break
    if new == lower:
        return word
    return _match_case(new, word)


def fold_accents(text: str) -> str:
    """Remove diacritics ("ação" -> "acao"); keeps other characters."""
    decomposed = unicodedata.normalize("NFD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", stripped)


# -- the tokenizer ----------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
      (?:https?://|www\.)[^\s]*[^\s.,;:!?)\]}'"]     # URL
    | [\w.+-]+@\w[\w-]*(?:\.\w[\w-]*)+                # e-mail
    | \d+(?:[.,:/]\d+)+                              # 1.000,50  12:30  1/2
    | \w+(?:['-]\w+)*                                # words, hyphenated compounds
    | \.{2,}                                         # ellipsis
    | [^\w\s]                                        # any other symbol
    """,
    re.VERBOSE,
)
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "´": "'"})


class PortugueseTokenizer:
    """A configured Portuguese tokenizer (callable: line -> tokens)."""

    def __init__(self, *, expand: bool = False, fold: bool = False, spelling: bool = True) -> None:
        self.expand = expand
        self.fold = fold
        self.spelling = spelling
        self._memo: dict[str, list[str]] = {}

    @property
    def name(self) -> str:
        return (
            "pt"
            + ("-expand" if self.expand else "")
            + ("-fold" if self.fold else "")
            + ("" if self.spelling else "-nospell")
        )

    def _word(self, word: str) -> list[str]:
        cached = self._memo.get(word)
        if cached is not None:
            return cached
        pieces = split_clitics(word) if "-" in word else None
        if pieces is None:
            pieces = [word]
        out: list[str] = []
        for piece in pieces:
            if self.spelling:
                piece = unify_spelling(piece)
            expanded = _expand(piece) if self.expand else None
            out.extend(expanded or [piece])
        if self.fold:
            out = [fold_accents(t) for t in out]
        if len(self._memo) > 200_000:
            self._memo.clear()
        self._memo[word] = out
        return out

    def __call__(self, line: str) -> list[str]:
        text = unicodedata.normalize("NFC", line).translate(_APOSTROPHES)
        tokens: list[str] = []
        for match in _TOKEN.finditer(text):
            token = match.group()
            if token[0].isalpha():
                tokens.extend(self._word(token))
            elif self.fold and not token.isascii():
                tokens.append(fold_accents(token))
            else:
                tokens.append(token)
        return tokens


def tokenizer_names() -> list[str]:
    """Every registered variant: ``pt[-expand][-fold][-nospell]``."""
    return [
        PortugueseTokenizer(expand=e, fold=f, spelling=s).name
        for e, f, s in product((False, True), (False, True), (True, False))
    ]


@cache
def _tokenizer(expand: bool, fold: bool, spelling: bool) -> PortugueseTokenizer:
    return PortugueseTokenizer(expand=expand, fold=fold, spelling=spelling)


def _factory(expand: bool, fold: bool, spelling: bool) -> TokenizerFactory:
    def make(language: Language) -> Callable[[str], list[str]]:
        return _tokenizer(expand, fold, spelling)

    return make


@hookimpl
def meteorx_register_tokenizers(register: Callable[[str, TokenizerFactory], None]) -> None:
    for expand, fold, spelling in product((False, True), (False, True), (True, False)):
        name = PortugueseTokenizer(expand=expand, fold=fold, spelling=spelling).name
        register(name, _factory(expand, fold, spelling))
