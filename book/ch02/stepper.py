"""A widget that replays a backward pass one node at a time (chapter 2).

Every step is computed in advance, as a page of HTML: the graph drawn by
``make_dot`` with the running node highlighted, and a table of the gradients
that have arrived so far. The pages are the children of an
``ipywidgets.Stack``; a slider chooses the page through ``jslink``, which
runs in the browser. So the widget works in the static book, where no Python
kernel is running, as well as in JupyterLab.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

import ipywidgets as widgets  # type: ignore[import-untyped]

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.engine import topological_order
from slowtorch_lib.ops.reduction import sum_to_size
from slowtorch_lib.viz import BackwardStep, backward_steps, make_dot

CURRENT = {"fillcolor": "gold", "penwidth": "3"}
DONE = {"color": "gray55", "fontcolor": "gray35"}
PAD = ' style="padding:2px 10px;text-align:left"'


def _values(tensor: Tensor | None) -> str:
    """The elements as nested lists of short numbers."""
    if tensor is None:
        return "—"

    def fmt(value: Any) -> str:
        if isinstance(value, list):
            return "[" + ", ".join(fmt(v) for v in value) + "]"
        return f"{value:.4g}"

    return fmt(tensor.tolist())


def _svg(graph: Any) -> str:
    """The graph as an inline ``<svg>`` element (no XML prologue)."""
    svg = graph.pipe(format="svg").decode()
    svg = svg[svg.index("<svg") :]
    label = 'role="img" aria-label="The graph of the backward pass; the node running '
    label += 'now is highlighted, the nodes already run are shaded"'
    return "<svg " + label + svg[len("<svg") :]


def _pending_sums(steps: list[BackwardStep]) -> list[dict[int, Tensor]]:
    """For each step, the gradient waiting at each node once that step is done.

    Keys are positions in ``steps``. A node's waiting gradient is the sum of
    what its predecessors sent it, shaped like what it finally receives.
    """
    position = {id(step.node): number for number, step in enumerate(steps)}
    waiting: dict[int, Tensor] = {}
    after_each: list[dict[int, Tensor]] = []
    for step in steps:
        edges = step.node.next_functions if step.grad_inputs else ()
        for (target, _), gradient in zip(edges, step.grad_inputs):
            if target is None or gradient is None or id(target) not in position:
                continue
            number = position[id(target)]
            final = steps[number].grad_outputs[0]
            if final is not None and gradient.shape != final.shape:
                gradient = sum_to_size(gradient, final.shape)
            previous = waiting.get(number)
            waiting[number] = gradient if previous is None else previous + gradient
        after_each.append(dict(waiting))
    return after_each


def _table(
    steps: list[BackwardStep], current: int, waiting: dict[int, Tensor | None]
) -> str:
    """Rows: every node, with what it received or what waits for it so far."""
    rows = []
    for number, step in enumerate(steps):
        if number < current:
            state, gradient = "done", step.grad_outputs[0]
        elif number == current:
            state, gradient = "running", step.grad_outputs[0]
        else:
            state, gradient = "waiting", waiting.get(number)
        style = (
            ' style="background:#fff3b0;font-weight:bold"' if number == current else ""
        )
        rows.append(
            f"<tr{style}><td{PAD}>{number + 1}</td>"
            f"<td{PAD}><code>{html.escape(step.name)}</code></td><td{PAD}>{state}</td>"
            f"<td{PAD}><code>{html.escape(_values(gradient))}</code></td></tr>"
        )
    return (
        '<table style="border-collapse:collapse;font-size:90%">'
        f"<tr><th{PAD}>#</th><th{PAD}>node</th><th{PAD}>state</th>"
        f"<th{PAD}>gradient received so far</th></tr>" + "".join(rows) + "</table>"
    )


def _caption(steps: list[BackwardStep], current: int) -> str:
    if current < 0:
        return (
            "Before the backward pass: the output's gradient is 1, "
            "waiting at the first node."
        )
    step = steps[current]
    received = _values(step.grad_outputs[0])
    if not step.grad_inputs:
        return (
            f"Step {current + 1} of {len(steps)}: leaf <code>{html.escape(step.name)}"
            f"</code> adds <code>{received}</code> to its <code>.grad</code>."
        )
    names = {id(other.node): other.name for other in steps}
    sent = ", ".join(
        f"<code>{_values(g)}</code> to "
        f"<code>{html.escape(names.get(id(t), t.name()))}</code>"
        for (t, _), g in zip(step.node.next_functions, step.grad_inputs)
        if t is not None and g is not None
    )
    return (
        f"Step {current + 1} of {len(steps)}: <code>{html.escape(step.name)}</code> "
        f"receives <code>{received}</code> and sends {sent}."
    )


def step_pages(output: Tensor, params: Mapping[str, Tensor] | None = None) -> list[str]:
    """One HTML page per moment of the backward pass, the first before it starts."""
    steps = backward_steps(output, params=params)
    order = topological_order([output.grad_fn]) if output.grad_fn is not None else []
    node_id = {id(node): f"n{number}" for number, node in enumerate(order)}
    waiting = _pending_sums(steps)
    pages = []
    for current in range(-1, len(steps)):
        graph = make_dot(output, params=params)
        for number, step in enumerate(steps[: current + 1]):
            graph.node(
                node_id[id(step.node)], **(CURRENT if number == current else DONE)
            )
        so_far: dict[int, Tensor | None]
        if current >= 0:
            so_far = dict(waiting[current])
        else:  # before the first step, only the output's gradient waits
            so_far = {0: steps[0].grad_outputs[0]} if steps else {}
        pages.append(
            f"<p>{_caption(steps, current)}</p>"
            '<div style="display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start">'
            f'<div style="max-width:100%">{_svg(graph)}</div>'
            f"<div>{_table(steps, current, so_far)}</div></div>"
        )
    return pages


def backward_stepper(
    output: Tensor, params: Mapping[str, Tensor] | None = None
) -> widgets.VBox:
    """A slider that steps through ``output``'s backward pass.

    (A ``Play`` button would be the natural companion, but in the static book
    the theme's icon script breaks its view, and the error stops the links.)
    """
    pages = step_pages(output, params)
    stack = widgets.Stack([widgets.HTML(page) for page in pages], selected_index=0)
    slider = widgets.IntSlider(
        value=0,
        min=0,
        max=len(pages) - 1,
        description="step",
        layout=widgets.Layout(width="420px"),
    )
    widgets.jslink((slider, "value"), (stack, "selected_index"))
    return widgets.VBox([slider, stack])
