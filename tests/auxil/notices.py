"""Helpers for the penalty-notice tests: the cast, a complete notice input, and the outbox seen as sent."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Publication, cities_of
from core.settings import Settings
from models.authorities import authorities_of, grant_authority
from models.notices.elements import NoticeInput
from models.notices.issuing import IssuedNotice, issue_notice
from models.notices.optin import record_acceptance
from models.notices.tables import NoticeType
from models.outbox import OutboxMessage, OutboxStatus
from models.people import PersonView, Role, StaffMember, add_staff, ensure_person

MARIA_CPF = "52998224725"  # Maria Aparecida, the driver (a valid test CPF)
JOAO_CPF = "11144477735"  # João, the citizen


async def person(session: AsyncSession, telegram_id: int, name: str, language: str = "pt-br") -> PersonView:
    """A person who talked to the bot."""
    return await ensure_person(session=session, telegram_user_id=telegram_id, chat_id=telegram_id,
                               first_name=name, language_code=language)


async def staff(session: AsyncSession, telegram_id: int, name: str, role: Role) -> PersonView:
    """A staff member who talked to the bot."""
    view = await person(session, telegram_id, name)
    await add_staff(session=session, telegram_user_id=telegram_id, role=role, name=name, actor="test")
    return view


AUTUANTE = 97001
"""The designated inspector who signs the test notices (CP Art. 12: with her portaria)."""
CHEFE = 97002
"""The head of department, who decides in the first instance (CP Art. 40; Lei 1.533 Art. 17)."""
PREFEITO = 97003
"""The Prefeito, who decides the appeal (CP Art. 43, 45)."""
CAST = {AUTUANTE: ("Inês Fiscal", "1234", Role.INSPECTOR, "autuar"),
        CHEFE: ("Carlos Chefe", "2345", Role.CLERK, "primeira_instancia"),
        PREFEITO: ("Paula Prefeita", "3456", Role.CLERK, "segunda_instancia")}


async def competent(session: AsyncSession, settings: Settings, telegram_id: int, act: str, *,
                    name: str = "", role: Role = Role.CLERK, municipality: str | None = None,
                    registration: str = "") -> int:
    """Make ``telegram_id`` a staff member competent for ``act`` in ``municipality`` (every one when None)."""
    await add_staff(session=session, telegram_user_id=telegram_id, role=role, name=name or f"Servidor {telegram_id}",
                    actor="test", municipality=municipality, registration=registration or f"M{telegram_id}")
    member = (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == telegram_id,
                                                           StaffMember.municipality == municipality))).one()
    places = [settings.municipalities[municipality]] if municipality else list(settings.municipalities.values())
    for place in places:
        await grant_authority(session=session, member=member, act=act, municipality=place, actor="test",
                              designation_kind="Portaria", designation_number=f"{telegram_id}/2026",
                              designation_on=dt.date(2026, 1, 2))
    return telegram_id


async def cast(session: AsyncSession, settings: Settings) -> None:
    """The designated inspector, the head of department and the Prefeito, in every municipality (idempotent)."""
    for telegram_id, (name, registration, role, act) in CAST.items():
        if (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == telegram_id))).first():
            continue
        await person(session, telegram_id, name)
        await competent(session, settings, telegram_id, act, name=name, role=role, registration=registration)


async def designate(session: AsyncSession, settings: Settings, telegram_id: int, act: str = "autuar") -> None:
    """Give an existing staff member (of the test's own cast) the competence for ``act``, once."""
    members = (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == telegram_id))).all()
    for member in members:
        assert member.id is not None
        held = {(row.act, row.municipality) for row in await authorities_of(session=session, staff_member_id=member.id)}
        member.registration = member.registration or f"M{telegram_id}"
        session.add(member)
        places = [settings.municipalities[member.municipality]] if member.municipality else list(
            settings.municipalities.values())
        for place in places:
            if (act, place.slug) not in held:
                await grant_authority(session=session, member=member, act=act, municipality=place, actor="test",
                                      designation_kind="Portaria", designation_number=f"{telegram_id}/2026",
                                      designation_on=dt.date(2026, 1, 2))


async def opted_in(session: AsyncSession, person_id: int, *, cpf: str | None = None,
                   now: dt.datetime | None = None) -> None:
    """The person accepted electronic notification."""
    await record_acceptance(session=session, person_id=person_id, cpf=cpf, now=now)
    await session.commit()


def cp_auto(**changes: Any) -> NoticeInput:
    """An auto de infração of the Código de Posturas: a plot overgrown with weeds (CP Tabela I item 1, 9 UPF-NX)."""
    base = NoticeInput(
        type=NoticeType.AUTO,
        rulebook="nx-posturas",
        infraction_code="CP-I-1",
        offender_name="Maria Aparecida da Silva",
        offender_document=MARIA_CPF,
        offender_address="Rua das Acácias, 45, Centro",
        place="Rua 7 de Setembro, 200",
        drawn_up_on=dt.date(2026, 3, 2),
        drawn_up_time=dt.time(9, 30),
        facts="Terreno com mato alto, sem limpeza há meses.",
        issuer_name="Inês Fiscal (mat. 1234)",
    )
    return replace(base, **changes)


def cp_preliminar(**changes: Any) -> NoticeInput:
    """A notificação preliminar of the Código de Posturas."""
    return cp_auto(**{"type": NoticeType.PRELIMINAR, **changes})


def l1533_auto(**changes: Any) -> NoticeInput:
    """An auto de infração of Lei 1.533/2020: a street pick-up without the app (Art. 26 IV)."""
    values: dict[str, Any] = {"rulebook": "sapezal-1533", "infraction_code": "L1533-26-IV",
                              "facts": "Embarque de passageiro na via pública sem intermediação do aplicativo."}
    return cp_auto(**{**values, **changes})


async def issue(session: AsyncSession, settings: Settings, data: NoticeInput, *, now: dt.datetime,
                actor: str = "test", signer: int = AUTUANTE, late_confirmed: bool = True) -> IssuedNotice:
    """Issue a notice at ``now``, signed by the designated inspector (the cast is created first if needed).

    Most tests draw an auto up on one day and issue it months later to reach another deadline: they confirm the
    L1533 Art. 22 §1 limit (``late_confirmed``); the limit's own tests issue without confirming.
    """
    if signer == AUTUANTE:
        await cast(session, settings)
    else:
        await designate(session, settings, signer)
    return await issue_notice(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                              data=data, actor=actor, issuer_telegram_id=signer,
                              late_confirmed=late_confirmed, now=now)


async def mark_outbox_sent(session: AsyncSession, *, at: dt.datetime, kind: str | None = None) -> int:
    """Pretend the dispatcher sent every pending outbox row (of a kind) at ``at``; return how many."""
    rows = (await session.exec(select(OutboxMessage).where(OutboxMessage.status == OutboxStatus.PENDING))).all()
    count = 0
    for row in rows:
        if kind is None or row.kind == kind:
            row.status, row.sent_at = OutboxStatus.SENT, at
            session.add(row)
            count += 1
    await session.commit()
    return count


async def outbox(session: AsyncSession, kind: str | None = None) -> list[OutboxMessage]:
    """The outbox rows (of a kind), oldest first."""
    query = select(OutboxMessage).order_by(OutboxMessage.id)  # type: ignore[arg-type]
    rows = (await session.exec(query)).all()
    return [row for row in rows if kind is None or row.kind == kind]


def pdf_text(pdf: bytes) -> str:
    """The text drawn in a reportlab PDF (its ASCII85+Flate streams' strings, WinAnsi decoded), one line per run."""
    import base64
    import re
    import zlib

    runs: list[str] = []
    for match in re.finditer(rb"stream\r?\n(.*?)endstream", pdf, re.S):
        data = match.group(1).strip().removesuffix(b"~>")
        try:
            content = zlib.decompress(base64.a85decode(data))
        except (ValueError, zlib.error):
            continue
        for literal in re.finditer(rb"\(((?:\\.|[^\\)])*)\)\s*Tj", content):
            raw = re.sub(rb"\\([0-7]{1,3})", lambda m: bytes([int(m.group(1), 8)]), literal.group(1))
            raw = re.sub(rb"\\(.)", rb"\1", raw)
            runs.append(raw.decode("cp1252"))
    return "\n".join(runs)


def pdf_plain_text(pdf: bytes) -> str:
    """The text of a PDF as poppler's ``pdftotext`` reads it (independent of reportlab), whitespace collapsed."""
    import subprocess

    result = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True)
    return " ".join(result.stdout.decode("utf-8").split())
