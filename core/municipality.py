"""The municipality as a typed value, built once at the root: what a domain function is given instead of Settings.

Every act of a case, notice or driver registration belongs to one municipality (CF Art. 30 I and V: each legislates
on, and enforces, its own local matters), so a domain function takes that :class:`Municipality`: its identity,
offices, calendar, fiscal-unit values, rulebooks and signing certificate, with the deployment's legal readings
(:class:`LegalReadings`, each a choice recorded in docs/LEGAL-CHOICES.md). It holds no bot token, database URL,
webhook secret or staff API token: a function that only computes a deadline cannot reach them.

The root (the bot's application, the web app, the CLI, the demo) builds :func:`cities_of` once from the settings and
hands the :class:`Cities` down. Values of the deployment that are no municipality's (timestamping, dispatch rates,
the console's minutes) are passed as keyword arguments or small values of their own (:class:`Timestamping`,
:class:`Publication`, :class:`ConsoleTimes`).

This module is a leaf like :mod:`core.settings`: any layer may import it.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from core.municipalities import (
    Authorities,
    BySlug,
    MunicipalityConfig,
    Office,
    Ouvidoria,
    PaymentMeans,
    Rulebook,
    ShortDay,
    SigningCertificate,
)
from core.readings import LegalReadings

if TYPE_CHECKING:
    from core.settings import Settings

SINGLE_PASSWORD_VARIABLE = "BALCAO_SIGNING_PASSWORD"  # noqa: S105 (the variable's name, not a password)
SINGLE_SOURCE = "BALCAO_MUNICIPALITY_*"
"""The :attr:`core.municipalities.Municipalities.source` of a deployment described by environment variables."""


@dataclass(frozen=True)
class Municipality:
    """One municipality the deployment serves, with everything a domain function may read of it.

    Attributes:
        config: its entry of the municipalities file (or of the ``BALCAO_MUNICIPALITY_*`` variables).
        readings: the deployment's legal readings and policies.
        tz: the civil time zone its days and hours are counted in.
        demo: whether this is ``python -m bot demo`` (illustrative unit values are allowed and said so).
        driver_office: where drivers renew, present the vehicle and report changes (L1533 Art. 3, 9, 13 XX).
        unit_values_at: where its fiscal-unit values are configured: a file's path, or None for the variables.
        signing_password: the password of its signing key, read from the environment when the value was built.
    """

    config: MunicipalityConfig
    readings: LegalReadings
    tz: ZoneInfo
    demo: bool = False
    driver_office: str = ""
    unit_values_at: str | None = None
    signing_password: bytes | None = field(default=None, repr=False)

    @property
    def slug(self) -> str:
        """Its stable key, e.g. ``nova-xavantina`` (what rows store as ``municipality``)."""
        return self.config.slug

    @property
    def name(self) -> str:
        """Its name, e.g. ``Nova Xavantina``."""
        return self.config.name

    @property
    def state(self) -> str:
        """Its state (UF), whose holidays count too."""
        return self.config.state

    @property
    def ibge_code(self) -> str:
        """Its IBGE code (empty when not configured)."""
        return self.config.ibge_code

    @property
    def prefeitura(self) -> str:
        """The authority's name as documents are headed: ``Prefeitura Municipal de Nova Xavantina``."""
        return self.config.prefeitura

    @property
    def holidays(self) -> tuple[dt.date, ...]:
        """Its municipal holidays, all years together (national and state ones are the calendar's)."""
        return self.config.holiday_dates

    @property
    def short_days(self) -> tuple[ShortDay, ...]:
        """Its short office days (L9784 Art. 66 §1)."""
        return self.config.short_days

    @property
    def unit_values(self) -> Mapping[str, Mapping[int, Decimal]]:
        """R$ value of each fiscal unit per year."""
        return self.config.unit_values

    @property
    def fines_illustrative(self) -> bool:
        """Whether its fines use illustrative unit values (only the demo issues them, saying so)."""
        return self.config.unit_values_illustrative

    @property
    def rulebooks(self) -> tuple[Rulebook, ...]:
        """The rulebooks in force here (CF Art. 30 I: only its own laws)."""
        return self.config.rulebooks

    @property
    def offices(self) -> tuple[Office, ...]:
        """Its offices, in the file's order."""
        return self.config.offices

    @property
    def office_for_notices(self) -> Office | None:
        """Where people notified appear and file (CP Art. 24 setor competente; L9784 Art. 26 §1 III)."""
        return self.config.office_for_notices

    @property
    def ouvidoria(self) -> Ouvidoria:
        """Its Ouvidoria's contacts (L1533 Art. 14; L13460 Art. 10)."""
        return self.config.ouvidoria

    @property
    def competent(self) -> Authorities:
        """The competent authority of each kind of act."""
        return self.config.competent

    @property
    def payment(self) -> PaymentMeans | None:
        """How its fines are paid (DAM office, PIX), when configured."""
        return self.config.payment

    @property
    def signing(self) -> SigningCertificate | None:
        """The certificate that signs its PDFs, when configured."""
        return self.config.signing

    def unit_value_setting(self, unit: str, year: int) -> str:
        """Where the value of a fiscal unit for a year is configured, as an operator must write it."""
        if self.unit_values_at is None:
            return f'BALCAO_UNIT_VALUES ({{"{unit}": {{"{year}": "0.00"}}}})'
        where = f'{self.unit_values_at}: [[municipality]] slug = "{self.slug}"'
        return f'{where}, unit_values.{unit} = {{ {year} = "0.00" }}'


class Cities(BySlug[Municipality]):
    """The municipalities of a deployment by slug, as typed values (built once by :func:`cities_of`)."""

    def of(self, slug: str | None) -> Municipality:
        """The municipality of ``slug``; the default one for ``None`` or an empty slug.

        Raises:
            KeyError: the deployment does not serve it.
        """
        return self[slug] if slug else self.default


@dataclass(frozen=True)
class Timestamping:
    """Where signed heads and PDF signatures are timestamped and witnessed (deployment-wide, no city's)."""

    tsa_url: str | None = None
    witness_url: str | None = None

    @classmethod
    def of(cls, settings: Settings) -> Timestamping:
        """The deployment's timestamp authority (RFC 3161) and log witness."""
        return cls(tsa_url=settings.tsa_url, witness_url=settings.log_witness_url)


@dataclass(frozen=True)
class Publication:
    """What the deployment's documents carry that is no city's: the /verificar root and the timestamp authority."""

    http_root: str
    tsa_url: str | None = None

    @classmethod
    def of(cls, settings: Settings) -> Publication:
        """The deployment's public root and timestamp authority."""
        return cls(http_root=settings.http_root, tsa_url=settings.tsa_url)


@dataclass(frozen=True)
class ConsoleTimes:
    """How long the staff console's sign-in links and sessions last, and how many links an hour (deployment-wide)."""

    link_minutes: int
    links_per_hour: int
    idle_minutes: int
    session_hours: int

    @classmethod
    def of(cls, settings: Settings) -> ConsoleTimes:
        """The ``BALCAO_CONSOLE_*`` values."""
        return cls(link_minutes=settings.console_link_minutes, links_per_hour=settings.console_links_per_hour,
                   idle_minutes=settings.console_idle_minutes, session_hours=settings.console_session_hours)


def password_of(certificate: SigningCertificate, *, single_password: str | None) -> bytes | None:
    """The password of a signing certificate, from the environment variable its ``password_env`` names.

    Args:
        certificate: the municipality's signing certificate.
        single_password: ``BALCAO_SIGNING_PASSWORD`` as the settings read it (it may come from ``.env``).

    Returns:
        The password's bytes, or None when it names none or the variable is unset.
    """
    if not certificate.password_env:
        return None
    if certificate.password_env == SINGLE_PASSWORD_VARIABLE and single_password is not None:
        return single_password.encode("utf-8")
    value = os.environ.get(certificate.password_env)
    return value.encode("utf-8") if value else None


def _driver_office(config: MunicipalityConfig) -> str:
    # Where drivers are served (L1533 Art. 3, 9, 13 XX): the municipality's first office, never another's.
    office = config.offices[0] if config.offices else None
    return ", ".join(dict.fromkeys((office.name, office.address))) if office else ""


def cities_of(settings: Settings) -> Cities:
    """Every municipality the settings serve, each built once with the readings, time zone and secrets it needs.

    Args:
        settings: settings made by :func:`core.settings.load_settings`.

    Returns:
        The municipalities in the file's order.
    """
    readings = LegalReadings.of(settings)
    tz = ZoneInfo(settings.timezone)
    served = settings.municipalities
    file = str(settings.municipalities_file or "BALCAO_MUNICIPALITIES_FILE")
    where = None if served.source == SINGLE_SOURCE else file
    single = settings.signing_password.get_secret_value() if settings.signing_password is not None else None
    return Cities(tuple(
        Municipality(
            config=config, readings=readings, tz=tz, demo=settings.demo, driver_office=_driver_office(config),
            unit_values_at=where,
            signing_password=password_of(config.signing, single_password=single) if config.signing else None,
        )
        for config in served.values()
    ))
