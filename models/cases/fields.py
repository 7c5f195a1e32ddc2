"""What a citizen types, checked and normalised: names, addresses, CPF, dates, free text.

Each function returns the clean value or raises :class:`InvalidInput` carrying an English message id (and its
parameters) that the chat translates, so the answer to bad input is clear and in the person's language.
"""

from __future__ import annotations

import math
import re
import unicodedata

from core.i18n import N_
from models import when
from models.drivers.identifiers import InvalidIdentifier, parse_cpf
from models.invalid_input import InvalidInput

_SPACES = re.compile(r"[ \t]+")
_LETTER = re.compile(r"[^\W\d_]")


_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\ufffe\uffff]")
"""C0 control characters but tab and newline (and the two noncharacters): no text Balcão publishes may hold them,
as XML 1.0 cannot (Open311's ``requests.xml``) and nothing a person means to say needs them."""


def clean_text(text: str, *, min_length: int, max_length: int) -> str:
    """Drop control characters, trim and squeeze spaces (keeping line breaks); check the length.

    The one cleaning every typed text goes through, in the chat, the console and Open311: a carriage return is a
    line break, and the other C0 controls but tab and newline are removed.

    Raises:
        InvalidInput: too short, too long, or without a single letter.
    """
    text = _CONTROLS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [_SPACES.sub(" ", line).strip() for line in text.strip().splitlines()]
    value = "\n".join(line for line in lines if line)
    if len(value) < min_length or not _LETTER.search(value):
        raise InvalidInput(N_("That is too short: please write at least {n} characters."), n=min_length)
    if len(value) > max_length:
        raise InvalidInput(N_("That is too long: please keep it under {n} characters."), n=max_length)
    return value


def coordinates(latitude: float, longitude: float) -> tuple[float, float]:
    """A position in degrees (WGS84): latitude within ±90, longitude within ±180.

    Raises:
        InvalidInput: not finite, or outside those ranges.
    """
    if not (math.isfinite(latitude) and math.isfinite(longitude)
            and -90 <= latitude <= 90 and -180 <= longitude <= 180):
        raise InvalidInput(N_("That location is not a place on Earth: latitude goes from -90 to 90 and longitude "
                              "from -180 to 180."))
    return latitude, longitude


def person_name(text: str) -> str:
    """A full name: letters, at least a first name and a surname (CP Art. 31: the author's legible name).

    Raises:
        InvalidInput: digits or symbols, or a single word.
    """
    value = clean_text(text, min_length=3, max_length=128).replace("\n", " ")
    if any(char.isdigit() for char in value) or re.search(r"[^\w\s'.\-]", value):
        raise InvalidInput(N_("Please write your name with letters only."))
    if len(value.split()) < 2:
        raise InvalidInput(N_("Please write your full name (first name and surname)."))
    return value


def profession(text: str) -> str:
    """A profession or occupation (CP Art. 31)."""
    return clean_text(text, min_length=2, max_length=80).replace("\n", " ")


def address(text: str) -> str:
    """A postal address or the description of a place."""
    return clean_text(text, min_length=5, max_length=300).replace("\n", ", ")


FACTS_MAX = 2000
"""The longest account of the facts the chat takes (one Telegram message leaves room for the rest)."""


def facts(text: str, *, max_length: int = FACTS_MAX) -> str:
    """What happened, in the author's words (a representação or a report), at most ``max_length`` characters."""
    return clean_text(text, min_length=10, max_length=max_length)


def accused(text: str) -> str:
    """Who is accused, as the author describes them, on one line."""
    return clean_text(text, min_length=2, max_length=200).replace("\n", " ")


def evidence_note(text: str) -> str:
    """Where the evidence can be found, when no file is sent (CP Art. 31)."""
    return clean_text(text, min_length=5, max_length=1000)


def learned_how(text: str) -> str:
    """How the author learned of the facts (CP Art. 31), on one line."""
    return clean_text(text, min_length=3, max_length=300).replace("\n", " ")


def cpf(text: str) -> str:
    """A CPF (11 digits, check digits verified), as digits only; the check is the driver registry's.

    Raises:
        InvalidInput: wrong number of digits or wrong check digits.
    """
    if not re.fullmatch(r"[\d.\-\s/]+", text.strip()):
        raise InvalidInput(N_("A CPF has 11 digits, like 123.456.789-09. Please check and type it again."))
    try:
        return parse_cpf(text)
    except InvalidIdentifier:
        raise InvalidInput(
            N_("This CPF is not valid. Please check the 11 digits and type it again, or skip it.")
        ) from None


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.strip().lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


past_day = when.past_day  # the one grammar of days (models/when.py), kept under the name the forms know


def yes_or_no(text: str) -> bool | None:
    """``sim``/``yes``/``sí`` → True, ``não``/``no`` → False, anything else → None."""
    plain = _plain(text).rstrip("!.")
    if plain in {"sim", "s", "yes", "y", "si", "ok", "confirmo", "confirmar", "enviar", "send"}:
        return True
    if plain in {"nao", "n", "no"}:
        return False
    return None
