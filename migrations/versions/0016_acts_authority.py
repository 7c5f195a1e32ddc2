"""Acts a court upholds: staff competences (office, matrícula, designation act), signer and decider of each act

Revision ID: 0011_acts_authority
Revises: 0009
Create Date: 2026-12-01 22:50:00

Issue 18 §1–2. staff_member gets its registration number (matrícula), empty for existing members; the new
staff_authority table holds each member's competence per kind of act (autuar, first instance, second instance,
ombudsman answer) with the office and the designation act (CP Art. 12: portaria, number, date). notice gets
signer and signed_at, notice_filing gets decider: NULL on every existing row, which the documents read as "issued
before signatures were recorded (unsigned)" — existing notices stay valid as issued, their elements and their
digest unchanged. The transparency log covers the new columns, so every row gets its new leaf.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.columns
from models.tlog.appending import backfill

revision: str = '0016'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('staff_member') as batch:
        batch.add_column(sa.Column('registration', sa.String(length=32), nullable=False, server_default=''))
    op.create_table('staff_authority',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('staff_member_id', sa.Integer(), nullable=False),
    sa.Column('act', sa.String(length=24), nullable=False),
    sa.Column('municipality', sa.String(length=40), nullable=False),
    sa.Column('office', sa.String(length=160), nullable=False),
    sa.Column('title', sa.String(length=160), nullable=False),
    sa.Column('designation_kind', sa.String(length=32), nullable=False),
    sa.Column('designation_number', sa.String(length=32), nullable=False),
    sa.Column('designation_on', sa.Date(), nullable=True),
    sa.Column('created_at', models.columns.UTCDateTime(), nullable=False),
    sa.Column('revoked_at', models.columns.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['staff_member_id'], ['staff_member.id'], name='fk_staff_authority_member'),
    sa.ForeignKeyConstraint(['municipality'], ['municipality.slug'], name='fk_staff_authority_municipality'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_staff_authority_staff_member_id', 'staff_authority', ['staff_member_id'])
    op.create_index('ix_staff_authority_municipality', 'staff_authority', ['municipality'])
    with op.batch_alter_table('notice') as batch:
        batch.add_column(sa.Column('signer', models.columns.JSONData, nullable=True))
        batch.add_column(sa.Column('signed_at', models.columns.UTCDateTime(), nullable=True))
    with op.batch_alter_table('notice_filing') as batch:
        batch.add_column(sa.Column('decider', models.columns.JSONData, nullable=True))
    backfill(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table('notice_filing') as batch:
        batch.drop_column('decider')
    with op.batch_alter_table('notice') as batch:
        batch.drop_column('signed_at')
        batch.drop_column('signer')
    op.drop_index('ix_staff_authority_municipality', table_name='staff_authority')
    op.drop_index('ix_staff_authority_staff_member_id', table_name='staff_authority')
    op.drop_table('staff_authority')
    with op.batch_alter_table('staff_member') as batch:
        batch.drop_column('registration')
