"""form engine: one claim per filed form (idempotent Send) and the caption kept with each attachment

Revision ID: 0007
Revises: 0003
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.columns

revision: str = '0007'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('form_submission',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('person_id', sa.Integer(), nullable=False),
    sa.Column('form', sa.String(length=32), nullable=False),
    sa.Column('key', sa.String(length=32), nullable=False),
    sa.Column('result', sa.String(length=64), nullable=True),
    sa.Column('created_at', models.columns.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['person_id'], ['person.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key')
    )
    with op.batch_alter_table('form_submission', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_form_submission_person_id'), ['person_id'], unique=False)
    # Existing files had no caption: they stay without one.
    with op.batch_alter_table('case_attachment', schema=None) as batch_op:
        batch_op.add_column(sa.Column('caption', sa.String(length=1024), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('case_attachment', schema=None) as batch_op:
        batch_op.drop_column('caption')
    with op.batch_alter_table('form_submission', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_form_submission_person_id'))
    op.drop_table('form_submission')
