"""The Open311 services: one per Código de Posturas table a citizen can report, and the ride-hailing report.

A service is what a citizen can file in the chat's /representacao, said the GeoReport v2 way: the code, the
name and the group come from the law's own catalogue (:mod:`models.rulebooks.catalogue`), and the attributes are
what the law asks of the author (CP Art. 31: name, profession and address; how they learned of
it; the sole-paragraph declaration) — the same elements :func:`models.cases.filing.check_representation` checks.
Ombudsman cases (Lei 13.460/2017) are not Open311 services: they are not reports about a place.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from core.i18n import N_
from models.cases.catalogue_search import SYNONYMS, search_infractions
from models.cases.filing import RIDE_HAILING_REASONS
from models.cases.tables import CaseKind, Relation
from models.rulebooks.catalogue import CP, L1533, RulebookId, load_infractions

RIDE_HAILING_CODE = "L1533-APP"
"""The service code of the report about a ride-hailing driver (Lei 1.533/2020 Art. 7, 13, 14)."""
CP_OTHER_CODE = "CP"
"""The service of a representação that names no table (the chat's "none of these")."""
CP_PREFIX = "CP-"


@dataclass(frozen=True, slots=True)
class Value:
    """One choice of a list attribute: ``key`` is sent back, ``name`` is shown (a msgid unless ``law_text``)."""

    key: str
    name: str
    law_text: bool = False


@dataclass(frozen=True, slots=True)
class Attribute:
    """A service attribute (GeoReport v2 service definition); ``description`` is an English msgid."""

    code: str
    datatype: str  # string, number, datetime, text, singlevaluelist, multivaluelist
    required: bool
    order: int
    description: str
    values: tuple[Value, ...] = ()
    datatype_description: str = ""


@dataclass(frozen=True, slots=True)
class Service:
    """One Open311 service.

    Attributes:
        code: ``CP-<tabela>`` or :data:`RIDE_HAILING_CODE`.
        kind: the case kind a request files.
        name: the name (the law's table title for the Código de Posturas — data, not translated).
        description: the chapter of the law it covers (law text), or a msgid for the ride-hailing report.
        group: the law's Título (law text) or a msgid.
        keywords: everyday words that lead to it (the chat's keyword search).
        table: the Código de Posturas table (``VII``), None for the ride-hailing report.
        law_text: whether name, description and group are law text (kept in Portuguese) or msgids.
    """

    code: str
    kind: CaseKind
    name: str
    description: str
    group: str
    keywords: tuple[str, ...]
    table: str | None
    law_text: bool


AUTHOR_ATTRIBUTES: tuple[Attribute, ...] = (
    # Código de Posturas (Lei 1.101/2004) Art. 31: the author's legible name, profession and address.
    Attribute("author_name", "string", True, 1, N_("Your full name (Código de Posturas, Art. 31)")),
    Attribute("author_profession", "string", True, 2, N_("Your profession (Código de Posturas, Art. 31)")),
    Attribute("author_address", "string", True, 3, N_("Your address (Código de Posturas, Art. 31)")),
    Attribute("author_cpf", "string", False, 4, N_("Your CPF (optional; 11 digits)")),
)
RELATION_VALUES: tuple[Value, ...] = (
    Value(Relation.NONE.value, N_("I have no tie to the person or business I report")),
    Value(Relation.FORMER.value, N_("I was their partner, director, agent or employee, and left")),
    Value(Relation.CURRENT.value, N_("I am their partner, director, agent or employee")),
)


def _representation_attributes(table: str | None) -> tuple[Attribute, ...]:
    items = tuple(
        Value(row.code, row.description, law_text=True) for row in load_infractions(CP) if row.table == table
    )
    which = (Attribute("infraction", "singlevaluelist", False, 5, N_("Which rule was broken (optional)"), items),)
    return (
        *AUTHOR_ATTRIBUTES,
        *(which if items else ()),
        Attribute("accused", "string", False, 6, N_("Who is responsible: a business, a person (optional)")),
        Attribute("occurred_on", "datetime", True, 7, N_("When it happened")),
        # CP Art. 31: "indicando … como tomou conhecimento".
        Attribute("learned_how", "string", True, 8, N_("How you learned of it (Código de Posturas, Art. 31)")),
        # CP Art. 31 sole paragraph: a former partner, director, agent or employee may not report facts from
        # before they left.
        Attribute("relation", "singlevaluelist", True, 9,
                  N_("Your tie to whom you report (Código de Posturas, Art. 31, sole paragraph)"), RELATION_VALUES),
        Attribute("relation_ended_on", "datetime", False, 10,
                  N_("When you left (required if you were their partner, director, agent or employee)")),
        Attribute("evidence_note", "text", False, 11,
                  N_("Where the evidence can be found, without a photo or file (Código de Posturas, Art. 31; if "
                     "none is sent, the city hall asks for it)")),
    )


RIDE_HAILING_ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute("author_name", "string", True, 1, N_("Your full name")),
    Attribute("vehicle", "string", True, 2,
              N_("The car's plate (ABC1D23 or ABC-1234) or the authorization number on its sticker")),
    Attribute("reason", "singlevaluelist", True, 3, N_("What the driver did (Lei 1.533/2020)"),
              tuple(Value(reason.key, reason.label) for reason in RIDE_HAILING_REASONS)),
    Attribute("occurred_on", "datetime", True, 4, N_("When it happened")),
    Attribute("evidence_note", "text", False, 5, N_("Where the evidence can be found (optional)")),
)


def _group(chapter: str) -> str:
    """``Título IV (Da Higiene Pública), Capítulo II – …`` → ``Código de Posturas, Título IV``."""
    title = chapter.split(",", 1)[0].split("(", 1)[0].strip()
    return f"Código de Posturas, {title}"


@cache
def _cp_services() -> tuple[Service, ...]:
    rows = load_infractions(CP)
    tables: dict[str, list[str]] = {}
    services = []
    for row in rows:
        assert row.table is not None
        tables.setdefault(row.table, []).append(row.code)
    # an everyday word is a keyword of the tables the chat's search finds for it
    found_in = {word: {row.table for row in search_infractions(word, rulebooks=[CP], limit=6)} for word in SYNONYMS}
    for table in tables:
        first = next(row for row in rows if row.table == table)
        keywords = tuple(word for word, found in found_in.items() if table in found)
        services.append(
            Service(
                code=f"{CP_PREFIX}{table}",
                kind=CaseKind.REPRESENTATION,
                name=(first.table_title or "").capitalize(),
                description=f"Lei nº 1.101/2004 (Código de Posturas), {first.chapter}",
                group=_group(first.chapter or ""),
                keywords=keywords,
                table=table,
                law_text=True,
            )
        )
    services.append(CP_OTHER_SERVICE)
    return tuple(services)


CP_OTHER_SERVICE = Service(
    code=CP_OTHER_CODE,
    kind=CaseKind.REPRESENTATION,
    name=N_("Another breach of the Código de Posturas"),
    description=N_("Anything else the Código de Posturas forbids (Lei 1.101/2004, Art. 30 to 32)"),
    group="Código de Posturas",
    keywords=(),
    table=None,
    law_text=False,
)


RIDE_HAILING_SERVICE = Service(
    code=RIDE_HAILING_CODE,
    kind=CaseKind.RIDE_HAILING,
    name=N_("Ride-hailing driver"),
    description=N_("A ride-hailing driver who picked up passengers on the street, waited at a taxi rank, behaved "
                   "badly or had no sticker (Lei 1.533/2020, Art. 7, 13 and 14)"),
    group=N_("Ride-hailing (Lei 1.533/2020)"),
    keywords=("aplicativo", "motorista", "uber", "carro"),
    table=None,
    law_text=False,
)


def services_in_force(rulebooks: list[RulebookId] | tuple[RulebookId, ...]) -> tuple[Service, ...]:
    """The services of the rulebooks a deployment enables, Código de Posturas tables first."""
    found: list[Service] = []
    if CP in rulebooks:
        found.extend(_cp_services())
    if L1533 in rulebooks:
        found.append(RIDE_HAILING_SERVICE)
    return tuple(found)


def find_service(code: str, rulebooks: list[RulebookId] | tuple[RulebookId, ...]) -> Service | None:
    """The service with this code among those in force, or None."""
    return next((service for service in services_in_force(rulebooks) if service.code == code), None)


def service_attributes(service: Service) -> tuple[Attribute, ...]:
    """The attributes a request for ``service`` carries (``attribute[code]``), in order."""
    if service.kind is CaseKind.RIDE_HAILING:
        return RIDE_HAILING_ATTRIBUTES
    return _representation_attributes(service.table)


def service_of_case(*, kind: CaseKind, infraction_code: str | None) -> str:
    """The service code of a case (a representação without a catalogue row: :data:`CP_OTHER_CODE`)."""
    if kind is CaseKind.RIDE_HAILING:
        return RIDE_HAILING_CODE
    if infraction_code and infraction_code.startswith(CP_PREFIX):
        return infraction_code.rsplit("-", 1)[0]
    return CP_OTHER_CODE
