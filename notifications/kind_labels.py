"""What each kind of message Balcão sends is called, for a person reading what was sent to them (/meusdados).

The kinds are code words (``notice.delivery``); people read these names. A test checks that every registered
kind (:data:`notifications.rendering.KINDS`) has one.
"""

from __future__ import annotations

from core.i18n import N_
from models.cases.timeline import CITIZEN_UPDATE, STAFF_NOTICE
from models.outbox import OutboxStatus
from notifications.broadcasts import BROADCAST_KIND, REPORT_KIND
from notifications.chat_replies import CHAT_REPLY
from notifications.driver_reminders import (
    INSPECTION,
    LINK_MOVED,
    OBLIGATION,
    RENEWAL,
    SUSPENSION_END,
    VEHICLE_AGE,
)
from notifications.notice_messages import DECISION, DECISION_WARNING, DELIVERY, LIMIT_WARNING, REMINDER, TACIT
from notifications.platform_lists import LATE_LIST

KIND_LABELS: dict[str, str] = {
    CITIZEN_UPDATE: N_("News about your case"),
    STAFF_NOTICE: N_("A case for the staff"),
    BROADCAST_KIND: N_("A notice from the city hall"),
    REPORT_KIND: N_("How a notice was delivered"),
    CHAT_REPLY: N_("An answer in the chat, sent again"),
    RENEWAL: N_("Authorization renewal reminder"),
    INSPECTION: N_("Vehicle inspection reminder"),
    OBLIGATION: N_("Something to do for your authorization"),
    VEHICLE_AGE: N_("Vehicle age limit reminder"),
    SUSPENSION_END: N_("End of a suspension"),
    LINK_MOVED: N_("Your registration was linked to another chat"),
    DELIVERY: N_("A penalty notice delivered to you"),
    DECISION: N_("A decision on your notice"),
    TACIT: N_("Ciência recorded because the notice was not opened"),
    REMINDER: N_("Deadline reminder of a notice"),
    LIMIT_WARNING: N_("A notice near its legal limit"),
    DECISION_WARNING: N_("A decision near its deadline"),
    LATE_LIST: N_("List of late drivers for a platform"),
}

STATUS_LABELS: dict[OutboxStatus, str] = {
    OutboxStatus.PENDING: N_("Waiting to be sent"),
    OutboxStatus.SENDING: N_("Being sent"),
    OutboxStatus.SENT: N_("Sent"),
    OutboxStatus.FAILED: N_("Failed"),
    OutboxStatus.UNREACHABLE: N_("Unreachable"),
    OutboxStatus.CANCELLED: N_("Cancelled"),
}
