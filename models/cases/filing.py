"""Filing a case: a representação (CP Art. 30–31), a ride-hailing report (Lei 1.533/2020), an ombudsman case.

Each ``file_*`` function checks the form as the law requires, takes the next protocol number, stores the case
with its author kept apart, claims the files received during the conversation, starts the timeline, puts the
case in the staff queue (staff are told) and commits — all in one transaction.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass, field
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities, Municipality
from models.cases.attachments import claim_attachments
from models.cases.limits import check_daily_limit
from models.cases.protocol import next_protocol
from models.cases.schedule import first_due_on
from models.cases.tables import (
    HANDLING_ROLE,
    Case,
    CaseAuthor,
    CaseKind,
    EventKind,
    OmbudsmanType,
    Relation,
)
from models.cases.territory import check_within
from models.cases.timeline import AUTHOR_ACTOR, notify_staff, record_event
from models.invalid_input import InvalidInput
from models.open311.tables import Open311Submission
from models.rulebooks.catalogue import CP, L1533, CatalogueError, get_infraction

CP_TITLE = "Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina)"
L1533_TITLE = "Lei nº 1.533/2020 (Sapezal)"
OMBUDSMAN_TITLE = "Lei nº 13.460/2017"


@dataclass(frozen=True, slots=True)
class Author:
    """Who files: CP Art. 31 asks for name, profession and address; the CPF is optional."""

    name: str
    profession: str | None = None
    address: str | None = None
    cpf: str | None = None


@dataclass(frozen=True, slots=True)
class Place:
    """Where it happened: a shared location, a typed address, or both."""

    text: str | None = None
    latitude: float | None = None
    longitude: float | None = None

    @property
    def given(self) -> bool:
        """Whether anything was said about the place."""
        return bool(self.text) or (self.latitude is not None and self.longitude is not None)

    def describe(self) -> str:
        """The place in one line (the address, or the coordinates)."""
        if self.text:
            return self.text
        if self.latitude is not None and self.longitude is not None:
            return f"{self.latitude:.6f}, {self.longitude:.6f}"
        return ""


@dataclass(frozen=True, slots=True)
class RepresentationForm:
    """A *representação* as the citizen filled it in (CP Art. 31)."""

    author: Author
    facts: str
    occurred_on: dt.date
    place: Place
    learned_how: str
    relation: Relation
    infraction_code: str | None = None
    accused: str | None = None
    evidence_note: str | None = None
    attachment_ids: list[int] = field(default_factory=list)
    relation_ended_on: dt.date | None = None


@dataclass(frozen=True, slots=True)
class RideHailingReason:
    """A reason to report a ride-hailing driver, with the article breached and the catalogue row."""

    key: str
    label: str  # English msgid
    article: str
    infraction_code: str


RIDE_HAILING_REASONS: tuple[RideHailingReason, ...] = (
    RideHailingReason("street", N_("Picked up passengers on the street, without the app"), "Art. 7º",
                      "L1533-26-IV"),
    RideHailingReason("rank", N_("Waited for passengers at a taxi rank"), "Art. 7º, par. único", "L1533-26-VI"),
    RideHailingReason("conduct", N_("The driver's conduct (rudeness, unsafe driving, dirty car…)"), "Art. 13",
                      "L1533-26-III"),
    RideHailingReason("sticker", N_("The car had no identification sticker"), "Art. 14", "L1533-26-III"),
)
"""Why a citizen reports a driver (Lei 1.533/2020): Art. 7 boarding on the street, Art. 13 conduct, Art. 14
sticker. A car missing from the registry is also illegal transport (Art. 27)."""

RIDE_HAILING_BY_KEY = {reason.key: reason for reason in RIDE_HAILING_REASONS}
UNREGISTERED_CODE = "L1533-27"


@dataclass(frozen=True, slots=True)
class RideHailingForm:
    """A report about a ride-hailing driver, identified by the plate or the authorization number."""

    author: Author
    vehicle_ref: str
    reason: str  # a key of RIDE_HAILING_REASONS
    facts: str
    occurred_on: dt.date
    place: Place
    driver_id: int | None = None
    evidence_note: str | None = None
    attachment_ids: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class OmbudsmanForm:
    """A *manifestação* (Lei 13.460/2017): type, text, files, and whether the identity is restricted."""

    author: Author
    type: OmbudsmanType
    text: str
    identity_restricted: bool
    attachment_ids: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FiledCase:
    """What the author is told after filing, and what the receipt prints."""

    case_id: int
    protocol: str
    kind: CaseKind
    received_at: dt.datetime
    due_on: dt.date
    summary: str
    legal_refs: tuple[str, ...]
    municipality: str


@dataclass(frozen=True, slots=True)
class Open311Origin:
    """A case posted by an Open311 client system instead of a person in the chat.

    Attributes:
        client_id: the client system (``models.open311.tables.Open311Client``).
        account_sha256: the person as the client system knows them, hashed (the daily limit counts it).
        service_code: the Open311 service the request was posted to.
        media_url: a public photo URL the client gave (``media_url``), published with the request.
    """

    client_id: int
    account_sha256: str
    service_code: str
    media_url: str | None = None


class NotAdmitted(InvalidInput):
    """The law does not admit this case as filled in (e.g. CP Art. 31 sole paragraph)."""


def check_representation(form: RepresentationForm, *, evidence_later: bool = False) -> None:
    """Check a representação against CP Art. 31.

    ``evidence_later``: a request from an Open311 client system may come without evidence (its service
    definition makes ``evidence_note`` optional); it is filed and the clerk sees that the evidence is missing
    (``docs/LEGAL-CHOICES.md``, Open311 without evidence). The chat asks for it before filing.

    Raises:
        InvalidInput: a required element is missing.
        NotAdmitted: a former partner, director, agent or employee reports facts from before they left
            (Art. 31, sole paragraph).
    """
    if not (form.author.name and form.author.profession and form.author.address):
        raise InvalidInput(N_("The law asks for your name, profession and address (Código de Posturas, Art. 31)."),
                           fields=("author.name", "author.profession", "author.address"))
    # CP Art. 31: "será acompanhada de provas ou indicará os elementos deste"
    if not form.attachment_ids and not form.evidence_note and not evidence_later:
        raise InvalidInput(
            N_("Please send evidence, or say where it can be found (Código de Posturas, Art. 31)."),
            fields=("evidence_note", "attachment_ids"),
        )
    if not form.learned_how:
        raise InvalidInput(N_("Please say how you learned of it (Código de Posturas, Art. 31)."),
                           fields=("learned_how",))
    if form.relation is Relation.FORMER:
        if form.relation_ended_on is None:
            raise InvalidInput(N_("Please say when you left."), fields=("relation_ended_on",))
        if form.occurred_on < form.relation_ended_on:
            raise NotAdmitted(
                N_(
                    "The law does not accept a report from a former partner, director, agent or employee about "
                    "facts from before they left (Código de Posturas, Art. 31, sole paragraph). You left on "
                    "{left}, and the facts are from before that date."
                ),
                fields=("occurred_on", "relation_ended_on"),
                left=form.relation_ended_on,
            )


def representation_refs(infraction_code: str | None) -> tuple[str, ...]:
    """The articles a representação rests on: Art. 30–32, and the breached rule when picked from the catalogue."""
    refs = [f"{CP_TITLE}, Art. 30 a 32"]
    if infraction_code:
        try:
            infraction = get_infraction(infraction_code)
        except CatalogueError:
            return tuple(refs)
        table = f" (Tabela {infraction.table}, item {infraction.item})" if infraction.table else ""
        refs.append(f"{CP_TITLE}, {infraction.article}{table}")
    return tuple(refs)


def ride_hailing_refs(reason: str, *, registered: bool) -> tuple[str, ...]:
    """The articles a ride-hailing report rests on (the duty breached; Art. 27 when the car is not registered)."""
    refs = [f"{L1533_TITLE}, {RIDE_HAILING_BY_KEY[reason].article}"]
    if not registered:
        refs.append(f"{L1533_TITLE}, Art. 27")
    return tuple(refs)


def _new_case(kind: CaseKind, *, now: dt.datetime, city: Municipality, **details: Any) -> Case:
    """A case of ``kind`` received ``now``, routed to its queue and due as the law says (numbered when filed)."""
    return Case(
        protocol="",
        municipality=city.slug,
        kind=kind,
        handling_role=HANDLING_ROLE[kind],
        received_at=now,
        updated_at=now,
        due_on=first_due_on(kind=kind, received_at=now, city=city),
        **details,
    )


def _pseudonym() -> str:
    return secrets.token_hex(2).upper()


async def _file(
    *,
    session: AsyncSession,
    person_id: int | None,
    case: Case,
    author: Author,
    attachment_ids: list[int],
    now: dt.datetime,
    city: Municipality,
    origin: Open311Origin | None = None,
) -> FiledCase:
    await check_daily_limit(
        session=session, person_id=person_id, now=now, city=city,
        open311=(origin.client_id, origin.account_sha256) if origin else None,
    )
    year = now.astimezone(city.tz).year
    case.protocol = await next_protocol(session=session, kind=case.kind, year=year)
    session.add(case)
    await session.flush()
    assert case.id is not None
    session.add(
        CaseAuthor(
            case_id=case.id,
            person_id=person_id,
            name=author.name,
            profession=author.profession,
            address=author.address,
            cpf=author.cpf,
            pseudonym=_pseudonym(),
        )
    )
    if origin is not None:
        session.add(Open311Submission(case_id=case.id, client_id=origin.client_id,
                                      account_sha256=origin.account_sha256, service_code=origin.service_code,
                                      media_url=origin.media_url))
    await claim_attachments(session=session, person_id=person_id, attachment_ids=attachment_ids, case_id=case.id)
    await session.flush()
    await record_event(
        session=session, case=case, kind=EventKind.FILED, actor=AUTHOR_ACTOR, now=now, notify_author=False
    )
    await notify_staff(session=session, case=case, what="new", dedupe=f"new:{case.id}")
    await session.commit()
    return FiledCase(
        case_id=case.id,
        municipality=case.municipality,
        protocol=case.protocol,
        kind=case.kind,
        received_at=now,
        due_on=case.due_on,
        summary=case.summary,
        legal_refs=tuple(case.legal_refs),
    )


async def file_representation(
    *,
    session: AsyncSession,
    person_id: int | None,
    form: RepresentationForm,
    now: dt.datetime,
    cities: Cities,
    origin: Open311Origin | None = None,
) -> FiledCase:
    """File a representação under the Código de Posturas (Art. 30–32), from the chat or through Open311.

    ``person_id`` is the author in the chat; a request from an Open311 client system gives ``origin`` instead.

    Raises:
        InvalidInput: an Art. 31 element is missing.
        NotAdmitted: Art. 31 sole paragraph.
        DailyLimitReached: the person filed too many cases today.
    """
    city = cities.with_rulebook(CP)  # the municipality whose law the case rests on (CF Art. 30 I)
    if city is None:
        raise InvalidInput(N_("Representations under the Código de Posturas are not available in this city."))
    check_representation(form, evidence_later=origin is not None)
    check_within(city.config, form.place.latitude, form.place.longitude)  # CF Art. 30 I; CP Art. 1
    case = _new_case(
        CaseKind.REPRESENTATION,
        now=now,
        city=city,
        summary=form.facts,
        infraction_code=form.infraction_code,
        legal_refs=list(representation_refs(form.infraction_code)),
        accused=form.accused,
        place_text=form.place.text,
        latitude=form.place.latitude,
        longitude=form.place.longitude,
        occurred_on=form.occurred_on,
        evidence_note=form.evidence_note,
        learned_how=form.learned_how,
        relation=form.relation,
        relation_ended_on=form.relation_ended_on if form.relation is Relation.FORMER else None,
    )
    return await _file(
        session=session, person_id=person_id, case=case, author=form.author,
        attachment_ids=form.attachment_ids, now=now, city=city, origin=origin,
    )


async def file_ride_hailing_report(
    *,
    session: AsyncSession,
    person_id: int | None,
    form: RideHailingForm,
    now: dt.datetime,
    cities: Cities,
    origin: Open311Origin | None = None,
) -> FiledCase:
    """File a report about a ride-hailing driver (L1533 Art. 7, 13, 14); it goes to the inspectors.

    ``person_id`` is the author in the chat; a request from an Open311 client system gives ``origin`` instead.

    Raises:
        InvalidInput: unknown reason, or the rulebook is not in force.
        DailyLimitReached: the person filed too many cases today.
    """
    city = cities.with_rulebook(L1533)  # the municipality whose law the case rests on (CF Art. 30 I)
    if city is None:
        raise InvalidInput(N_("Reports about ride-hailing drivers are not available in this city."))
    reason = RIDE_HAILING_BY_KEY.get(form.reason)
    if reason is None:
        raise InvalidInput(N_("Please choose what the driver did."))
    check_within(city.config, form.place.latitude, form.place.longitude)  # CF Art. 30 I; L1533 Art. 1
    registered = form.driver_id is not None
    case = _new_case(
        CaseKind.RIDE_HAILING,
        now=now,
        city=city,
        summary=form.facts,
        infraction_code=reason.infraction_code if registered else UNREGISTERED_CODE,
        legal_refs=list(ride_hailing_refs(form.reason, registered=registered)),
        accused=form.vehicle_ref,
        driver_id=form.driver_id,
        vehicle_ref=form.vehicle_ref,
        place_text=form.place.text,
        latitude=form.place.latitude,
        longitude=form.place.longitude,
        occurred_on=form.occurred_on,
        evidence_note=form.evidence_note,
    )
    return await _file(
        session=session, person_id=person_id, case=case, author=form.author,
        attachment_ids=form.attachment_ids, now=now, city=city, origin=origin,
    )


async def file_ombudsman_case(
    *, session: AsyncSession, person_id: int, form: OmbudsmanForm, now: dt.datetime, city: Municipality
) -> FiledCase:
    """File an ombudsman case (Lei 13.460/2017): the answer is due in 30 days (Art. 16).

    Raises:
        DailyLimitReached: the person filed too many cases today.
    """
    case = _new_case(
        CaseKind.OMBUDSMAN,
        now=now,
        city=city,
        ombudsman_type=form.type,
        summary=form.text,
        legal_refs=[f"{OMBUDSMAN_TITLE}, Art. 16"],
        identity_restricted=form.identity_restricted,
    )
    return await _file(
        session=session, person_id=person_id, case=case, author=form.author,
        attachment_ids=form.attachment_ids, now=now, city=city,
    )
