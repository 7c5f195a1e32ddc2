"""The municipalities a deployment serves, read from one TOML file (``BALCAO_MUNICIPALITIES_FILE``).

An act is valid only in the name of the authority with the power to do it: each municipality legislates on matters
of local interest (CF Art. 30 I) and enforces its own laws (Art. 30 V), so every document, deadline, fine and message
of a case, notice or driver registration uses the municipality it belongs to. Lei 1.533/2020 is Sapezal's ("Prefeitura
Municipal de Sapezal", its header); the Código de Posturas, Lei 1.101/2004, is Nova Xavantina's ("Código de Posturas do
Município de Nova Xavantina", its header): a rulebook may be in force only in its own municipality.

Without a file, the ``BALCAO_MUNICIPALITY_*`` variables describe a single-municipality deployment (wave 1); with none
of them set either, the deployment serves the two municipalities whose laws ship with Balcão, without fiscal-unit
values (so no fine can be issued until they are configured). The format is in the README ("Municipalities").

This module is a leaf like :mod:`core.settings`: any layer may import it.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
import unicodedata
from collections.abc import Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Final, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

Rulebook = Literal["sapezal-1533", "nx-posturas"]

SLUG_PATTERN: Final = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"

RULEBOOK_OWNERS: Final[dict[str, str]] = {
    "sapezal-1533": "5107875",  # Lei 1.533/2020, "Prefeitura Municipal de Sapezal" (the Law's header)
    "nx-posturas": "5106257",  # Lei 1.101/2004, "Código de Posturas do Município de Nova Xavantina"
}
"""The IBGE code of the municipality that enacted each rulebook's law (CF Art. 30 I: its own competence)."""

KNOWN_MUNICIPALITIES: Final[dict[str, tuple[str, str, str]]] = {
    "sapezal": ("Sapezal", "MT", "5107875"),
    "nova-xavantina": ("Nova Xavantina", "MT", "5106257"),
}
"""Slug → (name, state, IBGE code) of the municipalities whose laws ship with Balcão."""

UF_IBGE_PREFIX: Final[dict[str, str]] = {
    "RO": "11", "AC": "12", "AM": "13", "RR": "14", "PA": "15", "AP": "16", "TO": "17", "MA": "21", "PI": "22",
    "CE": "23", "RN": "24", "PB": "25", "PE": "26", "AL": "27", "SE": "28", "BA": "29", "MG": "31", "ES": "32",
    "RJ": "33", "SP": "35", "PR": "41", "SC": "42", "RS": "43", "MS": "50", "MT": "51", "GO": "52", "DF": "53",
}
"""The first two digits of every IBGE municipal code are its state's code."""


class MunicipalitiesError(Exception):
    """The municipalities file (or the single-municipality variables) is invalid; one line per problem."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Office(_Strict):
    """A place where people are served (L1533 Art. 3, 9, 13 XX: where drivers renew and present the vehicle)."""

    name: str = Field(min_length=1, max_length=160)
    address: str = Field(min_length=1, max_length=300)
    hours: str = Field(default="", max_length=160, description="Opening hours as people read them.")


class Ouvidoria(_Strict):
    """How to reach the municipality's Ouvidoria (L13460 Art. 13; L1533 Art. 14: phone on the sticker)."""

    phone: str = Field(default="", max_length=40)
    email: str = Field(default="", max_length=120, pattern=r"^$|^[^@\s]+@[^@\s]+\.[^@\s]+$")


class Contact(_Strict):
    """Whom a person reaches at the city hall (issue 20 §3): ``/ajuda`` and every "Não entendi" give it.

    The address and hours are those of an office of the file (``office``, by name; the first when empty).
    """

    phone: str = Field(default="", max_length=40, description="The city hall's telephone as people dial it.")
    whatsapp: str = Field(default="", pattern=r"^$|^\+55\d{10,11}$",
                          description="A WhatsApp number (+55 DDD number), if the city hall answers there.")
    office: str = Field(default="", max_length=160, description="The office (by name) whose address and hours "
                        "are given; the first office when empty.")


class Area(_Strict):
    """Where the municipality is: a centre and a radius that holds its territory (issue 20 §3).

    A place given by its coordinates outside it is refused, naming the municipality (CF Art. 30 I: each city hall
    acts on its own territory). A circle, not the IBGE boundary: generous on purpose, it stops a place 700 km away,
    not one at the border.
    """

    latitude: float = Field(ge=-90, le=90)
    longitude: float = Field(ge=-180, le=180)
    radius_km: float = Field(gt=0, le=1000)


class Encarregado(_Strict):
    """The person in charge of personal data (LGPD Art. 23 III, 41): named, with a contact, published (Art. 41 §1)."""

    name: str = Field(default="", max_length=160)
    contact: str = Field(default="", max_length=160, description="An e-mail, phone or address people can reach.")

    @property
    def named(self) -> bool:
        """Whether the municipality configured one (both name and contact)."""
        return bool(self.name.strip() and self.contact.strip())


class ShortDay(_Strict):
    """A day the office works shorter hours, decreed by the municipality (L9784 Art. 66 §1).

    Exactly one of ``closes`` (closes before the normal hour, e.g. 24 and 31 December) and ``opens`` (opens late,
    e.g. Ash Wednesday until 14h) is given.
    """

    date: dt.date
    closes: dt.time | None = None
    opens: dt.time | None = None
    act: str = Field(default="", max_length=160, description="The decree or ordinance, e.g. 'Decreto nº 45/2026'.")

    @model_validator(mode="after")
    def _one_of(self) -> ShortDay:
        if (self.closes is None) == (self.opens is None):
            raise ValueError(f"{self.date}: give either closes = \"HH:MM\" or opens = \"HH:MM\"")
        return self


class SigningCertificate(_Strict):
    """The certificate that signs the municipality's PDFs (PAdES; L14063 Art. 4, docs/LEGAL-CHOICES.md).

    Either a PKCS#12 file (``pkcs12_file``, as an ICP-Brasil e-CNPJ A1 is delivered) or a PEM key and certificate
    (``key_file`` and ``cert_file``). The password is never written here: ``password_env`` names the environment
    variable that holds it. ``chain_files`` are the intermediate certificates embedded in the signature;
    ``trust_roots`` the root certificates ``/verificar`` trusts (the ICP-Brasil root, or the demo's test CA).
    """

    pkcs12_file: Path | None = None
    key_file: Path | None = None
    cert_file: Path | None = None
    chain_files: tuple[Path, ...] = ()
    trust_roots: tuple[Path, ...] = ()
    password_env: str = Field(default="", max_length=80, pattern=r"^$|^[A-Z_][A-Z0-9_]*$")

    @model_validator(mode="after")
    def _one_source(self) -> SigningCertificate:
        pem = self.key_file is not None or self.cert_file is not None
        if (self.pkcs12_file is not None) == pem:
            raise ValueError("give either pkcs12_file, or key_file and cert_file")
        if pem and (self.key_file is None or self.cert_file is None):
            raise ValueError("key_file and cert_file go together")
        return self


PIX_KEY_PATTERN: Final = (
    r"(?:\d{11}|\d{14}"  # CPF or CNPJ, digits only
    r"|\+55\d{10,11}"  # phone, +55 DDD number
    r"|[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}"  # e-mail, lower case
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"  # random key (EVP)
)
"""The shapes of a PIX key in the Banco Central's DICT (Resolução BCB nº 1/2020, Regulamento Pix Art. 2)."""


class PaymentMeans(_Strict):
    """How a fine is paid in this municipality (CP Art. 34 IV: the auto intimates the person to pay).

    ``dam_office`` issues the DAM (Documento de Arrecadação Municipal); with ``pix_key`` every fine notice also
    carries a static PIX BR Code for its amount. The BR Code's merchant name holds at most 25 characters and its
    city 15 (Manual do BR Code, IDs 59 and 60): they default to the municipality's name.
    """

    dam_office: Office
    pix_key: str = Field(default="", max_length=77, pattern=f"^(?:{PIX_KEY_PATTERN})?$")
    pix_merchant_name: str = Field(default="", max_length=25)
    pix_merchant_city: str = Field(default="", max_length=15)
ActKind = Literal["autuar", "primeira_instancia", "segunda_instancia", "ouvidoria"]
"""The acts an authority performs: draw up a notice (autuar), decide a defence or reclamação (first instance),
decide the appeal (second instance), answer an ombudsman case."""

ACT_KINDS: Final[tuple[ActKind, ...]] = ("autuar", "primeira_instancia", "segunda_instancia", "ouvidoria")


class Authority(_Strict):
    """Who may perform one kind of act in a municipality: the office and the staff role (cargo) that holds it.

    ``designation_required``: the staff member must hold a designation act (portaria, number, date) for it, as
    CP Art. 12 requires of the agent who applies fines ("Agente para esse fim designado").
    """

    office: str = Field(min_length=1, max_length=160, description="The office (órgão) that performs the act.")
    title: str = Field(min_length=1, max_length=160, description="The staff role (cargo) that performs it.")
    article: str = Field(default="", max_length=160, description="The provision that gives the competence.")
    designation_required: bool = False


class Authorities(_Strict):
    """The competent authority of each kind of act (issue 18 §1); the defaults are those of Balcão's two laws."""

    autuar: Authority
    primeira_instancia: Authority
    segunda_instancia: Authority
    ouvidoria: Authority

    def of(self, act: ActKind) -> Authority:
        """The authority of one kind of act."""
        authority: Authority = getattr(self, act)
        return authority


class AuthoritiesFile(_Strict):
    """``[municipality.authorities.<act>]`` tables of the file; an act not given keeps its law's default."""

    autuar: Authority | None = None
    primeira_instancia: Authority | None = None
    segunda_instancia: Authority | None = None
    ouvidoria: Authority | None = None


CP_TITLE: Final = "Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina)"
L1533_TITLE: Final = "Lei nº 1.533/2020 (Sapezal)"
"""The laws' names as the documents cite them (``models.rulebooks.catalogue.LAW_TITLES``; a test keeps them equal)."""


def default_authorities(ibge_code: str) -> Authorities:
    """The competent authorities as each shipped law sets them (LEGAL-CHOICES #authorities).

    - Nova Xavantina, Código de Posturas: fines by an agent designated for it (Art. 12); reclamações decided by the
      Chefe do Departamento where the agents serve (Art. 40); the appeal to the Prefeito (Art. 43, 45).
    - Sapezal, Lei 1.533/2020: the Secretaria Municipal de Finanças e Orçamento investigates and applies the
      penalties (Art. 17), through its agentes fiscalizadores (Art. 18 sole paragraph) — the first instance is its
      Secretário; the Law names no appeal authority, so the hierarchical appeal goes to the Prefeito (Lei 9.784
      Art. 56 §1).
    - Elsewhere the same shape with generic names, to be set in the municipalities file.
    - Ombudsman answers: the Ouvidor (L13460 Art. 13–14).
    """
    ouvidor = Authority(office="Ouvidoria Municipal", title="Ouvidor(a)", article="Lei 13.460/2017, Art. 13–14")
    if ibge_code == RULEBOOK_OWNERS["sapezal-1533"]:
        smfo = "Secretaria Municipal de Finanças e Orçamento"
        return Authorities(
            autuar=Authority(office=smfo, title="Agente fiscalizador", article=f"{L1533_TITLE}, Art. 17–18",
                             designation_required=True),
            primeira_instancia=Authority(office=smfo, title="Secretário(a) Municipal de Finanças e Orçamento",
                                         article=f"{L1533_TITLE}, Art. 17"),
            segunda_instancia=Authority(office="Gabinete do Prefeito", title="Prefeito(a) Municipal",
                                        article="Lei 9.784/1999, Art. 56, §1º"),
            ouvidoria=ouvidor,
        )
    department = "Departamento de Fiscalização"
    return Authorities(
        autuar=Authority(office=department, title="Agente fiscal designado", article=f"{CP_TITLE}, Art. 12",
                         designation_required=True),
        primeira_instancia=Authority(office=department, title="Chefe do Departamento",
                                     article=f"{CP_TITLE}, Art. 40"),
        segunda_instancia=Authority(office="Gabinete do Prefeito", title="Prefeito(a) Municipal",
                                    article=f"{CP_TITLE}, Art. 43 e 45"),
        ouvidoria=ouvidor,
    )


def bot_token_shape(value: SecretStr | None) -> SecretStr | None:
    """A bot token as @BotFather gives it (``123456789:ABC…``); an empty one is None.

    Raises:
        ValueError: it does not look like a bot token.
    """
    if value is None or not value.get_secret_value():
        return None
    bot_id, _, secret = value.get_secret_value().partition(":")
    if not bot_id.isdigit() or len(secret) < 10:
        raise ValueError("does not look like a bot token (123456789:ABC…); copy it again from @BotFather")
    return value


class MunicipalityConfig(_Strict):
    """One municipality of the deployment: identity, offices, Ouvidoria, calendar, fiscal units, laws in force."""

    slug: str = Field(pattern=SLUG_PATTERN, max_length=40, description="Stable key, e.g. 'nova-xavantina'.")
    name: str = Field(min_length=1, max_length=80)
    state: str = Field(default="MT", pattern=r"^[A-Z]{2}$")
    ibge_code: str = Field(default="", pattern=r"^$|^\d{7}$")
    offices: tuple[Office, ...] = ()
    notice_office: str = Field(
        default="", max_length=160, description="The office (by name) where people notified must appear and file: "
        "the setor competente of CP Art. 24 and the 'where' of L9784 Art. 26 §1 III; the first office when empty.",
    )
    ouvidoria: Ouvidoria = Ouvidoria()
    contact: Contact = Contact()
    area: Area | None = Field(default=None, description="Centre and radius of the territory; unset: any place "
                              "on Earth is taken.")
    encarregado: Encarregado = Encarregado()
    holidays: dict[int, tuple[dt.date, ...]] = Field(
        default_factory=dict, description="Municipal holidays per year (added to the national and state ones)."
    )
    short_days: tuple[ShortDay, ...] = ()
    unit_values: dict[str, dict[int, Annotated[Decimal, Field(gt=0)]]] = Field(
        default_factory=dict, description="R$ per fiscal unit per year: URS = { 2026 = \"5.25\" }."
    )
    unit_values_illustrative: bool = Field(
        default=False, description="The values are examples (the demo's): fines say so, and outside the demo none "
        "is issued with them.",
    )
    rulebooks: tuple[Rulebook, ...] = ()
    bot_token: SecretStr | None = Field(default=None, description="This municipality's own bot (else the default).")
    bot_name: str = Field(default="", max_length=64)
    payment: PaymentMeans | None = Field(
        default=None, description="How fines are paid (the DAM's office, a PIX key); unset: the notice names none.")
    signing: SigningCertificate | None = Field(
        default=None, description="The certificate that signs this municipality's PDFs; unset: they are unsigned.")
    authorities: AuthoritiesFile = Field(
        default_factory=AuthoritiesFile,
        description="The competent authority of each kind of act; an act not given: as its law sets it.",
    )

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        return bot_token_shape(value)

    @field_validator("state")
    @classmethod
    def _known_state(cls, value: str) -> str:
        if value not in UF_IBGE_PREFIX:
            raise ValueError(f"unknown state {value!r}; use the two-letter UF, e.g. MT")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> MunicipalityConfig:
        if self.ibge_code and not self.ibge_code.startswith(UF_IBGE_PREFIX[self.state]):
            raise ValueError(f"IBGE code {self.ibge_code} is not of a municipality of {self.state} "
                             f"(those start with {UF_IBGE_PREFIX[self.state]})")
        for year, days in self.holidays.items():
            if wrong := [day.isoformat() for day in days if day.year != year]:
                raise ValueError(f"holidays.{year} lists days of another year: {', '.join(wrong)}")
        if self.notice_office and self.notice_office not in {office.name for office in self.offices}:
            raise ValueError(f"notice_office {self.notice_office!r} is not the name of one of the offices")
        for rulebook in self.rulebooks:
            owner = RULEBOOK_OWNERS[rulebook]
            if self.ibge_code != owner:
                law = next(name for slug, (name, _uf, code) in KNOWN_MUNICIPALITIES.items() if code == owner)
                raise ValueError(f"rulebook {rulebook} is a law of {law} (IBGE {owner}): another municipality "
                                 "cannot enforce it (CF Art. 30 I); set this municipality's ibge_code or remove it")
        return self

    @property
    def holiday_dates(self) -> tuple[dt.date, ...]:
        """Every municipal holiday, all years together."""
        return tuple(sorted(day for days in self.holidays.values() for day in days))

    @property
    def office_for_notices(self) -> Office | None:
        """Where people notified appear and file (CP Art. 24 setor competente; L9784 Art. 26 §1 III)."""
        named = [office for office in self.offices if office.name == self.notice_office]
        return named[0] if named else (self.offices[0] if self.offices else None)

    def contact_office(self) -> Office | None:
        """The office whose address and hours people are given to reach someone (:class:`Contact`)."""
        named = [office for office in self.offices if office.name == self.contact.office]
        return named[0] if named else (self.offices[0] if self.offices else None)

    @property
    def competent(self) -> Authorities:
        """The competent authority of each kind of act: the file's, else the defaults of its law."""
        defaults = default_authorities(self.ibge_code)
        return Authorities(**{act: getattr(self.authorities, act) or defaults.of(act) for act in ACT_KINDS})

    @property
    def prefeitura(self) -> str:
        """The authority's name as documents are headed: ``Prefeitura Municipal de Nova Xavantina``."""
        return f"Prefeitura Municipal de {self.name}"


class MunicipalitiesFile(_Strict):
    """The TOML file: ``[[municipality]]`` tables, one per municipality; the first is the default."""

    municipality: tuple[MunicipalityConfig, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> MunicipalitiesFile:
        slugs = [item.slug for item in self.municipality]
        if duplicates := sorted({slug for slug in slugs if slugs.count(slug) > 1}):
            raise ValueError(f"slug used twice: {', '.join(duplicates)}")
        seen: dict[str, str] = {}
        for item in self.municipality:
            for rulebook in item.rulebooks:
                if rulebook in seen:
                    raise ValueError(f"rulebook {rulebook} is in force in both {seen[rulebook]} and {item.slug}")
                seen[rulebook] = item.slug
        return self


class _Served(Protocol):
    @property
    def slug(self) -> str: ...

    @property
    def rulebooks(self) -> tuple[str, ...]: ...


Served = TypeVar("Served", bound=_Served)


class BySlug(Mapping[str, Served]):
    """Municipalities by slug, in the file's order (the first is the default): their configs or their values."""

    def __init__(self, items: tuple[Served, ...]) -> None:
        if not items:
            raise ValueError("a deployment serves at least one municipality")
        self._items = {item.slug: item for item in items}

    def __getitem__(self, slug: str) -> Served:
        return self._items[slug]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    @property
    def default(self) -> Served:
        """The first municipality: existing rows go to it on upgrade, and a single deployment has only it."""
        return next(iter(self._items.values()))

    @property
    def several(self) -> bool:
        """Whether people must choose their city (the deployment serves more than one)."""
        return len(self._items) > 1

    def with_rulebook(self, rulebook: str) -> Served | None:
        """The municipality where a rulebook is in force (at most one: its law, CF Art. 30 I), or ``None``."""
        return next((item for item in self._items.values() if rulebook in item.rulebooks), None)


class Municipalities(BySlug[MunicipalityConfig]):
    """The municipalities' configs, and the file (or variables) they were read from."""

    def __init__(self, items: tuple[MunicipalityConfig, ...], *, source: str) -> None:
        super().__init__(items)
        self.source = source


def _problems(exc: ValidationError, prefix: str) -> list[str]:
    lines = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        lines.append(f"  {prefix}{where}: {message}" if where else f"  {prefix.rstrip(': ')}: {message}")
    return lines


def load_file(path: Path) -> Municipalities:
    """Read and validate a municipalities TOML file.

    Raises:
        MunicipalitiesError: the file is missing, not TOML, or invalid (one line per problem, each named by its
            place in the file, e.g. ``municipality.1.ibge_code``).
    """
    name = "BALCAO_MUNICIPALITIES_FILE"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MunicipalitiesError(f"{name}: cannot read {path}: {exc.strerror}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise MunicipalitiesError(f"{name}: {path} is not valid TOML: {exc}") from exc
    try:
        parsed = MunicipalitiesFile.model_validate(data)
    except ValidationError as exc:
        raise MunicipalitiesError("\n".join([f"Invalid {name} ({path}):", *_problems(exc, "")])) from exc
    return Municipalities(parsed.municipality, source=str(path))


def slugify(name: str) -> str:
    """A slug from a municipality's name: ``Nova Xavantina`` → ``nova-xavantina``."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", plain).strip("-") or "municipio"


SAPEZAL_SMFO: Final = Office(name="Secretaria Municipal de Finanças e Orçamento (SMFO)",
                             address="Av. Antonio André Maggi, 1400, Centro")
"""Where Sapezal serves drivers: the address in the header of Lei 1.533/2020."""


NX_PREFEITURA: Final = Office(name="Prefeitura Municipal de Nova Xavantina",
                              address="Av. Expedição Roncador Xingú, 249, Setor Xavantina, CEP 78690-000")
"""Where Nova Xavantina serves the public: the address in the footer of Lei 1.101/2004."""


def built_in() -> Municipalities:
    """The two municipalities whose laws ship with Balcão, each with its own law, without unit values."""
    items = tuple(
        MunicipalityConfig(slug=slug, name=name, state=state, ibge_code=code,
                           offices=(SAPEZAL_SMFO,) if slug == "sapezal" else (NX_PREFEITURA,),
                           rulebooks=tuple(rb for rb, owner in RULEBOOK_OWNERS.items() if owner == code))
        for slug, (name, state, code) in KNOWN_MUNICIPALITIES.items()
    )
    return Municipalities(items, source="built-in")


def single(values: dict[str, object]) -> Municipalities:
    """One municipality from the wave-1 ``BALCAO_*`` variables (see ``Settings``).

    Args:
        values: ``slug``, ``name``, ``state``, ``ouvidoria_phone``, ``rulebooks`` (``None``: the laws this
            municipality enacted), ``unit_values``, ``holidays`` (dates), ``short_days``, ``office``.

    Raises:
        MunicipalitiesError: one line per invalid value, named by its variable.
    """
    name = str(values["name"])
    slug = str(values.get("slug") or slugify(name))
    known = KNOWN_MUNICIPALITIES.get(slugify(name))
    ibge = str(values.get("ibge_code") or (known[2] if known else ""))
    rulebooks = values.get("rulebooks")
    if rulebooks is None:
        rulebooks = [rb for rb, owner in RULEBOOK_OWNERS.items() if owner == ibge]
    holidays: dict[int, list[dt.date]] = {}
    for day in values.get("holidays") or ():  # type: ignore[attr-defined]
        holidays.setdefault(day.year, []).append(day)
    office_name, _, office_address = str(values.get("office") or "").partition(",")
    data = {
        "slug": slug, "name": name, "state": values.get("state", "MT"), "ibge_code": ibge,
        "ouvidoria": {"phone": values.get("ouvidoria_phone") or ""}, "holidays": holidays,
        "unit_values": values.get("unit_values") or {}, "rulebooks": rulebooks,
        "short_days": [day.model_dump() for day in values.get("short_days") or ()],  # type: ignore[attr-defined]
        "offices": [{"name": office_name.strip(), "address": office_address.strip() or office_name.strip()}]
        if office_name.strip() else [],
        "signing": values.get("signing") or None,
    }
    try:
        item = MunicipalityConfig.model_validate(data)
    except ValidationError as exc:
        variables = {"ibge_code": "MUNICIPALITY_IBGE_CODE", "ouvidoria": "OUVIDORIA_PHONE",
                     "holidays": "MUNICIPAL_HOLIDAYS", "state": "MUNICIPALITY_STATE", "slug": "MUNICIPALITY_SLUG",
                     "name": "MUNICIPALITY_NAME", "unit_values": "UNIT_VALUES", "rulebooks": "RULEBOOKS",
                     "signing": "SIGNING_PKCS12_FILE"}
        lines = ["Invalid single-municipality settings:"]
        for error in exc.errors():
            field = str(error["loc"][0]) if error["loc"] else ""
            variable = f"BALCAO_{variables.get(field, 'MUNICIPALITY_NAME')}" if field else "BALCAO_RULEBOOKS"
            lines.append(f"  {variable}: {error['msg'].removeprefix('Value error, ')}")
        raise MunicipalitiesError("\n".join(lines)) from exc
    return Municipalities((item,), source="BALCAO_MUNICIPALITY_*")
