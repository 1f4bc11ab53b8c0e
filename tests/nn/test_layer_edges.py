"""Edges of the window layers, each run in both libraries by ``run_both``: the
same error type and message as torch, or the same tensor. Pooling's padding
and dtype checks, reflect and replicate padding of empty or bool input,
convolutions of bool, integer and empty input, transposed convolutions'
``output_padding``, and unfold/fold's checks and ``grad_fn`` names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.agree import agree
from tests.parity import require_torch
from tests.run_both import run_both


def _image(
    lib: Any, dtype: str = "float32", shape: tuple[int, ...] = (1, 1, 4, 4)
) -> Any:
    count = 1
    for size in shape:
        count *= size
    values = [(i % 7) - 3 for i in range(count)]
    return lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)


def _f(lib: Any) -> Any:
    return lib.nn.functional


CASES: dict[str, Callable[[Any], Any]] = {
    # pooling: padding at most half the kernel, dtypes
    "max_pool2d pad over half": lambda t: _f(t).max_pool2d(_image(t), 2, padding=2),
    "avg_pool2d pad over half": lambda t: _f(t).avg_pool2d(_image(t), 2, padding=2),
    "max_pool1d pad over half": lambda t: _f(t).max_pool1d(
        _image(t, shape=(1, 1, 6)), 2, padding=2
    ),
    "max_pool1d stride 0": lambda t: _f(t).max_pool1d(
        _image(t, shape=(1, 1, 6)), 2, stride=0
    ),
    "max_pool2d bool": lambda t: _f(t).max_pool2d(_image(t, "bool"), 2),
    "max_pool2d int64": lambda t: _f(t).max_pool2d(_image(t, "int64"), 2),
    "avg_pool2d int64 rounds toward zero": lambda t: _f(t).avg_pool2d(
        _image(t, "int64"), 2
    ),
    "avg_pool2d bool": lambda t: _f(t).avg_pool2d(_image(t, "bool"), 2),
    "avg_pool2d window in the padding": lambda t: _f(t).avg_pool2d(
        _image(t), 2, stride=2, padding=1, ceil_mode=True
    ),
    # padding of empty or bool input
    "reflect pad empty": lambda t: _f(t).pad(
        _image(t, shape=(1, 1, 0)), (1, 1), mode="reflect"
    ),
    "replicate pad empty": lambda t: _f(t).pad(
        _image(t, shape=(1, 1, 0)), (1, 1), mode="replicate"
    ),
    "reflect pad bool": lambda t: _f(t).pad(
        _image(t, "bool", (1, 1, 4)), (1, 1), mode="reflect"
    ),
    "replicate pad bool": lambda t: _f(t).pad(
        _image(t, "bool", (1, 1, 4)), (1, 1), mode="replicate"
    ),
    # convolutions
    "conv2d bool": lambda t: _f(t).conv2d(
        _image(t, "bool"), _image(t, "bool", (1, 1, 2, 2))
    ),
    "conv2d empty batch": lambda t: _f(t).conv2d(
        _image(t, shape=(0, 1, 4, 4)), _image(t, shape=(2, 1, 2, 2))
    ),
    "conv_transpose2d int32": lambda t: _f(t).conv_transpose2d(
        _image(t, "int32"), _image(t, "int32", (1, 1, 2, 2))
    ),
    "conv_transpose2d output_padding below dilation": lambda t: _f(t).conv_transpose2d(
        _image(t), _image(t, shape=(1, 1, 2, 2)), stride=1, dilation=2, output_padding=1
    ),
    "conv_transpose2d output_padding too large": lambda t: _f(t).conv_transpose2d(
        _image(t), _image(t, shape=(1, 1, 2, 2)), stride=1, output_padding=1
    ),
    # unfold and fold
    "unfold int64": lambda t: _f(t).unfold(_image(t, "int64"), 2),
    "fold no blocks": lambda t: _f(t).fold(
        _image(t, shape=(1, 4, 0)), output_size=(1, 1), kernel_size=2
    ),
    "unfold one image": lambda t: _f(t).unfold(_image(t, shape=(1, 4, 4)), 2),
}


@pytest.mark.parametrize("name", list(CASES))
def test_window_layer_edge_as_torch(name: str) -> None:
    run_both(CASES[name], signed_zeros=False)


@pytest.mark.parametrize(
    ("call", "node"),
    [
        (lambda t, x: _f(t).unfold(x, 2), "Im2ColBackward0"),
        (
            lambda t, x: _f(t).fold(x.reshape(4, 4), output_size=(3, 3), kernel_size=2),
            "Col2ImBackward0",
        ),
    ],
)
def test_unfold_and_fold_of_one_image_record_their_node(call: Any, node: str) -> None:
    torch = require_torch()
    for lib in (st, torch):
        x = _image(lib, shape=(1, 4, 4)).requires_grad_()
        assert call(lib, x).grad_fn.name() == node, lib


def _settings_cases() -> dict[str, Callable[[Any], Any]]:
    """Zero or negative kernel, stride, padding and dilation, one or several
    at once (the order of PyTorch's checks decides which message wins)."""
    bad = [
        {"kernel_size": 0, "stride": 1},
        {"kernel_size": 2, "stride": 0},
        {"kernel_size": 2, "padding": -1},
        {"kernel_size": 2, "dilation": 0},
        {"kernel_size": (0, 2), "stride": 1},
        {"kernel_size": 2, "dilation": (1, 0)},
        {"kernel_size": 2, "stride": 0, "padding": -1, "dilation": 0},
        {"kernel_size": 2, "padding": -1, "dilation": 0},
        {"kernel_size": 0, "stride": 0, "padding": -1, "dilation": 0},
    ]
    calls: dict[str, Callable[[Any, dict[str, Any]], Any]] = {
        "max_pool1d": lambda t, kw: _f(t).max_pool1d(_image(t, shape=(1, 1, 6)), **kw),
        "max_pool1d indices": lambda t, kw: _f(t).max_pool1d(
            _image(t, shape=(1, 1, 6)), return_indices=True, **kw
        ),
        "max_pool1d requires grad": lambda t, kw: _f(t).max_pool1d(
            _image(t, shape=(1, 1, 6)).requires_grad_(), **kw
        ),
        "max_pool2d": lambda t, kw: _f(t).max_pool2d(_image(t), **kw),
        "avg_pool2d": lambda t, kw: _f(t).avg_pool2d(
            _image(t), **{k: v for k, v in kw.items() if k != "dilation"}
        ),
        "unfold": lambda t, kw: _f(t).unfold(_image(t), **kw),
        "fold": lambda t, kw: _f(t).fold(
            _image(t, shape=(1, 4, 9)), output_size=(4, 4), **kw
        ),
        "conv1d": lambda t, kw: _f(t).conv1d(
            _image(t, shape=(1, 1, 6)), _image(t, shape=(1, 1, 2)), **_conv(kw)
        ),
        "conv2d": lambda t, kw: _f(t).conv2d(
            _image(t), _image(t, shape=(1, 1, 2, 2)), **_conv(kw)
        ),
        "conv_transpose1d": lambda t, kw: _f(t).conv_transpose1d(
            _image(t, shape=(1, 1, 6)), _image(t, shape=(1, 1, 2)), **_conv(kw)
        ),
        "conv_transpose2d": lambda t, kw: _f(t).conv_transpose2d(
            _image(t), _image(t, shape=(1, 1, 2, 2)), **_conv(kw)
        ),
    }
    cases = {}
    for name, call in calls.items():
        for kw in bad:
            if name.startswith("max_pool1d") and not isinstance(kw["kernel_size"], int):
                continue
            if name.startswith(("max_pool1d", "conv1d", "conv_transpose1d")) and (
                isinstance(kw.get("dilation"), tuple)
            ):
                continue
            cases[f"{name} {kw}"] = (lambda c, k: lambda t: c(t, k))(call, kw)
    return cases


def _conv(kw: dict[str, Any]) -> dict[str, Any]:
    """A convolution's settings: its kernel is the weight's."""
    return {k: v for k, v in kw.items() if k != "kernel_size"}


SETTINGS = _settings_cases()


@pytest.mark.parametrize("name", list(SETTINGS))
def test_window_settings_checked_as_torch(name: str) -> None:
    run_both(SETTINGS[name], signed_zeros=False)


@pytest.mark.parametrize("height", [1, 2])
def test_a_window_wholly_in_the_padding_as_torch(height: int) -> None:
    """A dilated window that steps over a short input: the lowest value, the
    index of its first step into the input, and (when that index lies in the
    channel) the gradient passed there, as PyTorch does."""

    def program(lib: Any) -> Any:
        x = lib.tensor([-1.0, 0.5] * height).reshape(1, 1, height, 2)
        x.requires_grad_()
        values, indices = lib.nn.functional.max_pool2d(
            x, (1, 2), 1, (0, 1), (1, 3), ceil_mode=True, return_indices=True
        )
        weights = lib.arange(1.0, height + 1).reshape(values.shape)
        values.backward(weights)
        return values, indices, x.grad

    agree(program)
