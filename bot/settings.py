"""Typed settings read from ``BALCAO_*`` environment variables and a ``.env`` file.

This module is a leaf: any layer may import it. The contract (names and defaults) is in
``DESIGN.md``; the README's configuration table lists every variable.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.i18n import SUPPORTED_LOCALES

Rulebook = Literal["sapezal-1533", "nx-posturas"]
ALL_RULEBOOKS: tuple[Rulebook, ...] = ("sapezal-1533", "nx-posturas")


class SettingsError(Exception):
    """Raised with a readable, multi-line explanation when the settings are invalid."""


class Settings(BaseSettings):
    """Every setting of one Balcão deployment (one municipality, one bot token)."""

    model_config = SettingsConfigDict(
        env_prefix="BALCAO_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    telegram_token: SecretStr | None = None
    telegram_api_url: str = "https://api.telegram.org"
    database_url: str = "sqlite+aiosqlite:///./balcao.db"
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

    municipality_name: str = "Sapezal"
    municipality_state: str = "MT"
    ouvidoria_phone: str = Field(
        default="",
        description="Ouvidoria phone shown to users (Lei 1.533/2020 Art. 14 requires it on the sticker).",
    )
    rulebooks: Annotated[list[Rulebook], NoDecode] = Field(default_factory=lambda: list(ALL_RULEBOOKS))
    unit_values: dict[str, dict[int, Decimal]] = Field(
        default_factory=lambda: {
            "URS": {2025: Decimal("5.00"), 2026: Decimal("5.25")},
            "UPF-NX": {2025: Decimal("40.00"), 2026: Decimal("42.00")},
        },
        description="R$ value of each fiscal unit per year, as JSON: "
        '{"URS": {"2026": "5.25"}, "UPF-NX": {"2026": "42.00"}}.',
    )
    municipal_holidays: Annotated[list[dt.date], NoDecode] = Field(
        default_factory=list,
        description="Municipal holidays (ISO dates, comma separated), added to the national and MT ones.",
    )
    calendar_optional_days_off: bool = Field(
        default=False,
        description="Count the federal pontos facultativos (Carnaval, Ash Wednesday until 14:00, Corpus Christi, "
        "28 Oct, 24 and 31 Dec) as days off; by default only national and state holidays are.",
    )
    cp_defence_window: Literal["latest", "earliest", "art24", "art37", "art278"] = Field(
        default="latest",
        description="Código de Posturas defence windows (Art. 24/25 VI, 37, 278 §2): which one governs; "
        "'latest' = the one that closes last. Notices show all.",
    )
    cp_notice_defence_days: int = Field(
        default=30,
        ge=1,
        le=90,
        description="Days written on a Código de Posturas notificação preliminar (Art. 25 VI); 30 matches Art. 278 §2.",
    )
    cp_edital_start: Literal["fim_do_edital", "publicacao"] = Field(
        default="fim_do_edital",
        description="Código de Posturas Art. 37 after service by edital: count the 8 business days after the "
        "edital's 30 days (Art. 36 III) or from its publication.",
    )
    cp_vista_order: Literal["autuado_primeiro", "autuante_primeiro"] = Field(
        default="autuado_primeiro",
        description="Código de Posturas Art. 40 §1: which side gets the 3 days of vista first — the autuado, as "
        "the text lists them, or the autuante, so that the defence speaks last.",
    )
    cp_recidivism_nature: Literal["artigo", "capitulo", "codigo"] = Field(
        default="artigo",
        description="Código de Posturas Art. 8 par. único, 'infração da mesma natureza': an earlier notice under the "
        "same fining article (artigo), the same chapter (capitulo), or only the same catalogue row (codigo).",
    )
    l1533_notice_90d_start: Literal["lavratura", "juntada"] = Field(
        default="lavratura",
        description="Lei 1.533 Art. 22: the 90 days to deliver the penalty notice run from the lavratura (§1) "
        "or the juntada (§2).",
    )
    l1533_repeat_suspension: Literal["art26", "art24"] = Field(
        default="art26",
        description="Lei 1.533 repeat of Art. 26 IV: 30-day suspension (Art. 26 §1) or 12 months (Art. 24 par. único).",
    )
    l1533_defence_days: int = Field(
        default=10,
        ge=1,
        le=90,
        description="Lei 1.533 Art. 22 defesa prévia length in days (the Law leaves it to a Decreto; "
        "Lei 9.784/1999 gives 10).",
    )
    l1533_appeal_days: int = Field(
        default=10,
        ge=1,
        le=90,
        description="Lei 1.533 Art. 22 recurso length in days (the Law leaves it to a Decreto; "
        "Lei 9.784/1999 Art. 59 gives 10).",
    )
    l1533_payment_days: int = Field(
        default=30,
        ge=1,
        le=120,
        description="Lei 1.533 Art. 13 XXIII: days to pay a fine, stated on the notice (the Law leaves it to the "
        "notice; CTB Art. 282 §4 gives at least 30).",
    )
    month_end_rule: Literal["next_day", "clamp"] = Field(
        default="next_day",
        description="A period of months/years from a day the last month lacks (31 Jan + 1 month): ends on the "
        "next day (Código Civil Art. 132 §3) or on the month's last day.",
    )

    tacit_ciencia_days: int = Field(
        default=30,
        ge=1,
        le=89,
        description="Days after an electronic notice is sent until the person counts as notified without pressing "
        '"Tomo ciência" (the SNE model, CTB Art. 282-A §2: 30 days).',
    )
    tacit_ciencia_rulebooks: Annotated[list[Rulebook], NoDecode] = Field(
        default=["sapezal-1533"],
        description="Rulebooks whose electronic notices admit tacit ciência (Lei 1.533/2020 Art. 22 §1 allows "
        "electronic delivery); in the others an unacknowledged notice goes to postal delivery (CP Art. 36 II).",
    )
    notice_limit_warning_days: int = Field(
        default=15, ge=1, le=89, description="Warn staff this many days before the 90-day delivery limit "
        "of Lei 1.533/2020 Art. 22 §1."
    )
    notice_reminder_days: Annotated[list[int], NoDecode] = Field(
        default_factory=lambda: [3, 1],
        description="Remind the notified person this many days before each defence/appeal window closes "
        "(comma separated).",
    )

    cases_per_day: int = Field(
        default=5, ge=1, le=100, description="New cases (representações, reports, ombudsman) one person may file "
        "per day; a limit against abuse."
    )
    case_attachments_max: int = Field(default=5, ge=0, le=20, description="Files (JPEG, PNG, PDF) per case.")
    case_attachment_max_mb: int = Field(
        default=10, ge=1, le=20, description="Largest file accepted, in MB (Telegram bots download up to 20 MB)."
    )
    case_voice_max_seconds: int = Field(
        default=300, ge=0, le=3600, description="Longest voice note accepted as evidence, in seconds (read from the "
        "file itself); 0 refuses voice notes."
    )
    case_video_max_seconds: int = Field(
        default=120, ge=0, le=3600, description="Longest video accepted as evidence, in seconds (read from the file "
        "itself); 0 refuses videos."
    )
    case_target_days: int = Field(
        default=10, ge=1, le=90, description="Days staff have to decide a representação or a ride-hailing report: "
        "CP Art. 32 says 'imediatamente' and Lei 1.533/2020 sets no number, so this internal target is a choice."
    )
    case_warning_days: int = Field(
        default=3, ge=0, le=30, description="Warn staff this many days before a case's deadline (0: on the day)."
    )
    ombudsman_complement_days: int = Field(
        default=20, ge=1, le=60,
        description="Days the author has to complete an ombudsman request when asked once (Lei 13.460 Art. 16 "
        "sets none; Decreto 9.492/2018 Art. 18 gives 20, applied by analogy).",
    )
    ombudsman_complement_restarts: bool = Field(
        default=True, description="A request for complementação interrupts the 30-day answer deadline, which "
        "starts again from the citizen's answer (Decreto 9.492/2018 Art. 18); false keeps the original deadline."
    )

    driver_expiring_soon_days: int = Field(
        default=30,
        ge=1,
        le=180,
        description="Lei 1.533 Art. 3: an authorization is 'expiring soon' this many days before its validity ends.",
    )
    driver_vehicle_age_reading: Literal["after_model_year", "including_model_year"] = Field(
        default="after_model_year",
        description="Lei 1.533 Art. 2 §§1–2 (5 years of use, counted year by year to 31/12): the last year of "
        "service is model year + 5 ('after_model_year': the model year closes on 31/12 and the count starts "
        "then) or model year + 4 ('including_model_year': the model year is the first of the five).",
    )
    driver_inspection_start: Literal["last_inspection", "validity"] = Field(
        default="last_inspection",
        description="Lei 1.533 Art. 16 (annual inspection, start not stated): due 12 months after the last "
        "approved inspection, or by the end of each authorization validity ('validity': an approved inspection "
        "in the driver_expiring_soon_days before it counts).",
    )
    driver_failed_inspection: Literal["fix_window", "barred"] = Field(
        default="fix_window",
        description="Lei 1.533 Art. 16 §2 / Art. 26 II: after a failed inspection (the vehicle had passed one before) "
        "the driver may work during the 5 days to fix it and is barred after them ('fix_window', the text), or is "
        "barred at once ('barred').",
    )
    driver_csv_validity: Literal["check", "trust"] = Field(
        default="check",
        description="Driver CSV autorizacao_validade: 'check' refuses a row whose validity is not 12 months from "
        "autorizacao_emissao (Lei 1.533 Art. 3 par. único); 'trust' stores the registry's date as given.",
    )
    driver_office: str = Field(
        default="Secretaria Municipal de Finanças e Orçamento (SMFO), Av. Antonio André Maggi, 1400, Centro",
        description="Where drivers renew, present the vehicle and report changes (Lei 1.533 Art. 3, 9, 13 XX).",
    )
    driver_link_code_hours: int = Field(
        default=72, ge=1, le=720, description="Hours a driver's one-time link code (driver link-code) stays valid."
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
    scan_interval_minutes: float = Field(
        default=15.0, gt=0, description="How often `run` runs the reminder scans (also once at start)."
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
    tsa_url: str | None = Field(
        default=None,
        description="RFC 3161 timestamp authority that timestamps the tree head written out each day (optional).",
    )
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

    @field_validator("telegram_api_url", "webhook_url", "public_url", "tsa_url")
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
        if value is None or not value.get_secret_value():
            return None
        bot_id, _, secret = value.get_secret_value().partition(":")
        if not bot_id.isdigit() or len(secret) < 10:
            raise ValueError("does not look like a bot token (123456789:ABC…); copy it again from @BotFather")
        return value

    @field_validator("rulebooks", "tacit_ciencia_rulebooks", "notice_reminder_days", mode="before")
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
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = ["Invalid settings:"]
        for error in exc.errors():
            field = ".".join(str(part) for part in error["loc"]) or "settings"
            name = f"BALCAO_{field.upper()}" if error["loc"] else "settings"
            lines.append(f"  {name}: {error['msg']}")
        raise SettingsError("\n".join(lines)) from exc


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return load_settings()
