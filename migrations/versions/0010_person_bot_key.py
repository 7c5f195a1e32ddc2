"""person.bot_key: the bot each person talks to (a municipality may have its own bot)

Revision ID: 0010
Revises: 0001
Create Date: 2026-12-01 10:10:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Everyone known before this release talked to the deployment's one bot: the default.
    with op.batch_alter_table('person') as batch:
        batch.add_column(sa.Column('bot_key', sa.String(length=64), nullable=False, server_default='default'))


def downgrade() -> None:
    with op.batch_alter_table('person') as batch:
        batch.drop_column('bot_key')
