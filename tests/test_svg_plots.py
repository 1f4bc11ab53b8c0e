"""The figures chapters 5 and 6 draw in plain Python (``book/svg_plots.py``), so
that they draw in the in-browser course offline, where matplotlib cannot load."""

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

from svg_plots import Figure, colour_of, nice_ticks  # noqa: E402

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


@pytest.mark.parametrize("page", ["05_windows.md", "06_attention.md"])
def test_chapters_five_and_six_draw_without_matplotlib(page: str) -> None:
    """Offline, the in-browser course has no matplotlib: these chapters draw
    every figure with ``svg_plots`` instead."""
    text = (BOOK / page).read_text(encoding="utf-8")
    assert "matplotlib" not in text and "plt." not in text
    assert "from svg_plots import Figure" in text
