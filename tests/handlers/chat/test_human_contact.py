"""A person to reach (issue 20 §3): /ajuda is short and gives the city hall's phone, WhatsApp, address and hours
from the municipalities file; every "Não entendi" offers that contact on a button beside the menu's."""

from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings, load_settings
from handlers.chat.human_contact import HUMAN_DATA
from handlers.chat.replies import MENU_DATA
from tests.auxil.case_chat import Talk
from tests.auxil.municipalities import write_municipalities

SAPEZAL_CONTACT = 'contact = { phone = "(65) 3383-4500", whatsapp = "+5565999990000" }'


@pytest.fixture
def settings(settings: Settings, tmp_path: Path) -> Settings:
    """The test deployment, Sapezal with a phone and a WhatsApp; its office has no hours, Nova Xavantina's has."""
    return load_settings(database_url=settings.database_url, municipalities_file=write_municipalities(
        tmp_path, sapezal_extra=SAPEZAL_CONTACT))


async def test_ajuda_is_short_and_gives_the_city_halls_phone_whatsapp_and_address(
    emulator: Any, bot_app: Any
) -> None:
    maria = Talk(emulator, emulator.add_user(872001, "Maria", language_code="pt-br"))
    start = await maria.send("/start", "Qual é a sua cidade?")
    await maria.press_and_edit(start, next(b for b in maria.buttons(start) if "sapezal" in b), "Pronto")
    answer = await maria.send("/ajuda", "Como usar o Balcão")
    assert "📞 Telefone: (65) 3383-4500" in answer.text
    assert "https://wa.me/5565999990000" in answer.text
    assert "Av. Antonio André Maggi, 1400, Centro" in answer.text  # the first office of Sapezal
    assert "/representacao —" not in answer.text and len(answer.text.splitlines()) <= 9  # short: no command list


async def test_every_dont_understand_offers_the_human_contact_beside_the_menu(emulator: Any, bot_app: Any) -> None:
    maria = Talk(emulator, emulator.add_user(872002, "Maria", language_code="pt-br"))
    lost = await maria.send("quero falar com alguém", "Não entendi")
    assert "fale com uma pessoa da prefeitura" in lost.text
    assert maria.buttons(lost) == [MENU_DATA, HUMAN_DATA]
    card = await maria.press_and_edit(lost, HUMAN_DATA, "Fale com uma pessoa da prefeitura de Sapezal")
    assert "(65) 3383-4500" in card.text and "wa.me/5565999990000" in card.text
    assert "prefeitura de Nova Xavantina" in card.text  # no city chosen yet: each city's card
    assert maria.buttons(card) == [MENU_DATA]


async def test_nova_xavantinas_card_gives_its_office_hours_and_no_whatsapp_where_none_is_configured(
    emulator: Any, bot_app: Any
) -> None:
    carlos = Talk(emulator, emulator.add_user(872003, "Carlos", language_code="pt-br"))
    start = await carlos.send("/start", "Qual é a sua cidade?")
    await carlos.press_and_edit(start, next(b for b in carlos.buttons(start) if "nova-xavantina" in b), "Pronto")
    answer = await carlos.send("/ajuda", "Como usar o Balcão")
    assert "🕘 Horário de atendimento: segunda a sexta, 7h às 11h e 13h às 17h" in answer.text
    assert "WhatsApp" not in answer.text  # none configured there
