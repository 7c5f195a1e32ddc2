"""The transparency log covers the cases, their events, evidence files and authors, staff roles, people, Open311
clients and the ride-hailing registry (issue 23, item 2): one leaf for every existing row of the newly covered
tables, so an upgraded database verifies at once and any later change to them is seen.

Before that, the citizens' files already stored are cleaned again with the stronger cleaner of issue 23, item 4
(every metadata block of JPEG, PNG, PDF, Ogg and MP4; a file it cannot read is kept as it is), so an existing
video's GPS position or a PDF's author does not stay behind; their leaves are of the cleaned files.

Revision ID: 0011
Revises: 0009
Create Date: 2026-12-01 23:00:00.000000
"""
from collections.abc import Sequence

import hashlib

import sqlalchemy as sa
from alembic import op

from models.cases.file_metadata import strip_metadata
from models.tlog.appending import backfill

revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    bind = op.get_bind()
    table = sa.table('case_attachment', sa.column('id', sa.Integer), sa.column('mime_type', sa.String),
                     sa.column('content', sa.LargeBinary), sa.column('size', sa.Integer),
                     sa.column('sha256', sa.String))
    for attachment_id in [row.id for row in bind.execute(sa.select(table.c.id))]:
        row = bind.execute(sa.select(table.c.mime_type, table.c.content).where(table.c.id == attachment_id)).one()
        content = strip_metadata(bytes(row.content), row.mime_type)
        if content != bytes(row.content):
            bind.execute(table.update().where(table.c.id == attachment_id).values(
                content=content, size=len(content), sha256=hashlib.sha256(content).hexdigest()))
    # Then every row without a leaf gets one (every row of a newly covered table), and a changed one a new leaf.
    backfill(bind)


def downgrade() -> None:
    # Leaves are never removed: the log is append-only, and an older version simply stops reading them.
    pass
