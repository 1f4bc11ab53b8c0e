"""Activation functions of chapter 3: their slopes by autograd, and an explorer.

``curve_and_slope`` evaluates an activation on a grid of points and asks the
engine's autograd for its derivative at every point at once.

``activation_explorer`` is built the way chapter 1's stride explorer is
(``ch01/explorer.py``): every state is rendered to HTML in advance, the
pages sit in an ``ipywidgets.Stack``, and the controls choose a page through
``jslink``, which runs in the browser. So the widget works on the static web
page as well as live in JupyterLab. The plots inside the pages are small
hand-written SVG drawings, quick to make and light in the page.
"""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as widgets  # type: ignore[import-untyped]

import slowtorch_lib as torch
from slowtorch_lib import Tensor
from slowtorch_lib.nn import functional as F

Activation = Callable[[Tensor], Tensor]

# name: (function, f(x), f'(x)), the formulas as plain text for the pages.
ACTIVATIONS: dict[str, tuple[Activation, str, str]] = {
    "ReLU": (F.relu, "max(x, 0)", "1 if x > 0, else 0"),
    "LeakyReLU": (
        lambda x: F.leaky_relu(x, 0.1),
        "x if x > 0, else 0.1·x",
        "1 if x > 0, else 0.1",
    ),
    "ELU": (F.elu, "x if x > 0, else eˣ − 1", "1 if x > 0, else eˣ"),
    "GELU": (F.gelu, "x·Φ(x)", "Φ(x) + x·φ(x)"),
    "SiLU": (F.silu, "x·σ(x)", "σ(x)·(1 + x·(1 − σ(x)))"),
    "Tanh": (torch.tanh, "tanh x", "1 − tanh² x"),
    "Sigmoid": (torch.sigmoid, "σ(x) = 1 / (1 + e⁻ˣ)", "σ(x)·(1 − σ(x))"),
}

WIDTH, HEIGHT, MARGIN = 420, 260, 30
LOW, HIGH = -4.0, 4.0  # the x range drawn
BOTTOM, TOP = -1.5, 4.0  # the y range drawn
CURVE_STYLE = 'stroke="#1f5fa8" stroke-width="2.5"'
SLOPE_STYLE = 'stroke="#ed7d31" stroke-width="2"'


def curve_and_slope(
    function: Activation, low: float = LOW, high: float = HIGH, steps: int = 161
) -> tuple[list[float], list[float], list[float]]:
    """``xs``, ``f(xs)`` and ``f'(xs)``, the slopes computed by autograd.

    An activation works element by element: ``y[i]`` depends on ``x[i]``
    alone. So the gradient of ``y.sum()`` with respect to ``x`` holds, at
    each point, the derivative of ``f`` there.
    """
    x = torch.linspace(low, high, steps, dtype=torch.float64, requires_grad=True)
    y = function(x)
    y.sum().backward()
    assert x.grad is not None
    return x.detach().tolist(), y.detach().tolist(), x.grad.tolist()


def _point(x: float, y: float) -> tuple[float, float]:
    """Plot coordinates to SVG pixels (y grows downwards in SVG)."""
    px = MARGIN + (x - LOW) / (HIGH - LOW) * (WIDTH - 2 * MARGIN)
    py = HEIGHT - MARGIN - (y - BOTTOM) / (TOP - BOTTOM) * (HEIGHT - 2 * MARGIN)
    return px, py


def _polyline(xs: list[float], ys: list[float], style: str) -> str:
    inside = [(x, y) for x, y in zip(xs, ys) if BOTTOM <= y <= TOP]
    points = " ".join("{:.1f},{:.1f}".format(*_point(x, y)) for x, y in inside)
    return f'<polyline points="{points}" fill="none" {style}/>'


def _line(x0: float, y0: float, x1: float, y1: float, style: str) -> str:
    (a, b), (c, d) = _point(x0, y0), _point(x1, y1)
    return f'<line x1="{a:.1f}" y1="{b:.1f}" x2="{c:.1f}" y2="{d:.1f}" {style}/>'


def _text(x: float, y: float, text: str, anchor: str = "middle") -> str:
    px, py = _point(x, y)
    return (
        f'<text x="{px:.1f}" y="{py:.1f}" font-size="11" fill="#555555" '
        f'text-anchor="{anchor}">{text}</text>'
    )


def _axes() -> str:
    grey = 'stroke="#bbbbbb" stroke-width="1"'
    parts = [_line(LOW, 0, HIGH, 0, grey), _line(0, BOTTOM, 0, TOP, grey)]
    for tick in range(int(LOW), int(HIGH) + 1):
        if tick:
            parts.append(_text(tick, -0.35, str(tick)))
    for tick in range(int(BOTTOM) + 1, int(TOP) + 1):
        if tick:
            parts.append(_text(-0.12, tick - 0.08, str(tick), anchor="end"))
    return "".join(parts)


def render(name: str, curves: tuple[list[float], ...], at: int) -> str:
    """The page for activation ``name`` with the point ``xs[at]`` marked."""
    xs, ys, slopes = curves
    x, y, slope = xs[at], ys[at], slopes[at]
    left, right = max(x - 1.2, LOW), min(x + 1.2, HIGH)  # where the tangent goes
    tangent = _line(
        left,
        y + (left - x) * slope,
        right,
        y + (right - x) * slope,
        'stroke="#c00000" stroke-width="1.5" stroke-dasharray="5,3"',
    )
    px, py = _point(x, y)
    qx, qy = _point(x, slope)
    svg = (
        f'<svg width="{WIDTH}" height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg" '
        f'role="img" aria-label="{name} in blue and its derivative in orange; '
        f'the tangent at x = {x:+.2f} is dashed">'
        f"{_axes()}"
        f"{_polyline(xs, slopes, SLOPE_STYLE)}{_polyline(xs, ys, CURVE_STYLE)}"
        f"{tangent}"
        f'<circle cx="{px:.1f}" cy="{py:.1f}" r="5" fill="#1f5fa8"/>'
        f'<circle cx="{qx:.1f}" cy="{qy:.1f}" r="4" fill="#ed7d31"/>'
        "</svg>"
    )
    function, formula, derivative = ACTIVATIONS[name]
    # The derivative's words in a darker orange than its curve: 5:1 on white, as
    # text needs (WCAG AA).
    return (
        '<div style="font-family:monospace;font-size:13px;line-height:1.4">'
        f'<div><b>{name}</b>: <span style="color:#1f5fa8">f(x) = {formula}</span>'
        f' &nbsp; <span style="color:#b4531c">f′(x) = {derivative}</span></div>'
        f"{svg}"
        f"<div>x = {x:+.2f} &nbsp; f(x) = {y:+.4f} &nbsp; "
        f"f′(x) = {slope:+.4f} (from autograd; the dashed line has this "
        "slope)</div></div>"
    )


def activation_explorer(
    names: list[str] | None = None, points: int = 17
) -> widgets.Widget:
    """Buttons choose an activation, a slider a point ``x`` in [-4, 4].

    Args:
        names: Keys of ``ACTIVATIONS`` to show (all of them by default).
        points: How many positions the slider has.
    """
    names = list(ACTIVATIONS) if names is None else names
    chooser = widgets.ToggleButtons(
        options=names, description="f", style={"button_width": "auto"}
    )
    between = 4  # grid points from one slider position to the next
    pages = []
    for name in names:
        curves = curve_and_slope(ACTIVATIONS[name][0], steps=between * (points - 1) + 1)
        slider = widgets.IntSlider(
            value=points // 2 + 2,
            min=0,
            max=points - 1,
            description="point",
            readout=False,
        )
        shown = widgets.Stack(
            [widgets.HTML(render(name, curves, between * k)) for k in range(points)],
            selected_index=slider.value,
        )
        widgets.jslink((slider, "value"), (shown, "selected_index"))
        pages.append(widgets.VBox([slider, shown]))
    activations = widgets.Stack(pages, selected_index=0)
    widgets.jslink((chooser, "index"), (activations, "selected_index"))
    return widgets.VBox([chooser, activations])
