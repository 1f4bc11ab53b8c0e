"""Text alternatives for the chapters' plots, made from the data they show.

``show(fig)`` displays a matplotlib figure as ``plt.show()`` would, with a
description of what it plots written into the PNG (its ``Description`` text): the
book's build makes that the image's ``alt`` text (``book/_ext/accessible_pages.py``).
``describe(fig)`` is that description: per panel, its title and axes, then each
series with its number of points and the range of its values, each image with its
size and range. Numbers are read from the figure, so the words cannot say
something else than the picture.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any


def _number(value: float) -> str:
    return f"{value:.4g}"


def _finite(values: Any) -> list[float]:
    numbers = []
    for value in list(values):
        try:
            number = float(value)
        except (TypeError, ValueError):
            continue
        if math.isfinite(number):
            numbers.append(number)
    return numbers


def _span(values: Sequence[float]) -> str:
    return f"from {_number(min(values))} to {_number(max(values))}"


def _axis(name: str, label: str, scale: str, limits: tuple[float, float]) -> str:
    text = f"{name} axis"
    if label:
        text += f" '{label}'"
    text += f" {_number(limits[0])} to {_number(limits[1])}"
    return text + (f" ({scale} scale)" if scale != "linear" else "")


def _line(label: str, xs: list[float], ys: list[float]) -> str:
    if not ys:
        return f"{label}: no points."
    if len(ys) == 1:
        return f"{label}: one point at y {_number(ys[0])}."
    low = min(range(len(ys)), key=ys.__getitem__)
    high = max(range(len(ys)), key=ys.__getitem__)

    def where(index: int) -> str:
        return f" at x {_number(xs[index])}" if len(xs) == len(ys) else ""

    return (
        f"{label}: {len(ys)} points, from {_number(ys[0])} to {_number(ys[-1])}; "
        f"lowest {_number(ys[low])}{where(low)}, "
        f"highest {_number(ys[high])}{where(high)}."
    )


def _describe_axes(axes: Any) -> list[str]:
    parts = []
    for number, line in enumerate(axes.get_lines(), 1):
        label = str(line.get_label())
        name = label if label and not label.startswith("_") else f"line {number}"
        xs, ys = _finite(line.get_xdata()), _finite(line.get_ydata())
        parts.append(_line(name, xs, ys))
    for collection in axes.collections:
        offsets = collection.get_offsets()
        label = str(collection.get_label())
        name = label if label and not label.startswith("_") else "points"
        if len(offsets) > 1:
            xs = _finite(point[0] for point in offsets)
            ys = _finite(point[1] for point in offsets)
            parts.append(f"{name}: {len(xs)} points, x {_span(xs)}, y {_span(ys)}.")
        levels = getattr(collection, "levels", None)
        if levels is not None and len(levels):
            span = _span(_finite(levels))
            parts.append(f"contour lines at {len(levels)} levels {span}.")
    for image in axes.get_images():
        data = image.get_array()
        values = _finite(data.ravel()) if data is not None else []
        rows, columns = data.shape[:2] if data is not None else (0, 0)
        text = f"an image of {rows} by {columns} values"
        parts.append(text + (f", {_span(values)}." if values else "."))
    for container in axes.containers:
        heights = _finite(bar.get_height() for bar in container)
        label = str(container.get_label())
        name = label if label and not label.startswith("_") else "bars"
        if heights:
            parts.append(f"{name}: {len(heights)} bars, heights {_span(heights)}.")
    return parts


def describe(figure: Any) -> str:
    """What ``figure`` plots, in sentences: its panels, axes, series and ranges."""
    panels = [
        axes
        for axes in figure.axes
        if axes.get_visible() and (axes.has_data() or axes.get_images())
    ]
    sentences = []
    title = figure._suptitle.get_text() if figure._suptitle is not None else ""
    if title:
        sentences.append(f"{title}.")
    if len(panels) > 1:
        sentences.append(f"{len(panels)} panels.")
    for number, axes in enumerate(panels, 1):
        head = f"Panel {number}" if len(panels) > 1 else "The plot"
        if axes.get_title():
            head += f" '{axes.get_title()}'"
        axis_x = _axis("x", axes.get_xlabel(), axes.get_xscale(), axes.get_xlim())
        axis_y = _axis("y", axes.get_ylabel(), axes.get_yscale(), axes.get_ylim())
        sentences.append(f"{head}: {axis_x}, {axis_y}.")
        sentences.extend(_describe_axes(axes))
    return " ".join(s[0].upper() + s[1:] for s in sentences)


def show(figure: Any = None) -> None:
    """Displays ``figure`` (the current one by default) with its description."""
    import matplotlib
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    if not isinstance(getattr(matplotlib, "__version__", None), str):
        # The in-browser site's stand-in for matplotlib (offline): its plt.show()
        # shows the figures the book built for this cell.
        plt.show()
        return
    figure = figure if figure is not None else plt.gcf()
    text = describe(figure)
    buffer = io.BytesIO()
    figure.savefig(
        buffer, format="png", bbox_inches="tight", metadata={"Description": text}
    )
    plt.close(figure)
    display(Image(data=buffer.getvalue(), metadata={"alt": text}))
