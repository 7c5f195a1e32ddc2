"""/pendencias: staff work the queue of citizens' cases in the bot.

The queue of the staff member's role (every role for admins), nearest deadline first. A case opens with the
actions that fit it: take it, ask the author for more information (once; 20 days to answer), decide a
representação or ride-hailing report (CP Art. 32: notify, issue an auto — handed over to the penalty notices —
or archive with a reason), answer an ombudsman case, extend its deadline once with a reason (Lei 13.460/2017
Art. 16), archive it, and see the files. Every action checks the role on the call (the domain functions do).
Texts staff type (question, reason, answer) go through a form kept in the draft table and a confirmation.
Buttons: ``pend:…``. The author of a restricted ombudsman case shows only as a pseudonym to anyone but the
Ombudsman.
"""

from __future__ import annotations

from typing import Any

from telegram import InputFile, Update
from telegram.ext import Application, CallbackQueryHandler

from core.i18n import N_
from handlers import log_context
from handlers.chat.buttons import button_id, unknown_button
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext, city_today
from handlers.chat.follow import render_case
from handlers.chat.forms import busy_elsewhere, cancel_row, current_draft, form_input, save
from handlers.chat.replies import acknowledge, esc, keyboard, menu_row, respond
from handlers.chat.staff_notices import ISSUERS
from models.cases.access import CaseNotReadable
from models.cases.fields import clean_text
from models.cases.handling import (
    Decision,
    answer_case,
    archive_case,
    assign,
    decide,
    extend,
    may_act,
    request_complement,
    staff_case,
    staff_queue,
    staff_queue_size,
)
from models.cases.labels import OMBUDSMAN_TYPE_LABELS, STATUS_LABELS
from models.cases.ombudsman_reach import unread_for_admin, unread_restricted_text
from models.cases.tables import CaseAttachment, CaseKind, CaseStatus, Outcome
from models.cases.timeline import CaseNotFound
from models.cases.views import CaseView
from models.columns import utcnow
from models.days_left import days_words
from models.drafts import Draft, discard_draft
from models.invalid_input import InvalidInput
from models.people import PermissionDenied, Role

FORM = "pendencias"
PHOTO_TYPES = frozenset({"image/jpeg", "image/png"})
QUEUE_ROLES = frozenset({Role.CLERK, Role.INSPECTOR, Role.OMBUDSMAN})
PAGE = 10
"""Cases per page of /pendencias: ten buttons and their lines fit a phone's screen."""

OUTCOME_LABELS = {
    Outcome.NOTIFY: N_("Notify the offender (notificação preliminar)"),
    Outcome.AUTO: N_("Issue an infraction report (auto de infração)"),
    Outcome.ARCHIVE: N_("Archive, with a reason"),
}
TEXT_PROMPTS = {
    "ask": N_("Type the question for the author. They will have 20 days to answer."),
    "archive": N_("Type the reason for archiving. The author will read it."),
    "answer": N_("Type the answer to the author. It closes the case and goes to them in the chat."),
    "extend": N_("Type the reason for extending the deadline by 30 days. The author will read it."),
    "notify": N_("Type a note for the author, or press Skip."),
    "auto": N_("Type a note for the author, or press Skip."),
}


async def _refuse_other_role(update: Update, context: BalcaoContext) -> None:
    await respond(update, context, context.tr._("This case is worked by staff of another role, so it is not shown "
                                                "to you."), markup=keyboard([menu_row(context)]))


async def _refuse_not_staff(update: Update, context: BalcaoContext) -> None:
    await respond(update, context, context.tr._("This is only for city hall staff."),
                markup=keyboard([menu_row(context)]))


@chat_command(
    "pendencias",
    aliases=("queue",),
    description=N_("Cases waiting for you, nearest deadline first"),
    menu_label=N_("Pending cases"),
    staff_roles=QUEUE_ROLES,
    order=60,
)
async def queue_command(update: Update, context: BalcaoContext) -> None:
    """``/pendencias``: the queue."""
    await show_queue(update, context, edit=True)


async def show_queue(update: Update, context: BalcaoContext, *, edit: bool = False, page: int = 0) -> None:
    """The open cases of the staff member's role, nearest deadline first, :data:`PAGE` at a time."""
    tr = context.tr
    try:
        async with context.sessions() as session:
            total = await staff_queue_size(session=session, telegram_user_id=context.person.telegram_user_id)
            page = min(max(0, page), max(0, (total - 1) // PAGE))
            items = await staff_queue(session=session, telegram_user_id=context.person.telegram_user_id,
                                      today=city_today(context), limit=PAGE, offset=page * PAGE)
            unread = await unread_for_admin(session=session, telegram_user_id=context.person.telegram_user_id,
                                            deployment=list(context.deployment_settings.municipalities))
    except PermissionDenied:
        await _refuse_not_staff(update, context)
        return
    waiting = [esc(unread_restricted_text(tr, count=count, city=context.settings.municipalities[slug].name))
               for slug, count in unread.items()]  # L13460 Art. 10 §7: how many, never what
    if not items:
        await respond(update, context, "\n\n".join([*waiting, tr._("Nothing pending in your queue.")]),
                      markup=keyboard([menu_row(context)]), edit=edit)
        return
    first, last = page * PAGE + 1, page * PAGE + len(items)
    lines = [*waiting, tr._("<b>Pending cases</b> (nearest deadline first)"),
             tr.ngettext("{count} case in your queue; here {first} to {last}.",
                         "{count} cases in your queue; here {first} to {last}.", total).format(
                 count=tr.number(total), first=tr.number(first), last=tr.number(last)), ""]
    rows = []
    for item in items:
        if item.ombudsman_type is not None:
            label = tr._(OMBUDSMAN_TYPE_LABELS[item.ombudsman_type])
        elif item.kind is CaseKind.RIDE_HAILING:
            label = tr._("Ride-hailing")
        else:
            label = tr._("Representation")
        flags = []
        if item.assigned_to_me:
            flags.append(tr._("yours"))
        elif item.assigned_staff_id is None:
            flags.append(tr._("unassigned"))
        if item.complement_lapsed:
            flags.append(tr._("no answer from the author: may be archived"))
        elif item.status is CaseStatus.AWAITING_COMPLEMENT:
            flags.append(tr._("waiting for the author"))
        lines.append(
            f"• <b>{esc(item.protocol)}</b> · {esc(label)} · {esc(tr.short_date(item.due_on))} "
            f"({esc(days_words(tr, item.days_left))})" + (f" · {esc(', '.join(flags))}" if flags else "")
        )
        rows.append([(item.protocol, f"pend:case:{item.id}")])
    turn = []
    if page > 0:
        turn.append((tr._("‹ Previous cases"), f"pend:page:{page}"))  # pages are numbered from 1
    if last < total:
        turn.append((tr._("More cases ›"), f"pend:page:{page + 2}"))
    await respond(update, context, "\n".join(lines), markup=keyboard([*rows, *([turn] if turn else []),
                                                                      menu_row(context)]), edit=edit)


def _actions(view: CaseView, context: BalcaoContext, my_role: Role) -> list[list[tuple[str, str]]]:
    tr = context.tr
    rows: list[list[tuple[str, str]]] = []
    may_act = my_role is Role.ADMIN or my_role is view.handling_role
    if view.is_open and may_act:
        rows.append([(tr._("Take this case"), f"pend:take:{view.id}")])
        if view.complement_question is None:
            rows.append([(tr._("Ask the author for more information"), f"pend:ask:{view.id}")])
        if view.kind is CaseKind.OMBUDSMAN:
            rows.append([(tr.pgettext("button", "Answer"), f"pend:answer:{view.id}")])
            if not view.extended:
                rows.append([(tr._("Extend by 30 days"), f"pend:extend:{view.id}")])
            rows.append([(tr._("Archive"), f"pend:archive:{view.id}")])
        else:
            rows += [[(tr._(label), f"pend:{outcome.value}:{view.id}")] for outcome, label in OUTCOME_LABELS.items()]
    if view.attachments:
        rows.append([(tr._("See the files"), f"pend:files:{view.id}")])
    rows += [[(tr._("◀ Pending cases"), "pend:list")], menu_row(context)]
    return rows


async def show_case(update: Update, context: BalcaoContext, case_id: int, *, edit: bool = False) -> None:
    """A case as this staff member may see it, with the actions they may take."""
    tr = context.tr
    try:
        async with context.sessions() as session:
            view = await staff_case(session=session, telegram_user_id=context.person.telegram_user_id,
                                    case_id=case_id)
    except CaseNotReadable:  # LGPD Art. 6 III: another role's case (models.cases.access)
        await _refuse_other_role(update, context)
        return
    except PermissionDenied:
        await _refuse_not_staff(update, context)
        return
    except CaseNotFound:
        await respond(update, context, tr._("That case does not exist."), markup=keyboard([menu_row(context)]))
        return
    log_context.bind(protocol=view.protocol)
    role = context.person.staff_role or Role.CLERK
    text = render_case(view, tr, today=city_today(context), staff=True)
    await respond(update, context, text, markup=keyboard(_actions(view, context, role)), edit=edit)


async def _send_files(update: Update, context: BalcaoContext, case_id: int) -> None:
    tr = context.tr
    try:
        async with context.sessions() as session:
            view = await staff_case(session=session, telegram_user_id=context.person.telegram_user_id,
                                    case_id=case_id)
            attachments = [(a.file_name, await session.get(CaseAttachment, a.id)) for a in view.attachments]
    except CaseNotReadable:
        await _refuse_other_role(update, context)
        return
    except (PermissionDenied, CaseNotFound):
        await _refuse_not_staff(update, context)
        return
    chat = update.effective_chat
    assert chat is not None
    await acknowledge(update, context)
    kept = [(shown_name, attachment) for shown_name, attachment in attachments if attachment is not None]
    for index, (shown_name, attachment) in enumerate(kept, start=1):
        caption = tr._("{protocol} · file {n} of {total} · sha256 {digest}…").format(
            protocol=view.protocol, n=index, total=len(kept), digest=attachment.sha256[:12])
        said = getattr(attachment, "caption", None)  # the sender's caption ("foto do entulho"), when it was kept
        if said:
            caption = f"“{said}”\n{caption}"
        upload = InputFile(attachment.content, filename=shown_name)  # <protocol>-anexo-<n>, never the sender's
        if attachment.mime_type in PHOTO_TYPES:  # a photo is shown as a photo, not as a file named foto.jpg
            await context.bot.send_photo(chat_id=chat.id, photo=upload, caption=caption[:1024])
        else:
            await context.bot.send_document(chat_id=chat.id, document=upload, caption=caption[:1024])
    await respond(update, context, tr._("Files of {protocol} above.").format(protocol=esc(view.protocol)),
                markup=keyboard([[(tr._("Back to the case"), f"pend:case:{case_id}")]]))


async def _take(update: Update, context: BalcaoContext, case_id: int) -> None:
    async with context.sessions() as session:
        await assign(session=session, telegram_user_id=context.person.telegram_user_id, case_id=case_id,
                     now=utcnow())
    await respond(update, context, context.tr._("The case is yours now."))
    await show_case(update, context, case_id)


async def _start_text(update: Update, context: BalcaoContext, action: str, case_id: int) -> None:
    tr = context.tr
    try:  # the role is checked again here, before anything is typed (PermissionDenied goes to on_button)
        async with context.sessions() as session:
            await may_act(session=session, telegram_user_id=context.person.telegram_user_id, case_id=case_id)
    except (InvalidInput, CaseNotFound) as refused:
        text = refused.render(tr) if isinstance(refused, InvalidInput) else tr._("That case does not exist.")
        await respond(update, context, text, markup=keyboard([[(tr._("◀ Pending cases"), "pend:list")]]))
        return
    if await busy_elsewhere(update, context, FORM):
        return
    data = {"action": action, "case_id": case_id}
    await save(context, FORM, "text", data)
    rows = [cancel_row(context, "pend:cancel")]
    if action in ("notify", "auto"):
        rows.insert(0, [(tr._("Skip"), "pend:skip")])
    await respond(update, context, tr._(TEXT_PROMPTS[action]), markup=keyboard(rows))


@form_input(FORM, title=N_("your action on the case"))
async def on_input(update: Update, context: BalcaoContext, draft: Draft) -> None:
    """The text of a staff action (question, reason, answer, note), then a confirmation."""
    tr = context.tr
    data = dict(draft.data)
    message = update.effective_message
    assert message is not None
    if draft.step != "text" or message.text is None:
        await respond(update, context, tr._("Please type the text, or press a button."))
        return
    try:
        minimum = 5 if data["action"] in ("archive", "notify", "auto") else 10
        data["text"] = clean_text(message.text, min_length=minimum, max_length=3500)
    except InvalidInput as invalid:
        await respond(update, context, invalid.render(tr))
        return
    await _confirm(update, context, data)


async def _confirm(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    tr = context.tr
    await save(context, FORM, "confirm", data)
    action = data["action"]
    titles = {
        "ask": tr._("Ask the author:"),
        "archive": tr._("Archive with this reason:"),
        "answer": tr._("Answer the author:"),
        "extend": tr._("Extend the deadline by 30 days, because:"),
        "notify": tr._(OUTCOME_LABELS[Outcome.NOTIFY]),
        "auto": tr._(OUTCOME_LABELS[Outcome.AUTO]),
    }
    text = f"<b>{esc(titles[action])}</b>"
    if data.get("text"):
        text += f"\n\n{esc(data['text'])}"
    await respond(update, context, text + "\n\n" + tr._("Confirm?"), markup=keyboard([
        [(tr._("✅ Confirm"), "pend:ok")], cancel_row(context, "pend:cancel"),
    ]))


async def _execute(update: Update, context: BalcaoContext, data: dict[str, Any]) -> None:
    tr = context.tr
    action, case_id, text = data["action"], int(data["case_id"]), data.get("text")
    who = context.person.telegram_user_id
    decision: Decision | None = None
    async with context.sessions() as session:
        await discard_draft(session=session, person_id=context.person.id)
        now = utcnow()
        if action == "ask":
            due = await request_complement(session=session, telegram_user_id=who, case_id=case_id, question=text or "",
                                           now=now, settings=context.settings)
            done = tr._("Sent to the author. They have until {date} to answer.").format(date=tr.date(due))
        elif action == "answer":
            await answer_case(session=session, telegram_user_id=who, case_id=case_id, text=text or "", now=now,
                              settings=context.settings)
            done = tr._("Answer sent to the author. The case is closed.")
        elif action == "extend":
            due = await extend(session=session, telegram_user_id=who, case_id=case_id, reason=text or "", now=now,
                               settings=context.settings)
            done = tr._("Deadline extended to {date}. The author was told why.").format(date=tr.date(due))
        elif action == "archive":
            await archive_case(session=session, telegram_user_id=who, case_id=case_id, reason=text or "", now=now,
                               settings=context.settings)
            done = tr._("Archived. The author was told the reason.")
        else:
            decision = await decide(session=session, telegram_user_id=who, case_id=case_id, outcome=Outcome(action),
                                    reason=text, now=now)
            done = tr._("Decided: {status}.").format(status=tr._(STATUS_LABELS[decision.status]))
    if decision is not None and decision.handover is not None:
        handover = decision.handover
        kind = tr._("notificação preliminar") if handover.notice_type == "preliminar" else tr._("auto de infração")
        done += "\n\n" + tr._(
            "Now issue the {notice} in the penalty notices, quoting case {protocol} (case id {case_id}): the "
            "offender, the place and the facts come from the case; the author's name is never on it."
        ).format(notice=kind, protocol=esc(handover.protocol), case_id=handover.case_id)
    rows = [[(tr._("◀ Pending cases"), "pend:list")], menu_row(context)]
    if decision is not None and decision.handover is not None and context.person.staff_role in ISSUERS:
        # Issue 9 item 6: the hand-over leads to /emitir, prefilled from the case (handlers.chat.staff_notices).
        rows.insert(0, [(tr._("Issue the notice now"), f"nstf:case:{decision.handover.case_id}")])
    await respond(update, context, done, markup=keyboard(rows))


async def on_button(update: Update, context: BalcaoContext) -> None:
    """Every ``pend:`` button; each action checks the staff member's role again."""
    tr = context.tr
    query = update.callback_query
    assert query is not None and query.data is not None
    parts = query.data.split(":")
    action = parts[1]
    try:
        if action == "list":
            await show_queue(update, context, edit=True)
        elif action == "cancel":
            async with context.sessions() as session:
                await discard_draft(session=session, person_id=context.person.id)
            await respond(update, context, tr._("Cancelled: nothing was changed."), edit=True,
                        markup=keyboard([[(tr._("◀ Pending cases"), "pend:list")]]))
        elif action in ("ok", "skip"):
            draft = await current_draft(context, FORM)
            if draft is None:
                await respond(update, context, tr._("Nothing to confirm."), markup=keyboard([menu_row(context)]))
            elif action == "skip" and draft.step == "text" and draft.data.get("action") in ("notify", "auto"):
                await _confirm(update, context, dict(draft.data))
            elif action == "ok" and draft.step == "confirm":
                await _execute(update, context, dict(draft.data))
            else:
                await respond(update, context, tr._("Please type the text, or press a button."))
        elif len(parts) == 3 and (case_id := button_id(parts[2])) is not None:
            if action == "page":
                await show_queue(update, context, edit=True, page=case_id - 1)
            elif action == "case":
                await show_case(update, context, case_id)
            elif action == "take":
                await _take(update, context, case_id)
            elif action == "files":
                await _send_files(update, context, case_id)
            elif action in TEXT_PROMPTS:
                await _start_text(update, context, action, case_id)
            else:
                await unknown_button(update, context)
        else:
            await unknown_button(update, context)
    except PermissionDenied:
        await _refuse_not_staff(update, context)
    except InvalidInput as refused:
        async with context.sessions() as session:
            await discard_draft(session=session, person_id=context.person.id)
        await respond(update, context, refused.render(tr), markup=keyboard([[(tr._("◀ Pending cases"), "pend:list")]]))
    except CaseNotFound:  # a forged or stale id, or a restricted case opened by someone but the Ombudsman
        await respond(update, context, tr._("That case does not exist."),
                      markup=keyboard([[(tr._("◀ Pending cases"), "pend:list")]]))


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the queue buttons (the command and free input are registered through their decorators)."""
    application.add_handler(CallbackQueryHandler(on_button, pattern=r"^pend:"))
