"""Small figures drawn as SVG in plain Python: heat maps, lines, points and bars.

The chapters draw their figures with this module instead of matplotlib, so that
a plotting cell draws wherever the chapter runs: in the book's build, on the
desktop, and in the in-browser course offline, where matplotlib cannot be loaded
(its WebAssembly wheels are only on Pyodide's own servers). A figure is a grid of
panels (one row unless ``columns`` is given); each panel holds a heat map (or
tiles), bars, or a plot: lines, paths, points, a shaded field and its contour
lines, on linear or log axes. A figure shows itself in a notebook as an image
whose ``alt`` text is made from the data it draws (``describe``), so the words
cannot say something else than the picture::

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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ["COLOURS", "Figure", "Panel"]

#: Colours by matplotlib's names for its cycle colours (C0 to C9), and plain ones.
COLOURS = {
    "C0": "#1f77b4",
    "C1": "#ff7f0e",
    "C2": "#2ca02c",
    "C3": "#d62728",
    "C4": "#9467bd",
    "C5": "#8c564b",
    "C6": "#e377c2",
    "C7": "#7f7f7f",
    "C8": "#bcbd22",
    "C9": "#17becf",
    "black": "#000000",
    "grey": "#808080",
    "lightgray": "#d3d3d3",
    "white": "#ffffff",
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
CMAPS["RdBu"] = [(1.0 - at, colour) for at, colour in reversed(CMAPS["RdBu_r"])]
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


def contour_segments(
    xs: Sequence[float],
    ys: Sequence[float],
    values: Sequence[Sequence[float]],
    level: float,
) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The pieces of the line where ``values`` (row j at ``ys[j]``, column i
    at ``xs[i]``) crosses ``level``: marching squares, one cell at a time,
    each crossing placed on the cell's edge by linear interpolation."""

    def cross(
        p: tuple[float, float, float], q: tuple[float, float, float]
    ) -> tuple[float, float]:
        t = (level - p[2]) / (q[2] - p[2])
        return p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t

    segments = []
    for j in range(len(ys) - 1):
        for i in range(len(xs) - 1):
            corners = [
                (xs[i], ys[j], values[j][i]),
                (xs[i + 1], ys[j], values[j][i + 1]),
                (xs[i + 1], ys[j + 1], values[j + 1][i + 1]),
                (xs[i], ys[j + 1], values[j + 1][i]),
            ]
            found = [
                cross(p, q)
                for p, q in zip(corners, corners[1:] + corners[:1])
                if (p[2] >= level) != (q[2] >= level)
            ]
            segments += [(found[k], found[k + 1]) for k in range(0, len(found) - 1, 2)]
    return segments


@dataclass
class Series:
    """One line: its values at ``xs`` (0, 1, 2... by default) and its look."""

    values: list[float]
    label: str
    colour: str
    width: float
    opacity: float
    dashed: bool = False
    xs: list[float] = field(default_factory=list)
    marker: float = 0.0
    path: bool = False

    def x(self) -> list[float]:
        return self.xs or [float(i) for i in range(len(self.values))]


@dataclass
class Points:
    """Points of one colour, drawn as dots."""

    xs: list[float]
    ys: list[float]
    label: str
    colour: str
    size: float


@dataclass
class Field:
    """Values on a grid over the plane (row j at ys[j], column i at xs[i]),
    shaded by a colour map in bands, with contour lines at some levels."""

    xs: list[float]
    ys: list[float]
    values: list[list[float]]
    cmap: str = "Greys"
    bands: list[float] = field(default_factory=list)
    opacity: float = 1.0
    lines: list[float] = field(default_factory=list)
    line_colour: str = "black"
    line_width: float = 1.0
    shaded: bool = True


def _span(values: Sequence[float]) -> str:
    return f"from {_number(min(values))} to {_number(max(values))}"


@dataclass
class Panel:
    """One panel of a figure: a heat map, bars or a plot, with its words."""

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
    fills: list[list[str]] = field(default_factory=list)
    dashed: list[list[bool]] = field(default_factory=list)
    skip_zeros: bool = False
    points: list[Points] = field(default_factory=list)
    fields: list[Field] = field(default_factory=list)
    bar_names: list[str] = field(default_factory=list)
    bar_values: list[float] = field(default_factory=list)
    bar_colours: list[str] = field(default_factory=list)
    bar_unit: str = ""
    x_scale: str = "linear"
    y_scale: str = "linear"
    x_range: tuple[float, float] | None = None
    y_range: tuple[float, float] | None = None
    equal: bool = False
    corner: str = "upper right"

    def title(self, text: str) -> None:
        self.title_text = text

    def heatmap(
        self,
        values: Sequence[Sequence[float]],
        cmap: str = "Greys",
        vmin: float | None = None,
        vmax: float | None = None,
        annotate: bool = False,
        skip_zeros: bool = False,
    ) -> None:
        """A grid of coloured cells, row 0 at the top (as ``imshow``); the
        colour map spans vmin..vmax (the values' range by default, centred
        on zero for the diverging ``RdBu_r``); ``annotate`` writes each value
        (but zeros, if ``skip_zeros``)."""
        self.grid = [[float(v) for v in row] for row in values]
        flat = [v for row in self.grid for v in row]
        low = min(flat) if vmin is None else vmin
        high = max(flat) if vmax is None else vmax
        if cmap == "RdBu_r" and vmin is None and vmax is None:
            low, high = -max(abs(low), abs(high)), max(abs(low), abs(high))
        self.cmap, self.limits, self.annotate = cmap, (low, high), annotate
        self.skip_zeros = skip_zeros

    def tiles(
        self,
        values: Sequence[Sequence[float]],
        colours: Sequence[Sequence[str]],
        dashed: Sequence[Sequence[bool]],
    ) -> None:
        """A grid of cells with their values written in, each filled with its
        colour, or white with a dashed outline where ``dashed`` says so."""
        self.heatmap(values, annotate=True)
        self.fills = [list(row) for row in colours]
        self.dashed = [list(row) for row in dashed]

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
        colour: str = "",
        width: float = 1.5,
        opacity: float = 1.0,
        x: Iterable[float] = (),
        marker: float = 0.0,
    ) -> None:
        """A line through the values, at ``x`` (0, 1, 2... by default), in
        ``colour`` (the next of C0 to C9 by default), with dots of diameter
        ``marker`` at its points if ``marker`` is not 0."""
        colour = colour or f"C{len(self.series) % 10}"
        xs = [float(v) for v in x]
        self.series.append(
            Series(
                [float(v) for v in values],
                label,
                colour,
                width,
                opacity,
                False,
                xs,
                marker,
            )
        )

    def path(
        self,
        points: Iterable[Sequence[float]],
        label: str = "",
        colour: str = "",
        marker: float = 3.0,
    ) -> None:
        """A path through (x, y) points, dotted at each point (described by
        where it starts and ends)."""
        pairs = [(float(p[0]), float(p[1])) for p in points]
        self.line([y for _, y in pairs], label, colour, 1.0, 1.0, [x for x, _ in pairs])
        self.series[-1].marker, self.series[-1].path = marker, True

    def scatter(
        self,
        xs: Iterable[float],
        ys: Iterable[float],
        label: str = "",
        colour: str = "C0",
        size: float = 4.0,
    ) -> None:
        """Dots of one colour at the points (xs[k], ys[k])."""
        self.points.append(
            Points([float(v) for v in xs], [float(v) for v in ys], label, colour, size)
        )

    def field(
        self,
        xs: Sequence[float],
        ys: Sequence[float],
        values: Sequence[Sequence[float]],
        cmap: str = "Greys",
        bands: Sequence[float] = (),
        opacity: float = 1.0,
        lines: Sequence[float] = (),
        line_colour: str = "black",
        line_width: float = 1.0,
        shaded: bool = True,
    ) -> None:
        """Values on a grid (row j at ys[j], column i at xs[i]) shaded by
        ``cmap`` in the ``bands`` between levels (as ``contourf``), unless not
        ``shaded``, with contour lines at the ``lines`` levels (as ``contour``)."""
        self.fields.append(
            Field(
                [float(v) for v in xs],
                [float(v) for v in ys],
                [[float(v) for v in row] for row in values],
                cmap,
                [float(b) for b in bands],
                opacity,
                [float(v) for v in lines],
                line_colour,
                line_width,
                shaded,
            )
        )

    def bars(
        self,
        names: Iterable[str],
        values: Iterable[float],
        colours: Iterable[str] = (),
        unit: str = "",
    ) -> None:
        """Horizontal bars, the first at the top, each with its value and
        ``unit`` written at its end."""
        self.bar_names = [str(n) for n in names]
        self.bar_values = [float(v) for v in values]
        self.bar_colours = list(colours) or ["C0"] * len(self.bar_values)
        self.bar_unit = unit

    def level(self, value: float, label: str = "", colour: str = "grey") -> None:
        """A dotted horizontal line across the panel at ``value``."""
        self.levels.append(Series([float(value)], label, colour, 1.2, 1.0, True))

    def labels(self, x: str = "", y: str = "") -> None:
        self.x_label, self.y_label = x, y

    def scales(self, x: str = "linear", y: str = "linear") -> None:
        """Each axis ``linear`` or ``log`` (base 10)."""
        self.x_scale, self.y_scale = x, y

    def view(
        self,
        x: tuple[float, float] | None = None,
        y: tuple[float, float] | None = None,
        equal: bool = False,
    ) -> None:
        """The ranges the axes show (the data's by default); ``equal``: one
        unit is as long on both axes."""
        self.x_range, self.y_range, self.equal = x, y, equal

    def legend(self, corner: str = "upper right") -> None:
        """Where the legend of the labelled lines and points goes:
        ``upper right``, ``upper left``, ``lower right``, ``lower left``, or
        nowhere (``""``)."""
        self.corner = corner

    # -- words -------------------------------------------------------------------

    def describe(self) -> str:
        """What the panel draws, in sentences made from its data."""
        head = f"'{self.title_text}':" if self.title_text else ""
        if self.grid is not None:
            return self._describe_grid(head)
        if self.bar_values:
            unit = self.bar_unit
            said = "; ".join(
                f"{name} {_number(value)}{unit}"
                for name, value in zip(self.bar_names, self.bar_values, strict=True)
            )
            scale = " (log scale)" if self.x_scale == "log" else ""
            scale = "" if "log" in self.x_label else scale
            what = f" of '{self.x_label}'{scale}" if self.x_label else scale
            return f"{head} {len(self.bar_values)} bars{what}: {said}.".strip()
        return self._describe_plot(head)

    def _describe_grid(self, head: str) -> str:
        assert self.grid is not None
        flat = [v for row in self.grid for v in row]
        kind = "a grid" if self.fills else "a heat map"
        text = (
            f"{head} {kind} of {len(self.grid)} by {len(self.grid[0])} "
            f"values from {_number(min(flat))} to {_number(max(flat))}"
        )
        if self.x_label or self.y_label:
            text += f", '{self.y_label}' down and '{self.x_label}' across"
        if self.annotate and self.skip_zeros:
            rows = "; ".join(
                f"row {r}: "
                + ", ".join(
                    f"{_number(v)} in column {c}" for c, v in enumerate(row) if v
                )
                for r, row in enumerate(self.grid)
                if any(row)
            )
            text += f", the values that are not zero, by row: {rows}"
        elif self.annotate:
            rows = "; ".join(", ".join(_number(v) for v in row) for row in self.grid)
            text += f", written in the cells row by row: {rows}"
        if any(any(row) for row in self.dashed):
            count = sum(sum(row) for row in self.dashed)
            text += f"; {count} {'cell' if count == 1 else 'cells'} dashed (read again)"
        if self.boxes:
            text += "; outlined: " + ", ".join(
                f"{r} by {c} cells from row {y}, column {x}"
                for y, x, r, c, _ in self.boxes
            )
        return text.strip() + "."

    def _describe_plot(self, head: str) -> str:
        parts = [f"{head} lines".strip() if self.series else f"{head} a plot".strip()]
        if self.x_label or self.y_label:
            parts[0] += f" of '{self.y_label}' against '{self.x_label}'"
        for name, scale in (("x", self.x_scale), ("y", self.y_scale)):
            label = self.x_label if name == "x" else self.y_label
            if scale != "linear" and scale not in label:
                parts[0] += f", {name} on a {scale} scale"
        for number, series in enumerate(self.series, 1):
            parts.append(_describe_series(series, series.label or f"line {number}"))
        for dots in self.points:
            name = dots.label or "points"
            if len(dots.xs) == 1:
                where = f"({_number(dots.xs[0])}, {_number(dots.ys[0])})"
                parts.append(f"{name}: a point at {where}")
                continue
            parts.append(
                f"{name}: {len(dots.xs)} points, x {_span(dots.xs)}, y {_span(dots.ys)}"
            )
        for level in self.levels:
            parts.append(
                f"{level.label or 'a level'}: a dotted line at "
                f"{_number(level.values[0])}"
            )
        for fld in self.fields:
            flat = [v for row in fld.values for v in row]
            text = (
                f"values on a {len(fld.ys)} by {len(fld.xs)} grid over x "
                f"{_span(fld.xs)}, y {_span(fld.ys)}, {_span(flat)}"
            )
            levels = ", ".join(_number(v) for v in fld.lines)
            if fld.shaded:
                text = "shading by " + text
                text += f", with contour lines at {levels}" if fld.lines else ""
            else:
                text = f"contour lines at {levels} of the " + text
            parts.append(text)
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
        return out + self._plot_svg(x, y, width, height)

    def _heatmap_svg(
        self, x: float, y: float, width: float, height: float
    ) -> list[str]:
        assert self.grid is not None
        rows, columns = len(self.grid), len(self.grid[0])
        left = TICK_SPACE if self.y_labels else 0.0
        below = TICK_SPACE if self.x_labels else 0.0
        left += LABEL_SPACE if self.y_label else 0.0
        below += LABEL_SPACE if self.x_label else 0.0
        cell = min((width - left) / columns, (height - below) / rows)
        x0 = x + left + (width - left - cell * columns) / 2
        y0 = y + (height - below - cell * rows) / 2
        out = []
        for r, row in enumerate(self.grid):
            for c, value in enumerate(row):
                out += self._cell_svg(r, c, value, x0 + c * cell, y0 + r * cell, cell)
        if not self.fills:
            out.append(
                f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{cell * columns:.1f}" '
                f'height="{cell * rows:.1f}" fill="none" stroke="#000000" '
                'stroke-width="0.8"/>'
            )
        for r, c, h, w, colour in self.boxes:
            out.append(
                f'<rect x="{x0 + c * cell:.1f}" y="{y0 + r * cell:.1f}" '
                f'width="{w * cell:.1f}" height="{h * cell:.1f}" fill="none" '
                f'stroke="{_hex(colour)}" stroke-width="2.5"/>'
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
        box = (x0, y0, x0 + cell * columns, y0 + cell * rows)
        return out + self._axis_labels_svg(box, x, y + height)

    def _cell_svg(
        self, r: int, c: int, value: float, cx: float, cy: float, cell: float
    ) -> list[str]:
        dashed = bool(self.dashed) and self.dashed[r][c]
        if self.fills:
            colour = _hex(self.fills[r][c])
            fill = "#ffffff" if dashed else colour
            dash = ' stroke-dasharray="4 3"' if dashed else ""
            inset = cell * 0.05
            out = [
                f'<rect x="{cx + inset:.1f}" y="{cy + inset:.1f}" '
                f'width="{cell - 2 * inset:.1f}" height="{cell - 2 * inset:.1f}" '
                f'fill="{fill}" stroke="{colour}" stroke-width="1.5"{dash}/>'
            ]
        else:
            fill = colour_of(value, self.cmap, *self.limits)
            out = [
                f'<rect x="{cx:.1f}" y="{cy:.1f}" width="{cell:.1f}" '
                f'height="{cell:.1f}" fill="{fill}"/>'
            ]
        if self.annotate and not (self.skip_zeros and value == 0):
            ink = "#666666" if dashed else _ink(fill)
            out.append(
                f'<text x="{cx + cell / 2:.1f}" y="{cy + cell / 2 + 4:.1f}" '
                f'font-size="11" text-anchor="middle" fill="{ink}">'
                f"{_number(value)}</text>"
            )
        return out

    def _axis_labels_svg(
        self, box: tuple[float, float, float, float], left: float, bottom: float
    ) -> list[str]:
        """The x label under the box (x0, y0, x1, y1), the y label at ``left``."""
        x0, y0, x1, y1 = box
        out = []
        if self.x_label:
            out.append(
                f'<text x="{(x0 + x1) / 2:.1f}" y="{bottom - 3:.1f}" '
                f'font-size="11" text-anchor="middle">'
                f"{html.escape(self.x_label)}</text>"
            )
        if self.y_label:
            middle = (y0 + y1) / 2
            out.append(
                f'<text x="{left + 12:.1f}" y="{middle:.1f}" font-size="11" '
                f'text-anchor="middle" '
                f'transform="rotate(-90 {left + 12:.1f} {middle:.1f})">'
                f"{html.escape(self.y_label)}</text>"
            )
        return out

    def _extent(self, axis: str) -> tuple[float, float]:
        """The range of the data along ``axis`` ("x" or "y"), on its scale."""
        if axis == "x":
            values = [v for s in self.series for v in s.x()]
            values += [v for p in self.points for v in p.xs]
            values += [v for f in self.fields for v in (f.xs[0], f.xs[-1])]
            values += self.bar_values
        else:
            values = [v for s in self.series + self.levels for v in s.values]
            values += [v for p in self.points for v in p.ys]
            values += [v for f in self.fields for v in (f.ys[0], f.ys[-1])]
        scale = self.x_scale if axis == "x" else self.y_scale
        values = [_scaled(v, scale) for v in values if scale == "linear" or v > 0]
        return (min(values), max(values)) if values else (0.0, 1.0)

    def _ranges(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The x and y ranges drawn, on their scales."""
        x_low, x_high = self._extent("x")
        if self.points and not self.series and not self.fields:
            pad = (x_high - x_low) * 0.05 or 1.0
            x_low, x_high = x_low - pad, x_high + pad
        if self.bar_values:
            x_low = math.floor(x_low) if self.x_scale == "log" else min(x_low, 0.0)
        y_low, y_high = self._extent("y")
        if not self.fields:
            pad = (y_high - y_low) * 0.05 or 1.0
            y_low, y_high = y_low - pad, y_high + pad
        if self.x_range is not None:
            x_low, x_high = (_scaled(v, self.x_scale) for v in self.x_range)
        if self.y_range is not None:
            y_low, y_high = (_scaled(v, self.y_scale) for v in self.y_range)
        return (x_low, x_high), (y_low, y_high)

    def _plot_svg(self, x: float, y: float, width: float, height: float) -> list[str]:
        (x_low, x_high), (y_low, y_high) = self._ranges()
        bar_room = 8.0 + 6.5 * max((len(n) for n in self.bar_names), default=0)
        left = bar_room if self.bar_values else 44.0
        bottom = TICK_SPACE + (LABEL_SPACE if self.x_label else 0)
        if self.y_label:
            left += LABEL_SPACE
        x0, x1, y0, y1 = x + left, x + width - 8, y + 4, y + height - bottom
        if self.equal:
            unit = min((x1 - x0) / (x_high - x_low), (y1 - y0) / (y_high - y_low))
            x0 += ((x1 - x0) - unit * (x_high - x_low)) / 2
            x1 = x0 + unit * (x_high - x_low)
            y0 += ((y1 - y0) - unit * (y_high - y_low)) / 2
            y1 = y0 + unit * (y_high - y_low)

        def px(v: float) -> float:
            return x0 + (x1 - x0) * (_scaled(v, self.x_scale) - x_low) / (
                x_high - x_low
            )

        def py(v: float) -> float:
            return y1 - (y1 - y0) * (_scaled(v, self.y_scale) - y_low) / (
                y_high - y_low
            )

        out = [
            f'<clipPath id="{_clip_id(x, y)}"><rect x="{x0:.1f}" y="{y0:.1f}" '
            f'width="{x1 - x0:.1f}" height="{y1 - y0:.1f}"/></clipPath>',
            f'<g clip-path="url(#{_clip_id(x, y)})">',
        ]
        for fld in self.fields:
            out += _field_svg(fld, px, py)
        for level in self.levels:
            out.append(
                f'<line x1="{x0:.1f}" x2="{x1:.1f}" y1="{py(level.values[0]):.1f}" '
                f'y2="{py(level.values[0]):.1f}" stroke="{_hex(level.colour)}" '
                'stroke-width="1.2" stroke-dasharray="2 3"/>'
            )
        for series in self.series:
            out += _series_svg(series, px, py, self.x_scale, self.y_scale)
        for dots in self.points:
            out += [
                f'<circle cx="{px(a):.1f}" cy="{py(b):.1f}" r="{dots.size / 2:.1f}" '
                f'fill="{_hex(dots.colour)}" stroke="#ffffff" stroke-width="0.5"/>'
                for a, b in zip(dots.xs, dots.ys, strict=True)
            ]
        out.append("</g>")
        out += self._bars_svg(px, (x0, y0, x1, y1))
        out.append(
            f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" '
            f'height="{y1 - y0:.1f}" fill="none" stroke="#000000" stroke-width="0.8"/>'
        )
        for t in _ticks(x_low, x_high, self.x_scale):
            out.append(
                f'<text x="{px(t):.1f}" y="{y1 + 12:.1f}" font-size="10" '
                f'text-anchor="middle">{_number(t)}</text>'
            )
        if not self.bar_values:
            for t in _ticks(y_low, y_high, self.y_scale):
                out.append(
                    f'<text x="{x0 - 4:.1f}" y="{py(t) + 3.5:.1f}" font-size="10" '
                    f'text-anchor="end">{_number(t)}</text>'
                )
        out += self._axis_labels_svg((x0, y0, x1, y1), x, y + height)
        return out + self._legend((x0, y0, x1, y1))

    def _bars_svg(
        self, px: Callable[[float], float], box: tuple[float, float, float, float]
    ) -> list[str]:
        if not self.bar_values:
            return []
        left, top, _, bottom = box
        share = (bottom - top) / len(self.bar_values)
        start = left if self.x_scale == "log" else max(left, px(0.0))
        out = []
        for k, (name, value) in enumerate(zip(self.bar_names, self.bar_values)):
            y = top + share * (k + 0.15)
            colour = _hex(self.bar_colours[k % len(self.bar_colours)])
            out.append(
                f'<rect x="{start:.1f}" y="{y:.1f}" width="{px(value) - start:.1f}" '
                f'height="{share * 0.7:.1f}" fill="{colour}"/>'
            )
            out.append(
                f'<text x="{px(value) + 4:.1f}" y="{y + share * 0.35 + 4:.1f}" '
                f'font-size="11">{_number(value)}{html.escape(self.bar_unit)}</text>'
            )
            out.append(
                f'<text x="{start - 4:.1f}" y="{y + share * 0.35 + 4:.1f}" '
                f'font-size="11" text-anchor="end">{html.escape(name)}</text>'
            )
        return out

    def _legend(self, box: tuple[float, float, float, float]) -> list[str]:
        named: list[Series | Points] = [s for s in self.series + self.levels if s.label]
        named += [p for p in self.points if p.label]
        if not named or not self.corner:
            return []
        width = 30 + 6.5 * max(len(s.label) for s in named)
        height = 16 * len(named) + 6
        left, top, right, bottom = box
        x = left + 6 if "left" in self.corner else right - width - 6
        y = bottom - height - 6 if "lower" in self.corner else top + 6
        out = [
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" '
            f'height="{height:.1f}" fill="#ffffff" fill-opacity="0.85" '
            'stroke="#bbbbbb"/>'
        ]
        for i, s in enumerate(named):
            ly = y + 11 + 16 * i
            if isinstance(s, Points):
                out.append(
                    f'<circle cx="{x + 14:.1f}" cy="{ly:.1f}" r="{s.size / 2:.1f}" '
                    f'fill="{_hex(s.colour)}"/>'
                )
            else:
                dash = ' stroke-dasharray="2 3"' if s.dashed else ""
                out.append(
                    f'<line x1="{x + 5:.1f}" x2="{x + 23:.1f}" y1="{ly:.1f}" '
                    f'y2="{ly:.1f}" stroke="{_hex(s.colour)}" stroke-width="{s.width}" '
                    f'stroke-opacity="{s.opacity}"{dash}/>'
                )
            out.append(
                f'<text x="{x + 27:.1f}" y="{ly + 3.5:.1f}" font-size="10">'
                f"{html.escape(s.label)}</text>"
            )
        return out


def _describe_series(series: Series, name: str) -> str:
    values, xs = series.values, series.x()
    if series.path:
        return (
            f"{name}: a path of {len(values)} points from ({_number(xs[0])}, "
            f"{_number(values[0])}) to ({_number(xs[-1])}, {_number(values[-1])})"
        )
    low = min(range(len(values)), key=values.__getitem__)
    return (
        f"{name}: {len(values)} points from {_number(values[0])} to "
        f"{_number(values[-1])}, lowest {_number(values[low])} at x {_number(xs[low])}"
    )


def _scaled(value: float, scale: str) -> float:
    return math.log10(value) if scale == "log" else value


def _ticks(low: float, high: float, scale: str) -> list[float]:
    """Tick values for an axis spanning low..high on its scale."""
    if scale != "log":
        return nice_ticks(low, high)
    powers = range(math.ceil(low - 1e-9), math.floor(high + 1e-9) + 1)
    if len(powers) < 2:  # less than a decade: round values between
        return [t for t in nice_ticks(10**low, 10**high, 4) if t > 0]
    step = max(1, math.ceil(len(powers) / 6))
    return [10.0**p for p in powers[::step]]


def _clip_id(x: float, y: float) -> str:
    return f"clip-{x:.0f}-{y:.0f}"


def _series_svg(
    series: Series,
    px: Callable[[float], float],
    py: Callable[[float], float],
    x_scale: str,
    y_scale: str,
) -> list[str]:
    pairs = [
        (px(a), py(b))
        for a, b in zip(series.x(), series.values, strict=True)
        if (x_scale == "linear" or a > 0) and (y_scale == "linear" or b > 0)
    ]
    colour = _hex(series.colour)
    points = " ".join(f"{a:.1f},{b:.1f}" for a, b in pairs)
    out = [
        f'<polyline points="{points}" fill="none" '
        f'stroke="{colour}" stroke-width="{series.width}" '
        f'stroke-opacity="{series.opacity}" stroke-linejoin="round"/>'
    ]
    if series.marker:
        out += [
            f'<circle cx="{a:.1f}" cy="{b:.1f}" r="{series.marker / 2:.1f}" '
            f'fill="{colour}"/>'
            for a, b in pairs
        ]
    return out


def _field_svg(
    fld: Field, px: Callable[[float], float], py: Callable[[float], float]
) -> list[str]:
    """The field's shading, one rectangle per run of cells in the same band
    along a row, then its contour lines."""
    out = ['<g shape-rendering="crispEdges">']
    flat = [v for row in fld.values for v in row]
    low, high = (fld.bands[0], fld.bands[-1]) if fld.bands else (min(flat), max(flat))
    for j in range(len(fld.ys) - 1 if fld.shaded else 0):
        runs: list[tuple[int, str]] = []
        for i in range(len(fld.xs) - 1):
            mean = (
                fld.values[j][i]
                + fld.values[j][i + 1]
                + fld.values[j + 1][i]
                + fld.values[j + 1][i + 1]
            ) / 4
            colour = colour_of(_band_middle(mean, fld.bands), fld.cmap, low, high)
            colour = _on_white(colour, fld.opacity)
            if runs and runs[-1][1] == colour:
                continue
            runs.append((i, colour))
        ends = [i for i, _ in runs[1:]] + [len(fld.xs) - 1]
        top, bottom = py(fld.ys[j + 1]), py(fld.ys[j])
        for (start, colour), end in zip(runs, ends, strict=True):
            out.append(
                f'<rect x="{px(fld.xs[start]):.1f}" y="{min(top, bottom):.1f}" '
                f'width="{px(fld.xs[end]) - px(fld.xs[start]) + 0.3:.1f}" '
                f'height="{abs(bottom - top) + 0.3:.1f}" fill="{colour}"/>'
            )
    out.append("</g>")
    for level in fld.lines:
        pieces = [
            (f"{px(a[0]):.1f} {py(a[1]):.1f}", f"{px(b[0]):.1f} {py(b[1]):.1f}")
            for a, b in contour_segments(fld.xs, fld.ys, fld.values, level)
        ]
        moves = ["M" + "L".join(chain) for chain in _chains(pieces) if len(chain) > 1]
        if moves:
            out.append(
                f'<path d="{"".join(moves)}" fill="none" '
                f'stroke="{_hex(fld.line_colour)}" '
                f'stroke-width="{fld.line_width}"/>'
            )
    return out


def _chains(pieces: list[tuple[str, str]]) -> list[list[str]]:
    """The pieces (pairs of points) joined end to end into lines: each line
    grows at both ends while an unused piece starts or ends where it stops."""
    touching: dict[str, list[int]] = {}
    for k, (a, b) in enumerate(pieces):
        touching.setdefault(a, []).append(k)
        touching.setdefault(b, []).append(k)
    used = [False] * len(pieces)
    chains = []
    for k, piece in enumerate(pieces):
        if used[k]:
            continue
        used[k] = True
        chain = list(piece)
        for forward in (True, False):
            while True:
                tip = chain[-1] if forward else chain[0]
                following = [j for j in touching[tip] if not used[j]]
                if not following:
                    break
                used[following[0]] = True
                a, b = pieces[following[0]]
                other = b if a == tip else a
                chain = chain + [other] if forward else [other] + chain
        chains.append(chain)
    return chains


def _on_white(colour: str, opacity: float) -> str:
    """``colour`` laid with ``opacity`` on white, as one opaque colour (so that
    neighbouring shapes that overlap by a hair show no seam)."""
    mixed = [round(255 + (c - 255) * opacity) for c in _rgb(colour)]
    return "#{:02x}{:02x}{:02x}".format(*mixed)


def _band_middle(value: float, bands: Sequence[float]) -> float:
    """The middle of the band between levels that ``value`` falls in."""
    for below, above in zip(bands, bands[1:]):
        if value <= above:
            return (below + above) / 2
    return value


def _hex(colour: str) -> str:
    return COLOURS.get(colour, colour)


class Figure:
    """``panels`` panels in a picture of width x height pixels: one row, or
    rows of ``columns`` panels."""

    def __init__(
        self,
        width: float = 640,
        height: float = 300,
        panels: int = 1,
        columns: int | None = None,
    ):
        self.width, self.height = float(width), float(height)
        self.panels = [Panel() for _ in range(panels)]
        self.columns = columns or panels
        self.notes: list[tuple[float, float, str]] = []
        self.alt: str | None = None

    def text(self, x: float, y: float, words: str) -> None:
        """Large words at (x, y), as shares of the width and the height."""
        self.notes.append((x, y, words))

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
        rows = math.ceil(len(self.panels) / self.columns)
        wide, high = self.width / self.columns, self.height / rows
        body = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.0f}" '
            f'height="{self.height:.0f}" viewBox="0 0 {self.width:.0f} '
            f'{self.height:.0f}" {FONT}>',
            f'<rect width="{self.width:.0f}" height="{self.height:.0f}" '
            'fill="#ffffff"/>',
        ]
        for n, panel in enumerate(self.panels):
            row, column = divmod(n, self.columns)
            body += panel.svg(column * wide + 6, row * high + 4, wide - 12, high - 8)
        for x, y, words in self.notes:
            body.append(
                f'<text x="{x * self.width:.1f}" y="{y * self.height:.1f}" '
                f'font-size="22" text-anchor="middle">{html.escape(words)}</text>'
            )
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
