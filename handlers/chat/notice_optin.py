"""Electronic notification: the terms, the acceptance (an optional CPF, then the confirmation) and stopping it.

The terms (L1533 Art. 22 §1; CTB Art. 282-A) are shown from /notificacoes or the deep link
``/start optin``; "✅ Aceito" (``ntc:optin:yes``) starts the acceptance, a form on ``handlers.chat.engine``
(buttons ``opt:…``): the CPF, optional, so staff can address notices to the person (typed, or Skip), then the
review, where ✅ Send or a typed "sim" records the acceptance with the terms' version and moment. Stopping is a
confirmation screen (``ntc:optout``), not a form.
"""

from __future__ import annotations

from typing import Any

from telegram import Update

from core.i18n import N_
from handlers.chat.context import BalcaoContext
from handlers.chat.deep_links import deep_link
from handlers.chat.engine import Filed, Forged, Form, Question, Step, Turn, begin, busy_elsewhere, register_form
from handlers.chat.replies import keyboard, menu_row, reply, respond
from models.cases.fields import cpf
from models.drivers.identifiers import mask_cpf
from models.notices.delivery import accept_electronic_notices, revoke_electronic_notices
from models.notices.optin import TERMS_VERSION, optin_status
from notifications.telegram_text import small

OPTIN_FORM = "notice_optin"


def terms_text(context: BalcaoContext) -> str:
    """The terms of electronic notification, in plain words."""
    tr = context.tr
    days = context.settings.tacit_ciencia_days
    lines = [
        tr._("<b>Receive penalty notices here</b>"),
        tr._("If you accept, the city hall may send you penalty notices in this chat, with the PDF document."),
        "• " + tr._('When a notice arrives, press "Tomo ciência": the day and time are recorded, and your deadlines '
                    "to defend yourself start then."),
        "• " + tr.ngettext(
            "For ride-hailing notices (Lei 1.533/2020), if you do not press it, you count as notified {n} day "
            "after the message, as in the national traffic notices.",
            "For ride-hailing notices (Lei 1.533/2020), if you do not press it, you count as notified {n} days "
            "after the message, as in the national traffic notices.", days).format(n=days),
        "• " + tr.ngettext("For other notices, if you do not press it within {n} day, it is delivered by post.",
                           "For other notices, if you do not press it within {n} days, it is delivered by post.",
                           days).format(n=days),
        "• " + tr._("Keep Telegram and do not block this bot. You can stop at any time in /notificacoes; "
                    "notices already received remain valid."),
    ]
    legal = tr._("Lei 1.533/2020, Art. 22 §1; CTB Art. 282-A. Terms version {version}.").format(version=TERMS_VERSION)
    return "\n".join(lines) + small(legal)


async def show_optin(update: Update, context: BalcaoContext, *, edit: bool = False) -> None:
    """The terms, with explicit acceptance."""
    tr = context.tr
    async with context.sessions() as session:
        status = await optin_status(session=session, person_id=context.person.id)
    text = terms_text(context)
    if status.current_terms:
        text += "\n\n" + tr._("You already accepted these terms.")
        rows = [[(tr._("◀ My notices"), "ntc:list")], menu_row(context)]
    else:
        rows = [[(tr._("✅ I accept"), "ntc:optin:yes")], [(tr._("Not now"), "ntc:list")], menu_row(context)]
    await reply(update, context, text, markup=keyboard(rows), edit=edit)


@deep_link("optin")
async def optin_link(update: Update, context: BalcaoContext, _rest: str) -> None:
    """``/start optin``: open the opt-in terms."""
    await show_optin(update, context)


def _ask_cpf(turn: Turn) -> Question:
    tr = turn.tr
    return Question(tr._("So the city hall can address notices to you, send your CPF (numbers only). This is "
                         "optional."), [[(tr._("Skip"), "opt:skip:cpf")]])


def _skip(arg: str, _turn: Turn) -> dict[str, Any]:
    if arg != "cpf":
        raise Forged(arg)
    return {"cpf": None}


STEPS = (Step("cpf", _ask_cpf, text=lambda text, _t: {"cpf": cpf(text)}, buttons={"skip": _skip}, label=N_("CPF")),)


def summary(turn: Turn) -> str:
    """The review: what is accepted, and the CPF masked."""
    tr = turn.tr
    lines = [tr._("Receive penalty notices in this chat.")]
    if turn.data.get("cpf"):
        lines.append(tr._("CPF: {cpf}").format(cpf=mask_cpf(turn.data["cpf"])))
    return "\n".join(lines)


async def submit(turn: Turn) -> Filed:
    """Record the acceptance (terms version and moment); documents waiting for the person come here."""
    context = turn.context
    async with context.sessions() as session:
        sent = await accept_electronic_notices(session=session, cities=context.cities,
                                               http_root=context.deployment_settings.http_root,
                                               person_id=context.person.id, cpf=turn.data.get("cpf"))

    async def announce() -> None:
        tr = context.tr
        text = tr._("Done! From now on, notices addressed to you arrive here.")
        if sent:
            text += "\n" + tr.ngettext("{n} document that was waiting for you is on its way here.",
                                       "{n} documents that were waiting for you are on their way here.",
                                       sent).format(n=sent)
        await respond(turn.update, context, text, markup=keyboard([[(tr._("◀ My notices"), "ntc:list")],
                                                                   menu_row(context)]))

    return Filed(f"terms:{TERMS_VERSION}", announce)


FORM = Form(
    name=OPTIN_FORM,
    prefix="opt",
    title=N_("your acceptance of electronic notices"),
    steps=STEPS,
    flow=lambda _data: ("cpf",),
    start=lambda _turn: {},
    intro=N_("Nothing is sent until you confirm at the end. You can stop at any time with /cancelar."),
    resume=N_("You were accepting electronic notices. Continue where you stopped, or start again?"),
    gone=N_("There is nothing to send. Start again from /notificacoes."),
    already_sent=N_("You already accepted: notices addressed to you arrive here."),
    review_intro=N_("<b>Confirm</b>"),
    summary=summary,
    submit=submit,
)
register = register_form(FORM)


async def accept(update: Update, context: BalcaoContext) -> None:
    """"✅ Aceito" under the terms: begin the acceptance (unless another form is in progress: said)."""
    if not await busy_elsewhere(update, context, OPTIN_FORM):
        await begin(FORM, update, context)


async def ask_optout(update: Update, context: BalcaoContext) -> None:
    """Confirm before stopping electronic notification."""
    tr = context.tr
    text = tr._("Stop receiving notices here? New notices, and any waiting for your confirmation, will be "
                "delivered by post. Notices you already received remain valid.")
    rows = [[(tr._("Yes, stop"), "ntc:optout:yes")], [(tr._("◀ Back"), "ntc:list")]]
    await reply(update, context, text, markup=keyboard(rows), edit=True)


async def optout(update: Update, context: BalcaoContext) -> None:
    """Stop electronic notification."""
    async with context.sessions() as session:
        await revoke_electronic_notices(session=session, person_id=context.person.id)
    await reply(update, context, context.tr._("Done: notices will no longer be sent here."),
                markup=keyboard([[(context.tr._("◀ My notices"), "ntc:list")], menu_row(context)]), edit=True)
