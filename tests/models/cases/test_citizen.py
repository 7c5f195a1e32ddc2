"""The author follows their cases, completes one when asked (D9492 Art. 18) and rates the answer
(L13460 Art. 23)."""

import datetime as dt

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.cases.attachments import store_attachment
from models.cases.citizen import answer_complement, explain_rating, my_case, my_cases, rate
from models.cases.filing import file_ombudsman_case, file_representation
from models.cases.handling import CaseActionRefused, answer_case, request_complement
from models.cases.limits import CaseLimits
from models.cases.tables import Case, CaseStatus, Satisfaction
from models.cases.timeline import CaseNotFound
from models.invalid_input import InvalidInput
from models.outbox import OutboxMessage
from tests.auxil.case_files import pdf
from tests.auxil.case_people import NOW, Cast, ombudsman, representation


async def test_a_person_lists_and_reads_only_their_own_cases(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    mine = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                     cities=cities_of(settings))
    theirs = await file_ombudsman_case(session=session, person_id=cast.maria.id, form=ombudsman(), now=NOW,
                                       city=cities_of(settings).default)
    lines = await my_cases(session=session, person_id=cast.joao.id)
    assert [line.protocol for line in lines] == [mine.protocol]
    view = await my_case(session=session, person_id=cast.joao.id, protocol=mine.protocol.lower())
    assert view.author.name == "João Batista Pereira" and [e.kind.value for e in view.events] == ["filed"]
    with pytest.raises(CaseNotFound):
        await my_case(session=session, person_id=cast.joao.id, case_id=theirs.case_id)


async def test_completing_a_case_restarts_the_answer_deadline_and_tells_the_staff(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(settings).default)
    await request_complement(session=session, telegram_user_id=cast.otavio.telegram_user_id, case_id=filed.case_id,
                             question="Qual é o endereço do posto?", now=NOW, cities=cities_of(settings))
    answered_at = NOW + dt.timedelta(days=10)
    document = await store_attachment(session=session, person_id=cast.joao.id, content=pdf(), file_name="x.pdf",
                                      limits=CaseLimits.of(settings), already=[])
    due = await answer_complement(session=session, person_id=cast.joao.id, case_id=filed.case_id,
                                  text="Rua das Acácias, 45.", attachment_ids=[document.id], now=answered_at,
                                  cities=cities_of(settings))
    assert due == dt.date(2026, 4, 13)  # 30 days from 12 March is Saturday 11 April → Monday 13
    view = await my_case(session=session, person_id=cast.joao.id, case_id=filed.case_id)
    assert view.status is CaseStatus.IN_PROGRESS and view.complement_answer == "Rua das Acácias, 45."
    assert [a.file_name for a in view.attachments] == [f"{filed.protocol}-anexo-1.pdf"]
    staff = (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == "cases.staff"))).all()
    assert [m.payload["what"] for m in staff] == ["new", "complement_answered"]
    with pytest.raises(CaseActionRefused, match="not waiting"):
        await answer_complement(session=session, person_id=cast.joao.id, case_id=filed.case_id, text="De novo",
                                attachment_ids=[], now=answered_at, cities=cities_of(settings))


async def test_the_deadline_may_be_kept_when_the_restart_is_off(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    keep = settings.model_copy(update={"ombudsman_complement_restarts": False})
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(keep).default)
    await request_complement(session=session, telegram_user_id=cast.otavio.telegram_user_id, case_id=filed.case_id,
                             question="Qual é o endereço do posto?", now=NOW, cities=cities_of(keep))
    due = await answer_complement(session=session, person_id=cast.joao.id, case_id=filed.case_id,
                                  text="Rua das Acácias, 45.", attachment_ids=[], now=NOW + dt.timedelta(days=10),
                                  cities=cities_of(keep))
    assert due == filed.due_on


async def test_an_answer_after_the_20_days_is_refused(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(settings).default)
    await request_complement(session=session, telegram_user_id=cast.otavio.telegram_user_id, case_id=filed.case_id,
                             question="Qual é o endereço do posto?", now=NOW, cities=cities_of(settings))
    with pytest.raises(CaseActionRefused, match="ended"):
        await answer_complement(session=session, person_id=cast.joao.id, case_id=filed.case_id, text="Rua A, 1.",
                                attachment_ids=[], now=NOW + dt.timedelta(days=22), cities=cities_of(settings))


async def test_the_author_rates_the_answer_once(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(settings).default)
    with pytest.raises(CaseActionRefused):
        await rate(session=session, person_id=cast.joao.id, case_id=filed.case_id,
                   satisfaction=Satisfaction.SATISFIED, now=NOW)
    await answer_case(session=session, cities=cities_of(settings),
                      telegram_user_id=cast.otavio.telegram_user_id, case_id=filed.case_id,
                      text="O médico começa na segunda-feira.", now=NOW)
    with pytest.raises(CaseNotFound):
        await rate(session=session, person_id=cast.maria.id, case_id=filed.case_id,
                   satisfaction=Satisfaction.UNSATISFIED, now=NOW)
    await rate(session=session, person_id=cast.joao.id, case_id=filed.case_id, satisfaction=Satisfaction.PARTLY,
               now=NOW)
    with pytest.raises(CaseActionRefused, match="already rated"):
        await rate(session=session, person_id=cast.joao.id, case_id=filed.case_id,
                   satisfaction=Satisfaction.SATISFIED, now=NOW)
    view = await my_case(session=session, person_id=cast.joao.id, case_id=filed.case_id)
    assert view.satisfaction is Satisfaction.PARTLY and view.answer == "O médico começa na segunda-feira."


async def test_the_reason_for_a_no_is_kept_once(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    # L13460 Art. 23: a "No" or "Partly" may say why, once; a "Yes" has nothing to explain
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(settings).default)
    await answer_case(session=session, cities=cities_of(settings),
                      telegram_user_id=cast.otavio.telegram_user_id, case_id=filed.case_id,
                      text="O médico começa na segunda-feira.", now=NOW)
    with pytest.raises(CaseActionRefused, match="No"):  # not rated yet
        await explain_rating(session=session, person_id=cast.joao.id, case_id=filed.case_id,
                             reason="Não veio ninguém.", now=NOW)
    await rate(session=session, person_id=cast.joao.id, case_id=filed.case_id,
               satisfaction=Satisfaction.UNSATISFIED, now=NOW)
    with pytest.raises(CaseNotFound):
        await explain_rating(session=session, person_id=cast.maria.id, case_id=filed.case_id,
                             reason="Não veio ninguém.", now=NOW)
    with pytest.raises(InvalidInput):
        await explain_rating(session=session, person_id=cast.joao.id, case_id=filed.case_id, reason="x" * 1001,
                             now=NOW)
    await explain_rating(session=session, person_id=cast.joao.id, case_id=filed.case_id,
                         reason="  Não veio   ninguém.  ", now=NOW)
    with pytest.raises(CaseActionRefused, match="already said why"):
        await explain_rating(session=session, person_id=cast.joao.id, case_id=filed.case_id,
                             reason="Outra coisa ainda.", now=NOW)
    case = await session.get(Case, filed.case_id)
    assert case is not None and case.satisfaction_reason == "Não veio ninguém."
    assert case.status is CaseStatus.ANSWERED
