"""Issue 23, item 2: an anchor outside the server. Restoring rows, log and head from an earlier backup undid an
act, and a history rewritten and signed again with the key on the server verified: both reported 0 problems.
Each signed head is now timestamped by the TSA and POSTed to a witness (a local one here) by the head job, and
``notice verify`` checks the log against the witness's newest head. Tamperings are made as an attacker with database
access would: a backup taken and restored table by table, entries rewritten and the head re-signed."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from alembic import command
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Connection, LargeBinary, bindparam, text
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.cli import main
from core.db import SessionFactory
from core.migrate import alembic_config
from core.municipality import Timestamping, cities_of
from core.settings import Settings, get_settings
from models.audit import record
from models.columns import utcnow
from models.tlog.heads import sign_head
from models.tlog.proofs import current_head, run
from notifications.log_heads import publish_log_head, sign_log_heads
from tests.auxil.tsa import local_tsa
from tests.auxil.witness import local_witness
from tests.models.tlog.conftest import DAY, Life, at_cuiaba
from tests.models.tlog.test_tampering import recomputed_in_place

Backup = dict[str, list[dict[str, Any]]]


@pytest.fixture
def cli_database(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    command.stamp(alembic_config(db_url), "head")
    monkeypatch.setenv("BALCAO_DATABASE_URL", db_url)
    monkeypatch.setenv("BALCAO_CLI_LOCALE", "en")
    get_settings.cache_clear()
    yield db_url
    get_settings.cache_clear()


def _backup(connection: Connection) -> Backup:
    return {table.name: [dict(row) for row in connection.execute(table.select()).mappings()]
            for table in SQLModel.metadata.sorted_tables}


def _restore(connection: Connection, backup: Backup) -> None:
    for table in reversed(SQLModel.metadata.sorted_tables):
        connection.execute(table.delete())
    for table in SQLModel.metadata.sorted_tables:
        if backup[table.name]:
            connection.execute(table.insert(), backup[table.name])


async def _verify(*argv: str) -> tuple[int, str]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = await asyncio.to_thread(main, ["notice", "verify", *argv])
    return code, out.getvalue()


async def _act_and_publish(session: AsyncSession, sessions: SessionFactory, settings: Settings, witness: str,
                           tsa: str) -> None:
    """The next day: an act (an audit row) and its head, timestamped and sent to the witness, and written out."""
    await record(session=session, actor="staff:9102", action="notice.annul", entity="notice", entity_id="1")
    await session.commit()
    anchored = settings.model_copy(update={"tsa_url": tsa, "log_witness_url": witness})
    done = await sign_log_heads(sessions=sessions, timestamping=Timestamping.of(anchored))
    assert done.stamped and done.witnessed
    assert await publish_log_head(session=session, now=at_cuiaba(DAY + dt.timedelta(days=4), 19),
                                  cities=cities_of(anchored), timestamping=Timestamping.of(anchored)) == 1
    await session.commit()


async def test_an_act_undone_by_restoring_an_earlier_backup_is_found_through_the_witness(
    session: AsyncSession, sessions: SessionFactory, settings: Settings, life: Life, cli_database: str,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    backup = await run(session, _backup)
    async with local_witness() as (witness, kept), local_tsa(now=True) as (tsa, _):
        await _act_and_publish(session, sessions, settings, witness, tsa)
        assert len(kept) == 1 and kept[0]["tsa_token"]
        monkeypatch.setenv("BALCAO_TSA_URL", tsa)
        code, out = await _verify("--witness", witness)
        assert code == 0, out
        await run(session, _restore, backup)  # rows, log, head and written-out heads, as they were
        await session.commit()
        session.expunge_all()
        monkeypatch.delenv("BALCAO_TSA_URL")
        get_settings.cache_clear()
        code, out = await _verify()
        assert code == 0, out  # without the anchor the rollback is invisible (as on the old main)
        code, out = await _verify("--witness", witness)
    assert code == 1 and "the log was rolled back" in out, out


def _resign(connection: Connection, key: Ed25519PrivateKey) -> None:
    head = current_head(connection)
    signed = sign_head(tree_size=head.tree_size, root_hash=head.root_hash, timestamp=int(utcnow().timestamp() * 1000),
                       key=key)
    connection.execute(text("UPDATE tlog_state SET signature = :s, key_id = :k, timestamp = :t WHERE id = 1")
                       .bindparams(bindparam("s", type_=LargeBinary())),
                       {"s": signed.signature, "k": signed.key_id, "t": signed.timestamp})
    connection.execute(text("DELETE FROM tlog_published"))  # the history that would betray the rewrite
    connection.execute(text("DELETE FROM tlog_head"))  # and every head kept, for the one signed again
    connection.execute(text("INSERT INTO tlog_head (size, root, timestamp, key_id, signature, witnessed) VALUES "
                            "(:n, :r, :t, :k, :s, true)").bindparams(bindparam("s", type_=LargeBinary()),
                                                                     bindparam("r", type_=LargeBinary())),
                       {"n": head.tree_size, "r": head.root_hash, "t": signed.timestamp, "k": signed.key_id,
                        "s": signed.signature})


async def test_a_history_rewritten_and_signed_again_with_the_servers_key_is_found_through_the_witness(
    session: AsyncSession, sessions: SessionFactory, settings: Settings, life: Life, cli_database: str,
    log_key: Ed25519PrivateKey
) -> None:
    async with local_witness() as (witness, _kept), local_tsa(now=True) as (tsa, _):
        await _act_and_publish(session, sessions, settings, witness, tsa)
        await recomputed_in_place(session, life)  # the notice annulled, its entry rewritten, the tree recomputed
        await run(session, _resign, log_key)  # signed again with the key file that sits on the server
        await session.commit()
        session.expunge_all()
        assert (await _verify())[0] == 0  # what the issue found: it verified
        code, out = await _verify("--witness", witness)
    assert code == 1 and "witness (size" in out and "the past was rewritten" in out, out


async def test_a_witness_that_cannot_be_read_is_a_problem_not_a_pass(life: Life, cli_database: str) -> None:
    code, out = await _verify("--witness", "http://127.0.0.1:9/heads")
    assert code == 1 and "the witness cannot be read" in out, out


async def test_without_its_timestamp_the_newest_signed_head_is_a_problem_once_older_than_the_merge_delay(
    session: AsyncSession, life: Life, cli_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BALCAO_TSA_URL", "http://127.0.0.1:9/tsa")
    assert (await _verify())[0] == 0  # just signed: the head job asks the TSA again on its next run
    with time_machine.travel(utcnow() + dt.timedelta(seconds=61), tick=False):  # the default merge delay, passed
        code, out = await _verify()
    assert code == 1 and "has no RFC 3161 timestamp" in out, out
