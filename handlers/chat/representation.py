"""/representacao: report a breach of the Código de Posturas (Art. 30–32) or a ride-hailing driver (Lei 1.533/2020).

Representação (CP Art. 31): the author (name, profession, address; CPF optional), what happened (picked from
the Código de Posturas catalogue by keyword, or in the author's words), who, where, when, evidence (files,
voice notes, videos, or where it can be found), how the author learned of it, and the Art. 31 sole-paragraph
declaration. Ride-hailing report: the car (plate or authorization number), what the driver did (Art. 7, 13,
14), where, when, evidence and the author's name. Filing gives a protocol number and a PDF receipt and puts the
case in the staff queue. The form runs on ``handlers.chat.engine``; the review's text is in
``handlers.chat.representation_review``. Buttons: ``rep:…``.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from telegram import KeyboardButton, ReplyKeyboardMarkup, ReplyKeyboardRemove, Update

from core.i18n import DEFAULT_LOCALE, N_, translator
from handlers.chat.case_forms import (
    TOLD,
    confirm_filing,
    known_author,
    known_values,
    reuse_rows,
    told_first,
    within_daily_limit,
)
from handlers.chat.commands import chat_command
from handlers.chat.context import BalcaoContext
from handlers.chat.engine import Answer, Filed, Forged, Form, Question, Step, Turn, begin, register_form, start
from handlers.chat.engine.flow import EDITING
from handlers.chat.engine.intake import recordings_line
from handlers.chat.replies import esc
from handlers.chat.representation_review import LEARNED, filing_form, summary
from models.cases import fields
from models.cases.catalogue_search import search_infractions
from models.cases.filing import (
    RIDE_HAILING_BY_KEY,
    RIDE_HAILING_REASONS,
    RideHailingForm,
    file_representation,
    file_ride_hailing_report,
)
from models.cases.limits import CaseLimits
from models.cases.ride_hailing import find_reported_vehicle
from models.cases.tables import Relation
from models.cases.territory import check_within
from models.columns import utcnow
from models.invalid_input import InvalidInput
from models.rulebooks.catalogue import CP, L1533, get_infraction
from notifications.telegram_text import small

CP_FLOW = ("name", "profession", "address", "cpf", "what", "facts", "accused", "where", "when", "evidence",
           "learned", "relation")
APP_FLOW = ("vehicle", "reason", "facts", "where", "when", "evidence", "name")
SEARCH_RESULTS = 6
DAYS_AGO = re.compile(r"[0-9]{1,3}")
ART_31 = N_("Código de Posturas, Art. 31")


def _q(msgid: str, *, article: str | None = None, rows: tuple[tuple[tuple[str, str], ...], ...] = ()) -> Any:
    """A question with a fixed text, the article in small print, and buttons ``(label msgid, data)`` by rows."""
    def question(turn: Turn) -> Question:
        tr = turn.tr
        return Question(tr._(msgid) + (small(tr._(article)) if article else ""),
                        [[(tr._(label), data) for label, data in row] for row in rows])
    return question


def _skip(key: str, step: str) -> Any:
    """The Skip button's parser: only for its own step."""
    def parse(arg: str, _turn: Turn) -> dict[str, Any]:
        if arg != step:
            raise Forged(arg)
        return {key: None}
    return parse


def _when_button(arg: str, turn: Turn) -> dict[str, Any]:
    """``rep:when:<days ago>``, checked like a typed date (a future day is refused)."""
    if not DAYS_AGO.fullmatch(arg):
        raise Forged(arg)
    day = turn.today - dt.timedelta(days=int(arg))
    return {"occurred_on": fields.past_day(day.strftime("%d/%m/%Y"), today=turn.today).isoformat()}


async def _search(text: str, turn: Turn) -> Answer:
    tr = turn.tr
    query = fields.clean_text(text, min_length=2, max_length=80)
    found = search_infractions(query, rulebooks=[CP], limit=SEARCH_RESULTS)
    none = [(tr._("None of these: I'll describe it"), "rep:inf:none")]
    if not found:
        return Answer({"search": query}, stay=Question(tr._(
            "I found nothing for “{query}”. Try another word, or describe it in your own words."
        ).format(query=esc(query)), [none]))
    rows = [[(_short(row.description), f"rep:inf:{row.code}")] for row in found]
    return Answer({"search": query}, stay=Question(
        tr._("Is it one of these? Press it, or type other words to search again."), [*rows, none]))


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _infraction(arg: str, _turn: Turn) -> dict[str, Any]:
    return {"infraction_code": None if arg == "none" else get_infraction(arg).code}


async def _vehicle(text: str, turn: Turn) -> Answer:
    async with turn.context.sessions() as session:
        found = await find_reported_vehicle(session=session, text=text)
    return Answer({"vehicle_ref": found.reference, "driver_id": found.driver_id, "vehicle_registered": found.registered,
                   "vehicle_plate": found.plate, "vehicle_number": found.authorization_number}, goto="vehicle_confirm")


def _ask_vehicle_confirm(turn: Turn) -> Question:
    tr, data = turn.tr, turn.data
    if data.get("vehicle_registered"):
        text = tr._("Found in the registry: plate {plate}, authorization nº {number}. Is this the car?").format(
            plate=esc(data.get("vehicle_plate") or "—"), number=esc(data.get("vehicle_number") or "—"))
    else:
        text = tr._(
            "“{car}” is not in the registry of authorized drivers. Carrying passengers without authorization "
            "is itself an infraction. Is it typed right?"
        ).format(car=esc(data.get("vehicle_ref", ""))) + small(tr._("Lei 1.533/2020, Art. 27"))
    return Question(text, [[(tr._("Yes, continue"), "rep:veh:ok"), (tr._("No, type it again"), "rep:veh:again")]])


def _vehicle_confirmed(arg: str, _turn: Turn) -> Answer:
    if arg not in ("ok", "again"):
        raise Forged(arg)
    return Answer() if arg == "ok" else Answer(goto="vehicle")


def _ask_name(turn: Turn) -> Question:
    tr = turn.tr
    cp = turn.data.get("kind") != "app"
    return Question(tr._("What is your full name?") + small(
        tr._("The law asks for it (Código de Posturas, Art. 31). It is never shown to the person you report.")
        if cp else tr._("It is never shown to the driver.")), reuse_rows(turn, "rep", with_address=cp))


def _reuse(arg: str, turn: Turn) -> Answer:
    """One tap for the name, profession and address of the last case (CP Art. 31), checked as if typed."""
    known = known_values(arg, turn)
    values: dict[str, Any] = {"name": fields.person_name(known["name"])}
    if turn.data.get("kind") == "app":  # the driver report asks the name only
        return Answer(values)
    missing = None
    for key, parse in (("profession", fields.profession), ("address", fields.address)):
        if known.get(key) and missing is None:
            values[key] = parse(known[key])
        elif missing is None:
            missing = key
    shown = ", ".join(str(value) for value in values.values())
    note = turn.tr._("Noted: {details}.").format(details=esc(shown))
    if turn.data.get(EDITING):
        return Answer(values, note=note)
    return Answer(values, goto=missing or _following_step(turn, "address"), note=note)


def _following_step(turn: Turn, name: str) -> str:
    flow = _flow(turn.data)
    return flow[flow.index(name) + 1]


PUBLISHED_PLACE = {  # BALCAO_OPEN311_PLACE: what the city's open data (Open311) publish of the place
    "rounded": N_("The city publishes this problem in its open data with the area only (about 1 km), without the "
                  "address. Your name and your words are never published."),
    "exact": N_("The city publishes this problem in its open data with the place exactly as you give it (address or "
                "location). Your name and your words are never published."),
}


def _ask_where(turn: Turn) -> Question:
    tr = turn.tr
    published = small(tr._(PUBLISHED_PLACE[turn.settings.open311_place]))  # LGPD Art. 9: said before it is given
    return Question(tr._("Where did it happen? Send the location, or type the address.") + published,
                    markup=ReplyKeyboardMarkup(
        [[KeyboardButton(tr._("📍 Send the location where I am"), request_location=True)],
         [KeyboardButton(tr._("✖ Cancel"))]],
        resize_keyboard=True, one_time_keyboard=True,
    ))


def _location(lat: float, lon: float, turn: Turn) -> Answer:
    book = L1533 if turn.data.get("kind") == "app" else CP  # the case goes where its law is in force
    city = turn.context.deployment_settings.municipalities.with_rulebook(book) or turn.settings.municipality
    check_within(city, lat, lon)  # CF Art. 30 I: refused at this step, named, nothing else lost
    return Answer({"place_text": None, "lat": lat, "lon": lon}, note=turn.tr._("📍 Location received."),
                  note_markup=ReplyKeyboardRemove())


def _ask_evidence(turn: Turn) -> Question:
    tr, data = turn.tr, turn.data
    limits = CaseLimits.of(turn.city.readings)
    files = len(data.get("files", []))
    text = tr._("Send photos or documents that show it, or type where the evidence can be found "
                "(for example: a neighbour filmed it).") + "\n" + tr.ngettext(
        "Photos or documents: JPEG, PNG or PDF, up to {mb} MB each, at most {n} file.",
        "Photos or documents: JPEG, PNG or PDF, up to {mb} MB each, at most {n} files.",
        limits.max_attachments,
    ).format(mb=limits.max_attachment_bytes // (1024 * 1024), n=limits.max_attachments) + recordings_line(turn.context)
    rows = []
    if files:
        rows.append([(tr.ngettext("Done ({n} file)", "Done ({n} files)", files).format(n=files), "rep:files:done")])
    elif data.get("kind") == "app":
        rows.append([(tr._("Skip"), "rep:skip:evidence")])
    return Question(text + ("" if data.get("kind") == "app" else small(tr._(ART_31))), rows)


def _learned_button(arg: str, _turn: Turn) -> dict[str, Any]:
    # the record reads in the city hall's language; the review in the reader's
    return {"learned": translator(DEFAULT_LOCALE)._(LEARNED[arg]), "learned_key": arg}


def _relation(arg: str, _turn: Turn) -> Answer:
    relation = Relation(arg)
    if relation is Relation.FORMER:
        return Answer({"relation": relation.value}, goto="relation_end")
    return Answer({"relation": relation.value, "relation_ended_on": None})


def _ask_relation(turn: Turn) -> Question:
    tr = turn.tr
    return Question(tr._("Have you ever been a partner, director, agent or employee of the person or business you "
                         "are reporting?") + small(tr._("Código de Posturas, Art. 31, sole paragraph")),
                    [[(tr._("No, never"), "rep:rel:none")], [(tr._("Yes, but I left"), "rep:rel:former")],
                     [(tr._("Yes, I still am"), "rep:rel:current")]])


def kinds_offered(context: BalcaoContext) -> list[str]:
    """The reports the person may file: under their city's laws, or every city's while none is chosen.

    Each report goes to the municipality whose law it rests on (CF Art. 30 I).
    """
    if context.person.municipality is not None:
        books = set(context.settings.rulebooks)
    else:
        books = {book for item in context.deployment_settings.municipalities.values() for book in item.rulebooks}
    return [kind for kind, book in (("cp", CP), ("app", L1533)) if book in books]


def _kind(arg: str, turn: Turn) -> dict[str, Any]:
    if arg not in kinds_offered(turn.context):
        raise Forged(arg)
    return {"kind": arg}


STEPS = (
    Step("kind", _q(N_("What would you like to report?"), rows=(
        ((N_("A breach of the city rules (Código de Posturas)"), "rep:kind:cp"),),
        ((N_("A ride-hailing driver"), "rep:kind:app"),))), buttons={"kind": _kind}),
    Step("name", _ask_name, text=lambda text, _t: {"name": fields.person_name(text)}, buttons={"reuse": _reuse},
         label=N_("Name")),
    Step("profession", _q(N_("What is your profession or occupation?"), article=ART_31),
         text=lambda text, _t: {"profession": fields.profession(text)}, label=N_("Profession")),
    Step("address", _q(N_("What is your address (street, number, neighbourhood)?"), article=ART_31),
         text=lambda text, _t: {"address": fields.address(text)}, label=N_("Address")),
    Step("cpf", _q(N_("If you want, type your CPF. It is optional."), rows=(((N_("Skip"), "rep:skip:cpf"),),)),
         text=lambda text, _t: {"cpf": fields.cpf(text)}, buttons={"skip": _skip("cpf", "cpf")}, label=N_("CPF")),
    Step("what", _q(N_("What happened? Type one or two words to find the rule in the Código de Posturas "
                       "(for example: lixo, barulho, calçada)."),
                    rows=(((N_("I'll describe it in my own words"), "rep:inf:none"),),)),
         text=_search, buttons={"inf": _infraction}, label=N_("Rule broken")),
    Step("facts", _q(N_("Describe briefly what happened: what you saw, and how often.")),
         text=lambda text, _t: {"facts": fields.facts(text)},
         label=N_("What happened")),
    Step("accused", _q(N_("Who is responsible? The name of the business or the person, if you know it."),
                       rows=(((N_("I don't know"), "rep:skip:accused"),),)),
         text=lambda text, _t: {"accused": fields.accused(text)},
         buttons={"skip": _skip("accused", "accused")}, label=N_("Who is responsible")),
    Step("vehicle", _q(N_("What is the car's plate, or the authorization number on its sticker?")), text=_vehicle,
         label=N_("Car")),
    Step("vehicle_confirm", _ask_vehicle_confirm, buttons={"veh": _vehicle_confirmed}, yes="veh:ok", no="veh:again",
         parent="vehicle"),
    Step("reason", _q(N_("What did the driver do?"),
                      rows=tuple(((reason.label, f"rep:why:{reason.key}"),) for reason in RIDE_HAILING_REASONS)),
         buttons={"why": lambda arg, _t: {"reason": RIDE_HAILING_BY_KEY[arg].key}}, label=N_("What the driver did")),
    Step("where", _ask_where,
         text=lambda text, t: Answer({"place_text": fields.address(text), "lat": None, "lon": None},
                                     note=t.tr._("Address noted."), note_markup=ReplyKeyboardRemove()),
         location=lambda lat, lon, t: _location(*fields.coordinates(lat, lon), t),
         label=N_("Where")),
    Step("when", _q(N_("When did it happen? Type the date (like 4/1) or press a button."),
                    rows=(((N_("Today"), "rep:when:0"), (N_("Yesterday"), "rep:when:1")),)),
         text=lambda text, t: {"occurred_on": fields.past_day(text, today=t.today).isoformat()},
         buttons={"when": _when_button}, label=N_("When")),
    Step("evidence", _ask_evidence, files=True, files_required=True,
         text=lambda text, _t: {"evidence_note": fields.evidence_note(text)},
         buttons={"skip": _skip("evidence_note", "evidence")}, label=N_("Evidence")),
    Step("learned", _q(N_("How did you learn of it? Press a button or type it."), article=ART_31,
                       rows=tuple(((label, f"rep:learn:{key}"),) for key, label in LEARNED.items())),
         text=lambda text, _t: {"learned": fields.learned_how(text),
                                "learned_key": None},
         buttons={"learn": _learned_button}, label=N_("How you learned of it")),
    Step("relation", _ask_relation, buttons={"rel": _relation}, no="rel:none", label=N_("Relation to the accused")),
    Step("relation_end", _q(N_("On what date did you leave? Type it like 4/1/2025.")),
         text=lambda text, t: {"relation_ended_on": fields.past_day(text, today=t.today).isoformat()},
         parent="relation"),
)


def _flow(data: dict[str, Any]) -> tuple[str, ...]:
    if "kind" not in data:
        return ("kind",)
    return told_first(APP_FLOW if data["kind"] == "app" else CP_FLOW, data)


def _start(turn: Turn) -> dict[str, Any]:
    kinds = kinds_offered(turn.context)
    if not kinds:
        raise InvalidInput(N_("Reports are not available in this city."))
    return {} if len(kinds) == 2 else {"kind": kinds[0]}


FIELD_STEPS = {
    "author.name": "name", "author.profession": "profession", "author.address": "address",
    "evidence_note": "evidence", "attachment_ids": "evidence", "learned_how": "learned",
    "occurred_on": "when", "relation_ended_on": "relation",
}
"""The step answering each field of ``models.cases.filing.RepresentationForm`` a refusal names
(``InvalidInput.fields``)."""


def _refusal_fields(refused: InvalidInput) -> tuple[str, ...]:
    return tuple(dict.fromkeys(FIELD_STEPS[name] for name in refused.fields if name in FIELD_STEPS))


async def submit(turn: Turn) -> Filed:
    """File the representação (CP Art. 31–32) or the ride-hailing report (Lei 1.533/2020)."""
    context = turn.context
    form = filing_form(turn.data)
    async with context.sessions() as session:
        if isinstance(form, RideHailingForm):
            filed = await file_ride_hailing_report(session=session, person_id=context.person.id, form=form,
                                                   now=utcnow(), cities=context.cities)
        else:
            filed = await file_representation(session=session, person_id=context.person.id, form=form,
                                              now=utcnow(), cities=context.cities)
    return Filed(filed.protocol, lambda: confirm_filing(turn.update, context, filed))


FORM = Form(
    name="representacao",
    prefix="rep",
    title=N_("your report"),
    steps=STEPS,
    flow=_flow,
    start=_start,
    before_start=within_daily_limit,
    prepare=known_author,
    intro=N_("Let's go. You can stop at any time with /cancelar."),
    resume=N_("You have a report in progress. Continue where you stopped, or start again?"),
    gone=N_("This report is no longer in progress. Start a new one with /representacao."),
    already_sent=N_("This report was already sent. Its protocol number is <b>{result}</b>."),
    review_intro=N_("Please check your report before sending:"),
    summary=lambda turn: summary(turn.data, turn.tr),
    review_note=N_("Your name is never shown to the person reported."),
    submit=submit,
    refusal_fields=_refusal_fields,
)
register = register_form(FORM)


@chat_command(
    "representacao",
    aliases=("denuncia", "report"),
    description=N_("Report a breach of the city rules or a ride-hailing driver"),
    menu_label=N_("Report a problem"),
    order=20,
)
async def start_representation(update: Update, context: BalcaoContext) -> None:
    """``/representacao``: resume the report in progress, or start one (within the daily limit)."""
    await start(FORM, update, context)


async def start_from_sentence(update: Update, context: BalcaoContext, sentence: str, kind: str) -> None:
    """/representacao begun from a sentence typed at the menu: the sentence is the description of what happened.

    It is the form's first answer (CP Art. 31: the facts in the author's words), asked no more and changeable at
    the review; a sentence too short to describe anything starts the form of that kind without it.
    """
    if kind not in kinds_offered(context):
        await start(FORM, update, context)
        return
    try:
        facts = fields.facts(sentence)
    except InvalidInput:
        await begin(FORM, update, context, prefill={"kind": kind})
        return
    answers = {"kind": kind, "facts": facts, TOLD: ["facts"]}
    await begin(FORM, update, context, prefill=answers, at=_flow(answers)[1], note=context.tr._(
        "I kept what you wrote as the description of what happened. You can change it before sending."))
