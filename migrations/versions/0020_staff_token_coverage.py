"""The transparency log covers personal staff API tokens: a credential inserted behind the application's back shows

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02 03:00:00

Issue 23 §1–2 (the second pentest): a personal token proves who acts through the staff API, the Ombudsman
included (L13460 Art. 10 §7). With database write access, a token hash inserted for the real Ombudsman would have
let its holder act "with identity proven" and left no trace in the log. The table's columns with that effect
(the hash, the holder, when it was issued and revoked) are now covered; the existing rows get their first leaf.
No column changes.
"""
from collections.abc import Sequence

from alembic import op

from models.tlog.appending import backfill

revision: str = '0020'
down_revision: str | None = '0019'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    backfill(op.get_bind())


def downgrade() -> None:
    """Nothing to undo: no column changed, and the leaves stay (a log only grows)."""
