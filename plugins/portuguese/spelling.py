"""Portuguese spelling variants: European and pre-2009 spellings become the Brazilian
post-2009 spelling (:func:`unify_spelling`), from a hand-curated table of word pairs
(with their inflected forms) and the systematic changes of the Acordo Ortográfico de
1990; and diacritics removed (:func:`fold_accents`). The table is built the first time
it is needed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache

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


@cache
def spelling_table() -> dict[str, str]:
    """European / pre-2009 spelling -> Brazilian post-2009 spelling, exact words
    (:data:`SPELLING`); built on first use."""
    table: dict[str, str] = {}
    for line in _PAIRS.strip().splitlines():
        old, new, kind = line.lower().split()
        old_forms = [a + b for a, b in _forms(old, kind)]
        new_forms = [a + b for a, b in _forms(new, kind)]
        for a, b in zip(old_forms, new_forms, strict=True):
            if a != b:
                table.setdefault(a, b)
    return table


@cache
def _ao_rules() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Systematic pre-2009 -> post-2009 changes (Acordo Ortográfico de 1990, Brazil 2009)."""
    return (
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
    new = spelling_table().get(lower)
    if new is None:
        new = lower.replace("ü", "u") if "ü" in lower else lower
        for pattern, repl in _ao_rules():
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
