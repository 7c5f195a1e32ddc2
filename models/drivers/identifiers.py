"""Brazilian identifiers of the driver registry: CPF, CNH, vehicle plate, RENAVAM and phone numbers.

Each ``parse_*`` function accepts what people type (dots, dashes, spaces, lower case) and returns the
canonical form stored in the database, or raises :class:`InvalidIdentifier` with a short reason, an English
msgid the reader's side translates (the import reports it with the line number). The CPF is personal data
(LGPD): it is never logged, and is shown only masked, as ``***.456.789-**``.
"""

from __future__ import annotations

import re

from core.i18n import N_
from models.invalid_input import InvalidInput

CNH_CATEGORIES_FOR_CARS = frozenset({"B", "C", "D", "E", "AB", "AC", "AD", "AE"})
"""CNH categories that allow driving a car (Lei 1.533/2020 Art. 12 I: "categoria B ou superior")."""

_OLD_PLATE = re.compile(r"^[A-Z]{3}[0-9]{4}$")
_MERCOSUL_PLATE = re.compile(r"^[A-Z]{3}[0-9][A-Z][0-9]{2}$")
_NOT_DIGIT = re.compile(r"\D")


class InvalidIdentifier(InvalidInput):
    """A CPF, CNH, plate, RENAVAM or phone number that is not valid (``render(tr)`` says why, in ``tr``'s language)."""


def _digits(value: str) -> str:
    return _NOT_DIGIT.sub("", value)


def _cpf_check_digit(digits: str) -> str:
    weight = len(digits) + 1
    total = sum(int(digit) * (weight - index) for index, digit in enumerate(digits))
    remainder = total % 11
    return "0" if remainder < 2 else str(11 - remainder)


def parse_cpf(value: str) -> str:
    """The 11 digits of a valid CPF (``123.456.789-09`` → ``12345678909``).

    Raises:
        InvalidIdentifier: wrong length, repeated digits or wrong check digits.
    """
    digits = _digits(value)
    if len(digits) != 11:
        raise InvalidIdentifier(N_("CPF must have 11 digits"))
    if digits == digits[0] * 11:
        raise InvalidIdentifier(N_("CPF is not valid"))
    first = _cpf_check_digit(digits[:9])
    second = _cpf_check_digit(digits[:9] + first)
    if digits[9:] != first + second:
        raise InvalidIdentifier(N_("CPF check digits do not match"))
    return digits


def mask_cpf(cpf: str) -> str:
    """A CPF as it may be shown: only the middle six digits, ``***.456.789-**``."""
    digits = _digits(cpf)
    if len(digits) != 11:
        return "***.***.***-**"
    return f"***.{digits[3:6]}.{digits[6:9]}-**"


CPF_CONFIRMATION_DIGITS = 3
"""How many leading CPF digits a driver types to confirm a link (the mask never shows them)."""


def cpf_confirmation(cpf: str) -> str:
    """The part of the CPF a driver confirms when linking: its first three digits (hidden by the mask)."""
    return _digits(cpf)[:CPF_CONFIRMATION_DIGITS]


def _cnh_check_digits(base: str) -> set[str]:
    numbers = [int(digit) for digit in base]
    first = sum(number * (9 - index) for index, number in enumerate(numbers)) % 11
    second = sum(number * (index + 1) for index, number in enumerate(numbers)) % 11
    if first < 10:
        return {f"{first}{second if second < 10 else 0}"}
    # First digit 10 becomes 0; DETRANs differ on whether the second is then reduced by 2 ("dsc"):
    # both forms are accepted so that no real licence is refused.
    reduced = (second - 2) % 11
    return {f"0{second if second < 10 else 0}", f"0{reduced if reduced < 10 else 0}"}


def parse_cnh(value: str) -> str:
    """The 11 digits of a valid CNH registration number.

    Raises:
        InvalidIdentifier: wrong length, repeated digits or wrong check digits.
    """
    digits = _digits(value)
    if len(digits) != 11:
        raise InvalidIdentifier(N_("CNH number must have 11 digits"))
    if digits == digits[0] * 11 or digits[9:] not in _cnh_check_digits(digits[:9]):
        raise InvalidIdentifier(N_("CNH number is not valid (check digits)"))
    return digits


def parse_cnh_category(value: str) -> str:
    """A CNH category in upper case (``b`` → ``B``, ``A/B`` → ``AB``).

    Raises:
        InvalidIdentifier: not a category that allows driving a car (L1533 Art. 12 I).
    """
    category = re.sub(r"[^A-Za-z]", "", value).upper()
    if category not in CNH_CATEGORIES_FOR_CARS:
        raise InvalidIdentifier(N_("CNH category must be B or higher (Lei 1.533/2020 Art. 12 I)"))
    return category


def parse_plate(value: str) -> str:
    """A vehicle plate, old (``ABC-1234``) or Mercosul (``ABC1D23``), as upper case without separators.

    Raises:
        InvalidIdentifier: neither format.
    """
    plate = re.sub(r"[\s\-.]", "", value).upper()
    if _OLD_PLATE.match(plate) is None and _MERCOSUL_PLATE.match(plate) is None:
        raise InvalidIdentifier(N_("plate must be ABC1234 (old) or ABC1D23 (Mercosul)"))
    return plate


def format_plate(plate: str) -> str:
    """A plate as printed: ``ABC-1234`` for the old format, ``ABC1D23`` for Mercosul."""
    return f"{plate[:3]}-{plate[3:]}" if _OLD_PLATE.match(plate) else plate


def parse_renavam(value: str) -> str:
    """The 11 digits of a valid RENAVAM (old 9-digit numbers are padded with zeros on the left).

    Raises:
        InvalidIdentifier: wrong length, repeated digits or wrong check digit.
    """
    digits = _digits(value)
    if len(digits) == 9:
        digits = "00" + digits
    if len(digits) != 11 or digits == digits[0] * 11:
        raise InvalidIdentifier(N_("RENAVAM must have 11 digits"))
    weights = (3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
    total = sum(int(digit) * weight for digit, weight in zip(digits[:10], weights, strict=True))
    check = (total * 10) % 11
    if digits[10] != str(0 if check == 10 else check):
        raise InvalidIdentifier(N_("RENAVAM check digit does not match"))
    return digits


def parse_phone(value: str, *, default_ddd: str = "65") -> str:
    """A Brazilian phone number in E.164 form (``+5565999998888``).

    Accepts ``(65) 99999-8888``, ``065 99999 8888``, ``+55 65 99999-8888``, ``5565999998888`` and numbers
    without the area code (``default_ddd`` is used, 65 for Mato Grosso's west). An eight-digit mobile
    number written before the ninth digit (``(65) 9999-8888``) gets its ``9``: mobile numbers start with
    6–9, landlines with 2–5.

    Raises:
        InvalidIdentifier: not a Brazilian number.
    """
    digits = _digits(value)
    if value.strip().startswith("+") and not digits.startswith("55"):
        raise InvalidIdentifier(N_("phone number is not Brazilian (+55)"))
    if digits.startswith("55") and len(digits) in (12, 13):
        digits = digits[2:]
    elif digits.startswith("0") and len(digits) in (11, 12):
        digits = digits[1:]
    if len(digits) in (8, 9):
        digits = default_ddd + digits
    if len(digits) not in (10, 11) or digits[0] == "0" or digits[1] == "0":
        raise InvalidIdentifier(N_("phone number must have an area code (DDD) and 8 or 9 digits"))
    ddd, number = digits[:2], digits[2:]
    if len(number) == 8 and number[0] in "6789":
        number = "9" + number
    if len(number) == 9 and number[0] != "9":
        raise InvalidIdentifier(N_("a 9-digit phone number must start with 9"))
    return f"+55{ddd}{number}"
