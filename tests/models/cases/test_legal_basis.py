"""A case's references read with each law named once, followed by its articles in the order cited."""

from __future__ import annotations

from models.cases.filing import CP_TITLE, L1533_TITLE, representation_refs, ride_hailing_refs
from models.cases.legal_basis import by_law


def test_a_representacao_names_the_codigo_de_posturas_once() -> None:
    # CP Art. 30–32 (the representação) and the breached rule, Art. 53 Tabela I item 9.
    assert by_law(representation_refs("CP-I-9")) == (f"{CP_TITLE}, Art. 30 a 32; Art. 53 (Tabela I, item 9)",)


def test_a_ride_hailing_report_keeps_an_article_with_a_comma_whole() -> None:
    # L1533 Art. 7º par. único (waiting at a taxi rank) and Art. 27 (a car not registered).
    assert by_law(ride_hailing_refs("rank", registered=False)) == (
        f"{L1533_TITLE}, Art. 7º, par. único; Art. 27",)


def test_two_laws_stay_apart_and_a_bare_title_is_kept() -> None:
    assert by_law([f"{CP_TITLE}, Art. 30 a 32", "Lei nº 13.460/2017", f"{CP_TITLE}, Art. 30 a 32"]) == (
        f"{CP_TITLE}, Art. 30 a 32", "Lei nº 13.460/2017")
