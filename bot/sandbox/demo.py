"""The offline sandbox: the emulator, the real bot pointed at it, demo data, and the web chat.

``python -m bot demo`` (and ``make run`` without a token) ends here. Everything stays on this machine:
the bot talks to the local emulator, never to Telegram.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Iterable
from pathlib import Path

from pydantic import SecretStr
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.running import serve
from bot.sandbox.demo_data import seed_drivers
from bot.sandbox.emulator import BotApiEmulator
from bot.sandbox.signing_ca import with_test_certificates
from bot.sandbox.state import DEFAULT_PERSONAS, Persona
from core import migrate
from core.db import database
from core.i18n import translator
from core.municipalities import ACT_KINDS, ActKind
from core.settings import Settings
from models.authorities import authorities_of, grant_authority
from models.columns import utcnow
from models.municipalities import sync_municipalities
from models.people import Role, StaffMember, add_staff
from models.when import municipal_today

logger = logging.getLogger("balcao.demo")
DEMO_DATABASE_URL = "sqlite+aiosqlite:///./balcao-demo.db"
DEMO_MUNICIPALITIES_FILE = Path(__file__).with_name("municipalities.toml")
"""Sapezal and Nova Xavantina, each with its law; their unit values are illustrative (every fine says so)."""

DEMO_CA_DIRECTORY = Path("balcao-demo-ca")
"""Where the demo keeps its test CA and each municipality's signing certificate (made on first start)."""

STAFF_PERSONA: Persona = DEFAULT_PERSONAS[2]
"""Ana, the city hall employee of the web chat, is an admin in the demo (she sees every staff journey)."""

ROLE_PERSONAS: tuple[tuple[Persona, Role, tuple[ActKind, ...]], ...] = (
    (DEFAULT_PERSONAS[3], Role.CLERK, ("primeira_instancia",)),
    (DEFAULT_PERSONAS[4], Role.INSPECTOR, ("autuar",)),
    (DEFAULT_PERSONAS[5], Role.OMBUDSMAN, ("ouvidoria",)),
)
"""One persona for each other staff role, with the acts it is designated for in both municipalities (issue 20
§1): Clara the clerk (representações; first instance, CP Art. 40), Inês the inspector (ride-hailing; draws up
notices, CP Art. 12), Otávio the Ombudsman (every ouvidoria complaint, the restricted ones too: L13460 Art. 10 §7)."""


async def seed(settings: Settings) -> list[str]:
    """Load the demo data: Ana as admin, a persona for each other staff role, the demo drivers (idempotent).

    Ana holds every competence in both municipalities (illustrative designations), so the demo walks through
    issuing and deciding; the law still refuses her judging her own auto or her own first-instance decision.

    Returns:
        Hints to print for the person trying the demo.
    """
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        await sync_municipalities(session=session, served=settings.municipalities)
        member = await add_staff(
            session=session,
            telegram_user_id=STAFF_PERSONA.user_id,
            role=Role.ADMIN,
            name=f"{STAFF_PERSONA.first_name} {STAFF_PERSONA.last_name or ''}".strip(),
            actor="demo",
            registration="0001",
        )
        await _designate(session, settings, member, ACT_KINDS)
        for persona, role, acts in ROLE_PERSONAS:
            staff = await add_staff(session=session, telegram_user_id=persona.user_id, role=role, actor="demo",
                                    name=f"{persona.first_name} {persona.last_name or ''}".strip(),
                                    registration=f"000{persona.user_id % 10}")
            await _designate(session, settings, staff, acts)
        return await seed_drivers(session=session, settings=settings, today=municipal_today(settings.tz, now=utcnow()))


async def _designate(session: AsyncSession, settings: Settings, member: StaffMember, acts: Iterable[ActKind]) -> None:
    """Designate the member, in every municipality, for the acts not yet held (illustrative designations)."""
    held = {(row.act, row.municipality) for row in await authorities_of(session=session,
                                                                         staff_member_id=member.id or 0)}
    for place in settings.municipalities.values():
        for act in acts:
            if (act, place.slug) not in held:
                await grant_authority(session=session, member=member, act=act, municipality=place, actor="demo",
                                      designation_kind="Portaria", designation_number="1/2026 (ilustrativa)",
                                      designation_on=dt.date(2026, 1, 2))


async def run_demo(
    settings: Settings,
    *,
    emulator_port: int,
    ready: asyncio.Future[str] | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    """Migrate and seed the demo database, start the emulator and serve the bot until stopped.

    Args:
        settings: settings; the token and API URL are replaced by the emulator's.
        emulator_port: port of the emulator and its web chat (0 picks a free one).
        ready: receives the web chat's URL once the bot is up (tests wait on it).
        stop: set it to stop; SIGTERM/SIGINT also stop.
    """
    # The demo signs its PDFs with certificates of a local test CA (no legal value; README: Signing certificates).
    settings = with_test_certificates(settings.as_demo(), DEMO_CA_DIRECTORY)
    await asyncio.to_thread(migrate.upgrade, settings.database_url, default_municipality=settings.municipality)
    hints = await seed(settings)  # already in the CLI locale
    emulator = BotApiEmulator(personas=DEFAULT_PERSONAS)
    root = await emulator.start(port=emulator_port)
    demo_settings = settings.model_copy(update={"telegram_token": SecretStr(emulator.token), "telegram_api_url": root})
    tr = translator(settings.cli_locale, settings.timezone)  # the language of the CLI that started the demo
    print(tr._("Balcão sandbox: open {url}/ to chat with the bot as a driver, a citizen or a staff member.").format(
        url=root), flush=True)
    for hint in hints:
        print(f"  {hint}", flush=True)
    print("  " + tr._("Staff console: in the web chat, as {name}, send /painel and open the link the bot answers "
                      "(the console is at {url}/painel/).").format(name=STAFF_PERSONA.first_name,
                                                                  url=settings.http_root), flush=True)
    print(tr._("Stop with Ctrl+C."), flush=True)
    try:
        serving = asyncio.create_task(serve(demo_settings, stop=stop))
        await emulator.wait_until(lambda: emulator.calls_to("setMyCommands", ok=True) or None, timeout=30)
        if ready is not None:
            ready.set_result(root)
        await serving
    finally:
        await emulator.stop()
