"""The keyword lists that point a sentence typed at the menu to a form (issue 19 §4.4), in pt_BR, en and es."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from core.i18n import SUPPORTED_LOCALES
from models.cases import sentence_forms
from models.cases.sentence_forms import TARGETS, guess_form
from models.cases.tables import OmbudsmanType


@pytest.mark.parametrize(
    ("sentence", "form", "kind", "ombudsman_type"),
    [
        ("quero denunciar queimada de lixo", "representacao", "cp", None),
        ("Tem um terreno baldio cheio de mato alto na minha rua", "representacao", "cp", None),
        ("som alto todo dia até meia-noite", "representacao", "cp", None),
        ("o motorista do Uber pegou passageiro na rodoviária", "representacao", "app", None),
        ("quero reclamar do posto de saúde", "ouvidoria", None, OmbudsmanType.COMPLAINT),
        ("quero fazer um elogio à escola do bairro", "ouvidoria", None, OmbudsmanType.PRAISE),
        ("gostaria de sugerir mais ônibus", "ouvidoria", None, OmbudsmanType.SUGGESTION),
        ("I want to report rubbish dumped on the sidewalk", "representacao", "cp", None),
        ("I want to complain about the health centre", "ouvidoria", None, OmbudsmanType.COMPLAINT),
        ("quiero denunciar la basura en la acera", "representacao", "cp", None),
        ("quiero quejarme del centro de salud", "ouvidoria", None, OmbudsmanType.COMPLAINT),
    ],
)
def test_a_sentence_points_to_the_form_it_most_likely_means(
    sentence: str, form: str, kind: str | None, ombudsman_type: OmbudsmanType | None
) -> None:
    guess = guess_form(sentence)
    assert guess is not None and (guess.form, guess.kind, guess.ombudsman_type) == (form, kind, ombudsman_type)


@pytest.mark.parametrize("sentence", ["oi tudo bem", "asdf", "", "lixo no posto de saúde"])  # the last: a tie
def test_no_keyword_or_a_tie_is_no_guess(sentence: str) -> None:
    assert guess_form(sentence) is None


def test_a_report_the_municipality_does_not_take_is_no_guess() -> None:
    """CF Art. 30 I: Nova Xavantina has no Lei 1.533 (its kinds are only "cp")."""
    assert guess_form("o motorista de aplicativo me cobrou a mais", kinds=("cp",)) is None


def test_a_long_text_is_a_message_not_a_sentence() -> None:
    assert guess_form("lixo " * 200) is None


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_every_language_lists_every_form_and_the_ombudsman_types(locale: str) -> None:
    path = Path(sentence_forms.__file__).parent / f"sentence_keywords_{locale}.toml"
    data = tomllib.loads(path.read_text("utf-8"))
    assert set(TARGETS) <= set(data) and all(data[target]["topics"] for target in TARGETS)
    assert set(data["ouvidoria"]["types"]) <= {kind.value for kind in OmbudsmanType}
