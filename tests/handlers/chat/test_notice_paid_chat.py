"""In the chat, a paid notice reads "multa paga" in /notificacoes and on its screen (CP Art. 34 IV; issue 18 §8)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from core.municipality import cities_of
from models.payments.recording import record_payment
from tests.auxil.case_chat import Talk
from tests.auxil.notices import cp_auto, issue, opted_in, person


async def test_the_person_sees_the_fine_paid(emulator: Any, bot_app: Any, settings: Any, sessions: Any) -> None:
    user = emulator.add_user(820601, "Maria", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    now = dt.datetime.now(dt.UTC)
    async with sessions() as session:
        maria = await person(session, user.id, "Maria")
        await opted_in(session, maria.id, now=now - dt.timedelta(days=2))
        issued = await issue(session, settings, cp_auto(offender_document=None, person_id=maria.id),
                             now=now - dt.timedelta(days=1))
        await record_payment(session=session, cities=cities_of(settings), number=issued.notice.number,
                             amount=Decimal("378.00"), paid_on=now.astimezone(settings.tz).date(),
                             reference="E2E-CHAT", actor="test", staff_telegram_id=None, now=now)
    listing = await talk.send("/notificacoes", "Suas notificações")
    assert "multa paga" in listing.text
    screen = await talk.press_and_edit(listing, f"ntc:show:{issued.notice.id}", "Multa paga em")
    assert "✅ Multa paga em" in screen.text
