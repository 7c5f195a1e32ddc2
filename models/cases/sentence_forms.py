"""Which form a sentence typed at the menu most likely means: "quero denunciar queimada de lixo" → /representacao.

Issue 19 §4.4: a person who writes what they want instead of pressing a button is answered with the form, offered
as a button, and what they wrote is kept as its first answer. No model: a documented keyword list per form and
language (``sentence_keywords_<locale>.toml`` beside this module) scores the sentence; the form with the highest
score wins, a tie or nothing found gives no guess. Every language's list is read, whatever the reader's language
(a Spanish speaker in Mato Grosso may well write Portuguese).
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from core.i18n import SUPPORTED_LOCALES
from models.cases.tables import OmbudsmanType

VERB_POINTS, TOPIC_POINTS = 1, 2
TARGETS = ("representacao", "motorista", "ouvidoria")
MAX_SENTENCE = 500
"""Longer text is a message, not a sentence at the menu: it gets no guess."""
_WORDS = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True, slots=True)
class Guess:
    """The form a sentence points to.

    Attributes:
        form: ``representacao`` or ``ouvidoria``.
        kind: the representação's kind (``cp``: Código de Posturas, ``app``: a ride-hailing driver), or None.
        ombudsman_type: the ouvidoria's kind of message the verb names (L13460 Art. 2), or None.
        words: the keywords found, as typed without accents (the reason of the guess, for tests and logs).
    """

    form: str
    kind: str | None
    ombudsman_type: OmbudsmanType | None
    words: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Keywords:
    phrases: dict[tuple[str, ...], tuple[str, int]]  # words → (target, points); a phrase scores once per target
    types: dict[tuple[str, ...], OmbudsmanType]
    longest: int


def _words(text: str) -> list[str]:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return _WORDS.findall("".join(char for char in decomposed if not unicodedata.combining(char)))


@cache
def _keywords() -> _Keywords:
    phrases: dict[tuple[str, ...], tuple[str, int]] = {}
    types: dict[tuple[str, ...], OmbudsmanType] = {}
    for locale in SUPPORTED_LOCALES:
        data = tomllib.loads((Path(__file__).parent / f"sentence_keywords_{locale}.toml").read_text("utf-8"))
        for target in TARGETS:
            for key, points in (("verbs", VERB_POINTS), ("topics", TOPIC_POINTS)):
                for phrase in data[target][key]:
                    phrases.setdefault(tuple(_words(phrase)), (target, points))
        for value, listed in data["ouvidoria"]["types"].items():
            for phrase in listed:
                types.setdefault(tuple(_words(phrase)), OmbudsmanType(value))
    return _Keywords(phrases, types, max(len(words) for words in phrases))


def guess_form(text: str, *, kinds: tuple[str, ...] = ("cp", "app")) -> Guess | None:
    """The form a sentence typed at the menu most likely means, or None.

    Args:
        text: what the person typed.
        kinds: the representações their municipality takes (``cp``, ``app``; CF Art. 30 I): a guess for one it
            does not take is no guess.

    Returns:
        The guess, or None for no keyword, a tie, or a form the municipality does not offer.
    """
    if len(text) > MAX_SENTENCE:
        return None
    words, keywords = _words(text), _keywords()
    scores = dict.fromkeys(TARGETS, 0)
    found: list[str] = []
    ombudsman_type: OmbudsmanType | None = None
    index = 0
    while index < len(words):  # the longest phrase at each word: "posto de saude" once, not also "saude"
        for size in range(min(keywords.longest, len(words) - index), 0, -1):
            phrase = tuple(words[index : index + size])
            if phrase in keywords.phrases:
                target, points = keywords.phrases[phrase]
                scores[target] += points
                found.append(" ".join(phrase))
                ombudsman_type = ombudsman_type or keywords.types.get(phrase)
                index += size
                break
        else:
            index += 1
    best = max(scores.values())
    winners = [target for target, score in scores.items() if score == best]
    if best == 0 or len(winners) > 1:
        return None
    winner = winners[0]
    if winner == "ouvidoria":
        return Guess("ouvidoria", None, ombudsman_type, tuple(found))
    kind = "app" if winner == "motorista" else "cp"
    return Guess("representacao", kind, None, tuple(found)) if kind in kinds else None
