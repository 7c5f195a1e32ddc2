"""draft.version and draft.asked: a step's save merges into the draft it answers, and a question known to be shown

Revision ID: 0011
Revises: 0009
Create Date: 2026-12-01 22:45:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0011'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A draft saved before this release was asked its question (it was sent right after the save): asked = true.
    with op.batch_alter_table('draft') as batch:
        batch.add_column(sa.Column('version', sa.Integer(), nullable=False, server_default='0'))
        batch.add_column(sa.Column('asked', sa.Boolean(), nullable=False, server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table('draft') as batch:
        batch.drop_column('asked')
        batch.drop_column('version')
