"""Issuing a notice (issue 6, item 3): check every element the law requires, apply the fine, write the PDF.

Elements checked, each refused with its article when missing:

- Código de Posturas, notificação preliminar (Art. 25): I the name of the person notified; II the day, month,
  year, hour and place it is drawn up; III the facts and the provision infringed; IV the notifying agent;
  V the fine; VI the deadline for the defence (``BALCAO_CP_NOTICE_DEFENCE_DAYS``, printed on it);
- Código de Posturas, auto de infração (Art. 34): I place, day, month and hour; II the offender's name (and
  witnesses, if any); III the facts, the provision infringed (and the termo de fiscalização, when there is
  one); IV the intimação to pay or defend within the deadlines (written from the rulebook's windows); V the
  agent who drew it up;
- Lei 1.533/2020: the auto de infração and its notificação de penalidade (Art. 22–23) — the Law lists no
  elements, so the auto's are required, citing Art. 22; the fine is the class value of Art. 25. Lei 1.533 has
  no notificação preliminar.

The fine is :func:`models.fines.compute_fine` for the year of the infraction (``infraction_on``, recorded apart
from the drawing up; the drawing-up day when not given), doubled for a repeat offender of the Código de Posturas
(Art. 8: already cited — *autuado* — for an infraction of the same nature, read as
:mod:`models.notices.recidivism` says); the notice records the earlier notice it rests on. Rows charged per m²
(Tabela III) take the quantity; a first offence under CP Art. 57 is a warning without a fine.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, Translator, translator
from core.municipality import Cities, Municipality, Publication
from models.audit import record
from models.authorities import ActAuthor, NotCompetent
from models.cases.handling import notice_handover
from models.columns import utcnow
from models.drivers.tables import Driver
from models.encarregado import encarregado_line
from models.fines import (
    CONSEQUENCE_LABELS,
    WARNING_FIRST,
    Consequence,
    ConsequenceKind,
    Fine,
    FineError,
    MissingCatalogueValue,
    MissingUnitValue,
    compute_fine,
    per_square_metre,
    recidivism_consequences,
)
from models.notices.act_elements import (
    NoOfficeForNotices,
    appear_line,
    goes_on_line,
    office_for_notices,
    provision_lines,
    receipt_lines,
    where_to_act_lines,
)
from models.notices.authority import access_issue, past_issue_limit
from models.notices.chain import ISSUED, append_event, elements_digest
from models.notices.codes import code_hash, format_code, new_code
from models.notices.delivery import start_delivery
from models.notices.optin import person_by_cpf
from models.notices.pdf import PdfContext, money_of, render_notice_pdf
from models.notices.platform_delivery import start_platform_delivery
from models.notices.recidivism import Recidivism, find_recidivism
from models.notices.signing import sign_notice_pdf
from models.notices.tables import PROVISIONAL_NUMBER_PREFIX, Notice, NoticeType
from models.notices.windows import NO_DEPOSIT, choices_for, printed_defence_days
from models.payments.instructions import payment_instructions
from models.payments.pdf_block import payment_flowables
from models.people import Person, Role, require_role
from models.rulebooks.catalogue import CP, L1533, LAW_TITLES, CatalogueError, Infraction, get_infraction
from models.rulebooks.deadline_rules import START_EVENT_LABELS, DeadlineChoices, Unit, get_rule, unit_phrase

COORDINATES = re.compile(r"-?\d{1,3}(?:[.,]\d+)?\s*[,;]\s*-?\d{1,3}(?:[.,]\d+)?")
"""A place typed as latitude, longitude (what a case's map pin gives)."""
PLACE_NOT_COORDINATES = N_("Give the place as an address (street, number, district), not coordinates")
DOCUMENT_LOCALE = "pt_BR"
"""The language of the official document (the PDF)."""
NUMBER_PREFIX = {NoticeType.PRELIMINAR: "NP", NoticeType.AUTO: "AI"}
LIMITS = {"offender_name": 160, "place": 200, "facts": 4000, "issuer_name": 160, "witnesses": 1000,
          "inspection_term": 64, "offender_address": 300, "infringed_provision": 200, "platform_name": 160}
"""The longest text each element may have (the columns' lengths)."""
ELEMENT_LABELS = {  # the document's own labels (see models.notices.pdf)
    "offender_name": N_("Offender"),
    "place": N_("Place"),
    "facts": N_("Facts"),
    "issuer_name": N_("Drawn up by"),
    "witnesses": N_("Witnesses"),
    "inspection_term": N_("Inspection record (termo de fiscalização)"),
    "offender_address": N_("Address"),
    "infringed_provision": N_("Provision infringed"),
    "platform_name": N_("Technology platform"),
}


@dataclass(frozen=True, slots=True)
class NoticeInput:
    """What staff give to issue a notice (every field may be missing; :func:`issue_notice` says which are needed).

    Attributes:
        type: preliminar or auto.
        rulebook: ``nx-posturas`` or ``sapezal-1533``.
        infraction_code: the catalogue item (``CP-I-1``, ``L1533-26-IV``): the provision infringed.
        offender_name: the person or company notified, or a designation that identifies them.
        place: where the notice is drawn up.
        drawn_up_on: the day it is drawn up (civil date in the deployment's time zone).
        drawn_up_time: the hour it is drawn up.
        facts: what happened.
        issuer_name: the agent who draws it up (the signature, Art. 25 IV / Art. 34 V).
        offender_document: CPF or CNPJ, digits only (already validated).
        offender_address: for postal delivery (Art. 36 II).
        witnesses: names of the witnesses, if any (Art. 34 II).
        inspection_term: the termo de fiscalização, when there is one (Art. 34 III).
        person_id: the person (Telegram) to deliver to.
        person_telegram_id: the same, by Telegram user id.
        case_id: the representação case that led to the notice (CP Art. 32).
        preliminar_id: the notificação preliminar this auto follows (CP Art. 28, 277).
        units: the fine in units, only for a catalogue row whose value the published table lost.
        infraction_on: the day the infraction was committed, when it differs from the drawing up (its year's
            unit value applies).
        quantity: the m² for a row charged per m² (Tabela III items 2–4).
        infringed_provision: the provision the conduct infringes, in the inspector's words (``Art. 126, II``):
            required on the rows that name no conduct ("Outros"), optional elsewhere to narrow the row's own
            (CP Art. 25 III, 34 III; L9784 Art. 26 §1 VI).
        platform_name: the technology platform the driver works through; a Lei 1.533 notice goes to it too
            (L1533 Art. 22).
    """

    type: NoticeType | None = None
    rulebook: str | None = None
    infraction_code: str | None = None
    offender_name: str | None = None
    place: str | None = None
    drawn_up_on: dt.date | None = None
    drawn_up_time: dt.time | None = None
    facts: str | None = None
    issuer_name: str | None = None
    offender_document: str | None = None
    offender_address: str | None = None
    witnesses: str | None = None
    inspection_term: str | None = None
    person_id: int | None = None
    person_telegram_id: int | None = None
    case_id: int | None = None
    preliminar_id: int | None = None
    units: Decimal | None = None
    infraction_on: dt.date | None = None
    quantity: Decimal | None = None
    infringed_provision: str | None = None
    platform_name: str | None = None


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a notice cannot be issued: a missing or wrong element, with the article that requires it."""

    element: str
    message: str  # English msgid
    citation: str = ""  # e.g. "CP Art. 25, II"
    params: dict[str, Any] = field(default_factory=dict)
    msgid_params: tuple[str, ...] = ()  # params that are msgids themselves, translated before formatting

    def render(self, tr: Translator) -> str:
        """The problem in the reader's language, with its article."""
        values = {key: tr._(value) if key in self.msgid_params else value for key, value in self.params.items()}
        text = tr._(self.message).format(**values)
        return f"{text} ({self.citation})" if self.citation else text


class NoticeRefused(Exception):
    """The notice was not issued; ``problems`` says why, each with its article."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(f"{p.element}: {p.message} {p.citation}".strip() for p in problems))
        self.problems = problems


ELEMENT_MESSAGES = {
    "offender_name": N_("The name of the offender (or a designation that identifies them) is missing"),
    "drawn_up_on": N_("The day it is drawn up is missing"),
    "drawn_up_time": N_("The hour it is drawn up is missing"),
    "place": N_("The place it is drawn up is missing"),
    "facts": N_("The description of the facts is missing"),
    "infraction_code": N_("The provision infringed (the infraction) is missing"),
}
"""The agent (CP Art. 25 IV, 34 V) is not among them: the act is signed by the authenticated staff member who
issues it (:func:`issue_notice`), never typed."""


def element_articles(rulebook: str, notice_type: NoticeType) -> dict[str, str]:
    """The article that requires each element, for a rulebook and a type of notice."""
    if rulebook == L1533:
        law = LAW_TITLES[L1533]
        return {name: f"{law}, Art. 22–23" for name in (*ELEMENT_MESSAGES, "fine")}
    law = LAW_TITLES[CP]
    if notice_type is NoticeType.PRELIMINAR:
        return {
            "offender_name": f"{law}, Art. 25, I",
            "drawn_up_on": f"{law}, Art. 25, II",
            "drawn_up_time": f"{law}, Art. 25, II",
            "place": f"{law}, Art. 25, II",
            "facts": f"{law}, Art. 25, III",
            "infraction_code": f"{law}, Art. 25, III",
            "issuer_name": f"{law}, Art. 25, IV",
            "fine": f"{law}, Art. 25, V",
            "deadline": f"{law}, Art. 25, VI",
        }
    return {
        "drawn_up_on": f"{law}, Art. 34, I",
        "drawn_up_time": f"{law}, Art. 34, I",
        "place": f"{law}, Art. 34, I",
        "offender_name": f"{law}, Art. 34, II",
        "facts": f"{law}, Art. 34, III",
        "infraction_code": f"{law}, Art. 34, III",
        "fine": f"{law}, Art. 34, IV",
        "deadline": f"{law}, Art. 34, IV",
        "issuer_name": f"{law}, Art. 34, V",
    }


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _infraction_problems(data: NoticeInput, articles: dict[str, str]) -> list[Problem]:
    """The catalogue's item: it exists, belongs to the notice's law, and names a conduct (or the provision does)."""
    problems: list[Problem] = []
    if _blank(data.infraction_code):
        return problems
    try:
        infraction = get_infraction(str(data.infraction_code))
    except CatalogueError:
        problems.append(Problem("infraction_code", N_("There is no infraction {code} in the catalogue"),
                                articles["infraction_code"], {"code": data.infraction_code}))
    else:
        if infraction.rulebook != data.rulebook:
            problems.append(Problem("infraction_code", N_("The infraction {code} belongs to another law"),
                                    articles["infraction_code"], {"code": infraction.code}))
        elif infraction.provision_required and _blank(data.infringed_provision):
            # CP Art. 25 III, 34 III; L9784 Art. 26 §1 VI: "Outros" names no conduct, the act must.
            problems.append(Problem("infringed_provision",
                                    N_("The item {code} names no conduct: give the provision infringed "
                                       "(article and inciso)"),
                                    articles["infraction_code"], {"code": infraction.code}))
    return problems


def check_elements(data: NoticeInput, city: Municipality) -> list[Problem]:
    """Every problem with the elements of a notice, each with the article that requires the element."""
    if data.type is None:
        return [Problem("type", N_("Choose the type of notice: notificação preliminar or auto de infração"))]
    if data.rulebook is None:
        return [Problem("rulebook", N_("Choose the law the notice applies"))]
    if data.rulebook not in city.rulebooks:
        return [Problem("rulebook", N_("The law {rulebook} is not in force in this deployment"),
                        params={"rulebook": data.rulebook})]
    if data.rulebook == L1533 and data.type is NoticeType.PRELIMINAR:
        return [Problem("type", N_("Lei 1.533/2020 has no preliminary notice: issue an auto de infração"),
                        f"{LAW_TITLES[L1533]}, Art. 22")]
    articles = element_articles(data.rulebook, data.type)
    problems = [
        Problem(name, message, articles[name])
        for name, message in ELEMENT_MESSAGES.items()
        if _blank(getattr(data, name))
    ]
    for name, limit in LIMITS.items():
        value = getattr(data, name)
        if isinstance(value, str) and len(value.strip()) > limit:
            problems.append(Problem(name, N_("{name}: too long, keep it under {n} characters"),
                                    params={"name": ELEMENT_LABELS[name], "n": limit}, msgid_params=("name",)))
    if not _blank(data.place) and COORDINATES.fullmatch(str(data.place).strip()):
        # CP Art. 25 II, 34 I: "o local" a person can find and contest, not a point on a map
        problems.append(Problem("place", PLACE_NOT_COORDINATES, articles["place"]))
    problems += _infraction_problems(data, articles)
    return problems


def drawn_up_moment(data: NoticeInput, city: Municipality) -> dt.datetime:
    """The drawing-up day and hour, in the deployment's time zone, as an aware UTC moment."""
    assert data.drawn_up_on is not None and data.drawn_up_time is not None
    local = dt.datetime.combine(data.drawn_up_on, data.drawn_up_time.replace(tzinfo=None), tzinfo=city.tz)
    return local.astimezone(dt.UTC)


async def resolve_person(
    *, session: AsyncSession, data: NoticeInput, optin_cpf: bool = True
) -> tuple[int | None, bool, list[Problem]]:
    """The person to deliver to: given by id or Telegram id, else found by CPF.

    A CPF is verified when a driver linked their account to the registry (``models.drivers``). Otherwise the one
    person who registered the CPF at an active electronic opt-in receives the notice in their chat at once
    (issue 20 §1, ``BALCAO_OPTIN_CPF_DELIVERY=chat``, ``docs/LEGAL-CHOICES.md`` #71), whichever entry point issues
    it; the issue event records that the person came from their own word. With ``staff`` (``optin_cpf`` False)
    that CPF only suggests the person on the staff list (:func:`models.notices.delivery.cpf_claimant`), linked
    after checking (:func:`models.notices.delivery.link_person`). Two people claiming one CPF find nobody.

    Returns:
        The person's id (or None), whether it was found by a CPF claimed at opt-in, and the problems.
    """
    if data.person_id is not None:
        if await session.get(Person, data.person_id) is None:
            return None, False, [Problem("person_id", N_("There is no person {id}"),
                                         params={"id": data.person_id})]
        return data.person_id, False, []
    if data.person_telegram_id is not None:
        person = (
            await session.exec(select(Person).where(Person.telegram_user_id == data.person_telegram_id))
        ).first()
        if person is None:
            return None, False, [Problem("person_telegram_id",
                                         N_("Nobody with Telegram id {id} has talked to the bot yet"),
                                         params={"id": data.person_telegram_id})]
        return person.id, False, []
    document = data.offender_document
    if document and len(document) == 11:
        driver = (
            await session.exec(select(Driver).where(Driver.cpf == document, col(Driver.person_id).is_not(None)))
        ).first()
        if driver is not None:
            return driver.person_id, False, []
        claimant = await person_by_cpf(session=session, cpf=document) if optin_cpf else None
        if claimant is not None:
            return claimant, True, []
    return None, False, []


ILLUSTRATIVE_FINE = N_("Demonstration: the unit values are illustrative, this is not a real fine.")
"""Said on every fine the demo issues (issue 11 item 3)."""


async def require_issuer(*, session: AsyncSession, cities: Cities, city: Municipality, telegram_user_id: int,
                         rulebook: str | None, allowed: frozenset[Role]) -> None:
    """Check that a staff member may issue under a rulebook: a role in the municipality whose law it is.

    An inspector of Sapezal cannot draw up an auto under Nova Xavantina's Código de Posturas (CF Art. 30 I).

    Args:
        session: database session.
        cities: the deployment's municipalities.
        city: the member's municipality, where the role is checked while no rulebook is chosen.
        telegram_user_id: the staff member.
        rulebook: the law the notice applies, if chosen.
        allowed: the roles that may issue.

    Raises:
        PermissionDenied: no allowed role there.
    """
    await require_role(session=session, telegram_user_id=telegram_user_id, allowed=allowed,
                       municipality=city_for_rulebook(cities, rulebook, otherwise=city).slug)


def city_for_rulebook(cities: Cities, rulebook: str | None, *, otherwise: Municipality | None = None) -> Municipality:
    """The municipality whose law a notice applies: the notice is that Prefeitura's act (CF Art. 30 I).

    A rulebook is in force in at most one municipality of a deployment (checked at start); when it is in none,
    ``otherwise`` (the default municipality if not given) and :func:`check_elements` refuses the rulebook.
    """
    owner = cities.with_rulebook(rulebook) if rulebook else None
    return owner or otherwise or cities.default


def _fine(data: NoticeInput, infraction: Infraction, on: dt.date, recidivism: Recidivism, city: Municipality,
          articles: dict[str, str]) -> tuple[Fine | None, list[Problem]]:
    if per_square_metre(infraction) and (data.quantity is None or data.quantity <= 0):
        return None, [Problem("quantity", N_("{code} is charged per m²: give the area occupied"),
                              articles["fine"], {"code": infraction.code})]
    if city.config.unit_values_illustrative and not city.demo:
        # Issue 11 item 3: illustrative values (the demo's) never price a real fine.
        return None, [Problem("fine", N_("The values of {unit} for {city} are illustrative (the demo's): set the "
                                         "real ones in {setting} before issuing fines"), articles["fine"],
                              {"unit": infraction.unit, "city": city.name,
                               "setting": city.unit_value_setting(infraction.unit, on.year)})]
    try:
        fine = compute_fine(infraction=infraction, on=on, unit_values=city.unit_values,
                            recidivist=recidivism.recidivist, units=data.units, quantity=data.quantity,
                            prior_fine=recidivism.earlier_fined is not None,
                            warned=recidivism.warned_by is not None)  # CP Art. 57 §1: warned before, then fined
    except MissingUnitValue:
        # Issue 11 item 3: no fine until the value of the unit for that year is configured for that municipality.
        return None, [Problem("fine", N_("No value of {unit} for {year} is configured for {city}: set {setting} "
                                         "before issuing this fine"), articles["fine"],
                              {"unit": infraction.unit, "year": on.year, "city": city.name,
                               "setting": city.unit_value_setting(infraction.unit, on.year)})]
    except MissingCatalogueValue:
        return None, [Problem("units", N_("The published table lost the value of {code}: give the fine in units"),
                              articles["fine"], {"code": infraction.code})]
    except FineError as exc:  # its msgid and values: translated like every refusal
        return None, [Problem("fine", exc.message, articles["fine"], dict(exc.params))]
    return fine, []


def fine_detail(notice: Notice, tr: Translator) -> str:
    """The fine as the document and the messages state it: units, area, amount, doubling, or the warning."""
    if notice.warning_only:
        return tr._("Warning (advertência), no fine: a first offence (Art. 57, §1º). A repeat is fined and "
                    "reported to the authorities (Art. 57, §3º).")
    text = tr._("{amount} ({units} {unit})").format(
        amount=tr.money(money_of(notice.fine_cents)), units=tr.number(Decimal(notice.fine_units)),
        unit=notice.fine_unit)
    if notice.quantity is not None:
        text += " — " + tr._("{quantity} m² of public road").format(quantity=tr.number(Decimal(notice.quantity)))
    if notice.recidivist and notice.rulebook == CP and not _first_fine_after_warning(notice):
        text += " — " + tr._("doubled for repeat offence (Art. 8)")
    return text


def _first_fine_after_warning(notice: Notice) -> bool:
    """CP Art. 57 §3: the fine after the warning is the table value, not doubled (``docs/LEGAL-CHOICES.md`` #13)."""
    if notice.infraction_code not in WARNING_FIRST:
        return False
    base = get_infraction(notice.infraction_code).units
    return base is not None and Decimal(notice.fine_units) == base * Decimal(notice.quantity or 1)


def deadline_lines(notice: Notice, city: Municipality, tr: Translator) -> list[str]:
    """The deadline element (CP Art. 25 VI) or the intimação (CP Art. 34 IV; L1533 Art. 22), in words."""
    choices = choices_for(notice, city)
    if notice.rulebook == L1533:
        rules = ["l1533-22-defesa", "l1533-22-recurso"]
    elif notice.type is NoticeType.PRELIMINAR:
        rules = ["cp-24-defesa-notificacao", "cp-278-defesa"]
    else:
        rules = ["cp-37-reclamacao", "cp-278-defesa", "cp-43-recurso"]
    lines = []
    for rule_id in rules:
        rule = get_rule(rule_id)
        reading = choices.selected(rule)
        length = choices.length(reading)
        lines.append(tr._("{what}: {length} from the {start} ({article})").format(
            what=tr._(rule.description), length=unit_phrase(tr, reading.unit, length),
            start=tr._(START_EVENT_LABELS[reading.start_event]), article=rule.article))
    if notice.rulebook == L1533 and notice.payment_days is not None:
        rule = get_rule("l1533-13xxiii-pagamento")
        lines.append(tr._("{what}: {length} from the {start} ({article})").format(
            what=tr._(rule.description), length=unit_phrase(tr, Unit.CALENDAR_DAYS, notice.payment_days),
            start=tr._(START_EVENT_LABELS[rule.readings[0].start_event]), article=rule.article))
    if notice.rulebook == CP and notice.type is NoticeType.AUTO:
        lines.append(tr._(NO_DEPOSIT))
    if notice.type is NoticeType.AUTO:
        intro = tr._("You are summoned to pay the fine or to present a defence and evidence within:")
        return [intro, *lines]
    return lines


def penalty_lines(notice: Notice, tr: Translator) -> list[str]:
    """The sanctions besides the fine, in words with their articles."""
    return [f"{tr._(CONSEQUENCE_LABELS[kind])} ({article})" for kind, article in _penalties(notice)]


def _penalties(notice: Notice) -> list[tuple[ConsequenceKind, str]]:
    if not notice.penalties:
        return []
    pairs = []
    for item in notice.penalties.split("\n"):
        kind, _, article = item.partition("|")
        pairs.append((ConsequenceKind(kind), article))
    return pairs


LATE = "late"
"""The element of the refusal of an auto past Lei 1.533 Art. 22 §1 (the issuer may confirm, unless refused)."""


async def check_signing(
    *, session: AsyncSession, cities: Cities, rulebook: str, issuer_telegram_id: int, drawn_up_at: dt.datetime,
    now: dt.datetime, late_confirmed: bool = False,
) -> tuple[ActAuthor | None, list[Problem]]:
    """Who signs the act now, and what stops them (issue 18 §2): the same check for the preview and the issue.

    Returns:
        The signer (None when not designated) and the problems: not designated to draw up notices (CP Art. 12;
        L1533 Art. 17–18), or a Lei 1.533 auto past the 90 days of Art. 22 §1 and not confirmed (element
        :data:`LATE`) or refused by ``BALCAO_L1533_ISSUE_LIMIT=refuse``.
    """
    city = city_for_rulebook(cities, rulebook)
    try:
        signer = await access_issue(session=session, city=city, telegram_user_id=issuer_telegram_id)
    except NotCompetent as exc:
        return None, [Problem("issuer_name", exc.message, exc.citation, exc.params)]
    late = past_issue_limit(rulebook=rulebook, drawn_up_at=drawn_up_at, now=now, city=city)
    if late is None or (late_confirmed and city.readings.l1533_issue_limit == "confirm"):
        return signer, []
    days = (now.astimezone(city.tz).date() - drawn_up_at.astimezone(city.tz).date()).days
    message = (N_("This auto was drawn up {days} days ago: the law gives 90 days from the drawing up to deliver "
                  "it, and they are over.") if city.readings.l1533_issue_limit == "refuse" else
               N_("This auto was drawn up {days} days ago: the law gives 90 days from the drawing up to deliver "
                  "it. Confirm to issue it anyway."))
    return signer, [Problem(LATE, message, f"{LAW_TITLES[L1533]}, Art. 22, §1º", {"days": days})]


@dataclass(frozen=True, slots=True)
class IssuedNotice:
    """A notice just issued: the row, its verification code (shown once) and the PDF."""

    notice: Notice
    code: str
    pdf: bytes


@dataclass(frozen=True, slots=True)
class PreparedNotice:
    """A notice's elements checked and its fine computed, not yet issued (a preview for staff)."""

    infraction: Infraction
    drawn_up_at: dt.datetime
    person_id: int | None
    recidivist: bool
    fine: Fine
    consequences: tuple[Consequence, ...]
    recidivism_of: Notice | None = None  # the earlier notice of the same nature the recidivism rests on
    infraction_on: dt.date | None = None
    person_by_optin_cpf: bool = False  # the person is the one who typed the CPF at opt-in (LEGAL-CHOICES #71)


async def prepare(
    *, session: AsyncSession, cities: Cities, data: NoticeInput, now: dt.datetime | None = None
) -> PreparedNotice:
    """Check every element, find the person, decide recidivism (CP Art. 8) and compute the fine; writes nothing.

    Raises:
        NoticeRefused: with every missing or wrong element and its article.
    """
    moment = now or utcnow()
    city = city_for_rulebook(cities, data.rulebook)
    problems = check_elements(data, city)
    if problems:
        raise NoticeRefused(problems)
    assert data.type is not None and data.rulebook is not None and data.infraction_code is not None
    articles = element_articles(data.rulebook, data.type)
    try:
        office_for_notices(city.config)
    except NoOfficeForNotices:  # L9784 Art. 26 §1 III, §5: without where to act the intimação is null
        raise NoticeRefused([Problem("office", N_("{city} has no office in the municipalities file where the "
                                                  "person notified can appear: add one before issuing"),
                                     "Lei nº 9.784/1999, Art. 26, §1º, III",
                                     {"city": city.name})]) from None
    drawn_up_at = drawn_up_moment(data, city)
    if drawn_up_at > moment + dt.timedelta(minutes=5):
        raise NoticeRefused([Problem("drawn_up_on", N_("The day and hour it is drawn up are in the future"),
                                     articles["drawn_up_on"])])
    infraction = get_infraction(data.infraction_code)
    person_id, by_optin_cpf, person_problems = await resolve_person(
        session=session, data=data, optin_cpf=city.readings.optin_cpf_delivery == "chat")
    if person_problems:
        raise NoticeRefused(person_problems)
    preliminar = None
    if data.preliminar_id is not None:
        preliminar = await session.get(Notice, data.preliminar_id)
        if preliminar is None or preliminar.type is not NoticeType.PRELIMINAR or data.type is not NoticeType.AUTO:
            raise NoticeRefused([Problem("preliminar_id", N_("An auto can only follow a preliminary notice"),
                                         f"{LAW_TITLES[CP]}, Art. 28")])
    given_on = data.infraction_on or (committed_on(preliminar, city) if preliminar is not None else None)
    infraction_on = given_on or data.drawn_up_on
    if given_on is not None and data.drawn_up_on is not None and given_on > data.drawn_up_on:
        raise NoticeRefused([Problem("infraction_on", N_("The infraction cannot come after the day it is drawn up"),
                                     articles["drawn_up_on"])])
    # CP Art. 8 par. único: "já autuada" when the new infraction was committed (its day, or the drawing up).
    committed_before = (dt.datetime.combine(given_on, dt.time(), tzinfo=city.tz).astimezone(dt.UTC)
                        if given_on is not None else drawn_up_at)
    recidivism = await find_recidivism(session=session, city=city, infraction=infraction,
                                       offender_document=data.offender_document, person_id=person_id,
                                       committed_before=committed_before, follows=preliminar)
    fine, fine_problems = _fine(data, infraction, infraction_on or moment.date(), recidivism, city, articles)
    if fine is None:
        raise NoticeRefused(fine_problems)
    consequences = recidivism_consequences(infraction=infraction, recidivist=recidivism.recidivist,
                                           choices=DeadlineChoices.of(city.readings))
    # CP Art. 57 §3: a fine after the warning rests on that warning when no earlier auto makes it a repeat (Art. 8).
    rests_on = recidivism.earlier or (recidivism.warned_by if not fine.warning else None)
    return PreparedNotice(infraction=infraction, drawn_up_at=drawn_up_at, person_id=person_id,
                          recidivist=recidivism.recidivist, fine=fine, consequences=consequences,
                          recidivism_of=rests_on, infraction_on=given_on, person_by_optin_cpf=by_optin_cpf)


def committed_on(notice: Notice, city: Municipality) -> dt.date:
    """The day a notice's infraction was committed: its recorded day, else its drawing-up day (local time).

    An auto that follows a notificação preliminar (CP Art. 28) is for the infraction the preliminar found: the
    unit value of that day's year applies to it (CP Art. 12; ``docs/LEGAL-CHOICES.md`` #15).
    """
    return notice.infraction_on or notice.drawn_up_at.astimezone(city.tz).date()


async def issue_notice(
    *,
    session: AsyncSession,
    cities: Cities,
    publication: Publication,
    data: NoticeInput,
    actor: str,
    issuer_telegram_id: int,
    late_confirmed: bool = False,
    now: dt.datetime | None = None,
) -> IssuedNotice:
    """Issue a notice: check its elements, compute the fine, write the PDF, start its delivery; commits.

    Callers: the staff form in the bot, the staff API, ``python -m bot notice issue`` and the representation
    cases (an auto decided on a case: pass its ``case_id``). The caller checks the staff member's role; the act is
    signed here by that authenticated member, at the moment of issue (issue 18 §2), who must be designated to
    draw up notices in the municipality whose law it applies (:func:`models.notices.authority.access_issue`).
    The act names them (``issuer_name`` is their name; ``signer`` their role, office, matrícula and designation).

    Args:
        session: database session.
        cities: the deployment's municipalities (the notice is the act of the one whose law it applies).
        publication: the verification root printed on the PDF and the timestamp authority of its signature.
        data: the elements.
        actor: ``"staff:<telegram id>"``, ``"api"``, ``"cli"`` — for the audit log and the event chain.
        issuer_telegram_id: the authenticated staff member who issues and signs it.
        late_confirmed: the issuer confirmed issuing a Lei 1.533 auto past the 90 days of Art. 22 §1
            (``BALCAO_L1533_ISSUE_LIMIT=confirm``).
        now: the moment of issue (server time); now when omitted.

    Raises:
        NoticeRefused: with every missing or wrong element and its article; the issuer not designated to draw up
            notices; or an auto past the L1533 Art. 22 §1 limit (refused, or not confirmed).
    """
    moment = now or utcnow()
    city = city_for_rulebook(cities, data.rulebook)
    ready = await prepare(session=session, cities=cities, data=data, now=moment)
    assert data.type is not None and data.rulebook is not None
    signer, problems = await check_signing(session=session, cities=cities, rulebook=data.rulebook,
                                           issuer_telegram_id=issuer_telegram_id, drawn_up_at=ready.drawn_up_at,
                                           now=moment, late_confirmed=late_confirmed)
    if signer is None or problems:
        raise NoticeRefused(problems)
    late = past_issue_limit(rulebook=data.rulebook, drawn_up_at=ready.drawn_up_at, now=moment,
                            city=city)
    data = replace(data, issuer_name=signer.name)  # the signer is the authenticated member, never free text
    assert data.type is not None and data.rulebook is not None
    infraction, fine, recidivist = ready.infraction, ready.fine, ready.recidivist
    person_id, drawn_up_at, consequences = ready.person_id, ready.drawn_up_at, ready.consequences
    code = new_code()
    notice = Notice(
        number=PROVISIONAL_NUMBER_PREFIX + code_hash(code)[:16],
        municipality=city.slug,
        type=data.type,
        rulebook=data.rulebook,
        infraction_code=infraction.code,
        infraction_article=infraction.article,
        infraction_description=infraction.description,
        offender_name=str(data.offender_name).strip(),
        offender_document=data.offender_document or None,
        offender_address=(data.offender_address or "").strip() or None,
        person_id=person_id,
        place=str(data.place).strip(),
        drawn_up_at=drawn_up_at,
        facts=str(data.facts).strip(),
        witnesses=(data.witnesses or "").strip() or None,
        inspection_term=(data.inspection_term or "").strip() or None,
        issuer_name=str(data.issuer_name).strip(),
        issuer_telegram_id=issuer_telegram_id,
        fine_cents=int(fine.amount * 100),
        fine_units=str(fine.units),
        fine_unit=fine.unit,
        recidivist=recidivist,
        recidivism_of=ready.recidivism_of.id if ready.recidivism_of is not None else None,
        infraction_on=ready.infraction_on,
        quantity=str(fine.quantity) if fine.quantity is not None else None,
        warning_only=fine.warning,
        penalties="\n".join(f"{c.kind.value}|{c.article}" for c in consequences) or None,
        infringed_provision=(data.infringed_provision or "").strip() or None,
        issuer_authority=city.config.prefeitura,
        platform_name=(data.platform_name or "").strip() or None if data.rulebook == L1533 else None,
        defence_days=printed_defence_days(rulebook=data.rulebook, notice_type=data.type, city=city),
        payment_days=city.readings.l1533_payment_days if data.rulebook == L1533 else None,
        case_id=data.case_id,
        preliminar_id=data.preliminar_id,
        code_hash=code_hash(code),
        pdf=b"",
        pdf_sha256="",
        issued_at=moment,
        signer=signer.as_data(),
        signed_at=moment,
    )
    session.add(notice)
    await session.flush()
    assert notice.id is not None
    notice.number = f"{NUMBER_PREFIX[data.type]}-{data.drawn_up_on.year if data.drawn_up_on else moment.year}-" \
                    f"{notice.id:06d}"
    rendered = render_pdf(notice=notice, code=code, city=city, http_root=publication.http_root)
    pdf = await sign_notice_pdf(rendered, notice=notice, city=city, tsa_url=publication.tsa_url)
    notice.pdf, notice.pdf_sha256 = pdf, hashlib.sha256(pdf).hexdigest()
    session.add(notice)
    await session.flush()
    await append_event(session=session, notice_id=notice.id, kind=ISSUED, actor=actor, at=moment, data={
        "number": notice.number,
        "type": notice.type.value,
        "rulebook": notice.rulebook,
        "infraction_code": notice.infraction_code,
        "fine_cents": notice.fine_cents,
        "recidivist": recidivist,
        "recidivism_of": notice.recidivism_of,
        "case_id": notice.case_id,
        "elements_sha256": elements_digest(notice),
        "pdf_sha256": notice.pdf_sha256,
        "signed_by": issuer_telegram_id,
        **({"late_confirmed": True} if late is not None else {}),
        **({"person_by_optin_cpf": True} if ready.person_by_optin_cpf else {}),
    })
    await record(session=session, actor=actor, action="notice.issue", entity="notice", entity_id=str(notice.id),
                 details={"number": notice.number, "type": notice.type.value, "infraction": notice.infraction_code,
                          "case_id": notice.case_id})
    await start_delivery(session=session, city=city, notice=notice, actor=actor, http_root=publication.http_root,
                         now=moment)
    await start_platform_delivery(session=session, notice=notice, actor=actor, now=moment)  # L1533 Art. 22
    await session.commit()
    return IssuedNotice(notice=notice, code=format_code(code), pdf=pdf)


def signature_line(notice: Notice, tr: Translator) -> str:
    """Who signed the act and when (issue 18 §2): "assinada eletronicamente em … por …", apart from the lavratura.

    A notice issued before signers were recorded says so, with its issue moment: it was not signed by a named
    member at issue, and nothing pretends otherwise.
    """
    if notice.signer is None or notice.signed_at is None:
        return tr._("{name} — issued on {date} at {time}, before signatures were recorded (unsigned)").format(
            name=notice.issuer_name, date=tr.short_date(notice.issued_at), time=tr.time(notice.issued_at))
    return tr._("Signed electronically on {date} at {time} by {author}").format(
        date=tr.short_date(notice.signed_at), time=tr.time(notice.signed_at),
        author=ActAuthor.from_data(notice.signer).line(tr))


def render_pdf(*, notice: Notice, code: str, city: Municipality, http_root: str) -> bytes:
    """The notice's official PDF in ``city``'s name (the notice's municipality), verified under ``http_root``."""
    tr = translator(DOCUMENT_LOCALE, city.tz.key)
    grouped = format_code(code)
    signed = signature_line(notice, tr)
    lines = deadline_lines(notice, city, tr)
    penalties = penalty_lines(notice, tr)
    verify_url = f"{http_root}/verificar/{grouped}"
    municipality = city.config
    context = PdfContext(
        # L9784 Art. 26 §1 III, V; CP Art. 24, 25 III, 34 III, 36 I; LGPD Art. 41 §1 (models.notices.act_elements)
        provision_lines=provision_lines(notice=notice, tr=tr),
        authority=notice.issuer_authority or municipality.prefeitura,
        appear_line=appear_line(notice=notice, municipality=municipality, tr=tr),
        where_to_act=where_to_act_lines(office=office_for_notices(municipality), public_url=verify_url, tr=tr),
        goes_on=goes_on_line(tr),
        encarregado=encarregado_line(municipality=municipality, tr=tr),
        receipt_lines=receipt_lines(notice=notice, tr=tr),
        municipality=city.name,
        law_title=LAW_TITLES[notice.rulebook],
        code=grouped,
        verify_url=verify_url,
        fine_detail=fine_detail(notice, tr) + ("\n" + "\n".join(penalties) if penalties else "")
        + ("\n" + tr._(ILLUSTRATIVE_FINE) if city.fines_illustrative else ""),
        deadline_lines=lines,
        signed_line=signed,
        payment=payment_flowables(payment_instructions(notice=notice, city=city), tr=tr,
                                  amount=tr.money(money_of(notice.fine_cents))),
    )
    return render_notice_pdf(notice=notice, context=context, tr=tr)



@dataclass(frozen=True, slots=True)
class CaseReference:
    """What the citizen reported, shown to the inspector beside the form as a reference, never copied into the act.

    The act's facts are the inspector's own account (CP Art. 25 III, 34 III: "os fatos", verified by the agent); the
    citizen's words may name them ("do lado da minha casa", "minha filha tem asma") and would reach the accused in
    the PDF (LGPD Art. 6 III; CP Art. 31 keeps the author apart from the accused).
    """

    protocol: str
    accused: str
    place: str
    facts: str


@dataclass(frozen=True, slots=True)
class CasePrefill:
    """The elements a decided case fills in, and the citizen's report beside them for reference."""

    data: NoticeInput
    reference: CaseReference


async def input_from_case(
    *, session: AsyncSession, city: Municipality, case_id: int, issuer_name: str | None, now: dt.datetime
) -> CasePrefill:
    """The elements of the notice a decided representação calls for (CP Art. 32), for staff to complete and issue.

    The case hands over (``models.cases.handling.notice_handover``) the type, law and infraction; the accused, the
    place and the facts as the citizen told them are only a :class:`CaseReference` for the inspector, who writes
    the act's own (issue 18 §6). A registered driver named in a ride-hailing report gives the name, CPF and
    Telegram link (the registry's, not the citizen's words). The drawing up is ``now``; staff check and complete
    the rest before issuing. Never the author.

    Raises:
        LookupError: the case is not decided for a notice (archived, or still open).
    """
    handover = await notice_handover(session=session, case_id=case_id)
    if handover is None:
        raise LookupError(f"case {case_id} does not call for a notice")
    name, document, person_id = None, None, None
    if handover.driver_id is not None:
        driver = await session.get(Driver, handover.driver_id)
        if driver is not None:
            name, document, person_id = driver.name, driver.cpf, driver.person_id
    local = now.astimezone(city.tz)
    data = NoticeInput(
        type=NoticeType(handover.notice_type),
        rulebook=handover.rulebook,
        infraction_code=handover.infraction_code,
        offender_name=name,
        offender_document=document,
        person_id=person_id,
        drawn_up_on=local.date(),
        drawn_up_time=local.time().replace(second=0, microsecond=0),
        issuer_name=issuer_name,
        case_id=case_id,
    )
    reference = CaseReference(protocol=handover.protocol, accused=handover.accused or "", place=handover.place,
                              facts=handover.facts)
    return CasePrefill(data=data, reference=reference)
