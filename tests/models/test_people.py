"""People, staff roles and the audit log."""

import datetime as dt

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.audit import AuditEvent, AuditLogIsAppendOnly
from models.outbox import OutboxMessage, enqueue
from models.people import (
    PermissionDenied,
    Role,
    add_staff,
    ensure_person,
    require_role,
    set_locale,
    staff_municipalities,
)


async def test_a_new_person_gets_the_locale_of_their_telegram_app(session: AsyncSession) -> None:
    maria = await ensure_person(
        session=session, telegram_user_id=1001, chat_id=1001, first_name="Maria", language_code="pt-br"
    )
    john = await ensure_person(
        session=session, telegram_user_id=1002, chat_id=1002, first_name="John", language_code="en-US"
    )
    ana = await ensure_person(
        session=session, telegram_user_id=1003, chat_id=1003, first_name="Ana", language_code="es-AR"
    )
    yuki = await ensure_person(
        session=session, telegram_user_id=1004, chat_id=1004, first_name="Yuki", language_code="ja"
    )
    assert (maria.locale, john.locale, ana.locale, yuki.locale) == ("pt_BR", "en", "es", "pt_BR")


async def test_a_chosen_language_wins_over_telegram(session: AsyncSession) -> None:
    john = await ensure_person(
        session=session, telegram_user_id=1002, chat_id=1002, first_name="John", language_code="en"
    )
    await set_locale(session=session, person_id=john.id, locale="es")
    again = await ensure_person(
        session=session, telegram_user_id=1002, chat_id=1002, first_name="John", language_code="en"
    )
    assert again.locale == "es"


async def test_roles_are_checked_and_admin_may_do_everything(session: AsyncSession) -> None:
    await add_staff(session=session, telegram_user_id=5001, role=Role.CLERK, name="Clara", actor="cli")
    await add_staff(session=session, telegram_user_id=5002, role=Role.ADMIN, name="Adão", actor="cli")
    assert await require_role(session=session, telegram_user_id=5001, allowed=frozenset({Role.CLERK}),
                              municipality=None) is Role.CLERK
    assert await require_role(
        session=session, telegram_user_id=5002, allowed=frozenset({Role.OMBUDSMAN}), municipality=None
    ) is Role.ADMIN
    with pytest.raises(PermissionDenied):
        await require_role(session=session, telegram_user_id=5001, allowed=frozenset({Role.OMBUDSMAN}),
                           municipality=None)
    with pytest.raises(PermissionDenied):
        await require_role(session=session, telegram_user_id=9999, allowed=frozenset({Role.CLERK}),
                       municipality=None)


async def test_the_audit_log_refuses_changes(session: AsyncSession) -> None:
    await add_staff(session=session, telegram_user_id=5001, role=Role.CLERK, actor="cli")
    audit = (await session.exec(select(AuditEvent))).one()
    assert audit.action == "staff.add"
    audit.action = "something.else"
    with pytest.raises(AuditLogIsAppendOnly):
        await session.commit()
    await session.rollback()
    await session.delete(audit)
    with pytest.raises(AuditLogIsAppendOnly):
        await session.commit()


async def test_enqueueing_the_same_key_twice_is_a_no_op(session: AsyncSession) -> None:
    maria = await ensure_person(
        session=session, telegram_user_id=1001, chat_id=1001, first_name="Maria", language_code="pt"
    )
    first = await enqueue(session=session, person_id=maria.id, kind="test", dedupe_key="renewal:auth-42:30d")
    second = await enqueue(session=session, person_id=maria.id, kind="test", dedupe_key="renewal:auth-42:30d")
    await session.commit()
    assert (first, second) == (True, False)
    assert len((await session.exec(select(OutboxMessage))).all()) == 1


async def test_naive_datetimes_are_refused(session: AsyncSession) -> None:
    maria = await ensure_person(
        session=session, telegram_user_id=1001, chat_id=1001, first_name="Maria", language_code="pt"
    )
    with pytest.raises(ValueError, match="timezone-aware"):
        await enqueue(
            session=session, person_id=maria.id, kind="t", dedupe_key="k",
            not_before=dt.datetime(2027, 1, 1, 12, 0),  # noqa: DTZ001  (the point of the test)
        )


async def test_a_role_is_held_in_one_municipality(session: AsyncSession) -> None:
    """CF Art. 30: each city hall has its own staff; an admin of Sapezal is nothing in Nova Xavantina."""
    await add_staff(session=session, telegram_user_id=5003, role=Role.ADMIN, actor="cli", municipality="sapezal")
    await add_staff(session=session, telegram_user_id=5003, role=Role.CLERK, actor="cli",
                    municipality="nova-xavantina")
    await add_staff(session=session, telegram_user_id=5004, role=Role.INSPECTOR, actor="cli", municipality="sapezal")
    everywhere = frozenset({Role.OMBUDSMAN})
    assert await require_role(session=session, telegram_user_id=5003, allowed=everywhere,
                              municipality="sapezal") is Role.ADMIN
    with pytest.raises(PermissionDenied):
        await require_role(session=session, telegram_user_id=5003, allowed=everywhere, municipality="nova-xavantina")
    with pytest.raises(PermissionDenied):
        await require_role(session=session, telegram_user_id=5004, allowed=frozenset({Role.INSPECTOR}),
                           municipality="nova-xavantina")
    assert await staff_municipalities(session=session, telegram_user_id=5004,
                                      allowed=frozenset({Role.INSPECTOR})) == frozenset({"sapezal"})


async def test_a_persons_city_is_their_driver_registrations_else_their_choice(session: AsyncSession) -> None:
    """Lei 1.533/2020 is Sapezal's: a linked driver is Sapezal's whatever they chose ("Minha cidade")."""
    import datetime as dt

    from models.drivers.tables import Driver
    from models.people import choose_municipality

    maria = await ensure_person(session=session, telegram_user_id=6001, chat_id=6001, first_name="Maria",
                                language_code="pt-br")
    assert maria.municipality is None and not maria.municipality_chosen
    await choose_municipality(session=session, person_id=maria.id, municipality="nova-xavantina")
    again = await ensure_person(session=session, telegram_user_id=6001, chat_id=6001, first_name="Maria",
                                language_code="pt-br")
    assert again.municipality == "nova-xavantina"
    session.add(Driver(municipality="sapezal", cpf="52998224725", name="Maria", cnh_number="1", cnh_category="B",
                       cnh_issued_on=dt.date(2015, 6, 1), person_id=maria.id))
    await session.commit()
    linked = await ensure_person(session=session, telegram_user_id=6001, chat_id=6001, first_name="Maria",
                                 language_code="pt-br")
    assert linked.municipality == "sapezal"


async def test_a_known_persons_select_is_built_once_and_reused(session: AsyncSession) -> None:
    # Issue 21: under py-spy, building this SELECT on every update (column comparisons, the join, the subquery,
    # then its cache key) cost more CPU than running it; one statement object keeps its cache key memoised.
    from sqlalchemy import event
    from sqlalchemy.orm import ORMExecuteState

    executed: list[object] = []

    def seen(state: ORMExecuteState) -> None:
        executed.append(state.statement)

    event.listen(session.sync_session, "do_orm_execute", seen)
    for _ in range(3):
        person = await ensure_person(
            session=session, telegram_user_id=1201, chat_id=1201, first_name="Maria", language_code="pt-br"
        )
    event.remove(session.sync_session, "do_orm_execute", seen)
    assert person.first_name == "Maria"
    assert len(executed) >= 3
    assert executed[-1] is executed[-2]  # the same statement object for every update of a known person
