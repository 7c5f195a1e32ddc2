"""Every element an act needs to stand (issue 18 §3, §7): the provision infringed apart from the penalty article,
where/when/how to act and that the process goes on (L9784 Art. 26 §1 III, V), the setor competente of the
preliminar (CP Art. 24), the receipt of CP Art. 36 I with the refusals, the issuing Prefeitura, the encarregado."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import Publication, cities_of
from core.settings import Settings, load_settings
from models.notices.chain import events_of
from models.notices.delivery import DeliveryError, record_explicit_ciencia
from models.notices.elements import NoticeRefused
from models.notices.filings import decide_filing, file_filing
from models.notices.platform_delivery import pending_platform_deliveries
from models.notices.refusals import Refusal, record_refusal
from models.notices.tables import FilingOutcome, NoticeDelivery
from models.rulebooks.catalogue import load_infractions
from notifications.notice_messages import render_decision
from tests.auxil.municipalities import write_municipalities
from tests.auxil.notices import CHEFE, cp_auto, cp_preliminar, issue, l1533_auto, outbox, pdf_plain_text
from tests.auxil.tlog import verify
from tests.models.notices.conftest import NOW, Cast
from tests.models.notices.test_deadlines_from_ciencia import at_cuiaba


def test_every_cp_row_names_its_infringed_provision_apart_from_the_penalty_article() -> None:
    # CP Art. 25 III, 34 III: the provision infringed; Art. 53, 61… only set the fine.
    for row in load_infractions("nx-posturas"):
        if row.provision_required:
            assert row.description.startswith("Outr"), row.code
            continue
        assert row.infringed and row.infringed != row.article, row.code
    assert {row.code for row in load_infractions("nx-posturas") if row.provision_required} >= {"CP-I-11", "CP-II-15"}


async def test_a_cp_auto_prints_the_infringed_provision_the_table_item_and_the_penalty_article_apart(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    # CP Art. 34 III; L9784 Art. 26 §1 VI: "Art. 53" is the penalty, the conduct is forbidden by Art. 50, I.
    issued = await issue(session, settings, cp_auto(), now=NOW)
    text = pdf_plain_text(issued.notice.pdf)
    assert "Art. 50, I — Manter terrenos com vegetação alta" in text
    assert "Tabela I, item 1" in text
    assert "Penalidade: Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina), Art. 53" in text


async def test_an_outros_row_is_refused_without_the_provision_and_prints_the_inspectors(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    # CP Art. 34 III: "Outros" names no conduct; the act must name the provision.
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, settings, cp_auto(infraction_code="CP-I-11"), now=NOW)
    [problem] = refused.value.problems
    assert problem.element == "infringed_provision" and problem.citation.endswith("Art. 34, III")
    issued = await issue(session, settings, cp_auto(infraction_code="CP-I-11", infringed_provision="Art. 50, IX"),
                         now=NOW)
    assert issued.notice.infringed_provision == "Art. 50, IX"
    assert "Art. 50, IX" in pdf_plain_text(issued.notice.pdf)


async def test_a_notice_says_where_when_and_how_to_act_and_that_the_process_goes_on(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    # L9784 Art. 26 §1 III and V; §5: without them the intimação is null.
    text = pdf_plain_text((await issue(session, settings, cp_auto(), now=NOW)).notice.pdf)
    assert "Fiscalização de Posturas, Av. Expedição Roncador Xingú, 249, Setor Xavantina" in text
    assert "segunda a sexta, 7h às 11h e 13h às 17h" in text
    assert "/notificacoes" in text
    assert "/verificar/" in text
    assert "O processo continua mesmo que você não se manifeste" in text
    assert "Art. 26, §1º, III a V" in text
    # IV: whether to appear in person or represented (§5: null without it)
    assert "pode ser representado por alguém que autorizar por escrito" in " ".join(text.split())


async def test_a_municipality_without_an_office_cannot_issue_a_null_intimacao(
    session: AsyncSession, tmp_path, db_url: str, cast: Cast
) -> None:
    # L9784 Art. 26 §1 III, §5: no address to appear at, no valid intimação.
    path = write_municipalities(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").split("[[municipality.offices]]\nname = \"Fiscal")[0],
                    encoding="utf-8")
    settings = load_settings(database_url=db_url, municipalities_file=path)
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, settings, cp_auto(), now=NOW)
    assert refused.value.problems[0].element == "office"
    assert "Art. 26, §1º, III" in refused.value.problems[0].citation


async def test_the_preliminar_names_the_setor_competente_where_to_appear(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    # CP Art. 24: the notificação preliminar names the setor competente.
    text = pdf_plain_text((await issue(session, settings, cp_preliminar(), now=NOW)).notice.pdf)
    assert "Onde comparecer" in text
    assert "Fiscalização de Posturas, Av. Expedição Roncador Xingú, 249, Setor Xavantina, dentro do prazo" in text


async def test_the_cp_notices_carry_the_dated_receipt_with_the_refusals_the_code_records(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    # CP Art. 36 I (dated receipt); Art. 25 sole paragraph, 26 sole paragraph (preliminar); Art. 34 §3 (auto).
    preliminar = pdf_plain_text((await issue(session, settings, cp_preliminar(), now=NOW)).notice.pdf)
    assert "Recibo (entrega pessoal)" in preliminar and "____/____/________" in preliminar
    assert "Art. 25, parágrafo único" in preliminar and "Art. 26, parágrafo único" in preliminar
    auto = pdf_plain_text((await issue(session, settings, cp_auto(offender_document=None), now=NOW)).notice.pdf)
    assert "Art. 34, §3º" in auto


async def test_the_act_records_its_issuing_prefeitura_and_is_headed_by_it(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    # CF Art. 30 I: the act is the Prefeitura's; recorded on it for /verificar.
    issued = await issue(session, settings, l1533_auto(platform_name="Uber do Brasil Tecnologia Ltda."), now=NOW)
    assert issued.notice.issuer_authority == "Prefeitura Municipal de Sapezal"
    text = pdf_plain_text(issued.notice.pdf)
    assert text.startswith("Prefeitura Municipal de Sapezal")
    # L1533 Art. 22: the notice goes to the technology platform too, its copy tracked apart from the driver's.
    assert "Plataforma tecnológica Uber do Brasil Tecnologia Ltda." in text
    [(copy, notice)] = await pending_platform_deliveries(session=session)
    assert copy.platform_name == "Uber do Brasil Tecnologia Ltda." and notice.id == issued.notice.id
    report = await verify(session)  # the copy's row is in the transparency log
    assert report.ok, report.problems


async def test_a_pdf_with_personal_data_names_the_encarregado(
    session: AsyncSession, tmp_path, db_url: str, cast: Cast
) -> None:
    # LGPD Art. 41 §1: the encarregado's identity and contact, published.
    extra = '[municipality.encarregado]\nname = "Ana Encarregada"\ncontact = "lgpd@novaxavantina.mt.gov.br"'
    settings = load_settings(database_url=db_url, municipalities_file=write_municipalities(tmp_path, nx_extra=extra))
    text = pdf_plain_text((await issue(session, settings, cp_auto(), now=NOW)).notice.pdf)
    assert "Ana Encarregada, lgpd@novaxavantina.mt.gov.br" in text


async def test_a_decision_sent_in_the_chat_says_where_and_how_to_act_and_that_the_process_goes_on(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    # L9784 Art. 26 §1 III and V: a decision is an intimação too (the appeal window opens from its ciência).
    day = dt.date(2026, 4, 6)
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=at_cuiaba(day, 11))
    delivery = (await session.exec(select(NoticeDelivery))).one()
    assert delivery.id is not None and issued.notice.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=cast.maria.id, now=at_cuiaba(day, 12))
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                               person_id=cast.maria.id, text="Não sou a proprietária.",
                               now=at_cuiaba(day + dt.timedelta(days=1)))
    assert filing.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.DENIED,
                        text="Improcedente: a matrícula do imóvel está em seu nome.", decider_telegram_id=CHEFE,
                        now=at_cuiaba(day + dt.timedelta(days=3)))
    [message] = await outbox(session, "notice.decision")
    text = render_decision(message.payload, translator("pt_BR", settings.timezone)).text
    assert "Fiscalização de Posturas, Av. Expedição Roncador Xingú, 249" in text
    assert "/notificacoes" in text and "O processo continua mesmo que você não se manifeste" in text
    assert "Art. 26, §1º, III a V" in text
    assert "pode ser representado por alguém que autorizar por escrito" in text  # IV


async def test_refusals_are_recorded_as_the_code_provides_for_each_act(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    # CP Art. 34 §3: the offender of an auto would not (or could not) sign: mentioned, the delivery stands.
    auto = await issue(session, settings, cp_auto(), now=NOW)
    preliminar = await issue(session, settings, cp_preliminar(offender_document=None), now=NOW)
    deliveries = {d.notice_id: d for d in (await session.exec(select(NoticeDelivery))).all()}
    signed = await record_refusal(session=session, cities=cities_of(settings),
                                  delivery_id=deliveries[auto.notice.id].id,
                                  refusal=Refusal.SIGN, on=NOW.date(), actor="staff:9101", now=NOW)
    assert not signed.auto_due  # an auto is the auto already
    # CP Art. 25 sole paragraph concerns the preliminar's "ciente": an auto has none.
    with pytest.raises(DeliveryError):
        await record_refusal(session=session, cities=cities_of(settings),
                             delivery_id=deliveries[preliminar.notice.id].id,
                             refusal=Refusal.SIGN, on=NOW.date(), actor="staff:9101", now=NOW)
    await session.rollback()
    # CP Art. 25 sole paragraph and Art. 29: the refused "ciente" is noted, and the auto is due at once.
    ciente = await record_refusal(session=session, cities=cities_of(settings),
                                  delivery_id=deliveries[preliminar.notice.id].id,
                                  refusal=Refusal.CIENTE, on=NOW.date(), actor="staff:9101", now=NOW)
    assert ciente.auto_due
    [event] = [e for e in await events_of(session=session, notice_id=preliminar.notice.id)
               if e.kind == "delivery.refusal"]
    assert event.data["article"].startswith("Código de Posturas, Art. 25, parágrafo único")
