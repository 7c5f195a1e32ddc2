"""The offender's CPF (a person) or CNPJ (a company), checked and kept as digits."""

from __future__ import annotations

import re

from core.i18n import N_
from models.cases.fields import cpf
from models.invalid_input import InvalidInput


def cnpj(text: str) -> str:
    """A CNPJ (14 digits, check digits verified), as digits only.

    Raises:
        InvalidInput: wrong number of digits or wrong check digits.
    """
    digits = re.sub(r"\D", "", text)
    if len(digits) != 14 or not re.fullmatch(r"[\d./\-\s]+", text.strip()):
        raise InvalidInput(N_("A CNPJ has 14 digits, like 12.345.678/0001-95. Please check and type it again."))
    numbers = [int(d) for d in digits]
    if len(set(numbers)) == 1:
        raise InvalidInput(N_("This CNPJ is not valid. Please check the digits and type it again."))
    for position in (12, 13):
        weights = list(range(position - 7, 1, -1)) + list(range(9, 1, -1))
        total = sum(n * w for n, w in zip(numbers[:position], weights, strict=True))
        check = 0 if total % 11 < 2 else 11 - total % 11
        if numbers[position] != check:
            raise InvalidInput(N_("This CNPJ is not valid. Please check the digits and type it again."))
    return digits


def offender_document(text: str) -> str:
    """A CPF or a CNPJ, told apart by the number of digits, as digits only.

    Raises:
        InvalidInput: neither a valid CPF nor a valid CNPJ.
    """
    digits = re.sub(r"\D", "", text)
    if len(digits) == 14:
        return cnpj(text)
    if len(digits) == 11:
        return cpf(text)
    raise InvalidInput(N_("Type a CPF (11 digits) or a CNPJ (14 digits), or skip this step."))
