"""Open311: client systems with hashed keys, the cases they filed, and authors/files without a chat person

Revision ID: 0009
Revises: 0002
Create Date: 2026-12-01 09:55:00

A case posted by an Open311 client system has no person in the chat: case_author.person_id and
case_attachment.person_id become nullable. Existing rows all have a person and are unchanged.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.columns

revision: str = '0009'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('open311_client',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=64), nullable=False),
    sa.Column('key_sha256', sa.String(length=64), nullable=False),
    sa.Column('created_at', models.columns.UTCDateTime(), nullable=False),
    sa.Column('revoked_at', models.columns.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key_sha256'),
    sa.UniqueConstraint('name')
    )
    op.create_table('open311_submission',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('case_id', sa.Integer(), nullable=False),
    sa.Column('client_id', sa.Integer(), nullable=False),
    sa.Column('account_sha256', sa.String(length=64), nullable=False),
    sa.Column('service_code', sa.String(length=16), nullable=False),
    sa.Column('media_url', sa.String(length=500), nullable=True),
    sa.ForeignKeyConstraint(['case_id'], ['citizen_case.id'], ),
    sa.ForeignKeyConstraint(['client_id'], ['open311_client.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('case_id')
    )
    with op.batch_alter_table('open311_submission', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_open311_submission_account_sha256'), ['account_sha256'], unique=False)
        batch_op.create_index(batch_op.f('ix_open311_submission_client_id'), ['client_id'], unique=False)
    with op.batch_alter_table('case_author', schema=None) as batch_op:
        batch_op.alter_column('person_id', existing_type=sa.Integer(), nullable=True)
    with op.batch_alter_table('case_attachment', schema=None) as batch_op:
        batch_op.alter_column('person_id', existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    with op.batch_alter_table('case_attachment', schema=None) as batch_op:
        batch_op.alter_column('person_id', existing_type=sa.Integer(), nullable=False)
    with op.batch_alter_table('case_author', schema=None) as batch_op:
        batch_op.alter_column('person_id', existing_type=sa.Integer(), nullable=False)
    with op.batch_alter_table('open311_submission', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_open311_submission_client_id'))
        batch_op.drop_index(batch_op.f('ix_open311_submission_account_sha256'))
    op.drop_table('open311_submission')
    op.drop_table('open311_client')
