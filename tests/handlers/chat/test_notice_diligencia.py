"""The diligência of a reclamação (CP Art. 42) on the form engine (``handlers.chat.notice_diligencia``): a
confirmation, ordered once however many taps arrive at the same instant, and the clerk's role checked on every
update, not only at the press that started it."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from core.municipality import cities_of
from models.columns import utcnow
from models.notices.chain import events_of
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import file_filing
from models.notices.tables import NoticeDelivery, NoticeFiling
from models.people import Role, StaffMember, add_staff
from tests.auxil.case_chat import Talk
from tests.auxil.notices import cp_auto, designate, issue, opted_in, person

CLARA, MARIA = 810601, 810602


async def _filing(emulator: Any, settings: Any, sessions: Any) -> tuple[Talk, Any, int]:
    """A clerk in /defesas at a pending CP reclamação; the filing's screen and id."""
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="pt-br"))
    await clara.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
        await designate(session, settings, CLARA, "primeira_instancia")
        maria = await person(session, MARIA, "Maria")
        await opted_in(session, maria.id)
        issued = await issue(session, settings, cp_auto(person_id=maria.id), now=utcnow())
        delivery = (await session.exec(select(NoticeDelivery))).one()
        assert delivery.id is not None and issued.notice.id is not None
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=maria.id, now=utcnow())
        filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                                   person_id=maria.id, text="Não é meu terreno.")
    assert filing.id is not None
    listing = await clara.send("/defesas", "Defesas e recursos a decidir")
    detail = await clara.press_and_edit(listing, f"dfs:fil:{filing.id}", "protocolo em")
    return clara, detail, filing.id


async def _diligencias(sessions: Any, filing_id: int) -> int:
    async with sessions() as session:
        filing = await session.get(NoticeFiling, filing_id)
        assert filing is not None
        await session.refresh(filing)
        events = await events_of(session=session, notice_id=filing.notice_id)
    return sum("dilig" in str(event.kind).lower() for event in events)


async def test_a_double_tap_on_confirm_orders_the_diligencia_once(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    clara, detail, filing_id = await _filing(emulator, settings, sessions)
    await clara.press(detail, f"dlg:open:{filing_id}", "para que é a diligência")
    confirm = await clara.send("Vistoria no terreno com o proprietário.", "Convertido em diligência")
    assert "dlg:send" in clara.buttons(confirm)
    for _ in range(2):
        emulator.press_button(clara.user, confirm, "dlg:send")
    await emulator.wait_until(lambda: any("já foi registrado" in t for t in clara.since(confirm.message_id)))
    answers = clara.since(confirm.message_id)
    assert sum("Diligência registrada" in t for t in answers) == 1
    assert await _diligencias(sessions, filing_id) == 1
    await emulator.wait_until(lambda: not emulator.unanswered_callbacks())


async def test_a_clerk_whose_role_is_withdrawn_while_typing_orders_nothing(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    clara, detail, filing_id = await _filing(emulator, settings, sessions)
    asked = await clara.press(detail, f"dlg:open:{filing_id}", "para que é a diligência")
    async with sessions() as session:
        for member in (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == CLARA))).all():
            member.active = False
            session.add(member)
        await session.commit()
    await clara.send("Vistoria no terreno com o proprietário.", "Só servidores com o perfil certo")
    assert not [t for t in clara.since(asked.message_id) if "Convertido em diligência" in t or "registrada" in t]
    assert await _diligencias(sessions, filing_id) == 0
    # the form is closed (before, the draft stayed and every later text was refused again)
    await clara.send("Outra coisa.", "Não entendi")
