"""One step of each recurrent cell, and the loop that runs it over a sequence.

A step is a small function of the step's input and the previous state:
``rnn_tanh_step``, ``lstm_step``, ``gru_step``... Each receives the
input's share of the gates, ``x W_ih^T + b_ih``, already computed for every
step at once, as PyTorch does on the CPU. :func:`run_forward` and
:func:`run_backward` loop over the sequence in one direction, and
:class:`MkldnnRnnLayer` records a whole LSTM layer as one graph node, as
PyTorch's fused kernel does. The layers and cells that use them are in
:mod:`slowtorch_lib.nn.modules.rnn`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.engine import grad
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.grad_mode import enable_grad, is_grad_enabled
from slowtorch_lib.nn import functional as F
from slowtorch_lib.ops.joining import cat

__all__ = [
    "STEPS",
    "MkldnnRnnLayer",
    "State",
    "Weights",
    "gru_step",
    "lstm_step",
    "rnn_relu_step",
    "rnn_tanh_step",
    "run_backward",
    "run_forward",
]


State = tuple[Tensor, ...]  # (h,) for RNN and GRU, (h, c) for LSTM


class Weights(NamedTuple):
    """The parameters of one layer in one direction (biases may be None)."""

    w_ih: Tensor
    w_hh: Tensor
    b_ih: Tensor | None
    b_hh: Tensor | None
    w_hr: Tensor | None = None


Step = Callable[[Tensor, State, Weights], State]


# ----------------------------------------------------------------------
# One step of each cell, given the input's share of the gates
# ----------------------------------------------------------------------


def rnn_tanh_step(input_gates: Tensor, state: State, weights: Weights) -> State:
    """Elman's cell: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    ``input_gates`` is ``x W_ih^T + b_ih``, computed before the loop.
    """
    (h,) = state
    return ((F.linear(h, weights.w_hh, weights.b_hh) + input_gates).tanh(),)


def rnn_relu_step(input_gates: Tensor, state: State, weights: Weights) -> State:
    """As :func:`rnn_tanh_step`, with ``relu`` instead of ``tanh``."""
    (h,) = state
    return ((F.linear(h, weights.w_hh, weights.b_hh) + input_gates).relu(),)


def lstm_step(input_gates: Tensor, state: State, weights: Weights) -> State:
    """Long short-term memory: a cell state ``c`` that gates decide to keep,
    overwrite and show.

    The four gates come from one matrix product, in PyTorch's order::

        i, f, g, o = chunk(x W_ih^T + b_ih + h W_hh^T + b_hh, 4)
        c' = sigmoid(f) * c + sigmoid(i) * tanh(g)     (forget, then write)
        h' = sigmoid(o) * tanh(c')                     (show)
        h' = h' W_hr^T                                 (with proj_size only)
    """
    h, c = state
    gates = F.linear(h, weights.w_hh, weights.b_hh) + input_gates
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    c = forgetgate.sigmoid() * c + ingate.sigmoid() * cellgate.tanh()
    h = outgate.sigmoid() * c.tanh()
    if weights.w_hr is not None:
        h = h.matmul(weights.w_hr.t())
    return h, c


def gru_step(input_gates: Tensor, state: State, weights: Weights) -> State:
    """Gated recurrent unit: one state, mixed with a candidate by a gate.

    In PyTorch's order (reset, update, new)::

        r = sigmoid(x_r + h_r)          x_* = chunks of x W_ih^T + b_ih
        z = sigmoid(x_z + h_z)          h_* = chunks of h W_hh^T + b_hh
        n = tanh(x_n + r * h_n)
        h' = (1 - z) * n + z * h  =  (h - n) * z + n
    """
    (h,) = state
    x_r, x_z, x_n = input_gates.chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, weights.w_hh, weights.b_hh).chunk(3, 1)
    reset = (h_r + x_r).sigmoid()
    update = (h_z + x_z).sigmoid()
    new = (x_n + h_n * reset).tanh()
    return ((h - new) * update + new,)


STEPS: dict[str, Step] = {
    "RNN_TANH": rnn_tanh_step,
    "RNN_RELU": rnn_relu_step,
    "LSTM": lstm_step,
    "GRU": gru_step,
}


# ----------------------------------------------------------------------
# The loop over a sequence, in one direction
# ----------------------------------------------------------------------


def _rows(state: State, start: int, stop: int) -> State:
    return tuple(s[start:stop] for s in state)


def run_forward(
    step: Step, inputs: list[Tensor], sizes: list[int], state: State, weights: Weights
) -> tuple[list[Tensor], State]:
    """Runs ``step`` over the steps in order; returns each step's ``h`` and
    the final state.

    ``sizes[t]`` is how many sequences still run at step ``t`` (all of them
    unless the input was packed). When the batch shrinks, the rows of the
    sequences that ended are put aside: their state is final.
    """
    outputs: list[Tensor] = []
    finished: list[State] = []
    last = sizes[0]
    for x, size in zip(inputs, sizes):
        if size < last:
            finished.append(_rows(state, size, last))
            state = _rows(state, 0, size)
        last = size
        state = step(x, state, weights)
        outputs.append(state[0])
    if not finished:
        return outputs, state
    finished.append(state)
    parts = zip(*reversed(finished))
    return outputs, tuple(cat(list(part), 0) for part in parts)


def run_backward(
    step: Step, inputs: list[Tensor], sizes: list[int], state: State, weights: Weights
) -> tuple[list[Tensor], State]:
    """Runs ``step`` over the steps from last to first (the reverse direction
    of a bidirectional layer); returns each step's ``h``, in time order.

    The batch grows going backwards: a sequence joins, with its initial
    state, at its own last step.
    """
    outputs: list[Tensor] = []
    last = sizes[-1]
    current = _rows(state, 0, last) if last < sizes[0] else state
    for x, size in zip(reversed(inputs), reversed(sizes)):
        if size > last:
            joining = _rows(state, last, size)
            current = tuple(cat([a, b], 0) for a, b in zip(current, joining))
        last = size
        current = step(x, current, weights)
        outputs.append(current[0])
    outputs.reverse()
    return outputs, current


# ----------------------------------------------------------------------
# One LSTM layer as one graph node, as PyTorch records it
# ----------------------------------------------------------------------

Direction = Callable[[Tensor, Weights, State], tuple[Tensor, State]]


class MkldnnRnnLayer(Function):
    """One float32 (or bfloat16) LSTM layer in one direction, as one node.

    PyTorch runs this case with a fused kernel (oneDNN's) whose node is
    ``MkldnnRnnLayerBackward0``, with outputs ``(output, h, c)``. Here
    ``forward`` runs the layer's usual loop, ``run``, recording its graph
    privately; ``backward`` differentiates that private graph. So values
    and gradients are the loop's, and the graph shows PyTorch's node. (For
    a graph of the gradients, ``create_graph=True``, the backward runs the
    loop again on the inputs themselves, so second derivatives reach them.)
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, *inputs: Tensor | None, run: Direction
    ) -> tuple[Tensor, Tensor, Tensor]:
        # inputs: input, w_ih, w_hh, b_ih, b_hh, h0, c0 (biases may be None)
        private = [
            None if t is None else t.detach().requires_grad_(need)
            for t, need in zip(inputs, ctx.needs_input_grad)
        ]
        with enable_grad():
            results = _run_layer(run, private)
        ctx.run = run
        ctx.save_for_backward(*inputs, *private, *results)
        return results[0].detach(), results[1].detach(), results[2].detach()

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Tensor) -> tuple[Tensor | None, ...]:
        saved = ctx.saved_tensors
        inputs, private, results = saved[:7], saved[7:14], saved[14:]
        create_graph = is_grad_enabled()
        if create_graph:
            private = inputs
            results = _run_layer(ctx.run, inputs)
        needs = ctx.needs_input_grad
        wanted = [t for t, need in zip(private, needs) if need]
        found = iter(
            grad(results, wanted, grad_outputs, True, create_graph) if wanted else ()
        )
        return tuple(next(found) if need else None for need in needs)


def _run_layer(run: Direction, inputs: Any) -> tuple[Tensor, Tensor, Tensor]:
    """``run`` on ``(input, w_ih, w_hh, b_ih, b_hh, h0, c0)``: output, h, c."""
    input, w_ih, w_hh, b_ih, b_hh, h0, c0 = inputs
    output, (h, c) = run(input, Weights(w_ih, w_hh, b_ih, b_hh), (h0, c0))
    return output, h, c
