"""embedding_bag and EmbeddingBag against torch: values, gradients of the
table and of the per-sample weights and grad_fn names on seeded random bags
(every mode, float32 and float64, padding, empty bags, the last offset),
the module forms, errors and their messages, plus finite-difference checks
that need no torch."""

from __future__ import annotations

import random
from typing import Any

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib import nn
from slowtorch_lib.autograd.gradcheck import gradcheck, gradgradcheck
from tests.nn.test_layers import same_structure
from tests.parity import from_torch, require_torch, same_error, to_torch

RANDOM_CASES = 120


def _random_case(seed: int) -> dict[str, Any]:
    """The arguments of one random call, as plain Python values."""
    rng = random.Random(seed)
    rows, width = rng.randint(1, 6), rng.randint(1, 4)
    mode = rng.choice(["sum", "mean", "max"])
    two_d = rng.random() < 0.3
    if two_d:
        shape: tuple[int, ...] = (rng.randint(1, 4), rng.randint(1, 4))
    else:
        shape = (rng.randint(0, 9),)
    count = 1
    for size in shape:
        count *= size
    indices = [rng.randrange(rows) for _ in range(count)]
    case: dict[str, Any] = {
        "rows": rows,
        "width": width,
        "shape": shape,
        "indices": indices,
        "mode": mode,
        "dtype": rng.choice(["float32", "float64"]),
        "seed": seed,
        "options": {},
    }
    options = case["options"]
    if not two_d:
        # Sorted cut points from 0 to the length: repeats make empty bags.
        bags = rng.randint(1, 4)
        cuts = sorted(rng.randint(0, count) for _ in range(bags - 1))
        options["include_last_offset"] = rng.random() < 0.3
        ends = [count] if options["include_last_offset"] else []
        case["offsets"] = [0, *cuts, *ends]
    if rng.random() < 0.4:
        options["padding_idx"] = rng.randrange(-rows, rows)
    if mode == "sum" and rng.random() < 0.5:
        case["per_sample_weights"] = True
    if mode != "max" and rng.random() < 0.2:
        options["scale_grad_by_freq"] = True
    return case


def _run(lib: Any, case: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The call in ``lib``: its result and the leaves that need a gradient."""
    gen = random.Random(case["seed"] + 1000)
    dtype = getattr(lib, case["dtype"])
    table = [gen.uniform(-2, 2) for _ in range(case["rows"] * case["width"])]
    weight = lib.tensor(table, dtype=dtype).reshape(case["rows"], case["width"])
    weight.requires_grad_()
    leaves = [weight]
    indices = lib.tensor(case["indices"], dtype=lib.int64).reshape(case["shape"])
    kwargs = dict(case["options"], mode=case["mode"])
    if "offsets" in case:
        kwargs["offsets"] = lib.tensor(case["offsets"], dtype=lib.int64)
    if case.get("per_sample_weights"):
        samples = [gen.uniform(-1, 1) for _ in case["indices"]]
        per_sample = lib.tensor(samples, dtype=dtype).reshape(case["shape"])
        per_sample.requires_grad_()
        leaves.append(per_sample)
        kwargs["per_sample_weights"] = per_sample
    return lib.nn.functional.embedding_bag(indices, weight, **kwargs), leaves


def _agrees(case: dict[str, Any]) -> None:
    """Asserts the values, the gradients and the grad_fn name agree."""
    torch = require_torch()
    ours, our_leaves = _run(st, case)
    theirs, their_leaves = _run(torch, case)
    tolerance = {"rtol": 1e-5, "atol": 1e-6}
    assert ours.dtype.name == str(theirs.dtype)[6:]
    torch.testing.assert_close(to_torch(ours), theirs.detach(), **tolerance)
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__
    gen = random.Random(case["seed"] + 2000)
    upstream = [gen.uniform(-1, 1) for _ in range(theirs.numel())]
    ours.backward(st.tensor(upstream, dtype=ours.dtype).reshape(ours.shape))
    theirs.backward(torch.tensor(upstream, dtype=theirs.dtype).reshape(theirs.shape))
    for mine, other in zip(our_leaves, their_leaves):
        torch.testing.assert_close(to_torch(mine.grad), other.grad, **tolerance)


@pytest.mark.parametrize("seed", range(RANDOM_CASES))
def test_random_bags_match_torch(seed: int) -> None:
    _agrees(_random_case(seed))


def test_random_cases_cover_every_option() -> None:
    """The random cases reach every mode, padding, empty bags and the rest."""
    cases = [_random_case(seed) for seed in range(RANDOM_CASES)]
    assert {c["mode"] for c in cases} == {"sum", "mean", "max"}
    assert {c["dtype"] for c in cases} == {"float32", "float64"}
    assert any("padding_idx" in c["options"] for c in cases)
    assert any(c["options"].get("include_last_offset") for c in cases)
    assert any(c.get("per_sample_weights") for c in cases)
    assert any(c["options"].get("scale_grad_by_freq") for c in cases)
    assert any(len(c["shape"]) == 2 for c in cases)
    empty_bag = [
        c
        for c in cases
        if "offsets" in c and len(set(c["offsets"])) < len(c["offsets"])
    ]
    assert empty_bag


def test_known_bags_by_hand() -> None:
    """Sum, mean and max of two bags, one with the padding row left out."""
    weight = st.tensor([[1.0, 0.0], [2.0, 4.0], [3.0, -1.0]])
    indices, offsets = st.tensor([0, 1, 2, 1]), st.tensor([0, 2, 2])
    assert F.embedding_bag(indices, weight, offsets, mode="sum").tolist() == [
        [3.0, 4.0],
        [0.0, 0.0],
        [5.0, 3.0],
    ]
    mean = F.embedding_bag(indices, weight, offsets, mode="mean", padding_idx=1)
    assert mean.tolist() == [[1.0, 0.0], [0.0, 0.0], [3.0, -1.0]]
    top = F.embedding_bag(indices, weight, offsets, mode="max")
    assert top.tolist() == [[2.0, 4.0], [0.0, 0.0], [3.0, 4.0]]


def test_max_gradient_goes_to_the_maximum() -> None:
    weight = st.tensor([[1.0, 5.0], [2.0, 4.0]], requires_grad=True)
    F.embedding_bag(st.tensor([[0, 1]]), weight, mode="max").sum().backward()
    assert weight.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_max_norm_renormalizes_like_torch() -> None:
    torch = require_torch()
    ours = st.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    theirs = to_torch(ours)
    indices, offsets = [0, 1, 0], [0, 2]
    F.embedding_bag(st.tensor(indices), ours, st.tensor(offsets), max_norm=1.0)
    torch.nn.functional.embedding_bag(
        torch.tensor(indices), theirs, torch.tensor(offsets), max_norm=1.0
    )
    torch.testing.assert_close(to_torch(ours), theirs)


def test_int32_indices_match_torch() -> None:
    torch = require_torch()
    weight = [[0.5, 1.0], [2.0, -1.0], [1.5, 0.0]]

    def run(lib):
        table = lib.tensor(weight)
        indices = lib.tensor([2, 0, 1], dtype=lib.int32)
        return lib.nn.functional.embedding_bag(
            indices, table, lib.tensor([0, 1], dtype=lib.int32)
        )

    torch.testing.assert_close(to_torch(run(st)), run(torch))


def _call(lib: Any, indices: Any, offsets: Any = None, **kwargs: Any) -> Any:
    """embedding_bag of a 5 x 3 table, with plain lists turned into tensors."""
    weight = kwargs.pop("weight", None)
    if weight is None:
        weight = lib.ones(5, 3)
    index_dtype = kwargs.pop("index_dtype", lib.int64)
    if isinstance(indices, list):
        indices = lib.tensor(indices, dtype=index_dtype)
    if isinstance(offsets, list):
        offsets = lib.tensor(offsets, dtype=lib.int64)
    return lib.nn.functional.embedding_bag(indices, weight, offsets, **kwargs)


ERRORS = {
    "first offset": lambda lib: _call(lib, [0, 1, 2], [1, 2]),
    "offset past the end": lambda lib: _call(lib, [0, 1, 2], [0, 6]),
    "negative offset": lambda lib: _call(lib, [0, 1, 2], [0, -1]),
    "negative last offset": lambda lib: _call(
        lib, [0, 1, 2], [0, 2, -1], include_last_offset=True
    ),
    "decreasing offsets": lambda lib: _call(lib, [0, 1, 2, 3], [0, 3, 2]),
    "no offsets to include": lambda lib: _call(
        lib, [0, 1], lib.tensor([], dtype=lib.int64), include_last_offset=True
    ),
    "index too large": lambda lib: _call(lib, [0, 7], [0, 1]),
    "negative index": lambda lib: _call(lib, [0, -1], [0, 1], mode="mean"),
    "index too large for max": lambda lib: _call(lib, [0, 9], [0, 1], mode="max"),
    "float indices": lambda lib: _call(lib, lib.tensor([0.0, 1.0]), [0, 1]),
    "float offsets": lambda lib: _call(lib, [0, 1], lib.tensor([0.0, 1.0])),
    "padding too large": lambda lib: _call(lib, [0, 1], [0, 1], padding_idx=5),
    "padding too small": lambda lib: _call(lib, [0, 1], [0, 1], padding_idx=-6),
    "mean with sample weights": lambda lib: _call(
        lib, [0, 1], [0, 1], per_sample_weights=lib.ones(2)
    ),
    "max with sample weights": lambda lib: _call(
        lib, [0, 1], [0, 1], mode="max", per_sample_weights=lib.ones(2)
    ),
    "sample weights of another shape": lambda lib: _call(
        lib, [0, 1], [0, 1], mode="sum", per_sample_weights=lib.ones(3)
    ),
    "sample weights of another dtype": lambda lib: _call(
        lib, [0, 1], [0, 1], mode="sum", per_sample_weights=lib.ones(2).double()
    ),
    "unknown mode": lambda lib: _call(lib, [0, 1], [0, 1], mode="median"),
    "max with frequencies": lambda lib: _call(
        lib, [0, 1], [0, 1], mode="max", scale_grad_by_freq=True
    ),
    "max sparse": lambda lib: _call(lib, [0, 1], [0, 1], mode="max", sparse=True),
    "2-d input with offsets": lambda lib: _call(lib, lib.tensor([[0, 1]]), [0]),
    "1-d input without offsets": lambda lib: _call(lib, [0, 1]),
    "2-d offsets": lambda lib: _call(lib, [0, 1], lib.tensor([[0, 1]])),
    "3-d input": lambda lib: _call(lib, lib.zeros(1, 1, 2, dtype=lib.int64)),
    "1-d weight": lambda lib: _call(lib, [0, 1], [0], weight=lib.ones(5)),
    "integer weight": lambda lib: _call(
        lib, [0, 1], [0], weight=lib.ones(5, 3, dtype=lib.int32)
    ),
    "empty rows": lambda lib: _call(lib, lib.zeros(2, 0, dtype=lib.int64)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name: str) -> None:
    same_error(ERRORS[name])


def test_sparse_gradients_are_refused_clearly() -> None:
    with pytest.raises(NotImplementedError, match="sparse gradients"):
        _call(st, [0, 1], [0, 1], sparse=True)


def test_edges_match_torch() -> None:
    """No bags, an empty input with bags, a bag of padding only."""
    torch = require_torch()
    edges = [
        lambda lib: _call(lib, [0, 1], lib.tensor([], dtype=lib.int64)),
        lambda lib: _call(lib, [0, 1], [0], include_last_offset=True),
        lambda lib: _call(lib, lib.tensor([], dtype=lib.int64), [0, 0], mode="max"),
        lambda lib: _call(lib, [2, 2], [0, 1], mode="mean", padding_idx=2),
    ]
    for run in edges:
        ours, theirs = run(st), run(torch)
        assert tuple(ours.shape) == tuple(theirs.shape)
        torch.testing.assert_close(to_torch(ours).reshape(theirs.shape), theirs)


@pytest.mark.parametrize(
    "options",
    [{}, {"mode": "sum", "padding_idx": -1}, {"mode": "max", "max_norm": 1.5}],
)
def test_module_matches_torch(options: dict[str, Any]) -> None:
    torch = require_torch()
    torch.manual_seed(0)
    theirs = torch.nn.EmbeddingBag(6, 3, **options)
    ours = nn.EmbeddingBag(6, 3, **options, _weight=from_torch(theirs.weight))
    same_structure(ours, theirs)
    indices, offsets = [1, 5, 0, 5, 3, 2], [0, 2, 2, 5]
    out = ours(st.tensor(indices), st.tensor(offsets))
    expected = theirs(torch.tensor(indices), torch.tensor(offsets))
    torch.testing.assert_close(to_torch(out), expected.detach())
    out.sum().backward()
    expected.sum().backward()
    torch.testing.assert_close(to_torch(ours.weight.grad), theirs.weight.grad)


def test_module_default_weights_zero_the_padding_row() -> None:
    layer = nn.EmbeddingBag(4, 2, padding_idx=-1, mode="sum")
    assert layer.padding_idx == 3
    assert layer.weight[3].tolist() == [0.0, 0.0]
    assert layer.weight.requires_grad


def test_from_pretrained_matches_torch() -> None:
    torch = require_torch()
    table = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    ours = nn.EmbeddingBag.from_pretrained(st.tensor(table), mode="max")
    theirs = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(table), mode="max")
    assert repr(ours) == repr(theirs)
    assert ours.weight.requires_grad is theirs.weight.requires_grad is False
    unfrozen = nn.EmbeddingBag.from_pretrained(st.tensor(table), freeze=False)
    assert unfrozen.weight.requires_grad
    out = ours(st.tensor([[0, 2], [1, 1]]))
    torch.testing.assert_close(
        to_torch(out), theirs(torch.tensor([[0, 2], [1, 1]])).detach()
    )
    same_error(lambda lib: lib.nn.EmbeddingBag.from_pretrained(lib.ones(3)))
    same_error(lambda lib: lib.nn.EmbeddingBag(3, 2, padding_idx=3))


def test_module_per_sample_weights_match_torch() -> None:
    torch = require_torch()
    table = [[1.0, -2.0], [0.5, 4.0], [3.0, 1.0]]
    ours = nn.EmbeddingBag.from_pretrained(st.tensor(table), mode="sum")
    theirs = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(table), mode="sum")
    samples = [0.5, -1.0, 2.0]
    out = ours(st.tensor([2, 0, 1]), st.tensor([0, 1]), st.tensor(samples))
    expected = theirs(
        torch.tensor([2, 0, 1]), torch.tensor([0, 1]), torch.tensor(samples)
    )
    torch.testing.assert_close(to_torch(out), expected)


# ----------------------------------------------------------------------
# Finite differences, without torch
# ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_gradcheck_table(mode: str) -> None:
    st.manual_seed(0)
    weight = st.randn(5, 3, dtype=st.float64, requires_grad=True)
    indices, offsets = st.tensor([0, 4, 4, 2, 1, 3]), st.tensor([0, 3, 3, 5])

    def pooled(table: st.Tensor) -> st.Tensor:
        return F.embedding_bag(indices, table, offsets, mode=mode, padding_idx=2)

    assert gradcheck(pooled, (weight,))


def test_gradcheck_per_sample_weights_and_frequencies() -> None:
    st.manual_seed(1)
    weight = st.randn(4, 2, dtype=st.float64, requires_grad=True)
    samples = st.randn(2, 3, dtype=st.float64, requires_grad=True)
    indices = st.tensor([[0, 3, 3], [1, 0, 2]])

    def pooled(table: st.Tensor, per_sample: st.Tensor) -> st.Tensor:
        return F.embedding_bag(
            indices, table, mode="sum", per_sample_weights=per_sample, padding_idx=1
        )

    assert gradcheck(pooled, (weight, samples))
    # With scale_grad_by_freq the gradient is scaled on purpose, so it is not
    # the derivative: check it against the plain one divided as PyTorch's CPU
    # kernel divides it (index n of the distinct sorted ones [0, 1, 2, 3] by
    # the count of the n-th of the sorted indices [0, 0, 1, 2, 3, 3]).
    plain = F.embedding_bag(indices, weight, mode="mean")
    plain.sum().backward()
    unscaled = weight.grad.tolist()
    weight.grad = None
    F.embedding_bag(
        indices, weight, mode="mean", scale_grad_by_freq=True
    ).sum().backward()
    counts = {0: 2, 1: 2, 2: 1, 3: 1}
    expected = [[g / counts[row] for g in grads] for row, grads in enumerate(unscaled)]
    for row, grads in zip(weight.grad.tolist(), expected):
        assert row == pytest.approx(grads)


def test_second_derivatives_with_per_sample_weights() -> None:
    """The table's gradient is linear in the sample weights: it can be
    differentiated again."""
    st.manual_seed(2)
    weight = st.randn(3, 2, dtype=st.float64, requires_grad=True)
    samples = st.randn(4, dtype=st.float64, requires_grad=True)
    indices, offsets = st.tensor([0, 2, 2, 1]), st.tensor([0, 1])

    def pooled(table: st.Tensor, per_sample: st.Tensor) -> st.Tensor:
        return F.embedding_bag(
            indices, table, offsets, mode="sum", per_sample_weights=per_sample
        )

    assert gradgradcheck(pooled, (weight, samples))
