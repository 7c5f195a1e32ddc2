"""The competent authority decides, and is named; the act is signed by who issues it, when (issue 18 §1–2)."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipalities import CP_TITLE, L1533_TITLE
from core.municipality import Publication, cities_of
from core.settings import Settings
from models.authorities import ActAuthor, NotCompetent, grant_authority
from models.notices.authority import deciders_to_warn
from models.notices.chain import events_of
from models.notices.delivery import record_explicit_ciencia
from models.notices.elements import NoticeRefused
from models.notices.filings import FilingRefused, decide_filing, file_filing
from models.notices.issuing import issue_notice
from models.notices.tables import FilingOutcome, Notice, NoticeDelivery
from models.notices.wording import signature_line
from models.people import Person, Role, StaffMember, add_staff
from models.rulebooks.catalogue import CP, LAW_TITLES
from notifications.notice_messages import render_decision
from tests.auxil.notices import (
    AUTUANTE,
    CHEFE,
    PREFEITO,
    cast,
    cp_auto,
    cp_preliminar,
    designate,
    issue,
    l1533_auto,
    outbox,
    pdf_text,
    staff,
)
from tests.models.notices.conftest import Cast
from tests.models.notices.test_deadlines_from_ciencia import at_cuiaba

REASONS = "Improcedente: as fotos do auto mostram o mato alto na data da vistoria."


async def _ack_last(session: AsyncSession, settings: Settings, person_id: int, day: dt.date) -> None:
    delivery = (await session.exec(select(NoticeDelivery).order_by(NoticeDelivery.id.desc()))).first()  # type: ignore[union-attr]
    assert delivery is not None and delivery.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=person_id,
                                  now=at_cuiaba(day))


async def _reclamacao(session: AsyncSession, settings: Settings, people: Cast) -> tuple[int, int]:
    issued = await issue(session, settings, cp_auto(person_id=people.maria.id), now=at_cuiaba(dt.date(2026, 4, 6), 11))
    await _ack_last(session, settings, people.maria.id, dt.date(2026, 4, 6))
    assert issued.notice.id is not None
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                               person_id=people.maria.id, text="Não sou a proprietária.",
                               now=at_cuiaba(dt.date(2026, 4, 7)))
    assert filing.id is not None
    return issued.notice.id, filing.id


async def test_l9784_art_18_the_autuante_cannot_decide_the_reclamacao_against_their_own_auto(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Even holding the first-instance competence, the agent who drew up the auto is impeded (CF Art. 37)."""
    _notice_id, filing_id = await _reclamacao(session, settings, cast)
    await designate(session, settings, AUTUANTE, "primeira_instancia")
    with pytest.raises(FilingRefused) as impeded:
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=filing_id, outcome=FilingOutcome.GRANTED,
                            text=REASONS, decider_telegram_id=AUTUANTE, now=at_cuiaba(dt.date(2026, 4, 9)))
    assert "Art. 18, I" in impeded.value.citation and "CF, Art. 37" in impeded.value.citation
    assert "drew up this notice" in impeded.value.render(translator("en"))
    decided = await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                                  filing_id=filing_id,
                                  outcome=FilingOutcome.DENIED, text=REASONS, decider_telegram_id=CHEFE,
                                  now=at_cuiaba(dt.date(2026, 4, 9)))
    assert decided.decider is not None and decided.decider["name"] == "Carlos Chefe"


async def test_l9784_art_18_the_agent_of_the_preliminar_cannot_decide_the_reclamacao_against_the_auto(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """CP Art. 28–29, 40: the Chefe, also designated to inspect, signed the notificação preliminar; the auto that
    follows it is signed by Inês. The reclamação against the auto is against his own action too: impeded (Lei 9.784
    Art. 18 I; CF Art. 37), and he is not the one warned that it is due (LEGAL-CHOICES #77)."""
    await cast_and_clock(session, settings)
    preliminar = await issue(session, settings, cp_preliminar(person_id=cast.maria.id),
                             now=at_cuiaba(dt.date(2026, 3, 3), 11), signer=CHEFE)
    auto = await issue(session, settings, cp_auto(person_id=cast.maria.id, preliminar_id=preliminar.notice.id),
                       now=at_cuiaba(dt.date(2026, 4, 6), 11))
    await _ack_last(session, settings, cast.maria.id, dt.date(2026, 4, 6))
    assert auto.notice.id is not None
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=auto.notice.id,
                               person_id=cast.maria.id, text="Não sou a proprietária.",
                               now=at_cuiaba(dt.date(2026, 4, 7)))
    assert filing.id is not None
    with pytest.raises(FilingRefused) as impeded:
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=filing.id, outcome=FilingOutcome.DENIED,
                            text=REASONS, decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 4, 9)))
    assert "Art. 18, I" in impeded.value.citation
    assert "preliminary notice this auto follows" in impeded.value.render(translator("en"))
    chefe = (await session.exec(select(Person).where(Person.telegram_user_id == CHEFE))).first()
    warned = await deciders_to_warn(session=session, notice=auto.notice, filing=filing)
    assert chefe is not None and chefe.id not in warned


async def test_cp_art_40_a_clerk_without_the_heads_competence_does_not_decide(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Clara is a clerk: the role opens the screens, but the reclamação is the Chefe do Departamento's (Art. 40)."""
    _notice_id, filing_id = await _reclamacao(session, settings, cast)
    with pytest.raises(FilingRefused) as refused:
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=filing_id, outcome=FilingOutcome.DENIED,
                            text=REASONS, decider_telegram_id=cast.clara.telegram_user_id)
    assert refused.value.citation == f"{LAW_TITLES[CP]}, Art. 40"
    assert "Chefe do Departamento" in refused.value.render(translator("pt_BR"))


async def test_l9784_art_13_ii_the_first_instance_decider_cannot_decide_the_appeal(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """CP Art. 43: the appeal goes to the Prefeito; the Chefe, even designated for both, cannot judge his own
    decision, and nobody without the second-instance competence decides it (not delegable, L9784 Art. 13 II)."""
    notice_id, filing_id = await _reclamacao(session, settings, cast)
    await designate(session, settings, CHEFE, "segunda_instancia")
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing_id, outcome=FilingOutcome.DENIED,
                        text=REASONS, decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 4, 9)))
    await _ack_last(session, settings, cast.maria.id, dt.date(2026, 4, 10))
    appeal = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                               person_id=cast.maria.id,
                               text="Recorro ao Prefeito.", now=at_cuiaba(dt.date(2026, 4, 13)))
    assert appeal.id is not None
    with pytest.raises(FilingRefused) as impeded:
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=appeal.id, outcome=FilingOutcome.GRANTED,
                            text=REASONS, decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 4, 14)))
    assert "Art. 13, II" in impeded.value.citation
    assert "own decision" in impeded.value.render(translator("en"))
    with pytest.raises(FilingRefused) as not_competent:
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=appeal.id, outcome=FilingOutcome.GRANTED,
                            text=REASONS, decider_telegram_id=cast.clara.telegram_user_id)
    assert not_competent.value.citation.endswith("Lei 9.784/1999, Art. 13, II")
    assert "Art. 43 e 45" in not_competent.value.citation
    final = await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                                filing_id=appeal.id,
                                outcome=FilingOutcome.DENIED, text=REASONS, decider_telegram_id=PREFEITO,
                                now=at_cuiaba(dt.date(2026, 4, 14)))
    assert final.decider is not None and final.decider["title"] == "Prefeito(a) Municipal"


@pytest.mark.parametrize("reasons", ["ok", "Indeferido.", "   nada consta   "])
async def test_cp_art_41_and_l9784_art_50_a_word_is_no_motivation(
    session: AsyncSession, settings: Settings, cast: Cast, reasons: str
) -> None:
    _notice_id, filing_id = await _reclamacao(session, settings, cast)
    with pytest.raises(FilingRefused) as refused:
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=filing_id, outcome=FilingOutcome.DENIED,
                            text=reasons, decider_telegram_id=CHEFE)
    assert "Art. 41" in refused.value.citation and "Lei 9.784/1999, Art. 50" in refused.value.citation
    assert "40" in refused.value.render(translator("pt_BR"))  # BALCAO_DECISION_MIN_REASONS, the default


async def test_the_minimum_motivation_is_configurable(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    _notice_id, filing_id = await _reclamacao(session, settings, cast)
    shorter = settings.model_copy(update={"decision_min_reasons": 10})
    decided = await decide_filing(session=session, cities=cities_of(shorter), publication=Publication.of(shorter),
                                  filing_id=filing_id,
                                  outcome=FilingOutcome.DENIED, text="Mato alto, provado.", decider_telegram_id=CHEFE)
    assert decided.decided_at is not None


async def test_the_decision_names_its_author_with_office_registration_and_designation(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Issue 18 §1: today's render_decision names nobody; the decision message now names its author."""
    _notice_id, filing_id = await _reclamacao(session, settings, cast)
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing_id, outcome=FilingOutcome.DENIED,
                        text=REASONS, decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 4, 9)))
    [message] = await outbox(session, "notice.decision")
    text = render_decision(message.payload, translator("pt_BR")).text
    for shown in ("Carlos Chefe", "Chefe do Departamento", "Departamento de Fiscalização", "matrícula nº 2345",
                  "Portaria nº 97002/2026, de 02/01/2026"):
        assert shown in text, shown


async def test_cp_art_12_only_a_designated_agent_issues_and_the_signer_is_not_free_text(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Inês is an inspector without a designation: refused. The designated agent signs under her own name, whatever
    ``issuer_name`` says."""
    with pytest.raises(NoticeRefused) as refused:
        await issue_notice(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                           data=cp_auto(), actor="test",
                           issuer_telegram_id=cast.ines.telegram_user_id, now=at_cuiaba(dt.date(2026, 3, 2), 11))
    [problem] = refused.value.problems
    assert problem.citation == f"{LAW_TITLES[CP]}, Art. 12"
    assert (await session.exec(select(Notice))).first() is None
    issued = await issue(session, settings, cp_auto(issuer_name="Fulano, que não existe"),
                         now=at_cuiaba(dt.date(2026, 3, 2), 11))
    assert issued.notice.issuer_name == "Inês Fiscal" and issued.notice.issuer_telegram_id == AUTUANTE


async def test_cp_art_12_the_autuar_competence_needs_its_designation_act(
    session: AsyncSession, settings: Settings
) -> None:
    await add_staff(session=session, telegram_user_id=9200, role=Role.INSPECTOR, name="Rui", actor="test",
                    registration="999")
    member = (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == 9200))).one()
    with pytest.raises(NotCompetent) as refused:
        await grant_authority(session=session, member=member, act="autuar",
                              municipality=settings.municipalities["nova-xavantina"], actor="test")
    assert refused.value.citation == f"{LAW_TITLES[CP]}, Art. 12"
    held = await grant_authority(session=session, member=member, act="primeira_instancia",
                                 municipality=settings.municipalities["nova-xavantina"], actor="test")
    assert (held.office, held.title) == ("Departamento de Fiscalização", "Chefe do Departamento")


async def test_the_act_is_signed_by_the_member_who_issues_it_at_the_real_issue_time(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Drawn up on Mon 2/3/2026 9:30, issued on 20/3/2026 at 11:00 in Cuiabá: the PDF says both, each labelled;
    no longer "lavrada … eletronicamente, em 02/03/2026" (issue 18 §2)."""
    await cast_and_clock(session, settings)
    with time_machine.travel(dt.datetime(2026, 3, 20, 15, 0, tzinfo=dt.UTC), tick=False):
        issued = await issue_notice(session=session, cities=cities_of(settings),
                                    publication=Publication.of(settings), data=cp_auto(), actor="test",
                                    issuer_telegram_id=AUTUANTE)
    notice = issued.notice
    assert notice.signed_at == dt.datetime(2026, 3, 20, 15, 0, tzinfo=dt.UTC)
    assert notice.signer is not None and ActAuthor.from_data(notice.signer).registration == "1234"
    text = pdf_text(issued.pdf)
    assert "Lavrada em" in text and "2 de março de 2026 às 09:30" in text
    assert "Assinada eletronicamente em 20/03/2026 às 11:00 por Inês Fiscal" in " ".join(text.split("\n"))
    assert "eletronicamente, em 02/03/2026" not in text
    issued_event = next(e for e in await events_of(session=session, notice_id=notice.id or 0) if e.kind == "issued")
    assert issued_event.data["signed_by"] == AUTUANTE


async def cast_and_clock(session: AsyncSession, settings: Settings) -> None:
    """The cast of signers and deciders (tests.auxil.notices.cast)."""
    await cast(session, settings)


async def test_l1533_art_22_par_1_an_auto_past_90_days_asks_for_confirmation(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Drawn up Mon 2/3/2026 9:30: the 90 days (CC Art. 132: 2/3 not counted) end Sun 31/5, a day the office is
    closed, so Mon 1/6 (§1; the console's delivery list counts the same); on Tue 2/6 the issue is refused unless
    confirmed."""
    await cast_and_clock(session, settings)
    on_the_last_day = await issue(session, settings, l1533_auto(), now=at_cuiaba(dt.date(2026, 6, 1), 17),
                                  late_confirmed=False)
    assert on_the_last_day.notice.id is not None
    with pytest.raises(NoticeRefused) as late:
        await issue(session, settings, l1533_auto(), now=at_cuiaba(dt.date(2026, 6, 2)), late_confirmed=False)
    [problem] = late.value.problems
    assert problem.citation == "Lei nº 1.533/2020 (Sapezal), Art. 22, §1º"
    assert "92" in problem.render(translator("pt_BR")) and "Confirme" in problem.render(translator("pt_BR"))
    confirmed = await issue(session, settings, l1533_auto(), now=at_cuiaba(dt.date(2026, 6, 2)), late_confirmed=True)
    event = next(e for e in await events_of(session=session, notice_id=confirmed.notice.id or 0) if e.kind == "issued")
    assert event.data["late_confirmed"] is True
    strict = settings.model_copy(update={"l1533_issue_limit": "refuse"})
    with pytest.raises(NoticeRefused):
        await issue(session, strict, l1533_auto(), now=at_cuiaba(dt.date(2026, 6, 2)), late_confirmed=True)
    # the Código de Posturas sets no such limit
    assert (await issue(session, settings, cp_auto(), now=at_cuiaba(dt.date(2026, 12, 1)), late_confirmed=False)).pdf


async def test_l1533_art_22_par_1_the_90th_day_is_counted_whole_not_by_the_hour(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Drawn up Mon 2/3/2026 9:30: issued on Mon 1/6 at 17:00 with BALCAO_L1533_ISSUE_LIMIT=refuse, it is in
    time (the last day, CC Art. 132 §1). Counting 90 × 24 hours from 9:30 refused a lawful act as late."""
    await cast_and_clock(session, settings)
    strict = settings.model_copy(update={"l1533_issue_limit": "refuse"})
    issued = await issue(session, strict, l1533_auto(), now=at_cuiaba(dt.date(2026, 6, 1), 17), late_confirmed=False)
    assert issued.notice.id is not None and issued.pdf


async def test_a_notice_issued_before_signers_were_recorded_says_it_is_unsigned(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """The migration leaves ``signer`` NULL on existing notices: they are shown as issued, unsigned."""
    issued = await issue(session, settings, cp_auto(), now=at_cuiaba(dt.date(2026, 3, 2), 11))
    legacy = Notice.model_validate(issued.notice.model_dump() | {"signer": None, "signed_at": None})
    line = signature_line(legacy, translator("pt_BR"))
    assert "antes do registro das assinaturas" in line and "sem assinatura" in line


async def test_a_staff_member_of_another_municipality_holds_no_competence_here(
    session: AsyncSession, settings: Settings
) -> None:
    """CF Art. 30 I: a competence held in Sapezal does not make one the Chefe in Nova Xavantina."""
    await staff(session, 9300, "Sara", Role.CLERK)
    member = (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == 9300))).one()
    member.registration = "77"
    session.add(member)
    await grant_authority(session=session, member=member, act="autuar", municipality=settings.municipalities["sapezal"],
                          actor="test", designation_kind="Portaria", designation_number="1/2026",
                          designation_on=dt.date(2026, 1, 5))
    with pytest.raises(NoticeRefused) as refused:
        await issue_notice(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                           data=cp_auto(), actor="test", issuer_telegram_id=9300,
                           now=at_cuiaba(dt.date(2026, 3, 2), 11))
    assert refused.value.problems[0].citation == f"{LAW_TITLES[CP]}, Art. 12"
    assert (await issue_notice(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                               data=l1533_auto(), actor="test",
                               issuer_telegram_id=9300, now=at_cuiaba(dt.date(2026, 3, 2), 11))).notice.signer


def test_the_default_authorities_cite_the_laws_as_the_documents_name_them() -> None:
    assert (LAW_TITLES[CP], LAW_TITLES["sapezal-1533"]) == (CP_TITLE, L1533_TITLE)


async def test_cp_art_40_par_1_and_art_42_vista_and_diligencia_are_the_judges_acts_too(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """The Chefe gives vista and converts the judgment into a diligência; the autuante, a party, does neither."""
    from models.notices.review import open_vista, order_diligencia

    _notice_id, filing_id = await _reclamacao(session, settings, cast)
    await designate(session, settings, AUTUANTE, "primeira_instancia")
    with pytest.raises(FilingRefused) as impeded:
        await open_vista(session=session, cities=cities_of(settings), filing_id=filing_id, decider_telegram_id=AUTUANTE,
                         now=at_cuiaba(dt.date(2026, 4, 8)))
    assert "Art. 18, I" in impeded.value.citation
    with pytest.raises(FilingRefused) as refused:
        await order_diligencia(session=session, cities=cities_of(settings), filing_id=filing_id, text="Vistoria.",
                               decider_telegram_id=cast.clara.telegram_user_id)
    assert "Chefe do Departamento" in refused.value.render(translator("pt_BR"))
    opened = await open_vista(session=session, cities=cities_of(settings), filing_id=filing_id,
                              decider_telegram_id=CHEFE,
                              now=at_cuiaba(dt.date(2026, 4, 8)))
    assert opened.vista_first_on == dt.date(2026, 4, 8)
