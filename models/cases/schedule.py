"""When a case is due: the answer deadline, its single extension, and the citizen's time to complete it.

- Ombudsman cases: a conclusive answer within 30 days of receipt, extendable once by 30 with a reason
  (L13460 Art. 16) — rules ``ouvidoria-13460-resposta`` and ``ouvidoria-13460-prorrogacao``.
- The citizen has 20 days to complete the information asked for (D9492 Art. 18) — rule
  ``ouvidoria-complementacao``. The same period is used when staff ask a representação's author for more.
- Representações and ride-hailing reports: the Código de Posturas says the authority acts "imediatamente"
  (Art. 32) and Lei 1.533/2020 sets no period, so the target is ``BALCAO_CASE_TARGET_DAYS`` calendar days,
  ending on a business day.

Counting (start day excluded, end moved off non-business days) is :func:`models.deadlines.compute_deadline`.
"""

from __future__ import annotations

import datetime as dt

from core.municipality import Municipality
from models.cases.tables import CaseKind
from models.deadlines import compute_deadline
from models.drivers.periods import office_calendar
from models.rulebooks.deadline_rules import DeadlineChoices

ANSWER_RULE = "ouvidoria-13460-resposta"
EXTENSION_RULE = "ouvidoria-13460-prorrogacao"
COMPLEMENT_RULE = "ouvidoria-complementacao"


def civil_date(moment: dt.datetime, city: Municipality) -> dt.date:
    """The date of a moment in the municipality's time zone."""
    return moment.astimezone(city.tz).date()


def _rule(rule_id: str, start: dt.date, city: Municipality) -> dt.date:
    return compute_deadline(
        rule_id=rule_id,
        start=start,
        calendar=office_calendar(city),
        choices=DeadlineChoices.of(city.readings),
    ).final_date


def first_due_on(*, kind: CaseKind, received_at: dt.datetime, city: Municipality) -> dt.date:
    """The deadline of a case counted from a moment of receipt (or of a restart after complementação)."""
    start = civil_date(received_at, city)
    if kind is CaseKind.OMBUDSMAN:
        return _rule(ANSWER_RULE, start, city)
    calendar = office_calendar(city)
    return calendar.roll_forward(start + dt.timedelta(days=city.readings.case_target_days))


def extended_due_on(*, due_on: dt.date, city: Municipality) -> dt.date:
    """The deadline after the single extension: 30 more days from the end of the first (L13460 Art. 16)."""
    return _rule(EXTENSION_RULE, due_on, city)


def complement_due_on(*, requested_at: dt.datetime, city: Municipality) -> dt.date:
    """The last day for the citizen to complete the information (20 days, D9492 Art. 18)."""
    return _rule(COMPLEMENT_RULE, civil_date(requested_at, city), city)
