"""Finding the rule a citizen means, by keyword, in the infraction catalogue of the rulebooks in force.

People type everyday words (``lixo``, ``barulho``, ``calçada``, ``cachorro solto``); the catalogue uses the law's
words (``detritos``, ``ruídos ou sons excessivos``, ``passeios``, ``animais em vias públicas``). The search ignores
case and accents, matches the start of words (so ``queima`` finds ``Queimar``), knows a few everyday synonyms,
and ranks a row higher when its own description matches than when only its table's title does. Generic rows
("Outros") come last. The catalogue itself is :mod:`models.rulebooks.catalogue`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import cache

from models.rulebooks.catalogue import CatalogueError, Infraction, RulebookId, get_infraction, infractions_in_force

SYNONYMS: dict[str, tuple[str, ...]] = {
    "barulho": ("ruido", "sons", "sossego", "alto falante", "buzina", "silencioso"),
    "som": ("sons", "ruido", "alto falante"),
    "musica": ("sons", "som", "alto falante"),
    "lixo": ("detrito", "entulho", "residuo"),
    "entulho": ("restos de construc", "materiais de construc"),
    "sujeira": ("higiene", "limpeza", "lixo"),
    "mato": ("vegetacao", "terreno"),
    "terreno": ("terreno", "quintal"),
    "dengue": ("agua estagnada",),
    "parada": ("estagnada",),
    "esgoto": ("esgoto", "fossa", "agua servida"),
    "fedor": ("mau cheiro",),
    "cheiro": ("mau cheiro",),
    "calcada": ("passeio", "calcada"),
    "cachorro": ("animais", "animal"),
    "cao": ("animais", "animal"),
    "bicho": ("animais", "animal"),
    "fogo": ("queimar", "fogueira", "incendio", "fogos"),
    "queimada": ("queimar", "fogo", "fumaca"),
    "fumaca": ("fumaca", "queimar"),
    "arvore": ("arvore",),
    "obra": ("construc", "andaime", "tapume"),
    "comida": ("alimento", "aliment"),
    "bar": ("bares", "restaurante"),
    "festa": ("divertimento", "festejo", "sossego"),
    "carro": ("veiculo",),
    "propaganda": ("anuncio", "cartaz", "faixa"),
    "pichacao": ("pichar",),
    "rio": ("corrego", "rio", "curso", "margens"),
    "poluicao": ("polui",),
    "licenca": ("licenca", "alvara"),
    "horario": ("horario",),
}
"""Everyday word → the law's words (accents removed; each matches the start of a word)."""

STOPWORDS = frozenset({"de", "da", "do", "das", "dos", "na", "no", "nas", "nos", "em", "um", "uma", "com", "por",
                       "para", "que", "e", "o", "a", "os", "as", "ao", "the", "and", "of"})
QUERY_MAX = 200
"""Characters of a query read: a sentence of search words, never a whole message (a Telegram text has 4,096)."""
MAX_TERMS = 8
"""Distinct words searched at most. The search runs in the event loop, once per catalogue row and word: a message of
4,096 characters took 25 s of the one process serving everyone (bot and web), 100 repeated words 0.7 s."""
_WORD = re.compile(r"[a-z0-9]+")
_GENERIC = re.compile(r"^(outr[oa]s|demais)\b")


def plain(text: str) -> str:
    """Lower case without accents."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


@cache
def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(plain(text)))


def _starts(word: str, part: str) -> bool:
    return word == part if len(part) < 4 else word.startswith(part)


def _matches(phrase: str, words: Sequence[str]) -> bool:
    """Whether every word of ``phrase`` starts a word of ``words``, in sequence for several words."""
    parts = [_stem(part) for part in _WORD.findall(phrase)]
    if not parts:
        return False
    for start in range(len(words) - len(parts) + 1):
        if all(_starts(words[start + i], part) for i, part in enumerate(parts)):
            return True
    return False


def _terms(query: str) -> list[tuple[str, ...]]:
    """The distinct search words of a query, each with its everyday synonyms.

    At most :data:`MAX_TERMS`, from its first :data:`QUERY_MAX` characters.
    """
    head = query[:QUERY_MAX]
    if len(query) > QUERY_MAX and not query[QUERY_MAX].isspace():
        head = head.rsplit(None, 1)[0]  # no half word at the cut
    words: dict[str, None] = {}
    for word in _WORD.findall(plain(head)):
        if word not in STOPWORDS and len(word) >= 3:
            words.setdefault(word)
    return [(word, *SYNONYMS.get(word, ())) for word in list(words)[:MAX_TERMS]]


def search_infractions(query: str, *, rulebooks: Sequence[RulebookId], limit: int = 6) -> list[Infraction]:
    """The catalogue rows that best match everyday words (or a code like ``CP-I-9``).

    Args:
        query: what the citizen typed.
        rulebooks: the rulebooks in force (``city.rulebooks``), e.g. ``["nx-posturas"]``.
        limit: how many rows at most.

    Returns:
        The best rows first; empty when nothing matches.
    """
    try:
        exact = get_infraction(query)
    except CatalogueError:
        exact = None
    if exact is not None and exact.rulebook in rulebooks:
        return [exact]
    terms = _terms(query)
    if not terms:
        return []
    scored = []
    for index, row in enumerate(infractions_in_force(list(rulebooks))):
        own = _words(row.description)
        title = _words(row.table_title or "")
        score = 0
        for alternatives in terms:
            if any(_matches(alternative, own) for alternative in alternatives):
                score += 3
            elif any(_matches(alternative, title) for alternative in alternatives):
                score += 1
        if score:
            generic = bool(_GENERIC.match(plain(row.description)))
            scored.append((-score, generic, index, row))
    if any(-score >= 3 for score, *_ in scored):
        # Some rows say it themselves: a row that only shares its chapter's title is noise ("barulho" is the
        # "sossego" of "Da moralidade e do sossego público", not its pornographic prints).
        scored = [item for item in scored if -item[0] >= 3]
    scored.sort(key=lambda item: item[:3])
    return [row for *_rank, row in scored[:limit]]
