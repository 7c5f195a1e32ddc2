"""The console speaks to a clerk (issue 20 §2), read in a real headless Chromium as a clerk reads it: the audit log
and the templates page in words of the reader's language, not codes or English; every page with 0 axe-core
violations of WCAG 2.1 A and AA; the broadcasts sent before listed with their counts, and no "Parar o envio"
once nothing waits; and the cases table read on a 390 px phone without scrolling sideways."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.sandbox.demo_data import demo_csv
from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.audit import record
from models.broadcasts import Broadcast, BroadcastStatus
from models.cases.attachments import store_attachment
from models.cases.filing import file_representation
from models.cases.limits import CaseLimits
from models.cases.tables import Relation
from models.drivers.importing import import_drivers
from models.drivers.tables import Driver
from models.notices.filings import store_filing_attachment
from models.notices.tables import FilingKind, FilingOutcome, NoticeFiling
from models.outbox import OutboxMessage, OutboxStatus
from notifications.broadcasts import AudienceChoice, create_broadcast
from notifications.plugins import load_all
from tests.auxil.broadcasts import sent_by
from tests.auxil.browser import axe_violations, chromium, overflows_horizontally, require_axe, require_browser
from tests.auxil.case_files import png
from tests.auxil.case_people import ANA, NOW, Cast, make_cast, representation
from tests.auxil.console import new_link
from tests.auxil.notices import cp_auto, designate, issue

WAIT = 15
CLARA = 7101


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
    return await make_cast(session, with_admin=True)


@pytest.fixture
async def root(settings: Settings, sessions: SessionFactory, port: int, cast: Cast) -> AsyncIterator[str]:
    require_browser()
    require_axe()
    running = TestServer(build_web_app(settings, sessions), host="127.0.0.1", port=port)
    await running.start_server()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await running.close()


def _read_pages(root: str, link: str, paths: list[str], *, width: int = 1280) -> dict[str, Any]:
    """Sign in with the link, then read each page ``width`` px wide: its text, its axe violations, whether it or one
    of its tables scrolls sideways, and the column names a stacked table writes before each cell of its first row."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    seen: dict[str, Any] = {}
    with chromium() as driver:
        driver.set_window_size(width, 844)  # after the start: a window is never opened narrower than 500 px
        driver.get(root + link)
        WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "button.primary"))
        driver.find_element(By.CSS_SELECTOR, "button.primary").click()
        WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "form.signout"))
        for path in paths:
            driver.get(root + path)
            WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.TAG_NAME, "h1"))
            seen[path] = {"text": driver.find_element(By.TAG_NAME, "main").text, "axe": axe_violations(driver),
                          "previews": driver.execute_script(
                              "return [...document.querySelectorAll('img.attachment')]"
                              ".map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0]);"),
                          "links": [link.get_attribute("href")
                                    for link in driver.find_elements(By.CSS_SELECTOR, "a[download]")],
                          "page_scrolls": overflows_horizontally(driver), "tables_scroll": driver.execute_script(
                              "return [...document.querySelectorAll('.table-wrap')]"
                              ".some(w => w.scrollWidth > w.clientWidth + 1);"),
                          "labels": driver.execute_script(
                              "return [...document.querySelectorAll('table.stacks tbody tr:first-child td')]"
                              ".map(td => getComputedStyle(td, '::before').content);")}
            driver.set_window_size(390, 844)  # and on a phone: no sideways scroll of the page
            seen[path]["phone_scrolls"] = overflows_horizontally(driver)
            driver.set_window_size(width, 844)
    return seen


@pytest.mark.browser
async def test_the_audit_log_and_the_templates_page_are_in_words_of_the_readers_language(
    root: str, session: AsyncSession, sessions: SessionFactory, settings: Settings
) -> None:
    """Ana's sign-in reads "Entrou no painel · Sessão no painel", a detail without a value reads "dias: —"
    (not ``console.signin console_session`` and ``days=None``); the templates page asks for the "Texto em Inglês"
    (not "English") and says what ``{protocol}`` becomes."""
    await record(session=session, actor="system", action="console.export", entity="export", entity_id="",
                 details={"days": None, "format": "csv"})
    await session.commit()
    seen = await asyncio.to_thread(_read_pages, root, await new_link(sessions, settings, ANA),
                                   ["/painel/auditoria", "/painel/modelos"])
    audit, templates = seen["/painel/auditoria"], seen["/painel/modelos"]
    assert "Entrou no painel" in audit["text"] and "Sessão no painel" in audit["text"]
    assert "dias: —" in audit["text"] and "o sistema" in audit["text"]
    for code in ("console.signin", "console_session", "console.export", "days=", "None", "system"):
        assert code not in audit["text"]
    assert "Texto em Inglês" in templates["text"] and "Texto em Espanhol" in templates["text"]
    assert "English" not in templates["text"] and "Español" not in templates["text"]
    assert "{protocol}: o número de protocolo do caso" in templates["text"]
    assert audit["axe"] == [] and templates["axe"] == []
    assert not audit["phone_scrolls"] and not templates["phone_scrolls"]


@pytest.mark.browser
async def test_the_cases_table_fits_a_phone(
    root: str, session: AsyncSession, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """At 390 px the queue's seven columns become one card per case: neither the page nor the table scrolls
    sideways, and each value still says its column ("Prazo: …")."""
    for _ in range(3):
        await file_representation(session=session, person_id=cast.joao.id, now=NOW, cities=cities_of(settings),
                                  form=representation())
    seen = await asyncio.to_thread(_read_pages, root, await new_link(sessions, settings, CLARA), ["/painel/casos"],
                                   width=390)
    cases = seen["/painel/casos"]
    assert '"Prazo: "' in cases["labels"] and '"Situação: "' in cases["labels"]
    assert cases["page_scrolls"] is False and cases["tables_scroll"] is False
    assert cases["axe"] == []


async def _broadcast(session: AsyncSession, settings: Settings, outcomes: list[OutboxStatus]) -> int:
    """A broadcast to the linked drivers whose messages ended as ``outcomes`` (the dispatcher has not yet noticed
    that nothing waits, so the broadcast is still active and has no end time)."""
    load_all()  # the audiences
    created = await create_broadcast(session=session, **sent_by(settings), choice=AudienceChoice("drivers"),
                                     text="Vistoria anual na sexta.", actor="staff:7101", now=NOW)
    messages = (await session.exec(select(OutboxMessage).where(OutboxMessage.broadcast_id == created.id)
                                   .order_by(col(OutboxMessage.id)))).all()
    assert len(messages) == len(outcomes)
    for message, outcome in zip(messages, outcomes, strict=True):
        message.status = outcome
    await session.commit()
    return created.id


@pytest.mark.browser
async def test_the_broadcasts_sent_before_show_their_counts_and_stop_goes_once_nothing_waits(
    root: str, session: AsyncSession, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """Clara sees her finished broadcast among those "Enviados antes" with 1 sent of 2 and 1 failed; the one whose
    messages all went has no "Parar o envio" (it would stop nothing), and says it finished."""
    await import_drivers(session=session, text=demo_csv(NOW.date()), actor="test", cities=cities_of(settings),
                         today=NOW.date())
    drivers = (await session.exec(select(Driver).order_by(col(Driver.id)))).all()
    drivers[0].person_id, drivers[1].person_id = cast.joao.id, cast.maria.id
    await session.commit()
    finished = await _broadcast(session, settings, [OutboxStatus.SENT, OutboxStatus.FAILED])
    done = await _broadcast(session, settings, [OutboxStatus.SENT, OutboxStatus.SENT])
    row = await session.get(Broadcast, finished)
    assert row is not None
    row.finished_at, row.status = NOW, BroadcastStatus.FINISHED
    await session.commit()
    seen = await asyncio.to_thread(_read_pages, root, await new_link(sessions, settings, CLARA),
                                   ["/painel/avisos", f"/painel/avisos/{done}"])
    listing, page = seen["/painel/avisos"], seen[f"/painel/avisos/{done}"]
    assert "Enviados antes" in listing["text"]
    assert f"Aviso {finished}" in listing["text"] and "1 de 2" in listing["text"]
    assert "Parar o envio" not in page["text"] and "Concluído." in page["text"]
    assert listing["axe"] == [] and page["axe"] == []
    assert not listing["phone_scrolls"] and not page["phone_scrolls"]


@pytest.mark.browser
async def test_the_case_page_shows_what_the_clerk_must_check(
    root: str, session: AsyncSession, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """CP Art. 31 sole paragraph: how the author learned of it and their relation to the accused (a former one with
    its end), and the caption the author typed under the photo."""
    photo = await store_attachment(session=session, person_id=cast.joao.id, content=png(), file_name="foto.png",
                                   limits=CaseLimits.of(settings), already=[],
                                   caption="O caminhão na frente do número 200")
    filed = await file_representation(session=session, person_id=cast.joao.id, now=NOW, cities=cities_of(settings),
                                      form=representation(attachment_ids=[photo.id], learned_how="Vi da janela",
                                                          relation=Relation.FORMER,
                                                          relation_ended_on=NOW.date().replace(year=2025)))
    seen = await asyncio.to_thread(_read_pages, root, await new_link(sessions, settings, CLARA),
                                   [f"/painel/casos/{filed.protocol}"])
    page = seen[f"/painel/casos/{filed.protocol}"]
    assert "Como o autor ficou sabendo\nVi da janela" in page["text"]
    assert "Relação com o denunciado\nFoi sócio, diretor, preposto ou empregado, e saiu · até" in page["text"]
    assert "O caminhão na frente do número 200" in page["text"]
    assert page["axe"] == [] and not page["phone_scrolls"]


@pytest.mark.browser
async def test_an_appeal_shows_its_files_the_reclamacao_it_follows_and_the_decision_on_it(
    root: str, session: AsyncSession, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """The clerk deciding a recurso (CP Art. 43–46) reads the files sent with it (a photo previewed, each a
    download), and the reclamação before it with its own file and the decision it appeals against."""
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
    assert issued.notice.id is not None
    first_file = await store_filing_attachment(session=session, city=cities_of(settings).default,
                                               person_id=cast.maria.id,
                                               content=png(), file_name="terreno.png", already=[])
    appeal_file = await store_filing_attachment(session=session, city=cities_of(settings).default,
                                                person_id=cast.maria.id,
                                                content=png(seed=1), file_name="recibo.png", already=[])
    reclamacao = NoticeFiling(notice_id=issued.notice.id, kind=FilingKind.RECLAMACAO, person_id=cast.maria.id,
                              text="O terreno foi limpo no dia seguinte.", filed_by="person", filed_at=NOW,
                              decided_at=NOW, decided_by="staff:97002", outcome=FilingOutcome.DENIED,
                              decision_text="Improcedente: as fotos do fiscal mostram o mato no dia da vistoria.")
    appeal = NoticeFiling(notice_id=issued.notice.id, kind=FilingKind.RECURSO, person_id=cast.maria.id,
                          text="Recorro: paguei a limpeza, veja o recibo.", filed_by="person", filed_at=NOW)
    session.add_all([reclamacao, appeal])  # as file_filing and decide_filing leave them
    await session.flush()
    first_file.filing_id, appeal_file.filing_id = reclamacao.id, appeal.id
    await session.commit()
    seen = await asyncio.to_thread(_read_pages, root, await new_link(sessions, settings, CLARA), ["/painel/defesas"])
    page = seen["/painel/defesas"]
    assert "Recorro: paguei a limpeza" in page["text"] and "O terreno foi limpo no dia seguinte." in page["text"]
    assert "as fotos do fiscal mostram o mato" in page["text"] and "Improcedente" in page["text"]
    assert [src.endswith("/previa") and drawn for src, drawn in page["previews"]] == [True, True]
    assert {link.rsplit("/painel/", 1)[1] for link in page["links"]} == {
        f"defesas/{appeal.id}/anexos/{appeal_file.id}", f"defesas/{reclamacao.id}/anexos/{first_file.id}"}
    assert page["axe"] == [] and not page["phone_scrolls"]


def _find_the_infraction(root: str, link: str) -> dict[str, Any]:
    """On the issue form, type everyday words in the search field and choose the first suggestion."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    seen: dict[str, Any] = {}
    with chromium() as driver:
        wait = WebDriverWait(driver, WAIT)
        driver.get(root + link)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "button.primary"))
        driver.find_element(By.CSS_SELECTOR, "button.primary").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "form.signout"))
        driver.get(root + "/painel/notificacoes/nova")
        wait.until(lambda d: d.find_elements(By.ID, "f-infraction_search"))
        driver.find_element(By.ID, "f-offender_name").send_keys("Joaquim Motorista")
        driver.find_element(By.ID, "f-infraction_search").send_keys("vistoria vencida")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#infraction-results button.found"))
        seen["axe"] = axe_violations(driver)
        seen["suggested"] = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#infraction-results button")]
        seen["url_before"] = driver.current_url
        driver.find_element(By.CSS_SELECTOR, "#infraction-results button.found").click()
        wait.until(lambda d: d.find_element(By.ID, "f-infraction_code").get_attribute("value"))
        seen["code"] = driver.find_element(By.ID, "f-infraction_code").get_attribute("value")
        seen["law"] = driver.find_element(By.ID, "f-rulebook").get_attribute("value")
        seen["name"] = driver.find_element(By.ID, "infraction-name").text
        seen["offender"] = driver.find_element(By.ID, "f-offender_name").get_attribute("value")
        seen["url_after"] = driver.current_url
    return seen


@pytest.mark.browser
async def test_the_notice_form_suggests_the_infraction_by_its_words(
    root: str, session: AsyncSession, sessions: SessionFactory, settings: Settings, cast: Cast
) -> None:
    """As in the chat, "vistoria vencida" finds the Lei 1.533 row; choosing it fills its code and its law in place,
    without leaving the page or losing what was typed, and the form has 0 axe violations."""
    await designate(session, settings, CLARA)
    seen = await asyncio.to_thread(_find_the_infraction, root, await new_link(sessions, settings, CLARA))
    assert seen["suggested"][0].startswith("L1533-26-I — Não atender a notificação para realizar a vistoria")
    assert seen["code"] == "L1533-26-I" and seen["law"] == "sapezal-1533"
    assert seen["name"].startswith("Escolhida: L1533-26-I — ")
    assert seen["offender"] == "Joaquim Motorista" and seen["url_after"] == seen["url_before"]
    assert seen["axe"] == []
