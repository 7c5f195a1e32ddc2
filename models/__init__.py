"""Domain: SQLModel tables and the rules of the laws as plain functions.

Importing this package registers every table on ``SQLModel.metadata`` (Alembic and the tests rely on it).
``models`` imports nothing from ``notifications``, ``handlers`` or ``bot`` (except the leaf modules
``core.settings`` and ``core.i18n``).
"""

from models import (  # noqa: F401  (register tables)
    audit,
    authorities,  # staff competences per kind of act (issue 18)
    broadcasts,  # staff broadcasts
    cases,  # citizens' cases
    console,  # the staff web console
    drafts,
    drivers,  # Lei 1.533/2020
    health,  # /healthz write probe
    municipalities,  # the municipality every row belongs to
    notices,  # penalty notices
    open311,  # Open311 GeoReport v2 clients and submissions
    outbox,
    payments,  # fines paid (CP Art. 34 IV)
    people,
    people_changes,  # writes of people's rows announced to every process (issue 21)
    reminders,  # reminder mutes
    seen_updates,  # webhook replays
    tlog,  # the transparency log over notices and the audit log
)
