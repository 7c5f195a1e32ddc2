"""The language of what the command line prints: one staff locale for every command (``BALCAO_CLI_LOCALE``)."""

from __future__ import annotations

from core.i18n import DEFAULT_LOCALE, Translator, translator
from core.settings import Settings, SettingsError, get_settings


def cli_translator(settings: Settings) -> Translator:
    """The translator of the CLI's output: ``BALCAO_CLI_LOCALE`` (pt_BR by default) in the deployment's time zone."""
    return translator(settings.cli_locale, settings.timezone)


def help_translator() -> Translator:
    """The translator of ``--help`` and of argparse's usage errors: the CLI's, or pt_BR when the settings are invalid.

    Help must work even then; the command itself reports the invalid settings.
    """
    try:
        return cli_translator(get_settings())
    except SettingsError:
        return translator(DEFAULT_LOCALE)
