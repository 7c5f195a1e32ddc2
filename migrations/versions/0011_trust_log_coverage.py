"""The transparency log covers the cases, their events, evidence files and authors, staff roles, people, Open311
clients and the ride-hailing registry (issue 23, item 2): one leaf for every existing row of the newly covered
tables, so an upgraded database verifies at once and any later change to them is seen.

Revision ID: 0011
Revises: 0009
Create Date: 2026-12-01 23:00:00.000000
"""
from collections.abc import Sequence

from alembic import op

from models.tlog.appending import backfill

revision: str = '0011'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Only the rows without a leaf get one (every row of a newly covered table); nothing else changes.
    backfill(op.get_bind())


def downgrade() -> None:
    # Leaves are never removed: the log is append-only, and an older version simply stops reading them.
    pass
