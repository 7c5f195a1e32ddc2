"""Names of a notice's type and stage as the person notified reads them (English msgids, translated by the reader).

Used where the public reads a notice: ``/verificar`` and the person's own data (``/meusdados``).
"""

from __future__ import annotations

from bot.i18n import N_
from models.notices.tables import NoticeOutcome, NoticeStage, NoticeType

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
