"""The chat message delivering a fine says how to pay: the DAM's office and "PIX copia e cola" (CP Art. 34 IV)."""

from __future__ import annotations

import datetime as dt

from sqlmodel.ext.asyncio.session import AsyncSession

import notifications.notice_messages  # noqa: F401  (registers the notice renderers)
from core.i18n import translator
from core.settings import Settings
from notifications.rendering import render
from tests.auxil.notices import cp_auto, issue, opted_in, outbox, person
from tests.auxil.payments import crc_ok

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)


async def test_the_delivery_message_carries_the_pix_code_and_the_dam_office(
    session: AsyncSession, paying_settings: Settings
) -> None:
    maria = await person(session, 9001, "Maria")
    await opted_in(session, maria.id, now=NOW - dt.timedelta(days=1))
    issued = await issue(session, paying_settings, cp_auto(person_id=maria.id), now=NOW)
    [delivery] = await outbox(session, "notice.delivery")
    pix = delivery.payload["payment"]["pix"]
    assert crc_ok(pix)
    for locale, words in (("pt_BR", ("Como pagar", "DAM", "PIX copia e cola")), ("en", ("How to pay", "DAM")),
                          ("es", ("Cómo pagar", "DAM"))):
        shown = render(delivery.kind, delivery.payload, translator(locale))
        assert f"<code>{pix}</code>" in shown.text and "Setor de Tributos" in shown.text
        for word in words:
            assert word in shown.text, (locale, word)
    assert shown.document is not None and shown.document[1] == issued.pdf  # the PDF with the QR code goes along


async def test_without_payment_means_the_message_names_none(session: AsyncSession, settings: Settings) -> None:
    maria = await person(session, 9001, "Maria")
    await opted_in(session, maria.id, now=NOW - dt.timedelta(days=1))
    await issue(session, settings, cp_auto(person_id=maria.id), now=NOW)
    [delivery] = await outbox(session, "notice.delivery")
    assert "payment" not in delivery.payload
    assert "<code>" not in render(delivery.kind, delivery.payload, translator("pt_BR")).text
