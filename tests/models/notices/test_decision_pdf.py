"""Each decision is a document of its own: signed by the Prefeitura whose act it is, citing its own law, logged,
sent with its message; a decision given before this version stays valid, "unsigned" (issue 18 "Done when")."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib

from sqlalchemy import text
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import Publication, cities_of
from core.settings import Settings
from models.notices.chain import events_of
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import decide_filing, file_filing
from models.notices.signing import decision_signature
from models.notices.tables import FilingOutcome, NoticeDelivery, NoticeFiling
from models.signatures.validation import read_roots
from models.tlog.proofs import entries_of_row
from notifications.notice_messages import DECISION, render_decision
from tests.auxil.notices import CHEFE, cp_auto, issue, l1533_auto, outbox, pdf_plain_text
from tests.models.notices.conftest import Cast
from tests.models.notices.test_deadlines_from_ciencia import at_cuiaba

REASONS = "Improcedente: as fotos do auto mostram a infração na data da vistoria."


async def _decided(session: AsyncSession, settings: Settings, people: Cast, *, l1533: bool = False) -> NoticeFiling:
    data = (l1533_auto if l1533 else cp_auto)(person_id=people.maria.id)
    issued = await issue(session, settings, data, now=at_cuiaba(dt.date(2026, 4, 6), 11))
    delivery = (await session.exec(select(NoticeDelivery))).one()
    assert delivery.id is not None and issued.notice.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=people.maria.id, now=at_cuiaba(dt.date(2026, 4, 6), 12))
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                               person_id=people.maria.id, text="Não sou a proprietária.",
                               now=at_cuiaba(dt.date(2026, 4, 7)))
    assert filing.id is not None
    return await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                               filing_id=filing.id, outcome=FilingOutcome.DENIED,
                               text=REASONS, decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 4, 8)))


async def test_a_lei_1533_decision_is_sapezals_act_and_cites_its_own_law(
    session: AsyncSession, signed_settings: Settings, cast: Cast
) -> None:
    # CF Art. 30 I: Sapezal's certificate signs the decision on a Lei 1.533 auto; L1533 Art. 17 and 22, not the
    # Código de Posturas' Art. 40–41.
    decided = await _decided(session, signed_settings, cast, l1533=True)
    assert decided.decision_pdf is not None and decided.id is not None
    signing = signed_settings.municipalities["sapezal"].signing
    assert signing is not None
    report = await decision_signature(session=session, filing_id=decided.id, cities=cities_of(signed_settings))
    assert report.intact and report.trusted and report.signer == "Prefeitura Municipal de Sapezal"
    assert read_roots(signing.trust_roots)
    words = pdf_plain_text(decided.decision_pdf)
    assert "Lei nº 1.533/2020 (Sapezal), Art. 17 e 22" in words and "Código de Posturas" not in words
    assert "Prefeitura Municipal de Sapezal" in words and "Carlos Chefe" in words
    # L9784 Art. 26 §1 IV: in person or represented (the decision is an intimação too, §5)
    assert "pode ser representado por alguém que autorizar por escrito" in " ".join(words.split())


async def test_the_decision_pdf_is_logged_chained_and_sent_with_its_message(
    session: AsyncSession, signed_settings: Settings, cast: Cast
) -> None:
    decided = await _decided(session, signed_settings, cast)
    assert decided.decision_pdf is not None and decided.id is not None
    digest = hashlib.sha256(decided.decision_pdf).hexdigest()
    assert decided.decision_pdf_sha256 == digest
    # The transparency log covers it like the notice's PDF: the filing's latest leaf holds its digest.
    connection = await session.connection()
    leaves = await connection.run_sync(lambda sync: entries_of_row(sync, "notice_filing", decided.id or 0))
    assert digest in leaves[-1].data.decode("utf-8")
    events = await events_of(session=session, notice_id=decided.notice_id)
    assert [e.data["pdf_sha256"] for e in events if e.kind == "decision"] == [digest]
    # Delivered in the chat with the signed PDF attached (L9784 Art. 26: the intimação carries the act).
    message = (await outbox(session, DECISION))[-1]
    rendered = render_decision(message.payload, translator("pt_BR", signed_settings.timezone))
    assert rendered.document is not None
    name, content = rendered.document
    assert content == decided.decision_pdf and base64.b64decode(message.payload["pdf_b64"]) == content
    assert "52998224725" not in name and "Maria" not in name  # LGPD: the file name names only the act


async def test_a_decision_given_before_this_version_stays_valid_as_unsigned(
    session: AsyncSession, signed_settings: Settings, cast: Cast
) -> None:
    decided = await _decided(session, signed_settings, cast)
    filing_id = decided.id
    assert filing_id is not None
    # A decision of an older version: the row as migration 0017 leaves it (no document of its own).
    await (await session.connection()).execute(
        text("UPDATE notice_filing SET decision_pdf = NULL, decision_pdf_sha256 = NULL WHERE id = :id"),
        {"id": filing_id})
    await session.commit()
    session.expire_all()
    report = await decision_signature(session=session, filing_id=filing_id, cities=cities_of(signed_settings))
    assert not report.signed
    message = (await outbox(session, DECISION))[-1]
    message.payload.pop("pdf_b64")
    assert render_decision(message.payload, translator("pt_BR")).document is None
