"""Verification codes printed on each notice's PDF (and in its QR code).

A code is 12 random characters of Crockford's base32 (60 bits), shown in groups of four:
``7K2M-QX9D-4HRT``. Only its SHA-256 is stored; a lookup hashes what the visitor typed (after forgiving
case, spaces, dashes and the letters people confuse with digits) and finds the notice by that hash, then
compares the digests in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base32: no I, L, O, U
LENGTH = 12
_CONFUSED = str.maketrans({"O": "0", "I": "1", "L": "1"})


def new_code() -> str:
    """A fresh random code, grouped for reading (``XXXX-XXXX-XXXX``)."""
    raw = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
    return format_code(raw)


def normalize_code(typed: str) -> str | None:
    """The 12 significant characters of a typed code, or None when it cannot be one.

    Case, spaces and dashes are ignored; ``O`` reads as ``0`` and ``I``/``L`` as ``1``.
    """
    cleaned = "".join(ch for ch in typed.upper() if ch not in " -_.\t\n").translate(_CONFUSED)
    if len(cleaned) != LENGTH or any(ch not in ALPHABET for ch in cleaned):
        return None
    return cleaned


def format_code(code: str) -> str:
    """A normalised code in groups of four."""
    raw = normalize_code(code) or code
    return "-".join(raw[index : index + 4] for index in range(0, len(raw), 4))


def code_hash(code: str) -> str:
    """The stored digest of a code (normalised first).

    Raises:
        ValueError: the text is not a code.
    """
    normalised = normalize_code(code)
    if normalised is None:
        raise ValueError("not a verification code")
    return hashlib.sha256(normalised.encode("ascii")).hexdigest()


def same_hash(stored: str, computed: str) -> bool:
    """Constant-time comparison of two code digests."""
    return hmac.compare_digest(stored.encode("ascii"), computed.encode("ascii"))
