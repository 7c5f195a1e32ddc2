"""Defences, reclamações, appeals and decisions (CP Art. 37–47; L1533 Art. 22)."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import Publication, cities_of
from core.settings import Settings
from models.cases.attachments import AttachmentRefused
from models.notices.chain import events_of
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import (
    FilingRefused,
    attachments_of,
    decide_filing,
    file_filing,
    lapsed,
    pending_filings,
    store_filing_attachment,
)
from models.notices.status import notice_of_person, notice_view, notices_of_person
from models.notices.tables import (
    DocumentKind,
    FilingKind,
    FilingOutcome,
    Notice,
    NoticeDelivery,
    NoticeOutcome,
    NoticeStage,
)
from tests.auxil.case_files import pdf, png
from tests.auxil.notices import CHEFE, PREFEITO, cp_auto, cp_preliminar, issue, l1533_auto, outbox
from tests.auxil.tlog import verify
from tests.models.notices.conftest import Cast
from tests.models.notices.test_deadlines_from_ciencia import at_cuiaba


async def _acknowledge_last(session: AsyncSession, settings: Settings, person_id: int, day: dt.date,
                            hour: int = 12) -> None:
    delivery = (await session.exec(select(NoticeDelivery).order_by(NoticeDelivery.id.desc()))).first()  # type: ignore[union-attr]
    assert delivery is not None and delivery.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=person_id,
                                  now=at_cuiaba(day, hour))


async def _notified_auto(session: AsyncSession, settings: Settings, cast: Cast, day: dt.date, **changes: object) -> int:
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id, **changes), now=at_cuiaba(day, 11))
    await _acknowledge_last(session, settings, cast.maria.id, day)
    assert issued.notice.id is not None
    return issued.notice.id


async def _notice(session: AsyncSession, notice_id: int) -> Notice:
    notice = await session.get(Notice, notice_id)
    assert notice is not None
    await session.refresh(notice)
    return notice


async def test_cp_art_37_39_a_reclamacao_inside_the_window_suspends_the_fine(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    notice_id = await _notified_auto(session, settings, cast, dt.date(2026, 3, 2))
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                               person_id=cast.maria.id,
                               text="O terreno foi limpo no dia seguinte.", now=at_cuiaba(dt.date(2026, 3, 4)))
    assert filing.kind is FilingKind.RECLAMACAO
    notice = await _notice(session, notice_id)
    view = await notice_view(session=session, city=cities_of(settings).of(notice.municipality), notice=notice,
                             today=dt.date(2026, 3, 4))
    assert notice.stage is NoticeStage.UNDER_REVIEW and view.suspended and view.pending_filing == filing
    with pytest.raises(FilingRefused, match="waiting for a decision"):
        await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id, person_id=cast.maria.id,
                          text="De novo", now=at_cuiaba(dt.date(2026, 3, 4)))
    assert [f.id for f, _ in await pending_filings(session=session)] == [filing.id]


async def test_after_the_window_the_filing_is_refused_citing_the_article_and_the_last_day(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Ciência 2/3/2026: Art. 37 closes 12/3, Art. 278 §2 on 1/4 (the latest governs); 2/4 is too late."""
    notice_id = await _notified_auto(session, settings, cast, dt.date(2026, 3, 2))
    await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id, person_id=cast.maria.id,
                      text="Ainda no prazo do Art. 278.", now=at_cuiaba(dt.date(2026, 4, 1), 19))
    late = await _notified_auto(session, settings, cast, dt.date(2026, 3, 2), infraction_code="CP-I-2")
    with pytest.raises(FilingRefused) as refused:
        await file_filing(session=session, cities=cities_of(settings), notice_id=late, person_id=cast.maria.id,
                          text="Tarde demais.", now=at_cuiaba(dt.date(2026, 4, 2)))
    assert refused.value.citation.endswith("Art. 278, §2º")
    text = refused.value.render(translator("en"))
    assert "Wednesday, April 1, 2026" in text and "Art. 278, §2º" in text
    assert (await _notice(session, late)).stage is NoticeStage.NOTIFIED


async def test_nothing_can_be_filed_before_the_ciencia_nor_by_someone_else(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=at_cuiaba(dt.date(2026, 3, 2)))
    assert issued.notice.id is not None
    with pytest.raises(FilingRefused, match="Tomo ciência"):
        await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                          person_id=cast.maria.id,
                          text="Defesa", now=at_cuiaba(dt.date(2026, 3, 2)))
    with pytest.raises(FilingRefused, match="not addressed to you"):
        await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                          person_id=cast.joao.id,
                          text="Defesa", now=at_cuiaba(dt.date(2026, 3, 2)))


async def test_the_whole_cp_procedure_reclamacao_decision_appeal_final_decision(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    notice_id = await _notified_auto(session, settings, cast, dt.date(2026, 4, 6))
    reclamacao = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                                   person_id=cast.maria.id,
                                   text="Não sou a proprietária.", now=at_cuiaba(dt.date(2026, 4, 7)))
    assert reclamacao.id is not None
    with pytest.raises(FilingRefused, match=r"Art\. 41") as no_reasons:
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=reclamacao.id,
                            outcome=FilingOutcome.DENIED, text=" ", decider_telegram_id=CHEFE)
    assert "Art. 41" in no_reasons.value.citation  # CP Art. 41; L9784 Art. 50
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=reclamacao.id, outcome=FilingOutcome.DENIED,
                        text="Matrícula do imóvel em seu nome. Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=CHEFE,
                        now=at_cuiaba(dt.date(2026, 4, 16)))
    assert (await _notice(session, notice_id)).stage is NoticeStage.DECIDED
    [decision_message] = await outbox(session, "notice.decision")
    assert decision_message.mandatory and decision_message.payload["outcome"] == "denied"
    with pytest.raises(FilingRefused, match="received the decision"):
        await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id, person_id=cast.maria.id,
                          text="Recurso", now=at_cuiaba(dt.date(2026, 4, 17)))
    await _acknowledge_last(session, settings, cast.maria.id, dt.date(2026, 4, 17))
    recurso = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                                person_id=cast.maria.id,
                                text="Recorro ao Prefeito.", now=at_cuiaba(dt.date(2026, 5, 5), 17))
    assert recurso.kind is FilingKind.RECURSO and recurso.id is not None
    assert (await _notice(session, notice_id)).stage is NoticeStage.APPEALED  # no deposit asked (STF SV 21)
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=recurso.id, outcome=FilingOutcome.DENIED,
                        text="Mantido o auto. Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=PREFEITO, now=at_cuiaba(dt.date(2026, 5, 12)))
    notice = await _notice(session, notice_id)
    assert (notice.stage, notice.outcome) == (NoticeStage.CLOSED, NoticeOutcome.UPHELD)
    await _acknowledge_last(session, settings, cast.maria.id, dt.date(2026, 5, 13))
    view = await notice_view(session=session, city=cities_of(settings).of(notice.municipality), notice=notice,
                             today=dt.date(2026, 5, 13))
    # CP Art. 47 I: pay within 10 business days of the final decision's notice: 14–15, 18–22, 25–27 May
    assert {w.rule.id: w.final_date for w in view.windows}["cp-47-1-pagamento"] == dt.date(2026, 5, 27)
    assert view.refusal is not None and view.can_file is None
    kinds = [e.kind for e in await events_of(session=session, notice_id=notice_id)]
    assert kinds == ["issued", "delivery.electronic", "ciencia", "filing", "decision", "delivery.electronic",
                     "ciencia", "filing", "decision", "delivery.electronic", "ciencia"]
    assert (await verify(session)).ok


async def test_an_appeal_after_the_art_43_window_is_refused(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    notice_id = await _notified_auto(session, settings, cast, dt.date(2026, 4, 6))
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                               person_id=cast.maria.id,
                               text="Reclamo.", now=at_cuiaba(dt.date(2026, 4, 7)))
    assert filing.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.DENIED,
                        text="Improcedente. Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 4, 16)))
    await _acknowledge_last(session, settings, cast.maria.id, dt.date(2026, 4, 17))
    with pytest.raises(FilingRefused) as refused:
        await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id, person_id=cast.maria.id,
                          text="Recurso tardio.", now=at_cuiaba(dt.date(2026, 5, 6)))
    assert refused.value.citation.endswith("Art. 43, par. único")


async def test_cp_art_42_an_undecided_reclamacao_may_be_appealed_after_the_art_40_period(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """CP Art. 40: decision within 10 days of the reclamação; Art. 42: after that, appeal as if rejected."""
    notice_id = await _notified_auto(session, settings, cast, dt.date(2026, 4, 6))
    reclamacao = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                                   person_id=cast.maria.id,
                                   text="Não sou a proprietária.", now=at_cuiaba(dt.date(2026, 4, 7)))
    assert reclamacao.id is not None
    notice = await _notice(session, notice_id)
    on_time = await notice_view(session=session, city=cities_of(settings).of(notice.municipality), notice=notice,
                                today=dt.date(2026, 4, 17))
    # filed Tuesday 7 April: 10 days end on Friday 17 April, the last day the first instance may decide alone
    assert {w.rule.id: w.final_date for w in on_time.windows}["cp-40-decisao"] == dt.date(2026, 4, 17)
    assert on_time.art42_from is None and on_time.can_file is None
    with pytest.raises(FilingRefused, match="waiting for a decision"):
        await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id, person_id=cast.maria.id,
                          text="Recorro.", now=at_cuiaba(dt.date(2026, 4, 17)))

    late = await notice_view(session=session, city=cities_of(settings).of(notice.municipality), notice=notice,
                             today=dt.date(2026, 4, 18))
    assert late.art42_from == dt.date(2026, 4, 18) and late.can_file is FilingKind.RECURSO
    recurso = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                                person_id=cast.maria.id,
                                text="Sem decisão no prazo; recorro ao Prefeito.", now=at_cuiaba(dt.date(2026, 4, 20)))
    assert recurso.kind is FilingKind.RECURSO and recurso.id is not None
    await session.refresh(reclamacao)
    assert lapsed(reclamacao) and reclamacao.outcome is FilingOutcome.DENIED
    with pytest.raises(FilingRefused, match="no pending filing"):  # Art. 42: the first instance lost jurisdiction
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=reclamacao.id,
                            outcome=FilingOutcome.GRANTED,
                            text="Procedente, tarde demais. Vistos os fatos e as provas dos autos.",
                            decider_telegram_id=CHEFE)
    assert [filing.id for filing, _notice_row in await pending_filings(session=session)] == [recurso.id]

    notice = await _notice(session, notice_id)
    appealed = await notice_view(session=session, city=cities_of(settings).of(notice.municipality), notice=notice,
                                 today=dt.date(2026, 4, 20))
    assert notice.stage is NoticeStage.APPEALED
    # STF Súmula Vinculante 21: the appeal goes forward with no deposit (CP Art. 46 is not applied)
    assert appealed.windows == () and appealed.acts.appeal is None
    kinds = [e.kind for e in await events_of(session=session, notice_id=notice_id)]
    assert kinds[-2:] == ["decision.lapsed", "filing"]
    assert (await verify(session)).ok


async def test_art_42_is_only_for_the_codigo_de_posturas_reclamacao(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    issued = await issue(session, settings, l1533_auto(person_id=cast.maria.id), now=at_cuiaba(dt.date(2026, 4, 6)))
    await _acknowledge_last(session, settings, cast.maria.id, dt.date(2026, 4, 6))
    assert issued.notice.id is not None
    await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id, person_id=cast.maria.id,
                      text="Defesa prévia.", now=at_cuiaba(dt.date(2026, 4, 7)))
    with pytest.raises(FilingRefused, match="waiting for a decision"):
        await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                          person_id=cast.maria.id,
                          text="Recorro.", now=at_cuiaba(dt.date(2026, 6, 1)))


async def test_a_granted_reclamacao_annuls_the_auto(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    notice_id = await _notified_auto(session, settings, cast, dt.date(2026, 3, 2))
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                               person_id=cast.maria.id,
                               text="Terreno não é meu.", now=at_cuiaba(dt.date(2026, 3, 3)))
    assert filing.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.GRANTED,
                        text="Procedente: imóvel de terceiro. Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=CHEFE)
    notice = await _notice(session, notice_id)
    assert (notice.stage, notice.outcome) == (NoticeStage.CLOSED, NoticeOutcome.ANNULLED)
    again = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=at_cuiaba(dt.date(2026, 3, 20)))
    assert not again.notice.recidivist  # CP Art. 8: an annulled auto does not count


async def test_a_preliminar_defence_decision_closes_it(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    issued = await issue(session, settings, cp_preliminar(person_id=cast.maria.id), now=at_cuiaba(dt.date(2026, 3, 2)))
    await _acknowledge_last(session, settings, cast.maria.id, dt.date(2026, 3, 2))
    assert issued.notice.id is not None
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                               person_id=cast.maria.id, text="Esclareço.", now=at_cuiaba(dt.date(2026, 3, 3)))
    assert filing.kind is FilingKind.DEFESA and filing.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.DENIED,
                        text="Lavre-se o auto (Art. 28). Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=CHEFE)
    notice = await _notice(session, issued.notice.id)
    assert (notice.stage, notice.outcome) == (NoticeStage.CLOSED, NoticeOutcome.UPHELD)


async def test_lei_1533_defesa_previa_then_recurso(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    issued = await issue(session, settings, l1533_auto(person_id=cast.maria.id), now=at_cuiaba(dt.date(2026, 3, 2)))
    await _acknowledge_last(session, settings, cast.maria.id, dt.date(2026, 3, 2))
    assert issued.notice.id is not None
    defesa = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                               person_id=cast.maria.id, text="Era meu irmão.", now=at_cuiaba(dt.date(2026, 3, 12)))
    assert defesa.kind is FilingKind.DEFESA and defesa.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=defesa.id, outcome=FilingOutcome.DENIED,
                        text="Indeferida. Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 3, 16)))
    await _acknowledge_last(session, settings, cast.maria.id, dt.date(2026, 3, 16))
    notice = await _notice(session, issued.notice.id)
    view = await notice_view(session=session, city=cities_of(settings).of(notice.municipality), notice=notice,
                             today=dt.date(2026, 3, 16))
    assert view.can_file is FilingKind.RECURSO
    assert view.acts.appeal is not None and view.acts.appeal.final_date == dt.date(2026, 3, 26)


async def test_attachments_are_checked_kept_and_claimed_by_the_filing(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    notice_id = await _notified_auto(session, settings, cast, dt.date(2026, 3, 2))
    photo = await store_filing_attachment(session=session, city=cities_of(settings).default, person_id=cast.maria.id,
                                          content=png(), file_name="foto do terreno.png", already=[])
    document = await store_filing_attachment(session=session, city=cities_of(settings).default, person_id=cast.maria.id,
                                             content=pdf("escritura"), file_name=None, already=[photo.id or 0])
    with pytest.raises(AttachmentRefused):
        await store_filing_attachment(session=session, city=cities_of(settings).default, person_id=cast.maria.id,
                                      content=b"MZ\x90\x00", file_name="virus.exe", already=[])
    with pytest.raises(AttachmentRefused):
        await store_filing_attachment(session=session, city=cities_of(settings).default, person_id=cast.maria.id,
                                      content=png(), file_name="again.png", already=[photo.id or 0])
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                               person_id=cast.maria.id,
                               text="Fotos em anexo.", attachment_ids=[photo.id or 0, document.id or 0],
                               now=at_cuiaba(dt.date(2026, 3, 3)))
    assert filing.id is not None
    files = await attachments_of(session=session, filing_id=filing.id)
    assert [f.file_name for f in files] == ["foto_do_terreno.png", "arquivo.pdf"]
    event = (await events_of(session=session, notice_id=notice_id))[-1]
    assert event.data["attachments_sha256"] == [f.sha256 for f in files]


async def test_the_decision_is_delivered_as_a_document_with_its_own_ciencia(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    notice_id = await _notified_auto(session, settings, cast, dt.date(2026, 3, 2))
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                               person_id=cast.maria.id,
                               text="Reclamo.", now=at_cuiaba(dt.date(2026, 3, 3)))
    assert filing.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.DENIED,
                        text="Improcedente. Vistos os fatos e as provas dos autos.", decider_telegram_id=CHEFE)
    decision = (await session.exec(select(NoticeDelivery).where(NoticeDelivery.document == DocumentKind.DECISION))
                ).one()
    assert decision.filing_id == filing.id and decision.ciencia_at is None


async def test_a_notice_is_shown_only_to_its_person(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=at_cuiaba(dt.date(2026, 3, 2)))
    assert issued.notice.id is not None
    assert await notice_of_person(session=session, notice_id=issued.notice.id, person_id=cast.joao.id) is None
    assert await notices_of_person(session=session, person_id=cast.joao.id) == []
    assert await notice_of_person(session=session, notice_id=issued.notice.id, person_id=cast.maria.id) is not None
