"""Issue 23, item 2: the public proof (``/verificar/<code>/prova.json``) gives away nobody's CPF, name or ids.

Version-1 leaves held the plain SHA-256 of the offender's CPF (found from a four-digit prefix in 0.3 s) and
``issuer_telegram_id``, ``person_id`` and ``case_id`` in clear. Version 2 keys every personal field with HMAC
under a server secret; leaves written before stay valid, and the upgrade gives every row a version-2 leaf.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel.ext.asyncio.session import AsyncSession

from core.settings import Settings
from models.tlog import merkle
from models.tlog.appending import backfill
from models.tlog.coverage import leaf_version, parse_leaf, use_leaf_key
from models.tlog.heads import TreeHead, leaf_key_of
from models.tlog.proofs import entries_of_row, run
from tests.auxil.notices import MARIA_CPF as CPF
from tests.auxil.notices import cp_auto, issue
from tests.auxil.tlog import verify
from tests.models.notices.conftest import NOW, Cast


async def _proof(settings: Settings, sessions: Any, code: str) -> dict[str, Any]:
    from bot.web import build_web_app

    async with TestClient(TestServer(build_web_app(settings=settings, sessions=sessions))) as client:
        response = await client.get(f"/verificar/{code}/prova.json")
        assert response.status == 200
        return dict(await response.json())


def _proves(proof: dict[str, Any]) -> bool:
    return merkle.verify_inclusion(leaf=merkle.leaf_hash(proof["leaf_data"].encode()), index=proof["leaf_index"],
                                   size=proof["tree_size"], path=[base64.b64decode(p) for p in proof["inclusion_path"]],
                                   root=TreeHead.from_json(proof["sth"]).root_hash)


async def test_the_public_leaf_reveals_no_cpf_name_or_ids_and_still_proves_the_notice(
    session: AsyncSession, settings: Settings, sessions: Any, cast: Cast
) -> None:
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
    notice = issued.notice
    proof = await _proof(settings, sessions, issued.code)
    text = proof["leaf_data"]
    row = json.loads(text)["row"]
    assert json.loads(text)["v"] == 2
    for plain in (CPF, notice.offender_name, notice.offender_address):
        assert plain is not None and hashlib.sha256(plain.encode()).hexdigest() not in text  # no brute-forcing
        assert plain not in text
    for private in ("issuer_telegram_id", "person_id", "case_id"):
        assert row[private] is None or not isinstance(row[private], int), private
    assert str(notice.issuer_telegram_id) not in text and row["person_id"] != cast.maria.id
    assert row["pdf"] == hashlib.sha256(bytes(notice.pdf)).hexdigest()  # the citizen still checks the paper
    assert _proves(proof)
    assert (await verify(session)).ok


async def test_a_version_1_leaf_of_an_old_notice_still_verifies_and_the_upgrade_gives_a_version_2_leaf(
    session: AsyncSession, settings: Settings, sessions: Any, cast: Cast, log_key: Ed25519PrivateKey
) -> None:
    use_leaf_key(None)  # as the log was before issue 23: version-1 leaves
    try:
        issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
    finally:
        use_leaf_key(leaf_key_of(log_key))
    notice_id = issued.notice.id or 0
    [old] = await run(session, entries_of_row, "notice", notice_id)
    assert leaf_version(old.data) == 1
    assert (await verify(session)).ok  # compared in its own version
    assert _proves(await _proof(settings, sessions, issued.code))
    assert await run(session, backfill) > 0  # migration 0011: every row gets its version-2 leaf
    await session.commit()
    entries = await run(session, entries_of_row, "notice", notice_id)
    assert [leaf_version(e.data) for e in entries] == [1, 2]
    assert parse_leaf(entries[0].data)[2] is not None
    proof = await _proof(settings, sessions, issued.code)
    assert json.loads(proof["leaf_data"])["v"] == 2 and _proves(proof)
    assert (await verify(session)).ok
