"""``demo``: the offline sandbox (no Telegram, no internet)."""

from __future__ import annotations

import argparse
import os

from bot.sandbox.demo import DEMO_DATABASE_URL, DEMO_MUNICIPALITIES_FILE, run_demo
from bot.settings import load_settings


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``demo`` to the command line."""
    demo = subparsers.add_parser(
        "demo",
        help="offline sandbox: local Telegram emulator, the bot, demo data and a web chat",
        description="Starts a local Bot API emulator with a web chat, points the bot at it and loads demo "
        "data. Uses ./balcao-demo.db unless BALCAO_DATABASE_URL is set.",
    )
    demo.add_argument("--port", type=int, default=8081, help="port of the web chat and emulator (default 8081)")
    demo.set_defaults(handler=_demo)


async def _demo(args: argparse.Namespace) -> int:
    overrides: dict[str, object] = {"telegram_token": None}
    if not os.environ.get("BALCAO_DATABASE_URL"):
        overrides["database_url"] = DEMO_DATABASE_URL
    if not os.environ.get("BALCAO_MUNICIPALITIES_FILE"):
        overrides["municipalities_file"] = DEMO_MUNICIPALITIES_FILE  # Sapezal and Nova Xavantina
    await run_demo(load_settings(**overrides), emulator_port=args.port)
    return 0
