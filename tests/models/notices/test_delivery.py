"""Delivery until ciência: explicit, tacit (SNE model), unreachable, revoked, postal (AR) and edital."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.notices.chain import events_of
from models.notices.delivery import (
    DeliveryError,
    accept_electronic_notices,
    close_running_editals,
    link_person,
    record_edital,
    record_explicit_ciencia,
    record_staff_delivery,
    revoke_electronic_notices,
    scan_electronic_deliveries,
    staff_list,
)
from models.notices.optin import optin_status
from models.notices.status import notice_view
from models.notices.tables import CienciaKind, DeliveryState, Notice, NoticeDelivery, NoticeStage, StaffReason
from models.notices.windows import governing
from models.outbox import OutboxMessage, OutboxStatus
from tests.auxil.notices import cp_auto, issue, l1533_auto, mark_outbox_sent, outbox
from tests.auxil.tlog import verify
from tests.models.notices.conftest import NOW, Cast


async def _delivery(session: AsyncSession) -> NoticeDelivery:
    rows = (await session.exec(select(NoticeDelivery).order_by(NoticeDelivery.id))).all()  # type: ignore[arg-type]
    await session.refresh(rows[-1])
    return rows[-1]


async def test_tomo_ciencia_records_the_server_moment_once(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
    delivery = await _delivery(session)
    assert delivery.id is not None
    moment = NOW + dt.timedelta(hours=3)
    result = await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                           person_id=cast.maria.id, now=moment)
    assert not result.already
    assert (result.delivery.ciencia_kind, result.delivery.ciencia_at) == (CienciaKind.EXPLICIT, moment)
    assert result.delivery.ciencia_on == dt.date(2026, 3, 2) and result.notice.stage is NoticeStage.NOTIFIED
    again = await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                          person_id=cast.maria.id, now=moment + dt.timedelta(days=2))
    assert again.already and again.delivery.ciencia_at == moment
    assert issued.notice.id is not None
    kinds = [e.kind for e in await events_of(session=session, notice_id=issued.notice.id)]
    assert kinds == ["issued", "delivery.electronic", "ciencia"]


async def test_only_the_notified_person_can_take_ciencia(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
    delivery = await _delivery(session)
    assert delivery.id is not None
    with pytest.raises(DeliveryError):
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=cast.joao.id, now=NOW)


async def test_lei_1533_tacit_ciencia_30_days_after_sending_ctb_282a_model(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Sent Mon 2/3/2026 11:00 Cuiabá; not acknowledged; tacit ciência on Wed 1/4/2026 at the same hour."""
    await issue(session, settings, l1533_auto(person_id=cast.maria.id), now=NOW)
    assert await scan_electronic_deliveries(session=session, cities=cities_of(settings), now=NOW) == 0  # not sent yet
    sent = NOW + dt.timedelta(hours=1)
    await mark_outbox_sent(session, at=sent)
    assert await scan_electronic_deliveries(session=session, cities=cities_of(settings),
                                            now=sent + dt.timedelta(days=29)) == 0
    await session.commit()
    assert await scan_electronic_deliveries(session=session, cities=cities_of(settings),
                                            now=sent + dt.timedelta(days=30)) == 1
    await session.commit()
    delivery = await _delivery(session)
    assert delivery.ciencia_kind is CienciaKind.TACIT
    assert delivery.ciencia_at == sent + dt.timedelta(days=30) and delivery.ciencia_on == dt.date(2026, 4, 1)
    [message] = await outbox(session, "notice.tacit_ciencia")
    assert message.mandatory and message.payload["on"] == "2026-04-01"
    assert await scan_electronic_deliveries(session=session, cities=cities_of(settings),
                                            now=sent + dt.timedelta(days=40)) == 0


async def _tamper(session: AsyncSession, statement: str, **params: object) -> None:
    """What an attacker with database access does: raw SQL, the application not involved."""
    from sqlalchemy import bindparam, text

    from models.columns import UTCDateTime

    clause = text(statement).bindparams(*(bindparam(name, value, type_=UTCDateTime()) if isinstance(
        value, dt.datetime) else bindparam(name, value) for name, value in params.items()))
    await session.exec(clause)  # type: ignore[call-overload]
    await session.commit()
    session.expunge_all()


async def test_an_outbox_row_said_sent_31_days_ago_fabricates_no_tacit_ciencia(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Issue 23, item 2: the outbox is outside the log. Its word becomes the delivery's sent_at (a logged fact)
    no earlier than the notice's issue, and a tacit ciência follows only from that logged fact (CTB Art. 282-A §2
    model, L1533)."""
    await issue(session, settings, l1533_auto(person_id=cast.maria.id), now=NOW)
    await _tamper(session, "UPDATE outbox_message SET status = 'SENT', sent_at = :at", at=NOW - dt.timedelta(days=31))
    later = NOW + dt.timedelta(hours=1)
    assert await scan_electronic_deliveries(session=session, cities=cities_of(settings), now=later) == 0
    await session.commit()
    assert await scan_electronic_deliveries(session=session, cities=cities_of(settings), now=later) == 0
    await session.commit()
    delivery = await _delivery(session)
    assert delivery.ciencia_kind is None and delivery.sent_at == NOW  # the notice's own logged issue
    assert (await verify(session)).ok


async def test_a_sent_at_changed_behind_the_log_fabricates_no_tacit_ciencia(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    await issue(session, settings, l1533_auto(person_id=cast.maria.id), now=NOW)
    await mark_outbox_sent(session, at=NOW)
    await scan_electronic_deliveries(session=session, cities=cities_of(settings), now=NOW)
    await session.commit()
    await _tamper(session, "UPDATE notice_delivery SET sent_at = :at", at=NOW - dt.timedelta(days=31))
    assert await scan_electronic_deliveries(session=session, cities=cities_of(settings),
                                            now=NOW + dt.timedelta(days=1)) == 0
    await session.commit()
    assert (await _delivery(session)).ciencia_kind is None
    assert not (await verify(session)).ok


async def test_cp_art_36_a_notice_not_acknowledged_goes_to_post_instead_of_tacit_ciencia(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
    await mark_outbox_sent(session, at=NOW)
    await scan_electronic_deliveries(session=session, cities=cities_of(settings), now=NOW)  # the scan that sees it sent
    await session.commit()
    await scan_electronic_deliveries(session=session, cities=cities_of(settings), now=NOW + dt.timedelta(days=30))
    await session.commit()
    [item] = await staff_list(session=session)
    assert (item.delivery.state, item.delivery.staff_reason) == (DeliveryState.STAFF, StaffReason.NOT_ACKNOWLEDGED)
    assert item.notice.stage is NoticeStage.AWAITING_CIENCIA


async def test_the_tacit_period_and_its_rulebooks_are_settings(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    both = settings.model_copy(update={"tacit_ciencia_days": 10,
                                       "tacit_ciencia_rulebooks": ["sapezal-1533", "nx-posturas"]})
    await issue(session, both, cp_auto(person_id=cast.maria.id), now=NOW)
    await mark_outbox_sent(session, at=NOW)
    await scan_electronic_deliveries(session=session, cities=cities_of(both), now=NOW)  # the scan that sees it sent
    await session.commit()
    assert await scan_electronic_deliveries(session=session, cities=cities_of(both),
                                            now=NOW + dt.timedelta(days=10)) == 1
    await session.commit()
    assert (await _delivery(session)).ciencia_kind is CienciaKind.TACIT


async def test_an_unreachable_person_goes_to_the_staff_list(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    await issue(session, settings, l1533_auto(person_id=cast.maria.id), now=NOW)
    message = (await session.exec(select(OutboxMessage))).one()
    message.status = OutboxStatus.UNREACHABLE
    session.add(message)
    await session.commit()
    assert await scan_electronic_deliveries(session=session, cities=cities_of(settings), now=NOW) == 1
    await session.commit()
    [item] = await staff_list(session=session)
    assert item.delivery.staff_reason is StaffReason.UNREACHABLE


async def test_revoking_the_opt_in_sends_what_awaits_ciencia_to_the_staff_list(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
    assert await revoke_electronic_notices(session=session, person_id=cast.maria.id, now=NOW)
    assert not (await optin_status(session=session, person_id=cast.maria.id)).active
    [item] = await staff_list(session=session)
    assert item.delivery.staff_reason is StaffReason.OPTED_OUT
    assert not await revoke_electronic_notices(session=session, person_id=cast.maria.id, now=NOW)
    next_notice = await issue(session, settings, cp_auto(person_id=cast.maria.id, infraction_code="CP-I-2"), now=NOW)
    assert next_notice.notice.person_id == cast.maria.id and len(await staff_list(session=session)) == 2


async def test_accepting_electronic_notices_later_sends_what_waited_on_the_staff_list(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """João had not opted in: his notice went to the post list; once he accepts, it comes to the bot."""
    issued = await issue(session, settings, cp_auto(person_id=cast.joao.id, offender_document=None), now=NOW)
    [item] = await staff_list(session=session)
    assert item.delivery.staff_reason is StaffReason.NO_OPTIN and await outbox(session, "notice.delivery") == []
    later = NOW + dt.timedelta(days=2)
    assert await accept_electronic_notices(session=session, cities=cities_of(settings), http_root=settings.http_root,
                                           person_id=cast.joao.id,
                                           now=later) == 1
    assert await staff_list(session=session) == []
    delivery = await _delivery(session)
    assert (delivery.state, delivery.staff_reason, delivery.sent_at) == (DeliveryState.ELECTRONIC, None, None)
    [message] = await outbox(session, "notice.delivery")
    assert message.person_id == cast.joao.id and message.mandatory
    assert message.payload["delivery_id"] == delivery.id and message.dedupe_key == delivery.outbox_key
    assert issued.notice.id is not None
    kinds = [e.kind for e in await events_of(session=session, notice_id=issued.notice.id)]
    assert kinds == ["issued", "delivery.staff", "delivery.electronic"]
    assert (await verify(session)).ok
    # accepting again (new terms) finds nothing more to send
    assert await accept_electronic_notices(session=session, cities=cities_of(settings), http_root=settings.http_root,
                                           person_id=cast.joao.id,
                                           now=later) == 0


async def test_a_document_not_acknowledged_in_time_stays_with_staff_after_a_new_opt_in(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """CP Art. 36: the bot had its chance; the letter with AR is now the way, whatever the person does."""
    await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
    await mark_outbox_sent(session, at=NOW)
    await scan_electronic_deliveries(session=session, cities=cities_of(settings), now=NOW)  # the scan that sees it sent
    await session.commit()
    await scan_electronic_deliveries(session=session, cities=cities_of(settings), now=NOW + dt.timedelta(days=30))
    await session.commit()
    assert await accept_electronic_notices(session=session, cities=cities_of(settings), http_root=settings.http_root,
                                           person_id=cast.maria.id,
                                           now=NOW + dt.timedelta(days=31)) == 0
    [item] = await staff_list(session=session)
    assert item.delivery.staff_reason is StaffReason.NOT_ACKNOWLEDGED


async def test_staff_link_a_person_found_after_the_issue(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Issued to nobody in the bot; staff link Maria (opted in) by her Telegram id and it goes to her."""
    issued = await issue(session, settings, cp_auto(offender_document=None), now=NOW)
    assert issued.notice.id is not None and issued.notice.person_id is None
    with pytest.raises(DeliveryError, match="Nobody"):
        await link_person(session=session, cities=cities_of(settings), http_root=settings.http_root,
                          notice_id=issued.notice.id, telegram_user_id=424242,
                          actor="staff:9101", now=NOW)
    assert await link_person(session=session, cities=cities_of(settings), http_root=settings.http_root,
                             notice_id=issued.notice.id,
                             telegram_user_id=9001, actor="staff:9101", now=NOW) == 1
    notice = await session.get(Notice, issued.notice.id)
    assert notice is not None and notice.person_id == cast.maria.id
    [message] = await outbox(session, "notice.delivery")
    assert message.person_id == cast.maria.id
    with pytest.raises(DeliveryError, match="another person"):
        await link_person(session=session, cities=cities_of(settings), http_root=settings.http_root,
                          notice_id=issued.notice.id, person_id=cast.joao.id,
                          actor="staff:9101", now=NOW)
    kinds = [e.kind for e in await events_of(session=session, notice_id=issued.notice.id)]
    assert kinds == ["issued", "delivery.staff", "person.linked", "delivery.electronic"]
    assert (await verify(session)).ok  # the person is not one of the legal elements


async def test_a_person_linked_without_opt_in_stays_on_the_staff_list(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    issued = await issue(session, settings, cp_auto(offender_document=None), now=NOW)
    assert issued.notice.id is not None
    assert await link_person(session=session, cities=cities_of(settings), http_root=settings.http_root,
                             notice_id=issued.notice.id,
                             person_id=cast.joao.id, actor="staff:9101", now=NOW) == 0
    [item] = await staff_list(session=session)
    assert item.notice.person_id == cast.joao.id and item.delivery.staff_reason is StaffReason.NO_PERSON
    # when João accepts, it comes to him
    assert await accept_electronic_notices(session=session, cities=cities_of(settings), http_root=settings.http_root,
                                           person_id=cast.joao.id, now=NOW) == 1


async def test_cp_art_36_i_and_ii_staff_record_the_delivery_in_person_or_the_ar_date(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    await issue(session, settings, cp_auto(offender_document=None), now=NOW)
    delivery = await _delivery(session)
    assert delivery.id is not None
    with pytest.raises(DeliveryError, match="future"):
        await record_staff_delivery(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                    how=CienciaKind.POSTAL, on=dt.date(2026, 3, 9), actor="staff:9102", now=NOW)
    with pytest.raises(DeliveryError, match="before"):
        await record_staff_delivery(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                    how=CienciaKind.POSTAL, on=dt.date(2026, 3, 1), actor="staff:9102", now=NOW)
    result = await record_staff_delivery(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                         how=CienciaKind.POSTAL, on=dt.date(2026, 3, 5), actor="staff:9102",
                                         now=NOW + dt.timedelta(days=5))
    assert (result.delivery.ciencia_kind, result.delivery.ciencia_on) == (CienciaKind.POSTAL, dt.date(2026, 3, 5))
    assert result.notice.stage is NoticeStage.NOTIFIED and await staff_list(session=session) == []
    with pytest.raises(DeliveryError, match="already"):
        await record_staff_delivery(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                    how=CienciaKind.PERSONAL, on=dt.date(2026, 3, 5), actor="staff:9102",
                                    now=NOW + dt.timedelta(days=5))
    assert (await verify(session)).ok


async def test_cp_art_36_iii_edital_counts_after_its_30_days_and_stays_listed_meanwhile(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Published Mon 30/11/2026: the 30 days end Wed 30/12/2026; the term starts the business day after, Thu 31/12
    (CPC Art. 231 IV by analogy; BALCAO_CP_EDITAL_START), which is the ciência."""
    issued = await issue(session, settings, cp_auto(offender_document=None), now=dt.datetime(2026, 11, 27, 15,
                                                                                               tzinfo=dt.UTC))
    delivery = await _delivery(session)
    assert delivery.id is not None
    published = dt.datetime(2026, 11, 30, 15, tzinfo=dt.UTC)
    result = await record_edital(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                 published_on=dt.date(2026, 11, 30), actor="staff:9102", now=published)
    assert result.delivery.ciencia_on == dt.date(2026, 12, 31) and result.delivery.state is DeliveryState.EDITAL
    [running] = await staff_list(session=session)
    assert running.delivery.edital_published_on == dt.date(2026, 11, 30)
    assert await close_running_editals(session=session, cities=cities_of(settings), now=published) == 0
    assert await close_running_editals(session=session, cities=cities_of(settings),
                                       now=dt.datetime(2026, 12, 30, 15, tzinfo=dt.UTC)) == 0
    assert await close_running_editals(session=session, cities=cities_of(settings),
                                       now=dt.datetime(2026, 12, 31, 15, tzinfo=dt.UTC)) == 1
    await session.commit()
    assert await staff_list(session=session) == []
    notice = await session.get(Notice, issued.notice.id)
    assert notice is not None and notice.stage is NoticeStage.NOTIFIED


async def test_lei_1533_edital_counts_from_its_publication(session: AsyncSession, settings: Settings) -> None:
    await issue(session, settings, l1533_auto(offender_document=None), now=NOW)
    delivery = await _delivery(session)
    assert delivery.id is not None
    result = await record_edital(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                 published_on=dt.date(2026, 3, 2), actor="cli", now=NOW)
    assert result.delivery.ciencia_on == dt.date(2026, 3, 2) and result.delivery.state is DeliveryState.DONE


@pytest.mark.parametrize(("window", "closes"), [("earliest", dt.date(2027, 1, 13)), ("art278", dt.date(2027, 2, 1))])
async def test_cp_art_278_after_an_edital_never_closes_before_its_ciencia(
    session: AsyncSession, settings: Settings, cast: Cast, window: str, closes: dt.date
) -> None:
    """CP Art. 278 §2 with Art. 36 III and CF Art. 5 LV: an auto whose edital was published on 30/11/2026 is known on
    31/12 (the ciência the product computes); the 30 days of Art. 278 run from it, to Mon 1/2/2027. With
    BALCAO_CP_DEFENCE_WINDOW=earliest or art278 today's main closed the defence on 30/12, the edital's last day."""
    chosen = settings.model_copy(update={"cp_defence_window": window})
    issued = await issue(session, chosen, cp_auto(offender_document=None),
                         now=dt.datetime(2026, 11, 27, 15, tzinfo=dt.UTC))
    delivery = await _delivery(session)
    assert delivery.id is not None
    await record_edital(session=session, cities=cities_of(chosen), delivery_id=delivery.id,
                        published_on=dt.date(2026, 11, 30), actor="staff:9102",
                        now=dt.datetime(2026, 11, 30, 15, tzinfo=dt.UTC))
    notice = await session.get(Notice, issued.notice.id)
    assert notice is not None
    view = await notice_view(session=session, city=cities_of(chosen).of(notice.municipality), notice=notice,
                             today=dt.date(2027, 1, 4))
    defence = governing(view.windows).defence
    assert defence is not None and defence.final_date == closes and defence.final_date > dt.date(2026, 12, 31)
    art278 = next(w for w in view.windows if w.rule.id == "cp-278-defesa")
    assert art278.final_date == dt.date(2027, 2, 1)
