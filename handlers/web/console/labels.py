"""Names the console shows staff (English msgids; the citizen-facing names live in models.cases.labels)."""

from __future__ import annotations

from bot.i18n import N_
from models.cases.tables import CaseKind, CaseStatus, Outcome

KIND_NAMES: dict[CaseKind, str] = {
    CaseKind.REPRESENTATION: N_("Representation"),
    CaseKind.RIDE_HAILING: N_("Ride-hailing report"),
    CaseKind.OMBUDSMAN: N_("Ombudsman"),
}
STATUS_NAMES: dict[CaseStatus, str] = {
    CaseStatus.RECEIVED: N_("New"),
    CaseStatus.IN_PROGRESS: N_("In progress"),
    CaseStatus.AWAITING_COMPLEMENT: N_("Waiting for the author"),
    CaseStatus.ANSWERED: N_("Answered"),
    CaseStatus.NOTIFIED: N_("Offender to be notified"),
    CaseStatus.AUTO_ISSUED: N_("Infraction report drawn up"),
    CaseStatus.ARCHIVED: N_("Archived"),
}
OUTCOME_NAMES: dict[Outcome, str] = {
    Outcome.NOTIFY: N_("Notify the offender (notificação preliminar)"),
    Outcome.AUTO: N_("Issue an infraction report (auto de infração)"),
    Outcome.ARCHIVE: N_("Archive, with a reason"),
}
