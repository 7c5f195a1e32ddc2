"""The deployment's legal readings and municipal policies: one declaration each, one frozen value.

Where a law leaves a choice open (a window's start, what "the same nature" means, how long a tacit ciência takes), the
deployment records its reading in a ``BALCAO_*`` variable; docs/LEGAL-CHOICES.md says why each default was chosen.
:class:`core.settings.Settings` inherits the declarations (:class:`ReadingFields`), and a domain function receives
them as :class:`LegalReadings`, inside its :class:`core.municipality.Municipality`.

This module is a leaf like :mod:`core.settings`: any layer may import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_settings import NoDecode

from core.municipalities import Rulebook

if TYPE_CHECKING:
    from core.settings import Settings


class ReadingFields(BaseModel):
    """The declarations of the legal readings and municipal policies (``BALCAO_*`` variables of the same names).

    :class:`core.settings.Settings` inherits them (so each is declared once, with its validation and description);
    :class:`LegalReadings` is the frozen value a domain function receives.
    """

    short_day_rule: Literal["lei9784_art66", "cpc_224"] = Field(
        default="lei9784_art66",
        description="Which short office days move a deadline's end: 'lei9784_art66' only those that close before "
        "the normal hour (Lei 9.784/1999 Art. 66 §1); 'cpc_224' also those that open late (CPC Art. 224 §1).",
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
    decision_min_reasons: int = Field(
        default=40,
        ge=1,
        le=1000,
        description="CP Art. 41 and Lei 9.784/1999 Art. 50: the fewest characters a decision's reasons may have; "
        "shorter ones (\"ok\", \"indeferido\") are refused as no motivation at all.",
    )
    l1533_issue_limit: Literal["refuse", "confirm"] = Field(
        default="confirm",
        description="Lei 1.533 Art. 22 §1: an auto issued more than 90 days after its drawing up — refused, or "
        "issued only when the issuer confirms it explicitly (the confirmation is recorded).",
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

    optin_cpf_delivery: Literal["chat", "staff"] = Field(
        default="chat",
        description="A notice issued to a CPF that one person registered at the electronic opt-in: sent to that "
        "person's chat at once (chat), or only suggested to staff on the delivery list (staff) — "
        "docs/LEGAL-CHOICES.md #71.",
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
    ciencia_day_off: Literal["next_business_day", "same_day"] = Field(
        default="next_business_day",
        description="An electronic ciência (\"Tomo ciência\" or tacit) on a day without office hours: the windows "
        "count from the next business day (Lei 11.419/2006 Art. 5 §2 by analogy) or from that day itself "
        "(Lei 9.784/1999 Art. 66 caput, literal).",
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
    driver_link_code_hours: int = Field(
        default=72, ge=1, le=720, description="Hours a driver's one-time link code (driver link-code) stays valid."
    )
    open311_place: Literal["exact", "rounded"] = Field(
        default="rounded",
        description="What Open311's GET requests publish of a case's place: 'rounded' (until the city's legal "
        "office signs off on 'exact') no address and coordinates rounded to 0.01°, as the open data; 'exact' the "
        "address and coordinates given, as GeoReport v2 has them (the place can identify the accused, LGPD Art. 6 "
        "III; docs/LEGAL-CHOICES.md item 32).",
    )

    @field_validator("tacit_ciencia_rulebooks", "notice_reminder_days", mode="before")
    @classmethod
    def _split_list(cls, value: object) -> object:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value


class LegalReadings(ReadingFields):
    """The deployment's reading of each law and municipal policy, as a frozen value (docs/LEGAL-CHOICES.md)."""

    model_config = ConfigDict(frozen=True)

    @classmethod
    def of(cls, settings: Settings) -> LegalReadings:
        """The readings the settings declare (the same names, already validated)."""
        return cls.model_validate({name: getattr(settings, name) for name in ReadingFields.model_fields})
