"""transparency log: one RFC 9162 Merkle log over notices and the audit log (issue 10, item 12)

Creates the log's tables and backfills them: one leaf for every existing row of every covered table (notices,
deliveries, filings, attachments, opt-ins, notice events, audit events), table by table in id order, so an
upgraded database verifies at once. The head is signed when the upgrade runs with BALCAO_LOG_SIGNING_KEY_FILE
set (``python -m bot db upgrade`` installs it). The per-notice hash chain of ``notice_event`` (prev_hash, hash)
is superseded by the log and dropped; downgrading restores the columns with zeros (the old chain cannot be
rebuilt from the log, so the old ``notice verify`` would then report every chain as broken).

Revision ID: 0005
Revises: 0004
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.columns
from models.tlog.appending import backfill

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('tlog_entry',
    sa.Column('idx', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('tbl', sa.String(length=32), nullable=False),
    sa.Column('row_id', sa.BigInteger(), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.Column('leaf_hash', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('idx')
    )
    with op.batch_alter_table('tlog_entry', schema=None) as batch_op:
        batch_op.create_index('ix_tlog_entry_row', ['tbl', 'row_id', 'idx'], unique=False)
    op.create_table('tlog_node',
    sa.Column('level', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('idx', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('hash', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('level', 'idx')
    )
    op.create_table('tlog_state',
    sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('root', sa.LargeBinary(), nullable=False),
    sa.Column('edge', sa.Text(), nullable=False),
    sa.Column('timestamp', sa.BigInteger(), nullable=False),
    sa.Column('key_id', sa.String(length=64), nullable=True),
    sa.Column('signature', sa.LargeBinary(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('tlog_published',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('day', sa.Date(), nullable=True),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('root', sa.LargeBinary(), nullable=False),
    sa.Column('timestamp', sa.BigInteger(), nullable=False),
    sa.Column('key_id', sa.String(length=64), nullable=False),
    sa.Column('signature', sa.LargeBinary(), nullable=False),
    sa.Column('tsa_token', sa.LargeBinary(), nullable=True),
    sa.Column('published_at', models.columns.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('day')
    )
    with op.batch_alter_table('notice_event', schema=None) as batch_op:
        batch_op.drop_column('hash')
        batch_op.drop_column('prev_hash')
    backfill(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table('notice_event', schema=None) as batch_op:
        batch_op.add_column(sa.Column('prev_hash', sa.String(length=64), nullable=False, server_default='0' * 64))
        batch_op.add_column(sa.Column('hash', sa.String(length=64), nullable=False, server_default='0' * 64))
    op.drop_table('tlog_published')
    op.drop_table('tlog_state')
    op.drop_table('tlog_node')
    with op.batch_alter_table('tlog_entry', schema=None) as batch_op:
        batch_op.drop_index('ix_tlog_entry_row')
    op.drop_table('tlog_entry')
