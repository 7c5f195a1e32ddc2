"""Greetings typed instead of /start: "oi", "olá", "bom dia", "Oi, tudo bem?" (and the English and Spanish ones).

Many people open a chat by saying hello. Outside a form, such a message greets them and shows the menu instead
of "I did not understand" (DESIGN.md: a person who types instead of pressing a button is understood).
"""

from __future__ import annotations

import re
import unicodedata

# Whole phrases, without accents and punctuation; longer ones first so "bom dia" is not read as "bom" + "dia".
GREETING_PHRASES: tuple[str, ...] = tuple(sorted({
    "oi", "oie", "ola", "opa", "e ai", "eai", "bom dia", "boa tarde", "boa noite", "tudo bem", "tudo bom",
    "hello", "hi", "hey", "good morning", "good afternoon", "good evening",
    "hola", "buenos dias", "buen dia", "buenas tardes", "buenas noches", "buenas", "que tal",
    "menu", "inicio", "comecar", "start",
}, key=len, reverse=True))
_NOT_LETTERS = re.compile(r"[^a-z]+")


def _plain(text: str) -> str:
    without_accents = "".join(
        char for char in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(char)
    )
    return " ".join(_NOT_LETTERS.sub(" ", without_accents).split())


def is_greeting(text: str) -> bool:
    """Whether a typed message is only a greeting ("Oi, bom dia!", "Olá 👋", "buenas tardes").

    Args:
        text: the message as typed.

    Returns:
        True when nothing but greeting phrases is left once accents, punctuation and emoji are set aside.
    """
    rest = f" {_plain(text)} "
    if not rest.strip() or len(rest) > 60:
        return False
    for phrase in GREETING_PHRASES:
        rest = rest.replace(f" {phrase} ", " ")
        rest = rest.replace(f" {phrase} ", " ")  # the same phrase twice in a row ("oi oi")
    return not rest.strip()
