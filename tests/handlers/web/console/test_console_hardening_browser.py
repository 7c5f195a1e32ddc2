"""The console under attack, in a real headless Chromium: a script inside a citizen's file never runs on the
console's origin, another site's form cannot sign a browser into the attacker's session (login CSRF), no page of
Balcão can be framed by another site, a session ends at its absolute lifetime however busy (OWASP ASVS V3.3), and an
admin's *Encerrar a função* signs the member's open browser out at once (LGPD Art. 46)."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import socket
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import pytest
import time_machine
from aiohttp import web
from aiohttp.test_utils import TestServer
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.attachments import store_attachment
from models.cases.filing import file_representation
from models.cases.limits import CaseLimits
from models.cases.tables import CaseAttachment
from models.console.api_tokens import token_holder
from models.people import Role, add_staff
from tests.auxil.browser import chromium, require_browser
from tests.auxil.case_files import png
from tests.auxil.case_people import ANA, NOW, Cast, make_cast, representation
from tests.auxil.console import new_link

CLARA = 7101
WAIT = 15
SCRIPT = b"<script>localStorage.setItem('pwned', '1'); document.title = 'PWNED';</script>"
HOSTILE = {
    "application/pdf": b"%PDF-1.4\n<html><body>" + SCRIPT + b"</body></html>",  # a PDF that is a web page
    "text/html": b"<!doctype html><html><body>" + SCRIPT + b"</body></html>",
    "image/svg+xml": b'<svg xmlns="http://www.w3.org/2000/svg"><script>localStorage.setItem("pwned", "1");'
                     b"</script></svg>",
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def port() -> int:
    return _free_port()


@pytest.fixture
def settings(settings: Settings, port: int) -> Settings:
    return settings.model_copy(update={"public_url": f"http://127.0.0.1:{port}"})


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session)


@pytest.fixture
async def server(settings: Settings, sessions: SessionFactory, port: int, cast: Cast) -> AsyncIterator[str]:
    require_browser()
    running = TestServer(build_web_app(settings, sessions), host="127.0.0.1", port=port)
    await running.start_server()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await running.close()


def _sign_in(driver: Any, root: str, path: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(root + path)
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "button.primary"))
    driver.find_element(By.CSS_SELECTOR, "button.primary").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "form.signout"))


def _open_the_files(root: str, link: str, protocol: str, ids: list[int], photo: int) -> dict[str, Any]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    seen: dict[str, Any] = {}
    with chromium() as driver:
        _sign_in(driver, root, link)
        case_page = f"{root}/painel/casos/{protocol}"
        for attachment_id in ids:  # as a clerk who clicks the file's link, or is sent its address
            driver.get(case_page)
            WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.TAG_NAME, "h1"))
            driver.get(f"{case_page}/anexos/{attachment_id}")
            WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.readyState") == "complete")
            seen.setdefault("titles", []).append(driver.title)
        driver.get(case_page)
        WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "img.attachment"))
        WebDriverWait(driver, WAIT).until(lambda d: d.execute_script(
            "return document.querySelector('img.attachment').complete"))
        seen["pwned"] = driver.execute_script("return localStorage.getItem('pwned');")
        seen["preview_drawn"] = driver.execute_script(
            "const i = document.querySelector('img.attachment'); return i.naturalWidth > 0;")
        seen["preview_src"] = driver.find_element(By.CSS_SELECTOR, "img.attachment").get_attribute("src")
        seen["still_signed_in"] = bool(driver.find_elements(By.CSS_SELECTOR, "form.signout"))
    return seen


@pytest.mark.browser
async def test_a_script_in_a_citizens_file_never_runs_on_the_consoles_origin(
    server: str, session: AsyncSession, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """A file served inline on the console's origin runs with the clerk's session; served as a sandboxed download
    (Content-Disposition: attachment, CSP sandbox, nosniff) nothing in it runs, and photos are previews redrawn."""
    photo = await store_attachment(session=session, person_id=cast.joao.id, content=png(), file_name="foto.png",
                                   limits=CaseLimits.of(settings), already=[])
    filed = await file_representation(session=session, person_id=cast.joao.id, now=NOW, cities=cities_of(settings),
                                      form=representation(attachment_ids=[photo.id]))
    ids = []
    for mime, content in HOSTILE.items():  # as a hostile upload or an old row would hold them
        row = CaseAttachment(case_id=filed.case_id, person_id=cast.joao.id, file_name="anexo.bin", mime_type=mime,
                             size=len(content), sha256=hashlib.sha256(content).hexdigest(), content=content)
        session.add(row)
        await session.commit()
        assert row.id is not None
        ids.append(row.id)
    link = await new_link(sessions, settings, CLARA)
    seen = await asyncio.to_thread(_open_the_files, server, link, filed.protocol, ids, photo.id or 0)
    assert seen["pwned"] is None and "PWNED" not in seen["titles"]
    assert seen["preview_drawn"] is True and seen["preview_src"].endswith("/previa")
    assert seen["still_signed_in"] is True


def _cross_site_sign_in(root: str, attacker_link: str, own_link: str) -> dict[str, Any]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    seen: dict[str, Any] = {}
    with chromium() as driver:
        form = (f"<form method='post' action='{root}{attacker_link}'></form>"
                "<script>document.forms[0].submit()</script>")
        driver.get("data:text/html," + quote(form))
        WebDriverWait(driver, WAIT).until(lambda d: d.current_url.startswith(root))
        WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.TAG_NAME, "h1"))
        seen["landed"] = driver.find_element(By.TAG_NAME, "h1").text
        driver.get(root + "/painel/")
        WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.TAG_NAME, "h1"))
        seen["after_attack"] = driver.find_element(By.TAG_NAME, "h1").text
        _sign_in(driver, root, own_link)  # the console's own page still signs in
        seen["own"] = driver.find_element(By.TAG_NAME, "h1").text
    return seen


@pytest.mark.browser
async def test_another_sites_form_cannot_sign_a_browser_into_the_attackers_session(
    server: str, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """Login CSRF: the attacker's own fresh link, posted by a form on another site, would sign the clerk's browser
    into the attacker's session, where the clerk then works unknowing. The browser's Origin/Sec-Fetch-Site say so."""
    attacker = await new_link(sessions, settings, cast.ines.telegram_user_id)
    own = await new_link(sessions, settings, CLARA)
    seen = await asyncio.to_thread(_cross_site_sign_in, server, attacker, own)
    assert seen["landed"] == "Link de entrada recusado"
    assert seen["after_attack"] == "Entrar no painel dos servidores"  # not signed in as anybody
    assert seen["own"] == "Painel"


async def _framing_page(request: web.Request) -> web.Response:
    """The attacker's page: Balcão's page inside a frame of another origin."""
    return web.Response(content_type="text/html", text=f"<!doctype html><title>Outro site</title>"
                        f"<iframe id='f' src='{request.query['src']}' width=800 height=600></iframe>")


@pytest.fixture
async def attacker() -> AsyncIterator[str]:
    """Another site (another origin: a port of its own) that frames whatever it is given."""
    app = web.Application()
    app.router.add_get("/", _framing_page)
    running = TestServer(app, host="127.0.0.1", port=_free_port())
    await running.start_server()
    try:
        yield f"http://127.0.0.1:{running.port}/"
    finally:
        await running.close()


def _framed(root: str, attacker: str, paths: tuple[str, ...]) -> dict[str, str]:
    from selenium.webdriver.support.ui import WebDriverWait

    shown: dict[str, str] = {}
    with chromium() as driver:
        for path in paths:
            driver.get(attacker + "?src=" + quote(root + path))
            WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.readyState") == "complete")
            driver.switch_to.frame("f")
            shown[path] = driver.execute_script("return document.body ? document.body.innerText : '';")
            driver.switch_to.default_content()
    return shown


@pytest.mark.browser
async def test_no_page_can_be_framed_by_another_site(server: str, attacker: str) -> None:
    """CSP frame-ancestors 'none' on every HTML page: /transparencia and /verificar are not shown inside another
    site's frame (clickjacking), nor the console's sign-in page."""
    shown = await asyncio.to_thread(_framed, server, attacker, ("/transparencia", "/verificar", "/painel/"))
    assert "Sapezal" not in shown["/transparencia"] and "7K2M" not in shown["/verificar"], shown
    assert all("refused to connect" in text for text in shown.values()), shown  # Chromium's blocked frame


def _busy_all_day(root: str, link: str, traveller: Any) -> list[str]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    headings = []
    with chromium() as driver:
        _sign_in(driver, root, link)
        for _hour in range(3):  # a request every 50 minutes: never idle for 30
            traveller.shift(dt.timedelta(minutes=50))
            driver.get(root + "/painel/")
            WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.TAG_NAME, "h1"))
            headings.append(driver.find_element(By.TAG_NAME, "h1").text)
    return headings


@pytest.mark.browser
async def test_a_busy_session_still_ends_at_its_absolute_lifetime(
    sessions: SessionFactory, settings: Settings, port: int, cast: Cast
) -> None:
    """OWASP ASVS V3.3.1: BALCAO_CONSOLE_SESSION_HOURS after sign-in the session ends, however often it is used."""
    require_browser()
    short = settings.model_copy(update={"console_session_hours": 2, "console_idle_minutes": 60})
    with time_machine.travel(NOW, tick=True) as traveller:
        link = await new_link(sessions, short, CLARA)
        running = TestServer(build_web_app(short, sessions), host="127.0.0.1", port=port)
        await running.start_server()
        try:
            headings = await asyncio.to_thread(_busy_all_day, f"http://127.0.0.1:{port}", link, traveller)
        finally:
            await running.close()
    assert headings == ["Painel", "Painel", "Entrar no painel dos servidores"]  # 50, 100 and 150 minutes in


def _admin_ends_the_clerks_role(root: str, clerk_link: str, admin_link: str) -> dict[str, Any]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    seen: dict[str, Any] = {}
    with chromium() as clerk, chromium() as admin:
        _sign_in(clerk, root, clerk_link)
        clerk.get(root + "/painel/chaves")  # the clerk's own API token, shown once
        WebDriverWait(clerk, WAIT).until(lambda d: d.find_elements(By.ID, "token-label"))
        clerk.find_element(By.ID, "token-label").send_keys("planilha")
        clerk.find_element(By.XPATH, "//button[text()='Criar a chave']").click()
        WebDriverWait(clerk, WAIT).until(lambda d: d.find_elements(By.ID, "the-key"))
        seen["token"] = clerk.find_element(By.ID, "the-key").get_attribute("value")
        _sign_in(admin, root, admin_link)
        admin.get(root + "/painel/equipe")
        WebDriverWait(admin, WAIT).until(lambda d: d.find_elements(By.TAG_NAME, "table"))
        admin.find_element(By.XPATH, "//button[text()='Encerrar a função de Clara']").click()
        WebDriverWait(admin, WAIT).until(lambda d: "A função foi encerrada" in d.page_source)
        seen["team_after"] = admin.find_element(By.TAG_NAME, "table").text
        clerk.get(root + "/painel/casos")  # at once, with no new sign-in
        WebDriverWait(clerk, WAIT).until(lambda d: d.find_elements(By.TAG_NAME, "h1"))
        seen["clerk_after"] = clerk.find_element(By.TAG_NAME, "h1").text
    return seen


@pytest.mark.browser
async def test_an_admin_ends_a_role_in_the_console_and_the_members_open_browser_is_out_at_once(
    server: str, session: AsyncSession, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """LGPD Art. 46: Equipe → Encerrar a função; the clerk's open console and personal API token stop now."""
    await add_staff(session=session, telegram_user_id=ANA, role=Role.ADMIN, name="Ana", actor="test")
    clerk_link, admin_link = await new_link(sessions, settings, CLARA), await new_link(sessions, settings, ANA)
    seen = await asyncio.to_thread(_admin_ends_the_clerks_role, server, clerk_link, admin_link)
    assert seen["clerk_after"] == "Entrar no painel dos servidores"
    assert "Clara" not in seen["team_after"]
    async with sessions() as fresh:
        assert await token_holder(session=fresh, token=seen["token"], now=NOW) is None
