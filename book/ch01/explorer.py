"""The stride explorer of chapter 1: which storage cells does a view read?

Every state of the widget is rendered to HTML in advance, and the controls
are joined to the pages with ``jslink``. The links run in the browser, so
the widget works on the static web page (no Python kernel behind it) as well
as live in JupyterLab.
"""

from __future__ import annotations

import ipywidgets as widgets  # type: ignore[import-untyped]

from slowtorch_lib import Tensor
from slowtorch_lib._strides import position_list

CELL = (
    "display:inline-block;width:44px;margin:2px 3px 2px 0;text-align:center;"
    "vertical-align:top;"
)
BOX = "border:1px solid #8a8a8a;border-radius:3px;padding:5px 0;"
QUIET = "background:#f2f2f2;color:#9a9a9a;"
READ = "background:#cfe2f3;color:#1a1a1a;"
CURRENT = "background:#1f5fa8;color:#ffffff;font-weight:bold;"
SMALL = "font-size:11px;color:#666666;height:15px;"


def _number(value: float) -> str:
    """``3.0`` as ``3``; other values as Python's shortest form."""
    return f"{value:g}"


def _box(text: str, colours: str, above: str | None = None, below: str = "") -> str:
    """One cell: a box, with a small label above and a note below if given."""
    label = "" if above is None else f'<div style="{SMALL}">{above}</div>'
    note = f'<div style="{SMALL}">{below}</div>' if above is not None else ""
    return (
        f'<div style="{CELL}">{label}<div style="{BOX}{colours}">{text}</div>'
        f"{note}</div>"
    )


def _unravel(number: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index of the ``number``-th element in row-major order."""
    index = []
    for size in reversed(shape):
        index.append(number % size)
        number //= size
    return tuple(reversed(index))


def _formula(index: tuple[int, ...], stride: tuple[int, ...], offset: int) -> str:
    """``4 + 1·8 + 0·1 = 12``: the position formula with numbers filled in."""
    terms = [str(offset)] + [f"{i}·{s}" for i, s in zip(index, stride)]
    position = offset + sum(i * s for i, s in zip(index, stride))
    return " + ".join(terms) + f" = <b>{position}</b>"


def render(name: str, view: Tensor, storage: list[float], number: int) -> str:
    """The HTML page for element ``number`` of ``view``."""
    shape, stride, offset = tuple(view.shape), view.stride(), view.storage_offset()
    positions = position_list(shape, stride, offset)
    current = positions[number]
    index = _unravel(number, shape)

    cells = []
    for position, value in enumerate(storage):
        reads = positions.count(position)
        colours = CURRENT if position == current else READ if reads else QUIET
        note = f"×{reads}" if reads > 1 else ""
        cells.append(_box(_number(value), colours, str(position), note))

    values = [storage[p] for p in positions]
    row_length = shape[-1] if shape else 1
    rows = []
    for start in range(0, len(values), row_length):
        row = []
        for k in range(start, start + row_length):
            colours = CURRENT if k == number else READ
            row.append(_box(_number(values[k]), colours))
        rows.append("<div>" + "".join(row) + "</div>")

    return (
        '<div style="font-family:monospace;font-size:14px;line-height:1.3">'
        f"<div><b>{name}</b> &nbsp; shape {list(shape)} &nbsp; "
        f"stride {stride} &nbsp; offset {offset}</div>"
        '<div style="margin-top:10px">storage: position above each cell, '
        "×n below a cell read n times</div>"
        f"<div>{''.join(cells)}</div>"
        f'<div style="margin-top:6px">the view {name}</div>'
        f"{''.join(rows)}"
        f'<div style="margin-top:8px">index {index} &rarr; position = '
        f"{_formula(index, stride, offset)}</div></div>"
    )


def stride_explorer(base: Tensor, views: dict[str, Tensor]) -> widgets.Widget:
    """A widget that shows, for each view of ``base``, the storage cells it reads.

    Args:
        base: The tensor whose storage all the views share.
        views: Views of ``base``, keyed by the expression that made them.
    """
    storage = base.untyped_storage().data.tolist()
    chooser = widgets.ToggleButtons(
        options=list(views),
        description="view",
        style={"button_width": "auto"},
    )
    pages = []
    for name, view in views.items():
        count = view.numel()
        slider = widgets.IntSlider(value=0, min=0, max=count - 1, description="element")
        elements = widgets.Stack(
            [widgets.HTML(render(name, view, storage, k)) for k in range(count)],
            selected_index=0,
        )
        widgets.jslink((slider, "value"), (elements, "selected_index"))
        pages.append(widgets.VBox([slider, elements]))
    shown = widgets.Stack(pages, selected_index=0)
    widgets.jslink((chooser, "index"), (shown, "selected_index"))
    return widgets.VBox([chooser, shown])
