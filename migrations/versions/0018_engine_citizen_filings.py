"""Filings like cases: a protocol number on each defence, reclamação and appeal; the caption of their files

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02 02:00:00

Issue 20 §3: a defence, reclamação or appeal gets a protocol number (``DEF-2026-000001``, ``RCL-…``, ``RCS-…``)
and a signed receipt, as a case does; issue 19 §2: their files come through the one file intake, which keeps
the text typed under a file. Both columns are NULL on existing rows (filed before numbers and captions were
kept): existing filings stay valid. The transparency log covers both, so the rows get their new leaf.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from models.tlog.appending import backfill

revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('notice_filing') as batch:
        batch.add_column(sa.Column('protocol', sa.String(length=16), nullable=True))
        batch.create_unique_constraint('uq_notice_filing_protocol', ['protocol'])
    with op.batch_alter_table('notice_attachment') as batch:
        batch.add_column(sa.Column('caption', sa.Text(), nullable=True))
    backfill(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table('notice_attachment') as batch:
        batch.drop_column('caption')
    with op.batch_alter_table('notice_filing') as batch:
        batch.drop_constraint('uq_notice_filing_protocol', type_='unique')
        batch.drop_column('protocol')
