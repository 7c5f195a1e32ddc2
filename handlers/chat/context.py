"""The callback context every chat handler receives: database sessions, settings, the person, their language."""

from __future__ import annotations

import datetime as dt
from typing import Any

from telegram.ext import Application, CallbackContext, ExtBot

from core.i18n import Translator
from core.municipality import Cities, Municipality
from core.settings import Settings
from models.columns import utcnow
from models.people import DEFAULT_BOT_KEY, PersonView
from models.when import municipal_today

SESSIONS_KEY = "sessions"
SETTINGS_KEY = "settings"
CITIES_KEY = "cities"
BOT_KEY = "bot_key"


class BalcaoContext(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """PTB's context plus what Balcão needs.

    ``person`` and ``tr`` are filled for every update that has a user by the first handler group
    (``handlers.chat.people.load_person``), before any other handler runs.
    """

    person: PersonView
    tr: Translator
    answered_query_id: str | None  # the callback query already answered (Telegram takes one answer per query)

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        chat_id: int | None = None,
        user_id: int | None = None,
    ) -> None:
        super().__init__(application=application, chat_id=chat_id, user_id=user_id)
        self.answered_query_id = None

    @property
    def sessions(self) -> Any:
        """The ``async_sessionmaker`` of the deployment's database."""
        return self.application.bot_data[SESSIONS_KEY]

    @property
    def bot_key(self) -> str:
        """The key of the bot this update came through (``default`` or a municipality's own bot)."""
        return str(self.application.bot_data.get(BOT_KEY, DEFAULT_BOT_KEY))

    @property
    def deployment_settings(self) -> Settings:
        """The deployment's settings, scoped to its default municipality."""
        settings: Settings = self.application.bot_data[SETTINGS_KEY]
        return settings

    @property
    def settings(self) -> Settings:
        """The settings of the person's municipality: its name, Ouvidoria, holidays, unit values and laws.

        The municipality is their driver registration's, their choice or their staff role's; the default one while
        none is known.
        """
        deployment = self.deployment_settings
        person = getattr(self, "person", None)
        slug = person.municipality if person is not None else None
        if slug is None and self.bot_key in deployment.municipalities:
            slug = self.bot_key  # the municipality's own bot speaks for it
        return deployment.for_municipality(slug if slug in deployment.municipalities else None)

    @property
    def cities(self) -> Cities:
        """Every municipality the deployment serves, built once with the application (``bot.app``)."""
        cities: Cities = self.application.bot_data[CITIES_KEY]
        return cities

    @property
    def city(self) -> Municipality:
        """The person's municipality (as :attr:`settings` chooses it): what domain functions are given."""
        cities = self.cities
        person = getattr(self, "person", None)
        slug = person.municipality if person is not None else None
        if slug is None and self.bot_key in cities:
            slug = self.bot_key  # the municipality's own bot speaks for it
        return cities.of(slug if slug in cities else None)


def city_today(context: BalcaoContext) -> dt.date:
    """Today's date in the deployment's time zone (America/Cuiaba), as people there say it."""
    return municipal_today(context.settings.tz, now=utcnow())
