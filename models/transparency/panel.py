"""Every figure of the panel at once, and the same figures as flat rows for the open data (CSV and JSON)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from models.transparency.figures import (
    ChapterCount,
    MonthCount,
    NoticeCounts,
    Period,
    SatisfactionScore,
    Timeliness,
    answered_per_month,
    notice_counts,
    received_per_month,
    representations_by_chapter,
    satisfaction,
    timeliness,
)

FigureRow = tuple[str, str, float | int | None]
"""(indicator, slice, value): ``("recebidos", "2026-03/representation", 4)``."""


@dataclass(frozen=True, slots=True)
class Panel:
    """The figures of one municipality over a period."""

    municipality: str
    period: Period
    received: list[MonthCount]
    answered: list[MonthCount]
    timeliness: Timeliness
    satisfaction: SatisfactionScore
    chapters: list[ChapterCount]
    notices: NoticeCounts


async def gather(*, session: AsyncSession, municipality: str, period: Period) -> Panel:
    """Run each figure's query for one municipality (its key) over the period."""
    where, when = municipality, period
    return Panel(
        municipality=municipality,
        period=period,
        received=await received_per_month(session=session, municipality=where, period=when),
        answered=await answered_per_month(session=session, municipality=where, period=when),
        timeliness=await timeliness(session=session, municipality=where, period=when),
        satisfaction=await satisfaction(session=session, municipality=where, period=when),
        chapters=await representations_by_chapter(session=session, municipality=where, period=when),
        notices=await notice_counts(session=session, municipality=where, period=when),
    )


def figure_rows(panel: Panel) -> list[FigureRow]:
    """The panel as (indicator, slice, value) rows, in the order the page shows them."""
    share = panel.timeliness.share_on_time
    rows: list[FigureRow] = [("recebidos", f"{item.month}/{item.kind.value}", item.count) for item in panel.received]
    rows += [("respondidos", f"{item.month}/{item.kind.value}", item.count) for item in panel.answered]
    rows += [
        ("respondidos_total", "", panel.timeliness.answered),
        ("respondidos_no_prazo", "", panel.timeliness.on_time),
        ("respondidos_no_prazo_pct", "", None if share is None else round(100 * share, 1)),
        ("mediana_dias_resposta", "", panel.timeliness.median_days),
        ("satisfacao_0_100", "", panel.satisfaction.score),
        ("avaliacoes", "", panel.satisfaction.ratings),
    ]
    rows += [("representacoes_por_capitulo", item.chapter, item.count) for item in panel.chapters]
    rows += [
        ("notificacoes_emitidas", "", panel.notices.issued),
        ("notificacoes_com_ciencia", "", panel.notices.ciencia),
        ("notificacoes_defendidas", "", panel.notices.defended),
        ("notificacoes_decididas", "", panel.notices.decided),
    ]
    return rows
