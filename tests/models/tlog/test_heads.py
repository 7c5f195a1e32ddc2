"""Signed tree heads (Ed25519, key outside the database), the daily written-out head with an RFC 3161 timestamp
from a TSA (a local one here), the public endpoints, and appends racing on PostgreSQL (issue 10, item 12)."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import text
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.cli import main
from core.municipality import Timestamping, cities_of
from core.settings import Settings
from models.audit import record
from models.tlog import merkle
from models.tlog.heads import TreeHead, generate_key_file, load_key_file, load_public_key, signature_is_valid
from models.tlog.proofs import current_head, run
from models.tlog.timestamps import TimestampError, check_token
from notifications.log_heads import publish_log_head
from tests.auxil.tlog import verify
from tests.auxil.tsa import local_tsa
from tests.models.tlog.conftest import DAY, Life, at_cuiaba


def test_a_head_verifies_under_its_key_only_and_any_changed_field_breaks_it(log_key: Ed25519PrivateKey) -> None:
    from models.tlog.heads import sign_head

    head = sign_head(tree_size=7, root_hash=bytes(range(32)), timestamp=1767225600000, key=log_key)
    assert signature_is_valid(head, log_key.public_key())
    assert signature_is_valid(TreeHead.from_json(json.loads(json.dumps(head.to_json()))), log_key.public_key())
    assert not signature_is_valid(head, Ed25519PrivateKey.generate().public_key())
    for change in ({"tree_size": 8}, {"timestamp": 1}, {"root_hash": bytes(32)}):
        assert not signature_is_valid(dataclasses.replace(head, **change), log_key.public_key())  # type: ignore[arg-type]


def test_keygen_writes_a_private_key_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BALCAO_CLI_LOCALE", "en")
    path = tmp_path / "log.pem"
    assert main(["log", "keygen", str(path)]) == 0
    assert "BEGIN PUBLIC KEY" in capsys.readouterr().out
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_public_key(path) is not None and load_key_file(path) is not None
    assert main(["log", "keygen", str(path)]) == 2
    assert "never overwritten" in capsys.readouterr().err
    nowhere = tmp_path / "no-such-folder" / "log.pem"
    assert main(["log", "keygen", str(nowhere)]) == 2
    assert capsys.readouterr().err == f"{nowhere}: the file or its folder does not exist\n"
    with pytest.raises(FileExistsError):
        generate_key_file(path)


async def test_the_daily_head_is_written_once_with_a_checked_rfc_3161_timestamp(
    session: AsyncSession, settings: Settings, life: Life
) -> None:
    await record(session=session, actor="cli", action="test.more", entity="x", entity_id="1")
    await session.commit()
    async with local_tsa() as (url, received):
        stamped = settings.model_copy(update={"tsa_url": url})
        now = at_cuiaba(DAY + dt.timedelta(days=4))
        assert await publish_log_head(session=session, now=now, cities=cities_of(stamped),
                                      timestamping=Timestamping.of(stamped)) == 1
        await session.commit()
        assert await publish_log_head(session=session, now=now, cities=cities_of(stamped),
                                      timestamping=Timestamping.of(stamped)) == 0  # once a day
    assert len(received) == 1
    [_, today] = (await session.exec(text("SELECT size, tsa_token FROM tlog_published ORDER BY id"))).all()  # type: ignore[call-overload]
    head = await run(session, current_head)
    assert today[0] == head.tree_size
    stamp = check_token(bytes(today[1]), head.signed_bytes())  # the messageImprint is this head's
    assert stamp.serial == 1
    with pytest.raises(TimestampError, match="messageImprint"):
        check_token(bytes(today[1]), dataclasses.replace(head, tree_size=1).signed_bytes())
    assert (await verify(session)).ok


async def test_a_tsa_answer_for_another_imprint_is_not_stored(
    session: AsyncSession, settings: Settings, life: Life, caplog: pytest.LogCaptureFixture
) -> None:
    async with local_tsa(forge=True) as (url, _):
        now = at_cuiaba(DAY + dt.timedelta(days=4))
        assert await publish_log_head(session=session, now=now, cities=cities_of(settings),
                                      timestamping=Timestamping(tsa_url=url)) == 1
    token = (await session.exec(text("SELECT tsa_token FROM tlog_published ORDER BY id DESC"))).first()  # type: ignore[call-overload]
    assert token == (None,) and "messageImprint" in caplog.text


async def test_a_head_not_signed_by_this_key_is_never_published(session: AsyncSession, settings: Settings,
                                                                life: Life) -> None:
    await session.exec(text("UPDATE tlog_state SET size = size + 0, timestamp = 1"))  # type: ignore[call-overload]
    await session.commit()
    assert await publish_log_head(session=session, now=at_cuiaba(DAY + dt.timedelta(days=5)),
                                  cities=cities_of(settings), timestamping=Timestamping.of(settings)) == 0


async def test_public_endpoints_serve_the_head_history_consistency_and_a_notices_proof(
    session: AsyncSession, settings: Settings, sessions: Any, life: Life, log_key: Ed25519PrivateKey
) -> None:
    from bot.web import build_web_app

    app = build_web_app(settings=settings, sessions=sessions)
    async with TestClient(TestServer(app)) as client:
        sth = TreeHead.from_json(await (await client.get("/verificar/sth.json")).json())
        assert signature_is_valid(sth, log_key.public_key())
        assert base64.b64decode((await (await client.get("/verificar/sth.json")).json())["public_key"]) == (
            sth.public_key)
        history = (await (await client.get("/verificar/sth/historico.json")).json())["heads"]
        old = TreeHead.from_json(history[0])
        answer = await (await client.get(f"/verificar/consistencia.json?de={old.tree_size}")).json()
        path = [base64.b64decode(p) for p in answer["consistency"]]
        assert merkle.verify_consistency(first=old.tree_size, second=sth.tree_size, first_root=old.root_hash,
                                         second_root=sth.root_hash, path=path)
        for bad in ("de=x", "de=-1", "de=99999", "de=1&ate=0", "de=²"):
            assert (await client.get(f"/verificar/consistencia.json?{bad}")).status == 400
        assert (await client.get("/verificar/AAAA-BBBB-CCCC/prova.json")).status == 404
        proof = await (await client.get(f"/verificar/{life.code}/prova.json")).json()
        data = proof["leaf_data"].encode()
        assert json.loads(data)["row"]["stage"] == "DECIDED" and "Maria" not in proof["leaf_data"]
        assert merkle.verify_inclusion(  # what the README tells a citizen to recompute
            leaf=merkle.leaf_hash(data), index=proof["leaf_index"], size=proof["tree_size"],
            path=[base64.b64decode(p) for p in proof["inclusion_path"]],
            root=TreeHead.from_json(proof["sth"]).root_hash)
        page = await (await client.get(f"/verificar/{life.code}")).text()
        assert f"nº {proof['leaf_index']}" in page and f"/verificar/{life.code}/prova.json" in page
        pem = await (await client.get("/verificar/chave.pem")).text()
        assert "BEGIN PUBLIC KEY" in pem


async def test_appends_racing_on_postgresql_get_consecutive_indices(
    session: AsyncSession, sessions: Any, db_kind: str
) -> None:
    """Two transactions committing audit rows at the same instant take the one log-sequence lock in turn."""
    if db_kind != "postgres":
        pytest.skip("several writing processes are PostgreSQL's; SQLite has one writer at a time")

    async def append(name: str) -> None:
        async with sessions() as other:
            for n in range(5):
                await record(session=other, actor=name, action="race", entity="x", entity_id=str(n))
                await other.commit()

    await asyncio.gather(append("one"), append("two"), append("three"))
    indices = [r[0] for r in (await session.exec(text("SELECT idx FROM tlog_entry ORDER BY idx"))).all()]  # type: ignore[call-overload]
    assert indices == list(range(15))
    assert (await verify(session)).ok


async def test_the_page_says_so_when_a_notice_has_no_entry(
    session: AsyncSession, settings: Settings, sessions: Any, life: Life
) -> None:
    from bot.web import build_web_app

    await session.exec(text("DELETE FROM tlog_entry WHERE tbl = 'notice' AND row_id = :n").bindparams(  # type: ignore[call-overload]
        n=life.notice_id))
    await session.commit()
    async with TestClient(TestServer(build_web_app(settings=settings, sessions=sessions))) as client:
        page = await (await client.get(f"/verificar/{life.code}")).text()
        assert "não tem registro no livro público" in page
        assert (await client.get(f"/verificar/{life.code}/prova.json")).status == 404
    assert not (await verify(session)).ok
