"""Finding the Código de Posturas rule by the words people use (the catalogue is the rulebooks' CSV)."""

import pytest

from models.cases.catalogue_search import search_infractions

CP = ["nx-posturas"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("lixo na rua", "CP-I-9"),  # "Atirar animais, lixos, detritos… em vias públicas"
        ("barulho", "CP-XI-4"),  # "ruídos ou sons excessivos": an everyday synonym
        ("ÁGUA PARADA", "CP-I-2"),  # accents and case ignored; "estagnada"
        ("calçada", "CP-XIV-4"),
        ("queimada", "CP-I-6"),  # "Queimar detritos"
        ("entulho", "CP-III-3"),
        ("cp-xix-2", "CP-XIX-2"),  # a code finds its row
    ],
)
def test_everyday_words_find_the_rule(query: str, expected: str) -> None:
    found = [row.code for row in search_infractions(query, rulebooks=CP, limit=6)]
    assert expected in found


def test_a_row_is_not_listed_for_its_chapter_title_alone_when_rows_match_on_their_own() -> None:
    # "barulho" means the noise rows of chapter XI ("Da moralidade e do sossego público"), not every row of it:
    # the pornographic prints (CP-XI-1) were offered to a citizen reporting noise.
    found = [row.code for row in search_infractions("barulho", rulebooks=CP, limit=20)]
    assert {"CP-XI-4", "CP-XI-5"} <= set(found)
    assert "CP-XI-1" not in found


def test_a_chapter_title_still_finds_its_rows_when_nothing_else_matches() -> None:
    found = search_infractions("moralidade", rulebooks=CP, limit=20)
    assert found and all(row.table_title and "MORALIDADE" in row.table_title.upper() for row in found)


def test_generic_rows_come_last_and_nothing_matches_nonsense() -> None:
    found = search_infractions("lixo", rulebooks=CP, limit=20)
    generic = [row for row in found if row.description.startswith(("Outr", "Demais"))]
    assert found and all(found.index(row) >= len(found) - len(generic) for row in generic)
    assert search_infractions("xyzzy", rulebooks=CP) == []
    assert search_infractions("de a o", rulebooks=CP) == []  # only stopwords


def test_only_the_rulebooks_in_force_are_searched() -> None:
    assert search_infractions("lixo", rulebooks=["sapezal-1533"]) == []
    assert search_infractions("CP-I-9", rulebooks=["sapezal-1533"]) == []


def test_a_whole_message_costs_no_more_than_its_search_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search runs in the event loop that serves everyone: a staff member's 4,096-character message (chat
    /emitir) or 100 repeated characters (the console's ``?q=``) took 25 s and 0.7 s. Only the first distinct words
    count, so a long text does the work of a short one and finds the same rows."""
    from models.cases import catalogue_search

    calls = 0
    original = catalogue_search._matches

    def counted(phrase: str, words: object) -> bool:
        nonlocal calls
        calls += 1
        return original(phrase, words)  # type: ignore[arg-type]

    monkeypatch.setattr(catalogue_search, "_matches", counted)
    short = "lixo barulho calçada"
    found = search_infractions(short, rulebooks=["nx-posturas"], limit=8)
    work = calls
    calls = 0
    assert search_infractions((short + " ") * 200, rulebooks=["nx-posturas"], limit=8) == found
    assert calls <= work
    calls = 0
    many = " ".join(f"palavra{n}" for n in range(800))
    search_infractions(many, rulebooks=["nx-posturas"], limit=8)
    assert calls <= work * 3  # eight distinct words at most, whatever follows
