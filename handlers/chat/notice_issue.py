"""/emitir: inspectors and clerks issue a penalty notice, one element per step, on ``handlers.chat.engine``.

A missing element is refused with its article (CP Art. 25 / 34; L1533 Art. 22), and every refusal offers to
change the field it names. The day of the infraction is asked apart from the drawing up (its year's unit value,
CP Art. 12); a row charged per m² asks the area, a row the table lost asks the units. The review runs ``prepare``
(the person, recidivism, the fine doubled for a repeat offender, CP Art. 8) and the signing check (issue 18 §2;
L1533 Art. 22 §1), and offers Issue only when the act can be issued; Issue is claimed once per form key, so a
burst of taps issues one notice and later presses get its number. ``emit:case:<case id>`` starts it prefilled from
a decided representação (``models.notices.from_case.input_from_case``), at the elements the case left blank.
The role is checked on every update (``Form.roles``). Buttons: ``emit:…``; the review's text:
``handlers.chat.notice_issue_review``.
"""

from __future__ import annotations

from typing import Any

from telegram import InputFile, Update

from core.i18n import N_
from core.municipality import Publication
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Answer, Filed, Forged, Form, Question, Step, Turn, begin, register_form, start
from handlers.chat.notice_issue_review import ELEMENT_STEPS, applies, notice_input, offered_rulebooks, review
from handlers.chat.replies import esc, keyboard, menu_row, respond
from handlers.chat.staff_scope import ISSUERS, STAFF_TIMED_OUT, staff_idle
from models.cases.catalogue_search import search_infractions
from models.cases.fields import address, clean_text, past_day
from models.columns import utcnow
from models.invalid_input import InvalidInput
from models.notices.amounts import positive_amount
from models.notices.documents import offender_document
from models.notices.elements import COORDINATES, LIMITS, PLACE_NOT_COORDINATES, NoticeRefused
from models.notices.from_case import input_from_case
from models.notices.issuing import issue_notice, require_issuer
from models.notices.tables import NoticeType
from models.rulebooks.catalogue import L1533, LAW_TITLES, CatalogueError, get_infraction
from models.when import parse_time

ISSUE_FORM = "notice_issue"
STEPS = ("rulebook", "type", "infraction", "provision", "quantity", "units", "name", "document", "address", "platform",
         "person", "place", "date", "time", "infraction_date", "facts", "witnesses", "term")
# No "who draws it up" step: the act is signed by the staff member who issues it, when they issue it (issue 18 §2).
OPTIONAL = {"document", "address", "person", "infraction_date", "witnesses", "term", "platform"}
QUESTIONS = {
    "infraction": N_("Which infraction? Type its code (e.g. CP-I-1) or words to search the catalogue."),
    "name": N_("Name of the offender (or a designation that identifies them)."),
    "document": N_("CPF or CNPJ of the offender, if known."),
    "address": N_("Address of the offender, for delivery by post, if known."),
    "person": N_("Telegram user id of the person, if they use the bot (someone who registered this CPF is "
                 "suggested in /entregas)."),
    "place": N_("Place where the notice is drawn up: the address (street, number, district)."),
    "provision": N_("This item names no conduct: type the provision infringed, article and inciso (e.g. Art. 50, "
                    "IX)."),
    "platform": N_("Technology platform the driver works through (it is notified too, Lei 1.533 Art. 22), if "
                   "known."),
    "quantity": N_("This infraction is charged per m² of public road: how many m² are occupied (e.g. 12,5)?"),
    "units": N_("The published table lost the value of this infraction: type the fine in fiscal units (e.g. 2)."),
    "date": N_("Day it is drawn up (e.g. 4/3 or 04/03/2026)."),
    "infraction_date": N_("Day the infraction was committed, if before the drawing up (its year's unit value "
                          "applies). Press Skip if it is the same day."),
    "time": N_("Hour it is drawn up (e.g. 9:30)."),
    "facts": N_("Describe the facts."),
    "witnesses": N_("Witnesses, if any (names)."),
    "term": N_("Reference of the termo de fiscalização, if any."),
}
EDIT_LABELS = {
    "rulebook": N_("law"), "type": N_("type"), "infraction": N_("infraction"), "name": N_("name"),
    "document": N_("CPF/CNPJ"), "address": N_("address"), "person": N_("Telegram id"), "place": N_("place"),
    "date": N_("date"), "time": N_("time"), "facts": N_("facts"), "witnesses": N_("witnesses"),
    "term": N_("termo de fiscalização"), "quantity": N_("area (m²)"),
    "units": N_("fine in units"), "infraction_date": N_("day of the infraction"),
    "provision": N_("provision infringed"), "platform": N_("platform"),
}
STEP_ELEMENTS = {"name": "offender_name", "place": "place", "witnesses": "witnesses", "term": "inspection_term",
                 "provision": "infringed_provision", "platform": "platform_name"}
REFERENCED = {"name": "accused", "place": "place", "facts": "facts"}
"""The steps where the citizen's report is shown, and which part of it."""


# --- questions --------------------------------------------------------------------------------------------------


def _reference(step: str, turn: Turn) -> str:
    """What the citizen reported, under the question, for reference: never copied into the act (issue 18 §6)."""
    said = (turn.data.get("reference") or {}).get(REFERENCED.get(step, ""), "")
    if not said:
        return ""
    return "\n\n" + turn.tr._("For reference, the citizen's report (not copied into the act; write what you "
                              "found):") + f"\n<blockquote>{esc(said)}</blockquote>"


def _ask_rulebook(turn: Turn) -> Question:
    rows = [[(LAW_TITLES[book], f"emit:rb:{book}")] for book in offered_rulebooks(turn.context)]
    return Question(turn.tr._("Which law does the notice apply?"), rows)


def _ask_type(turn: Turn) -> Question:
    tr = turn.tr
    return Question(tr._("Which type of notice?"), [[(tr._("Preliminary notice (Art. 24)"), "emit:type:preliminar")],
                                                     [(tr._("Auto de infração (Art. 33)"), "emit:type:auto")]])


def _ask(step: str) -> Any:
    def question(turn: Turn) -> Question:
        tr = turn.tr
        rows: list[list[tuple[str, str]]] = []
        if step in OPTIONAL:
            rows.append([(tr._("Skip"), f"emit:skip:{step}")])
        if step == "date":
            rows.append([(tr._("Today"), "emit:today")])
        if step == "time":
            rows.append([(tr._("Now"), "emit:now")])
        return Question(tr._(QUESTIONS[step]) + _reference(step, turn), rows)
    return question


# --- parsers ----------------------------------------------------------------------------------------------------


def _rulebook(arg: str, turn: Turn) -> dict[str, Any]:
    if arg not in offered_rulebooks(turn.context):
        raise Forged(arg)
    return {"rulebook": arg, **({"type": NoticeType.AUTO.value} if arg == L1533 else {})}


def _type(arg: str, _turn: Turn) -> dict[str, Any]:
    return {"type": NoticeType(arg).value}


def _chosen(arg: str, turn: Turn) -> dict[str, Any]:
    found = get_infraction(arg)
    if found.rulebook != turn.data.get("rulebook"):
        raise Forged(arg)
    return {"infraction": found.code, "code": found.code}


QUOTED = 80
"""How much of a search that found nothing is quoted back (a message may be 4,096 characters)."""


def _infraction(text: str, turn: Turn) -> Answer | dict[str, Any]:
    tr = turn.tr
    try:
        return _chosen(text.strip(), turn)
    except (CatalogueError, Forged):
        pass
    matches = search_infractions(text, rulebooks=[turn.data["rulebook"]], limit=8)
    if not matches:
        shown = text if len(text) <= QUOTED else text[:QUOTED].rstrip() + "…"  # a long message fits the reply
        return Answer(stay=Question(tr._("Nothing found for “{query}”. Try other words or the code.").format(
            query=esc(shown))))
    rows = [[(f"{row.code} · {row.description[:48]}", f"emit:inf:{row.code}")] for row in matches]
    return Answer(stay=Question(tr._("Which one? Press it, or type again."), rows))


def _skip(step: str) -> Any:
    def parse(arg: str, _turn: Turn) -> dict[str, Any]:
        if arg != step:
            raise Forged(arg)
        return {step: None}
    return parse


def _day(step: str) -> Any:
    def parse(text: str, turn: Turn) -> dict[str, Any]:
        moved = {"late_confirmed": None} if step == "date" else {}  # a new moment needs its own confirmation
        return {step: past_day(text, today=turn.today).isoformat(), **moved}
    return parse


def _time(text: str, _turn: Turn) -> dict[str, Any]:
    """The hour of the lavratura, read as every entry point reads an hour (``models.when``: 9h, 9.30, 9:30)."""
    return {"time": parse_time(text).strftime("%H:%M"), "late_confirmed": None}


def _person(text: str, _turn: Turn) -> dict[str, Any]:
    if not text.strip().isdigit():
        raise InvalidInput(N_("A Telegram user id is a number."))
    return {"person": text.strip()}


def _place(text: str, _turn: Turn) -> dict[str, Any]:
    if COORDINATES.fullmatch(text.strip()):  # CP Art. 25 II, 34 I: an address, not a map pin
        raise InvalidInput(PLACE_NOT_COORDINATES)
    return _plain("place")(text, _turn)


def _plain(step: str) -> Any:
    def parse(text: str, _turn: Turn) -> dict[str, Any]:
        limit = LIMITS[STEP_ELEMENTS[step]]
        return {step: clean_text(text, min_length=2, max_length=limit).replace("\n", " ")}
    return parse


TEXT_PARSERS: dict[str, Any] = {
    "infraction": _infraction,
    "provision": _plain("provision"), "name": _plain("name"), "platform": _plain("platform"),
    "witnesses": _plain("witnesses"), "term": _plain("term"), "place": _place,
    "quantity": lambda text, _turn: {"quantity": str(positive_amount(text))},
    "units": lambda text, _turn: {"units": str(positive_amount(text))},
    "document": lambda text, _turn: {"document": offender_document(text)},
    "address": lambda text, _turn: {"address": address(text)},
    "person": _person,
    "date": _day("date"), "infraction_date": _day("infraction_date"), "time": _time,
    "facts": lambda text, _turn: {"facts": clean_text(text, min_length=10, max_length=LIMITS["facts"])},
}


def _buttons(step: str) -> dict[str, Any]:
    buttons: dict[str, Any] = {"skip": _skip(step)} if step in OPTIONAL else {}
    if step == "date":
        buttons["today"] = lambda _arg, turn: {"date": turn.today.isoformat(), "late_confirmed": None}
    if step == "time":
        buttons["now"] = lambda _arg, turn: {
            "time": utcnow().astimezone(turn.settings.tz).strftime("%H:%M"), "late_confirmed": None}
    if step == "infraction":
        buttons["inf"] = _chosen
    return buttons


def _step(name: str) -> Step:
    if name == "rulebook":
        return Step(name, _ask_rulebook, buttons={"rb": _rulebook}, label=EDIT_LABELS[name])
    if name == "type":
        return Step(name, _ask_type, buttons={"type": _type}, label=EDIT_LABELS[name])
    return Step(name, _ask(name), text=TEXT_PARSERS[name], buttons=_buttons(name), label=EDIT_LABELS[name])


# --- the form ---------------------------------------------------------------------------------------------------


def _flow(data: dict[str, Any]) -> tuple[str, ...]:
    return tuple(step for step in STEPS if applies(step, data))


def _start(turn: Turn) -> dict[str, Any]:
    books = offered_rulebooks(turn.context)
    if len(books) > 1:
        return {"choose_rulebook": True}
    return {"rulebook": books[0], **({"type": NoticeType.AUTO.value} if books[0] == L1533 else {})}


def _refusal_fields(refused: InvalidInput) -> tuple[str, ...]:
    return tuple(step for element in refused.fields for step in ELEMENT_STEPS.get(element, ()))


async def _submit(turn: Turn) -> Filed:
    """Issue the notice (the role in the law's municipality checked again: CF Art. 30 I)."""
    context, data = turn.context, turn.data
    try:
        async with context.sessions() as session:
            await require_issuer(session=session, cities=context.cities, city=context.city, allowed=ISSUERS,
                                 telegram_user_id=context.person.telegram_user_id, rulebook=data.get("rulebook"))
            issued = await issue_notice(session=session, cities=context.cities,
                                        publication=Publication.of(context.deployment_settings),
                                        data=notice_input(data),
                                        actor=f"staff:{context.person.telegram_user_id}",
                                        issuer_telegram_id=context.person.telegram_user_id,
                                        late_confirmed=bool(data.get("late_confirmed")))
    except NoticeRefused as refused:  # what the review could not see (a row changed meanwhile): with its fields
        reason = "; ".join(problem.render(turn.tr) for problem in refused.problems)
        raise InvalidInput(N_("It cannot be issued: {reason}"), reason=reason,
                           fields=tuple(problem.element for problem in refused.problems)) from refused

    async def announce() -> None:
        tr, notice = turn.tr, issued.notice
        text = tr._("Issued: <b>{number}</b>. Verification code: <code>{code}</code>.").format(
            number=esc(notice.number), code=esc(issued.code))
        text += "\n" + (tr._("It was sent to the person in the bot.") if notice.person_id else
                        tr._("It is on the list to deliver in person, by post or by edital: /entregas."))
        await respond(turn.update, context, text, markup=keyboard([menu_row(context)]))
        chat = turn.update.effective_chat
        assert chat is not None
        await context.bot.send_document(chat_id=chat.id, caption=notice.number,
                                        document=InputFile(issued.pdf, filename=f"{notice.number}.pdf"))

    return Filed(issued.notice.number, announce)


def _late(_arg: str, _turn: Turn) -> dict[str, Any]:
    return {"late_confirmed": True}  # L1533 Art. 22 §1: the issuer confirms, then Issue


async def _from_case(arg: str, update: Update, context: BalcaoContext) -> None:
    """``emit:case:<id>``: the form prefilled from a decided representação, at the elements it left blank."""
    if not arg.isdigit():
        raise Forged(arg)
    async with context.sessions() as session:
        try:  # the signer is whoever issues it, at issue (issue 18 §2): not part of the prefilled elements
            prefill = await input_from_case(session=session, city=context.city, case_id=int(arg),
                                            issuer_name=None, now=utcnow())
        except LookupError:
            await respond(update, context, context.tr._("This case does not call for a notice."))
            return
    elements, reference = prefill.data, prefill.reference
    data: dict[str, Any] = {
        "rulebook": elements.rulebook, "type": elements.type.value if elements.type else None,
        "code": elements.infraction_code, "infraction": elements.infraction_code, "name": elements.offender_name,
        "document": elements.offender_document, "person_id": elements.person_id, "place": elements.place,
        "date": elements.drawn_up_on.isoformat() if elements.drawn_up_on else None,
        "time": elements.drawn_up_time.strftime("%H:%M") if elements.drawn_up_time else None,
        "facts": elements.facts, "case_id": int(arg),
        # The citizen's words, shown under the questions, never in the act's fields (issue 18 §6).
        "reference": {"accused": reference.accused, "place": reference.place, "facts": reference.facts},
    }
    data = {key: value for key, value in data.items() if value is not None}
    missing = tuple(step for step in ("infraction", "provision", "name", "place", "facts")
                    if applies(step, data) and not data.get(step))
    await begin(FORM, update, context, prefill=data, pending=missing)


FORM = Form(
    name=ISSUE_FORM,
    prefix="emit",
    title=N_("the notice being issued"),
    steps=tuple(_step(name) for name in STEPS),
    flow=_flow,
    start=_start,
    intro=N_("Let's issue a notice. You can stop at any time with /cancelar."),
    resume=N_("You have a notice in progress. Continue where you stopped, or start again?"),
    gone=N_("There is no notice being issued. Start with /emitir."),
    already_sent=N_("This notice was already issued: <b>{result}</b>."),
    review_intro=N_("<b>Check the notice before issuing</b>"),
    summary=lambda turn: "",
    review=review,
    review_buttons={"late": _late},
    entries={"case": _from_case},
    send_label=N_("✅ Issue the notice"),
    submit=_submit,
    refusal_fields=_refusal_fields,
    roles=ISSUERS,
    timeout=staff_idle,
    timed_out=STAFF_TIMED_OUT,
)
register = register_form(FORM)


@chat_command("emitir", description=N_("Issue a penalty notice"), menu_label=N_("Issue a notice"),
              staff_roles=ISSUERS, order=60)
async def issue_command(update: Update, context: BalcaoContext) -> None:
    """``/emitir``: resume the notice in progress, or start one."""
    await start(FORM, update, context)
