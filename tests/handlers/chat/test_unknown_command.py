"""A command no handler knows (``/xyz``) is answered in the person's language with the menu, like free text."""

from typing import Any

import pytest

from handlers.chat.human_contact import HUMAN_DATA
from handlers.chat.replies import MENU_DATA
from tests.auxil.case_chat import Talk


@pytest.mark.parametrize(
    ("language_code", "expected"),
    [("pt-br", "Não conheço esse comando."), ("en", "I do not know that command."), ("es", "No conozco ese comando.")],
)
async def test_an_unknown_command_gets_a_short_answer_and_the_menu_button(
    emulator: Any, bot_app: Any, language_code: str, expected: str
) -> None:
    maria = Talk(emulator, emulator.add_user(871001, "Maria", language_code=language_code))
    answer = await maria.send("/xyz", expected)
    assert "/ajuda" in answer.text
    assert maria.buttons(answer) == [MENU_DATA, HUMAN_DATA]  # the human contact beside the menu (issue 20 §3)


async def test_a_known_command_is_not_also_answered_as_unknown(emulator: Any, bot_app: Any) -> None:
    maria = Talk(emulator, emulator.add_user(871002, "Maria", language_code="pt-br"))
    await maria.send("/ajuda", "Como usar o Balcão")
    await maria.send("/xyz", "Não conheço esse comando.")
    assert sum("Não conheço esse comando" in text for text in maria.since(0)) == 1  # /xyz's, not /ajuda's too
