"""People's writes announced to every process: the people cache of issue 21

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-02 07:00:00

Each process keeps the person behind an update in memory (``models.people_cache``); the database announces every
write of ``person``, ``staff_member`` and a driver's link or municipality, whichever process makes it: on
PostgreSQL a trigger notifies channel ``balcao_people`` at commit, on SQLite a trigger counts the writes in
``people_version``, which each process reads twice a second (``models.people_changes``). Existing rows are
untouched: nothing is cached before a process starts, so nothing can be stale.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from models.people_changes import install_statements, remove_statements

revision: str = '0022'
down_revision: str | None = '0021'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'people_version',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('n', sa.BigInteger(), server_default='0', nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    for statement in install_statements(op.get_bind().dialect.name):
        op.execute(statement)


def downgrade() -> None:
    for statement in remove_statements(op.get_bind().dialect.name):
        op.execute(statement)
    op.drop_table('people_version')
