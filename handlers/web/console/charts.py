"""Geometry of the dashboard's SVG charts, drawn on the server (no script, no library).

Each series has its own fill pattern (solid, stripes, dots) as well as its own colour, every bar has its value
written beside it, and every chart is followed by the same figures as a table: readable without colour alone.
"""

from __future__ import annotations

from dataclasses import dataclass

PATTERNS = ("solid", "stripes", "dots")
WIDTH = 640
BAR_HEIGHT = 22
GAP = 8
LABEL_WIDTH = 260


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar: where it is drawn, its label, its value and its series' pattern."""

    x: float
    y: float
    width: float
    height: float
    label: str
    value: int
    pattern: str


@dataclass(frozen=True, slots=True)
class Chart:
    """A chart ready for the template."""

    width: int
    height: int
    bars: list[Bar]
    axis_labels: list[tuple[float, float, str]]


def horizontal(rows: list[tuple[str, int]]) -> Chart:
    """One bar per row, the label on the left and the value at the bar's end."""
    top = max((value for _label, value in rows), default=0) or 1
    room = WIDTH - LABEL_WIDTH - 60
    bars = [
        Bar(x=LABEL_WIDTH, y=index * (BAR_HEIGHT + GAP), width=max(1.0, room * value / top), height=BAR_HEIGHT,
            label=label, value=value, pattern=PATTERNS[0])
        for index, (label, value) in enumerate(rows)
    ]
    return Chart(width=WIDTH, height=max(1, len(rows)) * (BAR_HEIGHT + GAP), bars=bars, axis_labels=[])


def grouped_columns(groups: list[tuple[str, list[int]]], series: list[str]) -> Chart:
    """Columns grouped by day (one per series, each with its pattern), the day under each group."""
    plot_height = 160
    top = max((value for _label, values in groups for value in values), default=0) or 1
    group_width = (WIDTH - 20) / max(1, len(groups))
    column = max(4.0, (group_width - 6) / max(1, len(series)))
    bars, labels = [], []
    for index, (label, values) in enumerate(groups):
        left = 10 + index * group_width
        for position, value in enumerate(values):
            height = plot_height * value / top
            bars.append(Bar(x=left + position * column, y=plot_height - height + 14, width=column - 1,
                            height=height, label=f"{label} · {series[position]}", value=value,
                            pattern=PATTERNS[position % len(PATTERNS)]))
        labels.append((left + group_width / 2 - 3, float(plot_height + 32), label))
    return Chart(width=WIDTH, height=plot_height + 40, bars=bars, axis_labels=labels)
