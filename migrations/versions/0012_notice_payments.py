"""notice_payment: the payment of a notice's fine (staff-recorded or imported from the bank's file)

Revision ID: 0011_pades_pay
Revises: 0009
Create Date: 2026-12-01 23:00:00

A new table; existing notices have no row and stay unpaid, as they are. Postgres gets the payment_source enum.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.columns

revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('notice_payment',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('notice_id', sa.Integer(), nullable=False),
    sa.Column('paid_on', sa.Date(), nullable=False),
    sa.Column('amount_cents', sa.Integer(), nullable=False),
    sa.Column('reference', sa.String(length=64), nullable=False),
    sa.Column('source', sa.Enum('STAFF', 'BANK_FILE', name='payment_source'), nullable=False),
    sa.Column('recorded_by', sa.String(length=64), nullable=False),
    sa.Column('recorded_at', models.columns.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['notice_id'], ['notice.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('notice_id'),
    sa.UniqueConstraint('reference')
    )


def downgrade() -> None:
    op.drop_table('notice_payment')
    sa.Enum(name='payment_source').drop(op.get_bind(), checkfirst=True)
