"""The public face of the transparency log, under ``/verificar`` (JSON for anyone, no sign-in).

=============================================  ==============================================================
route                                          what
=============================================  ==============================================================
``GET /verificar/sth.json``                    the current signed tree head (with its RFC 3161 token once had)
``GET /verificar/sth/historico.json``          the heads written out each day (oldest first), with timestamps
``GET /verificar/consistencia.json?de=M&ate=N``  RFC 9162 consistency proof between tree sizes M and N
``GET /verificar/chave.pem``                   the log's Ed25519 public key
``GET /verificar/{code}/prova.json``           a notice's latest entry and its inclusion proof (code holders)
=============================================  ==============================================================

Hashes and signatures are base64. A proof by code shows the notice's leaf: dates, the stage, the law, and for
every personal field (name, CPF, address, facts, the person's, case's and inspector's ids) an HMAC under a server
secret (leaf version 2, issue 23), so a low-entropy value such as a CPF cannot be found by trying them all; only
the holder of the code can ask for it. Until the next signed head includes the notice's latest entry (at most
``BALCAO_TLOG_MAX_MERGE_DELAY`` seconds after its commit), ``prova.json`` answers 503 with ``Retry-After`` and
``{"status": "pending", "leaf_index": …, "available_within_seconds": …}``.
"""

from __future__ import annotations

import base64

from aiohttp import web

from handlers.web.json_api import error
from handlers.web.keys import sessions_of, settings_of
from models.notices.codes import normalize_code
from models.notices.verification import notice_id_of_code
from models.tlog.heads import public_pem, signing_key
from models.tlog.notices import PendingEntry, notice_proof, signed_current_head
from models.tlog.proofs import consistency_proof, current_head, published_heads, run

routes = web.RouteTableDef()
HEADERS = {"Cache-Control": "no-store", "Access-Control-Allow-Origin": "*", "X-Content-Type-Options": "nosniff"}
MAX_SIZE_DIGITS = 18


@routes.get("/verificar/sth.json")
async def tree_head(request: web.Request) -> web.Response:
    """The current signed tree head."""
    async with sessions_of(request)() as session:
        head = await run(session, signed_current_head)
    return web.json_response(head.to_json(), headers=HEADERS)


@routes.get("/verificar/sth/historico.json")
async def head_history(request: web.Request) -> web.Response:
    """Every head written out, oldest first (the newest 1,000)."""
    async with sessions_of(request)() as session:
        heads = await run(session, published_heads)
    return web.json_response({"heads": [head.to_json() for head in heads]}, headers=HEADERS)


def _size(text: str | None) -> int | None:
    if text is None or not text.isascii() or not text.isdigit() or len(text) > MAX_SIZE_DIGITS:
        return None
    return int(text)


@routes.get("/verificar/consistencia.json")
async def consistency(request: web.Request) -> web.Response:
    """The consistency proof from tree size ``de`` to ``ate`` (default: the current size)."""
    first = _size(request.query.get("de"))
    async with sessions_of(request)() as session:
        head = await run(session, current_head)
        second = _size(request.query.get("ate", str(head.tree_size)))
        if first is None or second is None or not 0 <= first <= second <= head.tree_size:
            return error(400, "bad_request", f"use ?de=M&ate=N with 0 <= M <= N <= {head.tree_size}")
        path = await run(session, consistency_proof, first, second)
    return web.json_response({"first": first, "second": second,
                              "consistency": [base64.b64encode(p).decode() for p in path]}, headers=HEADERS)


@routes.get("/verificar/chave.pem")
async def public_key(_request: web.Request) -> web.Response:
    """The log's public key, PEM."""
    key = signing_key()
    if key is None:
        return error(404, "not_found", "this deployment has no log key (BALCAO_LOG_SIGNING_KEY_FILE)")
    return web.Response(text=public_pem(key.public_key()), content_type="application/x-pem-file", headers=HEADERS)


@routes.get("/verificar/{code}/prova.json")
async def notice_inclusion(request: web.Request) -> web.Response:
    """A notice's latest entry with its inclusion proof in the current head."""
    code = request.match_info["code"][:64]
    async with sessions_of(request)() as session:
        notice_id = await notice_id_of_code(session=session, code=code) if normalize_code(code) else None
        proof = None if notice_id is None else await run(session, notice_proof, notice_id)
    if proof is None:
        return error(404, "not_found", "no notice has this code")
    if isinstance(proof, PendingEntry):  # integrated; the next signed head (within the merge delay) includes it
        within = round(settings_of(request).tlog_max_merge_delay)
        return web.json_response(proof.to_json(within_seconds=within), status=503,
                                 headers={**HEADERS, "Retry-After": str(within)})
    return web.json_response(proof.to_json(), headers=HEADERS)
