"""Random numbers as PyTorch makes them on the CPU, and the tensors built on them.

The generator is PyTorch's: a Mersenne Twister seeded as ``manual_seed``
seeds it (:mod:`slowtorch_lib._mt19937`), and every distribution turns its
32-bit draws into numbers as PyTorch's CPU kernels do
(:mod:`slowtorch_lib._sampling`). So after ``manual_seed(s)`` the engine
draws the same numbers as PyTorch on an x86-64 machine, bit for bit:
``rand``, ``randn``, ``randint``, ``randperm``, the in-place samplers, the
layers' initialisation, dropout's mask and a loader's shuffled order.

Two exceptions, both PyTorch's own: on a machine with an Intel processor
PyTorch draws ``bernoulli_(p)`` with a number ``p`` (and so dropout's
mask) through Intel's MKL library, which this engine does not follow (it
gives the numbers PyTorch gives on other processors); and an ARM machine
takes another path for ``randn`` of 16 numbers or more.

A :class:`Generator`'s state (``get_state``) is a uint8 tensor of 5056
bytes laid out as PyTorch lays it out, so a state saved by one library
continues identically in the other.
"""

from __future__ import annotations

import math
import os
import struct
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib import _sampling
from slowtorch_lib._creation import (
    DeviceArg,
    finish,
    like_input,
    size_arg,
)
from slowtorch_lib._dtype import dtype
from slowtorch_lib._mt19937 import N as STATE_WORDS
from slowtorch_lib._sampling import DEFAULT_SEED, CPUGenerator
from slowtorch_lib._strides import broadcast_shapes, numel
from slowtorch_lib._tensor import CPU, Tensor, check_device, device, from_values
from slowtorch_lib._tensor_kernels import expanded_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import NoDerivative

__all__ = [
    "bernoulli",
    "default_generator",
    "Generator",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "multinomial",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
    "seed",
    "set_rng_state",
]

MASK64 = 2**64 - 1

# PyTorch's saved state (``CPUGeneratorImplState``), little-endian: the
# seed, ``left``, ``seeded``, ``next``, the 624 words (each in 64 bits),
# three doubles of which the second is the cached float64 normal, whether
# it is valid, then the cached float32 normal and whether it is valid.
STATE_LAYOUT = struct.Struct(f"<QiiQ{STATE_WORDS}Qdddi4xf?3x")


class Generator(CPUGenerator):
    """A source of random numbers: PyTorch's CPU generator.

    >>> g = Generator().manual_seed(0)
    >>> g.random() == Generator().manual_seed(0).random()
    True
    """

    def __init__(self, device: DeviceArg = "cpu") -> None:
        check_device(device)
        super().__init__(DEFAULT_SEED)

    @property
    def device(self) -> device:
        """Always the CPU."""
        return CPU

    def manual_seed(self, seed: Any) -> Generator:
        """Restarts the sequence from ``seed``; returns the generator.

        Any int from ``-2**63`` to ``2**64 - 1`` is a seed; a negative seed
        counts as ``seed + 2**64``, as in PyTorch. The twister uses the
        seed's low 32 bits; ``initial_seed()`` gives back all 64.

        Raises:
            ValueError: If the seed is out of that range or not a number.
        """
        seed = int(seed)
        if not -(2**63) <= seed <= MASK64:
            raise ValueError("Overflow when unpacking long long")
        self.set_current_seed(seed & MASK64)
        return self

    def seed(self) -> int:
        """Seeds from the operating system's randomness; returns the seed."""
        new_seed = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self) -> int:
        """The seed the current sequence started from."""
        return self.engine.seed

    def get_state(self) -> Tensor:
        """The generator's state: a uint8 tensor of 5056 bytes, as PyTorch's."""
        seed, left, next_index, words = self.engine.get_words()
        double_normal = self.next_double_normal
        float_normal = self.next_float_normal
        packed = STATE_LAYOUT.pack(
            seed,
            left,
            1,
            next_index,
            *words,
            0.0,
            0.0 if double_normal is None else double_normal,
            0.0,
            double_normal is not None,
            0.0 if float_normal is None else float_normal,
            float_normal is not None,
        )
        return from_values(list(packed), (len(packed),), dtypes.uint8)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restores a state saved by :meth:`get_state` (here or in PyTorch).

        Raises:
            TypeError: If ``new_state`` is not a uint8 tensor.
            RuntimeError: If it has the wrong size or an impossible state.
        """
        if not isinstance(new_state, Tensor):
            raise TypeError(
                f"expected a torch.ByteTensor, but got {type(new_state).__name__}"
            )
        if new_state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        size = new_state.numel()
        if size != STATE_LAYOUT.size:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_LAYOUT.size} but "
                f"found the input RNG state size to be {size}"
            )
        fields = STATE_LAYOUT.unpack(bytes(new_state.contiguous().tolist()))
        seed, left, seeded, next_index = fields[:4]
        words = [w & 0xFFFFFFFF for w in fields[4 : 4 + STATE_WORDS]]
        _, double_normal, _, double_valid, float_normal, float_valid = fields[
            4 + STATE_WORDS :
        ]
        next_index &= 0xFFFFFFFF
        if not (seeded & 0xFF and 0 < left <= STATE_WORDS and next_index <= 624):
            raise RuntimeError("Invalid mt19937 state")
        self.engine.set_words(seed, left, next_index, words)
        self.next_double_normal = double_normal if double_valid else None
        self.next_float_normal = float_normal if float_valid else None
        return self


default_generator = Generator()
default_generator.seed()  # as in PyTorch, every run starts from a fresh seed


def manual_seed(seed: Any) -> Generator:
    """Seeds the default generator, so later draws repeat from run to run."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seeds the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed of the default generator."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (see :meth:`Generator.get_state`)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restores the default generator's state."""
    default_generator.set_state(new_state)


# ----------------------------------------------------------------------
# Values from the generator
# ----------------------------------------------------------------------


def _generator(generator: Generator | None) -> Generator:
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(
            "expected a Generator for argument 'generator', "
            f"not {type(generator).__name__}"
        )
    return generator


def _kind(d: dtype) -> str:
    """The floating type whose rules a dtype's random numbers follow."""
    if d is dtypes.float64:
        return "float64"
    if d is dtypes.float16:
        return "float16"
    if d is dtypes.bfloat16:
        return "bfloat16"
    return "float32"


def uniform_values(
    count: int, d: dtype, generator: Generator, low: float = 0.0, high: float = 1.0
) -> list[float]:
    """``count`` uniform numbers in ``[low, high)`` for a tensor of dtype ``d``."""
    return _sampling.uniform(generator, count, _kind(d), low, high)


def normal_values(
    count: int,
    d: dtype,
    generator: Generator,
    mean: float = 0.0,
    std: float = 1.0,
    contiguous: bool = True,
) -> list[float]:
    """``count`` normal numbers for a tensor of dtype ``d``, on PyTorch's path."""
    return _sampling.normal(generator, count, _kind(d), mean, std, contiguous)


def _check_float(d: dtype, kernel: str) -> None:
    """Refuses an integer, bool or 8-bit float dtype, with PyTorch's message."""
    if not d.differentiable or d.float8:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{d.c_name}'")


def _uniform(count: int, d: dtype, low: float, high: float, g: Generator) -> list[Any]:
    """``count`` uniform numbers in ``[low, high)`` of dtype ``d``; a complex
    number has both parts so drawn."""
    if d.is_complex:
        parts = _uniform(2 * count, dtypes.COMPLEX_PARTS[d], low, high, g)
        return _paired(parts)
    return uniform_values(count, d, g, low, high)


def _normal(
    count: int,
    d: dtype,
    mean: float,
    std: float,
    g: Generator,
    contiguous: bool = True,
) -> list[Any]:
    """``count`` normal numbers of this mean and std, of dtype ``d``; a
    complex number has two normal parts, each of variance ``std**2 / 2``."""
    if d.is_complex:
        parts = _normal(2 * count, dtypes.COMPLEX_PARTS[d], mean, std / math.sqrt(2), g)
        return _paired(parts)
    return normal_values(count, d, g, mean, std, contiguous)


def _paired(parts: list[float]) -> list[complex]:
    """``[a, b, c, d]`` as ``[a + bj, c + dj]``."""
    return list(map(complex, parts[::2], parts[1::2]))


# ----------------------------------------------------------------------
# New random tensors
# ----------------------------------------------------------------------


def rand(
    *sizes: Any,
    size: Any = None,
    generator: Generator | None = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """Uniform random numbers in [0, 1): ``rand(2, 3)`` or ``rand((2, 3))``.

    A complex dtype has both parts in [0, 1).
    """
    dtype = dtypes.dtype_arg(dtype, "rand")
    shape = size_arg("rand", sizes, size)
    dtype = dtype or dtypes.get_default_dtype()
    _check_float(dtype, "check_uniform_bounds")
    values = _uniform(numel(shape), dtype, 0.0, 1.0, _generator(generator))
    return finish(from_values(values, shape, dtype), requires_grad, device)


def randn(
    *sizes: Any,
    size: Any = None,
    generator: Generator | None = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """Standard normal random numbers (mean 0, variance 1): ``randn(2, 3)``.

    A complex dtype has both parts normal with variance 1/2, as in PyTorch.
    """
    dtype = dtypes.dtype_arg(dtype, "randn")
    shape = size_arg("randn", sizes, size)
    dtype = dtype or dtypes.get_default_dtype()
    _check_float(dtype, "normal_kernel_cpu")
    values = _normal(numel(shape), dtype, 0.0, 1.0, _generator(generator))
    return finish(from_values(values, shape, dtype), requires_grad, device)


def randint(
    low: Any = 0,
    high: Any = None,
    size: Any = None,
    *,
    generator: Generator | None = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """Random integers in ``[low, high)``.

    Called as ``randint(high, size)`` or ``randint(low, high, size)``, like
    ``randint(10, (3,))`` or ``randint(3, 10, (3,))``.

    The dtype is int64 unless another is given.

    Raises:
        TypeError: If ``size`` is not a tuple, or a bound is not an int.
        RuntimeError: If ``low >= high``.
    """
    dtype = dtypes.dtype_arg(dtype, "randint")
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    if high is None:  # randint(high, size=...)
        low, high = 0, low
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            "randint(): argument 'size' (position 2) must be tuple of ints, "
            f"not {type(size).__name__}"
        )
    for name, bound in (("low", low), ("high", high)):
        if isinstance(bound, bool) or not isinstance(bound, int):
            raise TypeError(
                f"randint(): argument '{name}' must be int, not {type(bound).__name__}"
            )
        if not -(2**63) <= bound < 2**63:
            raise ValueError("Overflow when unpacking long long")
    if low >= high:
        raise RuntimeError(
            "random_ expects 'from' to be less than 'to', but got "
            f"from={low} >= to={high}"
        )
    shape = size_arg("randint", (size,))
    dtype = dtype or dtypes.int64
    if dtype.float8:
        raise NotImplementedError(
            f"\"random_update_from_to\" not implemented for '{dtype.c_name}'"
        )
    wide = dtype in (dtypes.int64, dtypes.float64, dtypes.float32, dtypes.bfloat16)
    g = _generator(generator)
    values = _sampling.random_from_to(g, numel(shape), low, high, wide)
    return finish(from_values(values, shape, dtype), requires_grad, device)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """The numbers ``0 ... n - 1`` in random order, as PyTorch shuffles them."""
    dtype = dtypes.dtype_arg(dtype, "randperm")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(
            f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    shape = size_arg("randperm", (n,))
    order = _sampling.randperm(_generator(generator), n)
    result = from_values(order, shape, dtype or dtypes.int64)
    return finish(result, requires_grad, device)


def rand_like(
    input: Tensor,
    *,
    generator: Generator | None = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """:func:`rand` with the shape (and by default the dtype) of ``input``."""
    dtype = dtypes.dtype_arg(dtype, "rand_like")
    input = like_input("rand_like", input)
    return rand(
        input._shape,
        generator=generator,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
    )


def randn_like(
    input: Tensor,
    *,
    generator: Generator | None = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """:func:`randn` with the shape (and by default the dtype) of ``input``."""
    dtype = dtypes.dtype_arg(dtype, "randn_like")
    input = like_input("randn_like", input)
    return randn(
        input._shape,
        generator=generator,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
    )


def randint_like(
    input: Tensor,
    low: Any = 0,
    high: Any = None,
    *,
    generator: Generator | None = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """:func:`randint` with the shape and dtype of ``input``.

    Called as ``randint_like(x, high)`` or ``randint_like(x, low, high)``.
    """
    dtype = dtypes.dtype_arg(dtype, "randint_like")
    input = like_input("randint_like", input)
    if high is None:
        low, high = 0, low
    return randint(
        low,
        high,
        input._shape,
        generator=generator,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
    )


# ----------------------------------------------------------------------
# Filling an existing tensor (Tensor.uniform_ and Tensor.normal_ call these)
# ----------------------------------------------------------------------


def uniform_(
    tensor: Tensor,
    from_: float = 0.0,
    to: float = 1.0,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """Fills ``tensor`` in place with uniform numbers in ``[from_, to)``.

    Raises:
        NotImplementedError: For an integer or bool tensor.
        RuntimeError: If ``from_ > to`` or a bound is not finite.
    """
    _check_float(tensor.dtype, "check_uniform_bounds")
    part = dtypes.COMPLEX_PARTS.get(tensor.dtype, tensor.dtype)
    for name, bound in (("from", from_), ("to", to)):
        if not math.isfinite(bound):
            raise RuntimeError(f"{name} is out of bounds for {part.cpp_type_name}")
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found "
            f"from={from_:g} > to={to:g}"
        )
    tensor._check_inplace()
    g = _generator(generator)
    values = _uniform(tensor.numel(), tensor.dtype, from_, to, g)
    tensor._write_values(_in_memory_order(tensor, values))
    return tensor


def normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """Fills ``tensor`` in place with normal numbers of this mean and std.

    Raises:
        NotImplementedError: For an integer or bool tensor.
        RuntimeError: If ``std`` is negative.
    """
    _check_float(tensor.dtype, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    tensor._check_inplace()
    g = _generator(generator)
    values = _normal(tensor.numel(), tensor.dtype, mean, std, g, tensor.is_contiguous())
    tensor._write_values(_in_memory_order(tensor, values))
    return tensor


def _memory_order(tensor: Tensor) -> list[int]:
    """The indices of ``tensor``'s elements (flat, row-major) by memory address.

    PyTorch's in-place samplers fill a tensor in the order its elements lie
    in memory; for a transposed or permuted tensor that is not the order of
    its indices.
    """
    offsets = [0]
    for size, stride in zip(tensor._shape, tensor.stride()):
        offsets = [o + i * stride for o in offsets for i in range(size)]
    return sorted(range(len(offsets)), key=offsets.__getitem__)


def _in_memory_order(tensor: Tensor, drawn: list[Any]) -> list[Any]:
    """``drawn[k]`` placed at the element ``k``-th in memory."""
    if tensor.is_contiguous():
        return drawn
    placed: list[Any] = [None] * len(drawn)
    for value, index in zip(drawn, _memory_order(tensor)):
        placed[index] = value
    return placed


def _check_probabilities(probabilities: list[float], function: str) -> None:
    for p in probabilities:
        if not 0.0 <= p <= 1.0:  # also refuses nan
            raise RuntimeError(f"{function} expects p to be in [0, 1], but got p={p:g}")


class Bernoulli(Function):
    """Coin flips with the probabilities in ``input``.

    The result is a step function of the probabilities, so the gradient is
    zero; PyTorch records the node all the same (``BernoulliBackward0``).
    """

    @staticmethod
    def forward(ctx: FunctionCtx, input: Tensor, *, generator: Any = None) -> Tensor:
        return _flips(input, input._values(), generator)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        size = grad_output.numel()
        return from_values([0.0] * size, grad_output._shape, grad_output.dtype)


class BernoulliWithP(NoDerivative):
    """Coin flips with one probability ``p``: PyTorch has no derivative."""

    grad_fn_name = "torch::autograd::NotImplemented"
    aten_name = "bernoulli"

    @staticmethod
    def forward(
        ctx: FunctionCtx, input: Tensor, *, p: float, generator: Any = None
    ) -> Tensor:
        _check_probabilities([p], "bernoulli")
        flips = _sampling.bernoulli(
            _generator(generator), [p] * input.numel(), "float64"
        )
        return from_values(flips, input._shape, input.dtype)


def _flips(input: Tensor, probabilities: list[Any], generator: Any) -> Tensor:
    """1 with each probability, else 0, in ``input``'s shape and dtype."""
    _check_probabilities(probabilities, "bernoulli")
    kind = "float64" if input.dtype is dtypes.float64 else "float32"
    flips = _sampling.bernoulli(_generator(generator), probabilities, kind)
    return from_values(flips, input._shape, input.dtype)


def bernoulli(
    input: Tensor, p: float | None = None, *, generator: Generator | None = None
) -> Tensor:
    """Coin flips: 1 with probability ``input[i]`` (or ``p``), else 0.

    The result has the shape and dtype of ``input``.

    Raises:
        NotImplementedError: For an integer or bool ``input``.
        RuntimeError: If a probability is outside [0, 1], or (with ``p``) in
            backward, as PyTorch has no derivative for it.
    """
    input = like_input("bernoulli", input)
    if input.dtype.is_complex:
        kernel = "bernoulli_tensor_cpu_self_" if p is None else "bernoulli_scalar_cpu_"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{input.dtype.c_name}'"
        )
    _check_float(input.dtype, "bernoulli_tensor_cpu_p_")
    if p is None:
        return Bernoulli.apply(input, generator=generator)
    return BernoulliWithP.apply(input, p=p, generator=generator)


def bernoulli_(
    tensor: Tensor, p: float | Tensor = 0.5, *, generator: Generator | None = None
) -> Tensor:
    """Fills ``tensor`` in place with coin flips of probability ``p``.

    ``p`` is a number or a tensor that broadcasts to ``tensor``'s shape.
    Any dtype works: the flips are stored as 0 and 1 (or False and True).
    """
    if tensor.dtype.is_complex:
        kernel = "tensor_cpu_self" if isinstance(p, Tensor) else "scalar_cpu"
        raise NotImplementedError(
            f"\"bernoulli_{kernel}_\" not implemented for '{tensor.dtype.c_name}'"
        )
    if isinstance(p, Tensor):
        if broadcast_shapes(p._shape, tensor._shape) != tensor._shape:
            raise RuntimeError(
                f"bernoulli_: p of shape {list(p._shape)} does not broadcast to "
                f"the shape {list(tensor._shape)} of the tensor"
            )
        probabilities = expanded_values(p, tensor._shape)
        kind = "float64" if p.dtype is dtypes.float64 else "float32"
    else:
        probabilities = [p] * tensor.numel()
        kind = "float64"
    _check_probabilities(probabilities, "bernoulli_")
    tensor._check_inplace()
    g = _generator(generator)
    if not tensor.is_contiguous():
        probabilities = [probabilities[i] for i in _memory_order(tensor)]
    flips = _sampling.bernoulli(g, probabilities, kind)
    tensor._write_values(_in_memory_order(tensor, flips))
    return tensor


def _check_multinomial(input: Tensor, num_samples: int, replacement: bool) -> None:
    """PyTorch's checks of ``multinomial``'s arguments, in PyTorch's order."""
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{input.dtype.c_name}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input._shape[-1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )


def multinomial(
    input: Tensor,
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """Draws ``num_samples`` category indices from each row of weights.

    ``input`` holds non-negative weights (they need not sum to 1), one row
    per distribution (1-d: one distribution). The result is int64, of shape
    ``(num_samples,)`` or ``(rows, num_samples)``. Without ``replacement``
    each category is drawn at most once per row.

    Raises:
        RuntimeError: For input that is not 1-d or 2-d, or not floating
            point; a weight that is negative, ``inf`` or ``nan``; a row that
            sums to 0; ``num_samples`` below 1, or more than the categories
            without replacement.
    """
    _check_multinomial(input, num_samples, replacement)
    chooser = _generator(generator)
    categories = input._shape[-1]
    values = input.contiguous()._values()
    rows = [values[i : i + categories] for i in range(0, len(values), categories)]
    for row in rows:
        if not all(0.0 <= w < math.inf for w in row):  # also refuses nan
            raise RuntimeError(
                "probability tensor contains either `inf`, `nan` or element < 0"
            )
        if math.fsum(row) <= 0:
            raise RuntimeError(
                "invalid multinomial distribution (sum of probabilities <= 0)"
            )
    weights = [[float(w) for w in row] for row in rows]
    kind = _kind(input.dtype)
    drawn = _sampling.multinomial(chooser, weights, num_samples, replacement, kind)
    samples = [index for row in drawn for index in row]
    shape = (num_samples,) if input.dim() == 1 else (len(rows), num_samples)
    return from_values(samples, shape, dtypes.int64)
