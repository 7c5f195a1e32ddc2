"""GeoReport v2 requests: POST (file a case), GET requests (a list), GET one request, and status updates.

POST needs a client system's ``api_key``; so does mySociety's ``servicerequestupdates`` (as FixMyStreet calls it).
What a request shows is :mod:`models.open311.requests`: never the author, their contact, CPF or words.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import BodyPartReader, web

from core.i18n import DEFAULT_LOCALE, Translator, translator
from core.municipality import Timestamping
from handlers.web.keys import cities_of_request, city_of, sessions_of, settings_of
from handlers.web.open311.render import (
    Open311Error,
    answer,
    end_of_day,
    fmt_of,
    open311_endpoint,
    reader,
    w3c,
)
from handlers.web.open311.services import ROOT, jurisdiction_of, service_entry, service_or_404
from models.cases.attachments import AttachmentRefused, check_before_download
from models.cases.limits import CaseLimits
from models.cases.protocol import PROTOCOL_PATTERN, normalize_protocol
from models.cases.receipt_pdf import signed_receipt
from models.cases.territory import PlaceOutside
from models.columns import utcnow
from models.invalid_input import InvalidInput
from models.open311.jurisdiction import Jurisdiction
from models.open311.keys import client_for_key
from models.open311.posting import PostedRequest, TooManyPosts, Upload, filed_by_client, post_request
from models.open311.requests import MAX_RANGE, PublicRequest, public_requests, public_updates
from models.open311.services import find_service
from models.open311.tables import Open311Client

routes = web.RouteTableDef()


async def _client(request: web.Request, api_key: str, tr: Translator) -> Open311Client:
    async with sessions_of(request)() as session:
        client = await client_for_key(session=session, key=api_key)
    if client is None:
        raise Open311Error(403, tr._("Missing or wrong api_key. Keys are issued by the city hall, one per client "
                                     "system."))
    return client


def _moment(text: str, name: str, tr: Translator) -> dt.datetime:
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise Open311Error(400, tr._("{name} must be a W3C datetime with its offset, like "
                                     "2026-03-01T00:00:00-04:00.").format(name=name))
    return moment


def date_range(query: Mapping[str, str], tr: Translator, now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """``start_date``/``end_date``: at most 90 days apart; the last 90 days when neither is given (GeoReport v2)."""
    start = _moment(query["start_date"], "start_date", tr) if query.get("start_date") else None
    end = _moment(query["end_date"], "end_date", tr) if query.get("end_date") else None
    if start is None and end is None:
        end = now
    if start is None:
        assert end is not None
        start = end - MAX_RANGE
    if end is None:
        end = start + MAX_RANGE
    if end < start:
        raise Open311Error(400, tr._("end_date is before start_date."))
    if end - start > MAX_RANGE:
        raise Open311Error(400, tr._("start_date and end_date may be at most 90 days apart."))
    return start, end


def request_entry(item: PublicRequest, tr: Translator, request: web.Request, place: Jurisdiction) -> dict[str, Any]:
    """One request of a jurisdiction as GET requests shows it (GeoReport v2 field names)."""
    tz = settings_of(request).tz
    return {
        "service_request_id": item.service_request_id,
        "status": item.status,
        "status_notes": tr._(item.status_note),
        "service_code": item.service_code,
        "service_name": _service_name(item.service_code, tr, place),
        "description": None,  # the author's own words may name them: never published
        "agency_responsible": tr._(item.agency),
        "service_notice": None,
        "requested_datetime": w3c(item.requested_at, tz),
        "updated_datetime": w3c(item.updated_at, tz),
        "expected_datetime": w3c(end_of_day(item.due_on, tz), tz),
        "address": item.address,
        "address_id": None,
        "zipcode": None,
        "lat": item.latitude,
        "long": item.longitude,
        "media_url": item.media_url,
    }


def _service_name(code: str, tr: Translator, place: Jurisdiction) -> str | None:
    service = find_service(code, place.rulebooks)
    return service_entry(tr, service)["service_name"] if service else None


def _protocols(text: str, tr: Translator) -> list[str]:
    protocols = []
    for part in text.split(","):
        protocol = normalize_protocol(part)
        if protocol is None:
            raise Open311Error(400, tr._("service_request_id must be protocol numbers like REP-2026-000123, "
                                         "separated by commas."))
        protocols.append(protocol)
    return protocols


MAX_SERVICE_CODES = 64
"""Distinct codes one ``service_code`` filter may list: more than every service of a jurisdiction (28 today)."""


@routes.get(ROOT + "/requests.{fmt:xml|json}")
@open311_endpoint
async def list_requests(request: web.Request) -> web.Response:
    """GET requests of the jurisdiction: by ``service_request_id`` (comma list), or by service, dates, status."""
    query = request.query
    place = jurisdiction_of(request)
    tr = reader(request)
    statuses = [status.strip() for status in query.get("status", "").split(",") if status.strip()]
    if any(status not in {"open", "closed"} for status in statuses):
        raise Open311Error(400, tr._("status must be open, closed or both, separated by a comma."))
    codes = list(dict.fromkeys(code.strip() for code in query.get("service_code", "").split(",") if code.strip()))
    if len(codes) > MAX_SERVICE_CODES:  # each is a condition of the query: 650 made SQLite refuse it (a 500)
        raise Open311Error(400, tr._("service_code takes at most {n} codes, separated by commas.").format(
            n=MAX_SERVICE_CODES))
    protocols = _protocols(query["service_request_id"], tr) if query.get("service_request_id") else None
    start, end = date_range(query, tr, utcnow())
    async with sessions_of(request)() as session:
        found = await public_requests(
            session=session, municipality=place.id, protocols=protocols, service_codes=codes or None,
            start=None if protocols else start, end=None if protocols else end, statuses=statuses or None,
            place=settings_of(request).open311_place,
        )
    body = [request_entry(item, tr, request, place) for item in found]
    return answer(fmt_of(request), "service_requests", "request", body)


@routes.get(ROOT + "/requests/{id}.{fmt:xml|json}")
@open311_endpoint
async def one_request(request: web.Request) -> web.Response:
    """GET a request of the jurisdiction by its protocol number (a list of one, as the spec says)."""
    place = jurisdiction_of(request)
    tr = reader(request)
    protocol = normalize_protocol(request.match_info["id"])
    found: list[PublicRequest] = []
    if protocol is not None and PROTOCOL_PATTERN.match(protocol):
        async with sessions_of(request)() as session:
            found = await public_requests(session=session, municipality=place.id, protocols=[protocol],
                                          place=settings_of(request).open311_place)
    if not found:
        raise Open311Error(404, tr._("No service request {id}.").format(id=request.match_info["id"][:40]))
    return answer(fmt_of(request), "service_requests", "request", [request_entry(found[0], tr, request, place)])


FIELD_LIMIT = 64 * 1024
"""The most a form field may hold (the longest text Balcão takes is far shorter)."""
MAX_FIELDS = 64
"""The most form fields a POST may have (GeoReport v2 has about 20, plus the service's attributes)."""
FIELDS_TOTAL = 256 * 1024
"""The most all the form fields of a POST may hold together (files apart)."""


def _key_outside_the_body(request: web.Request) -> str | None:
    """The ``api_key`` of the query string or the ``X-Api-Key`` header, checked before any byte of the body."""
    return request.query.get("api_key") or request.headers.get("X-Api-Key") or None


def body_limit(limits: CaseLimits) -> int:
    """The most bytes a POST body may have: its fields and its files (README: ``client_max_body_size``)."""
    return FIELDS_TOTAL + limits.max_attachments * limits.max_attachment_bytes + 64 * 1024


async def _read_capped(part: BodyPartReader, cap: int) -> bytes | None:
    """A part's bytes, or None as soon as it passes ``cap`` (nothing more is read into memory)."""
    data = bytearray()
    while chunk := await part.read_chunk(64 * 1024):
        data.extend(chunk)
        if len(data) > cap:
            return None
    return bytes(data)


async def _urlencoded(request: web.Request, tr: Translator) -> dict[str, str]:
    """An urlencoded body, read up to :data:`FIELDS_TOTAL` and :data:`MAX_FIELDS` (refused beyond them)."""
    data = bytearray()
    while chunk := await request.content.read(64 * 1024):
        data.extend(chunk)
        if len(data) > FIELDS_TOTAL:
            raise Open311Error(413, tr._("The request is too large."))
    try:
        # strict: a percent-escape that is not UTF-8 (a Latin-1 "calçada") is refused, never stored as "cal�ada"
        pairs = parse_qsl(data.decode("utf-8"), keep_blank_values=True, max_num_fields=MAX_FIELDS,
                          encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise Open311Error(400, tr._("The request is not UTF-8: send the form in UTF-8.")) from None
    except ValueError:
        raise Open311Error(413, tr._("The request has too many fields.")) from None
    return dict(pairs)


async def _form(request: web.Request, tr: Translator,
                client: Open311Client | None) -> tuple[dict[str, str], list[Upload], Open311Client]:
    """The POST body: form fields (urlencoded or multipart), the files of a multipart body, and the client.

    Nothing unbounded is read before the key is known: the body's declared length, its fields' count and their
    total size are bounded, and a multipart body's ``api_key`` field is checked as soon as it arrives (a wrong key
    is refused there, before the rest is read). Files are checked against the chat's limits while they arrive
    (count and size, :func:`models.cases.attachments.check_before_download`); their content is checked when stored.
    """
    limits = CaseLimits.of(settings_of(request))
    if request.content_length is not None and request.content_length > body_limit(limits):
        raise Open311Error(413, tr._("The request is too large."))
    if request.content_type == "application/x-www-form-urlencoded":
        fields = await _urlencoded(request, tr)
        return fields, [], client or await _client(request, fields.get("api_key", ""), tr)
    if request.content_type != "multipart/form-data":
        raise Open311Error(400, tr._("Send the request form-encoded (application/x-www-form-urlencoded or "
                                     "multipart/form-data)."))
    return await _multipart(request, tr, client, limits)


async def _multipart(request: web.Request, tr: Translator, client: Open311Client | None,
                     limits: CaseLimits) -> tuple[dict[str, str], list[Upload], Open311Client]:
    """A multipart body's fields and files, the key checked as soon as its field arrives (see :func:`_form`)."""
    fields: dict[str, str] = {}
    uploads: list[Upload] = []
    total = count = 0
    async for part in await request.multipart():
        count += 1
        if count > MAX_FIELDS + limits.max_attachments:
            raise Open311Error(413, tr._("The request has too many fields."))
        if not isinstance(part, BodyPartReader) or not part.name:
            continue
        if part.filename is None:
            raw = await _read_capped(part, FIELD_LIMIT)
            if raw is None:
                raise Open311Error(400, tr._("A form field is too long."))
            total += len(raw)
            if total > FIELDS_TOTAL:
                raise Open311Error(413, tr._("The request is too large."))
            fields[part.name] = raw.decode("utf-8")
            if part.name == "api_key" and client is None:  # checked at once: a wrong key reads no further
                client = await _client(request, fields["api_key"], tr)
            continue
        if client is None:  # GeoReport v2 sends the key as a field: it must come before the files
            raise Open311Error(403, tr._("Send api_key before the files (or in the query string)."))
        uploads.append(Upload(content=await _upload_content(part, tr, count=len(uploads), limits=limits),
                              file_name=part.filename))
    return fields, uploads, client or await _client(request, "", tr)


async def _upload_content(part: BodyPartReader, tr: Translator, *, count: int, limits: CaseLimits) -> bytes:
    """A file part's bytes, refused as soon as it passes the chat's count or size limits."""
    try:
        check_before_download(declared_size=None, count=count, limits=limits)
        content = await _read_capped(part, limits.max_attachment_bytes)
        check_before_download(declared_size=limits.max_attachment_bytes + 1 if content is None else None,
                              count=count, limits=limits)
    except AttachmentRefused as exc:
        raise Open311Error(400, exc.render(tr)) from None
    assert content is not None
    return content


@routes.post(ROOT + "/requests.{fmt:xml|json}")
@open311_endpoint
async def create_request(request: web.Request) -> web.Response:
    """POST requests: file a representação or a ride-hailing report in the jurisdiction, for a client's user.

    The service must be one of the jurisdiction's (its municipality's laws); the case is filed under that
    municipality, so it lands in that municipality's staff queue.
    """
    tr = reader(request)
    early = _key_outside_the_body(request)
    client = await _client(request, early, tr) if early else None  # a wrong key reads no byte of the body
    try:
        fields, uploads, client = await _form(request, tr, client)
    except UnicodeDecodeError:
        raise Open311Error(400, tr._("The request is not UTF-8: send the form in UTF-8.")) from None
    except ValueError:
        raise Open311Error(400, tr._("The form could not be read.")) from None
    place = jurisdiction_of(request, fields.get("jurisdiction_id") or request.query.get("jurisdiction_id"))
    settings = settings_of(request).for_municipality(place.id)
    if not fields.get("service_code"):
        raise Open311Error(400, tr._("service_code is required."))
    service = service_or_404(fields["service_code"], request, place)
    attributes = {key[len("attribute["):-1]: value for key, value in fields.items()
                  if key.startswith("attribute[") and key.endswith("]")}
    posted = PostedRequest(
        description=fields.get("description", ""),
        attributes=attributes,
        lat=fields.get("lat"),
        long=fields.get("long"),
        address_string=fields.get("address_string"),
        address_id=fields.get("address_id"),
        media_url=fields.get("media_url"),
        # GeoReport v2 makes each optional; FixMyStreet adds phone for a user who signed up by phone
        account=fields.get("account_id") or fields.get("email") or fields.get("device_id") or fields.get("phone"),
        service_name=service_entry(translator(DEFAULT_LOCALE, settings.timezone), service)["service_name"],
        name=" ".join(part for part in (fields.get("first_name", "").strip(), fields.get("last_name", "").strip())
                      if part) or None,
        uploads=tuple(uploads),
    )
    async with sessions_of(request)() as session:
        try:
            filed = await post_request(session=session, client=client, service=service, request=posted,
                                       now=utcnow(), city=city_of(request, place.id), cities=cities_of_request(request),
                                       posts_per_hour=settings.open311_posts_per_hour)
        except PlaceOutside as exc:  # the fields it is about, named (issue 20 §3)
            raise Open311Error(400, f"lat, long: {exc.render(tr)}") from None
        except InvalidInput as exc:
            raise Open311Error(400, exc.render(tr)) from None
        except TooManyPosts as exc:
            raise Open311Error(429, tr._("This key has sent {n} requests in the last hour, the most allowed: try "
                                         "again later.").format(n=exc.limit)) from None
    notice = tr._("Received with protocol {protocol}. The city hall answers by {day}.").format(
        protocol=filed.protocol, day=tr.date(filed.due_on))
    # account_id is optional in the answer and never echoed: who the person is stays a hash (README, Open311)
    body = [{"service_request_id": filed.protocol, "service_notice": notice, "account_id": None}]
    return answer(fmt_of(request), "service_requests", "request", body, status=201)


@routes.get(ROOT + "/requests/{id}/receipt.pdf")
@open311_endpoint
async def receipt(request: web.Request) -> web.Response:
    """The filing receipt (the chat's PDF), for the client system that filed the case only (``api_key``)."""
    tr = reader(request)
    client = await _client(request, request.query.get("api_key", ""), tr)
    assert client.id is not None
    place = jurisdiction_of(request)
    protocol = normalize_protocol(request.match_info["id"]) or ""
    async with sessions_of(request)() as session:
        filed = await filed_by_client(session=session, client_id=client.id, protocol=protocol,
                                      municipality=place.id)
    if filed is None:
        raise Open311Error(404, tr._("No service request {id}.").format(id=request.match_info["id"][:40]))
    pdf = await signed_receipt(filed, tr=tr, cities=cities_of_request(request),
                               timestamping=Timestamping.of(settings_of(request)),
                               follow=tr._("Follow this case with GET requests/{id} of Open311, or in the system you "
                                           "used to file it.").format(id=filed.protocol))
    return web.Response(body=pdf, content_type="application/pdf", headers={
        "Content-Disposition": f'inline; filename="{filed.protocol}.pdf"', "Cache-Control": "private, no-store"})


@routes.get(ROOT + "/servicerequestupdates.{fmt:xml|json}")
@open311_endpoint
async def updates(request: web.Request) -> web.Response:
    """MySociety's servicerequestupdates: each step of the jurisdiction's cases in [start_date, end_date] (api_key)."""
    settings = settings_of(request)
    tr = reader(request)
    await _client(request, request.query.get("api_key", ""), tr)
    place = jurisdiction_of(request)
    start, end = date_range(request.query, tr, utcnow())
    async with sessions_of(request)() as session:
        found = await public_updates(session=session, municipality=place.id, start=start, end=end)
    body = [
        {
            "update_id": str(item.update_id),
            "service_request_id": item.service_request_id,
            "status": item.status,
            "updated_datetime": w3c(item.updated_at, settings.tz),
            "description": tr._(item.status_note),
            "media_url": None,
        }
        for item in found
    ]
    # mySociety's spec: <service_request_updates><request_update>…
    return answer(fmt_of(request), "service_request_updates", "request_update", body)


@routes.route("*", ROOT + "/{tail:.*}")
@open311_endpoint
async def unknown(request: web.Request) -> web.Response:
    """Any other path under /open311/v2/: the spec's 404 (XML unless the path ends in .json)."""
    raise Open311Error(404, reader(request)._("No such Open311 resource."))
