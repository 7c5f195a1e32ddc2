"""Staff credentials and municipal reply templates

Revision ID: 0011_trust_identity
Revises: 0009
Create Date: 2026-12-01 22:45:00

- staff_api_token: each staff member's own personal API tokens (only their SHA-256 is kept). A new table.
- response_template.municipality: a template belongs to one municipality (CF Art. 30), its name unique there. Each
  template written before this belonged to no one and was offered to every city: it is kept for the first
  municipality and copied, unchanged, to each other one, so every city hall keeps its texts and edits them alone.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.columns

revision: str = '0015'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('staff_api_token',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('token_sha256', sa.String(length=64), nullable=False),
    sa.Column('telegram_user_id', sa.BigInteger(), nullable=False),
    sa.Column('label', sa.String(length=64), nullable=False),
    sa.Column('created_at', models.columns.UTCDateTime(), nullable=False),
    sa.Column('last_used_at', models.columns.UTCDateTime(), nullable=True),
    sa.Column('revoked_at', models.columns.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_sha256')
    )
    with op.batch_alter_table('staff_api_token', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_staff_api_token_telegram_user_id'), ['telegram_user_id'], unique=False)

    old_unique = 'uq_response_template_name' if op.get_bind().dialect.name == 'sqlite' else 'response_template_name_key'
    with op.batch_alter_table('response_template', schema=None,
                              naming_convention={'uq': 'uq_%(table_name)s_%(column_0_name)s'}) as batch_op:
        batch_op.add_column(sa.Column('municipality', sa.String(length=40), nullable=True))
        batch_op.drop_constraint(old_unique, type_='unique')
        batch_op.create_index(batch_op.f('ix_response_template_municipality'), ['municipality'], unique=False)
        batch_op.create_foreign_key('fk_response_template_municipality', 'municipality', ['municipality'], ['slug'])
        batch_op.create_unique_constraint('uq_response_template_municipality_name', ['municipality', 'name'])
    bind = op.get_bind()
    places = [row[0] for row in bind.execute(sa.text('SELECT slug FROM municipality ORDER BY slug'))]
    legacy = [row[0] for row in bind.execute(sa.text(
        'SELECT id FROM response_template WHERE municipality IS NULL ORDER BY id'))]
    for template_id in legacy if places else []:
        for place in places[1:]:  # an identical copy for every other municipality (the texts copied by the database)
            bind.execute(sa.text(
                'INSERT INTO response_template (municipality, name, texts, updated_at, active) '
                'SELECT :place, name, texts, updated_at, active FROM response_template WHERE id = :id'),
                {'place': place, 'id': template_id})
        bind.execute(sa.text('UPDATE response_template SET municipality = :place WHERE id = :id'),
                     {'place': places[0], 'id': template_id})


def downgrade() -> None:
    with op.batch_alter_table('response_template', schema=None) as batch_op:
        batch_op.drop_constraint('uq_response_template_municipality_name', type_='unique')
        batch_op.drop_constraint('fk_response_template_municipality', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_response_template_municipality'))
        batch_op.drop_column('municipality')
    with op.batch_alter_table('staff_api_token', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_staff_api_token_telegram_user_id'))
    op.drop_table('staff_api_token')
