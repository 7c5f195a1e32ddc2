"""The public check of a verification code: is this document authentic? (issue 6, item 3).

Returns only what the paper already shows to anyone holding it and nothing personal: the type, number and
issue date, the law and article, the notice's stage, when it was drawn up and who signed it (the public
official who acted, by name, role, office and designation; issue 18 §2). Never the name, CPF/CNPJ, address or facts.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.municipalities import Municipality
from models.notices.codes import code_hash, normalize_code, same_hash
from models.notices.tables import FilingKind, Notice, NoticeFiling, NoticeOutcome, NoticeStage, NoticeType
from models.rulebooks.catalogue import LAW_TITLES, CatalogueError, get_infraction


@dataclass(frozen=True, slots=True)
class PublicNotice:
    """What the verification page may show about an authentic notice."""

    notice_id: int
    type: NoticeType
    number: str
    issued_at: dt.datetime
    law_title: str
    article: str
    stage: NoticeStage
    outcome: NoticeOutcome | None
    municipality: str  # the slug of the Prefeitura that issued it
    authority: str = ""  # its name as recorded on the act ("Prefeitura Municipal de Nova Xavantina")
    infringed: str = ""  # the provision infringed, apart from the penalty article (CP Art. 25 III, 34 III)
    drawn_up_at: dt.datetime | None = None  # the lavratura (issue 18 §2), apart from the signature
    signer: dict[str, Any] | None = None  # who signed it (a public official acting: not personal data of a party)
    signed_at: dt.datetime | None = None
    decisions: tuple[PublicDecision, ...] = ()  # issue 18 §1: every decision names its author


@dataclass(frozen=True, slots=True)
class PublicDecision:
    """A decision on a filing of the notice, as the public page names it: kind, moment and author (no reasons)."""

    kind: FilingKind
    decided_at: dt.datetime
    decider: dict[str, Any] | None  # None: decided before deciders were recorded, or rejected by lapse (CP Art. 42)
    filing_id: int = 0
    has_document: bool = False  # a signed PDF of its own (issue 18); False: decided before this version


async def _notice_of_code(session: AsyncSession, code: str) -> Notice | None:
    if normalize_code(code) is None:
        return None
    digest = code_hash(code)
    notice = (await session.exec(select(Notice).where(Notice.code_hash == digest))).first()
    if notice is None or not same_hash(notice.code_hash, digest):
        return None
    return notice


async def notice_id_of_code(*, session: AsyncSession, code: str) -> int | None:
    """The id of the notice a verification code belongs to, or None."""
    notice = await _notice_of_code(session, code)
    return None if notice is None else notice.id


async def verify_code(*, session: AsyncSession, code: str) -> PublicNotice | None:
    """The notice a verification code belongs to, or None (not a code, or no such notice)."""
    notice = await _notice_of_code(session, code)
    if notice is None:
        return None
    return PublicNotice(
        notice_id=notice.id or 0,
        type=notice.type,
        number=notice.number,
        issued_at=notice.issued_at,
        law_title=LAW_TITLES.get(notice.rulebook, notice.rulebook),
        article=notice.infraction_article,
        stage=notice.stage,
        outcome=notice.outcome,
        municipality=notice.municipality,
        authority=notice.issuer_authority or await _authority_of(session, notice.municipality),
        infringed=notice.infringed_provision or _row_provision(notice.infraction_code),
        drawn_up_at=notice.drawn_up_at,
        signer=notice.signer,
        signed_at=notice.signed_at,
        decisions=tuple(
            PublicDecision(kind=filing.kind, decided_at=filing.decided_at, decider=filing.decider,
                           filing_id=filing.id or 0, has_document=bool(filing.decision_pdf))
            for filing in (await session.exec(
                select(NoticeFiling)
                .where(NoticeFiling.notice_id == notice.id, col(NoticeFiling.decided_at).is_not(None))
                .order_by(col(NoticeFiling.id)))).all()
            if filing.decided_at is not None
        ),
    )


def _row_provision(code: str) -> str:
    """The catalogue row's provision infringed (empty for a row that names none, or a code no longer listed)."""
    try:
        return get_infraction(code).infringed
    except CatalogueError:
        return ""


async def _authority_of(session: AsyncSession, slug: str) -> str:
    """The Prefeitura of a municipality row (kept after it leaves the file), for an act that did not record it."""
    row = await session.get(Municipality, slug)
    return f"Prefeitura Municipal de {row.name}" if row is not None else ""
