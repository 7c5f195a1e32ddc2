"""Names of a notice's type, stage and delivery, as English msgids translated for the reader.

The type and stage are worded for the person notified (``/verificar``, ``/meusdados``); the delivery's for staff
(the console's exports), in the words the chat's and the console's screens already use.
"""

from __future__ import annotations

from core.i18n import N_
from models.notices.tables import (
    CienciaKind,
    DeliveryState,
    DocumentKind,
    FilingKind,
    NoticeOutcome,
    NoticeStage,
    NoticeType,
    StaffReason,
)

TYPE_LABELS: dict[NoticeType, str] = {
    NoticeType.PRELIMINAR: N_("Preliminary notice (notificação preliminar)"),  # CP Art. 24
    NoticeType.AUTO: N_("Infraction report (auto de infração)"),  # CP Art. 33; L1533 Art. 22
}
STAGE_LABELS: dict[NoticeStage, str] = {
    NoticeStage.AWAITING_CIENCIA: N_("Issued, being delivered"),
    NoticeStage.NOTIFIED: N_("Delivered; the deadline for a defence is running"),
    NoticeStage.UNDER_REVIEW: N_("Defence under review"),
    NoticeStage.DECIDED: N_("Decided at first instance; an appeal is possible"),
    NoticeStage.APPEALED: N_("Appeal under review"),
    NoticeStage.CLOSED: N_("Closed"),
}
OUTCOME_LABELS: dict[NoticeOutcome, str] = {
    NoticeOutcome.UPHELD: N_("Closed: the penalty stands"),
    NoticeOutcome.ANNULLED: N_("Closed: the notice was cancelled"),
}

DECISION_LABELS: dict[FilingKind, str] = {
    FilingKind.DEFESA: N_("Decision on the defence"),
    FilingKind.RECLAMACAO: N_("Decision on the complaint (reclamação)"),
    FilingKind.RECURSO: N_("Decision on the appeal"),
}
DOCUMENT_LABELS: dict[DocumentKind, str] = {
    DocumentKind.NOTICE: N_("The notice"),
    DocumentKind.DECISION: N_("A decision"),
}
DELIVERY_STATE_LABELS: dict[DeliveryState, str] = {
    DeliveryState.ELECTRONIC: N_("In the bot, waiting for the ciência"),
    DeliveryState.STAFF: N_("To deliver in person, by post or by edital"),  # CP Art. 36
    DeliveryState.EDITAL: N_("Edital published, its period running"),  # CP Art. 36 III
    DeliveryState.DONE: N_("Ciência recorded"),
}
STAFF_REASON_LABELS: dict[StaffReason, str] = {
    StaffReason.NO_PERSON: N_("nobody in the bot"),
    StaffReason.NO_OPTIN: N_("did not accept electronic notices"),
    StaffReason.UNREACHABLE: N_("unreachable in Telegram"),
    StaffReason.NOT_ACKNOWLEDGED: N_("did not confirm receipt in time"),
    StaffReason.OPTED_OUT: N_("stopped electronic notices"),
}
CIENCIA_LABELS: dict[CienciaKind, str] = {
    CienciaKind.EXPLICIT: N_("pressed Tomo ciência in the bot"),
    CienciaKind.TACIT: N_("tacit, the period in the bot ran out"),
    CienciaKind.PERSONAL: N_("in person"),  # CP Art. 36 I
    CienciaKind.POSTAL: N_("by post (AR)"),  # CP Art. 36 II
    CienciaKind.EDITAL: N_("by edital"),  # CP Art. 36 III
}
