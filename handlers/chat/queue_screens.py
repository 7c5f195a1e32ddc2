"""The screens of /pendencias: the queue of a staff member's role, page by page, and a case with its actions.

The queue of the staff member's role (every role for admins), nearest deadline first, :data:`PAGE` cases at a
time. A case opens with the actions that fit it; every button of a case carries the queue page it was opened
from (``pend:<action>:<case>:<page>``), so an action done or cancelled returns to that page. The author of a
restricted ombudsman case shows only as a pseudonym to anyone but the Ombudsman (LGPD Art. 6 III).
"""

from __future__ import annotations

from telegram import InputFile, Update

from core.i18n import N_, Translator
from handlers import log_context
from handlers.chat.context import BalcaoContext, city_today
from handlers.chat.follow import render_case
from handlers.chat.replies import acknowledge, esc, keyboard, menu_row, respond
from models.cases.access import CaseNotReadable
from models.cases.handling import QueueItem, staff_case, staff_queue, staff_queue_size
from models.cases.labels import OMBUDSMAN_TYPE_LABELS
from models.cases.ombudsman_reach import unread_for_admin, unread_restricted_text
from models.cases.tables import CaseAttachment, CaseKind, CaseStatus, Outcome
from models.cases.timeline import CaseNotFound
from models.cases.views import CaseView
from models.days_left import days_words
from models.people import PermissionDenied, Role

PHOTO_TYPES = frozenset({"image/jpeg", "image/png"})
PAGE = 10
"""Cases per page of /pendencias: ten buttons and their lines fit a phone's screen."""

OUTCOME_LABELS = {
    Outcome.NOTIFY: N_("Notify the offender (notificação preliminar)"),
    Outcome.AUTO: N_("Issue an infraction report (auto de infração)"),
    Outcome.ARCHIVE: N_("Archive, with a reason"),
}


async def refuse_other_role(update: Update, context: BalcaoContext) -> None:
    """A case of another role: not shown (LGPD Art. 6 III, ``models.cases.access``)."""
    await respond(update, context, context.tr._("This case is worked by staff of another role, so it is not shown "
                                                "to you."), markup=keyboard([menu_row(context)]))


async def refuse_not_staff(update: Update, context: BalcaoContext) -> None:
    """Not staff (or no longer): nothing of the queue is shown."""
    await respond(update, context, context.tr._("This is only for city hall staff."),
                  markup=keyboard([menu_row(context)]))


def back_row(context: BalcaoContext, page: int) -> list[tuple[str, str]]:
    """The button back to the queue page (numbered from 1) a case was opened from."""
    return [(context.tr._("◀ Pending cases"), f"pend:page:{max(1, page)}")]


def _queue_line(tr: Translator, item: QueueItem) -> str:
    """One case of the queue: protocol, kind, deadline, days left, and whose it is or whom it waits for."""
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
    return (f"• <b>{esc(item.protocol)}</b> · {esc(label)} · {esc(tr.short_date(item.due_on))} "
            f"({esc(days_words(tr, item.days_left))})" + (f" · {esc(', '.join(flags))}" if flags else ""))


async def show_queue(update: Update, context: BalcaoContext, *, edit: bool = False, page: int = 0) -> None:
    """The open cases of the staff member's role, nearest deadline first, :data:`PAGE` at a time (``page`` from 0)."""
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
        await refuse_not_staff(update, context)
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
        lines.append(_queue_line(tr, item))
        # the first page keeps the short form (notifications link to pend:case:<id>)
        rows.append([(item.protocol, f"pend:case:{item.id}" + (f":{page + 1}" if page else ""))])
    turn = []
    if page > 0:
        turn.append((tr._("‹ Previous cases"), f"pend:page:{page}"))  # pages are numbered from 1
    if last < total:
        turn.append((tr._("More cases ›"), f"pend:page:{page + 2}"))
    await respond(update, context, "\n".join(lines), markup=keyboard([*rows, *([turn] if turn else []),
                                                                      menu_row(context)]), edit=edit)


def _actions(view: CaseView, context: BalcaoContext, my_role: Role, page: int) -> list[list[tuple[str, str]]]:
    tr = context.tr
    rows: list[list[tuple[str, str]]] = []
    may_act = my_role is Role.ADMIN or my_role is view.handling_role
    at = "" if page <= 1 else f":{page}"
    if view.is_open and may_act:
        rows.append([(tr._("Take this case"), f"pend:take:{view.id}{at}")])
        if view.complement_question is None:
            rows.append([(tr._("Ask the author for more information"), f"pend:ask:{view.id}{at}")])
        if view.kind is CaseKind.OMBUDSMAN:
            rows.append([(tr.pgettext("button", "Answer"), f"pend:answer:{view.id}{at}")])
            if not view.extended:
                rows.append([(tr._("Extend by 30 days"), f"pend:extend:{view.id}{at}")])
            rows.append([(tr._("Archive"), f"pend:archive:{view.id}{at}")])
        else:
            rows += [[(tr._(label), f"pend:{outcome.value}:{view.id}{at}")]
                     for outcome, label in OUTCOME_LABELS.items()]
    if view.attachments:
        rows.append([(tr._("See the files"), f"pend:files:{view.id}{at}")])
    rows += [back_row(context, page), menu_row(context)]
    return rows


async def show_case(update: Update, context: BalcaoContext, case_id: int, *, page: int = 1,
                    edit: bool = False) -> None:
    """A case as this staff member may see it, with the actions they may take (``page``: the queue page, from 1)."""
    tr = context.tr
    try:
        async with context.sessions() as session:
            view = await staff_case(session=session, telegram_user_id=context.person.telegram_user_id,
                                    case_id=case_id)
    except CaseNotReadable:  # LGPD Art. 6 III: another role's case (models.cases.access)
        await refuse_other_role(update, context)
        return
    except PermissionDenied:
        await refuse_not_staff(update, context)
        return
    except CaseNotFound:
        await respond(update, context, tr._("That case does not exist."), markup=keyboard([menu_row(context)]))
        return
    log_context.bind(protocol=view.protocol)
    role = context.person.staff_role or Role.CLERK
    text = render_case(view, tr, today=city_today(context), staff=True)
    await respond(update, context, text, markup=keyboard(_actions(view, context, role, page)), edit=edit)


async def send_files(update: Update, context: BalcaoContext, case_id: int, *, page: int = 1) -> None:
    """The case's files, each as a photo or a document named ``<protocol>-anexo-<n>`` (never the sender's name)."""
    tr = context.tr
    try:
        async with context.sessions() as session:
            view = await staff_case(session=session, telegram_user_id=context.person.telegram_user_id,
                                    case_id=case_id)
            attachments = [(a.file_name, await session.get(CaseAttachment, a.id)) for a in view.attachments]
    except CaseNotReadable:
        await refuse_other_role(update, context)
        return
    except (PermissionDenied, CaseNotFound):
        await refuse_not_staff(update, context)
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
    back = f"pend:case:{case_id}" + (f":{page}" if page > 1 else "")
    await respond(update, context, tr._("Files of {protocol} above.").format(protocol=esc(view.protocol)),
                  markup=keyboard([[(tr._("Back to the case"), back)]]))
