"""The pseudonymised case list of the open data, and the data dictionary of every published field.

A row holds the protocol, the service, the kind, a location rounded to 0.01° (about 1 km; the street address is
never published), the civil dates of receipt, deadline and answer, and the status. Never the author, anything
they wrote, the accused, or a staff member (LGPD Art. 6 III; L13460 Art. 10 §7).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from models.cases.public_place import rounded_coordinate
from models.cases.tables import FINAL_STATUSES, Case, CaseKind, CaseStatus
from models.open311.services import service_of_case
from models.open311.tables import Open311Submission
from models.transparency.figures import Period


@dataclass(frozen=True, slots=True)
class OpenCase:
    """One row of the public case list."""

    protocol: str
    service: str
    kind: CaseKind
    latitude: float | None
    longitude: float | None
    received_on: dt.date
    due_on: dt.date
    answered_on: dt.date | None
    status: CaseStatus

    @property
    def answered(self) -> bool:
        """Whether the case reached a final status."""
        return self.status in FINAL_STATUSES


async def open_cases(*, session: AsyncSession, municipality: str, period: Period) -> list[OpenCase]:
    """Every case of the municipality received in the period, pseudonymised, oldest first (one query)."""
    start, end = period.bounds()
    rows = await session.exec(
        select(Case, col(Open311Submission.service_code))
        .join(Open311Submission, col(Open311Submission.case_id) == Case.id, isouter=True)
        .where(col(Case.municipality) == municipality, col(Case.received_at) >= start,
               col(Case.received_at) < end)
        .order_by(col(Case.received_at), col(Case.id))
    )
    found = []
    for case, service_code in rows.all():
        if case.kind is CaseKind.OMBUDSMAN:
            service = f"OUV-{case.ombudsman_type.value}" if case.ombudsman_type else "OUV"
        else:
            service = service_code or service_of_case(kind=case.kind, infraction_code=case.infraction_code)
        found.append(
            OpenCase(
                protocol=case.protocol,
                service=service,
                kind=case.kind,
                latitude=rounded_coordinate(case.latitude),
                longitude=rounded_coordinate(case.longitude),
                received_on=case.received_at.astimezone(period.tz).date(),
                due_on=case.due_on,
                answered_on=case.closed_at.astimezone(period.tz).date() if case.closed_at else None,
                status=case.status,
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class DictionaryEntry:
    """A published field: its name, type and meaning (an English msgid)."""

    dataset: str
    name: str
    type: str
    meaning: str


DICTIONARY: tuple[DictionaryEntry, ...] = (
    DictionaryEntry("casos", "protocolo", "text", N_("The case's protocol number (REP-, APP- or OUV-year-number).")),
    DictionaryEntry("casos", "servico", "text", N_("The service: a Código de Posturas table (CP-I to CP-XXVI, CP "
                                                   "when none was named), L1533-APP for ride-hailing reports, "
                                                   "OUV-<type> for ombudsman cases.")),
    DictionaryEntry("casos", "tipo", "text", N_("representation, ride_hailing or ombudsman.")),
    DictionaryEntry("casos", "latitude", "number", N_("Latitude rounded to 0.01 degree (about 1 km); empty when the "
                                                      "place was only described.")),
    DictionaryEntry("casos", "longitude", "number", N_("Longitude rounded to 0.01 degree (about 1 km).")),
    DictionaryEntry("casos", "recebido_em", "date", N_("Day the case was received (Cuiabá time).")),
    DictionaryEntry("casos", "prazo", "date", N_("The legal deadline (or the city's target) as it stands.")),
    DictionaryEntry("casos", "respondido_em", "date", N_("Day the case was answered or decided; empty while open.")),
    DictionaryEntry("casos", "situacao", "text", N_("received, in_progress, awaiting_complement, answered, "
                                                    "notified, auto_issued or archived.")),
    DictionaryEntry("casos", "tipo_descricao", "text", N_("The kind in words, in Portuguese (the code is in tipo).")),
    DictionaryEntry("casos", "situacao_descricao", "text", N_("The status in words, in Portuguese (the code is in "
                                                              "situacao).")),
    DictionaryEntry("indicadores", "indicador", "text", N_("The figure's name.")),
    DictionaryEntry("indicadores", "recorte", "text", N_("What the figure is counted over: a month (YYYY-MM), a "
                                                         "kind, a chapter, or empty for the whole period.")),
    DictionaryEntry("indicadores", "valor", "number", N_("The figure's value.")),
)
