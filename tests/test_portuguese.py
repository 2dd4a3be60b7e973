"""Portuguese: the ``pt`` tokenizers, function words, the ``pt`` preset, and parity of
the ``meteor-1.5-pt`` preset with the jar's ``-l pt`` on real Portuguese MT output."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from meteorx.languages import resolve_language
from meteorx.metric import Scorer
from meteorx.registry import get_registry
from meteorx_plugins.lemma import builtin_function_words
from meteorx_plugins.portuguese import (
    CONTRACTIONS,
    SPELLING,
    PortugueseTokenizer,
    split_clitics,
    tokenizer_names,
    unify_spelling,
)
from tests.conftest import DATA, REPO, read_lines, require_data

PT = DATA / "pt"
tok = PortugueseTokenizer()
expand = PortugueseTokenizer(expand=True)
fold = PortugueseTokenizer(fold=True)
plain = PortugueseTokenizer(spelling=False)

EXPLAINER_REF = "o cupom vale para toda a loja até domingo"
EXPLAINER_HYPS = {
    "o cupom vale só até domingo": 0.5563,
    "até domingo o cupom vale para toda a loja": 0.9945,
}


@pytest.fixture(scope="module")
def omw_env() -> Iterator[None]:
    """Point the synonym stage at the shared OMW folder unless the user set one."""
    folder = require_data("omw", "por", "wn-data-por.tab").parent.parent
    with pytest.MonkeyPatch.context() as patch:
        if not os.environ.get("METEORX_OMW_DIR"):
            patch.setenv("METEORX_OMW_DIR", str(folder))
        yield


@pytest.fixture(scope="module")
def pt_preset(omw_env: None) -> Scorer:
    return Scorer("pt")


# -- the tokenizer -------------------------------------------------------------------------


def test_registered_variants() -> None:
    names = tokenizer_names()
    assert len(names) == 8 and "pt" in names and "pt-expand-fold-nospell" in names
    registry = get_registry()
    for name in names:
        assert registry.owners[f"tokenizer:{name}"] == "portuguese"
        made = registry.tokenizer(name)(resolve_language("pt"))
        assert isinstance(made, PortugueseTokenizer) and made.name == name


def test_punctuation_split() -> None:
    assert tok("Olá, tudo bem? Sim... (claro)!") == [
        "Olá", ",", "tudo", "bem", "?", "Sim", "...", "(", "claro", ")", "!",
    ]  # fmt: skip
    assert tok("«Citação» “aspas” — travessão") == [
        "«", "Citação", "»", "“", "aspas", "”", "—", "travessão",
    ]  # fmt: skip


def test_numbers_urls_emails_and_compounds_stay_whole() -> None:
    assert tok("R$ 1.000,50 às 12:30, 3/4 e 2,5%") == [
        "R", "$", "1.000,50", "às", "12:30", ",", "3/4", "e", "2,5", "%",
    ]  # fmt: skip
    assert tok("Veja https://exemplo.com.br/a?b=1. Ou a.b@c.pt.") == [
        "Veja", "https://exemplo.com.br/a?b=1", ".", "Ou", "a.b@c.pt", ".",
    ]  # fmt: skip
    for word in ["guarda-chuva", "segunda-feira", "bem-te-vi", "dia-a-dia", "COVID-19",
                 "porta-a-porta", "Guiné-Bissau", "pôr-do-sol", "d'água"]:  # fmt: skip
        assert tok(word) == [word]


@pytest.mark.parametrize(
    ("word", "tokens"),
    [
        ("vende-se", ["vende", "se"]),
        ("Disse-me", ["Disse", "me"]),
        ("dá-se-lhe", ["dá", "se", "lhe"]),
        ("dá-lo", ["dar", "o"]),
        ("fazê-lo", ["fazer", "o"]),
        ("pô-la", ["por", "a"]),
        ("parti-los", ["partir", "os"]),
        ("comemo-lo", ["comemos", "o"]),
        ("fizeram-no", ["fizeram", "o"]),
        ("põe-na", ["põe", "a"]),
        ("deram-nos", ["deram", "nos"]),
        ("dir-se-ia", ["diria", "se"]),
        ("dar-lhe-ei", ["darei", "lhe"]),
        ("fá-lo-ei", ["farei", "o"]),
        ("há-de", ["há", "de"]),
        ("VENDE-SE", ["VENDE", "SE"]),
    ],
)
def test_hyphenated_clitics(word: str, tokens: list[str]) -> None:
    assert tok(word) == tokens


def test_clitics_match_proclisis() -> None:
    """European enclisis and Brazilian proclisis give the same tokens."""
    assert sorted(tok("vende-se casa")) == sorted(tok("se vende casa"))
    assert split_clitics("guarda-chuva") is None
    assert split_clitics("bem-te-vi") is None


def test_contractions_kept_by_default_and_expanded_consistently() -> None:
    line = "Do carro, na casa, pelo caminho, àquele homem, num dia, dele, disso, NO fim"
    assert tok(line) == [
        "Do", "carro", ",", "na", "casa", ",", "pelo", "caminho", ",", "àquele", "homem", ",",
        "num", "dia", ",", "dele", ",", "disso", ",", "NO", "fim",
    ]  # fmt: skip
    assert expand(line) == [
        "De", "o", "carro", ",", "em", "a", "casa", ",", "por", "o", "caminho", ",", "a",
        "aquele", "homem", ",", "em", "um", "dia", ",", "de", "ele", ",", "de", "isso", ",",
        "EM", "O", "fim",
    ]  # fmt: skip
    assert CONTRACTIONS["às"] == ("a", "as") and CONTRACTIONS["daquilo"] == ("de", "aquilo")
    scorer = Scorer(
        {"language": "pt", "normalize": {"tokenizer": "pt-expand", "lowercase": True},
         "stages": [{"matcher": "exact"}]}
    )  # fmt: skip
    # contracted on one side, written out on the other: identical after expansion
    assert scorer.segment("fui ao mercado da cidade", "fui a o mercado de a cidade").score == 1.0


def test_case_is_kept_and_accents_fold_on_request() -> None:
    assert tok("Ação ÓTIMA") == ["Ação", "ÓTIMA"]
    assert fold("Ação ÓTIMA à noite, pôr-do-sol") == [
        "Acao", "OTIMA", "a", "noite", ",", "por-do-sol",
    ]  # fmt: skip
    lower = Scorer(
        {"language": "pt", "normalize": {"tokenizer": "pt", "lowercase": True},
         "stages": [{"matcher": "exact"}]}
    )  # fmt: skip
    assert lower.tokenize("Ação, Já!") == ("ação", ",", "já", "!")


def test_unicode_normalisation_and_apostrophes() -> None:
    decomposed = "ac\u0327a\u0303o"  # "ação" written with combining marks
    assert tok(decomposed) == ["ação"]
    assert tok("d’água") == tok("d'água") == ["d'água"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("facto", "fato"), ("factos", "fatos"), ("óptimo", "ótimo"), ("óptimas", "ótimas"),
        ("acção", "ação"), ("acções", "ações"), ("Acção", "Ação"), ("ACÇÃO", "AÇÃO"),
        ("actual", "atual"), ("actuais", "atuais"), ("director", "diretor"),
        ("directora", "diretora"), ("receção", "recepção"), ("económico", "econômico"),
        ("económicas", "econômicas"), ("género", "gênero"), ("registo", "registro"),
        ("registou", "registrou"), ("adoptaram", "adotaram"), ("dezasseis", "dezesseis"),
        ("idéia", "ideia"), ("assembléias", "assembleias"), ("heróico", "heroico"),
        ("jóia", "joia"), ("vôo", "voo"), ("lêem", "leem"), ("freqüente", "frequente"),
        ("lingüística", "linguística"), ("pára", "para"), ("infra-estrutura", "infraestrutura"),
    ],
)  # fmt: skip
def test_spelling_variants(old: str, new: str) -> None:
    assert unify_spelling(old) == new
    assert tok(old) == [new]
    assert plain(old) == [old]  # pt-nospell keeps them


def test_spelling_leaves_other_words_alone() -> None:
    for word in ["herói", "heróis", "papéis", "pacto", "apto", "ficção", "convicção", "fato",
                 "recepção", "ideia", "têm", "vêm", "casa"]:  # fmt: skip
        assert unify_spelling(word) == word, word
    assert all(k == k.lower() for k in SPELLING)


@pytest.mark.data
def test_pt_pt_and_pt_br_references_agree_more_after_unification() -> None:
    path = require_data("pt", "ntrex128_en-pt_two_refs")
    pt_pt = read_lines(path / "ref.pt-PT.txt")[:400]
    pt_br = read_lines(path / "ref.pt-BR.txt")[:400]

    def corpus(tokenizer: str) -> float:
        scorer = Scorer(
            {"language": "pt", "normalize": {"tokenizer": tokenizer, "lowercase": True},
             "stages": [{"matcher": "exact"}]}
        )  # fmt: skip
        return scorer.corpus(pt_pt, pt_br).score

    assert corpus("pt") > corpus("pt-nospell")


# -- function words ----------------------------------------------------------------------


def test_function_words() -> None:
    words = builtin_function_words(resolve_language("pt"))
    for word in ["o", "a", "de", "do", "na", "pelo", "àquele", "que", "não", "se", "lhe", "é",
                 "em", "por", ",", "."]:  # fmt: skip
        assert word in words, word
    for word in ["casa", "carro", "chegar", "bonito", "segundo", "estado", "caso"]:
        assert word not in words, word
    scorer = Scorer(
        {"language": "pt", "function_words": "builtin", "stages": [{"matcher": "exact"}]}
    )
    assert scorer.function_words_id == "builtin-pt"


# -- the explainer's worked examples -------------------------------------------------------


@pytest.mark.parametrize(("hyp", "expected"), EXPLAINER_HYPS.items())
def test_explainer_examples_exact_only(hyp: str, expected: float) -> None:
    scorer = Scorer({"extends": "meteor-2005", "language": "pt", "stages": [{"matcher": "exact"}]})
    assert round(scorer.segment(hyp, EXPLAINER_REF).score, 4) == expected


@pytest.mark.data
def test_preset_configuration(pt_preset: Scorer) -> None:
    cfg = pt_preset.config
    assert cfg.language == "pt" and cfg.aligner.name == "optimal"
    assert cfg.normalize.tokenizer == "pt"
    assert [m.name for m in pt_preset.matchers] == ["exact", "stem", "lemma", "synonym-omw"]
    assert pt_preset.function_words_id == "builtin-pt"


@pytest.mark.data
@pytest.mark.parametrize(
    ("hyp", "ref"),
    [
        ("Ele chegou ontem.", "Eles chegaram ontem."),  # stem / lemma
        ("Ele fez o bolo.", "Ele fizeram o bolo."),  # lemma (irregular: fazer)
        ("Os automóveis novos chegaram.", "Os carros novos chegaram."),  # synonym, plural
        ("As casas são lindas.", "As casas são bonitas."),  # synonym, feminine plural
        ("O fato é que a ação foi ótima.", "O facto é que a acção foi óptima."),  # spelling
        ("Vende-se a casa.", "Se vende a casa."),  # clitics
        ("Obrigado!", "obrigado!"),  # case only
    ],
)
def test_preset_scores_higher_where_stems_lemmas_synonyms_apply(
    pt_preset: Scorer, hyp: str, ref: str
) -> None:
    exact = [{"matcher": "exact"}]
    exact_only = Scorer(
        {"extends": "pt", "stages": exact, "normalize": {"tokenizer": "pt-nospell"}}
    )
    assert pt_preset.segment(hyp, ref).score > exact_only.segment(hyp, ref).score
    meteor_2005 = Scorer({"extends": "meteor-2005", "language": "pt", "stages": exact})
    assert meteor_2005.segment(hyp, ref).score < 1.0


@pytest.mark.data
def test_chegou_chegaram(pt_preset: Scorer) -> None:
    result = pt_preset.segment("ele chegou", "ele chegaram")
    assert len(result.alignment.matches) == 2
    assert {m.stage for m in result.alignment.matches} == {0, 1}  # exact + stem


@pytest.mark.data
def test_preset_explainer_examples(pt_preset: Scorer) -> None:
    for hyp in EXPLAINER_HYPS:
        assert 0.0 < pt_preset.segment(hyp, EXPLAINER_REF).score < 1.0
    assert pt_preset.segment(EXPLAINER_REF, EXPLAINER_REF).score == 1.0


# -- Meteor 1.5 parity on real Portuguese MT output ----------------------------------------

PARITY_SETS = [
    ("maia_chat_en-ptbr_mtpe", "MAIA-MT"),
    ("lalic_fapesp_en-ptbr_errors", "NMT"),
    ("lalic_fapesp_en-ptbr_errors", "PBSMT"),
]


@pytest.mark.jar
@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize(("folder", "system"), PARITY_SETS)
def test_meteor15_pt_parity_with_the_jar(folder: str, system: str) -> None:
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.oracle import jar as oracle

    reason = oracle.unavailable_reason()
    if reason:
        pytest.skip(reason)
    base = require_data("pt", folder)
    hyp_path, ref_path = base / "hyps" / f"{system}.txt", base / "refs.txt"
    result = oracle.run_jar(hyp_path, ref_path, ["-l", "pt", "-lower"])
    hyps, refs = read_lines(hyp_path), read_lines(ref_path)
    assert len(result.segment_scores) == len(hyps) == len(refs)
    scorer = Scorer({"extends": "meteor-1.5-pt", "normalize": "lower"})
    ours = [scorer.segment(h, r).score for h, r in zip(hyps, refs, strict=True)]
    close = sum(abs(a - b) <= 1e-6 for a, b in zip(ours, result.segment_scores, strict=True))
    share = close / len(ours)
    assert share >= 0.995, f"{folder}/{system}: {close}/{len(ours)} segments within 1e-6"
    system_score = scorer.corpus(hyps, refs).score
    assert abs(system_score - result.system_score) <= 1e-6


def test_data_folder_is_documented() -> None:
    assert isinstance(PT, Path)
