"""The figures the book's chapters draw in plain Python (``book/svg_plots.py``),
so that they draw in the in-browser course offline, where matplotlib cannot load.

The last tests read the chapters: none imports matplotlib, so the book's
build, which runs every chapter, draws each figure the way the browser does.
The browser suite counts the figures the class site draws offline."""

from __future__ import annotations

import base64
import html
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
sys.path.insert(0, str(BOOK))

from svg_plots import Figure, colour_of, contour_segments, nice_ticks  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def _cells(figure: Figure) -> list[ET.Element]:
    root = ET.fromstring(figure.svg())
    return [r for r in root.iter(f"{SVG}rect") if r.get("fill", "none") != "none"]


def test_a_heat_map_draws_one_cell_per_value_coloured_by_its_map() -> None:
    figure = Figure(width=300, height=200)
    figure.panels[0].heatmap([[0, 5], [10, 2]], cmap="Blues", vmin=0, vmax=10)
    cells = _cells(figure)[1:]  # after the white background
    assert len(cells) == 4
    assert cells[0].get("fill") == "#f7fbff"  # vmin: the map's first colour
    assert cells[2].get("fill") == "#08306b"  # vmax: its last
    assert cells[1].get("fill") == colour_of(5, "Blues", 0, 10) == "#6baed6"


def test_written_values_and_the_alt_text_come_from_the_data() -> None:
    figure = Figure(width=300, height=200)
    panel = figure.panels[0]
    panel.heatmap([[1, 2], [3, 9]], cmap="Blues", annotate=True)
    panel.box(0, 1, 1, 1, "C1")
    panel.title("counts")
    texts = [t.text for t in ET.fromstring(figure.svg()).iter(f"{SVG}text")]
    assert texts[:5] == ["counts", "1", "2", "3", "9"]
    said = figure.describe()
    assert "'counts': a heat map of 2 by 2 values from 1 to 9" in said
    assert "row by row: 1, 2; 3, 9" in said
    assert "1 by 1 cells from row 0, column 1" in said
    shown = figure.html()
    alt = re.search(r'alt="([^"]*)"', shown)
    assert alt is not None and html.unescape(alt.group(1)) == said
    data = re.search(r"base64,([A-Za-z0-9+/=]+)", shown)
    assert data is not None
    assert base64.b64decode(data.group(1)).decode() == figure.svg()


def test_a_diverging_map_is_centred_on_zero() -> None:
    figure = Figure(panels=1)
    figure.panels[0].heatmap([[-0.5, 0.0, 1.0]], cmap="RdBu_r")
    fills = [c.get("fill") for c in _cells(figure)[1:]]
    assert fills[1] == "#f7f7f7"  # zero is white, not the middle of -0.5..1
    assert fills[2] == "#67001f"


def test_lines_draw_every_point_and_say_where_they_go() -> None:
    figure = Figure(width=400, height=200)
    panel = figure.panels[0]
    panel.line([3.6, 3.0, 2.5, 2.7], label="engine")
    panel.level(3.3, label="uniform guessing")
    panel.labels(x="step", y="loss")
    root = ET.fromstring(figure.svg())
    (line,) = root.iter(f"{SVG}polyline")
    points = [tuple(map(float, p.split(","))) for p in line.get("points", "").split()]
    assert len(points) == 4
    assert points[2][1] > points[0][1]  # a lower loss is drawn lower
    said = figure.describe()
    assert "engine: 4 points from 3.6 to 2.7, lowest 2.5 at x 2" in said
    assert "uniform guessing: a dotted line at 3.3" in said


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (0, 149, [0, 50, 100]),
        (2.1, 3.7, [2.5, 3.0, 3.5]),
        (0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1]),
    ],
)
def test_ticks_are_round_numbers_inside_the_range(
    low: float, high: float, expected: list[float]
) -> None:
    assert nice_ticks(low, high) == pytest.approx(expected)


def _points(line: ET.Element) -> list[tuple[float, float]]:
    pairs = line.get("points", "").split()
    return [(float(a), float(b)) for a, b in (p.split(",") for p in pairs)]


def test_lines_at_given_x_are_placed_by_their_x() -> None:
    figure = Figure(width=400, height=200)
    figure.panels[0].line([1, 2, 3], x=[0, 1, 10], marker=4)
    (line,) = ET.fromstring(figure.svg()).iter(f"{SVG}polyline")
    (a, _), (b, _), (c, _) = _points(line)
    assert c - b == pytest.approx(9 * (b - a), abs=0.2)  # 1 to 10 is 9 times 0 to 1
    dots = list(ET.fromstring(figure.svg()).iter(f"{SVG}circle"))
    assert len(dots) == 3
    assert "line 1: 3 points from 1 to 3, lowest 1 at x 0" in figure.describe()


def test_a_log_axis_spaces_powers_of_ten_evenly_and_says_so() -> None:
    figure = Figure(width=400, height=200)
    panel = figure.panels[0]
    panel.line([1, 10, 100, 1000], label="growth")
    panel.scales(y="log")
    panel.labels(x="step", y="size")
    (line,) = ET.fromstring(figure.svg()).iter(f"{SVG}polyline")
    heights = [y for _, y in _points(line)]
    gaps = [a - b for a, b in zip(heights, heights[1:])]
    assert gaps[0] == pytest.approx(gaps[1], abs=0.2) == pytest.approx(gaps[2], abs=0.2)
    texts = [t.text for t in ET.fromstring(figure.svg()).iter(f"{SVG}text")]
    assert {"1", "10", "100", "1000"} <= set(texts)
    assert "y on a log scale" in figure.describe()


def test_a_log_axis_within_a_decade_gets_round_ticks_between() -> None:
    figure = Figure(width=400, height=200)
    figure.panels[0].line([0.66, 0.3, 0.05])
    figure.panels[0].scales(y="log")
    texts = [t.text for t in ET.fromstring(figure.svg()).iter(f"{SVG}text")]
    assert {"0.2", "0.4", "0.6"} <= set(texts)


def test_contour_pieces_cross_the_cells_where_the_level_is() -> None:
    # f(x, y) = x on the square 0..2: the level 0.5 is the line x = 0.5.
    xs = ys = [0.0, 1.0, 2.0]
    values = [[x for x in xs] for _ in ys]
    pieces = contour_segments(xs, ys, values, 0.5)
    assert len(pieces) == 2  # one per row of cells, in the first column
    for start, end in pieces:
        assert start[0] == end[0] == pytest.approx(0.5)
    assert contour_segments(xs, ys, values, 5.0) == []


def test_a_field_shades_its_bands_and_draws_its_contours() -> None:
    figure = Figure(width=300, height=300)
    panel = figure.panels[0]
    xs = [i / 10 for i in range(11)]
    panel.field(
        xs,
        xs,
        [[x for x in xs] for _ in xs],
        cmap="RdBu",
        bands=[0, 0.5, 1],
        lines=[0.5],
    )
    panel.scatter([0.2, 0.8], [0.5, 0.5], label="class 1", colour="C1")
    root = ET.fromstring(figure.svg())
    shades = {r.get("fill") for r in root.iter(f"{SVG}rect")} - {
        None,
        "none",
        "#ffffff",
    }
    assert len(shades) == 2  # one colour per band, runs merged along each row
    (contour,) = root.iter(f"{SVG}path")
    assert contour.get("d", "").count("M") == 1  # the pieces joined in one line
    said = figure.describe()
    assert "values on a 11 by 11 grid over x from 0 to 1" in said
    assert said.endswith("to 1, with contour lines at 0.5.")  # after the points
    assert "class 1: 2 points, x from 0.2 to 0.8, y from 0.5 to 0.5" in said


def test_bars_write_their_values_and_the_alt_text_lists_them() -> None:
    figure = Figure(width=400, height=150)
    panel = figure.panels[0]
    panel.bars(["loops", "engine"], [500.0, 2.0], unit=" ms")
    panel.scales(x="log")
    root = ET.fromstring(figure.svg())
    bars = [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "#1f77b4"]
    widths = [float(b.get("width", 0)) for b in bars]
    assert widths[0] > widths[1] > 0
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "500 ms" in texts and "2 ms" in texts and "loops" in texts
    assert "2 bars (log scale): loops 500 ms; engine 2 ms." in figure.describe()


def test_tiles_dash_the_cells_read_again() -> None:
    figure = Figure(width=300, height=120)
    figure.panels[0].tiles([[1, 1]], [["C0", "C0"]], [[False, True]])
    root = ET.fromstring(figure.svg())
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("stroke") == "#1f77b4"]
    assert [c.get("stroke-dasharray") for c in cells] == [None, "4 3"]
    assert [c.get("fill") for c in cells] == ["#1f77b4", "#ffffff"]
    said = figure.describe()
    assert said.startswith("A grid of 1 by 2 values from 1 to 1")
    assert "; 1 cell dashed (read again)." in said


def test_a_heat_map_without_zeros_names_the_cells_it_writes() -> None:
    figure = Figure(width=300, height=300)
    figure.panels[0].heatmap([[4, 0], [1, 5]], annotate=True, skip_zeros=True)
    texts = [t.text for t in ET.fromstring(figure.svg()).iter(f"{SVG}text")]
    assert texts == ["4", "1", "5"]
    assert "row 0: 4 in column 0; row 1: 1 in column 0, 5 in column 1" in (
        figure.describe()
    )


def test_panels_fill_rows_of_the_given_columns() -> None:
    figure = Figure(width=400, height=200, panels=3, columns=2)
    for panel, name in zip(figure.panels, "abc"):
        panel.title(name)
        panel.line([0, 1])
    titles = {
        t.text: (float(t.get("x", 0)), float(t.get("y", 0)))
        for t in ET.fromstring(figure.svg()).iter(f"{SVG}text")
        if t.text in {"a", "b", "c"}
    }
    assert titles["a"][1] == titles["b"][1] < titles["c"][1]  # c starts row two
    assert titles["a"][0] == titles["c"][0] < titles["b"][0]


def test_a_legend_goes_where_it_is_asked_or_nowhere() -> None:
    def legend_boxes(corner: str) -> list[ET.Element]:
        figure = Figure(width=400, height=200)
        figure.panels[0].line([1, 2], label="a")
        figure.panels[0].legend(corner)
        rects = ET.fromstring(figure.svg()).iter(f"{SVG}rect")
        return [r for r in rects if r.get("stroke") == "#bbbbbb"]

    (upper,) = legend_boxes("upper right")
    (lower,) = legend_boxes("lower left")
    assert float(lower.get("y", 0)) > float(upper.get("y", 0))
    assert float(lower.get("x", 0)) < float(upper.get("x", 0))
    assert legend_boxes("") == []


#: Each chapter's places that make a figure (``Figure(width=``).
FIGURE_SITES = {
    "01_tensors.md": 2,
    "03_building_blocks.md": 4,
    "04_optimisation.md": 13,
    "05_windows.md": 2,
    "06_attention.md": 2,
    "epilogue.md": 1,
}


@pytest.mark.parametrize("page", sorted(FIGURE_SITES))
def test_the_chapters_draw_without_matplotlib(page: str) -> None:
    """Offline, the in-browser course has no matplotlib: the chapters draw
    every figure with ``svg_plots`` instead, so that no cell shows the book's
    stored figure under a note that it could not draw."""
    text = (BOOK / page).read_text(encoding="utf-8")
    assert "matplotlib" not in text and "plt." not in text
    assert "figure_text" not in text and "show_figure" not in text
    assert "from svg_plots import Figure" in text
    assert text.count("Figure(width=") == FIGURE_SITES[page]
