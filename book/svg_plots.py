"""Small figures drawn as SVG in plain Python: heat maps and line charts.

Chapters 5 and 6 draw their figures with this module instead of matplotlib, so
that a plotting cell draws wherever the chapter runs: in the book's build, on the
desktop, and in the in-browser course offline, where matplotlib cannot be loaded
(its WebAssembly wheels are only on Pyodide's own servers). A figure is a row of
panels; each panel holds a heat map or lines. A figure shows itself in a notebook
as an image whose ``alt`` text is made from the data it draws (``describe``), so
the words cannot say something else than the picture::

    figure = Figure(width=640, height=280, panels=2)
    figure.panels[0].heatmap([[1, 2], [3, 4]], cmap="Blues", annotate=True)
    figure.panels[1].line([3.6, 3.1, 2.8], label="loss")
    figure  # the last value of a cell: shown as the picture

Standard library only; the same data always gives the same SVG text.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ["COLOURS", "Figure", "Panel"]

#: Colours by matplotlib's names for its first cycle colours, and plain ones.
COLOURS = {
    "C0": "#1f77b4",
    "C1": "#ff7f0e",
    "C2": "#2ca02c",
    "C3": "#d62728",
    "black": "#000000",
    "grey": "#808080",
}
#: Colour maps by matplotlib's names: (position, colour) stops, interpolated.
CMAPS = {
    "Blues": [(0.0, "#f7fbff"), (0.5, "#6baed6"), (1.0, "#08306b")],
    "Greys": [(0.0, "#ffffff"), (1.0, "#000000")],
    "RdBu_r": [
        (0.0, "#053061"),
        (0.25, "#4393c3"),
        (0.5, "#f7f7f7"),
        (0.75, "#d6604d"),
        (1.0, "#67001f"),
    ],
}
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'
TITLE_SPACE, TICK_SPACE, LABEL_SPACE = 20.0, 16.0, 16.0


def _number(value: float) -> str:
    return f"{value:.4g}"


def _rgb(colour: str) -> tuple[int, int, int]:
    code = COLOURS.get(colour, colour).lstrip("#")
    return int(code[0:2], 16), int(code[2:4], 16), int(code[4:6], 16)


def colour_of(value: float, cmap: str, low: float, high: float) -> str:
    """The colour of ``value`` on the colour map ``cmap`` spanning low..high."""
    stops = CMAPS[cmap]
    share = 0.5 if high == low else min(max((value - low) / (high - low), 0.0), 1.0)
    for (start, first), (end, second) in zip(stops, stops[1:]):
        if share <= end:
            t = (share - start) / (end - start)
            mixed = [
                round(a + (b - a) * t)
                for a, b in zip(_rgb(first), _rgb(second), strict=True)
            ]
            return "#{:02x}{:02x}{:02x}".format(*mixed)
    return stops[-1][1]


def _ink(background: str) -> str:
    """Black or white text, whichever reads better on ``background``."""
    red, green, blue = _rgb(background)
    return "#000000" if 0.299 * red + 0.587 * green + 0.114 * blue > 140 else "#ffffff"


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round values spanning low..high (1, 2 or 5 times 10^k)."""
    if high <= low:
        return [low]
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    ticks = [(first + i) * step for i in range(count * 3)]
    return [round(t, 10) for t in ticks if t <= high + 1e-9 * step]


@dataclass
class Series:
    """One line: its values (at x = 0, 1, 2...) and how it is drawn."""

    values: list[float]
    label: str
    colour: str
    width: float
    opacity: float
    dashed: bool = False


@dataclass
class Panel:
    """One panel of a figure: a heat map or lines, with its title and labels."""

    title_text: str = ""
    grid: list[list[float]] | None = None
    cmap: str = "Greys"
    limits: tuple[float, float] = (0.0, 1.0)
    annotate: bool = False
    boxes: list[tuple[int, int, int, int, str]] = field(default_factory=list)
    x_labels: list[str] = field(default_factory=list)
    y_labels: list[str] = field(default_factory=list)
    series: list[Series] = field(default_factory=list)
    levels: list[Series] = field(default_factory=list)
    x_label: str = ""
    y_label: str = ""

    def title(self, text: str) -> None:
        self.title_text = text

    def heatmap(
        self,
        values: Sequence[Sequence[float]],
        cmap: str = "Greys",
        vmin: float | None = None,
        vmax: float | None = None,
        annotate: bool = False,
    ) -> None:
        """A grid of coloured cells, row 0 at the top (as ``imshow``); the
        colour map spans vmin..vmax (the values' range by default, centred
        on zero for the diverging ``RdBu_r``); ``annotate`` writes each value."""
        self.grid = [[float(v) for v in row] for row in values]
        flat = [v for row in self.grid for v in row]
        low = min(flat) if vmin is None else vmin
        high = max(flat) if vmax is None else vmax
        if cmap == "RdBu_r" and vmin is None and vmax is None:
            low, high = -max(abs(low), abs(high)), max(abs(low), abs(high))
        self.cmap, self.limits, self.annotate = cmap, (low, high), annotate

    def box(self, row: int, column: int, rows: int, columns: int, colour: str) -> None:
        """An outlined rectangle over the heat map's cells from (row, column)."""
        self.boxes.append((row, column, rows, columns, colour))

    def ticks(self, x: Iterable[object], y: Iterable[object]) -> None:
        """Labels under the heat map's columns and beside its rows."""
        self.x_labels = [str(v) for v in x]
        self.y_labels = [str(v) for v in y]

    def line(
        self,
        values: Iterable[float],
        label: str = "",
        colour: str = "C0",
        width: float = 1.5,
        opacity: float = 1.0,
    ) -> None:
        """A line through the values, at x = 0, 1, 2..."""
        self.series.append(
            Series([float(v) for v in values], label, colour, width, opacity)
        )

    def level(self, value: float, label: str = "", colour: str = "grey") -> None:
        """A dotted horizontal line across the panel at ``value``."""
        self.levels.append(Series([float(value)], label, colour, 1.2, 1.0, True))

    def labels(self, x: str = "", y: str = "") -> None:
        self.x_label, self.y_label = x, y

    # -- words -------------------------------------------------------------------

    def describe(self) -> str:
        """What the panel draws, in sentences made from its data."""
        head = f"'{self.title_text}':" if self.title_text else ""
        if self.grid is not None:
            flat = [v for row in self.grid for v in row]
            text = (
                f"{head} a heat map of {len(self.grid)} by {len(self.grid[0])} "
                f"values from {_number(min(flat))} to {_number(max(flat))}"
            )
            if self.annotate:
                rows = "; ".join(
                    ", ".join(_number(v) for v in row) for row in self.grid
                )
                text += f", written in the cells row by row: {rows}"
            if self.boxes:
                text += "; outlined: " + ", ".join(
                    f"{r} by {c} cells from row {y}, column {x}"
                    for y, x, r, c, _ in self.boxes
                )
            return text.strip() + "."
        parts = [f"{head} lines".strip()]
        if self.x_label or self.y_label:
            parts[0] += f" of '{self.y_label}' against '{self.x_label}'"
        for series in self.series:
            values = series.values
            low = min(range(len(values)), key=values.__getitem__)
            parts.append(
                f"{series.label or 'a line'}: {len(values)} points from "
                f"{_number(values[0])} to {_number(values[-1])}, lowest "
                f"{_number(values[low])} at x {low}"
            )
        for level in self.levels:
            parts.append(
                f"{level.label or 'a level'}: a dotted line at "
                f"{_number(level.values[0])}"
            )
        return "; ".join(parts) + "."

    # -- drawing -----------------------------------------------------------------

    def svg(self, x: float, y: float, width: float, height: float) -> list[str]:
        """The panel's SVG elements in the box (x, y, width, height)."""
        out = []
        if self.title_text:
            out.append(
                f'<text x="{x + width / 2:.1f}" y="{y + 13:.1f}" font-size="12" '
                f'text-anchor="middle">{html.escape(self.title_text)}</text>'
            )
            y, height = y + TITLE_SPACE, height - TITLE_SPACE
        if self.grid is not None:
            return out + self._heatmap_svg(x, y, width, height)
        return out + self._lines_svg(x, y, width, height)

    def _heatmap_svg(
        self, x: float, y: float, width: float, height: float
    ) -> list[str]:
        assert self.grid is not None
        rows, columns = len(self.grid), len(self.grid[0])
        left = TICK_SPACE if self.y_labels else 0.0
        below = TICK_SPACE if self.x_labels else 0.0
        cell = min((width - left) / columns, (height - below) / rows)
        x0 = x + left + (width - left - cell * columns) / 2
        y0 = y + (height - below - cell * rows) / 2
        out = []
        for r, row in enumerate(self.grid):
            for c, value in enumerate(row):
                fill = colour_of(value, self.cmap, *self.limits)
                cx, cy = x0 + c * cell, y0 + r * cell
                out.append(
                    f'<rect x="{cx:.1f}" y="{cy:.1f}" width="{cell:.1f}" '
                    f'height="{cell:.1f}" fill="{fill}"/>'
                )
                if self.annotate:
                    out.append(
                        f'<text x="{cx + cell / 2:.1f}" y="{cy + cell / 2 + 4:.1f}" '
                        f'font-size="11" text-anchor="middle" fill="{_ink(fill)}">'
                        f"{_number(value)}</text>"
                    )
        out.append(
            f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{cell * columns:.1f}" '
            f'height="{cell * rows:.1f}" fill="none" stroke="#000000" '
            'stroke-width="0.8"/>'
        )
        for r, c, h, w, colour in self.boxes:
            out.append(
                f'<rect x="{x0 + c * cell:.1f}" y="{y0 + r * cell:.1f}" '
                f'width="{w * cell:.1f}" height="{h * cell:.1f}" fill="none" '
                f'stroke="{COLOURS.get(colour, colour)}" stroke-width="2.5"/>'
            )
        for c, label in enumerate(self.x_labels):
            out.append(
                f'<text x="{x0 + (c + 0.5) * cell:.1f}" '
                f'y="{y0 + rows * cell + 12:.1f}" font-size="10" '
                f'text-anchor="middle">{html.escape(label)}</text>'
            )
        for r, label in enumerate(self.y_labels):
            out.append(
                f'<text x="{x0 - 4:.1f}" y="{y0 + (r + 0.5) * cell + 4:.1f}" '
                f'font-size="10" text-anchor="end">{html.escape(label)}</text>'
            )
        return out

    def _lines_svg(self, x: float, y: float, width: float, height: float) -> list[str]:
        values = [v for s in self.series + self.levels for v in s.values]
        low, high = min(values), max(values)
        pad = (high - low) * 0.05 or 1.0
        low, high = low - pad, high + pad
        steps = max((len(s.values) for s in self.series), default=1) - 1 or 1
        left, bottom = 44.0, TICK_SPACE + (LABEL_SPACE if self.x_label else 0)
        if self.y_label:
            left += LABEL_SPACE
        x0, x1, y0, y1 = x + left, x + width - 8, y + 4, y + height - bottom

        def px(i: float) -> float:
            return x0 + (x1 - x0) * i / steps

        def py(v: float) -> float:
            return y1 - (y1 - y0) * (v - low) / (high - low)

        out = [
            f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" '
            f'height="{y1 - y0:.1f}" fill="none" stroke="#000000" stroke-width="0.8"/>'
        ]
        for t in nice_ticks(0, steps):
            out.append(
                f'<text x="{px(t):.1f}" y="{y1 + 12:.1f}" font-size="10" '
                f'text-anchor="middle">{_number(t)}</text>'
            )
        for t in nice_ticks(low, high):
            out.append(
                f'<text x="{x0 - 4:.1f}" y="{py(t) + 3.5:.1f}" font-size="10" '
                f'text-anchor="end">{_number(t)}</text>'
            )
        for level in self.levels:
            out.append(
                f'<line x1="{x0:.1f}" x2="{x1:.1f}" y1="{py(level.values[0]):.1f}" '
                f'y2="{py(level.values[0]):.1f}" stroke="{_hex(level.colour)}" '
                'stroke-width="1.2" stroke-dasharray="2 3"/>'
            )
        for series in self.series:
            points = " ".join(
                f"{px(i):.1f},{py(v):.1f}" for i, v in enumerate(series.values)
            )
            out.append(
                f'<polyline points="{points}" fill="none" '
                f'stroke="{_hex(series.colour)}" stroke-width="{series.width}" '
                f'stroke-opacity="{series.opacity}" stroke-linejoin="round"/>'
            )
        if self.x_label:
            out.append(
                f'<text x="{(x0 + x1) / 2:.1f}" y="{y + height - 3:.1f}" '
                f'font-size="11" text-anchor="middle">'
                f"{html.escape(self.x_label)}</text>"
            )
        if self.y_label:
            middle = (y0 + y1) / 2
            out.append(
                f'<text x="{x + 12:.1f}" y="{middle:.1f}" font-size="11" '
                f'text-anchor="middle" '
                f'transform="rotate(-90 {x + 12:.1f} {middle:.1f})">'
                f"{html.escape(self.y_label)}</text>"
            )
        return out + self._legend(x1, y0)

    def _legend(self, right: float, top: float) -> list[str]:
        named = [s for s in self.series + self.levels if s.label]
        if not named:
            return []
        width = 30 + 6.5 * max(len(s.label) for s in named)
        x, out = right - width - 6, []
        out.append(
            f'<rect x="{x:.1f}" y="{top + 6:.1f}" width="{width:.1f}" '
            f'height="{16 * len(named) + 6:.1f}" fill="#ffffff" fill-opacity="0.85" '
            'stroke="#bbbbbb"/>'
        )
        for i, s in enumerate(named):
            ly = top + 17 + 16 * i
            dash = ' stroke-dasharray="2 3"' if s.dashed else ""
            out.append(
                f'<line x1="{x + 5:.1f}" x2="{x + 23:.1f}" y1="{ly:.1f}" y2="{ly:.1f}" '
                f'stroke="{_hex(s.colour)}" stroke-width="{s.width}" '
                f'stroke-opacity="{s.opacity}"{dash}/>'
            )
            out.append(
                f'<text x="{x + 27:.1f}" y="{ly + 3.5:.1f}" font-size="10">'
                f"{html.escape(s.label)}</text>"
            )
        return out


def _hex(colour: str) -> str:
    return COLOURS.get(colour, colour)


class Figure:
    """A row of ``panels`` panels in a picture of width x height pixels."""

    def __init__(self, width: float = 640, height: float = 300, panels: int = 1):
        self.width, self.height = float(width), float(height)
        self.panels = [Panel() for _ in range(panels)]
        self.alt: str | None = None

    def describe(self) -> str:
        """What the figure draws, panel by panel, in words made from its data."""
        if len(self.panels) == 1:
            said = self.panels[0].describe()
            return said[:1].upper() + said[1:]
        said = " ".join(
            f"Panel {n}: {p.describe()}" for n, p in enumerate(self.panels, 1)
        )
        return f"{len(self.panels)} panels. {said}"

    def svg(self) -> str:
        """The figure as an SVG document."""
        share = self.width / len(self.panels)
        body = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.0f}" '
            f'height="{self.height:.0f}" viewBox="0 0 {self.width:.0f} '
            f'{self.height:.0f}" {FONT}>',
            f'<rect width="{self.width:.0f}" height="{self.height:.0f}" '
            'fill="#ffffff"/>',
        ]
        for n, panel in enumerate(self.panels):
            body += panel.svg(n * share + 6, 4, share - 12, self.height - 8)
        return "\n".join(body + ["</svg>"]) + "\n"

    def html(self, alt: str | None = None) -> str:
        """An ``<img>`` of the SVG whose ``alt`` is ``alt`` (or ``describe()``)."""
        text = alt or self.alt or self.describe()
        data = base64.b64encode(self.svg().encode("utf-8")).decode("ascii")
        return (
            f'<img alt="{html.escape(text)}" width="{self.width:.0f}" '
            f'height="{self.height:.0f}" src="data:image/svg+xml;base64,{data}">'
        )

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        return f"<figure: {self.alt or self.describe()}>"
