"""Staff credentials: each staff member's own personal API tokens (only their SHA-256 is kept)

Revision ID: 0011_trust_identity
Revises: 0009
Create Date: 2026-12-01 22:45:00

A new table; nothing existing changes.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.columns

revision: str = '0011_trust_identity'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('staff_api_token',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('token_sha256', sa.String(length=64), nullable=False),
    sa.Column('telegram_user_id', sa.BigInteger(), nullable=False),
    sa.Column('label', sa.String(length=64), nullable=False),
    sa.Column('created_at', models.columns.UTCDateTime(), nullable=False),
    sa.Column('last_used_at', models.columns.UTCDateTime(), nullable=True),
    sa.Column('revoked_at', models.columns.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_sha256')
    )
    with op.batch_alter_table('staff_api_token', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_staff_api_token_telegram_user_id'), ['telegram_user_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('staff_api_token', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_staff_api_token_telegram_user_id'))
    op.drop_table('staff_api_token')
