"""Server-rendered SVG charts that read without colour.

Every bar carries its number, the two series differ by pattern (solid and hatched) as well as shade, and each
chart has a title and a description for screen readers (the page also shows the same figures in a table).

An SVG scales to its box, text included, so a chart drawn 760 units wide shows 12-unit text at 6 px on a 390 px
phone. Each chart is therefore drawn twice: wide for a desktop and :data:`NARROW` units wide for a phone (where
it is shown nearly at its own size); the page's CSS shows one of them (``.chart-wide`` / ``.chart-narrow``).
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup, escape

INK = "#1b2a3a"  # text: contrast 14:1 on white
WIDE, NARROW = 760, 360
SOLID = "#1f4e79"
PATTERNS = (
    '<pattern id="{chart_id}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
    f'<rect width="6" height="6" fill="#ffffff"/><line x1="0" y1="0" x2="0" y2="6" stroke="{SOLID}" '
    'stroke-width="3"/></pattern>'
)


@dataclass(frozen=True, slots=True)
class Series:
    """One series of a grouped bar chart: its legend label and one value per category."""

    label: str
    values: tuple[int, ...]
    hatched: bool = False


HATCH = 'fill="url(#hatch)"'
"""A hatched fill; :func:`_frame` points it at the chart's own pattern (an id repeated on a page, or inside a chart
that CSS hides, would leave the visible chart's bars unfilled)."""


def _fill(hatched: bool) -> str:
    return HATCH if hatched else f'fill="{SOLID}"'


def _frame(chart_id: str, title: str, description: str, width: int, height: int, body: str) -> Markup:
    # every text in ``body`` was escaped where it was put in; the rest is numbers and fixed markup
    return Markup(  # noqa: S704
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-labelledby="{chart_id}-t {chart_id}-d" focusable="false">'
        f'<title id="{chart_id}-t">{escape(title)}</title><desc id="{chart_id}-d">{escape(description)}</desc>'
        f"<defs>{PATTERNS.format(chart_id=chart_id)}</defs>"
        + body.replace(HATCH, f'fill="url(#{chart_id}-hatch)"') + "</svg>"
    )


def grouped_bars(chart_id: str, *, title: str, description: str, categories: list[tuple[str, str]],
                 series: list[Series]) -> Markup:
    """Vertical bars per category (months), one bar per series side by side, each labelled with its value.

    A category's label has two lines (``("jan.", "2026")``), so twelve months fit side by side without their
    labels running into each other; an empty second line draws nothing.
    """
    width, height, left, bottom, top = WIDE, 290, 10, 52, 50
    top_value = max([1, *(value for one in series for value in one.values)])
    slot = (width - 2 * left) / max(1, len(categories))
    bar = min(22.0, (slot - 8) / max(1, len(series)))
    scale = (height - bottom - top) / top_value
    parts = [_legend(series)]
    for position, (first_line, second_line) in enumerate(categories):
        base_x = left + position * slot + (slot - bar * len(series)) / 2
        for index, one in enumerate(series):
            value = one.values[position]
            bar_height = float(value) * scale
            x, y = base_x + index * bar, float(height - bottom) - bar_height
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar - 2:.1f}" height="{bar_height:.1f}" '
                         f'{_fill(one.hatched)} stroke="{SOLID}"/>'
                         f'<text x="{x + (bar - 2) / 2:.1f}" y="{y - 4:.1f}" font-size="12" text-anchor="middle" '
                         f'fill="{INK}">{value}</text>')
        middle = left + position * slot + slot / 2
        parts.append(f'<text class="category" x="{middle:.1f}" y="{height - bottom + 18}" font-size="12" '
                     f'text-anchor="middle" fill="{INK}">{escape(first_line)}</text>')
        if second_line:
            parts.append(f'<text x="{middle:.1f}" y="{height - bottom + 34}" font-size="12" text-anchor="middle" '
                         f'fill="{INK}">{escape(second_line)}</text>')
    parts.append(f'<line x1="{left}" y1="{height - bottom}" x2="{width - left}" y2="{height - bottom}" '
                 f'stroke="{INK}"/>')
    return _frame(chart_id, title, description, width, height, "".join(parts))


def grouped_rows(chart_id: str, *, title: str, description: str, categories: list[str],
                 series: list[Series]) -> Markup:
    """The phone's version of :func:`grouped_bars`: a row per category, its label above one bar per series."""
    row_height = 22 + 20 * len(series)
    height = 34 + max(1, len(categories)) * row_height
    top_value = max([1, *(value for one in series for value in one.values)])
    room = NARROW - 50
    parts = [_legend(series, spacing=170)]
    for position, category in enumerate(categories):
        y = 34 + position * row_height + 14
        parts.append(f'<text class="category" x="0" y="{y}" font-size="13" fill="{INK}">{escape(category)}</text>')
        for index, one in enumerate(series):
            value = one.values[position]
            bar_y = y + 6 + index * 20
            bar_width = max(2.0, value / top_value * room)
            parts.append(f'<rect x="0" y="{bar_y}" width="{bar_width:.1f}" height="16" {_fill(one.hatched)} '
                         f'stroke="{SOLID}"/><text x="{bar_width + 6:.1f}" y="{bar_y + 13}" font-size="13" '
                         f'fill="{INK}">{value}</text>')
    return _frame(chart_id, title, description, NARROW, height, "".join(parts))


def _legend(series: list[Series], *, spacing: int = 190) -> str:
    parts = []
    for index, label in enumerate(series):
        legend_x = index * spacing
        parts.append(f'<rect x="{legend_x + 1}" y="8" width="16" height="16" {_fill(label.hatched)} '
                     f'stroke="{SOLID}"/><text x="{legend_x + 23}" y="21" font-size="14" '
                     f'fill="{INK}">{escape(label.label)}</text>')
    return "".join(parts)


def horizontal_bars(chart_id: str, *, title: str, description: str, rows: list[tuple[str, int]],
                    width: int = WIDE) -> Markup:
    """One bar per row, its label above it and its value at its end (``width``: :data:`WIDE` or :data:`NARROW`)."""
    row_height, label_width = 44, width - 120
    longest = 95 if width >= WIDE else 44  # characters of a label that fit the width at 13 units
    height = max(1, len(rows)) * row_height + 10
    top_value = max([1, *(value for _label, value in rows)])
    parts = []
    for index, (label, value) in enumerate(rows):
        y = index * row_height + 18
        bar_width = max(2.0, value / top_value * (label_width - 10))
        shown = label if len(label) <= longest else label[: longest - 1] + "…"
        parts.append(f'<text x="0" y="{y}" font-size="13" fill="{INK}">{escape(shown)}</text>'
                     f'<rect x="0" y="{y + 5}" width="{bar_width:.1f}" height="16" fill="{SOLID}"/>'
                     f'<text x="{bar_width + 6:.1f}" y="{y + 18}" font-size="13" fill="{INK}">{value}</text>')
    return _frame(chart_id, title, description, width, height, "".join(parts))
