"""Migration 0013 (issue 23): a database with citizens' files stored before the stronger cleaner is upgraded — the
files lose the metadata the old cleaner left (an MP4's author and GPS position), every newly covered row (the
case file, the person) gets its leaf, and ``notice verify`` holds at once."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

from sqlalchemy import LargeBinary, bindparam, text

from core import migrate
from core.db import create_engine
from models.tlog.heads import signing_key
from models.tlog.verification import verify_log
from tests.auxil import exiftool
from tests.auxil.case_files import mp4

SQLITE_MOMENT = "2026-03-02 14:00:00.000000"


async def test_upgrading_cleans_the_stored_files_again_and_logs_the_newly_covered_rows(tmp_path: Path) -> None:
    video = exiftool.written(mp4(10), "mp4", "-Keys:Author=Joaquim Sigiloso", "-UserData:GPSCoordinates=-13.54, -58.81")
    assert b"Sigiloso" in video
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    await asyncio.to_thread(migrate.upgrade, url, "0009")
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.execute(text(
                "INSERT INTO person (id, telegram_user_id, chat_id, first_name, locale, locale_chosen, bot_key, "
                "created_at) VALUES (1, 9001, 9001, 'João', 'pt-br', false, 'default', :at)"), {"at": SQLITE_MOMENT})
            await connection.execute(text(
                "INSERT INTO case_attachment (id, person_id, file_name, mime_type, size, sha256, content, created_at) "
                "VALUES (1, 1, 'anexo.mp4', 'video/mp4', :size, :sha, :content, :at)").bindparams(
                bindparam("content", type_=LargeBinary())),
                {"size": len(video), "sha": hashlib.sha256(video).hexdigest(), "content": video, "at": SQLITE_MOMENT})
        await asyncio.to_thread(migrate.upgrade, url)
        key = signing_key()
        assert key is not None
        async with engine.connect() as connection:
            report = await connection.run_sync(lambda sync: verify_log(sync, key=key.public_key()))
            content, sha = (await connection.execute(text("SELECT content, sha256 FROM case_attachment"))).one()
            logged = {row[0] for row in (await connection.execute(text("SELECT tbl FROM tlog_entry"))).all()}
    finally:
        await engine.dispose()
    assert b"Sigiloso" not in bytes(content) and sha == hashlib.sha256(bytes(content)).hexdigest()
    assert {"case_attachment", "person"} <= logged
    assert report.ok, report.problems
