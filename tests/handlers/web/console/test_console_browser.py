"""The console in a real headless Chromium: a citizen files a representação in the chat, the clerk asks the bot for
a link (/painel), signs in with the keyboard, finds the case in the queue, looks at the photo and archives it with a
reason; the citizen reads the reason in the chat. An inspector issues a notice in the console and the citizen takes
ciência of it in the chat, which the console then shows. Every page has 0 axe-core violations of WCAG 2.1 A and AA and
fits a 390 px phone without sideways scrolling."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from sqlmodel import select

from bot.sandbox.demo_data import demo_csv
from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.tables import Case, CaseStatus
from models.columns import utcnow
from models.drivers.importing import import_drivers
from models.drivers.tables import Driver
from models.open311.keys import client_for_key
from models.people import Person, Role, add_staff
from models.when import municipal_today
from tests.auxil.browser import axe_violations, chromium, overflows_horizontally, require_axe, require_browser
from tests.auxil.case_chat import Talk, deliver
from tests.auxil.case_files import png
from tests.auxil.notices import designate, opted_in

JOAO, CLARA = 870001, 870101
LINK = re.compile(r"(https?://\S+/painel/entrar/[A-Za-z0-9_-]+)")
WAIT = 15


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def port() -> int:
    return _free_port()


@pytest.fixture
def settings(settings: Settings, port: int) -> Settings:
    """The bot writes links to the console server this test starts."""
    return settings.model_copy(update={"public_url": f"http://127.0.0.1:{port}"})


async def _file_in_the_chat(joao: Talk) -> None:
    kind = await joao.send("/representacao", "What would you like to report?")
    await joao.press(kind, "rep:kind:cp", "What is your full name?")
    await joao.send("João Batista Pereira", "profession")
    await joao.send("Pedreiro", "What is your address")
    cpf = await joao.send("Rua das Flores, 123, Centro", "type your CPF")
    results = await joao.press(cpf, "rep:skip:cpf", "Type one or two words")
    results = await joao.send("lixo na rua", "Is it one of these?")
    accused = await joao.press(results, "rep:inf:CP-I-9", "Describe briefly what happened")
    accused = await joao.send("Um caminhão despeja entulho na calçada toda sexta.", "Who is responsible?")
    where = await joao.press(accused, "rep:skip:accused", "Where did it happen?")
    when = await joao.location(-14.6722, -52.3545, "When did it happen?")
    evidence = await joao.press(when, "rep:when:1", "Send photos or documents")
    with_file = await joao.photo(png(), "File received (1 of 5)")
    learned = await joao.press(with_file, "rep:files:done", "How did you learn of it?")
    relation = await joao.press(learned, "rep:learn:saw", "partner, director, agent or employee")
    review = await joao.press(relation, "rep:rel:none", "Please check your report")
    await joao.press(review, "rep:send", "Your protocol number is")
    assert where and evidence


def _clerk_works_the_case(link: str, protocol: str, shots: Path, on_progress: threading.Event) -> dict[str, Any]:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    seen: dict[str, Any] = {"violations": {}, "overflow": []}
    with chromium(window="1280,900") as driver:
        wait = WebDriverWait(driver, WAIT)

        def check(name: str) -> None:
            seen["violations"][name] = axe_violations(driver)
            driver.set_window_size(390, 844)
            if overflows_horizontally(driver):
                seen["overflow"].append(name)
            driver.save_screenshot(str(shots / f"{name}-390.png"))
            driver.set_window_size(1280, 900)

        driver.get(link)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "button.primary"))
        check("signin")
        ActionChains(driver).send_keys(Keys.TAB).send_keys(Keys.TAB).perform()  # skip link, then the button
        seen["focused"] = driver.execute_script("return document.activeElement.textContent.trim();")
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "svg[role=img]"))
        check("dashboard")
        driver.find_element(By.LINK_TEXT, "Casos").click()
        wait.until(lambda d: d.find_elements(By.LINK_TEXT, protocol))
        check("cases")
        driver.find_element(By.LINK_TEXT, protocol).click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "img.attachment"))
        seen["photo_loaded"] = driver.execute_script(
            "const i = document.querySelector('img.attachment'); return i.complete && i.naturalWidth > 0;")
        seen["map"] = driver.find_element(By.PARTIAL_LINK_TEXT, "OpenStreetMap").get_attribute("href")
        check("case")
        driver.find_element(By.ID, "outcome-archive").click()
        driver.find_element(By.ID, "text-decide").send_keys("Fiscal foi ao local e não havia entulho.")
        driver.find_element(By.XPATH, "//button[text()='Registrar a decisão']").click()
        wait.until(lambda d: "Decisão registrada" in d.page_source)
        check("decided")
        for name, path in (("audit", "/painel/auditoria"), ("exports", "/painel/exportar"),
                           ("templates", "/painel/modelos"), ("notices", "/painel/notificacoes"),
                           ("deliveries", "/painel/entregas"), ("filings", "/painel/defesas"),
                           ("drivers", "/painel/motoristas"), ("driver", "/painel/motoristas/2025/0142"),
                           ("notice_form", "/painel/notificacoes/nova"), ("payments", "/painel/pagamentos"),
                           ("team", "/painel/equipe"), ("api_tokens", "/painel/chaves"),
                           ("competences", "/painel/competencias")):
            driver.get(link.split("/painel/")[0] + path)
            wait.until(lambda d: d.find_elements(By.TAG_NAME, "h1"))
            check(name)
        driver.get(link.split("/painel/")[0] + "/painel/open311")  # Open311 keys, by keyboard alone
        wait.until(lambda d: d.find_elements(By.ID, "client-name"))
        driver.find_element(By.ID, "client-name").send_keys("App Cidadão", Keys.ENTER)
        wait.until(lambda d: d.find_elements(By.ID, "the-key"))
        seen["key"] = driver.find_element(By.ID, "the-key").get_attribute("value")
        seen["copy_offered"] = driver.find_element(By.ID, "copy-key").is_displayed()
        check("open311_key")
        driver.find_element(By.PARTIAL_LINK_TEXT, "Revogar a chave de App Cidadão").send_keys(Keys.ENTER)
        wait.until(lambda d: d.find_elements(By.XPATH, "//button[text()='Revogar a chave']"))
        check("open311_revoke")
        driver.find_element(By.XPATH, "//button[text()='Revogar a chave']").send_keys(Keys.ENTER)
        wait.until(lambda d: "Revogada em" in d.page_source)
        driver.get(link.split("/painel/")[0] + "/painel/avisos")  # a broadcast whose progress moves on the page
        Select(driver.find_element(By.ID, "audience")).select_by_value("drivers")
        wait.until(lambda d: "1 pessoa vai receber" in d.find_element(By.ID, "live-count").text)  # the live count
        driver.find_element(By.ID, "text").send_keys("Vistoria anual na sexta-feira, das 8h às 12h.")
        driver.find_element(By.XPATH, "//button[text()='Ver prévia']").click()
        wait.until(lambda d: d.find_elements(By.XPATH, "//button[text()='Confirmar e enviar']"))
        check("broadcast_preview")
        driver.find_element(By.XPATH, "//button[text()='Confirmar e enviar']").click()
        wait.until(lambda d: d.find_elements(By.ID, "p-sent"))
        seen["sent_before"] = driver.find_element(By.ID, "p-sent").text
        check("broadcast_progress")
        on_progress.set()  # now the dispatcher sends it
        WebDriverWait(driver, 60).until(lambda d: d.find_element(By.ID, "p-sent").text == "1")
        seen["summary_after"] = driver.find_element(By.ID, "p-summary").text
        driver.get(link.split("/painel/")[0] + "/painel/notificacoes/nova")
        wait.until(lambda d: d.find_elements(By.ID, "type-auto"))
        driver.find_element(By.ID, "type-auto").click()
        driver.find_element(By.XPATH, "//button[text()='Emitir a notificação']").click()  # empty: refused
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[aria-invalid=true]"))
        seen["refusal"] = driver.find_element(By.ID, "e-place-1").text
        check("notice_refused")
        driver.find_element(By.XPATH, "//button[text()='Sair']").click()
        wait.until(lambda d: "Você saiu" in d.page_source)
        check("signed_out")
        driver.get("data:text/html,<html><body><img src='x.png'><button></button></body></html>")
        seen["control"] = {v["id"] for v in axe_violations(driver)}  # axe does find what is wrong
    return seen


@pytest.mark.browser
async def test_a_clerk_works_a_citizens_case_from_the_bots_link(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory, port: int, tmp_path: Path
) -> None:
    require_browser()
    require_axe()
    async with sessions() as session:
        session.add(Person(telegram_user_id=CLARA, chat_id=CLARA, first_name="Clara", locale="pt_BR"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.ADMIN, name="Clara", actor="test")
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="pt-br"))
    await _file_in_the_chat(joao)
    async with sessions() as session:
        case = (await session.exec(select(Case))).one()
    found = LINK.search((await clara.send("/painel", "Painel dos servidores")).text)
    assert found is not None

    async with sessions() as session:  # one linked driver (João) for the broadcast
        await import_drivers(session=session, text=demo_csv(municipal_today(settings.tz, now=utcnow())), actor="test",
                             cities=cities_of(settings), today=municipal_today(settings.tz, now=utcnow()))
        carlos = (await session.exec(select(Driver).order_by(Driver.id))).first()  # type: ignore[arg-type]
        joao_person = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        assert carlos is not None
        carlos.person_id = joao_person.id
        await session.commit()

    server = TestServer(build_web_app(settings, sessions), host="127.0.0.1", port=port)
    await server.start_server()
    on_progress = threading.Event()
    try:
        browsing = asyncio.create_task(asyncio.to_thread(_clerk_works_the_case, found.group(1), case.protocol,
                                                         tmp_path, on_progress))
        while not on_progress.is_set() and not browsing.done():
            await asyncio.to_thread(on_progress.wait, 0.5)
        if browsing.done():
            await browsing  # the browser side failed: show why
        await deliver(settings, sessions, emulator)  # the bot sends the broadcast (and the case's news)
        seen = await browsing
    finally:
        await server.close()

    assert {page: v for page, v in seen["violations"].items() if v} == {}
    assert {"image-alt", "button-name", "html-has-lang"} <= seen["control"]
    assert seen["overflow"] == []
    assert seen["sent_before"] == "0" and seen["summary_after"] == "1 de 1 concluídas"  # moved by itself (SSE)
    assert "Art. " in seen["refusal"]  # the article next to the field
    assert seen["focused"] == "Entrar" and seen["photo_loaded"] is True
    assert len(seen["key"]) >= 40 and seen["copy_offered"] is True  # shown once, with a copy button
    async with sessions() as session:
        assert (await client_for_key(session=session, key=seen["key"])) is None  # revoked from the keyboard
    assert seen["map"].startswith("https://www.openstreetmap.org/?mlat=-14.672200&mlon=-52.354500")
    async with sessions() as session:
        assert (await session.exec(select(Case))).one().status is CaseStatus.ARCHIVED
    await deliver(settings, sessions, emulator)
    told = await emulator.wait_for_message(JOAO, lambda m: "checked and archived" in (m.text or ""), after=0)
    assert "Fiscal foi ao local e não havia entulho." in told.text


MARIA, INES = 870002, 870102


def _inspector_issues_a_notice(link: str, maria: int, issued: threading.Event, acknowledged: threading.Event
                               ) -> dict[str, Any]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    seen: dict[str, Any] = {}
    with chromium(window="1280,900") as driver:
        wait = WebDriverWait(driver, WAIT)
        driver.get(link)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "button.primary"))
        driver.find_element(By.CSS_SELECTOR, "button.primary").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "svg[role=img]"))
        driver.get(link.split("/painel/")[0] + "/painel/notificacoes/nova")
        wait.until(lambda d: d.find_elements(By.ID, "type-auto"))
        driver.find_element(By.ID, "type-auto").click()
        Select(driver.find_element(By.ID, "f-rulebook")).select_by_value("nx-posturas")
        for field, value in (("infraction_code", "CP-I-1"), ("offender_name", "Maria Aparecida da Silva"),
                             ("place", "Rua 7 de Setembro, 200"), ("facts", "Terreno com mato alto."),
                             ("person_telegram_id", str(maria))):  # the signer is Inês, signed in (issue 18 §2)
            driver.find_element(By.ID, f"f-{field}").send_keys(value)
        driver.execute_script(  # the date and time pickers, set as a person would pick them; a day of 2026, the
            "document.getElementById('f-drawn_up_on').value = '2026-03-02';"  # year whose UPF-NX is configured
            "document.getElementById('f-drawn_up_time').value = '09:30';")
        driver.find_element(By.XPATH, "//button[text()='Emitir a notificação']").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "p.notice[role=status]"))
        seen["issued"] = driver.find_element(By.CSS_SELECTOR, "p.notice[role=status]").text
        seen["before"] = driver.find_element(By.CSS_SELECTOR, "tbody tr").text
        issued.set()  # the bot delivers it to Maria, who presses "Tomo ciência"
        if not acknowledged.wait(WAIT):
            return seen
        driver.get(link.split("/painel/")[0] + "/painel/notificacoes")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "tbody tr"))
        seen["after"] = driver.find_element(By.CSS_SELECTOR, "tbody tr").text
        seen["violations"] = axe_violations(driver)
    return seen


@pytest.mark.browser
async def test_a_notice_issued_in_the_console_reaches_the_citizen_who_takes_ciencia(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory, port: int
) -> None:
    """CP Art. 36 and the electronic delivery: the inspector of Nova Xavantina issues an auto in the console for
    Maria, who accepted notices in the bot; it arrives in her chat with its "Tomo ciência" button, she presses it,
    and the console's list shows the ciência, the day and how."""
    require_browser()
    require_axe()
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="pt-br"))
    ines = Talk(emulator, emulator.add_user(INES, "Inês", language_code="pt-br"))
    await maria.send("/start", "O que você quer fazer?")
    await ines.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=INES, role=Role.INSPECTOR, name="Inês", actor="test",
                        municipality="nova-xavantina")
        await designate(session, settings, INES)  # CP Art. 12: the agent designated to draw up notices
        person = (await session.exec(select(Person).where(Person.telegram_user_id == MARIA))).one()
        assert person.id is not None
        await opted_in(session, person.id)  # she accepted electronic notices (the terms, in the bot)
    found = LINK.search((await ines.send("/painel", "Painel dos servidores")).text)
    assert found is not None

    server = TestServer(build_web_app(settings, sessions), host="127.0.0.1", port=port)
    await server.start_server()
    issued, acknowledged = threading.Event(), threading.Event()
    try:
        browsing = asyncio.create_task(asyncio.to_thread(_inspector_issues_a_notice, found.group(1), MARIA, issued,
                                                         acknowledged))
        while not issued.is_set() and not browsing.done():
            await asyncio.to_thread(issued.wait, 0.5)
        if browsing.done():
            await browsing  # the browser side failed: show why
        await deliver(settings, sessions, emulator)
        delivered = await emulator.wait_for_message(MARIA, lambda m: "Tomo ciência" in (m.text or ""), after=0)
        button = next(str(b["callback_data"]) for b in delivered.inline_buttons
                      if str(b["callback_data"]).startswith("notif:ciencia:"))
        await maria.press(delivered, button, "Recebimento registrado")
        acknowledged.set()
        seen = await browsing
    finally:
        acknowledged.set()
        await server.close()

    number = re.search(r"AI-\d{4}-\d{6}", seen["issued"])
    assert number is not None and number.group(0) in delivered.text  # the same notice, in her chat
    assert "Aguardando ciência" in seen["before"] and "ainda não" in seen["before"]
    assert number.group(0) in seen["after"] and "Notificado" in seen["after"]
    assert "tocou em Tomo ciência no bot" in seen["after"]
    assert seen["violations"] == []
    assert emulator.unanswered_callbacks() == []
