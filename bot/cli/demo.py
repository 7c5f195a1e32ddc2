"""``demo``: the offline sandbox (no Telegram, no internet)."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bot.cli.numbers import whole_number
from bot.sandbox.demo import DEMO_DATABASE_URL, DEMO_MUNICIPALITIES_FILE, run_demo
from core.i18n import Translator
from core.settings import load_settings
from models.tlog.heads import generate_key_file, load_key_file, signing_key, use_signing_key

DEMO_LOG_KEY = Path("balcao-demo-log.pem")
"""The demo's log signing key when BALCAO_LOG_SIGNING_KEY_FILE is unset (made once, beside the demo database)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``demo`` to the command line."""
    demo = subparsers.add_parser(
        "demo",
        help=tr._("offline sandbox: local Telegram emulator, the bot, demo data and a web chat"),
        description=tr._("Starts a local Bot API emulator with a web chat, points the bot at it and loads demo "
                         "data. Uses ./balcao-demo.db unless BALCAO_DATABASE_URL is set, and signs the notices' log "
                         "with ./balcao-demo-log.pem unless BALCAO_LOG_SIGNING_KEY_FILE is set."),
    )
    demo.add_argument("--port", type=whole_number(tr), default=8081, metavar=tr.pgettext("metavar", "PORT"),
                      help=tr._("port of the web chat and emulator (default 8081)"))
    demo.set_defaults(handler=_demo)


def _demo_log_key() -> Ed25519PrivateKey:
    return load_key_file(DEMO_LOG_KEY) if DEMO_LOG_KEY.exists() else generate_key_file(DEMO_LOG_KEY)


async def _demo(args: argparse.Namespace) -> int:
    overrides: dict[str, object] = {"telegram_token": None}
    if not os.environ.get("BALCAO_DATABASE_URL"):
        overrides["database_url"] = DEMO_DATABASE_URL
    if signing_key() is None:
        use_signing_key(await asyncio.to_thread(_demo_log_key))
    if not os.environ.get("BALCAO_MUNICIPALITIES_FILE"):
        overrides["municipalities_file"] = DEMO_MUNICIPALITIES_FILE  # Sapezal and Nova Xavantina
    await run_demo(load_settings(**overrides), emulator_port=args.port)
    return 0
