"""ctc_loss and CTCLoss against torch: values, gradients and grad_fn names on
seeded random cases (padded and concatenated targets, every reduction,
float32 and float64, zero_infinity, impossible alignments, unbatched
input), the module form, errors and their messages, plus finite-difference
checks that need no torch."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib import nn
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.parity import require_torch, same_error, to_torch

RANDOM_CASES = 120


def _random_case(seed: int) -> dict[str, Any]:
    """The arguments of one random call, as plain Python values."""
    rng = random.Random(seed)
    frames, batch, classes = rng.randint(1, 7), rng.randint(1, 3), rng.randint(2, 5)
    blank = rng.randrange(classes)
    labels = [c for c in range(classes) if c != blank]
    longest = rng.randint(0, 4)
    target_lengths = [rng.randint(0, longest) for _ in range(batch)]
    targets = [[rng.choice(labels) for _ in range(longest)] for _ in range(batch)]
    log_probs = [rng.gauss(0, 1.5) for _ in range(frames * batch * classes)]
    return {
        "seed": seed,
        "shape": (frames, batch, classes),
        "log_probs": log_probs,
        "normalized": rng.random() < 0.8,
        "blank": blank,
        "targets": targets,
        "concatenated": rng.random() < 0.4,
        # Often shorter than the targets need: impossible alignments.
        "input_lengths": [rng.randint(0, frames) for _ in range(batch)],
        "target_lengths": target_lengths,
        "lengths_as": rng.choice(["tensor", "tuple", "list"]),
        "reduction": rng.choice(["none", "sum", "mean"]),
        "zero_infinity": rng.random() < 0.5,
        "unbatched": batch == 1 and rng.random() < 0.5,
        "dtype": rng.choice(["float32", "float64"]),
    }


def _lengths(lib: Any, values: list[int], kind: str) -> Any:
    if kind == "tensor":
        return lib.tensor(values, dtype=lib.int64)
    return tuple(values) if kind == "tuple" else list(values)


def _run(lib: Any, case: dict[str, Any]) -> tuple[Any, Any]:
    """The call in ``lib``: the loss and the leaf ``log_probs``."""
    dtype = getattr(lib, case["dtype"])
    leaf = lib.tensor(case["log_probs"], dtype=dtype).reshape(case["shape"])
    leaf.requires_grad_()
    log_probs = leaf.log_softmax(2) if case["normalized"] else leaf
    lengths = case["target_lengths"]
    if case["concatenated"]:
        flat = [v for row, n in zip(case["targets"], lengths) for v in row[:n]]
        targets = lib.tensor(flat, dtype=lib.int64)
    else:
        targets = lib.tensor(case["targets"], dtype=lib.int64)
        targets = targets.reshape(len(lengths), -1)
    input_lengths = case["input_lengths"]
    if case["unbatched"]:
        log_probs = log_probs[:, 0]
        targets = targets.reshape(-1)[: lengths[0]]
    loss = lib.nn.functional.ctc_loss(
        log_probs,
        targets,
        _lengths(lib, input_lengths, case["lengths_as"]),
        _lengths(lib, lengths, case["lengths_as"]),
        blank=case["blank"],
        reduction=case["reduction"],
        zero_infinity=case["zero_infinity"],
    )
    return loss, leaf


def _agrees(case: dict[str, Any]) -> None:
    """Asserts the loss, its grad_fn name and the gradient agree."""
    torch = require_torch()
    ours, our_leaf = _run(st, case)
    theirs, their_leaf = _run(torch, case)
    tolerance = {"rtol": 1e-4, "atol": 1e-5, "equal_nan": True}
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype)[6:]
    torch.testing.assert_close(to_torch(ours), theirs.detach(), **tolerance)
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__
    gen = random.Random(case["seed"] + 1000)
    upstream = [gen.uniform(0.5, 1.5) for _ in range(theirs.numel())]
    ours.backward(st.tensor(upstream, dtype=ours.dtype).reshape(ours.shape))
    theirs.backward(torch.tensor(upstream, dtype=theirs.dtype).reshape(theirs.shape))
    torch.testing.assert_close(to_torch(our_leaf.grad), their_leaf.grad, **tolerance)


@pytest.mark.parametrize("seed", range(RANDOM_CASES))
def test_random_cases_match_torch(seed: int) -> None:
    _agrees(_random_case(seed))


def test_random_cases_cover_every_option() -> None:
    cases = [_random_case(seed) for seed in range(RANDOM_CASES)]
    assert {c["reduction"] for c in cases} == {"none", "sum", "mean"}
    assert {c["dtype"] for c in cases} == {"float32", "float64"}
    assert {c["lengths_as"] for c in cases} == {"tensor", "tuple", "list"}
    assert any(c["unbatched"] for c in cases)
    assert any(c["concatenated"] for c in cases)
    assert any(c["zero_infinity"] for c in cases)
    assert any(not c["normalized"] for c in cases)
    impossible = [
        c
        for c in cases
        if any(n < t for n, t in zip(c["input_lengths"], c["target_lengths"]))
    ]
    assert len(impossible) > 10


def test_one_frame_by_hand() -> None:
    """One frame, one label: the only path is the label itself."""
    log_probs = st.tensor([[[math.log(0.2), math.log(0.5), math.log(0.3)]]])
    loss = F.ctc_loss(log_probs, st.tensor([[1]]), [1], [1], reduction="sum")
    assert loss.item() == pytest.approx(-math.log(0.5))
    # Two frames, label 1: paths "1 1", "- 1", "1 -".
    two = st.tensor(
        [[[math.log(0.2), math.log(0.8)]], [[math.log(0.6), math.log(0.4)]]]
    )
    loss = F.ctc_loss(two, st.tensor([[1]]), [2], [1], reduction="sum")
    assert loss.item() == pytest.approx(-math.log(0.8 * 0.4 + 0.2 * 0.4 + 0.8 * 0.6))


def test_impossible_alignment_is_infinite_or_zero() -> None:
    log_probs = st.randn(2, 1, 3, dtype=st.float64).log_softmax(2).requires_grad_()
    targets = st.tensor([[1, 1]])  # needs a blank between: three frames
    loss = F.ctc_loss(log_probs, targets, [2], [2], reduction="none")
    assert loss.tolist() == [math.inf]
    loss.sum().backward()
    assert all(math.isnan(v) for v in log_probs.grad.reshape(-1).tolist())
    log_probs.grad = None
    zeroed = F.ctc_loss(log_probs, targets, [2], [2], zero_infinity=True)
    assert zeroed.item() == 0.0
    zeroed.backward()
    assert log_probs.grad.reshape(-1).tolist() == [0.0] * 6


def _call(lib: Any, **changes: Any) -> Any:
    """A valid call (T=6, N=2, C=4, padded targets) with ``changes``."""
    args: dict[str, Any] = {
        "log_probs": lib.zeros(6, 2, 4),
        "targets": lib.ones(2, 3, dtype=lib.int64),
        "input_lengths": lib.tensor([6, 5]),
        "target_lengths": lib.tensor([3, 2]),
    }
    args.update({k: v(lib) if callable(v) else v for k, v in changes.items()})
    return lib.nn.functional.ctc_loss(**args)


ERRORS = {
    "reduction": {"reduction": "average"},
    "input length too long": {"input_lengths": lambda lib: lib.tensor([7, 5])},
    "negative input length": {"input_lengths": lambda lib: lib.tensor([6, -1])},
    "target length too long": {"target_lengths": lambda lib: lib.tensor([4, 2])},
    "negative target length": {"target_lengths": lambda lib: lib.tensor([-1, 2])},
    "too few target lengths": {"target_lengths": lambda lib: lib.tensor([3])},
    "too few input lengths": {"input_lengths": lambda lib: lib.tensor([6])},
    "blank too large": {"blank": 4},
    "negative blank": {"blank": -1},
    "float input lengths": {"input_lengths": lambda lib: lib.tensor([6.0, 5.0])},
    "float target lengths": {"target_lengths": lambda lib: lib.tensor([3.0, 2.0])},
    "integer log_probs": {"log_probs": lambda lib: lib.zeros(6, 2, 4, dtype=lib.int32)},
    "4-d log_probs": {"log_probs": lambda lib: lib.zeros(1, 6, 2, 4)},
    "1-d log_probs": {"log_probs": lambda lib: lib.zeros(4)},
    "unbatched with two lengths": {"log_probs": lambda lib: lib.zeros(6, 4)},
    "3-d targets": {"targets": lambda lib: lib.ones(1, 2, 3, dtype=lib.int64)},
    "padded targets too short": {
        "targets": lambda lib: lib.ones(2, 1, dtype=lib.int64)
    },
    "padded targets, wrong batch": {
        "targets": lambda lib: lib.ones(3, 3, dtype=lib.int64)
    },
    "concatenated targets too short": {
        "targets": lambda lib: lib.ones(4, dtype=lib.int64)
    },
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name: str) -> None:
    same_error(lambda lib: _call(lib, **ERRORS[name]))


def test_lengths_that_are_not_ints_are_a_type_error() -> None:
    message = same_error(lambda lib: _call(lib, input_lengths=6), match_message=False)
    assert message.startswith("ctc_loss() received an invalid combination")
    same_error(lambda lib: _call(lib, input_lengths=(6.0, 5)), match_message=False)
    mixed = {"input_lengths": (6, 5), "target_lengths": lambda lib: lib.tensor([3, 2])}
    same_error(lambda lib: _call(lib, **mixed), match_message=False)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_module_matches_torch(reduction: str) -> None:
    torch = require_torch()
    ours = nn.CTCLoss(blank=2, reduction=reduction, zero_infinity=True)
    theirs = torch.nn.CTCLoss(blank=2, reduction=reduction, zero_infinity=True)
    assert repr(ours) == repr(theirs)
    assert (ours.blank, ours.reduction, ours.zero_infinity) == (2, reduction, True)
    case = _random_case(7) | {
        "blank": 2,
        "reduction": reduction,
        "zero_infinity": True,
        "targets": [[0, 1, 1], [3, 0, 0]],
        "shape": (5, 2, 4),
        "log_probs": [random.Random(3).gauss(0, 1) for _ in range(40)],
        "input_lengths": [5, 1],
        "target_lengths": [3, 1],
        "unbatched": False,
        "concatenated": False,
    }
    values = []
    for lib, module in ((st, ours), (torch, theirs)):
        leaf = lib.tensor(case["log_probs"]).reshape(5, 2, 4).requires_grad_()
        loss = module(
            leaf.log_softmax(2),
            lib.tensor(case["targets"]),
            lib.tensor(case["input_lengths"]),
            lib.tensor(case["target_lengths"]),
        )
        loss.sum().backward()
        values.append((loss.tolist(), leaf.grad.tolist()))
    torch.testing.assert_close(torch.tensor(values[0][0]), torch.tensor(values[1][0]))
    torch.testing.assert_close(torch.tensor(values[0][1]), torch.tensor(values[1][1]))


# ----------------------------------------------------------------------
# Finite differences, without torch
# ----------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_gradcheck_through_log_softmax(reduction: str) -> None:
    """Through ``log_softmax`` the gradient is the derivative of the loss."""
    st.manual_seed(0)
    logits = st.randn(5, 2, 4, dtype=st.float64, requires_grad=True)
    targets = st.tensor([1, 3, 3, 2])

    def loss(x: st.Tensor) -> st.Tensor:
        return F.ctc_loss(
            x.log_softmax(2), targets, [5, 4], [3, 1], blank=0, reduction=reduction
        )

    assert gradcheck(loss, (logits,))


def test_gradcheck_unbatched_with_repeats() -> None:
    st.manual_seed(1)
    logits = st.randn(6, 3, dtype=st.float64, requires_grad=True)

    def loss(x: st.Tensor) -> st.Tensor:
        return F.ctc_loss(x.log_softmax(1), st.tensor([2, 2]), [6], [2], blank=1)

    assert gradcheck(loss, (logits,))
