"""A differential fuzzer: random small programs, run on the engine and on torch.

A program is a few lines of Python over a module called ``torch``: it builds
leaf tensors from literals (special values included), takes views of them
(transposes, slices with steps, expands) and applies one to six operations
(pointwise, reductions, matrix products, views, joins, in-place ops, getitem
and setitem). The same text runs twice, once with ``torch`` bound to PyTorch
and once bound to ``slowtorch_lib``, one line at a time. After each line the
two runs must agree:

- both raise an exception of the same type, or both succeed;
- a line that raised left every tensor as it was (values, version, grad_fn);
- every variable has the same shape, dtype, values (with a tolerance per
  dtype; ``nan`` equals ``nan``), ``requires_grad`` and ``grad_fn`` name.

At the end, ``(out * W).sum().backward()`` runs for the last result that
requires grad, with a fixed random ``W``, and the gradients of every float
leaf must agree.

The generator is a deterministic function of the seed. It runs each line on
torch as it writes the program, so that it knows the shapes and dtypes it
can build on. Run many seeds by hand with::

    python -m tests.fuzz --seeds 0:5000

which prints the agreement rate and each disagreeing program. A disagreement
of a kind listed in ``KNOWN_DIFFERENCES`` (each with the reason the engine
differs) is counted apart, as known, not as a disagreement.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import slowtorch_lib

FLOATS = ("float32", "float64")
DTYPES = ("float32", "float64", "int64", "bool")
# The narrow dtypes, drawn for a leaf now and then (NARROW_WEIGHT of leaves).
HALF_FLOATS = ("float16", "bfloat16")
NARROW = (*HALF_FLOATS, "uint8", "int8", "int16", "int32")
NARROW_WEIGHT = 0.1
# The dtypes PyTorch has few kernels for: most operations on them raise,
# and both libraries must raise alike (LIMITED_WEIGHT of leaves).
UNSIGNED = ("uint16", "uint32", "uint64")
FLOAT8 = (
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
)
LIMITED = (*UNSIGNED, *FLOAT8)
LIMITED_WEIGHT = 0.04
# Complex leaves, a small share of them (plain values: no inf or nan).
COMPLEX = ("complex64", "complex128")
COMPLEX_WEIGHT = 0.02
COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}
SPECIAL_FLOATS = (
    "0.0",
    "-0.0",
    "inf",
    "-inf",
    "nan",
    "1e30",
    "-1e30",
    "1.0",
    "-1.0",
    "0.5",
    "1e-30",
    "2e19",
)
SPECIAL_INTS = ("0", "-1", "2**62", "2**63-1", "-2**63", "3", "7")
NARROW_SPECIAL_INTS = ("0", "-1", "127", "100", "-128", "3")  # fit every narrow type
INT64_MAX = 2**63 - 1
# Relative and absolute tolerances. float64 values often come from float32
# ones (``x.double()``), whose last bit may differ (sums in another order).
# float16 and bfloat16 keep 11 and 8 bits: a few units of their last place.
TOLERANCES = {
    "float32": (1e-4, 1e-5),
    "float64": (1e-5, 1e-8),
    "float16": (4e-3, 1e-3),
    "bfloat16": (3e-2, 1e-2),
    # One unit in the last place of each 8-bit float (products are rounded
    # once in torch's fused loops, and may be twice here).
    "float8_e4m3fn": (0.13, 1e-2),
    "float8_e4m3fnuz": (0.13, 1e-2),
    "float8_e5m2": (0.26, 1e-2),
    "float8_e5m2fnuz": (0.26, 1e-2),
    "float8_e8m0fnu": (1.0, 0.0),
}


# ----------------------------------------------------------------------
# Programs
# ----------------------------------------------------------------------


@dataclass
class Program:
    """A fuzz program: its lines, the leaves that get gradients, and ``out``."""

    seed: int
    lines: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(self.lines)


def _literal(rng: random.Random, dtype: str, count: int, special: bool) -> list[str]:
    """``count`` element literals for ``dtype`` (special values sometimes)."""
    out = []
    for _ in range(count):
        if dtype == "bool":
            out.append(rng.choice(("True", "False")))
        elif dtype in COMPLEX:
            real, imag = (round(rng.uniform(-3, 3), 2) for _ in range(2))
            out.append(repr(complex(real, imag)))
        elif dtype in UNSIGNED:
            out.append(str(rng.randint(0, 7)))
        elif dtype == "int64" or dtype in NARROW[2:]:
            if special and rng.random() < 0.2:
                wide = dtype == "int64"
                out.append(rng.choice(SPECIAL_INTS if wide else NARROW_SPECIAL_INTS))
            else:
                out.append(str(rng.randint(-4, 5)))
        elif special and rng.random() < 0.25:
            out.append(rng.choice(SPECIAL_FLOATS))
        else:
            out.append(repr(round(rng.uniform(-3, 3), 2)))
    return out


def _nested(items: list[str], shape: tuple[int, ...]) -> str:
    """The nested-list text of ``items`` in ``shape``."""
    if not shape:
        return items[0]
    if shape[0] == 0:
        return "[]"
    step = len(items) // shape[0] if shape[0] else 0
    parts = [
        _nested(items[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])
    ]
    return "[" + ", ".join(parts) + "]"


def _numel(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


class Generator:
    """Writes one program, running each line on torch to learn its results."""

    def __init__(self, seed: int, torch: ModuleType) -> None:
        self.rng = random.Random(seed)
        self.torch = torch
        self.program = Program(seed)
        self.space: dict[str, Any] = {"torch": torch, "inf": math.inf, "nan": math.nan}
        self.count = 0
        self.special = self.rng.random() < 0.4
        self.leaves: list[str] = []

    # -- bookkeeping ----------------------------------------------------
    def emit(self, line: str) -> str | None:
        """Appends ``line`` and runs it on torch; returns the new name, if any."""
        if "trunc" in line and self.holds_int64_min():
            return None  # torch dies of SIGFPE on -2**63 // -1 rounded to zero
        self.program.lines.append(line)
        try:
            with _quiet():
                exec(line, self.space)
        except Exception:
            return None
        name = line.split(" = ")[0] if " = " in line else None
        return name if name and name.isidentifier() else None

    def holds_int64_min(self) -> bool:
        for name in self.tensors("int64"):
            value = self.space[name]
            if value.numel() and bool((value == -(2**63)).any()):
                return True
        return False

    def fresh(self) -> str:
        self.count += 1
        return f"t{self.count}"

    def tensors(self, dtype: str | None = None) -> list[str]:
        torch = self.torch
        names = []
        for name, value in self.space.items():
            if isinstance(value, torch.Tensor) and (
                dtype is None or str(value.dtype) == f"torch.{dtype}"
            ):
                names.append(name)
        return names

    def meta(self, name: str) -> tuple[tuple[int, ...], str]:
        value = self.space[name]
        return tuple(value.shape), str(value.dtype).replace("torch.", "")

    # -- leaves and views -----------------------------------------------
    def shape(self) -> tuple[int, ...]:
        rng = self.rng
        rank = rng.choice((0, 1, 1, 2, 2, 2, 3, 3, 4))
        sizes = (0, 1, 1, 2, 2, 3, 3, 4)
        return tuple(rng.choice(sizes) for _ in range(rank))

    def leaf(
        self, shape: tuple[int, ...] | None = None, dtype: str | None = None
    ) -> str:
        rng = self.rng
        shape = self.shape() if shape is None else shape
        dtype = dtype or self.leaf_dtype()
        items = _literal(rng, dtype, _numel(shape), self.special)
        if _numel(shape) == 0:
            args = f"torch.zeros({list(shape)}, dtype=torch.{dtype})"
        else:
            args = f"torch.tensor({_nested(items, shape)}, dtype=torch.{dtype})"
        grad = dtype in FLOATS + HALF_FLOATS + COMPLEX and rng.random() < 0.75
        name = self.fresh()
        line = f"{name} = {args}"
        if grad:
            line += ".requires_grad_()"
            self.leaves.append(name)
        self.emit(line)
        return name

    def leaf_dtype(self) -> str:
        """Mostly float32; sometimes float64, int64, bool, a narrow dtype,
        one with few kernels (uint16 to uint64, the 8-bit floats) or a
        complex one."""
        rng = self.rng
        draw = rng.random()
        if draw < LIMITED_WEIGHT:
            return rng.choice(LIMITED)
        if draw < NARROW_WEIGHT:
            return rng.choice(NARROW)
        if draw < NARROW_WEIGHT + COMPLEX_WEIGHT:
            return rng.choice(COMPLEX)
        return rng.choice(("float32", "float32", "float64", "int64", "bool"))

    def view_of(self, name: str) -> str:
        """A non-contiguous view of ``name`` (or ``name`` itself)."""
        rng = self.rng
        shape, _ = self.meta(name)
        options = []
        if len(shape) >= 2:
            options += [".t()" if len(shape) == 2 else ".transpose(0, -1)", ".mT"]
            options.append(f".permute({', '.join(map(str, range(len(shape))[::-1]))})")
        if shape:
            options += ["[::2]", "[1:]", "[..., ::2]"]
        if 1 in shape:
            new = [rng.choice((1, 2, 3)) if s == 1 else s for s in shape]
            options.append(f".expand({', '.join(map(str, new))})")
        options.append(".unsqueeze(0).expand(2, *" + f"{name}.shape)")
        suffix = rng.choice(options)
        return self.emit(f"{self.fresh()} = {name}{suffix}") or name

    def operand(self, dtype: str | None = None) -> str:
        """An existing tensor (sometimes a fresh view of one) or a new leaf."""
        rng = self.rng
        names = self.tensors(dtype)
        if not names or rng.random() < 0.15:
            return self.leaf(dtype=dtype)
        name = rng.choice(names[-4:] if rng.random() < 0.7 else names)
        if rng.random() < 0.25:
            name = self.view_of(name)
        return name

    def partner(self, name: str) -> str:
        """A tensor that broadcasts with ``name`` (or a Python scalar)."""
        rng = self.rng
        shape, dtype = self.meta(name)
        roll = rng.random()
        if roll < 0.25:
            return self.scalar(dtype)
        if roll < 0.4:
            others = [
                n
                for n in self.tensors()
                if n != name and _broadcasts(self.meta(n)[0], shape)
            ]
            if others:
                return rng.choice(others)
        new = list(shape[rng.randint(0, len(shape)) :]) if shape else []
        new = [1 if rng.random() < 0.3 else s for s in new]
        if rng.random() < 0.15:
            new = [rng.choice((1, 2))] + new
        other_dtype = dtype if rng.random() < 0.6 else rng.choice(DTYPES)
        return self.leaf(tuple(new), other_dtype)

    def scalar(self, dtype: str = "float32") -> str:
        rng = self.rng
        pool = ["2", "-1", "0", "3", "0.5", "-1.5", "2.0", "True", "False"]
        if self.special:
            pool += [
                "inf",
                "-inf",
                "nan",
                "1e30",
                "-0.0",
                "0.0",
                "2**62",
                "100",
                "1e300",
            ]
        return rng.choice(pool)

    # -- operations -----------------------------------------------------
    def step(self) -> None:
        rng = self.rng
        kind = rng.choices(
            (
                "unary",
                "binary",
                "reduce",
                "linalg",
                "view",
                "inplace",
                "index",
                "join",
                "window",
            ),
            weights=(22, 26, 14, 7, 9, 12, 8, 2, 4),
        )[0]
        getattr(self, "op_" + kind)()

    def op_window(self) -> None:
        """Windows of a fresh float image: a strided view, a convolution or a
        pooling (the other operations never make 4-d float images)."""
        rng = self.rng
        dtype = rng.choice(("float32", "float64"))
        n, c = rng.choice((1, 2)), rng.choice((1, 2))
        h, w = rng.randint(3, 5), rng.randint(3, 5)
        # Ordinary numbers: torch sums float32 products in float32, in its own
        # order, so 1e30 and inf would make the two disagree by rounding.
        special, self.special = self.special, False
        x = self.leaf((n, c, h, w), dtype)
        k = rng.choice((1, 2, 3))
        step, pad = rng.choice((1, 2)), rng.choice((0, 1))
        F = "torch.nn.functional"
        kinds = ("unfold", "as_strided", "conv2d", "conv1d", "max", "avg", "im2col")
        kind = rng.choice((*kinds, "other"))
        if kind == "unfold":
            line = f"{x}.unfold({rng.randint(0, 3)}, {k}, {step})"
        elif kind == "as_strided":
            line = f"{x}.clone().as_strided(({h - k + 1}, {k}), ({w}, {step}))"
        elif kind == "conv2d":
            weight = self.leaf((rng.choice((1, 3)), c, k, k), dtype)
            line = f"{F}.conv2d({x}, {weight}, stride={step}, padding={pad})"
        elif kind == "conv1d":
            weight = self.leaf((2, c, k), dtype)
            line = f"{F}.conv1d({x}.flatten(2), {weight}, dilation={step})"
        elif kind == "max":
            ceil = rng.choice((True, False))
            line = f"{F}.max_pool2d({x}, {k}, {step}, {k // 2}, ceil_mode={ceil})"
        elif kind == "avg":
            line = f"{F}.avg_pool2d({x}, {k}, {step}, {k // 2})"
        elif kind == "im2col":
            line = f"{F}.unfold({x}, {k}, padding={pad}, stride={step})"
        else:
            line = rng.choice(
                (
                    f"{F}.adaptive_avg_pool2d({x}, 2)",
                    f"{F}.adaptive_max_pool2d({x}, (2, 1))",
                    f"{F}.interpolate({x}, scale_factor=2)",
                    f"{F}.pad({x}, (1, 0, 1, 1), mode='circular')",
                )
            )
        self.special = special
        self.emit(f"{self.fresh()} = {line}")

    def op_unary(self) -> None:
        rng = self.rng
        x = self.operand()
        method = rng.choice(
            (
                "neg()",
                "abs()",
                "exp()",
                "log()",
                "sqrt()",
                "sin()",
                "cos()",
                "tanh()",
                "sigmoid()",
                "relu()",
                "reciprocal()",
                "rsqrt()",
                "square()",
                "log10()",
                "log2()",
                "exp2()",
                "expm1()",
                "sinh()",
                "cosh()",
                "tan()",
                "asin()",
                "atan()",
                "roll(1)",
                "clamp(min={a})",
                "clamp(max={a})",
                "clamp({a}, {b})",
                "clamp_min({a})",
                "clamp_max({a})",
                "logical_not()",
                "isnan()",
                "bitwise_not()",
                "clone()",
                "float()",
                "double()",
                "long()",
                "bool()",
                "to(torch.float64)",
                "contiguous()",
            )
        )
        a, b = sorted(rng.choice((-1.0, 0.0, 0.5, 1.0, 2, 0, -2)) for _ in range(2))
        if self.special and rng.random() < 0.3:
            a = rng.choice(("nan", "1e300", "-inf"))
        text = method.format(a=a, b=b)
        fn = rng.random() < 0.2 and "(" in text and text.endswith("()")
        if fn and text.split("(")[0] in (
            "neg",
            "abs",
            "exp",
            "log",
            "sqrt",
            "sin",
            "cos",
            "tanh",
            "sigmoid",
            "relu",
            "log10",
            "expm1",
            "acos",
        ):
            self.emit(f"{self.fresh()} = torch.{text[:-2]}({x})")
        else:
            self.emit(f"{self.fresh()} = {x}.{text}")

    def op_binary(self) -> None:
        rng = self.rng
        x = self.operand()
        y = self.partner(x)
        form = rng.choice(
            (
                "{x} + {y}",
                "{x} - {y}",
                "{x} * {y}",
                "{x} / {y}",
                "{x} // {y}",
                "{x} % {y}",
                "{x} ** {y}",
                "torch.atan2({x}, {y})",
                "{x}.hypot({y})",
                "{y} + {x}",
                "{y} - {x}",
                "{y} * {x}",
                "{y} / {x}",
                "{y} ** {x}",
                "{y} // {x}",
                "{y} % {x}",
                "torch.add({x}, {y}, alpha={alpha})",
                "torch.sub({x}, {y}, alpha={alpha})",
                "torch.mul({x}, {y})",
                "torch.div({x}, {y}, rounding_mode='floor')",
                "torch.div({x}, {y}, rounding_mode='trunc')",
                "torch.pow({x}, {y})",
                "torch.maximum({x}, {y})",
                "torch.minimum({x}, {y})",
                "{x} == {y}",
                "{x} < {y}",
                "{x} >= {y}",
                "{x} != {y}",
                "torch.logical_and({x}, {y})",
                "torch.logical_or({x}, {y})",
                "torch.logical_xor({x}, {y})",
                "{x} & {y}",
                "{x} | {y}",
                "{x} ^ {y}",
                "torch.where({x} > 0, {x}, {y})",
                "torch.remainder({x}, {y})",
                "torch.floor_divide({x}, {y})",
                "torch.clamp({x}, min={y})",
                "{x}.masked_fill({y} > 0, {s})",
                "torch.where({x} > 0, {s}, {y})",
                "torch.where({y} > 0, {x}, {s})",
                "{x}.remainder({y})",
                "torch.sign({x}) * {y}",
            )
        )
        alpha = rng.choice((2, 0.5, -1, 1))
        line = form.format(x=x, y=y, alpha=alpha, s=self.scalar())
        self.emit(f"{self.fresh()} = {line}")

    def op_reduce(self) -> None:
        rng = self.rng
        x = self.operand()
        shape, _ = self.meta(x)
        rank = len(shape)
        dim = rng.randint(-rank, rank - 1) if rank else rng.choice((0, -1))
        keep = rng.choice(("", ", keepdim=True", ", keepdims=True"))
        method = rng.choice(
            (
                "sum()",
                "sum({d}{k})",
                "sum(({d}, 0){k})",
                "mean()",
                "mean({d}{k})",
                "prod()",
                "prod({d}{k})",
                "max()",
                "max({d}{k})[0]",
                "max({d}{k})[1]",
                "min()",
                "min({d}{k})[0]",
                "amax({d}{k})",
                "amin()",
                "amin({d}{k})",
                "argmax()",
                "argmax({d}{k})",
                "argmin({d})",
                "var()",
                "var({d}{k})",
                "std()",
                "std({d}, correction={c}{k})",
                "var(correction={c})",
                "all()",
                "any({d}{k})",
                "sum(dtype=torch.int64)",
                "norm()",
                "norm(1, {d}{k})",
                "cumprod({d})",
            )
        )
        c = rng.choice((0, 1, 2, 5))
        self.emit(f"{self.fresh()} = {x}.{method.format(d=dim, k=keep, c=c)}")

    def op_linalg(self) -> None:
        rng = self.rng
        dtype = rng.choice(("float32", "float32", "float64", "int64", "bool"))
        n, k, m = (rng.choice((0, 1, 2, 3)) for _ in range(3))
        batch = rng.choice(((), (), (2,), (1,), (2, 1), (0,)))
        form = rng.choice(("mm", "matmul", "bmm", "mv", "dot", "@", "outer"))
        if form in ("mm", "matmul", "@"):
            a = self.leaf(batch + (n, k) if form != "mm" else (n, k), dtype)
            b = self.leaf((k, m) if rng.random() < 0.5 else batch + (k, m), dtype)
        elif form == "bmm":
            a = self.leaf((2, n, k), dtype)
            b = self.leaf((2, k, m), dtype)
        elif form == "mv":
            a = self.leaf((n, k), dtype)
            b = self.leaf((k,), dtype)
        else:
            a = self.leaf((k,), dtype)
            b = self.leaf((k if form == "dot" else m,), dtype)
        if rng.random() < 0.3:
            a = self.view_of(a)
        if form == "@":
            self.emit(f"{self.fresh()} = {a} @ {b}")
        else:
            self.emit(f"{self.fresh()} = torch.{form}({a}, {b})")

    def op_view(self) -> None:
        rng = self.rng
        x = self.operand()
        shape, _ = self.meta(x)
        rank = len(shape)
        dim = rng.randint(-rank, rank - 1) if rank else 0
        size = shape[dim] if rank else 1
        options = [
            "reshape(-1)",
            "view(-1)",
            "flatten()",
            "unsqueeze({d})",
            "squeeze()",
            "squeeze({d})",
            "t()" if rank <= 2 else "mT",
            "mT",
            "T",
            "transpose({d}, 0)",
            "narrow({d}, 0, {n})",
            "select({d}, 0)",
            "split(1, {d})[0]",
            "chunk(2, {d})[-1]",
            "unbind({d})[0]",
            "expand(2, *{x}.shape)",
            "permute()",
            "permute(*range({r}))[::-1]",
            "contiguous()",
            "view(*{x}.shape[::-1])",
        ]
        line = rng.choice(options).format(d=dim, n=min(size, 1), x=x, r=rank)
        self.emit(f"{self.fresh()} = {x}.{line}")

    def op_inplace(self) -> None:
        rng = self.rng
        names = [n for n in self.tensors() if n not in self.leaves]
        if not names or rng.random() < 0.2:
            self.op_unary()
            names = [n for n in self.tensors() if n not in self.leaves] or [
                self.operand()
            ]
        x = rng.choice(names[-3:])
        if rng.random() < 0.2:
            x = self.view_of(x)
        y = self.partner(x)
        form = rng.choice(
            (
                "{x}.add_({y})",
                "{x}.sub_({y})",
                "{x}.mul_({y})",
                "{x}.div_({y})",
                "{x}.pow_({y})",
                "{x}.neg_()",
                "{x}.exp_()",
                "{x}.log2_()",
                "{x}.atan2_({y})",
                "{x}.sqrt_()",
                "{x}.relu_()",
                "{x}.clamp_({a}, {b})",
                "{x}.clamp_(min={s})",
                "{x}.fill_({s})",
                "{x}.zero_()",
                "{x}.masked_fill_({y} > 0, {s})",
                "{x}.copy_({y})",
                "{x} += {y}",
                "{x} -= {y}",
                "{x} *= {y}",
                "{x} /= {y}",
                "{x} //= {y}",
                "{x} %= {y}",
                "{x} &= {y}",
                "{x} |= {y}",
                "{x} ^= {y}",
                "{x} **= {y}",
                "{x}.add_({y}, alpha={s})",
            )
        )
        a, b = sorted(rng.choice((-1.0, 0.0, 1.0, 0.5)) for _ in range(2))
        self.emit(form.format(x=x, y=y, a=a, b=b, s=self.scalar()))
        if rng.random() < 0.5:
            self.emit(f"{self.fresh()} = {x} * 1")

    def op_index(self) -> None:
        rng = self.rng
        x = self.operand()
        shape, dtype = self.meta(x)
        rank = len(shape)
        first = shape[0] if rank else 0
        keys = [
            "0",
            "-1",
            "1",
            "..., 0",
            "::2",
            "1:",
            "None",
            "True",
            "False",
            "[0, -1]",
            "[[0], [0]]",
            "[True] * " + str(first),
            f"{x} > 0" if dtype != "bool" else x,
            "..., None",
            "'a'",
            "0.5",
            "(0, 0)",
            ":, 1",
            "torch.tensor([0, 0])",
            "torch.tensor(0)",
            "[]",
        ]
        key = rng.choice(keys)
        if rng.random() < 0.5:
            self.emit(f"{self.fresh()} = {x}[{key}]")
        else:
            if x in self.leaves and rng.random() < 0.7:
                self.emit(f"{self.fresh()} = {x} * 1")
                x = f"t{self.count}"
            value = self.scalar() if rng.random() < 0.6 else self.partner(x)
            self.emit(f"{x}[{key}] = {value}")
            if rng.random() < 0.5:
                self.emit(f"{self.fresh()} = {x} + 0")

    def op_join(self) -> None:
        rng = self.rng
        x = self.operand()
        shape, dtype = self.meta(x)
        y = self.leaf(shape, rng.choice((dtype, dtype, "float64")))
        fn = rng.choice(("cat", "stack"))
        dim = rng.randint(-len(shape) - 1, max(len(shape) - 1, 0))
        self.emit(f"{self.fresh()} = torch.{fn}([{x}, {y}], {dim})")


def _broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    for x, y in zip(a[::-1], b[::-1]):
        if x != y and 1 not in (x, y):
            return False
    return True


def generate(seed: int, torch: ModuleType | None = None) -> Program:
    """The program for ``seed``: leaves, then one to six operations."""
    if torch is None:
        import torch as torch_module

        torch = torch_module
    gen = Generator(seed, torch)
    for _ in range(gen.rng.randint(1, 2)):
        gen.leaf()
    if gen.rng.random() < 0.3 and gen.tensors():
        gen.view_of(gen.tensors()[-1])
    for _ in range(gen.rng.randint(1, 6)):
        gen.step()
    wanted = [
        n
        for n in gen.tensors()
        if gen.space[n].requires_grad and gen.space[n].dtype.is_floating_point
    ]
    if wanted:
        out = wanted[-1]
        shape, dtype = gen.meta(out)
        items = [repr(round(gen.rng.uniform(-2, 2), 2)) for _ in range(_numel(shape))]
        if _numel(shape) == 0:
            w = f"torch.zeros({list(shape)}, dtype=torch.{dtype})"
        else:
            w = f"torch.tensor({_nested(items, shape)}, dtype=torch.{dtype})"
        gen.program.lines.append(f"W = {w}")
        gen.program.lines.append(f"({out} * W).sum().backward()")
        for leaf in gen.leaves:
            gen.program.lines.append(f"{leaf}_grad = {leaf}.grad")
    return gen.program


# ----------------------------------------------------------------------
# Known differences
# ----------------------------------------------------------------------


@dataclass(frozen=True)
class KnownDifference:
    """A kind of program on which the engine differs from torch, and why.

    ``pattern`` is a regular expression searched in the disagreement as
    :func:`check` reports it: ``line N: <the line>``, a newline, then what
    differs.
    """

    name: str
    reason: str
    pattern: str


KNOWN_DIFFERENCES = (
    KnownDifference(
        "integer tensor put in the graph",
        "torch's generated autograd code for fill_, index_put_ and masked_fill_ "
        "(x[i] = v, x[mask] = v) does not check the dtype of the written-to "
        "tensor, so writing a value that requires grad into an int64 or bool "
        "(or other integer) tensor makes it require grad (copy_ checks, and "
        "does not); the engine "
        "keeps integer tensors out of the graph, as copy_ does.",
        r"requires_grad False != True \((u?int(8|16|32|64)|bool)\)",
    ),
    KnownDifference(
        "matmul folded and transposed",
        "for two batched operands, one of batch size 1, torch 2.13's matmul may "
        "fold the batch into one mm and transpose the result back, depending on "
        "which operand requires grad, so the result's grad_fn is "
        "TransposeBackward0, or CloneBackward0 where it then makes that result "
        "contiguous; the engine uses bmm (UnsafeViewBackward0). Values "
        "and gradients agree.",
        r"(@|matmul).*\n.*grad_fn UnsafeViewBackward0 != "
        r"(TransposeBackward0|CloneBackward0)",
    ),
    KnownDifference(
        "layout of a permuted input kept",
        "torch's pointwise results take the memory layout of a permuted input "
        "(TensorIterator orders the output's strides like the inputs'); the "
        "engine's results are always row-major, so a later view() that torch "
        "refuses succeeds (or one that torch allows, on a transpose of the "
        "result, fails), flatten() is a view where torch copies "
        "(UnsafeViewBackward0), and contiguous() returns the tensor itself where "
        "torch clones it (or clones where torch, whose transposed result is "
        "contiguous, returns it), so a later fill_ of the base shows through the "
        "engine's result only. Values and gradients agree otherwise.",
        r"(\.view\(.*\n.*(torch|engine) raises RuntimeError: view size is not "
        r"compatible"
        r"|\.(flatten|reshape)\(.*\n.*grad_fn ViewBackward0 != UnsafeViewBackward0"
        r"|\.contiguous\(\).*\n.*grad_fn (\w+ != CloneBackward0|CloneBackward0 != \w+)"
        # the engine's values are all the filled-in value, torch's are not
        r"|\.fill_\((?P<v>[^)]+)\)\n\s+\w+: values \w+\[[\d, ]*\] "
        r"(\[*(?P=v)\]*, )*\[*(?P=v)\]* != )",
    ),
    KnownDifference(
        "history of one of several views after its base changed",
        "after an in-place change of the base of a view returned by split, "
        "chunk or unbind, torch raises when that view's grad_fn is read; the "
        "engine gives the view a new AsStridedBackward0 history.",
        r"grad_fn AsStridedBackward0 != RuntimeError",
    ),
    KnownDifference(
        "float32 rounding of intermediate results",
        "the engine adds and multiplies float32 values in double precision and "
        "rounds once; torch rounds every step to float32, in its own order. "
        "They differ where an intermediate overflows float32 (2e19 * 2e19 is "
        "inf in torch) or where values of 1e30 cancel in a sum.",
        r"(@|matmul|mm\(|mv\(|dot\(|\.(sum|mean|var|std|prod)\().*\n"
        r"\s+\w+: values float32",
    ),
    KnownDifference(
        "remainder of an input rounded differently",
        "remainder(a, b) keeps the absolute rounding error of a while making "
        "the value small: where a differs from torch's in its last bit (a "
        "float32 product rounded once rather than per step, or a var of values "
        "near 1e19 summed in another order), the remainder differs by far more "
        "than the comparison's relative tolerance.",
        r"remainder\(.*\n\s+\w+: values float(32|64)\[",
    ),
    KnownDifference(
        "nan or inf in a gradient",
        "where a gradient meets 0 * inf or inf - inf, whether it ends as nan or "
        "inf depends on the exact form and order of torch's derivative formulas "
        "(var's backward, for one), which the engine does not copy term by term.",
        r"_grad = .*\n\s+\w+_grad: values .*\b(nan|inf)\b",
    ),
)


def known_difference(why: str) -> KnownDifference | None:
    """The kind in ``KNOWN_DIFFERENCES`` that disagreement ``why`` is, if any."""
    for kind in KNOWN_DIFFERENCES:
        if re.search(kind.pattern, why):
            return kind
    return None


# ----------------------------------------------------------------------
# Running and comparing
# ----------------------------------------------------------------------


class Timeout(Exception):
    """A line ran for too long (a hang in the engine)."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    if not hasattr(signal, "setitimer"):
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise Timeout(f"line ran longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextmanager
def _quiet() -> Iterator[None]:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _error_kind(error: BaseException) -> str:
    """The builtin exception class an error is (torch's own classes map to it)."""
    for cls in type(error).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    return type(error).__name__


def _grad_fn_name(t: Any) -> str | None:
    try:
        node = t.grad_fn
    except RuntimeError as error:  # a multi-output view changed in place
        return _error_kind(error)
    return None if node is None else node.name()


def _state(t: Any) -> tuple[Any, ...]:
    """What a failed line must not change about tensor ``t``."""
    return (
        tuple(t.shape),
        str(t.dtype),
        _flat(t.detach().tolist()),
        t._version,
        _grad_fn_name(t),
        t.requires_grad,
    )


def _flat(values: Any) -> list[Any]:
    if not isinstance(values, list):
        return [values]
    out: list[Any] = []
    for v in values:
        out.extend(_flat(v))
    return out


def _close(a: Any, b: Any, dtype: str) -> bool:
    if dtype in COMPLEX_PARTS:
        part = COMPLEX_PARTS[dtype]
        return _close(a.real, b.real, part) and _close(a.imag, b.imag, part)
    if dtype not in TOLERANCES:
        return bool(a == b) and type(a) is type(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    rtol, atol = TOLERANCES[dtype]
    return abs(a - b) <= atol + rtol * abs(b)


def _describe(value: Any) -> str:
    if hasattr(value, "shape"):
        dtype = str(value.dtype).replace("torch.", "")
        return f"{dtype}{list(value.shape)} {value.detach().tolist()}"
    return repr(value)


def compare_values(ours: Any, theirs: Any, torch: ModuleType) -> str | None:
    """Why ``ours`` (engine) and ``theirs`` (torch) differ, or None."""
    if isinstance(theirs, torch.Tensor):
        if not isinstance(ours, slowtorch_lib.Tensor):
            return f"engine gave {type(ours).__name__}, torch a tensor"
        if tuple(ours.shape) != tuple(theirs.shape):
            return f"shape {list(ours.shape)} != {list(theirs.shape)}"
        dtype = str(theirs.dtype).replace("torch.", "")
        if ours.dtype.name != dtype:
            return f"dtype {ours.dtype.name} != {dtype}"
        mine, real = _flat(ours.detach().tolist()), _flat(theirs.detach().tolist())
        for a, b in zip(mine, real):
            if not _close(a, b, dtype):
                return f"values {_describe(ours)} != {_describe(theirs)}"
        if ours.requires_grad != theirs.requires_grad:
            return (
                f"requires_grad {ours.requires_grad} != {theirs.requires_grad} "
                f"({dtype})"
            )
        if _grad_fn_name(ours) != _grad_fn_name(theirs):
            return f"grad_fn {_grad_fn_name(ours)} != {_grad_fn_name(theirs)}"
        return None
    if isinstance(theirs, (tuple, list)):
        if not isinstance(ours, (tuple, list)) or len(ours) != len(theirs):
            return f"{ours!r} != {theirs!r}"
        for a, b in zip(ours, theirs):
            why = compare_values(a, b, torch)
            if why:
                return why
        return None
    if isinstance(ours, slowtorch_lib.Tensor):
        return f"engine gave a tensor, torch {type(theirs).__name__}"
    if theirs is None or isinstance(theirs, (int, float, bool, str)):
        if isinstance(theirs, float) and isinstance(ours, float):
            return None if _close(ours, theirs, "float64") else f"{ours} != {theirs}"
        return None if ours == theirs else f"{ours!r} != {theirs!r}"
    return None


def _run_line(line: str, space: dict[str, Any], limit: float) -> BaseException | None:
    try:
        with _quiet(), _time_limit(limit):
            exec(line, space)
    except Exception as error:  # noqa: BLE001  (any error is a result to compare)
        return error
    return None


def check(program: Program, torch: ModuleType, limit: float = 5.0) -> str | None:
    """Runs ``program`` on both libraries; the first disagreement, or None."""
    spaces = {
        name: {"torch": module, "inf": math.inf, "nan": math.nan}
        for name, module in (("engine", slowtorch_lib), ("torch", torch))
    }
    ours, theirs = spaces["engine"], spaces["torch"]
    for number, line in enumerate(program.lines, 1):
        before = {
            k: _state(v) for k, v in ours.items() if isinstance(v, slowtorch_lib.Tensor)
        }
        before_torch = {
            k: _state(v) for k, v in theirs.items() if isinstance(v, torch.Tensor)
        }
        error = _run_line(line, ours, limit)
        real_error = _run_line(line, theirs, limit)
        where = f"line {number}: {line}\n   "
        if real_error is not None and "INTERNAL ASSERT" in str(real_error):
            return None  # a bug of torch's own: nothing to compare with
        if isinstance(error, Timeout):
            return where + "engine hangs"
        if (error is None) != (real_error is None):
            if error is None:
                return (
                    where
                    + f"torch raises {_error_kind(real_error)}: "
                    + str(real_error).split("\n")[0][:200]
                    + "; the engine does not"
                )
            return (
                where
                + f"engine raises {type(error).__name__}: "
                + str(error).split("\n")[0][:200]
                + "; torch does not"
            )
        if error is not None:
            if _error_kind(error) != _error_kind(real_error):
                return where + (
                    f"engine raises {type(error).__name__} ({str(error)[:120]}), "
                    f"torch {_error_kind(real_error)} ({str(real_error)[:120]})"
                )
            for k, state in before.items():
                unchanged_in_torch = (
                    k in before_torch and _state(theirs[k]) == before_torch[k]
                )
                if unchanged_in_torch and _state(ours[k]) != state:
                    return where + f"the failed line changed {k}"
            torch_changed = any(
                k in theirs and _state(theirs[k]) != state
                for k, state in before_torch.items()
            )
            if ".backward()" in line or torch_changed:
                # What torch wrote before it raised (gradients stored by a
                # failed backward, elements before a zero divisor) depends
                # on its loop order: stop comparing here.
                return None
        for k, value in theirs.items():
            if k.startswith("__") or k in ("torch", "inf", "nan"):
                continue
            why = compare_values(ours.get(k), value, torch)
            if why:
                return where + f"{k}: {why}"
    return None


def run(
    seeds: range, verbose: bool = True, known: dict[str, int] | None = None
) -> tuple[int, list[tuple[Program, str]]]:
    """Checks every seed; returns the count and the disagreements.

    A disagreement of a known kind is not returned; it is counted in
    ``known`` (by the kind's name), if given.
    """
    import torch

    failures = []
    for seed in seeds:
        torch.manual_seed(0)
        program = generate(seed, torch)
        try:
            why = check(program, torch)
        except Exception as error:  # noqa: BLE001  (a bug of the fuzzer itself)
            why = f"the fuzzer failed: {type(error).__name__}: {error}"
        kind = known_difference(why) if why else None
        if kind is not None:
            if known is not None:
                known[kind.name] = known.get(kind.name, 0) + 1
        elif why:
            failures.append((program, why))
            if verbose:
                print(f"--- seed {seed}\n{program.text()}\n>>> {why}\n", flush=True)
    return len(seeds), failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0:500", help="a range start:stop")
    parser.add_argument("--quiet", action="store_true", help="only the rate")
    args = parser.parse_args(argv)
    start, stop = (int(p) for p in args.seeds.split(":"))
    began = time.perf_counter()
    known: dict[str, int] = {}
    total, failures = run(range(start, stop), verbose=not args.quiet, known=known)
    seconds = time.perf_counter() - began
    agree = total - len(failures) - sum(known.values())
    print(
        f"{agree}/{total} programs agree ({100 * agree / max(total, 1):.2f} %), "
        f"{sum(known.values())} differ in a known way, {len(failures)} disagree, "
        f"{seconds:.1f} s"
    )
    for name, count in sorted(known.items()):
        print(f"  known: {name}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
