"""municipalities: every case, notice, driver and broadcast belongs to one; staff roles are held in one

Existing rows go to the deployment's default municipality (the first of BALCAO_MUNICIPALITIES_FILE, or the one the
BALCAO_MUNICIPALITY_* variables describe): until now a deployment served exactly one. Staff roles go to it too, and
a person's chosen city stays empty (a driver's comes from the registration).

Revision ID: 0002
Revises: 0008
Create Date: 2026-12-01 09:42:41.890752
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from models.tlog.appending import backfill

import models.columns
from models.columns import utcnow

revision: str = '0002'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OWNED = ('citizen_case', 'notice', 'driver', 'broadcast')
"""Tables whose every row belongs to one municipality (NOT NULL)."""


def _default_municipality() -> tuple[str, str, str, str]:
    """(slug, name, state, IBGE code) of the default municipality: given by core.migrate, else from the settings."""
    given = op.get_context().config.attributes.get('default_municipality')
    if given is None:
        from core.settings import load_settings

        given = load_settings().municipalities.default
    return given.slug, given.name, given.state, given.ibge_code


def upgrade() -> None:
    # On SQLite the tables are copied (batch mode) with the foreign keys off, and checked after (migrations/env.py).
    table = op.create_table('municipality',
    sa.Column('slug', sa.String(length=40), nullable=False),
    sa.Column('name', sa.String(length=80), nullable=False),
    sa.Column('state', sa.String(length=2), nullable=False),
    sa.Column('ibge_code', sa.String(length=7), nullable=False),
    sa.Column('served', sa.Boolean(), nullable=False),
    sa.Column('synced_at', models.columns.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('slug')
    )
    slug, name, state, ibge = _default_municipality()
    op.bulk_insert(table, [{'slug': slug, 'name': name, 'state': state, 'ibge_code': ibge, 'served': True,
                            'synced_at': utcnow()}])
    for owned in OWNED:
        with op.batch_alter_table(owned, schema=None) as batch_op:
            batch_op.add_column(sa.Column('municipality', sa.String(length=40), nullable=True))
        op.execute(sa.text(f'UPDATE {owned} SET municipality = :slug').bindparams(slug=slug))
        with op.batch_alter_table(owned, schema=None) as batch_op:
            batch_op.alter_column('municipality', existing_type=sa.String(length=40), nullable=False)
            batch_op.create_index(batch_op.f(f'ix_{owned}_municipality'), ['municipality'], unique=False)
            batch_op.create_foreign_key(f'fk_{owned}_municipality', 'municipality', ['municipality'], ['slug'])

    with op.batch_alter_table('person', schema=None) as batch_op:
        batch_op.add_column(sa.Column('municipality', sa.String(length=40), nullable=True))
        batch_op.create_index(batch_op.f('ix_person_municipality'), ['municipality'], unique=False)
        batch_op.create_foreign_key('fk_person_municipality', 'municipality', ['municipality'], ['slug'])

    with op.batch_alter_table('staff_member', schema=None) as batch_op:
        batch_op.add_column(sa.Column('municipality', sa.String(length=40), nullable=True))
    op.execute(sa.text('UPDATE staff_member SET municipality = :slug').bindparams(slug=slug))
    with op.batch_alter_table('staff_member', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_staff_member_telegram_user_id'))
        batch_op.create_index(batch_op.f('ix_staff_member_telegram_user_id'), ['telegram_user_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_staff_member_municipality'), ['municipality'], unique=False)
        batch_op.create_unique_constraint('uq_staff_member_user_municipality', ['telegram_user_id', 'municipality'])
        batch_op.create_foreign_key('fk_staff_member_municipality', 'municipality', ['municipality'], ['slug'])

    # A notice's municipality is part of its legal effect (in whose name the act is, CF Art. 30 I): the
    # transparency log (0005) covers it, so every notice gets a leaf with it.
    backfill(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table('staff_member', schema=None) as batch_op:
        batch_op.drop_constraint('fk_staff_member_municipality', type_='foreignkey')
        batch_op.drop_constraint('uq_staff_member_user_municipality', type_='unique')
        batch_op.drop_index(batch_op.f('ix_staff_member_municipality'))
        batch_op.drop_index(batch_op.f('ix_staff_member_telegram_user_id'))
        batch_op.create_index(batch_op.f('ix_staff_member_telegram_user_id'), ['telegram_user_id'], unique=True)
        batch_op.drop_column('municipality')

    with op.batch_alter_table('person', schema=None) as batch_op:
        batch_op.drop_constraint('fk_person_municipality', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_person_municipality'))
        batch_op.drop_column('municipality')

    for owned in reversed(OWNED):
        with op.batch_alter_table(owned, schema=None) as batch_op:
            batch_op.drop_constraint(f'fk_{owned}_municipality', type_='foreignkey')
            batch_op.drop_index(batch_op.f(f'ix_{owned}_municipality'))
            batch_op.drop_column('municipality')

    op.drop_table('municipality')
