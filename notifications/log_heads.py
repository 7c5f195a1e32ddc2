"""The transparency log's heads: the head job (signed, timestamped, witnessed) and the daily written-out head.

The head job (:func:`sign_log_heads`) runs in ``run`` every ``BALCAO_TLOG_HEAD_INTERVAL`` seconds
(:mod:`notifications.service`). Each run, one transaction signs the head over the entries commits integrated since
the last one (:func:`models.tlog.signing.sign_pending_head`; nothing waits: nothing signed). Then, holding no
transaction, it asks the TSA (``BALCAO_TSA_URL``) for an RFC 3161 token of the newest signed head if it has none
and keeps it with the head; a TSA that is down blocks nothing: the head stays signed and the next run asks again.
Then it claims the newest head for the witness (``BALCAO_LOG_WITNESS_URL``; an UPDATE only one process wins) and
POSTs it, with its token; a witness that does not take it gets it (or a newer head) on the next run.

Once per civil day the scan copies the current signed head into ``tlog_published`` (served at
``/verificar/sth/historico.json``), after a timestamp authority (``BALCAO_TSA_URL``) has stamped it when one is
configured. The row is claimed by its day (unique): several processes running the scan at once publish one
head, and a process that was down publishes when it comes back. A head whose signature is not valid for this
process's key is never published: that would lend the key to a head someone else wrote (``notice verify``
says what is wrong).

The witness is a store outside this server that answers GET with the newest head it holds. Restoring the
database (rows, log and heads) from an earlier backup, or rewriting the history and signing it again with the
key on this server, cannot change what the witness keeps: ``notice verify`` compares the log with it (issue 23,
item 2). The daily head is not posted to it (the job posted it, or a newer one, already: the witness's newest
head never goes back), and it reuses the token the job kept with it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import secrets

import aiohttp
from sqlalchemy import Connection, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.municipality import Cities, Timestamping
from models.tlog.heads import HeadFormatError, TreeHead, signature_is_valid, signing_key
from models.tlog.proofs import current_head, run
from models.tlog.signing import (
    claim_for_witness,
    newest_signed_head,
    release_for_witness,
    sign_pending_head,
    store_token,
)
from models.tlog.tables import PublishedHead, SignedHead
from models.tlog.timestamps import CONTENT_TYPE, TimestampError, request, token_of_response
from notifications.scans import scan

logger = logging.getLogger(__name__)
TSA_TIMEOUT_SECONDS = 15
MAX_REPLY_BYTES = 256 * 1024


async def fetch_timestamp(url: str, data: bytes) -> bytes | None:
    """An RFC 3161 token for ``data`` from the TSA at ``url``, checked; None (logged) when it cannot be had."""
    nonce = secrets.randbits(63)
    timeout = aiohttp.ClientTimeout(total=TSA_TIMEOUT_SECONDS)
    try:
        async with aiohttp.ClientSession(timeout=timeout) as client, client.post(
            url, data=request(data, nonce=nonce), headers={"Content-Type": CONTENT_TYPE}
        ) as response:
            body = await response.content.read(MAX_REPLY_BYTES)
            if response.status != 200:
                raise TimestampError(f"HTTP {response.status}")
        return token_of_response(body, data, nonce=nonce)
    except (aiohttp.ClientError, TimeoutError, TimestampError) as exc:
        logger.warning("the timestamp authority gave no valid token: %s", exc)
        return None


async def post_to_witness(url: str, head: TreeHead) -> bool:
    """POST a head (with its RFC 3161 token) to the witness; False (logged) when it did not take it."""
    timeout = aiohttp.ClientTimeout(total=TSA_TIMEOUT_SECONDS)
    try:
        async with aiohttp.ClientSession(timeout=timeout) as client, client.post(url, json=head.to_json()) as response:
            if response.status // 100 != 2:
                raise aiohttp.ClientResponseError(response.request_info, (), status=response.status)
        return True
    except (aiohttp.ClientError, TimeoutError) as exc:
        logger.warning("the log witness did not take the head: %s", exc.__class__.__name__)
        return False


async def fetch_witnessed_head(url: str) -> TreeHead | None:
    """The newest head the witness holds; None when it holds none yet (HTTP 404).

    Raises:
        WitnessError: the witness cannot be reached or does not answer with a head.
    """
    timeout = aiohttp.ClientTimeout(total=TSA_TIMEOUT_SECONDS)
    try:
        async with aiohttp.ClientSession(timeout=timeout) as client, client.get(url) as response:
            if response.status == 404:
                return None
            if response.status != 200:
                raise WitnessError(f"HTTP {response.status}")
            body = await response.content.read(MAX_REPLY_BYTES)
        return TreeHead.from_json(json.loads(body))
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise WitnessError(exc.__class__.__name__) from None
    except (ValueError, HeadFormatError) as exc:
        raise WitnessError(f"not a tree head ({exc.__class__.__name__})") from None


class WitnessError(Exception):
    """The witness could not be read (the message says why, in English, for the operator)."""


def _publish(connection: Connection, day: dt.date, head: TreeHead, token: bytes | None, now: dt.datetime) -> int:
    table = PublishedHead.__table__  # type: ignore[attr-defined]
    dialect_insert = pg_insert if connection.dialect.name == "postgresql" else sqlite_insert
    result = connection.execute(dialect_insert(table).values(
        day=day, size=head.tree_size, root=head.root_hash, timestamp=head.timestamp, key_id=head.key_id,
        signature=head.signature, tsa_token=token, published_at=now,
    ).on_conflict_do_nothing(index_elements=["day"]))
    return int(result.rowcount or 0)


@scan("log-head")
async def publish_log_head(*, session: AsyncSession, now: dt.datetime, cities: Cities,
                           timestamping: Timestamping) -> int:
    """Write out today's signed tree head (once a day); returns 1 when this run wrote it.

    The log is the deployment's, one for every municipality: its day is the default municipality's civil day.
    """
    day = now.astimezone(cities.default.tz).date()
    head = await run(session, current_head)
    published = await run(session, lambda connection: connection.execute(
        PublishedHead.__table__.select().where(PublishedHead.__table__.c.day == day)).first())  # type: ignore[attr-defined]
    if published is not None or head.tree_size == 0:
        return 0
    key = signing_key()
    if key is None or not signature_is_valid(head, key.public_key()):
        logger.error("the log's tree head is not signed by this process's key: not published (run notice verify)")
        return 0
    kept = SignedHead.__table__.c  # type: ignore[attr-defined]
    token = await run(session, lambda connection: connection.execute(
        select(kept.tsa_token).where(kept.size == head.tree_size)).scalar())
    await session.commit()  # hold no transaction while the TSA answers
    if token is None and timestamping.tsa_url:
        token = await fetch_timestamp(timestamping.tsa_url, head.signed_bytes())
    return await run(session, _publish, day, head, None if token is None else bytes(token), now)


@dataclasses.dataclass(frozen=True, slots=True)
class HeadRun:
    """What one run of the head job did."""

    signed: TreeHead | None  # the head it signed (None: nothing waited)
    stamped: bool  # it kept a new RFC 3161 token with the newest head
    witnessed: bool  # the witness took the newest head from this run


async def sign_log_heads(*, sessions: SessionFactory, timestamping: Timestamping) -> HeadRun:
    """One run of the head job: sign what waits, timestamp the newest head, post it to the witness."""
    async with sessions() as session:
        signed = await run(session, sign_pending_head)
        await session.commit()  # the lock is held only for the signature
        newest = await run(session, newest_signed_head)
        await session.commit()  # and no transaction while the TSA and the witness answer
        if newest is None or newest.signature is None:
            return HeadRun(signed=signed, stamped=False, witnessed=False)
        stamped = False
        if timestamping.tsa_url and newest.tsa_token is None:
            token = await fetch_timestamp(timestamping.tsa_url, newest.signed_bytes())  # None: asked again next run
            if token is not None:
                stamped = await run(session, store_token, newest.tree_size, token)
                await session.commit()
                newest = dataclasses.replace(newest, tsa_token=token)
        witnessed = False
        claimed = bool(timestamping.witness_url) and await run(session, claim_for_witness, newest.tree_size)
        await session.commit()
        if claimed and timestamping.witness_url:
            witnessed = await post_to_witness(timestamping.witness_url, newest)
            if not witnessed:
                await run(session, release_for_witness, newest.tree_size)
                await session.commit()
    return HeadRun(signed=signed, stamped=stamped, witnessed=witnessed)
