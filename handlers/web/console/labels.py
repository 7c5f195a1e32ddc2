"""Names the console shows staff (English msgids; the citizen-facing names live in models.cases.labels)."""

from __future__ import annotations

from core.i18n import N_
from models.cases.tables import CaseKind, CaseStatus, Outcome
from models.drivers.status import StepCode
from models.notices.tables import CienciaKind
from models.people import Role

ROLE_NAMES: dict[str, str] = {
    Role.ADMIN.value: N_("Admin"),
    Role.CLERK.value: N_("Clerk"),
    Role.INSPECTOR.value: N_("Inspector"),
    Role.OMBUDSMAN.value: N_("Ombudsman (ouvidor)"),
}
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
STEP_NAMES: dict[StepCode, str] = {
    StepCode.CONTACT_OFFICE: N_("Must go to the office (revoked or cassada)"),
    StepCode.WAIT_SUSPENSION: N_("Waiting for the suspension to end"),
    StepCode.PRESENT_VEHICLE: N_("Present the vehicle for inspection"),
    StepCode.FIX_INSPECTION: N_("Fix the vehicle and present it again"),
    StepCode.ANNUAL_INSPECTION: N_("Yearly inspection"),
    StepCode.RENEW: N_("Renew: pay the fees before the validity ends"),
    StepCode.REPLACE_VEHICLE: N_("Replace the vehicle (age limit)"),
    StepCode.REPORT_CHANGES: N_("Report any change of registered data within 7 days"),
}
CIENCIA_NAMES: dict[CienciaKind, str] = {
    CienciaKind.EXPLICIT: N_("pressed Tomo ciência in the bot"),
    CienciaKind.TACIT: N_("tacit, the period in the bot ran out"),
    CienciaKind.PERSONAL: N_("in person"),
    CienciaKind.POSTAL: N_("by post (AR)"),
    CienciaKind.EDITAL: N_("by edital"),
}
