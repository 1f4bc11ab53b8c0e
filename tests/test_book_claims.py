"""The book's claims about PyTorch, run against torch and against the engine.

Each test names the chapter that makes the claim. Where the book says the
engine differs from PyTorch, the test checks both sides of the difference.
The last tests check the book's pages themselves: code that fits the page,
recorded numbers that say where and when they were recorded.
"""

from __future__ import annotations

import importlib
import inspect
import io
import json
import pickle
import platform
import re
from pathlib import Path
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib import nn
from tests.parity import assert_same, from_torch, require_torch

BOOK = Path(__file__).resolve().parents[1] / "book"
PAGE_WIDTH = 88


# ----------------------------------------------------------------------
# Chapter 1: broadcasting, views
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "q", "expected"),
    [
        ((3, 1), (4,), (3, 4)),
        ((1,), (0,), (0,)),
        ((0,), (1,), (0,)),
        ((2, 1), (1, 0), (2, 0)),
    ],
)
def test_broadcasting_a_size_one_against_zero_gives_zero(
    p: tuple[int, ...], q: tuple[int, ...], expected: tuple[int, ...]
) -> None:
    torch = require_torch()
    assert tuple(torch.broadcast_shapes(p, q)) == expected
    assert tuple(st.broadcast_shapes(p, q)) == expected


def test_the_figure_shows_the_strides_of_the_expanded_views() -> None:
    torch = require_torch()
    for lib in (torch, st):
        a = lib.tensor([[0.0], [10.0], [20.0]])
        b = lib.tensor([1.0, 2.0, 3.0, 4.0])
        assert (a.stride(), b.stride()) == ((1, 1), (1,))
        assert a.expand(3, 4).stride() == (1, 0)
        assert b.expand(3, 4).stride() == (0, 1)


def test_view_never_copies_and_reshape_copies_only_when_it_must() -> None:
    torch = require_torch()
    for lib in (torch, st):
        x = lib.arange(12.0).reshape(3, 4)
        with pytest.raises(RuntimeError):
            x.t().view(12)
        viewed = x.view(2, 6)
        viewed[0, 0] = 100.0
        assert x[0, 0].item() == 100.0  # a view: the write shows in x
        copied = x.t().reshape(12)
        copied[0] = -1.0
        assert x[0, 0].item() == 100.0  # a copy: x is untouched


def test_the_error_messages_chapter_one_shows_are_torchs() -> None:
    torch = require_torch()
    messages = []
    for lib in (torch, st):
        with pytest.raises(RuntimeError) as view_error:
            lib.arange(12.0).reshape(3, 4).t().view(12)
        with pytest.raises(RuntimeError) as broadcast_error:
            lib.tensor([1.0, 2.0, 3.0]) + lib.tensor([1.0, 2.0])
        messages.append((str(view_error.value), str(broadcast_error.value)))
    assert messages[0] == messages[1]


def test_promotion_cases_of_chapter_one() -> None:
    torch = require_torch()
    results = []
    for lib in (torch, st):
        ints, floats = lib.tensor([1, 2]), lib.tensor([1.0, 2.0])
        results.append(
            [
                (ints + floats).dtype,
                (ints * 2.5).dtype,
                (ints / 2).dtype,
                (floats + lib.tensor(1.0, dtype=lib.float64)).dtype,
                (floats + lib.tensor([1.0], dtype=lib.float64)).dtype,
                (lib.tensor([True, False]) + 1).dtype,
            ]
        )
    assert [str(d) for d in results[0]] == [str(d) for d in results[1]]
    assert [str(d) for d in results[0]] == [
        "torch.float32",
        "torch.float32",
        "torch.float32",
        "torch.float32",
        "torch.float64",
        "torch.int64",
    ]


def test_torch_storage_has_no_data_and_size_zero_counts_as_one() -> None:
    torch = require_torch()
    assert not hasattr(torch.zeros(3).untyped_storage(), "data")
    assert hasattr(st.zeros(3).untyped_storage(), "data")  # the engine's own
    assert torch.zeros(2, 0, 3).stride() == st.zeros(2, 0, 3).stride() == (3, 3, 1)


def test_a_wide_spread_prints_in_scientific_notation_and_is_summarised() -> None:
    torch = require_torch()
    theirs = repr(torch.arange(2000.0))
    assert theirs == repr(st.arange(2000.0))
    assert "e+03" in theirs and "..." in theirs
    assert theirs.count("e+") + theirs.count("e-") == 6  # three on each side


# ----------------------------------------------------------------------
# Chapter 2: grad_fn names, node attributes, version counters, views
# ----------------------------------------------------------------------


def test_torch_tensor_mul_is_a_cpp_method() -> None:
    torch = require_torch()
    assert torch.Tensor.__mul__ is torch._C.TensorBase.__mul__
    assert type(torch.Tensor.__mul__).__name__ == "method_descriptor"


def test_overload_suffixes_of_sum_and_max() -> None:
    torch = require_torch()
    for lib in (torch, st):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        names = [
            a.sum().grad_fn.name(),
            a.sum(0).grad_fn.name(),
            a.max().grad_fn.name(),
            a.max(0).values.grad_fn.name(),
        ]
        assert names == ["SumBackward0", "SumBackward1", "MaxBackward1", "MaxBackward0"]


def test_needs_input_grad_is_only_on_a_custom_functions_ctx() -> None:
    torch = require_torch()
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert not hasattr((x * 2).grad_fn, "needs_input_grad")
    seen = []

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            seen.append(ctx.needs_input_grad)
            return t * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2

    Double.apply(x)
    assert seen == [(True,)]


def test_version_counters_are_shared_by_views_and_detach_but_not_data() -> None:
    torch = require_torch()
    t = torch.zeros(3)
    view, detached, data = t[1:], t.detach(), t.data
    view.add_(1)
    assert (t._version, view._version, detached._version) == (1, 1, 1)
    assert data._version == 0  # .data: same numbers, a fresh counter
    data.add_(1)
    assert t._version == 1
    # The engine keeps the counter on the storage, so .data shares it too.
    ours = st.zeros(3)
    our_data = ours.data
    ours[1:].add_(1)
    assert (ours._version, our_data._version, ours.detach()._version) == (1, 1, 1)
    our_data.add_(1)
    assert ours._version == 2


def test_in_place_change_of_a_leaf_needs_no_grad() -> None:
    torch = require_torch()
    for lib in (torch, st):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError):
            w -= 0.1
        with lib.no_grad():
            w -= 0.1
        assert w.is_leaf and w.requires_grad and w.grad_fn is None


def test_in_place_write_through_a_view() -> None:
    torch = require_torch()
    results = []
    for lib in (torch, st):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        base = x * 1
        tail = base[1:]
        before = (base.grad_fn.name(), tail.grad_fn.name())
        tail.mul_(2)
        after = (base.grad_fn.name(), tail.grad_fn.name())
        base.sum().backward()
        results.append((before, after, x.grad.tolist()))
    assert results[0] == results[1]
    assert results[0][1] == ("torch::autograd::CopySlices", "AsStridedBackward0")
    assert results[0][2] == [1.0, 2.0, 2.0]


# ----------------------------------------------------------------------
# Chapter 3: layers, load_state_dict, the generator, torch.load
# ----------------------------------------------------------------------


def _copy_parameters(ours: nn.Module, theirs) -> None:
    with st.no_grad():
        for name, tensor in theirs.state_dict().items():
            ours.state_dict()[name].copy_(from_torch(tensor))


def test_linear_records_addmm_with_the_transpose_of_its_weight() -> None:
    torch = require_torch()
    for lib in (torch, st):
        layer = lib.nn.Linear(3, 2)
        node = layer(lib.ones(4, 3)).grad_fn
        names = [n.name() if n is not None else None for n, _ in node.next_functions]
        assert node.name() == "AddmmBackward0"
        assert names == ["torch::autograd::AccumulateGrad", None, "TBackward0"]
    source = inspect.getsource(torch.nn.Linear.reset_parameters)
    assert "kaiming_uniform_(self.weight, a=math.sqrt(5))" in source


def test_cross_entropy_is_log_softmax_then_nll_loss() -> None:
    torch = require_torch()
    for lib in (torch, st):
        logits = lib.zeros(2, 3, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(logits, lib.tensor([0, 2]))
        assert loss.grad_fn.name() == "NllLossBackward0"
        assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"


def test_state_dict_tensors_are_detached_and_share_storage() -> None:
    torch = require_torch()
    layer = torch.nn.Linear(2, 2)
    weight = layer.state_dict()["weight"]
    assert not weight.requires_grad
    assert weight.data_ptr() == layer.weight.data_ptr()
    ours = nn.Linear(2, 2)
    our_weight = ours.state_dict()["weight"]
    assert not our_weight.requires_grad
    assert our_weight.untyped_storage() is ours.weight.untyped_storage()


def test_a_shape_mismatch_fails_even_when_not_strict() -> None:
    torch = require_torch()
    for lib in (torch, st):
        layer = lib.nn.Linear(2, 2)
        bad = {"weight": lib.zeros(3, 3), "bias": lib.zeros(2)}
        with pytest.raises(RuntimeError):
            layer.load_state_dict(bad, strict=False)


def test_embedding_rows_and_their_gradient() -> None:
    torch = require_torch()
    theirs = torch.nn.Embedding(5, 2)
    ours = nn.Embedding(5, 2)
    _copy_parameters(ours, theirs)
    upstream = [[1.0, 1.0], [10.0, 10.0], [100.0, 100.0]]
    their_rows = theirs(torch.tensor([1, 3, 1]))
    our_rows = ours(st.tensor([1, 3, 1]))
    assert our_rows.grad_fn.name() == their_rows.grad_fn.name()
    their_rows.backward(torch.tensor(upstream))
    our_rows.backward(st.tensor(upstream))
    assert_same(our_rows.detach(), their_rows.detach())
    assert_same(ours.weight.grad, theirs.weight.grad)
    assert theirs.weight.grad[1].tolist() == [101.0, 101.0]


def test_batchnorm_running_estimates_use_the_unbiased_variance() -> None:
    torch = require_torch()
    rows = [[1.0, 2.0], [3.0, 6.0], [5.0, 4.0], [7.0, 0.0]]
    theirs, ours = torch.nn.BatchNorm1d(2), nn.BatchNorm1d(2)
    x_theirs, x_ours = torch.tensor(rows), st.tensor(rows)
    assert_same(ours(x_ours).detach(), theirs(x_theirs).detach(), rtol=1e-5)
    unbiased = x_theirs.var(dim=0)
    assert torch.allclose(theirs.running_var, 0.9 + 0.1 * unbiased)
    assert_same(ours.running_mean, theirs.running_mean)
    assert_same(ours.running_var, theirs.running_var)
    assert ours.num_batches_tracked.item() == theirs.num_batches_tracked.item() == 1
    theirs.eval()
    ours.eval()
    assert_same(ours(x_ours).detach(), theirs(x_theirs).detach(), rtol=1e-5)
    assert_same(ours.running_mean, theirs.running_mean)


def test_layernorm_normalises_each_sample_with_the_biased_variance() -> None:
    torch = require_torch()
    rows = [[1.0, 2.0, 3.0], [2.0, 4.0, 9.0]]
    theirs, ours = torch.nn.LayerNorm(3), nn.LayerNorm(3)
    x = torch.tensor(rows)
    expected = (x - x.mean(1, keepdim=True)) / (
        x.var(1, unbiased=False, keepdim=True) + 1e-5
    ).sqrt()
    their_out = theirs(x)
    assert torch.allclose(their_out, expected, atol=1e-6)
    our_out = ours(st.tensor(rows))
    assert our_out.grad_fn.name() == their_out.grad_fn.name()
    assert_same(our_out.detach(), their_out.detach(), rtol=1e-5)


def test_torchs_normalisation_nodes_save_the_statistics() -> None:
    torch = require_torch()
    x = torch.randn(4, 3, requires_grad=True)
    for layer in (torch.nn.BatchNorm1d(3), torch.nn.LayerNorm(3)):
        node = layer(x).grad_fn
        saved = {name for name in dir(node) if name.startswith("_saved_")}
        assert {"_saved_input", "_saved_result1", "_saved_result2"} <= saved
    bn_node = torch.nn.BatchNorm1d(3)(x).grad_fn
    invstd = 1 / (x.var(0, unbiased=False) + 1e-5).sqrt()
    assert torch.allclose(bn_node._saved_result1, x.mean(0))
    assert torch.allclose(bn_node._saved_result2, invstd, rtol=1e-4)


def test_second_derivatives_through_layer_norm_match_torch() -> None:
    torch = require_torch()
    rows = [[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]]
    results = []
    for lib in (torch, st):
        x = lib.tensor(rows, dtype=lib.float64, requires_grad=True)
        layer = lib.nn.LayerNorm(3, dtype=lib.float64)
        (grad,) = lib.autograd.grad((layer(x) ** 3).sum(), x, create_graph=True)
        (second,) = lib.autograd.grad((grad * grad).sum(), x)
        results.append(second)
    theirs, ours = results
    assert_same(ours, theirs, rtol=1e-9)


def test_dropout_is_inverted_and_the_identity_in_evaluation() -> None:
    torch = require_torch()
    for lib in (torch, st):
        lib.manual_seed(0)
        drop = lib.nn.Dropout(p=0.25)
        x = lib.ones(400, dtype=lib.float64, requires_grad=True)
        out = drop(x)
        assert out.grad_fn.name() == "MulBackward0"
        assert set(out.tolist()) == {0.0, 1 / 0.75}
        drop.eval()
        ones = lib.ones(2, 8)
        assert drop(ones) is ones


def test_load_state_dict_copies_nothing_when_it_fails_unlike_torch() -> None:
    torch = require_torch()
    their_model = torch.nn.Linear(2, 2)
    bad = {"weight": torch.ones(2, 2)}  # the bias is missing
    with pytest.raises(RuntimeError):
        their_model.load_state_dict(bad)
    assert their_model.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]  # copied
    our_model = nn.Linear(2, 2)
    before = our_model.weight.tolist()
    with pytest.raises(RuntimeError):
        our_model.load_state_dict({"weight": st.ones(2, 2)})
    assert our_model.weight.tolist() == before


def test_the_same_seed_gives_torchs_numbers() -> None:
    torch = require_torch()
    torch.manual_seed(0)
    st.manual_seed(0)
    theirs, ours = torch.randn(3), st.randn(3)
    assert ours.tolist() == theirs.tolist()
    st.manual_seed(0)
    assert st.randn(3).tolist() == ours.tolist()


class _NotATensor:
    """A class torch's weights_only loader does not know."""


def test_torch_load_refuses_other_classes_by_default() -> None:
    torch = require_torch()
    assert int(torch.__version__.split(".")[0]) >= 2
    buffer = io.BytesIO()
    torch.save({"w": torch.ones(2), "other": _NotATensor()}, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(buffer)  # weights_only=True is the default since torch 2.6
    buffer.seek(0)
    assert isinstance(torch.load(buffer, weights_only=False)["other"], _NotATensor)


def test_weights_only_allows_what_a_state_dict_needs() -> None:
    torch = require_torch()
    from torch._weights_only_unpickler import _get_allowed_globals

    allowed = _get_allowed_globals()
    for name in (
        "collections.OrderedDict",
        "torch._utils._rebuild_tensor_v2",
        "torch._utils._rebuild_parameter",
        "torch.FloatStorage",
    ):
        assert name in allowed
    assert "builtins.print" not in allowed and "os.system" not in allowed
    assert callable(torch.serialization.add_safe_globals)


# ----------------------------------------------------------------------
# Chapter 4 and the epilogue
# ----------------------------------------------------------------------


def test_optimisers_as_the_book_describes_them() -> None:
    torch = require_torch()
    assert issubclass(torch.optim.AdamW, torch.optim.Adam)
    assert "decoupled_weight_decay" in inspect.signature(torch.optim.Adam).parameters
    assert hasattr(torch.optim, "Muon") and not hasattr(torch.optim, "Lion")
    muon_module = importlib.import_module("torch.optim._muon")
    assert muon_module.Muon is torch.optim.Muon
    assert "bfloat16" in inspect.getsource(muon_module)  # Newton-Schulz in bf16


def adagrad_steps(lib: Any) -> list[list[float]]:
    """Chapter 4's Adagrad steps for gradients of 1 and 0.01."""
    p = lib.zeros(2, requires_grad=True)
    adagrad = lib.optim.Adagrad([p], lr=0.1)
    steps = []
    for _ in range(4):
        before = p.detach().clone()
        p.grad = lib.tensor([1.0, 0.01])
        adagrad.step()
        steps.append((before - p).tolist())
    return steps


def plateau_rates(lib: Any) -> list[float]:
    """Chapter 4's ReduceLROnPlateau, with patience=1 and factor=0.5."""
    opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
    plateau = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    rates = []
    for loss in [5.0, 4.0, 4.0, 4.0, 3.0, 3.0, 3.0, 3.0]:
        plateau.step(loss)
        rates.append(opt.param_groups[0]["lr"])
    return rates


def clipped(lib: Any) -> tuple[float, list[float], list[float]]:
    """Chapter 4's clip_grad_norm_ of gradients whose norm is 130."""
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(1, requires_grad=True)
    a.grad, b.grad = lib.tensor([30.0, 40.0]), lib.tensor([120.0])
    norm = lib.nn.utils.clip_grad_norm_([a, b], max_norm=2.6)
    return norm.item(), a.grad.tolist(), b.grad.tolist()


def test_adagrad_plateau_and_clipping_as_chapter_four_shows_them() -> None:
    torch = require_torch()
    for lib in (st, torch):
        for t, step in enumerate(adagrad_steps(lib), start=1):
            assert step == pytest.approx([0.1 / t**0.5] * 2, rel=1e-5)
        assert plateau_rates(lib) == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25]
        norm, a, b = clipped(lib)
        assert norm == pytest.approx(130.0)
        assert a + b == pytest.approx([0.6, 0.8, 2.4], rel=1e-5)
    assert clipped(st) == clipped(torch)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 only")
def test_x86_wheels_use_mkl_for_matrix_products() -> None:
    torch = require_torch()
    assert torch.backends.mkl.is_available()
    assert "BLAS_INFO=mkl" in torch.__config__.show()


def test_at_batch_32_torch_pays_per_operation_not_per_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The epilogue: a step's operator calls cost more than its arithmetic."""
    torch = require_torch()
    monkeypatch.syspath_prepend(str(BOOK))
    from epilogue_files import names, overhead

    numbers = overhead.overhead_numbers(torch)
    calls = overhead.operations_per_step(torch, names)
    assert 20 < calls < 500
    multiply_adds = 3 * names.BATCH * (30 * 64 + 64 * 27)
    arithmetic = multiply_adds * numbers["seconds_per_multiply_add"]
    assert calls * numbers["tiny_op_seconds"] > 3 * arithmetic


# ----------------------------------------------------------------------
# Chapter 6: attention
# ----------------------------------------------------------------------


def _saved_sizes(torch: Any, output_of: Any) -> list[tuple[int, ...]]:
    """The shapes of the tensors torch saves for the backward pass."""
    shapes: list[tuple[int, ...]] = []

    def pack(t: Any) -> Any:
        shapes.append(tuple(t.shape))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        output_of()
    return shapes


def test_sdpa_nodes_fused_for_4d_math_for_3d() -> None:
    torch = require_torch()
    F = torch.nn.functional
    q4 = torch.randn(1, 2, 8, 8, requires_grad=True)
    q3 = torch.randn(2, 8, 8, requires_grad=True)
    fused = F.scaled_dot_product_attention(q4, q4, q4, is_causal=True)
    math_path = F.scaled_dot_product_attention(q3, q3, q3, is_causal=True)
    assert type(fused.grad_fn).__name__ == (
        "ScaledDotProductFlashAttentionForCpuBackward0"
    )
    assert type(math_path.grad_fn).__name__ == "UnsafeViewBackward0"
    ours_q = from_torch(q4).requires_grad_()
    ours4 = st.nn.functional.scaled_dot_product_attention(
        ours_q, ours_q, ours_q, is_causal=True
    )
    assert type(ours4.grad_fn).__name__ == type(fused.grad_fn).__name__


def test_a_fully_masked_row_nan_by_hand_zeros_in_sdpa() -> None:
    torch = require_torch()
    q = torch.randn(1, 4, 8)
    hide = torch.ones(4, 4).triu().bool()  # row 0 sees nothing
    scores = (q @ q.transpose(1, 2)).masked_fill(hide, float("-inf"))
    assert torch.isnan(torch.softmax(scores, dim=-1)[0, 0]).all()
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=~hide)
    assert (sdpa[0, 0] == 0).all()
    ours = st.nn.functional.scaled_dot_product_attention(
        from_torch(q), from_torch(q), from_torch(q), attn_mask=from_torch(~hide)
    )
    assert_same(ours, sdpa)


def test_merging_heads_copies_attentions_output_not_a_split_view() -> None:
    """Chapter 6's "Heads as views": the heads split from a (B, T, C) tensor
    go back with a view, but attention's output, a new (B, H, T, D) tensor,
    transposed, cannot be viewed as (B, T, C): the copy happens there."""
    torch = require_torch()
    B, T, C, H = 2, 8, 16, 2
    for lib in (torch, st):
        qkv = lib.randn(B, T, C)
        heads = qkv.view(B, T, H, C // H).transpose(1, 2)
        assert lib.equal(heads.transpose(1, 2).view(B, T, C), qkv)  # no copy needed
        out = lib.softmax(heads @ heads.transpose(-2, -1), dim=-1) @ heads
        assert out.is_contiguous() and not out.transpose(1, 2).is_contiguous()
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            out.transpose(1, 2).view(B, T, C)
        merged = out.transpose(1, 2).contiguous().view(B, T, C)
        merged[0, 0, 0] = 100.0
        assert out[0, 0, 0, 0].item() != 100.0


def test_chapter_six_shows_the_copy_where_it_happens() -> None:
    page = (BOOK / "06_attention.md").read_text()
    heads = page[page.index("## Heads as views") : page.index("## Residual")]
    assert "side_by_side.view(B, T, C)" in heads
    assert "heads.transpose(1, 2).view(B, T, C)" not in heads
    assert "merged back: True" not in heads


def test_the_fused_kernel_saves_no_square_of_weights() -> None:
    torch = require_torch()
    F = torch.nn.functional
    T = 64
    q = torch.randn(1, 2, T, 8, requires_grad=True)
    fused = _saved_sizes(torch, lambda: F.scaled_dot_product_attention(q, q, q))
    math_path = _saved_sizes(
        torch, lambda: F.scaled_dot_product_attention(q[0], q[0], q[0])
    )
    assert not any(s[-2:] == (T, T) for s in fused)
    assert (1, 2, T) in fused  # one number per query: the log-sum-exp
    assert any(s[-2:] == (T, T) for s in math_path)


# ----------------------------------------------------------------------
# The pages themselves
# ----------------------------------------------------------------------

CODE_FENCE = re.compile(r"(`{3,})(\{code-cell\}.*|python|text|)")


def _code_lines(page: Path) -> list[str]:
    """The lines inside the page's code cells and plain code blocks."""
    lines: list[str] = []
    fence, is_code = "", False
    for line in page.read_text().splitlines():
        stripped = line.strip()
        if not fence:
            if stripped.startswith("```"):
                fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
                is_code = CODE_FENCE.fullmatch(stripped) is not None
        elif stripped == fence:
            fence = ""
        elif is_code:
            lines.append(line)
    return lines


@pytest.mark.parametrize("page", sorted(BOOK.glob("*.md")), ids=lambda p: p.name)
def test_code_fits_the_page(page: Path) -> None:
    wide = [line for line in _code_lines(page) if len(line) > PAGE_WIDTH]
    assert not wide, f"{len(wide)} lines wider than {PAGE_WIDTH} columns: {wide[:3]}"


@pytest.mark.parametrize(
    "record",
    [
        "ch01/torch_reference.json",
        "epilogue_files/torch_run.json",
        "ch05/torch_cnn.json",
        "ch06/torch_run.json",
    ],
)
def test_recorded_numbers_say_where_and_when(record: str) -> None:
    data = json.loads((BOOK / record).read_text())
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", data["recorded_on"])
    assert data["torch_version"] and data["machine"] and data["cpu_count"]


@pytest.mark.parametrize("page", sorted(BOOK.glob("*.md")), ids=lambda p: p.name)
def test_no_control_characters(page: Path) -> None:
    """A stray escape (a tab or a backspace where TeX wanted a backslash)."""
    text = page.read_text()
    assert not re.search(r"[\x00-\x09\x0b-\x1f]", text)


def _prose_lines(page: Path) -> list[str]:
    """The page's lines outside code cells, code blocks and cell options."""
    code = set(_code_lines(page))
    return [
        line
        for line in page.read_text().splitlines()
        if line not in code and not line.strip().startswith(("```", "tags:", ":"))
    ]


@pytest.mark.parametrize("page", sorted(BOOK.glob("*.md")), ids=lambda p: p.name)
def test_no_text_command_holds_an_escaped_underscore(page: Path) -> None:
    """MathJax shows the backslash of \\_ inside \\text{...} literally:
    write fan_in as \\text{fan}_\\text{in}, as chapter 3 does."""
    found = re.findall(r"\\text\{[^}]*\\_[^}]*\}", page.read_text())
    assert not found, found


@pytest.mark.parametrize("page", ["05_windows.md", "06_attention.md"])
def test_no_prose_states_a_time_per_step(page: Path | str) -> None:
    """A time per step depends on the machine: the page prints the one it
    measured instead of stating one in its prose."""
    stated = [
        line
        for line in _prose_lines(BOOK / str(page))
        if re.search(r"\d\s*s (a|per) step|\d\s*ms (a|per) step", line)
    ]
    assert not stated, stated


def test_chapter_six_alt_texts_are_made_from_the_data() -> None:
    """No hand-written alt text in chapter 6: its figures are shown by
    ``gpt.figure`` with an alt text computed from what they plot."""
    import sys

    sys.path.insert(0, str(BOOK))
    from ch06 import gpt

    page = (BOOK / "06_attention.md").read_text()
    assert "alt:" not in page
    assert page.count("gpt.figure(fig, gpt.") == 2
    said = gpt.loss_curves_alt([3.6137, 3.0, 2.5], [3.6137, 3.0, 2.5], 3.2958)
    assert "from 3.61 at step 1 to 2.50 at step 3" in said
    maps = st.tensor([[[1.0, 0.0], [0.25, 0.75]], [[1.0, 0.0], [0.9, 0.1]]])
    assert gpt.looks_at(maps, ".a") == [".>. a>a", ".>. a>."]
    assert "head 1, each character then the one it looks at most: .>. a>." in (
        gpt.attention_maps_alt(maps, ".a")
    )


def test_no_page_calls_a_recorded_number_live() -> None:
    for page in BOOK.glob("*.md"):
        assert "measured when this page was built" not in page.read_text()


# ----------------------------------------------------------------------
# Chapter 5: windows
# ----------------------------------------------------------------------


def _conv_kernels(torch: object, dtype: object) -> set[str]:
    from torch.profiler import profile

    x = torch.ones(2, 3, 8, 8, dtype=dtype)
    w = torch.ones(4, 3, 3, 3, dtype=dtype)
    with profile() as prof:
        torch.nn.functional.conv2d(x, w)
    return {event.name for event in prof.events()}


def test_a_cpu_conv2d_runs_onednn_in_float32_and_im2col_in_float64() -> None:
    torch = require_torch()
    assert torch.backends.mkldnn.is_available()
    float32 = _conv_kernels(torch, torch.float32)
    assert "aten::mkldnn_convolution" in float32
    assert "aten::_slow_conv2d_forward" not in float32
    float64 = _conv_kernels(torch, torch.float64)
    assert "aten::_slow_conv2d_forward" in float64
    assert "aten::mkldnn_convolution" not in float64


def test_channels_last_is_a_permuted_copy_and_conv2d_keeps_it() -> None:
    torch = require_torch()
    last = torch.zeros(2, 3, 8, 8).to(memory_format=torch.channels_last)
    assert last.stride() == (192, 1, 24, 3)
    ours = st.zeros(2, 3, 8, 8).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    assert ours.stride() == last.stride()
    out = torch.nn.functional.conv2d(last, torch.ones(4, 3, 3, 3))
    assert out.is_contiguous(memory_format=torch.channels_last)


def test_conv2d_records_one_convolution_backward_node() -> None:
    torch = require_torch()
    for lib in (torch, st):
        w = lib.ones(4, 3, 3, 3, requires_grad=True)
        b = lib.zeros(4, requires_grad=True)
        x = lib.ones(2, 3, 8, 8, requires_grad=True)
        node = lib.nn.functional.conv2d(x, w, b).grad_fn
        assert node.name() == "ConvolutionBackward0"
        assert [n.name() for n, _ in node.next_functions] == [
            "torch::autograd::AccumulateGrad"
        ] * 3


def test_chapter_five_record_matches_torch() -> None:
    """The recorded claims are what torch says now."""
    torch = require_torch()
    record = json.loads((BOOK / "ch05" / "torch_cnn.json").read_text())
    assert record["torch_version"].split("+")[0] == torch.__version__.split("+")[0]
    claims = record["claims"]
    assert set(claims["kernels_float32"]) == _conv_kernels(torch, torch.float32)
    assert set(claims["kernels_float64"]) == _conv_kernels(torch, torch.float64)
    assert claims["grad_fn"] == "ConvolutionBackward0"
    page = (BOOK / "05_windows.md").read_text()
    right = round(record["accuracies"][-1] * 360)
    percent = f"{100 * record['accuracies'][-1]:.1f} %"
    assert f"reaches {percent} ({right} of the 360 test digits)" in page


def test_chapter_six_prose_numbers_are_the_records_and_the_scripts() -> None:
    """The numbers chapter 6's prose states: the steps the page trains, the
    held-out predictions, and the comparison with the epilogue's MLP."""
    import sys

    sys.path.insert(0, str(BOOK))
    from ch06 import gpt

    page = (BOOK / "06_attention.md").read_text()
    record = json.loads((BOOK / "ch06" / "torch_run.json").read_text())
    mlp = json.loads((BOOK / "epilogue_files" / "torch_run.json").read_text())
    assert "trains for only 150 steps" in page and gpt.STEPS == record["steps"] == 150
    assert "(1,600 predictions)" in page and 200 * gpt.BLOCK == 1600
    assert "after 2,000 steps (PyTorch's record) it is" in page
    assert record["long_steps"] == 2000
    # "After the page's 150 steps the GPT is behind the MLP's 500; after
    # 2,000 steps it is ahead, though not by much"
    assert record["validation_loss"] > mlp["sample_loss"]
    assert (
        mlp["sample_loss"] - 0.1 < record["long_validation_loss"] < mlp["sample_loss"]
    )


def test_epilogue_record_starts_where_the_engine_starts() -> None:
    """The recorded PyTorch run (shown where torch is missing, as in the
    browser) began from the weights the engine draws now: its first two
    losses (before the schedule, shortened here, lowers the rate) are the
    engine's, to float32 rounding."""
    import sys

    sys.path.insert(0, str(BOOK))
    from epilogue_files import names

    from course.datasets import load_names

    record = json.loads((BOOK / "epilogue_files" / "torch_run.json").read_text())
    data = names.examples(load_names())
    batches = names.draw_batches(len(data[0]))[:2]
    weights = {k: st.tensor(v) for k, v in names.initial_weights(st).items()}
    _, losses, _ = names.train(st, weights, data, batches)
    gaps = [abs(a - b) for a, b in zip(losses, record["losses"][:2], strict=True)]
    assert max(gaps) < 1e-5, gaps
