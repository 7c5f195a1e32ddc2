"""Names of kinds, statuses, steps and types of case, as English msgids (the chat and messages translate them)."""

from __future__ import annotations

from core.i18n import N_
from models.cases.tables import CaseKind, CaseStatus, EventKind, OmbudsmanType, Outcome, Relation, Satisfaction

KIND_LABELS: dict[CaseKind, str] = {
    CaseKind.REPRESENTATION: N_("Representation (Código de Posturas)"),
    CaseKind.RIDE_HAILING: N_("Report about a ride-hailing driver"),
    CaseKind.OMBUDSMAN: N_("Ombudsman case"),
}

STATUS_LABELS: dict[CaseStatus, str] = {
    CaseStatus.RECEIVED: N_("Received, waiting in the queue"),
    CaseStatus.IN_PROGRESS: N_("Being handled"),
    CaseStatus.AWAITING_COMPLEMENT: N_("Waiting for more information from you"),
    CaseStatus.ANSWERED: N_("Answered"),
    CaseStatus.NOTIFIED: N_("Checked: the offender will be notified"),
    CaseStatus.AUTO_ISSUED: N_("Checked: an infraction report was drawn up"),
    CaseStatus.ARCHIVED: N_("Archived"),
}

EVENT_LABELS: dict[EventKind, str] = {
    EventKind.FILED: N_("Filed"),
    EventKind.ASSIGNED: N_("Assigned to a staff member"),
    EventKind.COMPLEMENT_REQUESTED: N_("More information asked for"),
    EventKind.COMPLEMENT_ANSWERED: N_("Information sent"),
    EventKind.EXTENDED: N_("Deadline extended"),
    EventKind.DECIDED: N_("Decided"),
    EventKind.ANSWERED: N_("Answered"),
    EventKind.ARCHIVED: N_("Archived"),
    EventKind.RATED: N_("Service rated"),
    EventKind.RATING_EXPLAINED: N_("Reason for the rating"),
}

OMBUDSMAN_TYPE_LABELS: dict[OmbudsmanType, str] = {
    OmbudsmanType.COMPLAINT: N_("Complaint"),
    OmbudsmanType.REPORT: N_("Report of wrongdoing"),
    OmbudsmanType.SUGGESTION: N_("Suggestion"),
    OmbudsmanType.PRAISE: N_("Praise"),
    OmbudsmanType.REQUEST: N_("Request for a service"),
}

OMBUDSMAN_TYPE_HELP: dict[OmbudsmanType, str] = {
    OmbudsmanType.COMPLAINT: N_("a public service was poor or not provided"),
    OmbudsmanType.REPORT: N_("an irregular act by the administration or a public employee"),
    OmbudsmanType.SUGGESTION: N_("an idea to improve a public service"),
    OmbudsmanType.PRAISE: N_("you were well served"),
    OmbudsmanType.REQUEST: N_("you need a service or an action from the city hall"),
}

SATISFACTION_LABELS: dict[Satisfaction, str] = {
    Satisfaction.SATISFIED: N_("Yes, satisfied"),
    Satisfaction.PARTLY: N_("Partly"),
    Satisfaction.UNSATISFIED: N_("No"),
}

OUTCOME_LABELS: dict[Outcome, str] = {  # the decision as its author reads it (CP Art. 32)
    Outcome.NOTIFY: N_("The person responsible will be notified"),
    Outcome.AUTO: N_("An infraction report was drawn up"),
    Outcome.ARCHIVE: N_("Archived"),
}

RELATION_LABELS: dict[Relation, str] = {  # CP Art. 31 sole paragraph
    Relation.NONE: N_("No relation"),
    Relation.FORMER: N_("Was a partner, director, agent or employee, and left"),
    Relation.CURRENT: N_("Is a partner, director, agent or employee"),
}
