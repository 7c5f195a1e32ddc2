"""A client that speaks to Balcão exactly as FixMyStreet's Open311 client does (``perllib/Open311.pm``).

Written from reading mySociety's module, not copied from it (the workplace keeps fetched code out of the
repository, and the module is AGPL-3.0): the same requests with the same form fields, and the answers read the way
``XML::Simple`` reads them.

- ``send_service_request``: POST ``requests.xml``, form-encoded, with ``jurisdiction_id`` and ``api_key`` first, then
  ``lat``, ``long``, ``email`` (empty for a user who signed up by phone), ``description`` (title, detail and the
  report's URL in one text), ``service_code``, ``first_name`` and ``last_name`` (the name split at its first space),
  ``phone`` when the user has one, ``media_url`` when the report has a photo, and ``attribute[…]`` for each extra
  field (``fms_extra_`` dropped). The answer's ``request → service_request_id`` is the id; a non-2xx answer is a
  failure (FixMyStreet keeps the report unsent and tries again later).
- ``get_service_requests``: GET ``requests.xml`` with ``service_request_id`` (comma list) and ``jurisdiction_id``.
- ``get_service_request_updates``: GET ``servicerequestupdates.xml``; its ``request_update`` elements, one or many.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree as ET

import requests


def xml_simple(body: bytes) -> Any:
    """An XML document as ``XML::Simple``'s ``XMLin`` gives it (no attributes here, as in GeoReport v2).

    The root element is dropped; an element holding only text is its text; an empty element is an empty hash
    (``{}``); an element with children is a hash of them, a name repeated becoming a list.
    """
    return _simple(ET.fromstring(body))


def _simple(element: ET.Element) -> Any:
    children = list(element)
    if not children:
        return element.text if element.text else {}
    found: dict[str, Any] = {}
    for child in children:
        value = _simple(child)
        if child.tag in found:
            if not isinstance(found[child.tag], list):
                found[child.tag] = [found[child.tag]]
            found[child.tag].append(value)
        else:
            found[child.tag] = value
    return found


@dataclass(frozen=True)
class User:
    """A FixMyStreet user: an email, or only a phone for someone who signed up by phone."""

    name: str
    email: str | None = None
    phone: str | None = None


@dataclass(frozen=True)
class Problem:
    """A FixMyStreet report: title and detail as typed, where, who, and its category's extra fields."""

    title: str
    detail: str
    latitude: float
    longitude: float
    user: User
    extra: tuple[tuple[str, str], ...] = ()  # (name, value); the name may carry FixMyStreet's "fms_extra_"


@dataclass
class FixMyStreet:
    """FixMyStreet's Open311 client for one body: its endpoint (ending in ``/``), jurisdiction and key.

    ``extended_description`` is on by default, as FixMyStreet sends it (title, detail and URL); off, the detail
    alone is the description, as some of its cobrands send it.
    """

    endpoint: str
    jurisdiction: str
    api_key: str
    extended_description: bool = True
    failures: list[tuple[int, str]] = field(default_factory=list)

    def send_service_request(self, problem: Problem, *, url: str, service_code: str,
                             image_url: str | None = None) -> str | int:
        """POST a report; its ``service_request_id``, or 0 when Balcão refused it (kept in :attr:`failures`)."""
        if self.extended_description:
            description = (f"title:  {problem.title}\n\ndetail: {problem.detail}\n\nurl: {url}\n\n"
                           "Submitted via FixMyStreet\n")
        else:
            description = problem.detail
        names = re.match(r"(\w+)\s+(.+)", problem.user.name)
        params: list[tuple[str, str]] = [
            ("jurisdiction_id", self.jurisdiction),
            ("api_key", self.api_key),
            ("lat", str(problem.latitude)),
            ("long", str(problem.longitude)),
            ("email", problem.user.email or ""),  # Perl's undef is sent as an empty value
            ("description", description),
            ("service_code", service_code),
            ("first_name", names.group(1) if names else ""),
            ("last_name", names.group(2) if names else ""),
        ]
        if problem.user.phone:
            params.append(("phone", problem.user.phone))
        if image_url:
            params.append(("media_url", image_url))
        params.extend((f"attribute[{name.removeprefix('fms_extra_')}]", value) for name, value in problem.extra)
        response = requests.post(self.endpoint + "requests.xml", data=params, timeout=30)
        if not response.ok:
            self.failures.append((response.status_code, self._error(response.content)))
            return 0
        request = xml_simple(response.content).get("request", {})
        return str(request["service_request_id"]) if request.get("service_request_id") else 0

    def get_service_requests(self, report_ids: list[str]) -> Any:
        """GET the requests with these ids, as ``XML::Simple`` reads them."""
        response = requests.get(self.endpoint + "requests.xml", timeout=30, params={
            "service_request_id": ",".join(report_ids), "jurisdiction_id": self.jurisdiction})
        response.raise_for_status()
        return xml_simple(response.content)

    def get_service_request_updates(self, **params: str) -> list[Any]:
        """GET the status updates (``api_key`` sent, as Balcão asks): always a list of ``request_update``."""
        response = requests.get(self.endpoint + "servicerequestupdates.xml", timeout=30, params={
            **params, "jurisdiction_id": self.jurisdiction, "api_key": self.api_key})
        response.raise_for_status()
        updates = xml_simple(response.content)
        found = updates.get("request_update") if isinstance(updates, dict) else None
        return found if isinstance(found, list) else [found]

    @staticmethod
    def _error(body: bytes) -> str:
        """The ``code: description`` lines of a GeoReport error, as FixMyStreet logs them."""
        try:
            errors = xml_simple(body).get("error", [])
        except ET.ParseError:
            return "unknown error"
        return "".join(f"{item['code']}: {item['description']}\n"
                       for item in (errors if isinstance(errors, list) else [errors])) or "unknown error"
