"""Filing: CP Art. 30–31 representações, Lei 1.533 ride-hailing reports, Lei 13.460 ombudsman cases."""

import datetime as dt
import logging

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import cities_of
from core.settings import Settings, load_settings
from models.cases.attachments import store_attachment
from models.cases.filing import (
    Author,
    NotAdmitted,
    Place,
    RideHailingForm,
    check_representation,
    file_ombudsman_case,
    file_representation,
    file_ride_hailing_report,
)
from models.cases.limits import CaseLimits, DailyLimitReached
from models.cases.tables import Case, CaseAttachment, CaseAuthor, CaseEvent, CaseKind, CaseStatus, Relation
from models.invalid_input import InvalidInput
from models.outbox import OutboxMessage
from models.people import Role, StaffMember, add_staff, ensure_person
from tests.auxil.case_files import png
from tests.auxil.case_people import ANA, NOW, Cast, ombudsman, representation


async def test_a_representation_gets_a_protocol_its_author_kept_apart_and_goes_to_the_clerks(
    session: AsyncSession, settings: Settings, cast: Cast, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="balcao")
    photo = await store_attachment(session=session, person_id=cast.joao.id, content=png(), file_name="foto.png",
                                   limits=CaseLimits.of(settings), already=[])
    filed = await file_representation(
        session=session, person_id=cast.joao.id, form=representation(attachment_ids=[photo.id]), now=NOW,
        cities=cities_of(settings),
    )
    assert filed.protocol == "REP-2026-000001"
    assert filed.due_on == dt.date(2026, 3, 12)  # BALCAO_CASE_TARGET_DAYS=10, a Thursday
    assert filed.legal_refs == (
        "Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina), Art. 30 a 32",
        "Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina), Art. 53 (Tabela I, item 9)",
    )
    case = await session.get(Case, filed.case_id)
    assert case is not None and case.status is CaseStatus.RECEIVED and case.handling_role is Role.CLERK
    author = (await session.exec(select(CaseAuthor))).one()
    assert (author.name, author.profession, author.cpf, author.person_id) == (
        "João Batista Pereira", "Pedreiro", "52998224725", cast.joao.id
    )
    assert (await session.get(CaseAttachment, photo.id)).case_id == case.id  # type: ignore[union-attr]
    events = (await session.exec(select(CaseEvent))).all()
    assert [e.kind.value for e in events] == ["filed"]
    staff_messages = (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == "cases.staff"))).all()
    assert [m.person_id for m in staff_messages] == [cast.clara.id]
    assert "João" not in str(staff_messages[0].payload) and "52998224725" not in str(staff_messages[0].payload)
    assert "João" not in caplog.text and "Pedreiro" not in caplog.text and "Flores" not in caplog.text


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"author": Author(name="João Batista Pereira")}, "name, profession and address"),
        ({"evidence_note": None}, "evidence"),
        ({"learned_how": ""}, "how you learned"),
        ({"relation": Relation.FORMER}, "when you left"),
    ],
)
async def test_art31_elements_are_required(
    session: AsyncSession, settings: Settings, cast: Cast, changes: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidInput, match=message):
        await file_representation(session=session, person_id=cast.joao.id, form=representation(**changes), now=NOW,
                                  cities=cities_of(settings))
    assert (await session.exec(select(Case))).first() is None


async def test_art31_sole_paragraph_refuses_a_former_employee_on_facts_before_leaving(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    before = representation(relation=Relation.FORMER, relation_ended_on=dt.date(2026, 2, 28))
    with pytest.raises(NotAdmitted, match="sole paragraph"):
        await file_representation(session=session, person_id=cast.joao.id, form=before, now=NOW,
                                  cities=cities_of(settings))
    after = representation(relation=Relation.FORMER, relation_ended_on=dt.date(2026, 2, 1))
    filed = await file_representation(session=session, person_id=cast.joao.id, form=after, now=NOW,
                                      cities=cities_of(settings))
    assert filed.protocol == "REP-2026-000001"  # the refused one took no number
    current = representation(relation=Relation.CURRENT)
    assert (await file_representation(session=session, person_id=cast.joao.id, form=current, now=NOW,
                                      cities=cities_of(settings))).protocol == "REP-2026-000002"


async def test_an_ombudsman_case_is_due_in_30_days(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    """L13460 Art. 16: a conclusive answer within 30 days (ending on a business day)."""
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(settings).default)
    assert filed.protocol == "OUV-2026-000001"
    assert filed.due_on == dt.date(2026, 4, 1)
    case = await session.get(Case, filed.case_id)
    assert case is not None and case.identity_restricted and case.handling_role is Role.OMBUDSMAN
    staff = (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == "cases.staff"))).all()
    assert [m.person_id for m in staff] == [cast.otavio.id]


async def test_a_ride_hailing_report_goes_to_the_inspectors(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    form = RideHailingForm(
        author=Author(name="João Batista Pereira"), vehicle_ref="QBX-1234", reason="street",
        facts="Pegou passageiros na rodoviária sem aplicativo.", occurred_on=dt.date(2026, 3, 1),
        place=Place(latitude=-13.54, longitude=-58.81), evidence_note="Vi pessoalmente",
    )
    filed = await file_ride_hailing_report(session=session, person_id=cast.joao.id, form=form, now=NOW,
                                           cities=cities_of(settings))
    case = await session.get(Case, filed.case_id)
    assert case is not None and case.kind is CaseKind.RIDE_HAILING and case.handling_role is Role.INSPECTOR
    assert filed.protocol == "APP-2026-000001"
    assert case.infraction_code == "L1533-27"  # not in the registry: illegal transport (Art. 27)
    assert filed.legal_refs == ("Lei nº 1.533/2020 (Sapezal), Art. 7º", "Lei nº 1.533/2020 (Sapezal), Art. 27")


async def test_the_daily_limit_keeps_abuse_out(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    limited = settings.model_copy(update={"cases_per_day": 2})
    for _ in range(2):
        await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                  city=cities_of(limited).default)
    with pytest.raises(DailyLimitReached) as caught:
        await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                  city=cities_of(limited).default)
    await session.rollback()
    assert "2 cases today" in caught.value.render(translator("en"))
    tomorrow = NOW + dt.timedelta(days=1)
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=tomorrow,
                                      city=cities_of(limited).default)
    assert filed.protocol == "OUV-2026-000003"  # the refused filing gave its number back
    other = await file_ombudsman_case(session=session, person_id=cast.maria.id, form=ombudsman(), now=NOW,
                                      city=cities_of(limited).default)
    assert other.protocol == "OUV-2026-000004"


async def test_a_rulebook_not_in_force_is_refused(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    # A deployment serving only Sapezal: the Código de Posturas is Nova Xavantina's law (CF Art. 30 I).
    only_sapezal = load_settings(database_url=settings.database_url, municipality_name="Sapezal")
    with pytest.raises(InvalidInput, match="not available"):
        await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                  cities=cities_of(only_sapezal))


async def test_with_nobody_of_the_queues_role_its_admins_are_told_but_not_of_a_restricted_case(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """A municipality without a clerk (or Ombudsman) still hears of a new case through its admins; a restricted
    ombudsman case stays the Ombudsman's alone, even to be told of (L13460 Art. 10 §7)."""
    for member in (await session.exec(select(StaffMember))).all():
        member.active = False  # Clara, Inês and Otávio leave
    await session.commit()
    ana = await ensure_person(session=session, telegram_user_id=ANA, chat_id=ANA, first_name="Ana",
                              language_code="pt-br")
    await add_staff(session=session, telegram_user_id=ANA, role=Role.ADMIN, name="Ana", actor="test")
    await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                              cities=cities_of(settings))
    await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=True), now=NOW,
                              city=cities_of(settings).default)
    staff = (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == "cases.staff"))).all()
    assert [(m.person_id, m.payload["kind"]) for m in staff] == [(ana.id, CaseKind.REPRESENTATION.value)]


@pytest.mark.parametrize(("changes", "named"), [
    ({"author": Author(name="João Batista Pereira", profession="", address="Rua das Flores, 1")},
     ("author.name", "author.profession", "author.address")),
    ({"evidence_note": None}, ("evidence_note", "attachment_ids")),
    ({"learned_how": ""}, ("learned_how",)),
    ({"relation": Relation.FORMER, "relation_ended_on": None}, ("relation_ended_on",)),
    ({"relation": Relation.FORMER, "relation_ended_on": dt.date(2026, 3, 1)}, ("occurred_on", "relation_ended_on")),
])
def test_each_refusal_of_cp_art_31_names_the_fields_it_is_about(changes: dict[str, object],
                                                                 named: tuple[str, ...]) -> None:
    """Issue 19 §2: the form offers "change this answer" from ``InvalidInput.fields``, never from the msgid's
    wording (CP Art. 31; sole paragraph for the former partner's facts from before they left)."""
    with pytest.raises(InvalidInput) as refused:
        check_representation(representation(**changes))
    assert refused.value.fields == named
