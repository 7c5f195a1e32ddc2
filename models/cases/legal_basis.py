"""A case's legal basis for reading: each law named once, followed by the articles cited from it.

A case keeps its references as full citations (``Case.legal_refs``, e.g. ``"Lei nº 1.101/2004 – Código de Posturas
(Nova Xavantina), Art. 30 a 32"``), so that each one stands alone in an export. Shown one after the other, the same
law's title would repeat; :func:`by_law` joins the articles of each law behind its title. The titles hold no comma
(``models.cases.filing.CP_TITLE``, ``L1533_TITLE``, ``OMBUDSMAN_TITLE``), so a citation's title ends at its first
``", "``.
"""

from __future__ import annotations

from collections.abc import Iterable


def by_law(refs: Iterable[str]) -> tuple[str, ...]:
    """One line per law: its title once, then its articles in the order cited, joined by ``"; "``.

    Args:
        refs: full citations, ``"<law title>, <article>"``; one without an article is kept whole.

    Returns:
        e.g. ``("Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina), Art. 30 a 32; Art. 53 (Tabela I, item 9)",)``.
    """
    articles: dict[str, list[str]] = {}
    for ref in refs:
        title, _, article = ref.partition(", ")
        cited = articles.setdefault(title, [])
        if article and article not in cited:
            cited.append(article)
    return tuple(f"{title}, {'; '.join(cited)}" if cited else title for title, cited in articles.items())
