"""The survey says why: the author's reason for a "Não" or "Em parte" on the case

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02 03:00:00

Issue 20 §3, L13460 Art. 23: after rating the answer "No" or "Partly", the author may say why. The column
is NULL on existing rows (rated, if at all, before a reason could be given): existing cases stay valid. The
transparency log covers it, so the rows get their new leaf.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from models.tlog.appending import backfill

revision: str = '0021'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('citizen_case') as batch:
        batch.add_column(sa.Column('satisfaction_reason', sa.Text(), nullable=True))
    backfill(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table('citizen_case') as batch:
        batch.drop_column('satisfaction_reason')
