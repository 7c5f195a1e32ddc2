"""Helpers for the penalty-notice tests: the cast, a complete notice input, and the outbox seen as sent."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.settings import Settings
from models.notices.issuing import IssuedNotice, NoticeInput, issue_notice
from models.notices.optin import record_acceptance
from models.notices.tables import NoticeType
from models.outbox import OutboxMessage, OutboxStatus
from models.people import PersonView, Role, add_staff, ensure_person

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
                actor: str = "test") -> IssuedNotice:
    """Issue a notice at ``now``."""
    return await issue_notice(session=session, settings=settings, data=data, actor=actor, now=now)


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
