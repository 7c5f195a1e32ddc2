"""``--bots KEY[,KEY…]`` of ``run`` and ``dispatch``: which of the deployment's bots a process serves."""

from __future__ import annotations

from bot.bots import UnknownBots
from bot.cli.errors import CommandError
from bot.cli.output import cli_translator
from core.settings import Settings


def bot_keys_argument(value: str) -> list[str]:
    """``--bots default,sapezal`` as a list of bot keys."""
    return [key.strip() for key in value.split(",") if key.strip()]


def bots_refusal(error: UnknownBots, settings: Settings) -> CommandError:
    """The one-line reason a ``--bots`` choice cannot be served, in the CLI's language."""
    tr = cli_translator(settings)
    return CommandError(tr._("No bot called {unknown}; this deployment has: {known}.").format(
        unknown=", ".join(error.unknown), known=", ".join(error.known)))
