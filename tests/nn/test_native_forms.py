"""torch.embedding, torch.embedding_bag, torch.ctc_loss, torch.grid_sampler
and the other plain forms under the functional layers, against torch:
values, gradients, grad_fn names, embedding_bag's three records
(offset2bag, bag_size, max_indices), errors, plus finite-difference checks
that need no torch.

The random cases of embedding_bag, ctc_loss and grid_sampler are those of
their functional tests, called through the plain forms."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.nn import test_ctc_loss, test_embedding_bag, test_grid_sample
from tests.parity import require_torch, same_error, to_torch

RANDOM_CASES = 120
MODES = {"sum": 0, "mean": 1, "max": 2}


# ----------------------------------------------------------------------
# torch.embedding
# ----------------------------------------------------------------------


def _embedding_case(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    rows, width = rng.randint(1, 6), rng.randint(1, 4)
    shape = tuple(rng.randint(0, 3) for _ in range(rng.randint(0, 3)))
    count = 1
    for size in shape:
        count *= size
    return {
        "seed": seed,
        "rows": rows,
        "width": width,
        "shape": shape,
        "indices": [rng.randrange(rows) for _ in range(count)],
        "index_dtype": rng.choice(["int64", "int32"]),
        "dtype": rng.choice(["float32", "float64"]),
        # Outside the table too: then no row is the padding.
        "padding_idx": rng.choice([-1, rng.randint(-rows - 1, rows + 1)]),
        "scale_grad_by_freq": rng.random() < 0.4,
    }


def _run_embedding(lib: Any, case: dict[str, Any]) -> tuple[Any, Any]:
    gen = random.Random(case["seed"] + 1000)
    table = [gen.uniform(-2, 2) for _ in range(case["rows"] * case["width"])]
    weight = lib.tensor(table, dtype=getattr(lib, case["dtype"]))
    weight = weight.reshape(case["rows"], case["width"]).requires_grad_()
    indices = lib.tensor(case["indices"], dtype=getattr(lib, case["index_dtype"]))
    indices = indices.reshape(case["shape"])
    out = lib.embedding(
        weight, indices, case["padding_idx"], case["scale_grad_by_freq"], False
    )
    return out, weight


@pytest.mark.parametrize("seed", range(RANDOM_CASES))
def test_random_embedding_matches_torch(seed: int) -> None:
    torch = require_torch()
    case = _embedding_case(seed)
    ours, our_weight = _run_embedding(st, case)
    theirs, their_weight = _run_embedding(torch, case)
    assert ours.dtype.name == str(theirs.dtype)[6:]
    assert to_torch(ours).tolist() == theirs.tolist()  # a lookup is exact
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__
    gen = random.Random(seed + 2000)
    upstream = [gen.uniform(-1, 1) for _ in range(theirs.numel())]
    ours.backward(st.tensor(upstream, dtype=ours.dtype).reshape(ours.shape))
    theirs.backward(torch.tensor(upstream, dtype=theirs.dtype).reshape(theirs.shape))
    torch.testing.assert_close(to_torch(our_weight.grad), their_weight.grad)


def test_embedding_padding_is_not_wrapped() -> None:
    """-1 is no padding here (F.embedding wraps it to the last row)."""
    weight = st.ones(3, 2, requires_grad=True)
    st.embedding(weight, st.tensor([0, 2]), -1).sum().backward()
    assert weight.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
    weight.grad = None
    st.embedding(weight, st.tensor([0, 2]), 2).sum().backward()
    assert weight.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]


EMBEDDING_ERRORS = {
    "float indices": lambda lib: lib.embedding(lib.ones(3, 2), lib.tensor([0.0])),
    "1-d weight": lambda lib: lib.embedding(lib.ones(3), lib.tensor([0])),
    "index too large": lambda lib: lib.embedding(lib.ones(3, 2), lib.tensor([3])),
    "negative index": lambda lib: lib.embedding(lib.ones(3, 2), lib.tensor([-1])),
    "padding of a string": lambda lib: lib.embedding(
        lib.ones(3, 2), lib.tensor([0]), "a"
    ),
    "indices missing": lambda lib: lib.embedding(lib.ones(3, 2)),
}


@pytest.mark.parametrize("name", list(EMBEDDING_ERRORS))
def test_embedding_errors_match_torch(name: str) -> None:
    match_message = name != "indices missing"
    same_error(EMBEDDING_ERRORS[name], match_message=match_message)


def test_embedding_integer_table_matches_torch() -> None:
    torch = require_torch()
    ours = st.embedding(st.tensor([[1, 2], [3, 4]]), st.tensor([1, 0, 1]))
    theirs = torch.embedding(torch.tensor([[1, 2], [3, 4]]), torch.tensor([1, 0, 1]))
    assert ours.dtype.name == "int64" and ours.tolist() == theirs.tolist()


# ----------------------------------------------------------------------
# torch.embedding_bag
# ----------------------------------------------------------------------


def _bag_arguments(lib: Any, case: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The positional arguments of ``torch.embedding_bag`` for a functional
    case (a 2-d input as its rows' bags), and the leaves."""
    gen = random.Random(case["seed"] + 1000)
    dtype = getattr(lib, case["dtype"])
    table = [gen.uniform(-2, 2) for _ in range(case["rows"] * case["width"])]
    weight = lib.tensor(table, dtype=dtype).reshape(case["rows"], case["width"])
    if case["seed"] % 4:
        weight.requires_grad_()  # without it, a sum has one bag_size per offset
    index_type = lib.int32 if case["seed"] % 3 == 0 else lib.int64
    indices = lib.tensor(case["indices"], dtype=index_type)
    options = case["options"]
    if "offsets" in case:
        offsets = case["offsets"]
        last = options.get("include_last_offset", False)
    else:
        rows, length = case["shape"]
        offsets, last = list(range(0, rows * length, length)), False
    leaves = [weight]
    samples = None
    if case.get("per_sample_weights"):
        values = [gen.uniform(-1, 1) for _ in case["indices"]]
        samples = lib.tensor(values, dtype=dtype).requires_grad_()
        leaves.append(samples)
    arguments = [
        weight,
        indices,
        lib.tensor(offsets, dtype=index_type),
        options.get("scale_grad_by_freq", False),
        MODES[case["mode"]],
        False,
        samples,
        last,
        options.get("padding_idx"),
    ]
    return arguments, leaves


def _bag_agrees(case: dict[str, Any]) -> None:
    """Asserts the four results (the pooled rows to the last bit: float32
    sums are rounded as torch's kernel rounds them), the grad_fn name and
    the gradients agree."""
    torch = require_torch()
    ours_args, our_leaves = _bag_arguments(st, case)
    their_args, their_leaves = _bag_arguments(torch, case)
    ours, theirs = st.embedding_bag(*ours_args), torch.embedding_bag(*their_args)
    for mine, other in zip(ours[1:], theirs[1:]):
        assert mine.dtype.name == str(other.dtype)[6:]
        assert tuple(mine.shape) == tuple(other.shape)
        assert mine.tolist() == other.tolist()
    out, expected = ours[0], theirs[0]
    assert out.dtype.name == str(expected.dtype)[6:]
    assert to_torch(out).tolist() == expected.tolist()
    if not expected.requires_grad:
        return
    assert out.grad_fn.name() == type(expected.grad_fn).__name__
    gen = random.Random(case["seed"] + 2000)
    upstream = [gen.uniform(-1, 1) for _ in range(expected.numel())]
    out.backward(st.tensor(upstream, dtype=out.dtype).reshape(out.shape))
    expected.backward(
        torch.tensor(upstream, dtype=expected.dtype).reshape(expected.shape)
    )
    tolerance = {"rtol": 1e-5, "atol": 1e-6}
    for mine, other in zip(our_leaves, their_leaves):
        if other.grad is None:  # a table that needs no gradient
            assert mine.grad is None
            continue
        torch.testing.assert_close(to_torch(mine.grad), other.grad, **tolerance)


@pytest.mark.parametrize("seed", range(RANDOM_CASES))
def test_random_embedding_bag_matches_torch(seed: int) -> None:
    _bag_agrees(test_embedding_bag._random_case(seed))


def _narrow_case(seed: int) -> dict[str, Any]:
    """A float32, float16 or bfloat16 table, contiguous or transposed (which
    takes torch off its fast path), with or without padding."""
    rng = random.Random(seed)
    rows, width = rng.randint(1, 6), rng.randint(1, 5)
    indices = [rng.randrange(rows) for _ in range(rng.randint(0, 9))]
    cuts = sorted(rng.randint(0, len(indices)) for _ in range(rng.randint(0, 3)))
    weighted = rng.random() < 0.5
    return {
        "rows": rows,
        "width": width,
        "table": [rng.uniform(-3, 3) for _ in range(rows * width)],
        "indices": indices,
        "offsets": [0, *cuts],
        "dtype": rng.choice(["float32", "float16", "bfloat16"]),
        "transposed": rng.random() < 0.5,
        "samples": [rng.uniform(-1, 1) for _ in indices] if weighted else None,
        "padding_idx": rng.choice([None, rng.randrange(rows)]),
        "mode": 0 if weighted else rng.randint(0, 2),
    }


def _run_narrow(lib: Any, case: dict[str, Any]) -> list[Any]:
    dtype = getattr(lib, case["dtype"])
    weight = lib.tensor(case["table"], dtype=dtype)
    if case["transposed"]:
        weight = weight.reshape(case["width"], case["rows"]).t()
    else:
        weight = weight.reshape(case["rows"], case["width"])
    samples = case["samples"]
    results = lib.embedding_bag(
        weight,
        lib.tensor(case["indices"], dtype=lib.int64),
        lib.tensor(case["offsets"], dtype=lib.int64),
        False,
        case["mode"],
        False,
        None if samples is None else lib.tensor(samples, dtype=dtype),
        False,
        case["padding_idx"],
    )
    return [r.tolist() for r in results]


@pytest.mark.parametrize("seed", range(RANDOM_CASES))
def test_random_narrow_tables_match_torch(seed: int) -> None:
    """Every bit for float32 and float16 on both of torch's paths; bfloat16
    may differ in its last bit (torch's fast sum rounds a half up, its mean
    divides in bfloat16)."""
    torch = require_torch()
    case = _narrow_case(seed)
    ours, theirs = _run_narrow(st, case), _run_narrow(torch, case)
    assert ours[1:] == theirs[1:]
    if case["dtype"] == "bfloat16":
        tolerance = {"rtol": 8e-3, "atol": 0.0}
        torch.testing.assert_close(
            torch.tensor(ours[0]), torch.tensor(theirs[0]), **tolerance
        )
    else:
        assert ours[0] == theirs[0]


def test_embedding_bag_records_by_hand() -> None:
    """Bags [0, 4], [], [1, 4, 3, 3] with row 4 the padding."""
    weight = st.tensor([[0.0, 9.0], [1.0, 8.0], [2.0, 7.0], [3.0, 6.0], [4.0, 5.0]])
    indices, offsets = st.tensor([0, 4, 1, 4, 3, 3]), st.tensor([0, 2, 2])
    out, offset2bag, bag_size, max_indices = st.embedding_bag(
        weight, indices, offsets, False, 2, False, None, False, -1
    )
    assert out.tolist() == [[0.0, 9.0], [0.0, 0.0], [3.0, 8.0]]
    assert offset2bag.tolist() == [0, 0, 2, 2, 2, 2]
    assert bag_size.tolist() == [1, 0, 3]
    assert max_indices.tolist() == [[0, 0], [0, 0], [3, 1]]
    mean = st.embedding_bag(weight, indices, offsets, False, 1)
    assert mean[0].tolist() == [[2.0, 7.0], [0.0, 0.0], [2.75, 6.25]]
    assert mean[2].tolist() == mean[3].tolist() == [2, 0, 4]
    total = st.embedding_bag(weight, indices, offsets)  # float32 sum: fast path
    assert total[1].tolist() == [] and total[2].tolist() == [0, 0, 0]
    double = st.embedding_bag(weight.double(), indices, offsets)
    assert double[1].tolist() == [0, 0, 2, 2, 2, 2]


def _bag_call(lib: Any, *changes: Any, **options: Any) -> Any:
    arguments: list[Any] = [
        lib.ones(5, 3),
        lib.tensor([0, 4, 1, 4, 3, 3]),
        lib.tensor([0, 2, 2, 6]),
        False,
        0,
        False,
        None,
        False,
        None,
    ]
    for position, value in changes:
        arguments[position] = value(lib) if callable(value) else value
    return lib.embedding_bag(*arguments)


BAG_ERRORS = {
    "3-d indices": lambda lib: _bag_call(lib, (1, lib.zeros(1, 2, 3, dtype=lib.int64))),
    "2-d offsets": lambda lib: _bag_call(lib, (2, lib.tensor([[0, 2], [2, 6]]))),
    "float indices": lambda lib: _bag_call(lib, (1, lib.zeros(6))),
    "float offsets": lambda lib: _bag_call(lib, (2, lib.tensor([0.0, 2.0]))),
    "integer weight": lambda lib: _bag_call(lib, (0, lib.ones(5, 3, dtype=lib.int64))),
    "1-d weight": lambda lib: _bag_call(lib, (0, lib.ones(5))),
    "mean with sample weights": lambda lib: _bag_call(lib, (4, 1), (6, lib.ones(6))),
    "sample weights, too few": lambda lib: _bag_call(lib, (6, lib.ones(5))),
    "sample weights, 2-d": lambda lib: _bag_call(lib, (6, lib.ones(2, 3))),
    "sample weights, float64": lambda lib: _bag_call(
        lib, (6, lib.ones(6, dtype=lib.float64))
    ),
    "padding too large": lambda lib: _bag_call(lib, (8, 5)),
    "padding checked before dimensions": lambda lib: _bag_call(
        lib, (0, lib.ones(5)), (8, 9)
    ),
    "padding too small": lambda lib: _bag_call(lib, (8, -6)),
    "first offset": lambda lib: _bag_call(lib, (2, lib.tensor([1, 2]))),
    "offset past the end": lambda lib: _bag_call(lib, (2, lib.tensor([0, 7]))),
    "decreasing offsets": lambda lib: _bag_call(lib, (2, lib.tensor([0, 3, 2]))),
    "no offsets to include": lambda lib: _bag_call(
        lib, (2, lib.tensor([], dtype=lib.int64)), (7, True)
    ),
    "index too large for max": lambda lib: _bag_call(
        lib, (1, lib.tensor([0, 7])), (2, lib.tensor([0])), (4, 2)
    ),
    "mode 3": lambda lib: _bag_call(lib, (4, 3)),
    "mode as a string": lambda lib: _bag_call(lib, (4, "sum")),
    "offsets of None": lambda lib: _bag_call(lib, (2, None)),
}


@pytest.mark.parametrize("name", list(BAG_ERRORS))
def test_embedding_bag_errors_match_torch(name: str) -> None:
    same_error(BAG_ERRORS[name])


# ----------------------------------------------------------------------
# torch.ctc_loss
# ----------------------------------------------------------------------


def _ctc_agrees(case: dict[str, Any]) -> None:
    """The functional case through ``torch.ctc_loss``, the reduction as a
    number (none drawn as 0, 3 or -1)."""
    numbers = {"mean": 1, "sum": 2, "none": random.Random(case["seed"]).choice([0, 3])}
    numbered = dict(case, reduction=numbers[case["reduction"]])
    torch = require_torch()
    ours, our_leaf = _run_ctc(st, numbered)
    theirs, their_leaf = _run_ctc(torch, numbered)
    tolerance = {"rtol": 1e-4, "atol": 1e-5, "equal_nan": True}
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype)[6:]
    torch.testing.assert_close(to_torch(ours), theirs.detach(), **tolerance)
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__
    ours.sum().backward()
    theirs.sum().backward()
    torch.testing.assert_close(to_torch(our_leaf.grad), their_leaf.grad, **tolerance)


def _run_ctc(lib: Any, case: dict[str, Any]) -> tuple[Any, Any]:
    """The functional test's call, with ``lib.ctc_loss`` in its place."""

    class Plain:
        """``lib`` whose ``nn.functional.ctc_loss`` is ``lib.ctc_loss``."""

        def __getattr__(self, name: str) -> Any:
            return getattr(lib, name)

        class nn:  # noqa: N801 (stands for the module)
            class functional:  # noqa: N801
                @staticmethod
                def ctc_loss(*args: Any, **kwargs: Any) -> Any:
                    return lib.ctc_loss(*args, **kwargs)

    return test_ctc_loss._run(Plain(), case)


@pytest.mark.parametrize("seed", range(RANDOM_CASES))
def test_random_ctc_loss_matches_torch(seed: int) -> None:
    _ctc_agrees(test_ctc_loss._random_case(seed))


def _ctc_call(lib: Any, *extra: Any) -> Any:
    log_probs = lib.zeros(6, 2, 4)
    targets = lib.ones(2, 3, dtype=lib.int64)
    return lib.ctc_loss(log_probs, targets, [6, 5], [3, 2], *extra)


CTC_ERRORS = {
    "reduction as a string": lambda lib: _ctc_call(lib, 0, "mean"),
    "blank as a float": lambda lib: _ctc_call(lib, 0.0),
    "too many arguments": lambda lib: _ctc_call(lib, 0, 1, False, 1),
    "blank too large": lambda lib: _ctc_call(lib, 4, 1),
}


@pytest.mark.parametrize("name", list(CTC_ERRORS))
def test_ctc_loss_errors_match_torch(name: str) -> None:
    message = same_error(CTC_ERRORS[name], match_message=name == "blank too large")
    if name != "blank too large":
        assert message.startswith("ctc_loss() ")


def test_ctc_loss_reduction_numbers_by_hand() -> None:
    log_probs = st.tensor([[[-0.5, -1.5]], [[-1.0, -0.7]]], dtype=st.float64)
    losses = st.ctc_loss(log_probs, st.tensor([[1]]), [2], [1], 0, 0)
    assert tuple(losses.shape) == (1,)
    assert st.ctc_loss(log_probs, st.tensor([[1]]), [2], [1], 0, 2).item() == (
        losses.sum().item()
    )
    assert st.ctc_loss(log_probs, st.tensor([[1]]), [2], [1], 0, 7).shape == (1,)


# ----------------------------------------------------------------------
# Finite differences, without torch
# ----------------------------------------------------------------------


def test_gradcheck_embedding() -> None:
    st.manual_seed(0)
    weight = st.randn(4, 3, dtype=st.float64, requires_grad=True)
    indices = st.tensor([[0, 3, 3], [1, 0, 2]])
    assert gradcheck(lambda w: st.embedding(w, indices), (weight,))


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_gradcheck_embedding_bag(mode: int) -> None:
    st.manual_seed(1)
    weight = st.randn(5, 3, dtype=st.float64, requires_grad=True)
    indices, offsets = st.tensor([0, 4, 4, 2, 1, 3]), st.tensor([0, 3, 3, 6])

    def pooled(table: st.Tensor) -> st.Tensor:
        return st.embedding_bag(
            table, indices, offsets, False, mode, False, None, True
        )[0]

    assert gradcheck(pooled, (weight,))


def test_gradcheck_embedding_bag_sample_weights() -> None:
    st.manual_seed(2)
    weight = st.randn(4, 2, dtype=st.float64, requires_grad=True)
    samples = st.randn(5, dtype=st.float64, requires_grad=True)
    indices, offsets = st.tensor([0, 3, 1, 1, 2]), st.tensor([0, 2])

    def pooled(table: st.Tensor, weights: st.Tensor) -> st.Tensor:
        return st.embedding_bag(table, indices, offsets, False, 0, False, weights)[0]

    assert gradcheck(pooled, (weight, samples))


def test_gradcheck_ctc_loss() -> None:
    st.manual_seed(3)
    logits = st.randn(5, 2, 4, dtype=st.float64, requires_grad=True)
    targets = st.tensor([[1, 2], [3, 3]])

    def loss(x: st.Tensor) -> st.Tensor:
        return st.ctc_loss(x.log_softmax(2), targets, [5, 4], [2, 2], 0, 2)

    assert gradcheck(loss, (logits,))


# ----------------------------------------------------------------------
# torch.grid_sampler, torch.affine_grid_generator, adaptive 1-d pooling
# ----------------------------------------------------------------------

SAMPLING_CASES = 40


@pytest.mark.parametrize("seed", range(SAMPLING_CASES))
def test_random_grid_sampler_matches_torch(seed: int) -> None:
    """The functional cases of grid_sample, with the modes as numbers."""
    torch = require_torch()
    case = test_grid_sample._sample_case(seed)
    modes = ("bilinear", "nearest", "bicubic").index(case["mode"])
    paddings = ("zeros", "border", "reflection").index(case["padding_mode"])
    name = "grid_sampler" if seed % 2 else f"grid_sampler_{len(case['input']) - 2}d"
    results = []
    for lib in (st, torch):
        gen = random.Random(seed)
        count = math.prod(case["input"])
        image = lib.tensor([gen.gauss(0, 1) for _ in range(count)])
        image = image.to(getattr(lib, case["dtype"])).reshape(case["input"])
        grid = lib.tensor(case["points"], dtype=image.dtype).reshape(case["grid"])
        grid.requires_grad_()
        out = getattr(lib, name)(image, grid, modes, paddings, case["align_corners"])
        out.sum().backward()
        results.append((out, grid.grad))
    for ours, theirs in zip(results[0], results[1]):
        torch.testing.assert_close(
            to_torch(ours).double(), theirs.double(), rtol=2e-5, atol=2e-5
        )
    assert results[0][0].grad_fn.name() == type(results[1][0].grad_fn).__name__


def test_affine_grid_generator_and_1d_pools_match_torch() -> None:
    torch = require_torch()
    theta = [[[0.8, -0.3, 0.2], [0.1, 1.2, -0.5]]]
    ours = st.affine_grid_generator(st.tensor(theta), [1, 2, 3, 4], True)
    theirs = torch.affine_grid_generator(torch.tensor(theta), [1, 2, 3, 4], True)
    torch.testing.assert_close(to_torch(ours), theirs)
    row = [[[1.0, 3.0, 2.0, 5.0, 4.0, 0.5, 7.0]]]
    pooled, where = st.adaptive_max_pool1d(st.tensor(row), 3)
    expected, expected_where = torch.adaptive_max_pool1d(torch.tensor(row), 3)
    assert pooled.tolist() == expected.tolist()
    assert where.tolist() == expected_where.tolist()
    torch.testing.assert_close(
        to_torch(st.adaptive_avg_pool1d(st.tensor(row), 3)),
        torch.adaptive_avg_pool1d(torch.tensor(row), 3),
    )


SAMPLER_ERRORS = {
    "mode as a string": lambda lib: lib.grid_sampler(
        lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2), "bilinear", 0, False
    ),
    "2-d sampler of a volume": lambda lib: lib.grid_sampler_2d(
        lib.ones(1, 1, 2, 2, 2), lib.zeros(1, 1, 1, 1, 3), 0, 0, False
    ),
    "3-d sampler of an image": lambda lib: lib.grid_sampler_3d(
        lib.ones(1, 1, 3, 3), lib.zeros(1, 2, 2, 2), 0, 0, False
    ),
    "size of three": lambda lib: lib.affine_grid_generator(
        lib.zeros(1, 2, 3), [1, 1, 2], False
    ),
    "theta of three rows": lambda lib: lib.affine_grid_generator(
        lib.zeros(1, 3, 3), [1, 1, 2, 2], False
    ),
    "theta of another batch": lambda lib: lib.affine_grid_generator(
        lib.zeros(2, 2, 3), [3, 1, 2, 2], False
    ),
}


@pytest.mark.parametrize("name", list(SAMPLER_ERRORS))
def test_sampler_errors_match_torch(name: str) -> None:
    same_error(SAMPLER_ERRORS[name])


def test_unknown_sampling_numbers_are_refused() -> None:
    """PyTorch reads uninitialised memory for them; the engine refuses."""
    with pytest.raises(RuntimeError, match="unknown interpolation_mode 3"):
        st.grid_sampler(st.ones(1, 1, 2, 2), st.zeros(1, 1, 1, 2), 3, 0, False)
    with pytest.raises(RuntimeError, match="unknown padding_mode -1"):
        st.grid_sampler(st.ones(1, 1, 2, 2), st.zeros(1, 1, 1, 2), 0, -1, False)
