"""law readings: vista and diligência (CP Art. 40–42), no appeal deposit (STF SV 21), infraction date,
quantity, Art. 57 warning, recidivism source, payment days (L1533 Art. 13 XXIII), platform lists (Art. 5 IX)

Existing rows: notices get no infraction date (the drawing-up day stands in for it), no quantity, no warning,
no payment days (the notice keeps the deadlines it printed); filings lose the deposit they never needed.

Revision ID: 0003
Revises: 0010
Create Date: 2026-12-01 09:43:35.487221
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.columns

revision: str = '0003'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('platform',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=120), nullable=False),
    sa.Column('accredited_on', sa.Date(), nullable=False),
    sa.Column('created_at', models.columns.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('platform_list_receipt',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('platform_id', sa.Integer(), nullable=False),
    sa.Column('received_on', sa.Date(), nullable=False),
    sa.Column('recorded_by', sa.String(length=64), nullable=False),
    sa.Column('created_at', models.columns.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['platform_id'], ['platform.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('platform_id', 'received_on', name='uq_platform_list_day')
    )
    with op.batch_alter_table('platform_list_receipt', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_platform_list_receipt_platform_id'), ['platform_id'], unique=False)

    # Plain ADD COLUMN (and DROP COLUMN, SQLite >= 3.35), never a batch copy of the table: copying ``notice`` or
    # ``notice_filing`` drops the old table, which the rows of notice_delivery, notice_event… still reference.
    if op.get_bind().dialect.name == 'sqlite':  # SQLite takes a REFERENCES clause in ADD COLUMN, not a constraint
        op.execute('ALTER TABLE notice ADD COLUMN recidivism_of INTEGER REFERENCES notice (id)')
    else:
        op.add_column('notice', sa.Column('recidivism_of', sa.Integer(), nullable=True))
        op.create_foreign_key('fk_notice_recidivism_of', 'notice', 'notice', ['recidivism_of'], ['id'])
    op.add_column('notice', sa.Column('infraction_on', sa.Date(), nullable=True))
    op.add_column('notice', sa.Column('quantity', sa.String(length=16), nullable=True))
    op.add_column('notice', sa.Column('warning_only', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column('notice', sa.Column('payment_days', sa.Integer(), nullable=True))
    op.add_column('notice_filing', sa.Column('vista_first_on', sa.Date(), nullable=True))
    op.add_column('notice_filing', sa.Column('vista_second_on', sa.Date(), nullable=True))
    op.add_column('notice_filing', sa.Column('diligencia_at', models.columns.UTCDateTime(), nullable=True))
    op.add_column('notice_filing', sa.Column('diligencia_text', sa.Text(), nullable=True))
    op.add_column('notice_filing', sa.Column('diligencia_done_at', models.columns.UTCDateTime(), nullable=True))
    # STF Súmula Vinculante 21: no appeal waits for a deposit, so the column that recorded it goes.
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE notice_filing DROP COLUMN deposit_at')
    else:
        op.drop_column('notice_filing', 'deposit_at')



def downgrade() -> None:
    op.add_column('notice_filing', sa.Column('deposit_at', models.columns.UTCDateTime(), nullable=True))
    for column in ('diligencia_done_at', 'diligencia_text', 'diligencia_at', 'vista_second_on', 'vista_first_on'):
        _drop('notice_filing', column)
    if op.get_bind().dialect.name != 'sqlite':
        op.drop_constraint('fk_notice_recidivism_of', 'notice', type_='foreignkey')
    for column in ('payment_days', 'warning_only', 'quantity', 'infraction_on', 'recidivism_of'):
        _drop('notice', column)
    with op.batch_alter_table('platform_list_receipt', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_platform_list_receipt_platform_id'))
    op.drop_table('platform_list_receipt')
    op.drop_table('platform')


def _drop(table: str, column: str) -> None:
    if op.get_bind().dialect.name == 'sqlite':
        op.execute(f'ALTER TABLE {table} DROP COLUMN {column}')
    else:
        op.drop_column(table, column)
