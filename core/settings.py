"""Typed settings read from ``BALCAO_*`` environment variables and a ``.env`` file.

This module is a leaf: any layer may import it. The contract (names and defaults) is in
``DESIGN.md``; the README's configuration table lists every variable.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Mapping
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, PrivateAttr, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from core import municipalities as municipality_config
from core.i18n import SUPPORTED_LOCALES
from core.municipalities import Municipalities, MunicipalitiesError, MunicipalityConfig, ShortDay
from core.municipality import SINGLE_PASSWORD_VARIABLE, password_of
from core.readings import ReadingFields

Rulebook = Literal["sapezal-1533", "nx-posturas"]


class SettingsError(Exception):
    """Raised with a readable, multi-line explanation when the settings are invalid."""


class Settings(ReadingFields, BaseSettings):
    """Every setting of one Balcão deployment; scoped to one of its municipalities (:meth:`for_municipality`).

    The legal readings and municipal policies are declared once, in :class:`core.readings.ReadingFields`; a
    domain function receives them as a :class:`core.municipality.Municipality`, never these settings.
    """

    model_config = SettingsConfigDict(
        env_prefix="BALCAO_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    telegram_token: SecretStr | None = None
    telegram_api_url: str = "https://api.telegram.org"
    database_url: str = "sqlite+aiosqlite:///./balcao.db"
    database_wait_seconds: float = Field(
        default=300.0, ge=0, le=86_400,
        description="How long run and dispatch wait for an unreachable database at start, retrying with backoff "
        "(one log line per attempt), before they exit 1; 0 tries once.",
    )
    timezone: str = "America/Cuiaba"
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    http_host: str = "127.0.0.1"
    http_port: int = Field(default=8080, ge=0, le=65535)
    staff_api_token: SecretStr | None = None
    public_url: str | None = Field(
        default=None,
        description="Public root of the aiohttp server, printed on PDFs (verification page); "
        "defaults to http://HTTP_HOST:HTTP_PORT.",
    )

    municipalities_file: Path | None = Field(
        default=None,
        description="TOML file listing the municipalities this deployment serves (README: Municipalities); "
        "without it the BALCAO_MUNICIPALITY_* variables describe one municipality.",
    )
    municipality_slug: str = Field(default="", description="Single municipality: its key (default: from the name).")
    municipality_ibge_code: str = Field(default="", description="Single municipality: its IBGE code.")
    municipality_name: str = "Sapezal"
    municipality_state: str = "MT"
    ouvidoria_phone: str = Field(
        default="",
        description="Ouvidoria phone shown to users (Lei 1.533/2020 Art. 14 requires it on the sticker).",
    )
    rulebooks: Annotated[list[Rulebook], NoDecode] = Field(
        default_factory=list,
        description="Single municipality: the rulebooks in force (default: the laws this municipality enacted).",
    )
    unit_values: dict[str, dict[int, Decimal]] = Field(
        default_factory=dict,
        description="Single municipality: R$ value of each fiscal unit per year, as JSON: "
        '{"URS": {"2026": "5.25"}}. No default: a fine needs the value of its year configured.',
    )
    short_days: list[ShortDay] = Field(
        default_factory=list,
        description="Single municipality: its short office days, JSON: [{\"date\": \"2026-12-24\", \"closes\": "
        "\"12:00\", \"act\": \"Decreto nº 45/2026\"}] (a file lists them as [[municipality.short_days]]).",
    )
    municipal_holidays: Annotated[list[dt.date], NoDecode] = Field(
        default_factory=list,
        description="Municipal holidays (ISO dates, comma separated), added to the national and MT ones.",
    )
    driver_office: str = Field(
        default="Secretaria Municipal de Finanças e Orçamento (SMFO), Av. Antonio André Maggi, 1400, Centro",
        description="Where drivers renew, present the vehicle and report changes (Lei 1.533 Art. 3, 9, 13 XX).",
    )
    dispatch_global_rate: float = Field(default=30.0, gt=0, description="Messages per second, overall.")
    dispatch_per_chat_rate: float = Field(default=1.0, gt=0, description="Messages per second, per chat.")
    dispatch_paid_rate: float = Field(default=1000.0, gt=0, description="Messages per second in paid mode.")
    dispatch_paid_broadcast: bool = False
    dispatch_lease_seconds: float = Field(
        default=60.0, ge=1, description="Seconds a dispatcher holds claimed outbox rows unless it renews them."
    )
    dispatch_max_attempts: int = Field(
        default=8, ge=1, le=50, description="Attempts (network errors) before an outbox message is marked failed."
    )
    dispatch_retry_max_seconds: float = Field(
        default=900.0, ge=1, description="Longest wait between two attempts of one message (the backoff's cap)."
    )
    run_dispatcher: bool = Field(
        default=True, description="`run` sends the outbox itself; false when `dispatch --forever` processes send it "
        "(each bot then has one dispatcher, which keeps that bot's caps on its own).",
    )
    scan_interval_minutes: float = Field(
        default=15.0, gt=0, description="How often `run` runs the reminder scans (also once at start)."
    )
    open311_posts_per_hour: int = Field(
        default=30, ge=1, le=10_000,
        description="Most service requests one Open311 key may POST in an hour; more are answered 429 (the "
        "per-person daily limit rests on the account_id the client sends, so the key is limited too).",
    )
    inbound_updates_per_minute: int = Field(
        default=60, ge=1, le=10_000,
        description="Most chat updates one person may send in a minute; the first one over it is answered once, "
        "the rest are dropped until the minute has passed (so one person cannot take the bot's time from others).",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="INFO", description="Level of Balcão's own log lines."
    )
    log_library_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="WARNING",
        description="Level of the network libraries' loggers (httpx, telegram, aiohttp, apscheduler); "
        "at INFO they log every request URL.",
    )
    log_format: Literal["text", "json"] = Field(
        default="text", description="Log lines as text (a terminal) or one JSON object per line (a collector)."
    )
    log_signing_key_file: Path | None = Field(
        default=None,
        description="PEM file of the Ed25519 key that signs the transparency log's tree heads (python -m bot log "
        "keygen FILE); keep it outside the database and its backups. Unset: heads are unsigned and notice verify "
        "fails.",
    )
    log_signer_socket: Path | None = Field(
        default=None,
        description="Unix socket of the log's signer process (python -m bot log signer --socket PATH, run as another "
        "user who alone reads the key file): the application then holds no key. Takes the place of "
        "BALCAO_LOG_SIGNING_KEY_FILE for the application.",
    )
    tlog_head_interval: float = Field(
        default=5.0, ge=0, le=3600,
        description="Seconds between two runs of the transparency log's head job in `run`: it signs a head over the "
        "entries commits integrated since, timestamps it (BALCAO_TSA_URL) and posts it to the witness. 0: every "
        "commit signs its own head (no merge delay, a slower commit). One-off commands always sign in the commit.",
    )
    tlog_max_merge_delay: float = Field(
        default=60.0, gt=0, le=86_400,
        description="The longest, in seconds, an entry of the transparency log may wait for a signed head (the "
        "maximum merge delay, at least BALCAO_TLOG_HEAD_INTERVAL): /verificar promises the proof within it, and "
        "notice verify reports entries that waited longer (docs/LEGAL-CHOICES.md item 70).",
    )
    tsa_url: str | None = Field(
        default=None,
        description="RFC 3161 timestamp authority that timestamps every signed head of the transparency log and "
        "every PDF signature (optional; when set, notice verify requires the newest signed head older than the "
        "merge delay to carry its token).",
    )
    log_witness_url: str | None = Field(
        default=None,
        description="A witness outside this server (a second deployment, or any URL that stores what is POSTed and "
        "answers GET with the newest): each signed head is POSTed there as JSON by the head job, and notice verify "
        "checks the log against the newest head it holds (a rollback or a re-signed history shows). Optional.",
    )
    signing_pkcs12_file: Path | None = Field(
        default=None, description="Single municipality: PKCS#12 file of the certificate that signs its PDFs "
        "(an ICP-Brasil e-CNPJ A1); a file gives [municipality.signing] instead.")
    signing_key_file: Path | None = Field(
        default=None, description="Single municipality: PEM private key of the signing certificate (with "
        "BALCAO_SIGNING_CERT_FILE, instead of a PKCS#12 file).")
    signing_cert_file: Path | None = Field(
        default=None, description="Single municipality: PEM signing certificate (with BALCAO_SIGNING_KEY_FILE).")
    signing_trust_root: Path | None = Field(
        default=None, description="Single municipality: PEM root certificate /verificar trusts (the ICP-Brasil "
        "root that issued the certificate).")
    signing_password: SecretStr | None = Field(
        default=None, description="Password of the signing key or PKCS#12 file (read from the environment only).")
    cli_locale: str = Field(
        default="pt_BR",
        description="Language of what the command line (python -m bot ...) prints for staff and operators: "
        "pt_BR, en or es.",
    )
    console_link_minutes: int = Field(
        default=10, ge=1, le=60, description="Staff console: how long the one-time sign-in link of /painel is valid."
    )
    console_links_per_hour: int = Field(
        default=5, ge=1, description="Staff console: sign-in links one staff member may ask for per hour."
    )
    console_idle_minutes: int = Field(
        default=30, ge=1, description="Staff console: a session unused this long is closed."
    )
    staff_form_idle_hours: int = Field(
        default=12, ge=0,
        description="Chat: a staff form (/emitir, the decision, a delivery) idle this long is closed at its next "
        "message, saying so (0: never). A half-written act is not resumed days later by surprise.",
    )
    console_session_hours: int = Field(
        default=12, ge=1, le=24 * 7,
        description="Staff console: a session ends this long after sign-in, however busy (OWASP ASVS V3.3.1).",
    )

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}; use an IANA name like America/Cuiaba") from exc
        return value

    @field_validator("log_level", "log_library_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("cli_locale")
    @classmethod
    def _supported_locale(cls, value: str) -> str:
        if value not in SUPPORTED_LOCALES:
            raise ValueError(f"unsupported locale {value!r}; use one of: {', '.join(SUPPORTED_LOCALES)}")
        return value

    @field_validator("database_url")
    @classmethod
    def _async_driver(cls, value: str) -> str:
        if value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            return value
        if value.startswith(("postgresql://", "postgres://")):
            return "postgresql+asyncpg://" + value.split("://", 1)[1]
        if value.startswith("sqlite://"):
            return "sqlite+aiosqlite://" + value.split("://", 1)[1]
        raise ValueError("use sqlite+aiosqlite:///path/to/file.db or postgresql+asyncpg://user:pass@host/db")

    @field_validator("telegram_api_url", "webhook_url", "public_url", "tsa_url", "log_witness_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("telegram_token")
    @classmethod
    def _token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        return municipality_config.bot_token_shape(value)

    @field_validator("rulebooks", mode="before")
    @classmethod
    def _split_rulebooks(cls, value: object) -> object:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @field_validator("municipal_holidays", mode="before")
    @classmethod
    def _split_holidays(cls, value: object) -> object:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @model_validator(mode="after")
    def _webhook_needs_secret(self) -> Settings:
        if self.webhook_url and not self.webhook_secret:
            raise ValueError(
                "BALCAO_WEBHOOK_URL is set but BALCAO_WEBHOOK_SECRET is not: "
                "set a random secret (1-256 characters A-Z, a-z, 0-9, _ and -)"
            )
        return self

    @model_validator(mode="after")
    def _merge_delay_covers_the_interval(self) -> Settings:
        if self.tlog_max_merge_delay < self.tlog_head_interval:
            raise ValueError("BALCAO_TLOG_MAX_MERGE_DELAY is shorter than BALCAO_TLOG_HEAD_INTERVAL: an entry would "
                             "wait for a head longer than the log promises")
        return self

    _municipalities: Municipalities | None = PrivateAttr(default=None)
    _demo: bool = PrivateAttr(default=False)

    @property
    def municipalities(self) -> Municipalities:
        """Every municipality the deployment serves (the first is the default)."""
        if self._municipalities is None:
            raise RuntimeError("settings were not made by load_settings()")
        return self._municipalities

    @property
    def municipality(self) -> MunicipalityConfig:
        """The municipality these settings are scoped to (the default one unless :meth:`for_municipality`)."""
        return self.municipalities[self.municipality_slug]

    @property
    def demo(self) -> bool:
        """Whether this is ``python -m bot demo`` (illustrative unit values are allowed and said so)."""
        return self._demo

    def as_demo(self) -> Settings:
        """The same settings, marked as the offline demo's."""
        copy = self.model_copy()
        copy._demo = True
        return copy

    def with_municipalities(self, served: Municipalities) -> Settings:
        """The same settings serving ``served`` instead (the demo adds its test certificates this way)."""
        copy = self.model_copy()
        copy._municipalities = served
        return copy

    def for_municipality(self, slug: str | None) -> Settings:
        """The settings of one municipality: its name, state, Ouvidoria, holidays, short days, unit values, laws.

        Everything that reads ``settings.municipality_*``, ``unit_values``, ``municipal_holidays``, ``rulebooks`` or
        ``driver_office`` then uses that municipality (documents, deadlines, fines, messages).

        Args:
            slug: the municipality's key; ``None`` for the default one.

        Raises:
            KeyError: the deployment does not serve it.
        """
        target = self.municipalities[slug] if slug else self.municipalities.default
        return self if target.slug == self.municipality_slug else _scoped(self, target)

    def for_rulebook(self, rulebook: str) -> Settings:
        """The settings of the municipality where a rulebook is in force (its law: CF Art. 30 I), else these."""
        owner = self.municipalities.with_rulebook(rulebook)
        return self.for_municipality(owner.slug) if owner is not None else self

    def own_bots(self) -> list[tuple[str, SecretStr]]:
        """(slug, token) of each municipality with a bot of its own (``bot_token`` in the municipalities file)."""
        return [(slug, item.bot_token) for slug, item in self.municipalities.items() if item.bot_token is not None]

    def unit_value_setting(self, unit: str, year: int) -> str:
        """Where the value of a fiscal unit for a year is configured, as an operator must write it."""
        if self.municipalities.source == "BALCAO_MUNICIPALITY_*":
            return f'BALCAO_UNIT_VALUES ({{"{unit}": {{"{year}": "0.00"}}}})'
        where = self.municipalities_file or "BALCAO_MUNICIPALITIES_FILE"
        slug = self.municipality_slug
        return f'{where}: [[municipality]] slug = "{slug}", unit_values.{unit} = {{ {year} = "0.00" }}'

    def password_of(self, certificate: municipality_config.SigningCertificate) -> bytes | None:
        """The password of a signing certificate, from the environment variable its ``password_env`` names.

        The single municipality's ``BALCAO_SIGNING_PASSWORD`` may also come from ``.env``; None without one.
        """
        single = self.signing_password.get_secret_value() if self.signing_password is not None else None
        return password_of(certificate, single_password=single)

    @property
    def fines_illustrative(self) -> bool:
        """Whether this municipality's fines use illustrative unit values (only the demo issues them, saying so)."""
        return self.municipality.unit_values_illustrative

    @property
    def tz(self) -> ZoneInfo:
        """The civil time zone as a ``ZoneInfo``."""
        return ZoneInfo(self.timezone)

    @property
    def http_root(self) -> str:
        """Public root URL of the aiohttp server."""
        return self.public_url or f"http://{self.http_host}:{self.http_port}"

    @property
    def is_postgres(self) -> bool:
        """Whether the database is PostgreSQL."""
        return self.database_url.startswith("postgresql")


_SINGLE_FIELDS: tuple[str, ...] = (
    "municipality_slug", "municipality_ibge_code", "municipality_name", "municipality_state", "ouvidoria_phone",
    "rulebooks", "unit_values", "municipal_holidays", "short_days", "signing_pkcs12_file", "signing_key_file",
    "signing_cert_file", "signing_trust_root",
)


def _scoped(settings: Settings, target: MunicipalityConfig) -> Settings:
    office = target.offices[0] if target.offices else None
    update: dict[str, object] = {
        "municipality_slug": target.slug,
        "municipality_ibge_code": target.ibge_code,
        "municipality_name": target.name,
        "municipality_state": target.state,
        "ouvidoria_phone": target.ouvidoria.phone,
        "rulebooks": list(target.rulebooks),
        "unit_values": {unit: dict(years) for unit, years in target.unit_values.items()},
        "municipal_holidays": list(target.holiday_dates),
        "short_days": list(target.short_days),
    }
    # Where drivers are served (L1533 Art. 3, 9, 13 XX): the municipality's first office, never another's.
    update["driver_office"] = ", ".join(dict.fromkeys((office.name, office.address))) if office else ""
    return settings.model_copy(update=update)


def _municipalities(settings: Settings) -> Municipalities:
    """The deployment's municipalities: the file, else the single-municipality variables, else the built-in two."""
    single = sorted(name for name in _SINGLE_FIELDS if name in settings.model_fields_set)
    if settings.municipalities_file is not None:
        if single:
            names = ", ".join(f"BALCAO_{name.upper()}" for name in single)
            raise MunicipalitiesError(f"BALCAO_MUNICIPALITIES_FILE is set, so {names} would be ignored: "
                                      "put the values in the file, or unset the file")
        return municipality_config.load_file(settings.municipalities_file)
    if not single:
        return municipality_config.built_in()
    return municipality_config.single({
        "slug": settings.municipality_slug, "ibge_code": settings.municipality_ibge_code,
        "name": settings.municipality_name, "state": settings.municipality_state,
        "ouvidoria_phone": settings.ouvidoria_phone,
        "rulebooks": settings.rulebooks if "rulebooks" in settings.model_fields_set else None,
        "unit_values": settings.unit_values, "holidays": settings.municipal_holidays,
        "short_days": settings.short_days, "office": settings.driver_office,
        "signing": _single_signing(settings),
    })


def _single_signing(settings: Settings) -> dict[str, object] | None:
    """The single municipality's ``signing`` from the ``BALCAO_SIGNING_*`` variables, or None when none is set."""
    if not (settings.signing_pkcs12_file or settings.signing_key_file or settings.signing_cert_file):
        return None
    return {"pkcs12_file": settings.signing_pkcs12_file, "key_file": settings.signing_key_file,
            "cert_file": settings.signing_cert_file,
            "trust_roots": [settings.signing_trust_root] if settings.signing_trust_root else [],
            "password_env": SINGLE_PASSWORD_VARIABLE}


def load_settings(**overrides: object) -> Settings:
    """Read and validate the settings.

    Args:
        **overrides: values that win over the environment (used by the CLI and tests).

    Returns:
        The validated settings.

    Raises:
        SettingsError: with one line per invalid variable, naming it as the user must set it.
    """
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = ["Invalid settings:"]
        for error in exc.errors():
            field = ".".join(str(part) for part in error["loc"]) or "settings"
            name = f"BALCAO_{field.upper()}" if error["loc"] else "settings"
            lines.append(f"  {name}: {error['msg']}")
        raise SettingsError("\n".join(lines)) from exc
    try:
        served = _municipalities(settings)
    except MunicipalitiesError as exc:
        raise SettingsError(str(exc)) from exc
    settings._municipalities = served
    return _scoped(settings, served.default)


def unknown_variables(environ: Mapping[str, str]) -> list[tuple[str, str | None]]:
    """The ``BALCAO_*`` variables no setting reads (a misspelt name is otherwise silently ignored).

    Returns:
        Each unknown name with the closest setting's name, or None when none is close.
    """
    known = [f"BALCAO_{name.upper()}" for name in Settings.model_fields]
    return [(name, next(iter(difflib.get_close_matches(name, known, n=1, cutoff=0.8)), None))
            for name in sorted(environ) if name.startswith("BALCAO_") and name not in known]


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return load_settings()
