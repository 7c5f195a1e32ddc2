"""security: webhook update ids remembered; a health write probe; attachments renamed neutrally and their photo metadata removed

Revision ID: 0004
Revises: 0007
"""
import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.columns
from models.cases.file_metadata import strip_metadata

revision: str = '0004'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "application/pdf": "pdf"}


def upgrade() -> None:
    op.create_table('seen_update',
    sa.Column('bot_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('update_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('seen_at', models.columns.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('bot_id', 'update_id')
    )
    with op.batch_alter_table('seen_update', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_seen_update_seen_at'), ['seen_at'], unique=False)

    op.create_table('health_probe',
    sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('written_at', models.columns.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )

    # Existing files: the name the sender's phone gave may name a restricted author (Lei 13.460/2017
    # Art. 10 §7), and photos may carry EXIF (GPS, camera owner). Rename and clean them like new ones.
    bind = op.get_bind()
    table = sa.table('case_attachment', sa.column('id', sa.Integer), sa.column('file_name', sa.String),
                     sa.column('mime_type', sa.String), sa.column('content', sa.LargeBinary),
                     sa.column('size', sa.Integer), sa.column('sha256', sa.String))
    ids = [row.id for row in bind.execute(sa.select(table.c.id))]
    for attachment_id in ids:
        row = bind.execute(sa.select(table.c.mime_type, table.c.content).where(table.c.id == attachment_id)).one()
        content = strip_metadata(bytes(row.content), row.mime_type)
        bind.execute(table.update().where(table.c.id == attachment_id).values(
            file_name=f"anexo.{EXTENSIONS.get(row.mime_type, 'bin')}", content=content, size=len(content),
            sha256=hashlib.sha256(content).hexdigest()))


def downgrade() -> None:
    # The original names and metadata are gone on purpose; only the new table is dropped.
    with op.batch_alter_table('seen_update', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_seen_update_seen_at'))
    op.drop_table('seen_update')
    op.drop_table('health_probe')
