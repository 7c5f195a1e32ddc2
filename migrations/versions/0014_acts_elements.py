"""notice: the provision infringed, the issuing authority and the platform addressee

- ``infringed_provision``: the provision the conduct infringes, apart from the penalty article (CP Art. 25 III,
  34 III; L9784 Art. 26 §1 VI). Existing notices keep NULL: they were issued without it and stay as issued.
- ``issuer_authority``: the Prefeitura that issued the act, recorded on it so ``/verificar`` keeps its heading after
  the municipality leaves the file. Existing notices keep NULL (their elements digest must not change); their
  heading comes from their ``municipality`` row, which is kept, marked not served, when the file drops it.
- ``platform_name``: the technology platform the Lei 1.533 notice also goes to (L1533 Art. 22), and the table
  ``notice_platform_delivery`` that tracks its copy's delivery beside the driver's.

Revision ID: acts_elements
Revises: 0009
Create Date: 2026-12-01 23:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from models.columns import UTCDateTime
from models.tlog.appending import backfill

revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('notice') as batch:
        batch.add_column(sa.Column('infringed_provision', sa.String(length=200), nullable=True))
        batch.add_column(sa.Column('issuer_authority', sa.String(length=160), nullable=True))
        batch.add_column(sa.Column('platform_name', sa.String(length=160), nullable=True))
    op.create_table(
        'notice_platform_delivery',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('notice_id', sa.Integer(), nullable=False),
        sa.Column('platform_name', sa.String(length=160), nullable=False),
        sa.Column('means', sa.Enum('DIRECT', 'POSTAL', 'ELECTRONIC', 'EDITAL', name='platformmeans',
                                   native_enum=False, length=16), nullable=True),
        sa.Column('delivered_on', sa.Date(), nullable=True),
        sa.Column('recorded_by', sa.String(length=64), nullable=True),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['notice_id'], ['notice.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_notice_platform_delivery_notice_id', 'notice_platform_delivery', ['notice_id'])
    backfill(op.get_bind())  # the covered notice rows get their leaf with the new (empty) columns


def downgrade() -> None:
    op.drop_index('ix_notice_platform_delivery_notice_id', table_name='notice_platform_delivery')
    op.drop_table('notice_platform_delivery')
    with op.batch_alter_table('notice') as batch:
        batch.drop_column('platform_name')
        batch.drop_column('issuer_authority')
        batch.drop_column('infringed_provision')
