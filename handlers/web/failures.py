"""The last resort of the HTTP server: no request ever gets a bare 500 or a traceback.

* A value the database cannot store (a number past the column, a NUL character PostgreSQL refuses) is the
  request's fault: 400 with the documented error shape.
* Anything else unexpected is logged with a reference people can quote (``E-7F3A9C``) and answered 500 with
  the same shape and that reference, nothing more.
"""

from __future__ import annotations

import logging
import secrets

from aiohttp import web
from sqlalchemy.exc import DataError, DBAPIError

from handlers import log_context
from handlers.web.json_api import error
from handlers.web.staff_auth import Handler

logger = logging.getLogger("balcao.web.errors")


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    pending: list[BaseException | None] = [exc]
    while pending:
        item = pending.pop()
        if item is None or item in chain or len(chain) > 8:
            continue
        chain.append(item)
        pending += [getattr(item, "orig", None), item.__cause__, item.__context__]
    return chain


def unstorable(exc: BaseException) -> bool:
    """Whether the database refused a value of the request (SQLSTATE class 22, data exception, or an overflow)."""
    for cause in _causes(exc):
        if isinstance(cause, OverflowError | DataError):
            return True
        if str(getattr(cause, "sqlstate", "") or "").startswith("22") or type(cause).__name__ == "DataError":
            return True
    return False


@web.middleware
async def json_failures(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn an unhandled exception into a JSON answer: 400 for unstorable input, 500 with a reference otherwise."""
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except (DBAPIError, OverflowError) as exc:
        if not unstorable(exc):
            return _internal(exc)
        return error(400, "bad_request", "A value in the request cannot be stored (a number too large, or a NUL).")
    except Exception as exc:  # the last resort: never a traceback to the client
        return _internal(exc)


def _internal(exc: BaseException) -> web.Response:
    reference = "E-" + secrets.token_hex(3).upper()
    log_context.bind(error_ref=reference)
    logger.error("unhandled error ref=%s", reference, exc_info=exc)
    return error(500, "internal", f"Something went wrong on our side. Quote this reference: {reference}.",
                 reference=reference)
