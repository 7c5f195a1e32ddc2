"""The broadcast audience "citizens who follow a topic": the authors of open cases about it.

A citizen follows what they reported while their case is open. The topic of a broadcast is one of:

- a kind of case: ``representacao``, ``aplicativo`` (ride-hailing reports) or ``ouvidoria``;
- a table of the Código de Posturas, as ``CP-<table>`` (``CP-I`` is street cleanliness: everyone who reported
  rubbish thrown in the street hears that the collection days changed);
- a protocol number (``REP-2026-000123``): the author of that case, open or not.

People who asked for their data to be erased (LGPD) are left out: a broadcast is not a legal obligation.

The authors of ombudsman cases whose identity is restricted are never reached, by kind or by protocol: those cases
and their authors are the Ombudsman's alone and, to the clerk who broadcasts, do not exist (L13460 Art. 10
§7; :func:`models.cases.access.reading`). Otherwise a clerk could write, in the city hall's name, to the one person
behind a protocol (``OUV-…``) they may not read, and learn from the count that it exists (LEGAL-CHOICES item 79).
"""

from __future__ import annotations

import datetime as dt
import re

from sqlalchemy import and_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from models.cases.protocol import normalize_protocol
from models.cases.tables import FINAL_STATUSES, Case, CaseAuthor, CaseKind
from models.people import Person
from notifications.audiences import AudienceParams, audience

TOPIC_KINDS: dict[str, CaseKind] = {
    "representacao": CaseKind.REPRESENTATION,
    "aplicativo": CaseKind.RIDE_HAILING,
    "ouvidoria": CaseKind.OMBUDSMAN,
}
_CP_TABLE = re.compile(r"CP-([IVXLC]+)", flags=re.IGNORECASE)


class UnknownTopic(ValueError):
    """The topic is not a kind of case, a Código de Posturas table or a protocol number."""


@audience(
    "citizens",
    label=N_("Citizens following a topic (authors of open cases on it)"),
    takes_topic=True,
)
async def citizens_following(*, session: AsyncSession, now: dt.datetime, params: AudienceParams) -> list[int]:
    """Person ids of the authors of open cases on the topic (or of the case with that protocol).

    Raises:
        UnknownTopic: the topic is missing or not understood.
    """
    topic = (params.topic or "").strip()
    statement = (
        select(CaseAuthor.person_id)
        .join(Case, col(Case.id) == CaseAuthor.case_id)
        .join(Person, col(Person.id) == CaseAuthor.person_id)
        .where(col(Person.erased_at).is_(None))
        # L13460 Art. 10 §7: a restricted author is the Ombudsman's alone, never a broadcast's recipient
        .where(~and_(col(Case.kind) == CaseKind.OMBUDSMAN, col(Case.identity_restricted).is_(True)))
    )
    protocol = normalize_protocol(topic)
    table = _CP_TABLE.fullmatch(topic)
    if protocol is not None:
        statement = statement.where(Case.protocol == protocol)
    elif topic.lower() in TOPIC_KINDS:
        statement = statement.where(Case.kind == TOPIC_KINDS[topic.lower()])
    elif table is not None:
        statement = statement.where(col(Case.infraction_code).startswith(f"CP-{table.group(1).upper()}-"))
    else:
        raise UnknownTopic(
            f"unknown topic {topic!r}: use representacao, aplicativo, ouvidoria, CP-<table> or a protocol number"
        )
    if protocol is None:
        statement = statement.where(col(Case.status).not_in([s.value for s in FINAL_STATUSES]))
    return sorted({int(person_id) for person_id in (await session.exec(statement)).all() if person_id is not None})
