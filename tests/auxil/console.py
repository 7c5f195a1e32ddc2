"""Signing in to the staff console in tests: a link from the same domain function /painel uses, then the button."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import time_machine
from aiohttp.test_utils import TestClient, TestServer

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import ConsoleTimes
from core.settings import Settings
from handlers.web.console.guard import COOKIE as COOKIE_NAME
from models.columns import utcnow
from models.console.signin import issue_link

__all__ = ["COOKIE_NAME", "CSRF", "console_client", "new_link", "sign_in"]
CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')


async def new_link(sessions: SessionFactory, settings: Settings, telegram_user_id: int) -> str:
    """A fresh one-time sign-in path for a staff member."""
    async with sessions() as session:
        link = await issue_link(session=session, telegram_user_id=telegram_user_id, now=utcnow(),
                                times=ConsoleTimes.of(settings))
    return f"/painel/entrar/{link.token}"


async def sign_in(client: TestClient, sessions: SessionFactory, settings: Settings, telegram_user_id: int) -> str:
    """Sign the client in as a staff member, in a fresh browser; return the session's CSRF token (from the page)."""
    client.session.cookie_jar.clear()
    path = await new_link(sessions, settings, telegram_user_id)
    response = await client.post(path, allow_redirects=True)
    assert response.status == 200, await response.text()
    found = CSRF.search(await response.text())
    assert found is not None
    return found.group(1)


@asynccontextmanager
async def console_client(settings: Settings, sessions: SessionFactory, at: dt.datetime) -> AsyncIterator[TestClient]:
    """A client of the whole web app (the console under ``/painel/``) with the clock frozen at ``at``."""
    with time_machine.travel(at, tick=False):
        async with TestClient(TestServer(build_web_app(settings, sessions))) as client:
            yield client
