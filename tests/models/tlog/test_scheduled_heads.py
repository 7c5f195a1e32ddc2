"""Issue 21 (the log's cost per commit) and issue 23 §2 (an anchor outside the server): heads on a schedule.

A covered commit only integrates its leaves; the head job signs a head over what waits every
BALCAO_TLOG_HEAD_INTERVAL seconds, timestamps it with the TSA and posts it to the witness. ``notice verify`` takes
entries newer than the newest head as waiting (no problem) until they have waited longer than the maximum merge
delay (a problem). On the old main every commit hashed the tree and signed a head (``append_rows`` →
``write_state``), and there was no head job.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from aiohttp.test_utils import TestClient, TestServer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from sqlalchemy import event, text
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory, create_engine, session_factory
from core.municipality import Timestamping
from core.settings import Settings
from models.audit import record
from models.tlog import merkle
from models.tlog.heads import TreeHead, leaf_key_of, signature_is_valid, use_signing_key
from models.tlog.proofs import current_head, run
from models.tlog.signing import newest_signed_head, use_head_interval
from models.tlog.timestamps import check_token
from models.tlog.verification import LogReport, verify_log
from notifications.log_heads import sign_log_heads
from notifications.service import build_scheduler
from tests.auxil.notices import cp_auto, issue
from tests.auxil.tsa import local_tsa
from tests.models.tlog.conftest import DAY, Life, at_cuiaba

T0 = dt.datetime(2026, 3, 9, 14, 0, tzinfo=dt.UTC)
MS = 1000


class CountingKey:
    """The tests' log key, counting the tree sizes it signs (the signer process quacks the same way)."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self.key = key
        self.signed: list[int] = []

    def sign(self, data: bytes) -> bytes:
        self.signed.append(json.loads(data)["tree_size"])
        return self.key.sign(data)

    def public_key(self) -> Ed25519PublicKey:
        return self.key.public_key()

    def leaf_key(self) -> bytes:
        return leaf_key_of(self.key)


@pytest.fixture
def scheduled(log_key: Ed25519PrivateKey) -> Iterator[CountingKey]:
    """Heads signed by the head job, every 5 s (the default), as in ``run``; the conftest restores the rest."""
    counting = CountingKey(log_key)
    use_signing_key(counting)
    use_head_interval(5)
    yield counting


async def _audit(session: AsyncSession, n: int = 1) -> None:
    for i in range(n):
        await record(session=session, actor="staff:9102", action="notice.note", entity="notice", entity_id=str(i))
    await session.commit()


async def _verify(session: AsyncSession, now: dt.datetime, **options: Any) -> LogReport:
    report = await run(session, lambda connection: verify_log(connection, key=options.pop("key", None) or
                                                              _public(), now=now, **options))
    await session.commit()
    return report


def _public() -> Ed25519PublicKey:
    from models.tlog.heads import signing_key

    key = signing_key()
    assert key is not None
    return key.public_key()


def _problems(report: LogReport) -> list[str]:
    return [problem.problem for problem in report.problems]


async def test_a_covered_commit_integrates_its_leaf_and_signs_nothing(
    session: AsyncSession, engine: Any, scheduled: CountingKey, db_kind: str
) -> None:
    with time_machine.travel(T0, tick=False):
        await _audit(session)
        statements: list[str] = []

        def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            statements.append(statement)

        event.listen(engine.sync_engine, "before_cursor_execute", note)
        try:
            await _audit(session)
        finally:
            event.remove(engine.sync_engine, "before_cursor_execute", note)
    assert scheduled.signed == []  # no signature in a commit: the head job's
    touched = " ".join(statements)
    assert "tlog_node" not in touched and "tlog_head" not in touched and "UPDATE tlog_state" not in touched
    # The budget of one covered insert, with why: the row's own INSERT, reading it back as stored (the leaf is what
    # the database holds), the entry's INSERT; PostgreSQL adds the sequence lock and reading the last index.
    assert len(statements) <= (5 if db_kind == "postgres" else 3), statements
    rows = (await session.exec(text("SELECT idx, integrated_at FROM tlog_entry ORDER BY idx"))).all()  # type: ignore[call-overload]
    assert [(int(r[0]), int(r[1])) for r in rows] == [(0, int(T0.timestamp() * MS)), (1, int(T0.timestamp() * MS))]
    assert (await run(session, current_head)).tree_size == 0  # integrated, not yet in a signed head


async def test_the_head_job_signs_one_head_over_what_waits_and_verify_holds_it_to_the_merge_delay(
    session: AsyncSession, sessions: SessionFactory, settings: Settings, scheduled: CountingKey
) -> None:
    scheduler = build_scheduler(settings.model_copy(update={"tlog_head_interval": 7.0}), scans_due=asyncio.Event(),
                                dispatch_due=asyncio.Event(), heads_due=asyncio.Event())
    assert scheduler.get_job("balcao-log-heads").trigger.interval == dt.timedelta(seconds=7)
    with time_machine.travel(T0, tick=False) as clock:
        await _audit(session, 3)
        await _audit(session)
        done = await sign_log_heads(sessions=sessions, timestamping=Timestamping.of(settings))
        assert done.signed is not None and done.signed.tree_size == 4 and scheduled.signed == [4]
        assert done.signed.timestamp == int(T0.timestamp() * MS)
        assert (await sign_log_heads(sessions=sessions,
                                     timestamping=Timestamping.of(settings))).signed is None  # nothing waits
        assert scheduled.signed == [4]
        assert (await _verify(session, T0)).ok
        await _audit(session)  # integrated at T0: it waits for the next head
        clock.shift(dt.timedelta(seconds=59))
        assert (await _verify(session, clock_now(T0, 59))).ok  # within the merge delay: no problem
        late = await _verify(session, clock_now(T0, 61))
        assert any("wait for a signed head for longer than the maximum merge delay" in p for p in _problems(late))
        assert "tlog_entry 4" in [problem.where for problem in late.problems]
        clock.shift(dt.timedelta(seconds=2))
        assert (await sign_log_heads(sessions=sessions, timestamping=Timestamping.of(settings))).signed is not None
        assert scheduled.signed == [4, 5]
        assert (await _verify(session, clock_now(T0, 61))).ok


def clock_now(start: dt.datetime, seconds: int) -> dt.datetime:
    """``seconds`` after ``start``."""
    return start + dt.timedelta(seconds=seconds)


async def test_a_tsa_that_is_down_delays_the_timestamp_not_the_signature(
    session: AsyncSession, sessions: SessionFactory, settings: Settings, scheduled: CountingKey
) -> None:
    async with local_tsa(now=True) as (tsa, _received):
        port = int(tsa.rsplit(":", 1)[1].split("/")[0])
    stamped = settings.model_copy(update={"tsa_url": tsa})
    await _audit(session, 2)
    down = await sign_log_heads(sessions=sessions, timestamping=Timestamping.of(stamped))  # the TSA is stopped
    assert down.signed is not None and not down.stamped
    newest = await run(session, newest_signed_head)
    assert newest is not None and newest.tsa_token is None
    assert signature_is_valid(newest, _public())
    now = dt.datetime.now(dt.UTC)
    assert (await _verify(session, now, require_timestamp=True)).ok  # young: the job asks again
    late = await _verify(session, now + dt.timedelta(seconds=61), require_timestamp=True)
    assert any("has no RFC 3161 timestamp" in p for p in _problems(late))
    async with local_tsa(now=True, port=port) as (again, received):  # the TSA is back, at the same URL
        assert again == tsa
        up = await sign_log_heads(sessions=sessions, timestamping=Timestamping.of(stamped))
        assert up.signed is None and up.stamped and len(received) == 1  # nothing new to sign: the retry only
        assert not (await sign_log_heads(sessions=sessions,
                                         timestamping=Timestamping.of(stamped))).stamped  # kept: not asked twice
    newest = await run(session, newest_signed_head)
    assert newest is not None and newest.tsa_token is not None
    check_token(newest.tsa_token, newest.signed_bytes())  # raises if it does not timestamp this head
    assert (await _verify(session, now + dt.timedelta(seconds=61), require_timestamp=True)).ok
    assert scheduled.signed == [2]


async def test_two_processes_running_the_head_job_sign_one_head_per_tree_size(
    session: AsyncSession, sessions: SessionFactory, settings: Settings, db_url: str, db_kind: str,
    scheduled: CountingKey
) -> None:
    if db_kind != "postgres":
        pytest.skip("several processes writing at once are PostgreSQL's; SQLite has one writer at a time")
    other_engine = create_engine(db_url)  # a second process: its own connections
    others = session_factory(other_engine)

    async def append(factory: SessionFactory, name: str) -> None:
        async with factory() as writer:
            for n in range(3):
                await record(session=writer, actor=name, action="race", entity="x", entity_id=str(n))
                await writer.commit()

    try:
        for _ in range(6):
            await append(sessions, "before")
            await asyncio.gather(
                sign_log_heads(sessions=sessions, timestamping=Timestamping.of(settings)),
                sign_log_heads(sessions=others, timestamping=Timestamping.of(settings)),
                sign_log_heads(sessions=others, timestamping=Timestamping.of(settings)),
                append(others, "during"),
            )
        await sign_log_heads(sessions=sessions, timestamping=Timestamping.of(settings))
    finally:
        await other_engine.dispose()
    assert len(scheduled.signed) == len(set(scheduled.signed))  # no tree size signed twice
    sizes = [int(r[0]) for r in (await session.exec(text("SELECT size FROM tlog_head ORDER BY size"))).all()]  # type: ignore[call-overload]
    assert sizes == sorted(scheduled.signed) and sizes[-1] == 36
    assert (await _verify(session, dt.datetime.now(dt.UTC))).ok


async def test_verify_finds_a_waiting_entry_changed_and_a_head_rolled_back(
    session: AsyncSession, sessions: SessionFactory, settings: Settings, scheduled: CountingKey
) -> None:
    await _audit(session, 2)
    await sign_log_heads(sessions=sessions, timestamping=Timestamping.of(settings))
    first = await run(session, newest_signed_head)
    await _audit(session)
    await sign_log_heads(sessions=sessions, timestamping=Timestamping.of(settings))
    await _audit(session)  # waits for the next head
    await session.exec(text("UPDATE audit_event SET action = 'forged' WHERE id = 4"))  # type: ignore[call-overload]
    await session.commit()
    now = dt.datetime.now(dt.UTC)
    changed = (await _verify(session, now)).problems
    assert [(problem.where, problem.params.get("index")) for problem in changed] == [("audit_event 4", 3)], changed
    await session.exec(text("UPDATE audit_event SET action = 'notice.note' WHERE id = 4"))  # type: ignore[call-overload]
    assert first is not None
    await session.exec(text(  # type: ignore[call-overload]
        "UPDATE tlog_state SET size = :s, root = :r, timestamp = :t, signature = :g WHERE id = 1").bindparams(
        s=first.tree_size, r=first.root_hash, t=first.timestamp, g=first.signature))
    await session.commit()
    report = await _verify(session, now)
    assert any("not the newest signed head kept" in p for p in _problems(report)), report.problems


async def test_verificar_says_the_proof_comes_with_the_next_head_then_serves_it(
    session: AsyncSession, sessions: SessionFactory, settings: Settings, life: Life, scheduled: CountingKey
) -> None:
    from bot.web import build_web_app

    issued = await issue(session, settings, cp_auto(infraction_code="CP-I-2"), now=at_cuiaba(DAY, 16))
    await session.commit()
    async with TestClient(TestServer(build_web_app(settings=settings, sessions=sessions))) as client:
        page = await (await client.get(f"/verificar/{issued.code}")).text()
        assert "A prova de inclusão fica pronta depois do próximo cabeçalho assinado, em até 60 segundos" in page
        pending = await client.get(f"/verificar/{issued.code}/prova.json")
        assert pending.status == 503 and pending.headers["Retry-After"] == "60"
        waiting = await pending.json()
        assert waiting["status"] == "pending" and waiting["available_within_seconds"] == 60
        await sign_log_heads(sessions=sessions, timestamping=Timestamping.of(settings))
        answer = await client.get(f"/verificar/{issued.code}/prova.json")
        assert answer.status == 200
        proof = await answer.json()
    head = TreeHead.from_json(proof["sth"])
    assert proof["leaf_index"] == waiting["leaf_index"] and signature_is_valid(head, _public())
    assert merkle.verify_inclusion(leaf=merkle.leaf_hash(proof["leaf_data"].encode()), index=proof["leaf_index"],
                                   size=proof["tree_size"], root=head.root_hash,
                                   path=[base64.b64decode(p) for p in proof["inclusion_path"]])


async def test_runs_head_loop_signs_when_the_scheduler_triggers_it(
    session: AsyncSession, sessions: SessionFactory, settings: Settings, scheduled: CountingKey,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    from notifications import service

    await _audit(session, 3)
    heads_due, stop = asyncio.Event(), asyncio.Event()
    real = service.sign_log_heads

    async def then_stop(**arguments: Any) -> Any:
        done = await real(**arguments)
        stop.set()  # one run is enough here: ``run`` goes on until it stops
        return done

    monkeypatch.setattr(service, "sign_log_heads", then_stop)
    heads_due.set()  # what the scheduler's "balcao-log-heads" job does every BALCAO_TLOG_HEAD_INTERVAL seconds
    await asyncio.wait_for(service._head_loop(sessions=sessions, settings=settings, heads_due=heads_due, stop=stop),
                           timeout=30)
    assert scheduled.signed == [3] and not heads_due.is_set()
