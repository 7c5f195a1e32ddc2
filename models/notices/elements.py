"""The elements a notice must contain (issue 6, item 3), each refused with the article that requires it.

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

What staff give (:class:`NoticeInput`), what is wrong with it (:class:`Problem`) and the check itself
(:func:`check_elements`); :mod:`models.notices.issuing` runs the check before it prices and issues the act.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from core.i18n import N_, Translator
from core.municipality import Municipality
from models.notices.tables import NoticeType
from models.rulebooks.catalogue import CP, L1533, LAW_TITLES, CatalogueError, get_infraction

COORDINATES = re.compile(r"-?\d{1,3}(?:[.,]\d+)?\s*[,;]\s*-?\d{1,3}(?:[.,]\d+)?")
"""A place typed as latitude, longitude (what a case's map pin gives)."""


PLACE_NOT_COORDINATES = N_("Give the place as an address (street, number, district), not coordinates")


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
    """What staff give to issue a notice.

    Every field may be missing; :func:`models.notices.issuing.issue_notice` says which are needed.

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
issues it (:func:`models.notices.issuing.issue_notice`), never typed."""


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
