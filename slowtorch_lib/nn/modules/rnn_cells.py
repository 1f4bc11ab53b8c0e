"""The recurrent cells as modules: ``RNNCell``, ``LSTMCell``, ``GRUCell``.

A cell is one step of a recurrent layer, for a caller who writes the loop
over the sequence itself: ``h = cell(x_t, h)``. Each runs the same step
function as the layers of :mod:`slowtorch_lib.nn.modules.rnn` (from
:mod:`slowtorch_lib.nn.modules.rnn_steps`), with its own parameters
``weight_ih``, ``weight_hh``, ``bias_ih`` and ``bias_hh``, named and laid out
as in PyTorch.
"""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib._creation import empty, zeros
from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn import init
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.modules.rnn_steps import (
    State,
    Step,
    Weights,
    gru_step,
    lstm_step,
    rnn_relu_step,
    rnn_tanh_step,
)
from slowtorch_lib.nn.parameter import Parameter

__all__ = [
    "GRUCell",
    "LSTMCell",
    "RNNCell",
    "RNNCellBase",
]


class RNNCellBase(Module):
    """What the cells share: ``weight_ih``, ``weight_hh``, ``bias_ih``,
    ``bias_hh`` (``num_chunks`` gates of ``hidden_size`` rows each)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gates = num_chunks * hidden_size
        kw: dict[str, Any] = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(empty(gates, input_size, **kw))
        self.weight_hh = Parameter(empty(gates, hidden_size, **kw))
        if bias:
            self.bias_ih = Parameter(empty(gates, **kw))
            self.bias_hh = Parameter(empty(gates, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draws every weight and bias from ``U(-1/sqrt(hidden_size),
        1/sqrt(hidden_size))``, as PyTorch does."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        nonlinearity = self.__dict__.get("nonlinearity", "tanh")
        if nonlinearity != "tanh":
            text += f", nonlinearity={nonlinearity}"
        return text

    def _step(self, step: Step, input: Tensor, state: State | None) -> State:
        """Checks the input and state, then runs one ``step``.

        An unbatched input ``(H_in,)`` is run as a batch of one.
        """
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        if state is not None:
            for number, part in enumerate(state):
                if part.dim() not in (1, 2):
                    which = f"hx[{number}]" if len(state) == 2 else "hidden"
                    raise ValueError(
                        f"{name}: Expected {which} to be 1D or 2D, got "
                        f"{part.dim()}D instead"
                    )
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if state is None:
            zero = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            state = (zero,) * (2 if step is lstm_step else 1)
        elif not batched:
            state = tuple(s.unsqueeze(0) for s in state)
        self._check_sizes(input, state)
        weights = Weights(self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        input_gates = F.linear(input, self.weight_ih, self.bias_ih)
        state = step(input_gates, state, weights)
        if not batched:
            state = tuple(s.squeeze(0) for s in state)
        return state

    def _check_sizes(self, input: Tensor, state: State) -> None:
        if input.size(1) != self.weight_ih.size(1):
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.size(1)} expected "
                f"{self.weight_ih.size(1)}"
            )
        for number, part in enumerate(state):
            if input.size(0) != part.size(0):
                raise RuntimeError(
                    f"Input batch size {input.size(0)} doesn't match hidden{number} "
                    f"batch size {part.size(0)}"
                )
            if part.size(1) != self.weight_hh.size(1):
                raise RuntimeError(
                    f"hidden{number} has inconsistent hidden_size: got "
                    f"{part.size(1)}, expected {self.weight_hh.size(1)}"
                )


class RNNCell(RNNCellBase):
    """One step of :class:`RNN`: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T +
    b_hh)`` (or ``relu``).

    ``cell(input, hx)`` takes ``(N, H_in)`` and ``(N, H)`` (or unbatched
    ``(H_in,)`` and ``(H,)``; ``hx`` defaults to zeros) and returns ``h'``.

    Raises:
        ValueError: For an input or state that is not 1-d or 2-d.
        RuntimeError: For sizes that do not fit the weights, or an unknown
            nonlinearity (when called).
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        step = rnn_tanh_step if self.nonlinearity == "tanh" else rnn_relu_step
        state = None if hx is None else (hx,)
        return self._step(step, input, state)[0]


class LSTMCell(RNNCellBase):
    """One step of :class:`LSTM` (see :func:`lstm_step`).

    ``cell(input, (hx, cx))`` returns ``(h', c')``; the state defaults to
    zeros.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(
        self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, Tensor]:
        h, c = self._step(lstm_step, input, None if hx is None else tuple(hx))
        return h, c


class GRUCell(RNNCellBase):
    """One step of :class:`GRU` (see :func:`gru_step`).

    ``cell(input, hx)`` returns ``h'``; ``hx`` defaults to zeros.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        state = None if hx is None else (hx,)
        return self._step(gru_step, input, state)[0]
