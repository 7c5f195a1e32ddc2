"""Staff work the queue: views with the identity restricted, assignment, complementação, CP Art. 32 decisions,
ombudsman answers and the single extension (L13460 Art. 16)."""

import datetime as dt
import logging

import pytest
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.audit import AuditEvent
from models.cases.access import CaseNotReadable
from models.cases.filing import file_ombudsman_case, file_representation
from models.cases.handling import (
    CaseActionRefused,
    answer_case,
    archive_case,
    archive_ombudsman,
    assign,
    decide,
    extend,
    notice_handover,
    request_complement,
    staff_case,
    staff_queue,
)
from models.cases.tables import CaseStatus, Outcome
from models.cases.timeline import CaseNotFound
from models.invalid_input import InvalidInput
from models.outbox import OutboxMessage
from models.people import PermissionDenied
from tests.auxil.case_people import NOW, Cast, ombudsman, representation

TODAY = dt.date(2026, 3, 2)


async def _citizen_updates(session: AsyncSession, person_id: int) -> list[dict[str, object]]:
    rows = (
        await session.exec(
            select(OutboxMessage)
            .where(OutboxMessage.kind == "cases.update", OutboxMessage.person_id == person_id)
            .order_by(col(OutboxMessage.id))
        )
    ).all()
    return [row.payload for row in rows]


async def test_a_restricted_ombudsman_case_is_the_ombudsmans_alone(
    session: AsyncSession, settings: Settings, cast: Cast, caplog: pytest.LogCaptureFixture
) -> None:
    """L13460 Art. 10 §7: the author's identity is restricted; only the ombudsman opens the case."""
    caplog.set_level(logging.DEBUG, logger="balcao")
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=True),
                                      now=NOW, city=cities_of(settings).default)
    with pytest.raises(CaseNotFound):
        await staff_case(session=session, telegram_user_id=cast.clara.telegram_user_id, protocol=filed.protocol)
    with pytest.raises(CaseNotFound):
        await staff_case(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=filed.case_id)
    open_case = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=False),
                                          now=NOW, city=cities_of(settings).default)
    with pytest.raises(CaseNotReadable):  # LGPD Art. 6 III: an identified ombudsman case is not the clerk's work
        await staff_case(session=session, telegram_user_id=cast.clara.telegram_user_id, protocol=open_case.protocol)
    ombudsman_view = await staff_case(session=session, telegram_user_id=cast.otavio.telegram_user_id,
                                      case_id=filed.case_id)
    assert ombudsman_view.author.name == "João Batista Pereira"
    assert ombudsman_view.author.label == "João Batista Pereira"
    await answer_case(session=session, cities=cities_of(settings),
                      telegram_user_id=cast.otavio.telegram_user_id, case_id=filed.case_id,
                      text="O médico foi contratado e começa na segunda-feira.", now=NOW)
    audit = (await session.exec(select(AuditEvent))).all()
    assert "João" not in str([(a.actor, a.details) for a in audit])
    assert f"person:{cast.joao.id}" not in {a.actor for a in audit}  # the log never ties the author to the case
    assert "João" not in caplog.text


async def test_an_identified_ombudsman_case_and_a_representation_show_the_author_to_the_staff_of_their_queue(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    identified = await file_ombudsman_case(session=session, person_id=cast.joao.id,
                                           form=ombudsman(restricted=False), now=NOW, city=cities_of(settings).default)
    rep = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                    cities=cities_of(settings))
    for staff, case_id in ((cast.otavio, identified.case_id), (cast.clara, rep.case_id)):
        view = await staff_case(session=session, telegram_user_id=staff.telegram_user_id, case_id=case_id)
        assert view.author.name == "João Batista Pereira"
    view = await staff_case(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=rep.case_id)
    assert view.author.cpf_masked == "***.982.247-**"


async def test_the_queue_is_per_role_and_ordered_by_deadline(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    rep = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                    cities=cities_of(settings))
    later = await file_representation(session=session, person_id=cast.maria.id, form=representation(),
                                      now=NOW + dt.timedelta(days=2), cities=cities_of(settings))
    ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=False), now=NOW,
                                    city=cities_of(settings).default)
    clerk = await staff_queue(session=session, telegram_user_id=cast.clara.telegram_user_id, today=TODAY)
    assert [item.protocol for item in clerk] == [rep.protocol, later.protocol]
    assert clerk[0].days_left == 10
    otavio = await staff_queue(session=session, telegram_user_id=cast.otavio.telegram_user_id, today=TODAY)
    assert [item.protocol for item in otavio] == [ouv.protocol]
    with pytest.raises(PermissionDenied):
        await staff_queue(session=session, telegram_user_id=cast.joao.telegram_user_id, today=TODAY)


async def test_assigning_starts_the_case_and_tells_the_author(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    rep = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                    cities=cities_of(settings))
    with pytest.raises(PermissionDenied):
        await assign(session=session, telegram_user_id=cast.otavio.telegram_user_id, case_id=rep.case_id, now=NOW)
    status = await assign(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=rep.case_id, now=NOW)
    assert status is CaseStatus.IN_PROGRESS
    queue = await staff_queue(session=session, telegram_user_id=cast.clara.telegram_user_id, today=TODAY)
    assert queue[0].assigned_to_me
    updates = await _citizen_updates(session, cast.joao.id)
    assert [(u["event"], u["status"]) for u in updates] == [("assigned", "in_progress")]
    with pytest.raises(CaseActionRefused):
        await assign(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=rep.case_id, now=NOW,
                     assignee_telegram_user_id=cast.otavio.telegram_user_id)


async def test_art32_decisions_notify_issue_an_auto_or_archive_with_a_reason(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """CP Art. 32: the authority notifies the offender, draws up an auto, or archives the representação."""
    forms = [await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                       cities=cities_of(settings)) for _ in range(3)]
    clara = cast.clara.telegram_user_id
    with pytest.raises(InvalidInput):
        await decide(session=session, telegram_user_id=clara, case_id=forms[0].case_id, outcome=Outcome.ARCHIVE,
                     reason="", now=NOW)
    archived = await decide(session=session, telegram_user_id=clara, case_id=forms[0].case_id,
                            outcome=Outcome.ARCHIVE, reason="Fiscal foi ao local e não encontrou entulho.", now=NOW)
    assert archived.status is CaseStatus.ARCHIVED and archived.handover is None
    notified = await decide(session=session, telegram_user_id=clara, case_id=forms[1].case_id,
                            outcome=Outcome.NOTIFY, reason=None, now=NOW)
    assert notified.status is CaseStatus.NOTIFIED
    assert notified.handover is not None and notified.handover.notice_type == "preliminar"
    auto = await decide(session=session, telegram_user_id=clara, case_id=forms[2].case_id, outcome=Outcome.AUTO,
                        reason=None, now=NOW)
    handover = auto.handover
    assert handover is not None
    assert (handover.notice_type, handover.rulebook, handover.infraction_code, handover.accused, handover.case_id) == (
        "auto", "nx-posturas", "CP-I-9", "Depósito Bom Preço", forms[2].case_id
    )
    assert "João" not in repr(handover) and "Flores" not in repr(handover)  # never the author
    assert await notice_handover(session=session, case_id=forms[2].case_id) == handover
    with pytest.raises(CaseActionRefused, match="closed"):
        await decide(session=session, telegram_user_id=clara, case_id=forms[2].case_id, outcome=Outcome.ARCHIVE,
                     reason="de novo", now=NOW)
    updates = await _citizen_updates(session, cast.joao.id)
    assert [u["status"] for u in updates] == ["archived", "notified", "auto_issued"]
    assert updates[0]["note"] == "Fiscal foi ao local e não encontrou entulho."


async def test_the_ombudsman_extends_once_with_a_reason(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """L13460 Art. 16: 30 days, extendable once by 30, with a reason."""
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(settings).default)
    otavio = cast.otavio.telegram_user_id
    with pytest.raises(InvalidInput):
        await extend(session=session, telegram_user_id=otavio, case_id=filed.case_id, reason="", now=NOW,
                     cities=cities_of(settings))
    new_due = await extend(session=session, telegram_user_id=otavio, case_id=filed.case_id,
                           reason="Aguardando resposta da Secretaria de Saúde.", now=NOW, cities=cities_of(settings))
    assert new_due == dt.date(2026, 5, 1) + dt.timedelta(days=3)  # 1 May (holiday) → Monday 4 May
    with pytest.raises(CaseActionRefused, match="only one extension"):
        await extend(session=session, telegram_user_id=otavio, case_id=filed.case_id,
                     reason="Mais uma vez, por favor.", now=NOW, cities=cities_of(settings))
    with pytest.raises(CaseNotFound):  # restricted: to a clerk the case does not exist (L13460 Art. 10 §7)
        await extend(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=filed.case_id,
                     reason="Clara não é ouvidora.", now=NOW, cities=cities_of(settings))
    open_case = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=False),
                                          now=NOW, city=cities_of(settings).default)
    with pytest.raises(PermissionDenied):
        await extend(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=open_case.case_id,
                     reason="Clara não é ouvidora.", now=NOW, cities=cities_of(settings))
    updates = await _citizen_updates(session, cast.joao.id)
    assert updates[-1]["event"] == "extended" and updates[-1]["due_on"] == "2026-05-04"


async def test_complementacao_is_asked_once_with_20_days_then_archived_if_unanswered(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """D9492 Art. 18: 20 days to complete; without an answer the case may be archived."""
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(settings).default)
    otavio = cast.otavio.telegram_user_id
    due = await request_complement(session=session, telegram_user_id=otavio, case_id=filed.case_id,
                                   question="Qual é o endereço do posto de saúde?", now=NOW, cities=cities_of(settings))
    assert due == dt.date(2026, 3, 23)  # 22 March is a Sunday
    with pytest.raises(CaseActionRefused, match="once"):
        await request_complement(session=session, telegram_user_id=otavio, case_id=filed.case_id,
                                 question="E o horário de atendimento?", now=NOW, cities=cities_of(settings))
    queue = await staff_queue(session=session, telegram_user_id=otavio, today=dt.date(2026, 3, 24))
    assert queue[0].status is CaseStatus.AWAITING_COMPLEMENT and queue[0].complement_lapsed
    with pytest.raises(CaseActionRefused, match=r"Art\. 18"):  # D9492 Art. 18: on the 20th day, not yet
        await archive_ombudsman(session=session, telegram_user_id=otavio, case_id=filed.case_id,
                                reason="Sem resposta no prazo de 20 dias.", now=NOW + dt.timedelta(days=21),
                                cities=cities_of(settings))
    await archive_ombudsman(session=session, telegram_user_id=otavio, case_id=filed.case_id,
                            reason="Sem resposta no prazo de 20 dias.", now=NOW + dt.timedelta(days=22),
                            cities=cities_of(settings))
    with pytest.raises(CaseActionRefused):
        await answer_case(session=session, cities=cities_of(settings),
                          telegram_user_id=otavio, case_id=filed.case_id, text="Resposta tardia.",
                          now=NOW)
    updates = await _citizen_updates(session, cast.joao.id)
    assert [u["event"] for u in updates] == ["complement_requested", "archived"]
    assert updates[0]["note"] == "Qual é o endereço do posto de saúde?"
    assert updates[0]["complement_due_on"] == "2026-03-23"


async def test_an_ombudsman_case_is_answered_not_decided(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(settings).default)
    with pytest.raises(CaseActionRefused):
        await decide(session=session, telegram_user_id=cast.otavio.telegram_user_id, case_id=filed.case_id,
                     outcome=Outcome.AUTO, reason=None, now=NOW)
    rep = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                    cities=cities_of(settings))
    with pytest.raises(PermissionDenied):
        await answer_case(session=session, cities=cities_of(settings),
                          telegram_user_id=cast.otavio.telegram_user_id, case_id=rep.case_id,
                          text="Não é da Ouvidoria.", now=NOW)


async def test_archiving_goes_to_the_ombudsman_or_to_an_art_32_decision_by_kind(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """An ombudsman case is archived by the ombudsman; a representação is archived as a CP Art. 32 decision."""
    ouv = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=False), now=NOW,
                                    city=cities_of(settings).default)
    rep = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                    cities=cities_of(settings))
    with pytest.raises(PermissionDenied):
        await archive_case(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=ouv.case_id,
                           reason="Não é da secretaria.", now=NOW, cities=cities_of(settings))
    with pytest.raises(CaseActionRefused, match=r"13\.460"):  # L13460 Art. 16: answered, not archived away
        await archive_case(session=session, telegram_user_id=cast.otavio.telegram_user_id, case_id=ouv.case_id,
                           reason="Manifestação repetida.", now=NOW, cities=cities_of(settings))
    await request_complement(session=session, telegram_user_id=cast.otavio.telegram_user_id, case_id=ouv.case_id,
                             question="Qual é o endereço do posto de saúde?", now=NOW, cities=cities_of(settings))
    await archive_case(session=session, telegram_user_id=cast.otavio.telegram_user_id, case_id=ouv.case_id,
                       reason="Sem a complementação no prazo.", now=NOW + dt.timedelta(days=30),
                       cities=cities_of(settings))
    await archive_case(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=rep.case_id,
                       reason="Fato não constatado na vistoria.", now=NOW, cities=cities_of(settings))
    updates = await _citizen_updates(session, cast.joao.id)
    assert [(u["protocol"], u["event"], u["status"]) for u in updates] == [
        (ouv.protocol, "complement_requested", "awaiting_complement"), (ouv.protocol, "archived", "archived"),
        (rep.protocol, "decided", "archived"),
    ]
    view = await staff_case(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=rep.case_id)
    assert view.outcome is Outcome.ARCHIVE and view.outcome_reason == "Fato não constatado na vistoria."


async def test_the_ombudsman_answer_names_the_ouvidor(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    """Issue 18 §1: every act names its author — the answer, by the Ouvidor (L13460 Art. 13–14)."""
    from core.i18n import translator
    from notifications.case_messages import render_case_update

    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(settings).default)
    await answer_case(session=session, cities=cities_of(settings), telegram_user_id=cast.otavio.telegram_user_id,
                      case_id=filed.case_id, text="O médico foi contratado e começa na segunda-feira.", now=NOW)
    [answered] = [u for u in await _citizen_updates(session, cast.joao.id) if u["event"] == "answered"]
    text = render_case_update(answered, translator("pt_BR")).text
    assert "Respondido por Otávio, Ouvidor(a), Ouvidoria Municipal." in text
