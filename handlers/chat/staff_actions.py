"""The staff actions on a /pendencias case that need a text, as one form on ``handlers.chat.engine``.

Ask the author for more information (20 days to answer), answer an ombudsman case (L13460 Art. 12),
extend its deadline once with a reason (Art. 16), archive with a reason, or decide a representação or
ride-hailing report (CP Art. 32: notify, or issue an auto handed over to the penalty notices, with an optional
note). The form starts prefilled with the action, the case and the queue page it came from; the engine checks the
staff member's role on every update (``models.cases.handling.may_act``), files the action once however many
presses of Confirm arrive, and keeps the text on a refusal. Done or cancelled, the person is back on that queue
page. Buttons ``pact:…``.
"""

from __future__ import annotations

from telegram import Update

from core.i18n import N_
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Answer, Filed, Form, Question, Step, Turn, begin, register_form
from handlers.chat.queue_screens import OUTCOME_LABELS, back_row, refuse_not_staff, refuse_other_role, show_queue
from handlers.chat.replies import esc, keyboard, menu_row, respond
from handlers.chat.staff_scope import ISSUERS
from models.cases.access import CaseNotReadable
from models.cases.fields import clean_text
from models.cases.handling import (
    CaseActionRefused,
    Decision,
    answer_case,
    archive_case,
    decide,
    extend,
    may_act,
    request_complement,
)
from models.cases.labels import STATUS_LABELS
from models.cases.tables import Case, Outcome
from models.cases.timeline import CaseNotFound
from models.columns import utcnow
from models.invalid_input import InvalidInput
from models.people import PermissionDenied

ACTIONS = ("ask", "answer", "extend", "archive", "notify", "auto")
NOTES = frozenset({"notify", "auto"})
"""Decisions whose note may be skipped (CP Art. 32: the act itself says what was decided)."""
LIMITS = {
    # The lengths the domain accepts (models.cases.handling), checked when typed so nothing is refused at Confirm.
    "ask": (10, 1000),
    "answer": (10, 3500),  # L13460 Art. 12: a conclusive answer
    "extend": (10, 1000),  # L13460 Art. 16: the extension is justified
    "archive": (5, 1000),
    "notify": (5, 1000),
    "auto": (5, 1000),
}
PROMPTS = {
    "ask": N_("Type the question for the author. They will have 20 days to answer."),
    "archive": N_("Type the reason for archiving. The author will read it."),
    "answer": N_("Type the answer to the author. It closes the case and goes to them in the chat."),
    "extend": N_("Type the reason for extending the deadline by 30 days. The author will read it."),
    "notify": N_("Type a note for the author, or press Skip."),
    "auto": N_("Type a note for the author, or press Skip."),
}
TITLES = {
    "ask": N_("Ask the author:"),
    "archive": N_("Archive with this reason:"),
    "answer": N_("Answer the author:"),
    "extend": N_("Extend the deadline by 30 days, because:"),
    "notify": OUTCOME_LABELS[Outcome.NOTIFY],
    "auto": OUTCOME_LABELS[Outcome.AUTO],
}


def _ask_text(turn: Turn) -> Question:
    action = turn.data["action"]
    rows = [[(turn.tr._("Skip"), "pact:skip")]] if action in NOTES else []
    return Question(turn.tr._(PROMPTS[action]), rows)


def _text(text: str, turn: Turn) -> Answer:
    shortest, longest = LIMITS[turn.data["action"]]
    return Answer(values={"text": clean_text(text, min_length=shortest, max_length=longest)})


def _skip(_arg: str, turn: Turn) -> Answer:
    if turn.data["action"] not in NOTES:  # only a decision's note is optional
        raise InvalidInput(N_("Please type the text, or press a button."))
    return Answer(values={"text": None})


STEPS = (Step("text", _ask_text, text=_text, buttons={"skip": _skip}, label=N_("The text")),)


def summary(turn: Turn) -> str:
    """The confirmation: the action, and the text the author will read."""
    text = f"<b>{esc(turn.tr._(TITLES[turn.data['action']]))}</b>"
    return text + (f"\n\n{esc(turn.data['text'])}" if turn.data.get("text") else "")


async def check(turn: Turn) -> bool:
    """The staff member may still act on this open case: checked on every update (role, case, status)."""
    tr, context, case_id = turn.tr, turn.context, turn.data.get("case_id")
    if turn.data.get("action") not in ACTIONS or not isinstance(case_id, int):
        await respond(turn.update, context, tr._(FORM.gone), markup=keyboard([menu_row(context)]))
        return False
    try:
        async with context.sessions() as session:
            await may_act(session=session, telegram_user_id=context.person.telegram_user_id, case_id=case_id)
    except PermissionDenied:
        await refuse_not_staff(turn.update, context)
        return False
    except CaseNotReadable:
        await refuse_other_role(turn.update, context)
        return False
    except CaseNotFound:  # a forged or stale id, or a restricted case opened by someone but the Ombudsman
        await respond(turn.update, context, tr._("That case does not exist."), markup=keyboard([menu_row(context)]))
        return False
    except InvalidInput as refused:  # closed meanwhile (CaseActionRefused)
        await respond(turn.update, context, refused.render(tr), markup=keyboard([back_row(context, _page(turn))]))
        return False
    return True


def _page(turn: Turn) -> int:
    page = turn.data.get("page", 1)
    return page if isinstance(page, int) and page > 0 else 1


async def submit(turn: Turn) -> Filed:
    """The domain call of the action (each checks the role again); the answer, then the queue page it came from."""
    tr, context, data = turn.tr, turn.context, turn.data
    action, case_id, text = data["action"], int(data["case_id"]), data.get("text")
    who, now, cities = context.person.telegram_user_id, utcnow(), context.cities
    decision: Decision | None = None
    async with context.sessions() as session:
        case = await session.get(Case, case_id)
        protocol = case.protocol if case is not None else str(case_id)
        if action == "ask":
            due = await request_complement(session=session, telegram_user_id=who, case_id=case_id,
                                           question=text or "", now=now, cities=cities)
            done = tr._("Sent to the author. They have until {date} to answer.").format(date=tr.date(due))
        elif action == "answer":
            await answer_case(session=session, telegram_user_id=who, case_id=case_id, text=text or "", now=now,
                              cities=cities)
            done = tr._("Answer sent to the author. The case is closed.")
        elif action == "extend":
            due = await extend(session=session, telegram_user_id=who, case_id=case_id, reason=text or "", now=now,
                               cities=cities)
            done = tr._("Deadline extended to {date}. The author was told why.").format(date=tr.date(due))
        elif action == "archive":
            await archive_case(session=session, telegram_user_id=who, case_id=case_id, reason=text or "", now=now,
                               cities=cities)
            done = tr._("Archived. The author was told the reason.")
        else:  # CP Art. 32
            decision = await decide(session=session, telegram_user_id=who, case_id=case_id, outcome=Outcome(action),
                                    reason=text, now=now)
            done = tr._("Decided: {status}.").format(status=tr._(STATUS_LABELS[decision.status]))
    rows = [menu_row(context)]
    if decision is not None and decision.handover is not None:
        handover = decision.handover
        kind = tr._("notificação preliminar") if handover.notice_type == "preliminar" else tr._("auto de infração")
        done += "\n\n" + tr._(
            "Now issue the {notice} in the penalty notices, quoting case {protocol} (case id {case_id}): the "
            "offender, the place and the facts come from the case; the author's name is never on it."
        ).format(notice=kind, protocol=esc(handover.protocol), case_id=handover.case_id)
        if context.person.staff_role in ISSUERS:
            # Issue 9 item 6: the hand-over leads to /emitir, prefilled from the case (handlers.chat.notice_issue).
            rows.insert(0, [(tr._("Issue the notice now"), f"emit:case:{handover.case_id}")])

    async def announce() -> None:  # then the engine shows the queue page it came from (``back``)
        await respond(turn.update, context, done, markup=keyboard(rows))

    return Filed(protocol, announce)


def _refusal_fields(refused: InvalidInput) -> tuple[str, ...]:
    """A refusal of the case's state names no answer; one of the text names the text."""
    return () if isinstance(refused, CaseActionRefused) else ("text",)


async def back(turn: Turn) -> None:
    """Done or cancelled: the queue page the case was opened from."""
    await show_queue(turn.update, turn.context, page=_page(turn) - 1)


FORM = Form(
    name="pendencias",
    prefix="pact",
    title=N_("your action on the case"),
    steps=STEPS,
    flow=lambda _data: ("text",),
    start=lambda _turn: {},
    intro=N_("You can stop at any time with ✖ Cancel: nothing is changed until you confirm."),
    resume=N_("You have an action on a case in progress. Continue where you stopped, or start again?"),
    gone=N_("This action is no longer in progress. Open the case again in /pendencias."),
    already_sent=N_("This was already confirmed on case <b>{result}</b>: nothing was done twice."),
    review_intro=N_("Please check before confirming:"),
    review_note=N_("Confirm?"),
    summary=summary,
    submit=submit,
    refusal_fields=_refusal_fields,
    check=check,
    back=back,
    send_label=N_("✅ Confirm"),
)
register = register_form(FORM)


async def start_action(update: Update, context: BalcaoContext, action: str, case_id: int, page: int) -> None:
    """A case's action button: the form, prefilled with the action, the case and the queue page."""
    await begin(FORM, update, context, prefill={"action": action, "case_id": case_id, "page": page})
