"""Issue 10 "done when": 1,200 hostile updates through the emulator — malformed, forged button data, edits,
groups, channels, unreadable shapes, huge texts — and the bot still answers a normal /start, with no unhandled
error in the log and no personal data in it.

The updates are generated from a fixed seed, so a failure replays the same way.
"""

from __future__ import annotations

import io
import logging
import random
import traceback
from collections import Counter
from typing import Any

from pydantic import SecretStr

from bot.logs import build_handler, setup_logging
from core.db import SessionFactory
from core.settings import Settings
from tests.auxil.bot_harness import running_bot

SEED = 20261201
COUNT = 1_200
USERS = [(840000 + n, name) for n, name in enumerate(["Ana", "Bruno", "Célia", "Davi", "Elis", "Fábio"])]
CPF, NAME, ADDRESS = "529.982.247-25", "Joaquim Sigiloso Ferreira", "Rua das Acácias, 45"
PREFIXES = ["rep", "ouv", "acomp", "pend", "ntc", "nstf", "emit", "ent", "dday", "lnk", "dfs", "dcs", "dlg", "nrf",
            "fil", "opt", "cpl", "dados", "lang", "cmd", "rem:on", "rem:off", "menu", "notif:ciencia", "aviso",
            "drivers"]
ODD_VALUES = ["", "-30", "abc", "²", "1" * 11, "9" * 30, "bogus", "0", "-1", "%s", "../../", "\u202e", "null",
              "when:-30", "when:abc", "rel:bogus", "take:999999", "case:²", "files:1", "kind:zz", "send", "ok"]
GROUP = {"id": -1001234, "type": "supergroup", "title": "Bairro"}
CHANNEL = {"id": -1009876, "type": "channel", "title": "Avisos"}
OLD_POLL = {"id": "1", "question": "?", "options": [{"text": "a", "voter_count": 0}], "total_voter_count": 0,
            "is_closed": False, "is_anonymous": True, "type": "regular", "allows_multiple_answers": False}


def _user(user_id: int, name: str) -> dict[str, Any]:
    return {"id": user_id, "is_bot": False, "first_name": name, "language_code": "pt-br"}


def _private(user_id: int, name: str) -> dict[str, Any]:
    return {"id": user_id, "type": "private", "first_name": name}


def _text(rng: random.Random) -> str:
    choices = [
        "/start", "/ajuda", "/representacao", "/ouvidoria", "/acompanhar", "/pendencias", "/emitir", "/aviso",
        "/meusdados", "/cancelar", "/start case-REP-2026-" + "9" * 30, "/start link-" + "Z" * 200, "/start ²",
        f"meu CPF é {CPF}", f"{NAME}, {ADDRESS}", "sim", "não", "\x00\x01\x02", "🙂" * 500, "a" * 5000,
        "<b>negrito</b> & <script>", "REP-2026-000001", "OUV-2026-000001", "=cmd|' /C calc'!A0", "4/1", "31/02",
    ]
    return rng.choice(choices)


def _message(rng: random.Random, update_id: int, user_id: int, name: str, **extra: Any) -> dict[str, Any]:
    text = _text(rng)
    entities = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}] if text.startswith("/") else []
    return {"message_id": 10_000 + update_id, "date": 1790000000, "chat": _private(user_id, name),
            "from": _user(user_id, name), "text": text, "entities": entities, **extra}


def _hostile(rng: random.Random, n: int) -> tuple[str, Any]:
    """One hostile update: ("raw", (kind, payload)) or ("press", (user, data))."""
    user_id, name = rng.choice(USERS)
    kind = rng.randrange(10)
    if kind <= 2:  # forged button data, on a real message of the bot
        data = f"{rng.choice(PREFIXES)}:{rng.choice(ODD_VALUES)}"
        if rng.random() < 0.3:
            data += f":{rng.choice(ODD_VALUES)}"
        return "press", (user_id, data.encode()[:64].decode(errors="ignore"))
    if kind == 3:  # an edit of an earlier message
        return "raw", ("edited_message", _message(rng, n, user_id, name, edit_date=1790000100))
    if kind == 4:  # a group, an anonymous admin, a channel
        shape = rng.randrange(3)
        message = _message(rng, n, user_id, name)
        if shape == 0:
            message["chat"] = GROUP
        elif shape == 1:
            message["chat"], message["sender_chat"] = GROUP, GROUP
            message["from"] = {"id": 1087968824, "is_bot": True, "first_name": "Group", "username": "GroupAnonymousBot"}
        else:
            message.pop("from")
            message["chat"], message["sender_chat"] = CHANNEL, CHANNEL
            return "raw", (rng.choice(["channel_post", "edited_channel_post"]), message)
        return "raw", ("message", message)
    if kind == 5:  # shapes the library cannot read
        return "raw", rng.choice([("poll", OLD_POLL), ("message", {"message_id": 1}), ("message", {"chat": 5}),
                                  ("callback_query", {"id": 5}), ("message", {"date": "ontem", "chat": GROUP})])
    if kind == 6:  # odd but readable messages: no text, a contact of someone else, a location at the pole
        message = _message(rng, n, user_id, name)
        variant = rng.randrange(3)
        if variant == 0:
            message.pop("text"), message.pop("entities")
        elif variant == 1:
            message.pop("text"), message.pop("entities")
            message["contact"] = {"phone_number": "+5565999990000", "first_name": NAME, "user_id": 555}
        else:
            message.pop("text"), message.pop("entities")
            message["location"] = {"latitude": 90.0, "longitude": -180.0}
        return "raw", ("message", message)
    return "raw", ("message", _message(rng, n, user_id, name))  # commands and typing in the wrong places


def _where(record: logging.LogRecord) -> str:
    """Where an unhandled error came from, for the failure message: the last handler frames and the error."""
    if not record.exc_info or record.exc_info[2] is None:
        return record.getMessage()[:100]
    frames = [f for f in traceback.extract_tb(record.exc_info[2]) if "/handlers/" in f.filename]
    return f"{' > '.join(f'{f.name}:{f.lineno}' for f in frames[-3:])}: {record.exc_info[1]!r}"[:200]


async def test_a_thousand_hostile_updates_leave_the_bot_answering_with_a_clean_log(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    configured = settings.model_copy(update={"telegram_token": SecretStr(emulator.token)})
    log = io.StringIO()
    setup_logging(configured)
    handler = build_handler(configured, log)
    handler.setLevel(logging.INFO)
    errors: list[logging.LogRecord] = []
    catcher = logging.Handler(level=logging.ERROR)
    catcher.emit = errors.append  # type: ignore[method-assign]
    root = logging.getLogger()
    root.addHandler(handler)
    root.addHandler(catcher)
    rng = random.Random(SEED)
    try:
        async with running_bot(configured, sessions, emulator):
            for user_id, name in USERS:
                emulator.add_user(user_id, name, language_code="pt-br")
                emulator.send_text(user_id, "/start")
            menus = {user_id: await emulator.wait_for_message(user_id, lambda m: bool(m.inline_buttons), after=0,
                                                              timeout=15)
                     for user_id, _ in USERS}
            for n in range(COUNT):
                how, what = _hostile(rng, n)
                if how == "press":
                    user_id, data = what
                    emulator.press_button(user_id, menus[user_id], data, forged=True)
                else:
                    emulator.send_raw_update(*what)
            await emulator.wait_until(lambda: True if not emulator.pending_updates else None, timeout=120)
            probe = emulator.add_user(849999, "Zeca", language_code="pt-br")
            sent = emulator.send_text(probe, "/start")
            answer = await emulator.wait_for_message(probe.id, after=sent.message_id, timeout=120)
            assert "Zeca" in (answer.text or "")
    finally:
        root.removeHandler(handler)
        root.removeHandler(catcher)
    unhandled = errors  # any logger: ours, the library's, aiohttp's
    assert unhandled == [], Counter(_where(r) for r in unhandled).most_common(10)
    written = log.getvalue()
    for private in (CPF, "52998224725", NAME, ADDRESS, emulator.token):
        assert private not in written
    assert "skipped an update that could not be read" in written
