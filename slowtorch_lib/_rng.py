"""Random numbers: a small generator written out in full, and what is built on it.

The generator
-------------
A :class:`Generator` holds one 64-bit integer, its *state*. Each draw runs
the SplitMix64 recipe (Steele, Lea and Flood, 2014) in plain Python
integer arithmetic, kept to 64 bits with ``& MASK64``::

    state = (state + 0x9E3779B97F4A7C15) mod 2**64      # step by a fixed odd number
    z = state
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 mod 2**64  # then scramble the bits
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB mod 2**64
    z =  z ^ (z >> 31)                                   # z is the 64-bit output

The state walks through all 2**64 values before repeating; the scrambling
makes consecutive outputs look independent. Seeding sets the state to the
seed. Because only Python integers are involved, the same seed gives the
same numbers on every platform and every Python version.

The numbers are *not* PyTorch's: PyTorch uses another generator (a Mersenne
Twister). Code that seeds and draws runs the same way under both; only the
values differ.

From 64 random bits to the distributions
----------------------------------------
- **Uniform on [0, 1)**: the top 24 bits (float32) or 53 bits (float64) of
  an output, divided by ``2**24`` or ``2**53``. Every such number is exactly
  representable, so storing it never rounds it up to 1.
- **Uniform on [a, b)**: ``a + (b - a) * u``.
- **Normal** (Box–Muller): two uniforms ``u1``, ``u2`` give two independent
  standard normals ``r * cos(2 pi u2)`` and ``r * sin(2 pi u2)``, with
  ``r = sqrt(-2 log(1 - u1))``. A tensor with an odd number of elements
  drops the last one.
- **Complex numbers**, as PyTorch makes them: two draws per element, its
  real then its imaginary part. Uniform numbers have each part uniform;
  normal ones have each part normal with variance ``std**2 / 2`` (so
  ``randn`` has ``E|z|**2 = 1``) and ``mean`` added to both parts.
- **Integers in [low, high)** (rejection sampling): with ``n = high - low``,
  draw outputs until one falls below the largest multiple of ``n`` that
  fits in 64 bits, then take it modulo ``n``. Every integer is equally
  likely.
- **Coin flips** (Bernoulli with probability ``p``): 1 if a uniform number
  is below ``p``, else 0.
- **Categories** (``multinomial``): a uniform ``u`` times the total weight
  picks the first category whose running sum of weights passes it.
  Without replacement, a picked category's weight drops to 0 before the
  next draw.
- **Permutations** (Fisher–Yates): for ``i`` from ``n - 1`` down to 1, swap
  item ``i`` with a random item in ``[0, i]``.
"""

from __future__ import annotations

import math
import os
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import (
    DeviceArg,
    finish,
    like_input,
    size_arg,
)
from slowtorch_lib._dtype import dtype
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
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX_1 = 0xBF58476D1CE4E5B9
MIX_2 = 0x94D049BB133111EB

# PyTorch's seed for a new Generator().
DEFAULT_SEED = 67280421310721


class Generator:
    """A source of random numbers: SplitMix64 (see the module docstring).

    >>> g = Generator().manual_seed(0)
    >>> g.next_uint64() == Generator().manual_seed(0).next_uint64()
    True
    """

    def __init__(self, device: DeviceArg = "cpu") -> None:
        check_device(device)
        self._seed = DEFAULT_SEED
        self._state = DEFAULT_SEED

    @property
    def device(self) -> device:
        """Always the CPU."""
        return CPU

    def manual_seed(self, seed: Any) -> Generator:
        """Restarts the sequence from ``seed``; returns the generator.

        Any int from ``-2**63`` to ``2**64 - 1`` is a seed; a negative seed
        counts as ``seed + 2**64``, as in PyTorch.

        Raises:
            ValueError: If the seed is out of that range or not a number.
        """
        seed = int(seed)
        if not -(2**63) <= seed <= MASK64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & MASK64
        self._state = self._seed
        return self

    def seed(self) -> int:
        """Seeds from the operating system's randomness; returns the seed."""
        new_seed = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self) -> int:
        """The seed the current sequence started from."""
        return self._seed

    def get_state(self) -> Tensor:
        """The generator's state, to restore later with :meth:`set_state`.

        It is an int64 tensor ``[seed, state]`` (each 64-bit number stored as
        a signed int64). PyTorch's state is a uint8 tensor of another shape;
        only this library's own states can be restored here.
        """
        state = [_signed(self._seed), _signed(self._state)]
        return from_values(state, (2,), dtypes.int64)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restores a state saved by :meth:`get_state`.

        Raises:
            TypeError: If ``new_state`` is not such a tensor.
        """
        if not isinstance(new_state, Tensor):
            raise TypeError(
                f"expected a torch.ByteTensor, but got {type(new_state).__name__}"
            )
        if new_state.dtype is not dtypes.int64 or tuple(new_state.shape) != (2,):
            raise TypeError(
                "RNG state must be an int64 tensor of 2 elements, as returned "
                "by get_state()"
            )
        saved_seed, saved_state = new_state.tolist()
        self._seed = saved_seed & MASK64
        self._state = saved_state & MASK64
        return self

    def next_uint64(self) -> int:
        """One SplitMix64 step: the next 64 random bits, as an int."""
        self._state = (self._state + GOLDEN_GAMMA) & MASK64
        z = self._state
        z = ((z ^ (z >> 30)) * MIX_1) & MASK64
        z = ((z ^ (z >> 27)) * MIX_2) & MASK64
        return z ^ (z >> 31)


def _signed(value: int) -> int:
    """A 64-bit unsigned number as the int64 with the same bits."""
    return value - 2**64 if value >= 2**63 else value


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


def uniform_values(count: int, d: dtype, generator: Generator) -> list[float]:
    """``count`` uniform numbers in [0, 1), each with float32 or float64 resolution."""
    if d is dtypes.float32:
        shift, scale = 40, 2.0**-24
    else:
        shift, scale = 11, 2.0**-53
    return [(generator.next_uint64() >> shift) * scale for _ in range(count)]


def normal_values(count: int, generator: Generator) -> list[float]:
    """``count`` standard normal numbers, made in pairs by Box–Muller."""
    values = []
    for _ in range((count + 1) // 2):
        u1, u2 = uniform_values(2, dtypes.float64, generator)
        radius = math.sqrt(-2.0 * math.log(1.0 - u1))  # 1 - u1 is in (0, 1]
        angle = 2.0 * math.pi * u2
        values.append(radius * math.cos(angle))
        values.append(radius * math.sin(angle))
    return values[:count]


def integer_values(count: int, low: int, high: int, generator: Generator) -> list[int]:
    """``count`` integers, each equally likely to be any of ``low ... high - 1``."""
    n = high - low
    limit = 2**64 - 2**64 % n  # the largest multiple of n that fits in 64 bits
    values = []
    for _ in range(count):
        x = generator.next_uint64()
        while x >= limit:
            x = generator.next_uint64()
        values.append(low + x % n)
    return values


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
    return [low + (high - low) * u for u in uniform_values(count, d, g)]


def _normal(count: int, d: dtype, mean: float, std: float, g: Generator) -> list[Any]:
    """``count`` normal numbers of this mean and std, of dtype ``d``; a
    complex number has two normal parts, each of variance ``std**2 / 2``."""
    if d.is_complex:
        parts = _normal(2 * count, dtypes.COMPLEX_PARTS[d], mean, std / math.sqrt(2), g)
        return _paired(parts)
    return [mean + std * z for z in normal_values(count, g)]


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

    A complex dtype has both parts normal with variance 1/2, as in PyTorch
    (the numbers themselves differ from PyTorch's, as all of the engine's do).
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
    values = integer_values(numel(shape), low, high, _generator(generator))
    return finish(from_values(values, shape, dtype), requires_grad, device)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """The numbers ``0 ... n - 1`` in random order (Fisher–Yates)."""
    dtype = dtypes.dtype_arg(dtype, "randperm")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(
            f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    shape = size_arg("randperm", (n,))
    source = _generator(generator)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = integer_values(1, 0, i + 1, source)[0]
        order[i], order[j] = order[j], order[i]
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
    tensor._write_values(_uniform(tensor.numel(), tensor.dtype, from_, to, g))
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
    tensor._write_values(_normal(tensor.numel(), tensor.dtype, mean, std, g))
    return tensor


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
        return _flips(input, [p] * input.numel(), generator)


def _flips(input: Tensor, probabilities: list[Any], generator: Any) -> Tensor:
    """1 with each probability, else 0, in ``input``'s shape and dtype."""
    _check_probabilities(probabilities, "bernoulli")
    units = uniform_values(len(probabilities), dtypes.float64, _generator(generator))
    flips = [1.0 if u < q else 0.0 for u, q in zip(units, probabilities)]
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
    else:
        probabilities = [p] * tensor.numel()
    _check_probabilities(probabilities, "bernoulli_")
    tensor._check_inplace()
    units = uniform_values(len(probabilities), dtypes.float64, _generator(generator))
    tensor._write_values([1 if u < q else 0 for u, q in zip(units, probabilities)])
    return tensor


def _pick(weights: list[float], taken: set[int], generator: Generator) -> int:
    """A category drawn with probability proportional to its weight.

    Where every weight left is 0 (without replacement, when the nonzero
    ones are used up), the first category not ``taken`` yet is taken.
    """
    total = math.fsum(weights)
    if total <= 0:
        return min(set(range(len(weights))) - taken)
    target = uniform_values(1, dtypes.float64, generator)[0] * total
    running = 0.0
    last = 0
    for index, weight in enumerate(weights):
        if weight > 0:
            running += weight
            last = index
            if target < running:
                return index
    return last  # rounding left target at the very top


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
    samples: list[int] = []
    for row in rows:
        weights = [float(w) for w in row]
        taken: set[int] = set()
        for _ in range(num_samples):
            index = _pick(weights, taken, chooser)
            samples.append(index)
            if not replacement:
                weights[index] = 0.0
                taken.add(index)
    shape = (num_samples,) if input.dim() == 1 else (len(rows), num_samples)
    return from_values(samples, shape, dtypes.int64)
