"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their one-step cells.

A recurrent layer reads a sequence one step at a time and carries a
*state* from each step to the next. One step is a small function of the
step's input and the previous state, the *cell*; the layer is a loop::

    state = h0
    for x_t in sequence:
        state = cell(x_t, state)
        outputs.append(state.h)

Everything here is built from the engine's own operations (``linear``,
``sigmoid``, ``tanh``, ``chunk``, ``stack``, ``cat``...), so autograd
derives the backward pass through the loop by itself ("backpropagation
through time"). The parameters have PyTorch's names and layout
(``weight_ih_l0``, ``bias_hh_l1_reverse``, ``weight_hr_l0``...), so a
``state_dict`` moves between the two libraries unchanged.

As PyTorch does on the CPU, the input's contribution to the gates,
``x W_ih^T + b_ih``, is computed for every step at once before the loop.
The steps and the loop over a sequence are in
:mod:`slowtorch_lib.nn.modules.rnn_steps`; here are the layers and the
one-step cells as modules.

``grad_fn`` of the results: the cells end as PyTorch's (``TanhBackward0``,
``MulBackward0`` and ``AddBackward0`` for an LSTM's ``h`` and ``c``...);
the layers' outputs are a ``stack`` of the steps (``StackBackward0``), a
``cat`` of the two directions or of a packed sequence's steps
(``CatBackward0``), as in PyTorch's own CPU loop. For a float32 (or
bfloat16) LSTM without projections on a sequence that is not packed,
PyTorch runs a fused oneDNN kernel: each layer and direction is one node,
``MkldnnRnnLayerBackward0``, and here too (:class:`MkldnnRnnLayer` wraps
the same loop). With ``batch_first``, the fused kernel's output is
transposed (``TransposeBackward0``) and the loop's in place
(``TransposeBackward1``), as in PyTorch.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from slowtorch_lib._creation import empty, zeros
from slowtorch_lib._dtype import bfloat16, float32
from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.grad_mode import is_grad_enabled
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn import init
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.modules.rnn_steps import (
    STEPS,
    MkldnnRnnLayer,
    State,
    Step,
    Weights,
    gru_step,
    lstm_step,
    rnn_relu_step,
    rnn_tanh_step,
    run_backward,
    run_forward,
)
from slowtorch_lib.nn.parameter import Parameter
from slowtorch_lib.nn.utils.rnn import PackedSequence
from slowtorch_lib.ops.autocast import autocast_lower
from slowtorch_lib.ops.joining import cat, stack

__all__ = [
    "GRU",
    "LSTM",
    "RNN",
    "GRUCell",
    "LSTMCell",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
]


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: the parameters, the checks
    and the loop over layers and directions.

    Args:
        mode: ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``.
        input_size: Features of each step of the input.
        hidden_size: Features of the hidden state.
        num_layers: How many layers to stack (each reads the one below).
        bias: Whether to learn the biases ``b_ih`` and ``b_hh``.
        batch_first: Inputs and outputs are ``(batch, seq, feature)``
            instead of ``(seq, batch, feature)`` (the states are not).
        dropout: Dropout on the outputs of every layer but the last, in
            training.
        bidirectional: Run a second layer from the end of the sequence to
            its start, and join the two outputs.
        proj_size: (LSTM) Project ``h`` down to this size with ``weight_hr``.

    Raises:
        ValueError: For a dropout outside [0, 1], sizes that are not
            positive, or ``proj_size`` not below ``hidden_size``.
        TypeError: For ``bias``, ``batch_first`` or a size of the wrong type.
    """

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        _check_settings(
            input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size
        )
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = {"LSTM": 4, "GRU": 3}.get(mode, 1) * hidden_size
        if mode not in STEPS:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(2 if bidirectional else 1):
                suffix = f"l{layer}" + ("_reverse" if direction else "")
                names = self._make_layer(
                    suffix, layer, gate_size, device=device, dtype=dtype
                )
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def _make_layer(
        self, suffix: str, layer: int, gate_size: int, **kw: Any
    ) -> list[str]:
        """Registers one layer's parameters, in PyTorch's order; their names."""
        real_hidden = self.proj_size or self.hidden_size
        directions = 2 if self.bidirectional else 1
        in_size = self.input_size if layer == 0 else real_hidden * directions
        shapes: dict[str, tuple[int, ...]] = {
            f"weight_ih_{suffix}": (gate_size, in_size),
            f"weight_hh_{suffix}": (gate_size, real_hidden),
        }
        if self.bias:
            shapes[f"bias_ih_{suffix}"] = (gate_size,)
            shapes[f"bias_hh_{suffix}"] = (gate_size,)
        if self.proj_size > 0:
            shapes[f"weight_hr_{suffix}"] = (self.proj_size, self.hidden_size)
        for name, shape in shapes.items():
            setattr(self, name, Parameter(empty(*shape, **kw)))
        return list(shapes)

    def reset_parameters(self) -> None:
        """Draws every weight and bias from ``U(-1/sqrt(hidden_size),
        1/sqrt(hidden_size))``, as PyTorch does."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self) -> None:
        """Does nothing: PyTorch packs the weights into one block for cuDNN,
        on a GPU only."""

    @property
    def _flat_weights(self) -> list[Tensor | None]:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction, as lists."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def _weights(self, index: int) -> Weights:
        """The parameters of layer-and-direction number ``index``."""
        named = {
            name.split("_l")[0]: getattr(self, name)
            for name in self._all_weights[index]
        }
        return Weights(
            named["weight_ih"],
            named["weight_hh"],
            named.get("bias_ih"),
            named.get("bias_hh"),
            named.get("weight_hr"),
        )

    # ------------------------------------------------------------------
    # Checking the arguments, as PyTorch does
    # ------------------------------------------------------------------

    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:
        """Refuses an input of the wrong dtype, rank or feature size."""
        weight = self._weights(0).w_ih
        if input.dtype != weight.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype "
                f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                f"convert model: model.to({input.dtype})"
            )
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(
                f"input must have {expected} dimensions, got {input.dim()}"
            )
        if self.input_size != input.size(-1):
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.size(-1)}"
            )

    def _state_sizes(self, mini_batch: int) -> list[tuple[int, int, int]]:
        """The shape of each initial state: ``h`` (and ``c`` for an LSTM)."""
        layers = self.num_layers * (2 if self.bidirectional else 1)
        sizes = [(layers, mini_batch, self.proj_size or self.hidden_size)]
        if self.mode == "LSTM":
            sizes.append((layers, mini_batch, self.hidden_size))
        return sizes

    def _check_state(self, state: State, mini_batch: int) -> None:
        """Refuses an initial state of the wrong shape."""
        expected = self._state_sizes(mini_batch)
        for number, (tensor, shape) in enumerate(zip(state, expected)):
            if tuple(tensor.shape) != shape:
                which = f"hidden[{number}]" if self.mode == "LSTM" else "hidden"
                raise RuntimeError(
                    f"Expected {which} size {shape}, got {list(tensor.shape)}"
                )

    def _check_state_dims(self, state: State, batched: bool) -> None:
        dims = 3 if batched else 2
        if all(s.dim() == dims for s in state):
            return
        kind = "batched 3-D" if batched else "unbatched 2-D"
        if self.mode == "LSTM":
            got = ", ".join(f"{s.dim()}-D" for s in state)
            raise RuntimeError(
                f"For {kind} input, hx and cx should also be {dims}-D but got "
                f"({got}) tensors"
            )
        raise RuntimeError(
            f"For {kind} input, hx should also be {dims}-D but got "
            f"{state[0].dim()}-D tensor"
        )

    # ------------------------------------------------------------------
    # Running
    # ------------------------------------------------------------------

    def _as_state(self, hx: Any) -> State | None:
        if hx is None:
            return None
        return tuple(hx) if self.mode == "LSTM" else (hx,)

    def _from_state(self, state: State) -> Any:
        return state if self.mode == "LSTM" else state[0]

    def forward(self, input: Any, hx: Any = None) -> tuple[Any, Any]:
        """Runs the layers over a sequence.

        Args:
            input: ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``),
                ``(L, H_in)`` for one unbatched sequence, or a
                :class:`PackedSequence`.
            hx: The initial state (zeros if None): ``h0`` of shape
                ``(D * num_layers, N, H_out)``, or ``(h0, c0)`` for an LSTM
                (without the ``N`` for an unbatched input).

        Returns:
            The output (``h`` of the last layer at every step, the directions
            joined; packed if the input was) and the final state.

        Raises:
            ValueError: For an input that is not 2-d or 3-d, or of another
                dtype than the weights.
            RuntimeError: For a wrong feature size, an initial state of the
                wrong shape, or an empty sequence.
        """
        state = self._as_state(hx)
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, state)
        if input.dim() not in (2, 3):
            tensor = " tensor" if self.mode.startswith("RNN") else ""
            name = "RNN" if self.mode.startswith("RNN") else self.mode
            raise ValueError(
                f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                f"{tensor} instead"
            )
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        if state is not None:
            self._check_state_dims(state, batched)
            if not batched:
                state = tuple(s.unsqueeze(1) for s in state)
        mini_batch = input.size(batch_dim)
        if state is None:
            state = self._zeros(input, mini_batch)
        self.check_input(input, None)
        self._check_state(state, mini_batch)
        if self.batch_first:
            input = input.transpose(0, 1)
        if input.size(0) == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        sizes = [mini_batch] * input.size(0)
        output, state = self._run_layers(input, sizes, state, packed=False)
        if self.batch_first and self._fused(input, packed=False):
            output = output.transpose(0, 1)
        elif self.batch_first:
            output = output.transpose_(0, 1)  # as PyTorch's CPU loop does
        if not batched:
            output = output.squeeze(batch_dim)
            state = tuple(s.squeeze(1) for s in state)
        return output, self._from_state(state)

    def _forward_packed(
        self, input: PackedSequence, state: State | None
    ) -> tuple[PackedSequence, Any]:
        data, batch_sizes, sorted_indices, unsorted_indices = input
        mini_batch = int(batch_sizes[0])
        if state is None:
            state = self._zeros(data, mini_batch)
        elif sorted_indices is not None:
            state = tuple(s.index_select(1, sorted_indices) for s in state)
        self.check_input(data, batch_sizes)
        self._check_state(state, mini_batch)
        sizes = [int(n) for n in batch_sizes.tolist()]
        output, state = self._run_layers(data, sizes, state, packed=True)
        if unsorted_indices is not None:
            state = tuple(s.index_select(1, unsorted_indices) for s in state)
        packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        return packed, self._from_state(state)

    def _zeros(self, input: Tensor, mini_batch: int) -> State:
        return tuple(
            zeros(*shape, dtype=input.dtype) for shape in self._state_sizes(mini_batch)
        )

    def _run_layers(
        self, input: Tensor, sizes: list[int], state: State, packed: bool
    ) -> tuple[Tensor, State]:
        """Every layer over the whole sequence, each reading the one below.

        ``input`` is ``(L, N, H_in)``, or a packed sequence's rows; ``state``
        holds one ``(N, H)`` slice per layer and direction.

        Under CPU autocast PyTorch runs an RNN or an LSTM (not a GRU, not a
        packed sequence) in the lower precision: its input, state and
        weights are cast first. A GRU, a packed sequence and the cells run
        their steps as any other code: each step's ``linear`` is cast.
        """
        weights = [self._weights(index) for index in range(len(self._all_weights))]
        if not packed and self.mode != "GRU":
            input = autocast_lower(input)
            state = tuple(autocast_lower(s) for s in state)
            weights = [Weights(*map(autocast_lower, w)) for w in weights]
        return self._layers(input, sizes, state, weights, packed)

    def _layers(
        self,
        input: Tensor,
        sizes: list[int],
        state: State,
        weights: list[Weights],
        packed: bool,
    ) -> tuple[Tensor, State]:
        directions = 2 if self.bidirectional else 1
        starts = [s.unbind(0) for s in state]
        finals: list[State] = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                start = tuple(s[index] for s in starts)
                run = (
                    self._run_fused
                    if self._fused(input, packed)
                    else self._run_direction
                )
                output, final = run(
                    input, sizes, start, weights[index], direction, packed
                )
                outputs.append(output)
                finals.append(final)
            input = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                input = F.dropout(input, self.dropout, True)
        joined = zip(*finals)
        return input, tuple(stack(list(parts), 0) for parts in joined)

    def _run_direction(
        self,
        input: Tensor,
        sizes: list[int],
        state: State,
        weights: Weights,
        direction: int,
        packed: bool,
    ) -> tuple[Tensor, State]:
        """One layer in one direction: the input's share of the gates for
        every step at once, then the loop; the steps' ``h`` joined."""
        input_gates = F.linear(input, weights.w_ih, weights.b_ih)
        if packed:
            offsets = [sum(sizes[:t]) for t in range(len(sizes))]
            steps = [input_gates[o : o + n] for o, n in zip(offsets, sizes)]
        else:
            steps = list(input_gates.unbind(0))
        run = run_backward if direction else run_forward
        outputs, final = run(STEPS[self.mode], steps, sizes, state, weights)
        return (cat(outputs, 0) if packed else stack(outputs, 0)), final

    def _fused(self, input: Tensor, packed: bool) -> bool:
        """Whether PyTorch records this layer as one ``MkldnnRnnLayer`` node:
        an LSTM without projections on a float32 (or bfloat16) sequence that
        is not packed (and grad mode on: otherwise there is no graph to
        show)."""
        return (
            self.mode == "LSTM"
            and self.proj_size == 0
            and input.dtype in (float32, bfloat16)
            and not packed
            and is_grad_enabled()
        )

    def _run_fused(
        self,
        input: Tensor,
        sizes: list[int],
        state: State,
        weights: Weights,
        direction: int,
        packed: bool,
    ) -> tuple[Tensor, State]:
        """:meth:`_run_direction` as one :class:`MkldnnRnnLayer` node."""

        def run(input: Tensor, weights: Weights, state: State) -> tuple[Tensor, State]:
            return self._run_direction(input, sizes, state, weights, direction, packed)

        w_ih, w_hh, b_ih, b_hh, _ = weights
        output, h, c = MkldnnRnnLayer.apply(
            input, w_ih, w_hh, b_ih, b_hh, *state, run=run
        )
        return output, (h, c)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text


def _check_settings(
    input_size: Any,
    hidden_size: Any,
    num_layers: int,
    bias: Any,
    batch_first: Any,
    dropout: Any,
    proj_size: int,
) -> None:
    """Refuses the settings PyTorch refuses, with its messages."""
    if (
        not isinstance(dropout, numbers.Number)
        or isinstance(dropout, bool)
        or not 0 <= dropout <= 1  # type: ignore[operator]
    ):
        raise ValueError(
            "dropout should be a number in range [0, 1] representing the "
            "probability of an element being zeroed"
        )
    if dropout > 0 and num_layers == 1:  # type: ignore[operator]
        warnings.warn(
            "dropout option adds dropout after all but last recurrent layer, so "
            "non-zero dropout expects num_layers greater than 1, but got "
            f"dropout={dropout} and num_layers={num_layers}",
            stacklevel=4,
        )
    for name, value, kind in (
        ("bias", bias, bool),
        ("batch_first", batch_first, bool),
        ("input_size", input_size, int),
    ):
        if not isinstance(value, kind):
            raise TypeError(
                f"{name} should be of type {kind.__name__}, got: {type(value).__name__}"
            )
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(
            f"hidden_size should be of type int, got: {type(hidden_size).__name__}"
        )
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError(
            "proj_size should be a positive integer or zero to disable projections"
        )
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


def _no_projection(kwargs: dict[str, Any]) -> None:
    if "proj_size" in kwargs:
        raise ValueError(
            "proj_size argument is only supported for LSTM, not RNN or GRU"
        )


class RNN(RNNBase):
    """Elman's recurrent layer: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1}
    W_hh^T + b_hh)`` (or ``relu``), for every step and layer.

    Args:
        input_size, hidden_size, num_layers, bias, batch_first, dropout,
        bidirectional: As in :class:`RNNBase`.
        nonlinearity: ``"tanh"`` (the default) or ``"relu"``.

    Raises:
        ValueError: For another nonlinearity, ``proj_size``, or a setting
            :class:`RNNBase` refuses.

    Example::

        >>> rnn = nn.RNN(10, 20, 2)
        >>> output, hn = rnn(torch.randn(5, 3, 10), torch.randn(2, 3, 20))
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _no_projection(kwargs)
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                "or 'relu'."
            )
        super().__init__(f"RNN_{self.nonlinearity.upper()}", *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory over a sequence (see :func:`lstm_step`).

    The state is a pair ``(h, c)``; with ``proj_size > 0``, ``h`` is
    projected down to ``proj_size`` features by ``weight_hr_l{k}``.

    Example::

        >>> lstm = nn.LSTM(10, 20, 2)
        >>> output, (hn, cn) = lstm(torch.randn(5, 3, 10))
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent units over a sequence (see :func:`gru_step`).

    Example::

        >>> gru = nn.GRU(10, 20, 2)
        >>> output, hn = gru(torch.randn(5, 3, 10))
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _no_projection(kwargs)
        super().__init__("GRU", *args, **kwargs)


# ----------------------------------------------------------------------
# The cells: one step, as modules
# ----------------------------------------------------------------------


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
