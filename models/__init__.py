"""Domain: SQLModel tables and the rules of the laws as plain functions.

Importing this package registers every table on ``SQLModel.metadata`` (Alembic and the tests rely on it).
``models`` imports nothing from ``notifications``, ``handlers`` or ``bot`` (except the leaf modules
``bot.settings`` and ``bot.i18n``).
"""

from models import audit, drafts, outbox, people  # noqa: F401  (register tables)
from models import broadcasts, reminders  # noqa: F401  (staff broadcasts, reminder mutes)
from models import cases  # noqa: F401  (citizens' cases)
from models import notices  # noqa: F401  (penalty notices)
from models import drivers  # noqa: F401  (drivers, Lei 1.533/2020)
