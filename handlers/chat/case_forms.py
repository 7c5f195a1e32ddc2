"""What the case conversations (representação, ombudsman) share.

The daily limit, the filing's confirmation, the answers told before the form began (a sentence typed at the
menu, ``handlers.chat.sentences``), and the author details of the person's last case offered back as one tap
(``<prefix>:reuse:last``).
"""

from __future__ import annotations

from typing import Any

from telegram import InputFile, Update

from core.municipality import Timestamping
from handlers.chat.context import BalcaoContext, city_today
from handlers.chat.engine import Forged, Turn
from handlers.chat.replies import esc, keyboard, menu_row, respond
from models.cases.attachments import discard_unfiled
from models.cases.filing import FiledCase
from models.cases.known_author import last_author
from models.cases.limits import check_daily_limit
from models.cases.receipt_pdf import signed_receipt
from models.columns import utcnow
from models.invalid_input import InvalidInput

REUSE_LABEL = 60
KNOWN = "known"
"""The draft key holding the author details of the person's last case (their own, shown only to them)."""
TOLD = "told"
"""The draft key listing the steps answered before the form began; they come first in the flow, asked no more."""


def told_first(flow: tuple[str, ...], data: dict[str, Any]) -> tuple[str, ...]:
    """The form's steps with those already told first (so the flow stays the same for the whole form)."""
    told = tuple(name for name in data.get(TOLD, ()) if name in flow)
    return told + tuple(name for name in flow if name not in told)


async def known_author(turn: Turn) -> dict[str, Any]:
    """The form's prepared answers: the name, profession and address of the person's last case, if any."""
    async with turn.context.sessions() as session:
        found = await last_author(session=session, person_id=turn.context.person.id)
    if found is None:
        return {}
    return {KNOWN: {"name": found.name, "profession": found.profession, "address": found.address}}


def reuse_rows(turn: Turn, prefix: str, *, with_address: bool) -> list[list[tuple[str, str]]]:
    """The one-tap answer "Use: Maria Aparecida da Silva, Rua das Flores, 100" (none without a last case)."""
    known = turn.data.get(KNOWN)
    if not known:
        return []
    parts = [known["name"], *([known["address"]] if with_address and known.get("address") else [])]
    details = ", ".join(parts)
    details = details if len(details) <= REUSE_LABEL else details[: REUSE_LABEL - 1] + "…"
    return [[(turn.tr._("Use: {details}").format(details=details), f"{prefix}:reuse:last")]]


def known_values(arg: str, turn: Turn) -> dict[str, Any]:
    """The last case's details behind a pressed ``reuse:last`` (a forged or stale press is refused as such)."""
    known = turn.data.get(KNOWN)
    if arg != "last" or not known:
        raise Forged(arg)
    return dict(known)


async def within_daily_limit(update: Update, context: BalcaoContext) -> bool:
    """Before a new case form: refuse, and say why, once today's limit is reached; drop an abandoned form's files."""
    async with context.sessions() as session:
        try:
            await check_daily_limit(session=session, person_id=context.person.id, now=utcnow(),
                                    city=context.city)
        except InvalidInput as refused:
            await respond(update, context, refused.render(context.tr), markup=keyboard([menu_row(context)]))
            return False
        await discard_unfiled(session=session, person_id=context.person.id)
        await session.commit()
    return True


async def confirm_filing(update: Update, context: BalcaoContext, filed: FiledCase) -> None:
    """Confirm the filing: the protocol and the deadline, the PDF receipt, then the buttons on a message of their own.

    The message with the protocol carries no button, so nothing pressed later can edit it away: it is the
    person's proof of filing (the buttons' own message is the one a press replaces).
    """
    tr = context.tr
    today = city_today(context)
    left = (filed.due_on - today).days
    text = (
        tr._("Sent! Your protocol number is <b>{protocol}</b>.").format(protocol=esc(filed.protocol))
        + "\n"
        + tr.ngettext(
            "The answer is due by {date} ({n} day from today).",
            "The answer is due by {date} ({n} days from today).",
            left,
        ).format(date=tr.date(filed.due_on), n=left)
        + "\n"
        + tr._("Follow it with /acompanhar. The receipt is below.")
    )
    await respond(update, context, text)
    # Headed by the Prefeitura the case belongs to (CF Art. 30 I), not the one the person chose.
    pdf = await signed_receipt(filed, tr=tr, cities=context.cities,
                               timestamping=Timestamping.of(context.deployment_settings))
    chat = update.effective_chat
    assert chat is not None
    await context.bot.send_document(
        chat_id=chat.id,
        document=InputFile(pdf, filename=f"{filed.protocol}.pdf"),
        caption=tr._("Receipt of {protocol}").format(protocol=filed.protocol),
    )
    await respond(update, context, tr._("What would you like to do now?"),
                  markup=keyboard([[(tr._("My cases"), "cmd:acompanhar")], menu_row(context)]))
