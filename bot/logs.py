"""Logging for every command: the level from settings, quiet libraries, text or JSON lines, secrets redacted.

* ``BALCAO_LOG_LEVEL`` sets Balcão's own loggers; ``BALCAO_LOG_LIBRARY_LEVEL`` the libraries' (httpx,
  httpcore, telegram, aiohttp, apscheduler: WARNING by default, they log every request URL; alembic, which
  logs "Context impl SQLiteImpl." at every schema check: ``db upgrade`` prints its own line per migration). The
  database drivers' loggers (sqlalchemy, aiosqlite, asyncpg) never go below WARNING: at INFO and DEBUG they
  write query parameters, which are people's data.
* ``BALCAO_LOG_FORMAT``: ``text`` (a terminal) or ``json`` (one object per line for a collector: ``time``,
  ``level``, ``logger``, ``message`` and the context of the update being handled, see
  :mod:`handlers.log_context`).
* Every line is redacted after formatting, so the message, its arguments and any exception text are
  covered: a ``bot<token>`` path, anything shaped like a bot token, the configured secrets (bot token, staff
  API token, webhook secret) and anything shaped like a CPF become ``[redacted]``.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable
from typing import IO, Any

from pythonjsonlogger.json import JsonFormatter

from core.settings import Settings
from handlers import log_context

LIBRARY_LOGGERS = ("httpx", "httpcore", "telegram", "aiohttp", "apscheduler", "alembic")
"""Loggers of the libraries, set to ``BALCAO_LOG_LIBRARY_LEVEL``."""
DATABASE_LOGGERS = ("sqlalchemy", "aiosqlite", "asyncpg")
"""Loggers that write query parameters below WARNING; kept at WARNING whatever the settings say."""
REDACTED = "[redacted]"
_BOT_PATH = re.compile(r"bot\d{3,}:[A-Za-z0-9_-]+")
_TOKEN = re.compile(r"(?<![\w:])\d{5,}:[A-Za-z0-9_-]{30,}")
"""Any bot token (``123456789:AAH…``, 35 characters after the colon), even one not configured here."""
_CPF = re.compile(r"(?<!\d)\d{3}\.\d{3}\.\d{3}-\d{2}(?!\d)")
_OURS = "balcao_handler"
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class Redactor:
    """Removes secrets from a formatted log line."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = sorted({secret for secret in secrets if len(secret) >= 6}, key=len, reverse=True)

    def __call__(self, line: str) -> str:
        """The line without ``bot<token>`` paths, configured secrets or CPF-shaped numbers."""
        line = _BOT_PATH.sub("bot" + REDACTED, line)
        line = _TOKEN.sub(REDACTED, line)
        for secret in self.secrets:
            line = line.replace(secret, REDACTED)
        return _CPF.sub(REDACTED, line)


def secrets_of(settings: Settings) -> list[str]:
    """The configured secrets: bot token, staff API token, webhook secret (those that are set)."""
    values = (settings.telegram_token, settings.staff_api_token, settings.webhook_secret)
    return [value.get_secret_value() for value in values if value is not None]


_PLAIN_ARG = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,40}$")


def _plain(value: object) -> object:
    if isinstance(value, bool | int | float) or (isinstance(value, str) and _PLAIN_ARG.match(value)):
        return value
    return f"<{type(value).__name__}>"


class ContextFilter(logging.Filter):
    """Copies the update's context onto each record, and keeps people's data out of the libraries' lines.

    The libraries log whole updates and request parameters at DEBUG (python-telegram-bot: "Processing update
    …", "Calling Bot API endpoint `sendMessage` with parameters …"): the text people typed, their names. A
    library record keeps only its plain arguments (numbers, method names); any other argument is shown as its
    type (``<dict>``, ``<Update>``).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Attach the context fields, scrub a library record's arguments; never drops a record."""
        if record.name.split(".", 1)[0] in LIBRARY_LOGGERS and record.args:
            if isinstance(record.args, dict):
                record.args = {key: _plain(value) for key, value in record.args.items()}
            else:
                record.args = tuple(_plain(value) for value in record.args)
        for name in log_context.FIELDS:
            setattr(record, name, None)
        for name, value in log_context.current().items():
            setattr(record, name, value)
        return True


class RedactingTextFormatter(logging.Formatter):
    """``time LEVEL logger: message [field=value …]`` with the secrets removed."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__(TEXT_FORMAT)
        self.redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        """Format, add the context fields, redact."""
        line = super().format(record)
        fields = " ".join(
            f"{name}={getattr(record, name)}" for name in log_context.FIELDS if getattr(record, name, None) is not None
        )
        if fields:
            first, newline, rest = line.partition("\n")
            line = f"{first} [{fields}]{newline}{rest}"
        return self.redactor(line)


class RedactingJsonFormatter(JsonFormatter):
    """One JSON object per line: ``time``, ``level``, ``logger``, ``message``, the context fields; redacted."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__(
            "{asctime}{levelname}{name}{message}",
            style="{",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            json_ensure_ascii=False,
        )
        self.redactor = redactor

    def add_fields(self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]) -> None:
        """The standard fields, then only the context fields that are set (extras are dropped)."""
        super().add_fields(log_data, record, message_dict)
        for name in log_context.FIELDS:
            if log_data.get(name) is None:
                log_data.pop(name, None)

    def format(self, record: logging.LogRecord) -> str:
        """Format as JSON, redact."""
        return self.redactor(super().format(record))


def build_handler(settings: Settings, stream: IO[str] | None = None) -> logging.Handler:
    """A stream handler with the context filter and the configured format (redacting)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    redactor = Redactor(secrets_of(settings))
    formatter: logging.Formatter = (
        RedactingJsonFormatter(redactor) if settings.log_format == "json" else RedactingTextFormatter(redactor)
    )
    handler.setFormatter(formatter)
    handler.addFilter(ContextFilter())
    return handler


def setup_logging(settings: Settings, stream: IO[str] | None = None) -> logging.Handler | None:
    """Configure logging for a command: levels as the settings say, and our handler on the root logger.

    Like ``logging.basicConfig``, the handler is added only when the root logger has no other handler (a
    test runner's capture stays in charge); one installed by an earlier call is replaced.

    Args:
        settings: the deployment's settings (levels, format, the secrets to redact).
        stream: where lines go; standard error when omitted.

    Returns:
        The installed handler, or None when another one was already there.
    """
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _OURS, False)]:
        root.removeHandler(old)
    handler: logging.Handler | None = None
    if not root.handlers:
        handler = build_handler(settings, stream)
        setattr(handler, _OURS, True)
        root.addHandler(handler)
    root.setLevel(settings.log_level)
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(settings.log_library_level)
    for name in DATABASE_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler
