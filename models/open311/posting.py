"""POST requests: an Open311 client system files a case for its user — the chat's filing, with the chat's checks.

The attributes are those of :mod:`models.open311.services`; each value goes through the same field check as the
chat's answer (:mod:`models.cases.fields`), the form through the same legal check and the same daily limit
(:mod:`models.cases.filing`), and an uploaded file through the same content checks and limits
(:func:`models.cases.attachments.store_attachment`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import delete, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities, Municipality
from models.cases import fields
from models.cases.attachments import store_attachment
from models.cases.filing import (
    RIDE_HAILING_BY_KEY,
    Author,
    FiledCase,
    Open311Origin,
    Place,
    RepresentationForm,
    RideHailingForm,
    file_representation,
    file_ride_hailing_report,
)
from models.cases.limits import CaseLimits
from models.cases.ride_hailing import find_reported_vehicle
from models.cases.schedule import civil_date
from models.cases.tables import Case, CaseAttachment, CaseKind, Relation
from models.invalid_input import InvalidInput
from models.open311.services import Service, service_attributes
from models.open311.tables import Open311Client, Open311Submission

_URL = re.compile(r"https?://[^\s<>\"]{1,490}")
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Upload:
    """A file sent with the request (multipart ``media``)."""

    content: bytes
    file_name: str | None


@dataclass(frozen=True, slots=True)
class PostedRequest:
    """What the client system sent (GeoReport v2 POST requests), as strings still to check."""

    description: str
    attributes: Mapping[str, str]
    lat: str | None = None
    long: str | None = None
    address_string: str | None = None
    address_id: str | None = None  # not supported: refused when it is the only place given
    media_url: str | None = None
    account: str | None = None  # account_id, else email, else device_id, else phone
    service_name: str = ""  # the service's name as staff read it: the description when none is sent
    name: str | None = None  # first_name and last_name: the author's name when attribute[author_name] is not sent
    uploads: tuple[Upload, ...] = ()


OPEN311_FACTS_MAX = 4000
"""The longest description taken from Open311: FixMyStreet sends its title, detail and report URL in one."""


def _named(field: str, check: Callable[[str], T], value: str) -> T:
    """``check(value)``, its refusal naming the form field it is about (``attribute[vehicle]: …``)."""
    try:
        return check(value)
    except InvalidInput as exc:
        raise InvalidInput(N_("{field}: {reason}"), field=field, reason=exc) from None


def _place(request: PostedRequest) -> Place:
    """Where (GeoReport v2: ``lat`` and ``long``, or ``address_string``, is required)."""
    latitude = longitude = None
    if request.lat or request.long:
        try:
            latitude, longitude = float(request.lat or ""), float(request.long or "")
        except ValueError:
            raise InvalidInput(N_("lat and long must be numbers in degrees (WGS84).")) from None
        if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
            raise InvalidInput(N_("lat and long must be numbers in degrees (WGS84)."))
    text = _named("address_string", fields.address, request.address_string) if request.address_string else None
    place = Place(text=text, latitude=latitude, longitude=longitude)
    if not place.given and (request.address_id or "").strip():
        raise InvalidInput(N_("address_id is not supported: send lat and long, or address_string."))
    if not place.given:
        raise InvalidInput(N_("Say where: send lat and long, or address_string."))
    return place


def _day(value: str, *, today: dt.date) -> dt.date:
    """A W3C date or datetime (``2026-03-01`` or ``2026-03-01T10:00:00-04:00``) as the civil day, not future."""
    value = value.strip()
    if not _ISO_DAY.match(value):
        raise InvalidInput(N_("Dates must be W3C dates, like 2026-03-01 or 2026-03-01T10:00:00-04:00."))
    return fields.past_day(value[:10], today=today)


def _facts(request: PostedRequest) -> str:
    """The description, or the service's name when none is sent (GeoReport v2: ``description`` is optional)."""
    if request.description.strip():
        return _named("description", lambda text: fields.facts(text, max_length=OPEN311_FACTS_MAX),
                      request.description)
    return fields.clean_text(request.service_name, min_length=1, max_length=OPEN311_FACTS_MAX)


def _required(values: Mapping[str, str], code: str) -> str:
    value = (values.get(code) or "").strip()
    if not value:
        raise InvalidInput(N_("attribute[{code}] is required."), code=code)
    return value


def _choice(service: Service, values: Mapping[str, str], code: str, *, required: bool) -> str | None:
    value = (values.get(code) or "").strip()
    if not value:
        if required:
            raise InvalidInput(N_("attribute[{code}] is required."), code=code)
        return None
    attribute = next((item for item in service_attributes(service) if item.code == code), None)
    if attribute is None or value not in {choice.key for choice in attribute.values}:
        raise InvalidInput(N_("attribute[{code}] must be one of the keys the service definition lists."), code=code)
    return value


def _account_sha256(request: PostedRequest, client_id: int) -> str:
    """Who the person is for the daily limit (``BALCAO_CASES_PER_DAY``), hashed.

    What the client sends (``account_id``, ``email``, ``device_id``, ``phone``: all optional in GeoReport v2);
    the client system itself when it sends none (FixMyStreet sends none for a user who signed up by phone), so
    its people without an identity share one allowance, on top of the key's hourly one.
    """
    account = (request.account or "").strip().lower() or f"open311-client:{client_id}"
    return hashlib.sha256(account.encode()).hexdigest()


def _media_url(value: str | None) -> str | None:
    if not value:
        return None
    if not _URL.fullmatch(value.strip()):
        raise InvalidInput(N_("media_url must be an http or https URL of at most 500 characters."))
    return value.strip()


KEY_WINDOW = dt.timedelta(hours=1)
"""The window of the per-key limit (``BALCAO_OPEN311_POSTS_PER_HOUR``)."""


class TooManyPosts(Exception):
    """The client system's key posted its hourly allowance (``BALCAO_OPEN311_POSTS_PER_HOUR``).

    Attributes:
        limit: the allowance.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit} requests in an hour")
        self.limit = limit


async def check_key_allowance(*, session: AsyncSession, client_id: int, now: dt.datetime, posts_per_hour: int) -> None:
    """Refuse a POST once the key filed ``BALCAO_OPEN311_POSTS_PER_HOUR`` cases in the last hour.

    The per-person daily limit rests on the ``account_id`` the client sends, which the client chooses; the key is
    the one identity Balcão issued, so it is limited too. The count is of the cases filed (in the database), so it
    holds across processes.

    Raises:
        TooManyPosts: the allowance is used up.
    """
    filed = (await session.exec(
        select(func.count()).select_from(Open311Submission)
        .join(Case, col(Case.id) == Open311Submission.case_id)
        .where(Open311Submission.client_id == client_id, col(Case.received_at) > now - KEY_WINDOW)
    )).one()
    if filed >= posts_per_hour:
        raise TooManyPosts(posts_per_hour)


async def post_request(
    *,
    session: AsyncSession,
    client: Open311Client,
    service: Service,
    request: PostedRequest,
    now: dt.datetime,
    city: Municipality,
    cities: Cities,
    posts_per_hour: int,
) -> FiledCase:
    """File the case an Open311 request describes, exactly as the chat files it.

    Args:
        session: database session.
        client: the client system whose key sent it.
        service: the jurisdiction's service it names.
        request: what it sent.
        now: the moment of filing.
        city: the jurisdiction's municipality (its civil today dates the request).
        cities: the municipalities served (a case is filed where its law is in force, CF Art. 30 I).
        posts_per_hour: the key's hourly allowance (``BALCAO_OPEN311_POSTS_PER_HOUR``).

    Returns:
        The filed case (protocol number, deadline, legal references).

    Raises:
        InvalidInput: a value fails the chat's check, a required element is missing, the law does not admit
            the case (CP Art. 31 sole paragraph), the daily limit is reached, or the file is refused.
        TooManyPosts: the key's hourly allowance is used up (nothing is stored).
    """
    assert client.id is not None
    await check_key_allowance(session=session, client_id=client.id, now=now, posts_per_hour=posts_per_hour)
    attachment_ids: list[int] = []
    try:
        for upload in request.uploads:
            stored = await store_attachment(
                session=session, person_id=None, content=upload.content, file_name=upload.file_name,
                limits=CaseLimits.of(city.readings), already=attachment_ids,
            )
            assert stored.id is not None
            attachment_ids.append(stored.id)
        return await _file(session=session, client_id=client.id, service=service, request=request,
                           attachment_ids=attachment_ids, now=now, city=city, cities=cities)
    except InvalidInput:
        await session.rollback()
        if attachment_ids:  # the file of a refused request is not kept
            await session.exec(delete(CaseAttachment).where(col(CaseAttachment.id).in_(attachment_ids)))
            await session.commit()
        raise


async def _file(
    *,
    session: AsyncSession,
    client_id: int,
    service: Service,
    request: PostedRequest,
    attachment_ids: list[int],
    now: dt.datetime,
    city: Municipality,
    cities: Cities,
) -> FiledCase:
    today = civil_date(now, city)
    values = dict(request.attributes)
    if not values.get("author_name", "").strip() and request.name:
        values["author_name"] = request.name
    place = _place(request)
    facts = _facts(request)
    origin = Open311Origin(client_id=client_id, account_sha256=_account_sha256(request, client_id),
                           service_code=service.code, media_url=_media_url(request.media_url))
    occurred_on = _named("attribute[occurred_on]", lambda text: _day(text, today=today),
                         _required(values, "occurred_on"))
    evidence = _named("attribute[evidence_note]", fields.evidence_note, values["evidence_note"]) \
        if values.get("evidence_note", "").strip() else None
    if evidence is None and origin.media_url:
        evidence = origin.media_url  # CP Art. 31: where the evidence can be found
    if service.kind is CaseKind.RIDE_HAILING:
        reason = _choice(service, values, "reason", required=True) or ""
        plate = _required(values, "vehicle")
        try:
            vehicle = await find_reported_vehicle(session=session, text=plate)
        except InvalidInput as exc:
            raise InvalidInput(N_("{field}: {reason}"), field="attribute[vehicle]", reason=exc) from None
        return await file_ride_hailing_report(
            session=session, person_id=None, now=now, cities=cities, origin=origin,
            form=RideHailingForm(
                author=Author(name=_named("attribute[author_name]", fields.person_name,
                                          _required(values, "author_name"))),
                vehicle_ref=vehicle.reference, reason=RIDE_HAILING_BY_KEY[reason].key, facts=facts,
                occurred_on=occurred_on, place=place, driver_id=vehicle.driver_id, evidence_note=evidence,
                attachment_ids=attachment_ids,
            ),
        )
    author = Author(
        name=_named("attribute[author_name]", fields.person_name, _required(values, "author_name")),
        profession=_named("attribute[author_profession]", fields.profession, _required(values, "author_profession")),
        address=_named("attribute[author_address]", fields.address, _required(values, "author_address")),
        cpf=_named("attribute[author_cpf]", fields.cpf, values["author_cpf"])
        if values.get("author_cpf", "").strip() else None,
    )
    relation = Relation(_choice(service, values, "relation", required=True) or "")
    ended = values.get("relation_ended_on", "").strip()
    return await file_representation(
        session=session, person_id=None, now=now, cities=cities, origin=origin,
        form=RepresentationForm(
            author=author, facts=facts, occurred_on=occurred_on, place=place,
            learned_how=_named("attribute[learned_how]", fields.learned_how, _required(values, "learned_how")),
            relation=relation,
            infraction_code=_choice(service, values, "infraction", required=False),
            accused=_named("attribute[accused]", fields.accused, values["accused"])
            if values.get("accused", "").strip() else None,
            evidence_note=evidence, attachment_ids=attachment_ids,
            relation_ended_on=_named("attribute[relation_ended_on]", lambda text: _day(text, today=today), ended)
            if ended and relation is Relation.FORMER else None,
        ),
    )


async def filed_by_client(
    *, session: AsyncSession, client_id: int, protocol: str, municipality: str
) -> FiledCase | None:
    """A case this client system filed in a municipality, as its receipt prints it (None for any other)."""
    row = (
        await session.exec(
            select(Case)
            .join(Open311Submission, col(Open311Submission.case_id) == Case.id)
            .where(Open311Submission.client_id == client_id, Case.protocol == protocol,
                   Case.municipality == municipality)
        )
    ).first()
    if row is None or row.id is None:
        return None
    return FiledCase(case_id=row.id, protocol=row.protocol, kind=row.kind, received_at=row.received_at,
                     due_on=row.due_on, summary=row.summary, legal_refs=tuple(row.legal_refs),
                     municipality=row.municipality)
