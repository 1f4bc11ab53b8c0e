"""Sparse COO tensors (``slowtorch_lib.sparse``) against PyTorch.

Construction, coalescing, printing, the round trips between layouts,
``torch.sparse.mm`` (and ``torch.mm``, ``spmm``, ``@`` with a sparse first
argument) with its values, gradients and ``grad_fn`` names, and the errors.
The finite-difference checks at the end run without PyTorch.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.parity import assert_same, require_torch, same_error

# PyTorch warns, once, that it does not check a sparse tensor's invariants.
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

INDICES = [[0, 1, 1, 0], [2, 0, 2, 2]]  # (0, 2) twice: an uncoalesced tensor
VALUES = [3.0, 4.0, 5.0, 1.0]


def example(lib: Any, **kwargs: Any) -> Any:
    """A 2 x 3 sparse tensor with a duplicate coordinate."""
    return lib.sparse_coo_tensor(
        lib.tensor(INDICES), lib.tensor(VALUES), (2, 3), **kwargs
    )


def random_case(seed: int) -> tuple[list[list[int]], list[float], tuple[int, int]]:
    """Coordinates (with duplicates), values and the size of a random matrix."""
    draw = random.Random(seed)
    n, m = draw.randint(1, 5), draw.randint(1, 5)
    nnz = draw.randint(0, 8)
    rows = [draw.randrange(n) for _ in range(nnz)]
    columns = [draw.randrange(m) for _ in range(nnz)]
    values = [round(draw.uniform(-2, 2), 3) for _ in range(nnz)]
    return [rows, columns], values, (n, m)


def dense_of(seed: int, shape: tuple[int, int]) -> list[list[float]]:
    """A random dense matrix of ``shape``, as nested lists."""
    draw = random.Random(1000 + seed)
    return [
        [round(draw.uniform(-1, 1), 3) for _ in range(shape[1])]
        for _ in range(shape[0])
    ]


def both_sparse(seed: int, dtype: str, requires_grad: bool) -> tuple[Any, Any]:
    """The same random sparse tensor in both libraries."""
    torch = require_torch()
    indices, values, size = random_case(seed)
    made = []
    for lib in (st, torch):
        made.append(
            lib.sparse_coo_tensor(
                lib.tensor(indices, dtype=lib.int64).reshape(2, -1),
                lib.tensor(values, dtype=getattr(lib, dtype)),
                size,
                requires_grad=requires_grad,
            )
        )
    return made[0], made[1]


def assert_same_sparse(ours: Any, theirs: Any) -> None:
    """Same size, nnz, coalesced flag, coordinates and values."""
    assert ours.layout is st.sparse_coo and ours.is_sparse
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours._nnz() == theirs._nnz()
    assert ours.is_coalesced() == theirs.is_coalesced()
    assert ours._indices().tolist() == theirs._indices().tolist()
    assert_same(ours._coo_values, theirs._values().detach())


# ----------------------------------------------------------------------
# Construction and reading
# ----------------------------------------------------------------------


def test_a_sparse_tensor_is_a_tensor_with_its_parts() -> None:
    torch = require_torch()
    ours, theirs = example(st), example(torch)
    assert isinstance(ours, st.Tensor)
    assert_same_sparse(ours, theirs)
    assert ours.size() == st.Size([2, 3]) and ours.shape == ours.size()
    assert (ours.sparse_dim(), ours.dense_dim()) == (2, 0)
    assert (ours.dim(), ours.numel(), ours.dtype) == (2, 6, st.float32)
    assert repr(ours.layout) == "torch.sparse_coo" == repr(theirs.layout)
    assert repr(st.strided) == "torch.strided"
    assert st.ones(2).layout is st.strided and not st.ones(2).is_sparse


def test_the_size_is_inferred_and_lists_are_accepted() -> None:
    torch = require_torch()
    for lib_args in (
        lambda lib: lib.sparse_coo_tensor([[0, 1], [1, 0]], [1, 2]),
        lambda lib: lib.sparse_coo_tensor([[0, 3]], [1.0, 2.0], dtype=lib.float64),
        lambda lib: lib.sparse_coo_tensor(
            lib.tensor([[0.0, 2.0]]), lib.tensor([1, 2]), dtype=lib.float32
        ),
    ):
        ours, theirs = lib_args(st), lib_args(torch)
        assert_same_sparse(ours, theirs)
        assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_coalesce_adds_duplicates_and_sorts(seed: int, dtype: str) -> None:
    ours, theirs = both_sparse(seed, dtype, requires_grad=False)
    assert_same_sparse(ours.coalesce(), theirs.coalesce())
    assert_same_sparse(ours.coalesce().coalesce(), theirs.coalesce().coalesce())
    assert ours.coalesce().indices().tolist() == theirs.coalesce().indices().tolist()
    assert_same(ours.coalesce().values(), theirs.coalesce().values())


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_to_dense_and_back(seed: int, dtype: str) -> None:
    ours, theirs = both_sparse(seed, dtype, requires_grad=False)
    assert_same(ours.to_dense(), theirs.to_dense())
    assert_same_sparse(ours.to_dense().to_sparse(), theirs.to_dense().to_sparse())
    assert ours.to_sparse() is ours


def test_diag_to_sparse_and_dense_methods() -> None:
    torch = require_torch()

    def run(lib: Any) -> Any:
        return lib.diag(lib.tensor([1.0, 0.0, 2.0])).to_sparse()

    assert_same_sparse(run(st), run(torch))
    assert repr(run(st)) == repr(run(torch))
    dense = st.ones(2, 3)
    assert dense.to_dense() is dense
    assert (dense.sparse_dim(), dense.dense_dim()) == (0, 2)
    assert_same_sparse(
        st.tensor([[0, 2], [3, 0]]).to_sparse(),
        torch.tensor([[0, 2], [3, 0]]).to_sparse(),
    )


# ----------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: example(lib),
        lambda lib: example(lib, requires_grad=True),
        lambda lib: example(lib, requires_grad=True).coalesce(),
        lambda lib: lib.sparse_coo_tensor(
            lib.tensor(INDICES), lib.tensor(VALUES).double()
        ),
        lambda lib: lib.sparse_coo_tensor(
            lib.tensor(INDICES), lib.tensor([1, 2, 3, 4])
        ),
        lambda lib: lib.sparse_coo_tensor(
            lib.zeros(2, 0, dtype=lib.int64), lib.zeros(0), (2, 2)
        ),
        lambda lib: lib.arange(40.0).reshape(4, 10).to_sparse(),
        lambda lib: lib.arange(1.0, 60.0).reshape(59, 1).to_sparse(),
    ],
)
def test_repr_is_torchs(make: Any) -> None:
    torch = require_torch()
    assert repr(make(st)) == repr(make(torch))


# ----------------------------------------------------------------------
# sparse.mm: values and gradients
# ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sparse_mm_values_and_gradients(seed: int, dtype: str) -> None:
    torch = require_torch()
    ours, theirs = both_sparse(seed, dtype, requires_grad=True)
    width = 1 + seed % 3
    rows = dense_of(seed, (ours.shape[1], width))
    x = st.tensor(rows, dtype=getattr(st, dtype), requires_grad=True)
    tx = torch.tensor(rows, dtype=getattr(torch, dtype), requires_grad=True)
    weights = dense_of(seed + 50, (ours.shape[0], width))
    result, expected = st.sparse.mm(ours, x), torch.sparse.mm(theirs, tx)
    assert_same(result, expected)
    assert result.grad_fn.name() == expected.grad_fn.name() == "SparseAddmmBackward0"
    (result * st.tensor(weights, dtype=x.dtype)).sum().backward()
    (expected * torch.tensor(weights, dtype=tx.dtype)).sum().backward()
    assert_same(x.grad, tx.grad)
    assert_same_sparse(ours.grad, theirs.grad)


@pytest.mark.parametrize(
    "product",
    [
        lambda lib, s, x: lib.mm(s, x),
        lambda lib, s, x: lib.spmm(s, x),
        lambda lib, s, x: s @ x,
        lambda lib, s, x: s.mm(x),
        lambda lib, s, x: lib.matmul(s, x),
    ],
)
def test_the_other_names_of_the_product(product: Any) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        s = example(lib, requires_grad=True)
        x = lib.linspace(0, 1, 6).reshape(3, 2).requires_grad_()
        result = product(lib, s, x)
        result.sum().backward()
        results.append((result, s.grad, x.grad))
    (ours, our_s, our_x), (theirs, their_s, their_x) = results
    assert_same(ours, theirs)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "MmBackward0"
    # This rule gives the sparse leaf a dense gradient, G @ X^T, everywhere.
    assert our_s.layout is st.strided and str(their_s.layout) == "torch.strided"
    assert_same(our_s, their_s)
    assert_same(our_x, their_x)


def test_gradients_accumulate_and_reach_values_through_the_other_ops() -> None:
    torch = require_torch()
    outcomes = []
    for lib in (st, torch):
        s = example(lib, requires_grad=True)
        x = lib.ones(3, 2)
        lib.sparse.mm(s, x).sum().backward()
        lib.sparse.mm(s, 2 * x).sum().backward()
        coalesced = example(lib, requires_grad=True)
        kept = coalesced.coalesce()
        values = kept.values()
        (values * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        summed = example(lib, requires_grad=True)
        total = lib.sparse.sum(summed)
        total.backward()
        dense = example(lib, requires_grad=True)
        (dense.to_dense() * lib.arange(6.0).reshape(2, 3)).sum().backward()
        leaf_values = lib.tensor(VALUES, requires_grad=True)
        made = lib.sparse_coo_tensor(lib.tensor(INDICES), leaf_values, (2, 3))
        lib.sparse.mm(made, lib.arange(6.0).reshape(3, 2)).sum().backward()
        names = [
            kept.grad_fn.name(),
            values.grad_fn.name(),
            total.grad_fn.name(),
            dense.to_dense().grad_fn.name(),
            made.grad_fn.name(),
            lib.ones(2, 2, requires_grad=True).to_sparse().grad_fn.name(),
        ]
        outcomes.append(
            (s.grad, coalesced.grad, summed.grad, dense.grad, leaf_values.grad, names)
        )
    ours, theirs = outcomes
    for mine, other in zip(ours[:4], theirs[:4]):
        assert_same_sparse(mine, other)
    assert_same(ours[4], theirs[4])
    assert ours[5] == theirs[5]


def test_a_sparse_and_a_dense_gradient_add_up_to_a_dense_one() -> None:
    torch = require_torch()
    grads = []
    for lib in (st, torch):
        s = example(lib, requires_grad=True)
        lib.sparse.mm(s, lib.ones(3, 2)).sum().backward()
        lib.mm(s, lib.arange(6.0).reshape(3, 2)).sum().backward()
        grads.append(s.grad)
    assert grads[0].layout is st.strided
    assert_same(grads[0], grads[1])


def test_a_dense_gradient_flows_back_through_to_sparse() -> None:
    torch = require_torch()
    grads = []
    for lib in (st, torch):
        x = lib.tensor([[0.0, 2.0], [3.0, 0.0]], requires_grad=True)
        lib.sparse.mm(x.to_sparse(), lib.ones(2, 2)).sum().backward()
        grads.append(x.grad)
    assert_same(grads[0], grads[1])


# ----------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "run",
    [
        lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES[:3])),
        lambda lib: lib.sparse_coo_tensor(
            lib.tensor(INDICES), lib.tensor(VALUES), (3,)
        ),
        lambda lib: example(lib).indices(),
        lambda lib: example(lib).values(),
        lambda lib: lib.ones(2).indices(),
        lambda lib: lib.ones(2).values(),
        lambda lib: lib.ones(2).coalesce(),
        lambda lib: lib.ones(2).is_coalesced(),
        lambda lib: lib.sparse.mm(example(lib), lib.ones(2, 2)),
        lambda lib: lib.mm(example(lib), lib.ones(2, 2)),
        lambda lib: example(lib) @ lib.ones(2, 2),
        lambda lib: lib.sparse.mm(example(lib), lib.ones(3, 2, dtype=lib.float64)),
        lambda lib: lib.sparse.mm(example(lib), lib.ones(3)),
        lambda lib: lib.sparse.mm(lib.ones(2, 2, 2).to_sparse(), lib.ones(2, 2)),
        lambda lib: lib.sparse_coo_tensor(
            lib.tensor(INDICES), lib.tensor(VALUES), (2, 2), check_invariants=True
        ),
        lambda lib: lib.sparse_coo_tensor(
            lib.tensor([[0, -1]]), lib.tensor([1.0, 2.0]), (3,), check_invariants=True
        ),
        lambda lib: lib.sparse_coo_tensor(
            lib.tensor(INDICES), lib.tensor(VALUES), (1, 3), check_invariants=True
        ),
        lambda lib: example(lib).tolist(),
        lambda lib: example(lib).numpy(),
        lambda lib: example(lib).item(),
        lambda lib: lib.sparse_coo_tensor(
            lib.tensor(INDICES), lib.tensor([1, 2, 3, 4]), requires_grad=True
        ),
    ],
)
def test_errors_are_torchs(run: Any) -> None:
    same_error(run)


def test_coordinates_outside_the_size_are_refused_even_unchecked() -> None:
    # PyTorch may read outside its memory here; the engine refuses.
    with pytest.raises(RuntimeError, match="for dim 1, size is 2 but found index 2"):
        st.sparse_coo_tensor(st.tensor(INDICES), st.tensor(VALUES), (2, 2))


def test_torchs_warning_that_it_does_not_check_is_given_once() -> None:
    code = (
        "import warnings; warnings.simplefilter('always'); import slowtorch_lib as t\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    t.sparse_coo_tensor([[0]], [1.0]); t.sparse_coo_tensor([[0]], [1.0])\n"
        "print(len(caught), caught[0].category.__name__, caught[0].message)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert shown.startswith("1 UserWarning Sparse invariant checks are implicitly")


@pytest.mark.parametrize(
    "run",
    [
        lambda s: s.exp(),
        lambda s: s + 1,
        lambda s: s.view(6),
        lambda s: st.relu(s),
        lambda s: s.transpose(0, 1),
        lambda s: st.cat([s, s]),
    ],
)
def test_dense_ops_refuse_a_sparse_tensor(run: Any) -> None:
    # PyTorch refuses some of these and computes others; the engine never
    # reads a sparse tensor as if it were dense.
    with pytest.raises(NotImplementedError, match="'SparseCPU' backend"):
        run(example(st))


# ----------------------------------------------------------------------
# Without PyTorch: finite differences
# ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_sparse_mm_gradient_by_finite_differences(seed: int) -> None:
    indices, values, size = random_case(seed)
    rows = dense_of(seed, (size[1], 2))
    index_tensor = st.tensor(indices, dtype=st.int64).reshape(2, -1)

    def product(values: st.Tensor, x: st.Tensor) -> st.Tensor:
        sparse = st.sparse_coo_tensor(index_tensor, values, size)
        return st.sparse.mm(sparse, x)

    value_leaf = st.tensor(values, dtype=st.float64, requires_grad=True)
    x = st.tensor(rows, dtype=st.float64, requires_grad=True)
    assert gradcheck(product, (value_leaf, x))


def test_a_sparse_leafs_gradient_by_finite_differences() -> None:
    # d(sum(W * (S @ X)))/dS at each stored coordinate, by central differences.
    x = st.tensor([[0.5, -1.0], [2.0, 0.25], [1.5, 1.0]], dtype=st.float64)
    weights = st.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=st.float64)
    leaf = example(st).coalesce().to_dense().double().to_sparse().requires_grad_()
    (st.sparse.mm(leaf, x) * weights).sum().backward()
    step = 1e-6
    coordinates = leaf._indices().tolist()
    for k, (i, j) in enumerate(zip(*coordinates)):
        moved = []
        for sign in (1, -1):
            dense = leaf.detach().to_dense()
            dense[i, j] += sign * step
            moved.append((st.sparse.mm(dense.to_sparse(), x) * weights).sum().item())
        numerical = (moved[0] - moved[1]) / (2 * step)
        assert abs(leaf.grad._coo_values[k].item() - numerical) < 1e-6


# ----------------------------------------------------------------------
# The transpose, and the legacy constructors older graph code uses
# ----------------------------------------------------------------------


def test_transpose_values_gradients_and_names() -> None:
    torch = require_torch()
    outcomes = []
    for lib in (st, torch):
        s = example(lib, requires_grad=True)
        flipped = s.t()
        result = lib.sparse.mm(flipped, lib.arange(4.0).reshape(2, 2))
        result.sum().backward()
        outcomes.append((flipped, flipped.grad_fn.name(), result, s.grad))
    ours, theirs = outcomes
    assert_same_sparse(ours[0].detach(), theirs[0].detach())
    assert ours[1] == theirs[1] == "TBackward0"
    assert_same(ours[2], theirs[2])
    assert_same_sparse(ours[3], theirs[3])


def test_legacy_sparse_constructors() -> None:
    torch = require_torch()

    def run(lib: Any) -> Any:
        indices = lib.tensor([[0, 1], [1, 0]])
        with pytest.warns(UserWarning, match="is deprecated.  Please use torch.sp"):
            lib.sparse.LongTensor(indices, lib.tensor([1, 2]))
        made = [
            lib.sparse.FloatTensor(indices, lib.tensor([1.0, 2.0]), lib.Size([2, 2])),
            lib.sparse.DoubleTensor(indices, lib.tensor([1.0, 2.0], dtype=lib.float64)),
        ]
        return [repr(m) for m in made]

    assert run(st) == run(torch)


def test_the_dense_kernels_list_of_values_is_refused_on_a_sparse_tensor() -> None:
    """``_values()`` names the dense kernels' elements here: refused, with
    the message that says what a sparse tensor supports."""
    s = st.sparse_coo_tensor(st.tensor([[1, 0], [0, 1]]), st.tensor([1.0, 2.0]))
    with pytest.raises(NotImplementedError, match="SparseCPU"):
        s._values()
    assert s.coalesce().values().tolist() == [2.0, 1.0]
