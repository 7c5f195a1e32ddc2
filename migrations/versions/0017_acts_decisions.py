"""Acts a court upholds: each decision on a defence, reclamação or appeal is a signed PDF of its own

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02 01:50:00

Issue 18 "Done when": notice_filing gets decision_pdf (the PAdES-signed document, models.notices.decision_pdf) and
its SHA-256. NULL on every existing decision, which /verificar and the console read as "unsigned, before this
version": existing decisions stay valid as given, their text, decider and digest unchanged. The transparency log
covers the new columns, so every filing gets its new leaf.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from models.tlog.appending import backfill

revision: str = '0017'
down_revision: str | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('notice_filing') as batch:
        batch.add_column(sa.Column('decision_pdf', sa.LargeBinary(), nullable=True))
        batch.add_column(sa.Column('decision_pdf_sha256', sa.String(length=64), nullable=True))
    backfill(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table('notice_filing') as batch:
        batch.drop_column('decision_pdf_sha256')
        batch.drop_column('decision_pdf')
