"""A citizen's notice screen (issue 9 item 10): one governing window per right, in plain words.

The Código de Posturas gives a notificação preliminar two readings of the defence window (Art. 24 and Art. 278);
the system applies one (docs/LEGAL-CHOICES.md). The person it is addressed to sees that one; "Outra leitura"
stays on staff screens and in ``python -m bot prazo``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import select

from models.deadlines import WindowRole
from models.notices.delivery import record_explicit_ciencia
from models.notices.status import notice_view
from models.notices.tables import NoticeDelivery
from tests.auxil.case_chat import Talk
from tests.auxil.notices import cp_preliminar, issue, opted_in, person


async def test_the_citizen_sees_one_window_per_right_and_no_other_reading(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    user = emulator.add_user(820401, "Maria", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    now = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    async with sessions() as session:
        maria = await person(session, user.id, "Maria")
        await opted_in(session, maria.id, now=now)
        issued = await issue(session, settings, cp_preliminar(offender_document=None, person_id=maria.id), now=now)
        delivery = (await session.exec(select(NoticeDelivery))).one()
        await record_explicit_ciencia(session=session, settings=settings, delivery_id=delivery.id,
                                      person_id=maria.id, now=now)
        view = await notice_view(session=session, settings=settings, notice=issued.notice, today=now.date())
    readings = [w for w in view.windows if w.role is WindowRole.ALTERNATIVE]
    assert readings, "this notice has another reading of its defence window (the case this test is about)"
    listing = await talk.send("/notificacoes", "Suas notificações")
    screen = await talk.press_and_edit(listing, f"ntc:show:{issued.notice.id}", "Prazos")
    deadlines = [line for line in screen.text.splitlines() if line.startswith("• ")]
    assert len(deadlines) == 1, screen.text
    assert "Outra leitura" not in screen.text and readings[0].rule.article not in screen.text
