"""The language of what the command line prints: one staff locale for every command (``BALCAO_CLI_LOCALE``)."""

from __future__ import annotations

from bot.i18n import Translator, translator
from bot.settings import Settings


def cli_translator(settings: Settings) -> Translator:
    """The translator of the CLI's output: ``BALCAO_CLI_LOCALE`` (pt_BR by default) in the deployment's time zone."""
    return translator(settings.cli_locale, settings.timezone)
