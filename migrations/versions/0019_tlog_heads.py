"""Heads on a schedule: tlog_head keeps every signed head with its RFC 3161 token; entries say when they were integrated

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02 02:00:00

Issue 21 (the log's cost) and issue 23 §2 (an anchor outside the server). A commit now integrates its leaves and
the head job signs heads every BALCAO_TLOG_HEAD_INTERVAL seconds (models.tlog.signing). tlog_entry gets
integrated_at (NULL on existing entries: they are all in the current head, signed at their commit), and the new
tlog_head table holds every signed head, one per tree size, with its token and whether the witness took it. The
current head of tlog_state, signed as before, becomes its first row; nothing of the leaves or the tree changes.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0019'
down_revision: str | None = '0018'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('tlog_entry') as batch:
        batch.add_column(sa.Column('integrated_at', sa.BigInteger(), nullable=True))
    op.create_table('tlog_head',
    sa.Column('size', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('root', sa.LargeBinary(), nullable=False),
    sa.Column('timestamp', sa.BigInteger(), nullable=False),
    sa.Column('key_id', sa.String(length=64), nullable=True),
    sa.Column('signature', sa.LargeBinary(), nullable=True),
    sa.Column('tsa_token', sa.LargeBinary(), nullable=True),
    sa.Column('witnessed', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.PrimaryKeyConstraint('size')
    )
    op.execute("INSERT INTO tlog_head (size, root, timestamp, key_id, signature, witnessed) "
               "SELECT size, root, timestamp, key_id, signature, false FROM tlog_state WHERE id = 1 AND size > 0")


def downgrade() -> None:
    op.drop_table('tlog_head')
    with op.batch_alter_table('tlog_entry') as batch:
        batch.drop_column('integrated_at')
