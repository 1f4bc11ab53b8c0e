"""The one table of differentiable operations that the parity tests run.

Each :class:`OpCase` applies one operation the same way to either library:
``fn(lib, *inputs)`` where ``lib`` is ``slowtorch_lib`` or ``torch``, and
the inputs are float64 tensors built by :func:`make_inputs` from fixed
pseudo-random values in the case's domain (positive for ``log``, away from
zero for ``abs``, ...). ``tests/test_op_table.py`` checks, for every case,
the forward value, each input's gradient and the ``grad_fn`` name against
torch, and the gradient against finite differences (without torch).

This module must not import torch: the finite-difference test runs without it.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

Shape = tuple[int, ...]

# Where the values of an input are drawn from.
DOMAINS: dict[str, Callable[[random.Random], float]] = {
    "real": lambda rng: rng.uniform(-2.0, 2.0),
    "positive": lambda rng: rng.uniform(0.5, 2.0),
    "unit": lambda rng: rng.uniform(-0.9, 0.9),
    # |v| >= 0.25: far from the kink of abs, relu, sign-dependent ops.
    "nonzero": lambda rng: rng.choice((-1.0, 1.0)) * rng.uniform(0.25, 2.0),
}


@dataclass(frozen=True)
class OpCase:
    """One operation applied one way.

    Attributes:
        name: Unique id (the pytest id).
        fn: ``fn(lib, *inputs)``; returns a tensor or a tuple of tensors.
        shapes: One shape per input.
        domain: A key of :data:`DOMAINS`, for all inputs or one per input.
        requires_grad: Per input; by default every input requires grad.
        gradcheck: False where finite differences cannot work (a float32
            round trip).
    """

    name: str
    fn: Callable[..., Any]
    shapes: tuple[Shape, ...]
    domain: str | tuple[str, ...] = "real"
    requires_grad: tuple[bool, ...] | None = None
    gradcheck: bool = True

    def domains(self) -> tuple[str, ...]:
        if isinstance(self.domain, str):
            return (self.domain,) * len(self.shapes)
        return self.domain

    def needs_grad(self) -> tuple[bool, ...]:
        return self.requires_grad or (True,) * len(self.shapes)


def _nest(values: list[float], shape: Shape) -> Any:
    """A flat list as nested lists of ``shape`` (a float for shape ``()``)."""
    if not shape:
        return values[0]
    for size in reversed(shape[1:]):
        values = [values[i : i + size] for i in range(0, len(values), size)]  # type: ignore
    return values


def input_values(case: OpCase) -> list[Any]:
    """The nested input values of a case: the same on every run."""
    rng = random.Random(zlib.crc32(case.name.encode()))
    result = []
    for shape, domain in zip(case.shapes, case.domains()):
        count = 1
        for size in shape:
            count *= size
        draw = DOMAINS[domain]
        result.append(_nest([round(draw(rng), 6) for _ in range(count)], shape))
    return result


def make_inputs(case: OpCase, lib: Any) -> list[Any]:
    """The case's inputs as float64 leaf tensors of ``lib``."""
    return [
        lib.tensor(values, dtype=lib.float64, requires_grad=needs)
        for values, needs in zip(input_values(case), case.needs_grad())
    ]


def outputs_of(result: Any) -> list[Any]:
    """The result of a case as a list of tensors (tuples are flattened)."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _case(
    name: str, fn: Callable[..., Any], *shapes: Sequence[int], **options: Any
) -> OpCase:
    return OpCase(name, fn, tuple(tuple(s) for s in shapes), **options)


def _view_then_change_base(L: Any, x: Any, y: Any) -> Any:
    """A view read after its base changed in place (torch: AsStridedBackward0)."""
    base = x * 1
    view = base.view(6)
    base.mul_(y)
    return view


def _change_through_view(L: Any, x: Any, y: Any) -> Any:
    """An in-place change of a view of a non-leaf (torch: CopySlices)."""
    base = x * 1
    base[0].mul_(y)
    return base


def _setitem(L: Any, x: Any, y: Any) -> Any:
    """``b[1] = y`` on a non-leaf (torch: CopySlices)."""
    base = x * 1
    base[1] = y
    return base


def _setitem_tensor_index(L: Any, x: Any, y: Any) -> Any:
    """``b[index_tensor] = y`` on a non-leaf (torch: IndexPutBackward0)."""
    base = x * 1
    base[L.tensor([1, 0])] = y
    return base


M = (2, 3)  # a small matrix

CASES: list[OpCase] = [
    # ---------------- arithmetic ----------------
    _case("add", lambda L, x, y: x + y, M, M),
    _case("add_broadcast_row", lambda L, x, y: x + y, (2, 3), (3,)),
    _case("add_broadcast_both", lambda L, x, y: x + y, (3, 1), (1, 4)),
    _case("add_broadcast_0d", lambda L, x, y: x + y, (2, 3), ()),
    _case("add_scalar", lambda L, x: x + 1.5, M),
    _case("add_alpha", lambda L, x, y: L.add(x, y, alpha=2.5), M, M),
    _case("radd_scalar", lambda L, x: 2 + x, M),
    _case("sub", lambda L, x, y: x - y, M, (3,)),
    _case("sub_alpha", lambda L, x, y: L.sub(x, y, alpha=0.5), M, M),
    _case("rsub_scalar", lambda L, x: 2 - x, M),
    _case("mul", lambda L, x, y: x * y, M, M),
    _case("mul_broadcast", lambda L, x, y: x * y, (2, 3, 4), (4,)),
    _case("mul_scalar", lambda L, x: x * 3.0, M),
    _case("mul_self", lambda L, x: x * x, M),
    _case("div", lambda L, x, y: x / y, M, M, domain=("real", "positive")),
    _case(
        "div_broadcast",
        lambda L, x, y: x / y,
        (2, 3),
        (2, 1),
        domain=("real", "nonzero"),
    ),
    _case("div_scalar", lambda L, x: x / 4.0, M),
    _case("rdiv_scalar", lambda L, x: 2.0 / x, M, domain="nonzero"),
    _case("neg", lambda L, x: -x, M),
    _case("x_times_y_plus_x", lambda L, x, y: (x * y + x).sum(), M, M),
    _case(
        "only_second_input_grad",
        lambda L, x, y: x * y,
        M,
        M,
        requires_grad=(False, True),
    ),
    # ---------------- powers ----------------
    _case("pow_2", lambda L, x: x**2, M),
    _case("pow_3_negative_base", lambda L, x: x.pow(3), M),
    _case("pow_half", lambda L, x: x**0.5, M, domain="positive"),
    _case("pow_negative", lambda L, x: x**-1.5, M, domain="positive"),
    _case("pow_0", lambda L, x: x**0, M),
    _case("pow_tensor", lambda L, x, y: x**y, M, M, domain=("positive", "real")),
    _case(
        "pow_tensor_broadcast",
        lambda L, x, y: L.pow(x, y),
        M,
        (3,),
        domain=("positive", "real"),
    ),
    _case("rpow_scalar", lambda L, x: 2.0**x, M),
    _case("square", lambda L, x: L.square(x), M),
    _case("sqrt", lambda L, x: L.sqrt(x), M, domain="positive"),
    _case("rsqrt", lambda L, x: L.rsqrt(x), M, domain="positive"),
    _case("reciprocal", lambda L, x: L.reciprocal(x), M, domain="nonzero"),
    # ---------------- unary functions ----------------
    _case("abs", lambda L, x: L.abs(x), M, domain="nonzero"),
    _case("exp", lambda L, x: L.exp(x), M),
    _case("log", lambda L, x: L.log(x), M, domain="positive"),
    _case("sin", lambda L, x: L.sin(x), M),
    _case("cos", lambda L, x: L.cos(x), M),
    _case("tanh", lambda L, x: L.tanh(x), M),
    _case("sigmoid", lambda L, x: L.sigmoid(x), M),
    _case("relu", lambda L, x: L.relu(x), M, domain="nonzero"),
    _case(
        "exp_of_log_chain", lambda L, x: L.exp(L.log(x) * 2).sum(), M, domain="positive"
    ),
    # ---------------- clamp, max/min, where ----------------
    _case("clamp_both", lambda L, x: L.clamp(x, -0.5, 0.7), (3, 4)),
    _case("clamp_min", lambda L, x: x.clamp(min=0.1), (3, 4)),
    _case("clamp_max", lambda L, x: x.clamp(max=0.1), (3, 4)),
    _case("clamp_min_fn", lambda L, x: L.clamp_min(x, -0.3), (3, 4)),
    _case("clamp_max_fn", lambda L, x: L.clamp_max(x, 0.3), (3, 4)),
    _case("clamp_tensor_min", lambda L, x, lo: L.clamp(x, min=lo), (3, 4), (4,)),
    _case(
        "clamp_tensor_both",
        lambda L, x, lo, hi: x.clamp(lo, hi + 1.0),
        (3, 4),
        (4,),
        (3, 1),
    ),
    _case("clip", lambda L, x: L.clip(x, -1.0, 1.0), (3, 4)),
    _case("maximum", lambda L, x, y: L.maximum(x, y), M, M),
    _case("maximum_broadcast", lambda L, x, y: L.maximum(x, y), (2, 3), (3,)),
    _case("minimum", lambda L, x, y: L.minimum(x, y), M, M),
    _case("where", lambda L, x, y: L.where(x > 0, x, y), M, M),
    _case("where_broadcast", lambda L, x, y: L.where(y > 0, x, y), (2, 3), (3,)),
    _case("where_scalar", lambda L, x: L.where(x > 0, x, 0.0), M),
    _case("masked_fill", lambda L, x: x.masked_fill(x < 0, 0.5), M),
    # ---------------- copies and casts ----------------
    _case("clone", lambda L, x: L.clone(x), M),
    _case("clone_method", lambda L, x: x.clone() * x, M),
    _case("to_float32", lambda L, x: x.to(L.float32), M, gradcheck=False),
    _case("float_then_double", lambda L, x: x.float().double(), M, gradcheck=False),
    _case("contiguous_of_transpose", lambda L, x: x.t().contiguous(), M),
    # ---------------- in place on a non-leaf ----------------
    _case("add_inplace", lambda L, x, y: (x * 1).add_(y), M, M),
    _case("mul_inplace", lambda L, x, y: (x * 1).mul_(y), M, M),
    _case("inplace_chain", lambda L, x, y: (x * 1).sub_(1.0).mul_(y), M, (3,)),
    _case("inplace_exp", lambda L, x: (x * 2).exp_(), M),
    _case("fill_inplace", lambda L, x: (x * 1).fill_(2.0) * x, M),
    _case("zero_inplace", lambda L, x: (x * 1).zero_() + x, M),
    _case("fill_with_tensor", lambda L, x, y: (x * 1).fill_(y), M, ()),
    _case("copy_inplace", lambda L, x, y: (x * 1).copy_(y), M, (3,)),
    _case("masked_fill_inplace", lambda L, x: (x * 1).masked_fill_(x > 0, 0.0), M),
    # ---------------- reductions ----------------
    _case("sum_all", lambda L, x: x.sum(), M),
    _case("sum_dim0", lambda L, x: x.sum(0), M),
    _case("sum_dim_neg_keepdim", lambda L, x: x.sum(-1, keepdim=True), M),
    _case("sum_dims", lambda L, x: L.sum(x, (0, 2)), (2, 3, 2)),
    _case("mean_all", lambda L, x: x.mean(), M),
    _case("mean_dim", lambda L, x: x.mean(dim=1), M),
    _case("mean_dims_keepdim", lambda L, x: x.mean((0, 1), keepdim=True), (2, 3, 2)),
    _case("prod_all", lambda L, x: x.prod(), M, domain="nonzero"),
    _case("prod_dim", lambda L, x: x.prod(1), M, domain="nonzero"),
    _case(
        "prod_dim_keepdim", lambda L, x: L.prod(x, 0, keepdim=True), M, domain="nonzero"
    ),
    _case("max_all", lambda L, x: x.max(), M),
    _case("min_all", lambda L, x: x.min(), M),
    _case("max_dim", lambda L, x: tuple(x.max(dim=1)), M),
    _case("min_dim_keepdim", lambda L, x: tuple(L.min(x, 0, keepdim=True)), M),
    _case("median_all", lambda L, x: x.median(), M),
    _case("median_all_even", lambda L, x: L.median(x), (2, 4)),
    _case("median_dim", lambda L, x: tuple(x.median(dim=1)), (3, 4)),
    _case("median_dim_keepdim", lambda L, x: tuple(L.median(x, 0, True)), (3, 4)),
    _case("kthvalue", lambda L, x: tuple(L.kthvalue(x, 2)), (3, 4)),
    _case("kthvalue_dim_keepdim", lambda L, x: tuple(x.kthvalue(3, 0, True)), (3, 4)),
    _case("amax", lambda L, x: x.amax(1), M),
    _case("amin_dims", lambda L, x: L.amin(x, (0, 2)), (2, 3, 2)),
    _case("var_all", lambda L, x: x.var(), M),
    _case("var_dim", lambda L, x: x.var(1), M),
    _case(
        "var_biased_keepdim",
        lambda L, x: x.var(0, unbiased=False, keepdim=True),
        (3, 2),
    ),
    _case("var_correction", lambda L, x: L.var(x, 1, correction=0), M),
    _case("std_all", lambda L, x: x.std(), M),
    _case("std_dim", lambda L, x: L.std(x, 0), (3, 2)),
    # ---------------- matrix products ----------------
    _case("mm", lambda L, x, y: L.mm(x, y), (2, 3), (3, 4)),
    _case("mm_transposed_input", lambda L, x, y: x.t().mm(y), (3, 2), (3, 4)),
    _case("mv", lambda L, x, y: L.mv(x, y), (2, 3), (3,)),
    _case("dot", lambda L, x, y: L.dot(x, y), (3,), (3,)),
    _case("outer", lambda L, x, y: L.outer(x, y), (3,), (4,)),
    _case(
        "outer_method_one_grad",
        lambda L, x, y: x.outer(y),
        (2,),
        (3,),
        requires_grad=(False, True),
    ),
    _case("dot_self", lambda L, x: x.dot(x), (4,)),
    _case("bmm", lambda L, x, y: L.bmm(x, y), (2, 2, 3), (2, 3, 2)),
    _case("matmul_2d", lambda L, x, y: x @ y, (2, 3), (3, 2)),
    _case("matmul_1d_1d", lambda L, x, y: L.matmul(x, y), (3,), (3,)),
    _case("matmul_2d_1d", lambda L, x, y: L.matmul(x, y), (2, 3), (3,)),
    _case("matmul_1d_2d", lambda L, x, y: L.matmul(x, y), (3,), (3, 2)),
    _case("matmul_3d_2d", lambda L, x, y: x @ y, (2, 2, 3), (3, 2)),
    _case("matmul_batch_broadcast", lambda L, x, y: x @ y, (2, 1, 2, 3), (3, 3, 2)),
    _case("matmul_3d_1d", lambda L, x, y: x @ y, (2, 2, 3), (3,)),
    # ---------------- views ----------------
    _case("view", lambda L, x: x.view(3, 2), M),
    _case("view_minus_one", lambda L, x: x.view(-1), (2, 3, 2)),
    _case(
        "view_as", lambda L, x, y: x.view_as(y), (6,), M, requires_grad=(True, False)
    ),
    _case("reshape", lambda L, x: x.reshape(6), M),
    _case("reshape_noncontiguous", lambda L, x: x.t().reshape(6), M),
    _case("reshape_noncontiguous_as_view", lambda L, x: x.t().reshape(3, 1, 2), M),
    _case(
        "reshape_as",
        lambda L, x, y: x.reshape_as(y),
        M,
        (3, 2),
        requires_grad=(True, False),
    ),
    _case("flatten", lambda L, x: L.flatten(x, 1), (2, 3, 2)),
    _case("unflatten", lambda L, x: L.unflatten(x, 1, (3, 2)), (2, 6)),
    _case("unflatten_method", lambda L, x: x.unflatten(-1, (2, -1)), (3, 4)),
    _case("unflatten_transposed", lambda L, x: x.t().unflatten(1, (2, 2)), (4, 3)),
    _case(
        "type_as",
        lambda L, x, y: x.type_as(y.double()),
        M,
        M,
        requires_grad=(True, False),
    ),
    _case("transpose", lambda L, x: L.transpose(x, 0, 2), (2, 3, 2)),
    _case("t", lambda L, x: L.t(x), M),
    _case("transpose_", lambda L, x: (x * 1).transpose_(0, 2), (2, 3, 2)),
    _case("t_", lambda L, x: (x * 1).t_(), M),
    _case("swapaxes", lambda L, x: L.swapaxes(x, 0, 1), M),
    _case("swapdims_", lambda L, x: (x * 1).swapdims_(-1, 1), (2, 3, 2)),
    _case("T", lambda L, x: x.T, M),
    _case("mT", lambda L, x: x.mT, (2, 3, 2)),
    _case("permute", lambda L, x: L.permute(x, (2, 0, 1)), (2, 3, 2)),
    _case("unsqueeze", lambda L, x: L.unsqueeze(x, 1), M),
    _case("squeeze_all", lambda L, x: L.squeeze(x), (2, 1, 3, 1)),
    _case("squeeze_dim", lambda L, x: x.squeeze(1), (2, 1, 3)),
    _case("squeeze_dims", lambda L, x: x.squeeze((1, 3)), (2, 1, 3, 1)),
    _case("expand", lambda L, x: x.expand(2, 3), (1, 3)),
    _case("expand_new_dims", lambda L, x: x.expand(2, 3, 4), (3, 1)),
    _case(
        "expand_as",
        lambda L, x, y: x.expand_as(y),
        (3,),
        M,
        requires_grad=(True, False),
    ),
    _case("narrow", lambda L, x: L.narrow(x, 1, 1, 2), (3, 4)),
    _case("select", lambda L, x: L.select(x, 1, 2), (3, 4)),
    _case("split", lambda L, x: L.split(x, 2, dim=1), (2, 5)),
    _case("split_sizes", lambda L, x: x.split([1, 3], 0), (4, 2)),
    _case("chunk", lambda L, x: L.chunk(x, 2, 0), (4, 2)),
    _case("unbind", lambda L, x: L.unbind(x, 1), M),
    _case("views_chain", lambda L, x: x.t().unsqueeze(0).expand(2, 3, 2).sum(), M),
    _case("view_after_base_changed", _view_then_change_base, M, M),
    _case(
        "view_used_after_base_changed",
        lambda L, x, y: _view_then_change_base(L, x, y) * 2,
        M,
        M,
    ),
    _case("inplace_through_view", _change_through_view, M, (3,)),
    _case("setitem", _setitem, M, (3,)),
    _case("setitem_tensor_index", _setitem_tensor_index, M, (2, 3)),
    # ---------------- indexing ----------------
    _case("index_ellipsis_alias", lambda L, x: x[...], M),
    _case("index_int", lambda L, x: x[1], (3, 4)),
    _case("index_negative", lambda L, x: x[-1, -2], (3, 4)),
    _case("index_slice", lambda L, x: x[1:], (3, 4)),
    _case("index_slice_step", lambda L, x: x[:, ::2], (3, 4)),
    _case("index_none_ellipsis", lambda L, x: x[..., None, 1:3], (2, 4)),
    _case("index_twice", lambda L, x: x[0] * x[1], (2, 3)),
    _case("index_tensor", lambda L, x: x[L.tensor([2, 0])], (3, 4)),
    _case("index_tensor_repeated", lambda L, x: x[L.tensor([1, 1, 0, 1])], (3,)),
    _case("index_list", lambda L, x: x[:, [0, 2, 2]], (2, 3)),
    _case(
        "index_two_tensors", lambda L, x: x[L.tensor([0, 2]), L.tensor([1, 1])], (3, 4)
    ),
    _case("index_bool_mask", lambda L, x: x[x > 0], (3, 4)),
    # ---------------- joining ----------------
    _case("cat", lambda L, x, y: L.cat([x, y]), (2, 3), (1, 3)),
    _case("cat_dim1", lambda L, x, y: L.cat((x, y), dim=1), (2, 3), (2, 1)),
    _case("cat_negative_dim_self", lambda L, x: L.cat([x, x * 2], -1), M),
    _case("concat", lambda L, x, y: L.concat([x, y], 0), (1, 2), (2, 2)),
    _case("stack", lambda L, x, y: L.stack([x, y]), M, M),
    _case("stack_dim_last", lambda L, x, y: L.stack((x, y), dim=-1), (3,), (3,)),
    # ---------------- small networks ----------------
    _case(
        "linear_relu_mean",
        lambda L, x, w, b: L.relu(x @ w.t() + b).mean(),
        (4, 3),
        (2, 3),
        (2,),
    ),
    _case("softmax_by_hand", lambda L, x: x.exp() / x.exp().sum(1, keepdim=True), M),
    _case("softmax_method", lambda L, x: x.softmax(1), M),
    _case("log_softmax_method", lambda L, x: x.log_softmax(0, dtype=float), M),
    _case("mse", lambda L, x, y: ((x - y) ** 2).mean(), (4,), (4,)),
    # ---------------- steps and remainders (fuzz fixes) ----------------
    _case(
        "remainder",
        lambda L, x, y: L.remainder(x, y),
        M,
        M,
        domain=("real", "positive"),
    ),
    _case("remainder_scalar", lambda L, x: x % 0.7, M),
    _case("sign", lambda L, x: L.sign(x), M, domain="nonzero"),
    _case(
        "div_floor",
        lambda L, x, y: L.div(x, y, rounding_mode="floor"),
        M,
        M,
        domain=("real", "positive"),
    ),
    _case("div_trunc", lambda L, x: L.div(x, 0.3, rounding_mode="trunc"), M),
]


def case_by_name(name: str) -> OpCase:
    """The case called ``name``."""
    for case in CASES:
        if case.name == name:
            return case
    raise KeyError(name)


# ---------------- fused ops that optimisers use ----------------
CASES += [
    _case("addcmul", lambda L, x, y, z: L.addcmul(x, y, z, value=0.5), M, M, M),
    _case(
        "addcmul_broadcast", lambda L, x, y, z: x.addcmul(y, z), (2, 3), (3,), (2, 1)
    ),
    _case(
        "addcdiv",
        lambda L, x, y, z: L.addcdiv(x, y, z, value=-2.0),
        M,
        M,
        M,
        domain=("real", "real", "nonzero"),
    ),
    _case(
        "addcdiv_broadcast",
        lambda L, x, y, z: x.addcdiv(y, z),
        (2, 3),
        (3,),
        (2, 1),
        domain=("real", "real", "nonzero"),
    ),
    _case("lerp_scalar", lambda L, x, y: L.lerp(x, y, 0.3), M, M),
    _case("lerp_scalar_far", lambda L, x, y: x.lerp(y, 0.75), (3,), (2, 3)),
    _case(
        "lerp_tensor",
        lambda L, x, y, w: L.lerp(x, y, w),
        M,
        M,
        M,
        domain=("real", "real", "unit"),
    ),
]

# ---------------- addmm, the product of nn.Linear ----------------
CASES += [
    _case("addmm", lambda L, b, x, y: L.addmm(b, x, y), (4,), (2, 3), (3, 4)),
    _case(
        "addmm_scaled",
        lambda L, b, x, y: L.addmm(b, x, y, beta=0.5, alpha=2.0),
        (2, 1),
        (2, 3),
        (3, 4),
    ),
]

# ----------------------------------------------------------------------
# Rounding, log1p, nan_to_num, scans, sorting, gather/scatter,
# rearranging. Index tensors are built inside ``fn``.
# ----------------------------------------------------------------------


def _scatter_inplace(L: Any, x: Any, y: Any) -> Any:
    """``scatter_`` on a non-leaf: the result takes the scatter's history."""
    base = x * 1
    base.scatter_(0, L.tensor([[1, 0, 1]]), y)
    return base


def _scatter_add_inplace(L: Any, x: Any, y: Any) -> Any:
    base = x * 1
    base.scatter_add_(1, L.tensor([[0, 0], [2, 0]]), y)
    return base


CASES += [
    # ---------------- rounding (zero gradients), log1p, nan_to_num ----------------
    _case("floor", lambda L, x: L.floor(x), M),
    _case("ceil", lambda L, x: x.ceil(), M),
    _case("trunc", lambda L, x: L.trunc(x), M),
    _case("fix", lambda L, x: x.fix(), M),
    _case("round", lambda L, x: L.round(x), M),
    _case("round_decimals", lambda L, x: L.round(x, decimals=2), M),
    _case("round_decimals_negative", lambda L, x: (x * 100).round(decimals=-1), M),
    _case("log1p", lambda L, x: L.log1p(x), M, domain="unit"),
    _case("nan_to_num", lambda L, x: L.nan_to_num(L.log(x), posinf=7.0), M),
    _case("nan_to_num_method", lambda L, x: (x * x - 1).log().nan_to_num(2.0), M),
    _case(
        "divide_floor",
        lambda L, x, y: L.divide(x, y, rounding_mode="floor"),
        M,
        (3,),
        domain=("real", "nonzero"),
    ),
    _case("div_trunc_scalar", lambda L, x: x.div(0.7, rounding_mode="trunc"), M),
    # ---------------- scans ----------------
    _case("cumsum", lambda L, x: L.cumsum(x, 1), M),
    _case("cumsum_3d_negative_dim", lambda L, x: x.cumsum(-2), (2, 3, 4)),
    _case("cumsum_0d", lambda L, x: x.cumsum(0), ()),
    _case("cumprod", lambda L, x: L.cumprod(x, 1), M),
    _case("cumprod_3d_negative_dim", lambda L, x: x.cumprod(-2), (2, 3, 4)),
    _case("cumprod_0d", lambda L, x: x.cumprod(0), ()),
    _case(
        "cumprod_with_zeros",
        lambda L, x: L.cumprod(x.clamp(min=0), 1),
        (2, 5),
        domain="nonzero",
    ),
    # ---------------- norms ----------------
    _case("vector_norm", lambda L, x: L.linalg.vector_norm(x), M, domain="nonzero"),
    _case(
        "vector_norm_1_dim",
        lambda L, x: L.linalg.vector_norm(x, 1, 1),
        M,
        domain="nonzero",
    ),
    _case("vector_norm_inf", lambda L, x: L.linalg.vector_norm(x, float("inf"), 0), M),
    _case(
        "vector_norm_3_keepdim",
        lambda L, x: L.linalg.vector_norm(x, 3, 1, True),
        M,
        domain="nonzero",
    ),
    _case("norm", lambda L, x: L.norm(x, dim=1), M, domain="nonzero"),
    _case("norm_method_p1", lambda L, x: x.norm(1), (4,), domain="nonzero"),
    # ---------------- sorting ----------------
    _case("sort", lambda L, x: L.sort(x, 1), (3, 4)),
    _case("sort_descending_dim0", lambda L, x: x.sort(0, descending=True), (3, 4)),
    _case("sort_stable", lambda L, x: L.sort(x, stable=True), (2, 5)),
    _case("sort_values_chain", lambda L, x: x.sort().values * x, (2, 3)),
    _case("topk", lambda L, x: L.topk(x, 2), (3, 4)),
    _case("topk_smallest_dim0", lambda L, x: x.topk(2, dim=0, largest=False), (3, 4)),
    # ---------------- gather and scatter ----------------
    _case(
        "index_add",
        lambda L, x, s: L.index_add(x, 0, L.tensor([2, 0]), s),
        (3, 2),
        (2, 2),
    ),
    _case(
        "index_add_repeat_alpha",
        lambda L, x, s: x.index_add(1, L.tensor([1, 1, 0]), s, alpha=-2.5),
        (2, 2),
        (2, 3),
    ),
    _case(
        "index_add_source_only",
        lambda L, x, s: L.index_add(x, 0, L.tensor([1]), s),
        (3,),
        (1,),
        requires_grad=(False, True),
    ),
    _case("gather", lambda L, x: L.gather(x, 1, L.tensor([[0, 0, 2], [1, 0, 1]])), M),
    _case(
        "gather_dim0_smaller_index",
        lambda L, x: x.gather(0, L.tensor([[2, 0], [1, 1]])),
        (3, 4),
    ),
    _case(
        "scatter", lambda L, x, y: L.scatter(x, 0, L.tensor([[1, 0, 1]]), y), M, (1, 3)
    ),
    _case("scatter_value", lambda L, x: x.scatter(1, L.tensor([[2], [0]]), 0.5), M),
    _case(
        "scatter_add",
        lambda L, x, y: L.scatter_add(x, 1, L.tensor([[0, 0], [2, 0]]), y),
        M,
        (2, 2),
    ),
    _case(
        "scatter_only_src_grad",
        lambda L, x, y: x.scatter(0, L.tensor([[1, 0, 1]]), y),
        M,
        (1, 3),
        requires_grad=(False, True),
    ),
    _case("scatter_inplace", _scatter_inplace, M, (1, 3)),
    _case("scatter_add_inplace", _scatter_add_inplace, M, (2, 2)),
    _case(
        "index_select", lambda L, x: L.index_select(x, 1, L.tensor([2, 0, 2])), (3, 4)
    ),
    _case(
        "index_select_dim0", lambda L, x: x.index_select(0, L.tensor([1, 1])), (3, 2)
    ),
    _case("masked_select", lambda L, x: L.masked_select(x, x > 0), (3, 4)),
    _case(
        "masked_select_broadcast",
        lambda L, x: x.masked_select(L.tensor([True, False, True])),
        M,
    ),
    # ---------------- rearranging ----------------
    _case("flip", lambda L, x: L.flip(x, (0,)), M),
    _case("flip_two_dims", lambda L, x: x.flip(0, -1), (2, 3, 2)),
    _case("repeat", lambda L, x: x.repeat(2, 3), M),
    _case("repeat_new_dims", lambda L, x: x.repeat(2, 1, 3), (3,)),
    _case("repeat_interleave", lambda L, x: x.repeat_interleave(2), M),
    _case("repeat_interleave_dim", lambda L, x: L.repeat_interleave(x, 3, dim=1), M),
    _case(
        "repeat_interleave_counts",
        lambda L, x: x.repeat_interleave(L.tensor([2, 0, 1]), dim=0),
        (3, 2),
    ),
    _case("diagonal", lambda L, x: L.diagonal(x), (3, 4)),
    _case("diagonal_offset", lambda L, x: x.diagonal(-1, 2, 0), (3, 2, 4)),
    _case("diag_embed", lambda L, x: L.diag_embed(x, 1), (2, 3)),
    _case("diag_matrix", lambda L, x: L.diag(x, 1), (3, 4)),
    _case("diag_vector", lambda L, x: L.diag(x, -2), (3,)),
    _case("tril", lambda L, x: L.tril(x), (3, 4)),
    _case("tril_diagonal", lambda L, x: x.tril(1), (3, 4)),
    _case("triu", lambda L, x: L.triu(x), (3, 4)),
    _case("triu_batched_diagonal", lambda L, x: x.triu(diagonal=-1), (2, 3, 4)),
]

CASES += [
    # ---------------- other bases, the rest of trigonometry ----------------
    _case("log10", lambda L, x: L.log10(x), M, domain="positive"),
    _case("log2", lambda L, x: x.log2(), M, domain="positive"),
    _case("exp2", lambda L, x: L.exp2(x), M),
    _case("expm1", lambda L, x: x.expm1(), M),
    _case("tan", lambda L, x: L.tan(x), M, domain="unit"),
    _case("sinh", lambda L, x: L.sinh(x), M),
    _case("sinc", lambda L, x: L.sinc(x), M),
    _case("cosh", lambda L, x: x.cosh(), M),
    _case("asin", lambda L, x: L.asin(x), M, domain="unit"),
    _case("arccos", lambda L, x: x.arccos(), M, domain="unit"),
    _case("atan", lambda L, x: L.arctan(x), M),
    _case("atan2_broadcast", lambda L, x, y: L.atan2(x, y), M, (3,)),
    _case("hypot_broadcast", lambda L, x, y: x.hypot(y), M, (3,), domain="nonzero"),
    _case("inplace_log10", lambda L, x: (x * 2).log10_(), M, domain="positive"),
    _case("inplace_log2", lambda L, x: (x * 2).log2_(), M, domain="positive"),
    _case("inplace_exp2", lambda L, x: (x * 2).exp2_(), M),
    _case("inplace_expm1", lambda L, x: (x * 2).expm1_(), M),
    _case("inplace_log1p", lambda L, x: (x * 1).log1p_(), M, domain="unit"),
    _case("inplace_sinh", lambda L, x: (x * 1).sinh_(), M),
    _case("inplace_sinc", lambda L, x: (x * 2).sinc_(), M),
    _case("inplace_atan2", lambda L, x, y: (x * 1).atan2_(y), M, (3,)),
]

CASES += [
    _case("roll_flat", lambda L, x: L.roll(x, 2), M),
    _case("roll_dims", lambda L, x: x.roll((1, -1), (0, 1)), M),
    _case("roll_transposed", lambda L, x: L.roll(x.t(), -4, 1), (3, 4)),
]

CASES += [
    _case("logsumexp_dim", lambda L, x: L.logsumexp(x, 1), M),
    _case(
        "logsumexp_dims_keepdims", lambda L, x: x.logsumexp((0, 1), keepdims=True), M
    ),
]

# Complex numbers, built from real leaves and read back as real numbers:
# z = complex(x, y) carries its gradient to both parts.
CASES += [
    _case("complex_abs", lambda L, x, y: L.complex(x, y).abs(), M, M, domain="nonzero"),
    _case(
        "complex_mul_view_as_real",
        lambda L, x, y: L.view_as_real(L.complex(x, y) * L.complex(y, x)),
        M,
        M,
    ),
    _case(
        "complex_conj_real",
        lambda L, x, y: (L.complex(x, y).conj() * L.complex(y, -x).exp()).real,
        M,
        M,
    ),
    _case(
        "complex_angle",
        lambda L, x, y: L.complex(x, y).angle(),
        M,
        M,
        domain="nonzero",
    ),
    _case(
        "complex_div_imag",
        lambda L, x, y: (L.complex(x, y) / L.complex(y, x).sqrt()).imag,
        M,
        M,
        domain="positive",
    ),
    _case(
        "complex_matmul_abs",
        lambda L, x, y: (L.complex(x, y) @ L.complex(y, x).t()).abs(),
        M,
        M,
        domain="nonzero",
    ),
]

# Windows: as_strided and unfold (overlapping views), im2col and col2im,
# convolutions (the window view times a weight matrix), pooling, padding and
# nearest-neighbour upsampling.
IMAGE = (2, 2, 5, 4)  # (N, C, H, W)
CASES += [
    _case(
        "as_strided_overlapping_windows",
        lambda L, x: L.as_strided(x, (4, 3), (2, 1)),
        (10,),
    ),
    _case(
        "as_strided_method_offset_of_a_view",
        lambda L, x: x[1:].as_strided((2, 2), (1, 3), 5),
        (3, 4),
    ),
    _case(
        "as_strided_of_an_expanded_input",
        lambda L, x: x.expand(3, 4).as_strided((3, 2), (1, 1)),
        (4,),
    ),
    _case("unfold_method", lambda L, x: x.unfold(1, 3, 2), (2, 7)),
    _case("unfold_method_overlapping", lambda L, x: x.unfold(0, 2, 1), (5, 2)),
    _case(
        "F_unfold_im2col",
        lambda L, x: L.nn.functional.unfold(x, (2, 3), padding=1, stride=(2, 1)),
        IMAGE,
    ),
    _case(
        "F_fold_col2im",
        lambda L, x: L.nn.functional.fold(x, (4, 5), 2, dilation=(1, 2)),
        (2, 8, 9),
    ),
    _case(
        "conv2d_stride_padding_bias",
        lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, stride=2, padding=1),
        IMAGE,
        (3, 2, 3, 3),
        (3,),
    ),
    _case(
        "conv2d_pairs_dilation",
        lambda L, x, w: L.nn.functional.conv2d(
            x, w, stride=(1, 2), padding=(2, 1), dilation=(2, 1)
        ),
        IMAGE,
        (3, 2, 2, 2),
    ),
    _case(
        "conv2d_groups_same",
        lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, padding="same", groups=2),
        IMAGE,
        (4, 1, 2, 3),
        (4,),
    ),
    _case(
        "conv2d_valid_unbatched",
        lambda L, x, w: L.nn.functional.conv2d(x, w, padding="valid"),
        (2, 4, 4),
        (1, 2, 3, 2),
    ),
    _case(
        "conv1d_stride_dilation_groups",
        lambda L, x, w, b: L.nn.functional.conv1d(
            x, w, b, stride=2, padding=1, dilation=2, groups=2
        ),
        (2, 4, 9),
        (2, 2, 3),
        (2,),
    ),
    _case(
        "conv_transpose2d_stride_output_padding",
        lambda L, x, w, b: L.nn.functional.conv_transpose2d(
            x, w, b, stride=2, padding=1, output_padding=1
        ),
        (2, 2, 3, 3),
        (2, 3, 3, 2),
        (3,),
    ),
    _case(
        "conv_transpose2d_groups_dilation",
        lambda L, x, w: L.nn.functional.conv_transpose2d(
            x, w, groups=2, dilation=(2, 1)
        ),
        (1, 4, 3, 2),
        (4, 1, 2, 2),
    ),
    _case(
        "conv_transpose1d",
        lambda L, x, w: L.nn.functional.conv_transpose1d(x, w, stride=3, padding=1),
        (2, 2, 4),
        (2, 3, 3),
    ),
    _case(
        "max_pool2d",
        lambda L, x: L.nn.functional.max_pool2d(x, 2),
        IMAGE,
    ),
    _case(
        "max_pool2d_padding_dilation_ceil_indices",
        lambda L, x: L.nn.functional.max_pool2d(
            x,
            3,
            stride=2,
            padding=1,
            dilation=(1, 2),
            ceil_mode=True,
            return_indices=True,
        )[0],  # fmt: skip
        IMAGE,
    ),
    _case(
        "max_pool1d_ceil",
        lambda L, x: L.nn.functional.max_pool1d(x, 3, stride=2, ceil_mode=True),
        (2, 3, 8),
    ),
    _case(
        "avg_pool2d_padding_ceil",
        lambda L, x: L.nn.functional.avg_pool2d(
            x, 3, stride=2, padding=1, ceil_mode=True
        ),
        IMAGE,
    ),
    _case(
        "avg_pool2d_exclude_pad",
        lambda L, x: L.nn.functional.avg_pool2d(
            x, (2, 3), padding=1, count_include_pad=False
        ),
        IMAGE,
    ),
    _case(
        "avg_pool2d_divisor_override",
        lambda L, x: L.nn.functional.avg_pool2d(x, 2, 1, divisor_override=3),
        IMAGE,
    ),
    _case(
        "avg_pool1d",
        lambda L, x: L.nn.functional.avg_pool1d(x, 3, stride=2, padding=1),
        (2, 3, 8),
    ),
    _case(
        "adaptive_avg_pool2d",
        lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (3, 3)),
        IMAGE,
    ),
    _case(
        "adaptive_avg_pool2d_to_one",
        lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 1),
        IMAGE,
    ),
    _case(
        "adaptive_avg_pool1d",
        lambda L, x: L.nn.functional.adaptive_avg_pool1d(x, 3),
        (2, 3, 7),
    ),
    _case(
        "adaptive_avg_pool3d",
        lambda L, x: L.nn.functional.adaptive_avg_pool3d(x, (2, 1, 3)),
        (2, 2, 3, 4, 5),
    ),
    _case(
        "adaptive_max_pool2d",
        lambda L, x: L.nn.functional.adaptive_max_pool2d(x, (2, 3)),
        IMAGE,
    ),
    _case(
        "adaptive_max_pool3d",
        lambda L, x: L.nn.functional.adaptive_max_pool3d(x, (2, 3, 2)),
        (2, 2, 3, 4, 5),
    ),
    _case(
        "pad_circular",
        lambda L, x: L.nn.functional.pad(x, (1, 2, 2, 0), mode="circular"),
        IMAGE,
    ),
    _case(
        "interpolate_nearest_2d",
        lambda L, x: L.nn.functional.interpolate(x, scale_factor=(2, 1.5)),
        IMAGE,
    ),
    _case(
        "interpolate_nearest_1d_size",
        lambda L, x: L.nn.functional.interpolate(x, size=5),
        (2, 3, 3),
    ),
    _case(
        "interpolate_linear_align_corners",
        lambda L, x: L.nn.functional.interpolate(
            x, size=5, mode="linear", align_corners=True
        ),
        (2, 3, 3),
    ),
    _case(
        "interpolate_bilinear",
        lambda L, x: L.nn.functional.interpolate(
            x, scale_factor=(1.5, 0.7), mode="bilinear"
        ),
        IMAGE,
    ),
    _case(
        "interpolate_area",
        lambda L, x: L.nn.functional.interpolate(x, size=(3, 2), mode="area"),
        IMAGE,
    ),
    _case(
        "interpolate_bicubic",
        lambda L, x: L.nn.functional.interpolate(
            x, scale_factor=(1.5, 0.7), mode="bicubic"
        ),
        IMAGE,
    ),
    _case(
        "interpolate_bicubic_align_corners",
        lambda L, x: L.nn.functional.interpolate(
            x, size=(5, 2), mode="bicubic", align_corners=True
        ),
        IMAGE,
    ),
    _case(
        "interpolate_trilinear",
        lambda L, x: L.nn.functional.interpolate(
            x, scale_factor=(1.5, 0.7, 2.0), mode="trilinear"
        ),
        (1, 2, 2, 3, 2),
    ),
    _case(
        "interpolate_nearest_exact",
        lambda L, x: L.nn.functional.interpolate(
            x, scale_factor=(1.7, 0.6), mode="nearest-exact"
        ),
        IMAGE,
    ),
    _case(
        "interpolate_nearest_3d",
        lambda L, x: L.nn.functional.interpolate(x, size=(3, 2, 4)),
        (1, 2, 2, 3, 2),
    ),
    _case(
        "interpolate_area_3d",
        lambda L, x: L.nn.functional.interpolate(x, size=(1, 2, 2), mode="area"),
        (1, 2, 2, 3, 4),
    ),
    _case(
        "group_norm",
        lambda L, x, w, b: L.nn.functional.group_norm(x, 2, w, b),
        (2, 4, 3),
        (4,),
        (4,),
    ),
    _case("cdist", lambda L, x, y: L.cdist(x, y), (2, 3, 4), (5, 4)),
    _case("cdist_p1", lambda L, x, y: L.cdist(x, y, 1.0), (3, 4), (5, 4)),
    _case("cdist_inf", lambda L, x, y: L.cdist(x, y, float("inf")), (3, 4), (2, 4)),
    _case(
        "cdist_matrix_product",
        lambda L, x, y: L.cdist(x, y, compute_mode="use_mm_for_euclid_dist"),
        (3, 4),
        (5, 4),
    ),
    _case("pdist_p3", lambda L, x: L.pdist(x, 3.0), (4, 3)),
]

# ReLU's gradient as a function of its own (create_graph): torch records
# ThresholdBackwardBackward0, whose backward selects the same way.
CASES += [
    _case(
        "relu_gradient_create_graph",
        lambda L, x: L.autograd.grad((L.relu(x) ** 2).sum(), x, create_graph=True)[0],
        M,
        domain="nonzero",
    ),
]

# Scaled dot-product attention: the fused kernel's node on 4-d inputs with one
# head size, the composite graph otherwise (PyTorch 2.13 on a CPU).
QKV = (2, 2, 3, 4)


def _sdpa(L: Any, *tensors: Any, **options: Any) -> Any:
    return L.nn.functional.scaled_dot_product_attention(*tensors, **options)


def _row_masked(L: Any) -> Any:
    """A bool mask whose second row hides every key (that row gives zeros)."""
    return L.tensor([[True, False, True], [False] * 3, [True, True, False]])


CASES += [
    _case("sdpa_fused", lambda L, q, k, v: _sdpa(L, q, k, v), QKV, QKV, QKV),
    _case(
        "sdpa_causal_longer_keys",
        lambda L, q, k, v: _sdpa(L, q, k, v, is_causal=True),
        QKV,
        (2, 2, 5, 4),
        (2, 2, 5, 4),
    ),
    _case(
        "sdpa_bool_mask_full_row",
        lambda L, q, k, v: _sdpa(L, q, k, v, attn_mask=_row_masked(L)),
        QKV,
        QKV,
        QKV,
    ),
    _case(
        "sdpa_float_mask_grad",
        lambda L, q, k, v, m: _sdpa(L, q, k, v, attn_mask=m),
        QKV,
        QKV,
        QKV,
        (3, 3),
    ),
    _case(
        "sdpa_value_head_size",
        lambda L, q, k, v: _sdpa(L, q, k, v, attn_mask=_row_masked(L), scale=-0.7),
        QKV,
        QKV,
        (2, 2, 3, 5),
    ),
    _case(
        "sdpa_3d_causal",
        lambda L, q, k, v: _sdpa(L, q, k, v, is_causal=True),
        *[(2, 3, 4)] * 3,
    ),
    _case("sdpa_2d", lambda L, q, k, v: _sdpa(L, q, k, v), (3, 4), (5, 4), (5, 2)),
    _case(
        "sdpa_grouped_heads",
        lambda L, q, k, v: _sdpa(L, q, k, v, enable_gqa=True, scale=0.4),
        (1, 4, 3, 2),
        (1, 2, 3, 2),
        (1, 2, 3, 2),
    ),
    _case(
        "sdpa_grouped_heads_3d",
        lambda L, q, k, v: _sdpa(L, q, k, v, enable_gqa=True),
        (4, 3, 2),
        (2, 3, 2),
        (1, 3, 2),
    ),
]

# einsum: the forms attention code writes, built from views, sums and bmm.
CASES += [
    _case(
        "einsum_batched_matmul",
        lambda L, x, y: L.einsum("bij,bjk->bik", x, y),
        (2, 3, 4),
        (2, 4, 2),
    ),
    _case(
        "einsum_attention_scores",
        lambda L, q, k: L.einsum("bhqd,bhkd->bhqk", q, k),
        (2, 2, 3, 4),
        (2, 2, 5, 4),
    ),
    _case("einsum_transpose", lambda L, x: L.einsum("ij->ji", x), (3, 4)),
    _case("einsum_trace", lambda L, x: L.einsum("ii", x), (3, 3)),
    _case("einsum_diagonal", lambda L, x: L.einsum("ii->i", x), (3, 3)),
    _case("einsum_row_sums", lambda L, x: L.einsum("ij->i", x), (3, 4)),
    _case("einsum_outer", lambda L, x, y: L.einsum("i,j->ij", x, y), (3,), (4,)),
    _case("einsum_dot", lambda L, x, y: L.einsum("i,i", x, y), (3,), (3,)),
    _case(
        "einsum_ellipsis_list",
        lambda L, x, y: L.einsum("...ij,...jk", [x, y]),
        (1, 3, 4),
        (2, 4, 2),
    ),
    _case(
        "einsum_three_operands",
        lambda L, x, y, z: L.einsum("ij,jk,kl->il", x, y, z),
        (2, 3),
        (3, 4),
        (4, 2),
    ),
    _case(
        "einsum_sum_out_early",
        lambda L, x, y: L.einsum("ijk,ik->j", x, y),
        (2, 3, 4),
        (2, 4),
    ),
]

# torch.softmax and torch.log_softmax (the functions), and the causal mask of
# a language model: masked_fill with -inf, then softmax.
CASES += [
    _case("torch_softmax", lambda L, x: L.softmax(x, 1), M),
    _case("torch_log_softmax_dtype", lambda L, x: L.log_softmax(x, 0, L.float64), M),
    _case(
        "masked_fill_minus_inf_softmax",
        lambda L, x: x.masked_fill(L.ones(3, 3).tril() == 0, -L.inf).softmax(-1),
        (3, 3),
    ),
]

# meshgrid: views of its inputs, expanded.
CASES += [
    _case("meshgrid_ij", lambda L, x, y: L.meshgrid(x, y, indexing="ij"), (3,), (2,)),
    _case(
        "meshgrid_xy_three",
        lambda L, x, y, z: L.meshgrid([x, y, z], indexing="xy"),
        (3,),
        (2,),
        (2,),
    ),
]
