"""Chapter 5, "Windows": the exercises and their public cases.

The plan (model-answer lines in brackets; the chapter quotes none of the
targets, only the engine code around them: ``im2col``, ``col2im``,
``convolve``, ``Convolution``, ``MaxPool2DWithIndices.backward``,
``AvgPool2D.forward``, ``Unfold``):

- 5.1 predict, "window views": shapes and strides of ``Tensor.unfold``,
  ``as_strided`` and ``F.unfold`` views, and the shape of a convolution's
  output for given stride, padding, dilation and groups. [10]
- 5.2 predict, "where the gradient goes": the gradient of ``max_pool2d``
  with tied maxima, of ``amax`` on the same window, of ``avg_pool2d``
  with overlapping windows, of a 1x1 window view. [8]
- 5.3 piece ``blocks`` (``slowtorch_lib.nn.functional.fold.blocks``): the
  number of windows along one dimension. [2] Its cases run ``F.fold``,
  which counts windows with ``blocks`` and no other piece of this chapter,
  so that 5.3 can be checked (and saved) before 5.4 is written.
- 5.4 piece ``windows`` (``fold.windows``): the 6-d window view, its
  sizes and strides, by ``as_strided``. [18]
- 5.5 piece ``AsStrided.backward`` (``ops.views.AsStrided.backward``): each
  gradient element added to the storage cell it was read from. [16]
- 5.6 piece ``weight_times_columns`` (``nn.functional.conv``): the
  convolution as the filters times the window columns, one product per
  group. [10]
- 5.7 piece ``MaxPool2DWithIndices.forward`` (``nn.functional.pooling``):
  each window's largest element and where it is, ties to the first as
  torch routes them. [22]
- 5.8 piece ``AvgPool2D.backward``: each element of a window gets
  ``grad / divisor``, added over the windows that cover it. [15]
- 5.9 piece ``adaptive_ranges``: the windows of adaptive pooling. [3]
- 5.10 build ``Conv2d`` (``nn.modules.conv.Conv2d``): the layer with
  torch's initialisation, checks, padding modes, repr and forward. [>= 45]
- 5.11 piece (if time allows) the CNN training run on the 8x8 digits.

Cases are programs against PyTorch's API, recorded once under PyTorch and
run under the engine with the student's piece in place of the engine's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from course.checking import Case, Exercise

# --- inputs that do not depend on a random generator ---


def image(torch: Any, *shape: int, seed: int = 0) -> Any:
    """A tensor of ``shape`` with small, varied values (ties here and there)."""
    count = math.prod(shape)
    values = [((i * 37 + seed * 11) % 17 - 8) / 4 for i in range(count)]
    return torch.tensor(values).reshape(*shape)


def leaf(torch: Any, *shape: int, seed: int = 0) -> Any:
    return image(torch, *shape, seed=seed).requires_grad_()


def weighted(out: Any, torch: Any) -> Any:
    """A scalar whose gradient differs for each element of ``out``."""
    weights = image(torch, *out.shape, seed=5)
    return (out * weights).sum()


def evaluate(text: str) -> Callable[[Any], Any]:
    """``text``'s value under ``torch`` (``F`` and a 4 x 5 ``x`` defined)."""

    def run(torch: Any) -> Any:
        names = {"torch": torch, "F": torch.nn.functional}
        names["x"] = torch.arange(20.0).reshape(4, 5)
        value = eval(text, names)  # noqa: S307  (our own text)
        return value.tolist() if hasattr(value, "tolist") else value

    return run


# --- 5.1 window views ---

VIEWS = [
    "torch.arange(10.).unfold(0, 4, 2).shape",
    "torch.arange(10.).unfold(0, 4, 2).stride()",
    "x.unfold(1, 3, 1).shape",
    "x.unfold(1, 3, 1).stride()",
    "x.unfold(0, 2, 2).unfold(1, 2, 1).shape",
    "x.unfold(0, 2, 2).unfold(1, 2, 1).stride()",
    "x.as_strided((2, 3, 3, 3), (5, 1, 5, 1))[1, 2, 0].tolist()",
    "F.unfold(torch.zeros(2, 3, 6, 6), 3).shape",
    "F.unfold(torch.zeros(1, 2, 7, 7), 3, stride=2, padding=1).shape",
    "F.conv2d(torch.zeros(1, 4, 9, 9), torch.zeros(6, 2, 3, 3), groups=2, "
    "dilation=2).shape",
    "F.max_pool2d(torch.zeros(1, 1, 7, 7), 2, ceil_mode=True).shape",
]

# --- 5.2 where the gradient goes ---


def gradient(make: Callable[[Any], Any], forward: Callable[[Any, Any], Any]) -> Any:
    def run(torch: Any) -> Any:
        x = torch.tensor(make(torch), requires_grad=True)
        forward(torch, x).sum().backward()
        return x.grad.tolist()

    return run


def tie(torch: Any) -> Any:
    return [[[[1.0, 3.0], [3.0, 2.0]]]]


def peak(torch: Any) -> Any:
    return [[[[1.0, 5.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]]]


def flat_ones(torch: Any) -> Any:
    return [[[[1.0] * 5]]]


WHERE = {
    "max_pool2d(t, 2), t = [[1, 3], [3, 2]]": gradient(
        tie, lambda torch, x: torch.nn.functional.max_pool2d(x, 2)
    ),
    "t.amax((-2, -1)), t = [[1, 3], [3, 2]]": gradient(
        tie, lambda torch, x: x.amax((-2, -1))
    ),
    "max_pool2d(u, 2, stride=1), u = [[1, 5, 1], [1, 1, 1], [1, 1, 1]]": gradient(
        peak, lambda torch, x: torch.nn.functional.max_pool2d(x, 2, stride=1)
    ),
    "avg_pool2d(u, 2, stride=1), u as above": gradient(
        peak, lambda torch, x: torch.nn.functional.avg_pool2d(x, 2, stride=1)
    ),
    "adaptive_avg_pool2d(ones(1, 1, 1, 5), (1, 3))": gradient(
        flat_ones, lambda torch, x: torch.nn.functional.adaptive_avg_pool2d(x, (1, 3))
    ),
    "max_pool2d(v, 2), v = [[2, 2], [2, 2]]": gradient(
        lambda torch: [[[[2.0, 2.0], [2.0, 2.0]]]],
        lambda torch, x: torch.nn.functional.max_pool2d(x, 2),
    ),
    "arange(4.).as_strided((2, 2), (1, 1))": gradient(
        lambda torch: [0.0, 1.0, 2.0, 3.0],
        lambda torch, x: x.as_strided((2, 2), (1, 1)),
    ),
}

# --- 5.3 and 5.4: how many windows, and the window view ---


def unfolded(shape: tuple[int, ...], kernel: Any, **settings: Any) -> Any:
    def run(torch: Any) -> Any:
        x = image(torch, *shape)
        return torch.nn.functional.unfold(x, kernel, **settings)

    return run


#: The largest number of windows a ``folded`` case tries.
MAX_WINDOWS = 300


def folded(size: tuple[int, int], kernel: Any, **settings: Any) -> Any:
    """``F.fold`` of ones, with as many columns as it accepts: the number of
    windows it counted and how many windows cover each pixel. Fold counts its
    windows with ``blocks`` and nothing else of this chapter's."""

    def run(torch: Any) -> Any:
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        for count in range(1, MAX_WINDOWS + 1):
            columns = torch.ones(1, kh * kw, count)
            try:
                out = torch.nn.functional.fold(columns, size, kernel, **settings)
            except NotImplementedError:
                raise  # a piece not written yet (a RuntimeError too) is no count
            except RuntimeError:
                continue
            return count, out
        return None

    return run


BLOCKS = [
    Case("F.fold to 8x8, 3x3 windows", folded((8, 8), 3)),
    Case("F.fold to 9x7, (3, 2) windows, stride 2", folded((9, 7), (3, 2), stride=2)),
    Case(
        "F.fold, padding 2, dilation 3, stride (2, 1)",
        folded((11, 10), 3, padding=2, dilation=3, stride=(2, 1)),
    ),
    Case("F.fold to 6x6, 3x3 windows, padding 1", folded((6, 6), 3, padding=1)),
    Case("F.fold, a window as large as the image", folded((5, 4), (5, 4))),
    Case("F.fold, stride larger than the window", folded((10, 10), 2, stride=4)),
    Case(
        "F.fold to 10x1, (3, 1) windows, stride 3, padding (1, 0)",
        folded((10, 1), (3, 1), stride=3, padding=(1, 0)),
    ),
]

WINDOWS = [
    Case("F.unfold of 1x1x4x5, 3x3", unfolded((1, 1, 4, 5), 3)),
    Case(
        "F.unfold of 2x3x5x5, (2, 3), stride 2",
        unfolded((2, 3, 5, 5), (2, 3), stride=2),
    ),  # fmt: skip
    Case("F.unfold, dilation 2", unfolded((1, 2, 6, 7), 2, dilation=2)),
    Case(
        "F.unfold, stride (1, 2), dilation (2, 1), padding 1",
        unfolded((1, 1, 5, 6), 3, stride=(1, 2), dilation=(2, 1), padding=1),
    ),
    Case(
        "F.unfold of a transposed (non-contiguous) image",
        lambda t: t.nn.functional.unfold(image(t, 2, 2, 5, 4).transpose(2, 3), 2),
    ),
    Case(
        "F.unfold of a slice (storage offset)",
        lambda t: t.nn.functional.unfold(image(t, 3, 1, 5, 5)[1:], 3, stride=2),
    ),
    Case(
        "conv2d: values",
        lambda t: t.nn.functional.conv2d(
            image(t, 2, 2, 5, 6), image(t, 3, 2, 2, 3, seed=1)
        ),
    ),
]

# --- 5.5 as_strided's backward ---


def strided_grad(
    make: Callable[[Any], Any], size: tuple[int, ...], stride: tuple[int, ...],
    offset: int | None = None,
) -> Any:  # fmt: skip
    def run(torch: Any) -> Any:
        base = leaf(torch, 12)
        x = make(base)
        out = x.as_strided(size, stride, offset)
        weighted(out, torch).backward()
        return base.grad

    return run


AS_STRIDED = [
    Case("overlapping windows of a row", strided_grad(lambda b: b, (5, 4), (2, 1))),
    Case(
        "2-d windows of a 3x4 image",
        strided_grad(lambda b: b.reshape(3, 4), (2, 3, 2, 2), (4, 1, 4, 1)),
    ),
    Case("a view that skips cells", strided_grad(lambda b: b, (3, 2), (4, 1))),
    Case(
        "a slice: an offset into the storage",
        strided_grad(lambda b: b[2:], (3, 3), (2, 1), 3),
    ),
    Case(
        "a transposed input",
        strided_grad(lambda b: b.reshape(3, 4).t(), (2, 2), (1, 4)),
    ),
    Case(
        "an input that shows a cell twice (expand): shared evenly",
        strided_grad(lambda b: b[:3].reshape(3, 1).expand(3, 2), (2, 2), (1, 1)),
    ),
    Case(
        "stride 0: one cell read by every element",
        strided_grad(lambda b: b, (2, 3), (0, 0), 5),
    ),
]

# --- 5.6 the convolution as windows @ weight ---


def conv(
    shape: tuple[int, ...], weight: tuple[int, ...], grads: bool = False,
    dims: int = 2, **settings: Any,
) -> Any:  # fmt: skip
    def run(torch: Any) -> Any:
        x = leaf(torch, *shape)
        w = leaf(torch, *weight, seed=2)
        fn = torch.nn.functional.conv2d if dims == 2 else torch.nn.functional.conv1d
        out = fn(x, w, **settings)
        if not grads:
            return out
        weighted(out, torch).backward()
        return out, x.grad, w.grad

    return run


CONV = [
    Case("conv2d, one channel", conv((1, 1, 5, 5), (1, 1, 3, 3))),
    Case("conv2d, 3 channels in, 4 out, batch 2", conv((2, 3, 5, 4), (4, 3, 2, 2))),
    Case("conv2d, groups=2", conv((1, 4, 5, 5), (6, 2, 3, 3), groups=2)),
    Case("conv2d, depthwise (groups=3)", conv((2, 3, 4, 4), (3, 1, 2, 2), groups=3)),
    Case(
        "conv2d, stride 2, padding 1, dilation 2",
        conv((1, 2, 7, 6), (2, 2, 3, 3), stride=2, padding=1, dilation=2),
    ),
    Case(
        "conv2d, groups=2: gradients", conv((1, 4, 4, 4), (2, 2, 2, 2), True, groups=2)
    ),  # fmt: skip
    Case("conv1d, groups=2", conv((2, 4, 7), (4, 2, 3), dims=1, groups=2)),
]

# --- 5.7 max pooling, ties as PyTorch ---


def pooled(
    name: str, shape: tuple[int, ...], *args: Any, seed: int = 0, **settings: Any
) -> Any:
    def run(torch: Any) -> Any:
        x = leaf(torch, *shape, seed=seed)
        result = getattr(torch.nn.functional, name)(x, *args, **settings)
        out = result[0] if isinstance(result, tuple) else result
        weighted(out, torch).backward()
        return result, x.grad

    return run


TIES = [[1.0, 3.0, 2.0, 2.0], [3.0, 0.0, 2.0, 2.0], [5.0, 5.0, 0.0, -1.0]]


def tie_pool(**settings: Any) -> Any:
    """max_pool2d of windows whose largest value comes more than once: the
    values, the indices and where the gradient goes."""

    def run(torch: Any) -> Any:
        x = torch.tensor([[TIES]], requires_grad=True)
        out, indices = torch.nn.functional.max_pool2d(
            x, return_indices=True, **settings
        )
        weighted(out, torch).backward()
        return out, indices, x.grad

    return run


def nan_pool(torch: Any) -> Any:
    x = torch.tensor([[[[1.0, float("nan")], [float("nan"), 2.0]]]])
    return torch.nn.functional.max_pool2d(x, 2, return_indices=True)


MAX_POOL = [
    Case(
        "max_pool2d(x, 2) with ties: values, gradient",
        pooled("max_pool2d", (1, 2, 4, 6), 2),
    ),  # fmt: skip
    Case(
        "max_pool2d, return_indices",
        pooled("max_pool2d", (2, 1, 5, 5), 3, stride=2, return_indices=True),
    ),
    Case(
        "max_pool2d, overlapping windows",
        pooled("max_pool2d", (1, 1, 5, 5), 3, stride=1),
    ),  # fmt: skip
    Case(
        "max_pool2d, padding 1, dilation 2",
        pooled(
            "max_pool2d", (1, 1, 6, 6), 2, padding=1, dilation=2, return_indices=True
        ),
    ),  # fmt: skip
    Case(
        "max_pool2d, ceil_mode",
        pooled("max_pool2d", (1, 2, 5, 5), 2, ceil_mode=True, seed=3),
    ),  # fmt: skip
    Case(
        "adaptive_max_pool2d to (2, 3)",
        pooled("adaptive_max_pool2d", (1, 1, 5, 7), (2, 3), return_indices=True),
    ),  # fmt: skip
    Case("a 3-d input (C, H, W)", pooled("max_pool2d", (2, 4, 4), 2)),
    Case("ties in every window: 2 x 2, stride 1", tie_pool(kernel_size=2, stride=1)),
    Case("ties across rows: 3 x 2, stride 1", tie_pool(kernel_size=(3, 2), stride=1)),
    Case(
        "NaN in a window",
        nan_pool,
        convention="a NaN is the maximum of any window it is in",
    ),
]

# --- 5.8 average pooling's backward ---

AVG_POOL = [
    Case("avg_pool2d(x, 2): gradient", pooled("avg_pool2d", (1, 2, 4, 4), 2)),
    Case(
        "avg_pool2d, overlapping windows",
        pooled("avg_pool2d", (1, 1, 5, 5), 3, stride=1),
    ),  # fmt: skip
    Case(
        "avg_pool2d, padding, count_include_pad=False",
        pooled(
            "avg_pool2d", (1, 1, 5, 5), 3, stride=2, padding=1, count_include_pad=False
        ),
    ),  # fmt: skip
    Case(
        "avg_pool2d, divisor_override=2",
        pooled("avg_pool2d", (2, 1, 4, 4), 2, divisor_override=2),
    ),
    Case(
        "avg_pool2d, ceil_mode", pooled("avg_pool2d", (1, 1, 5, 5), 2, ceil_mode=True)
    ),  # fmt: skip
    Case(
        "adaptive_avg_pool2d to (3, 2)",
        pooled("adaptive_avg_pool2d", (1, 2, 5, 5), (3, 2)),
    ),  # fmt: skip
    Case("avg_pool1d(x, 3, stride=2)", pooled("avg_pool1d", (1, 2, 9), 3, stride=2)),
]

# --- 5.9 adaptive pooling's windows ---

ADAPTIVE = [
    Case(
        "adaptive_avg_pool2d 5x5 to 3x3", pooled("adaptive_avg_pool2d", (1, 1, 5, 5), 3)
    ),  # fmt: skip
    Case(
        "adaptive_avg_pool2d 7x4 to (3, 4)",
        pooled("adaptive_avg_pool2d", (1, 1, 7, 4), (3, 4)),
    ),  # fmt: skip
    Case(
        "adaptive_max_pool2d 6x6 to 4x4",
        pooled("adaptive_max_pool2d", (1, 2, 6, 6), 4, return_indices=True),
    ),  # fmt: skip
    Case(
        "adaptive_avg_pool2d 4x5 to (2, 1)",
        pooled("adaptive_avg_pool2d", (2, 3, 4, 5), (2, 1)),
    ),  # fmt: skip
    Case(
        "adaptive_avg_pool2d 3x3 to 5x5 (larger)",
        pooled("adaptive_avg_pool2d", (1, 1, 3, 3), 5),
    ),  # fmt: skip
    Case("adaptive_avg_pool1d 10 to 4", pooled("adaptive_avg_pool1d", (1, 2, 10), 4)),
    Case(
        "adaptive_max_pool1d 9 to 4",
        pooled("adaptive_max_pool1d", (1, 1, 9), 4, return_indices=True),
    ),  # fmt: skip
]

# --- 5.10 nn.Conv2d ---


def layer(*args: Any, **settings: Any) -> Any:
    """A Conv2d with set weights: its output and its gradients."""

    def run(torch: Any) -> Any:
        m = torch.nn.Conv2d(*args, **settings)
        with torch.no_grad():
            m.weight.copy_(image(torch, *m.weight.shape, seed=4))
            if m.bias is not None:
                m.bias.copy_(image(torch, *m.bias.shape, seed=6))
        x = leaf(torch, 2, args[0], 6, 5)
        out = m(x)
        weighted(out, torch).backward()
        bias = None if m.bias is None else m.bias.grad
        return out, x.grad, m.weight.grad, bias

    return run


def drawn_range(*args: Any, **settings: Any) -> Any:
    """Whether the initial weights and bias fill PyTorch's U(-b, b)."""

    def run(torch: Any) -> Any:
        torch.manual_seed(0)
        m = torch.nn.Conv2d(*args, **settings)
        fan_in = m.weight[0].numel()
        bound = 1 / math.sqrt(fan_in)
        w = m.weight.detach().abs() / bound
        b = m.bias.detach().abs() / bound
        return [
            w.max().item() <= 1.0,
            w.max().item() > 0.9,
            0.4 < w.mean().item() < 0.6,
            b.max().item() <= 1.0,
            m.weight.requires_grad and m.bias.requires_grad,
        ]

    return run


def described(*args: Any, **settings: Any) -> Any:
    def run(torch: Any) -> Any:
        m = torch.nn.Conv2d(*args, **settings)
        shapes = {k: list(v.shape) for k, v in m.state_dict().items()}
        return repr(m), shapes, m.kernel_size, m.stride, m.padding, m.dilation

    return run


def refused(*args: Any, **settings: Any) -> Any:
    def run(torch: Any) -> Any:
        torch.nn.Conv2d(*args, **settings)
        return "made"

    return run


CONV2D = [
    Case("Conv2d(3, 4, 3): output and gradients", layer(3, 4, 3)),
    Case(
        "Conv2d(2, 4, (3, 2), stride=2, padding=1)",
        layer(2, 4, (3, 2), stride=2, padding=1),
    ),  # fmt: skip
    Case("Conv2d(4, 2, 3, groups=2, bias=False)", layer(4, 2, 3, groups=2, bias=False)),
    Case(
        "Conv2d(1, 2, 3, padding='same', dilation=2)",
        layer(1, 2, 3, padding="same", dilation=2),
    ),  # fmt: skip
    Case(
        "Conv2d(2, 3, 3, padding=1, padding_mode='reflect')",
        layer(2, 3, 3, padding=1, padding_mode="reflect"),
    ),
    Case(
        "Conv2d(2, 3, (2, 4), padding='same', padding_mode='reflect')",
        layer(2, 3, (2, 4), padding="same", padding_mode="reflect"),
    ),
    Case(
        "Conv2d(2, 3, 2, padding=(1, 2), padding_mode='circular')",
        layer(2, 3, 2, padding=(1, 2), padding_mode="circular"),
    ),
    Case("the initial weights fill U(-b, b)", drawn_range(8, 16, 3)),
    Case("repr and state_dict", described(3, 8, 3, stride=2, padding=1)),
    Case(
        "repr with every setting",
        described(
            4, 8, (3, 1), dilation=2, groups=2, bias=False, padding_mode="replicate"
        ),
    ),  # fmt: skip
    Case("in_channels not divisible by groups", refused(3, 4, 3, groups=2)),
    Case("padding='same' with stride 2", refused(2, 2, 3, padding="same", stride=2)),
    Case("padding_mode='wrap'", refused(2, 2, 3, padding_mode="wrap")),
    Case("padding='full'", refused(2, 2, 3, padding="full")),
    Case(
        "padding='valid'",
        layer(2, 2, 3, padding="valid"),
        convention="'valid' is no padding",
    ),
]

EXERCISES = {
    "5.1": Exercise(
        "5.1",
        "window views",
        "answers_5_1",
        "predict",
        [Case(text, evaluate(text)) for text in VIEWS],
        [
            "Write shapes and strides as tuples, values as lists. x is "
            "torch.arange(20.).reshape(4, 5): strides (5, 1).",
            "unfold(dim, size, step) turns dim into the number of windows, "
            "(n - size) // step + 1, multiplies its stride by step and appends a "
            "dimension of size with the old stride.",
            "F.unfold gives (N, C * kh * kw, L), L the number of windows: "
            "(n + 2p - d(k - 1) - 1) // s + 1 along each dimension; ceil_mode "
            "rounds up.",
        ],
    ),
    "5.2": Exercise(
        "5.2",
        "where the gradient goes",
        "answers_5_2",
        "predict",
        [Case(text, run) for text, run in WHERE.items()],
        [
            "Each answer is the gradient of the sum of the result with respect to "
            "the input, as nested lists with the input's shape.",
            "max_pool2d gives all of a window's gradient to the first largest "
            "element in the window's row-major scan; amax shares it among ties.",
            "Average pooling gives 1 / (window size) to each element of each "
            "window; an element in several windows adds them up.",
        ],
    ),
    "5.3": Exercise(
        "5.3",
        "the number of windows",
        "blocks",
        "piece",
        BLOCKS,
        [
            "Pad first: the dimension has size + 2 * padding elements.",
            "A window with dilation d spans d * (kernel - 1) + 1 elements.",
            "Starts are 0, stride, 2 * stride, ... as long as the window fits: "
            "count the starts with a floor division.",
        ],
        target="slowtorch_lib.nn.functional.fold.blocks",
        what="window counts",
    ),
    "5.4": Exercise(
        "5.4",
        "the 6-d window view",
        "windows",
        "piece",
        WINDOWS,
        [
            "The result is x.as_strided(shape, strides, offset) of shape "
            "(N, C, out_h, out_w, kh, kw); use x.stride() and x.storage_offset(), "
            "so that any layout works.",
            "The first two strides are x's; moving to the next window skips "
            "stride rows (or columns), so multiply x's row stride by stride[0].",
            "Moving inside a window skips dilation rows: x's row stride times "
            "dilation[0]. The number of windows: blocks(..., padding=0, ...).",
        ],
        target="slowtorch_lib.nn.functional.fold.windows",
        what="window views",
    ),
    "5.5": Exercise(
        "5.5",
        "as_strided's backward",
        "as_strided_backward",
        "piece",
        AS_STRIDED,
        [
            "position_list(shape, stride, offset) gives the storage cell of every "
            "element of a geometry, in row-major order: ctx.geometry for the "
            "output, ctx.input_geometry for the input.",
            "Add each gradient element into its cell (a cell the input does not "
            "show gets it too, and it is dropped); then each element of x takes "
            "its cell's total.",
            "If x shows one cell several times (expand), share the total evenly "
            "among them, as PyTorch does.",
        ],
        target="slowtorch_lib.ops.views.AsStrided.backward",
        what="as_strided gradients",
    ),
    "5.6": Exercise(
        "5.6",
        "windows @ weight, with groups",
        "weight_times_columns",
        "piece",
        CONV,
        [
            "With one group: weight.reshape(O, -1) @ columns is (N, O, L); view it "
            "as (N, O, out_h, out_w), with blocks for out_h and out_w.",
            "With g groups, the rows of columns split into g blocks of C/g * kh * kw, "
            "and the filters into g blocks of O/g.",
            "Make the group a batch dimension: (g, O/g, -1) @ (N, g, -1, L) "
            "broadcasts to (N, g, O/g, L).",
        ],
        target="slowtorch_lib.nn.functional.conv.weight_times_columns",
        what="convolutions",
    ),
    "5.7": Exercise(
        "5.7",
        "max pooling, ties as PyTorch",
        "max_pool_forward",
        "piece",
        MAX_POOL,
        [
            "cells[w] lists the flat positions (in one H x W channel) of window w; "
            "go over every channel (x viewed as (-1, H * W)) and every window.",
            "Pick the first largest element of the window (a later element wins "
            "only if strictly larger, or if it is NaN). The index is its position "
            "in the channel.",
            "Save ctx.input_shape and ctx.positions (flat positions in the whole "
            "input) for the backward; mark the indices non-differentiable.",
        ],
        target="slowtorch_lib.nn.functional.pooling.MaxPool2DWithIndices.forward",
        what="max poolings",
    ),
    "5.8": Exercise(
        "5.8",
        "average pooling's backward",
        "avg_pool_backward",
        "piece",
        AVG_POOL,
        [
            "ctx.layout is (cells, divisors, plane): for window w, its positions "
            "in one channel and its divisor; plane is H * W.",
            "Each element of window w of channel k gets grad[k, w] / divisor[w], "
            "at position k * plane + p.",
            "Build the gradient with tensor operations (indexing, index_add) so "
            "that it has a backward of its own.",
        ],
        target="slowtorch_lib.nn.functional.pooling.AvgPool2D.backward",
        what="average poolings",
    ),
    "5.9": Exercise(
        "5.9",
        "adaptive pooling's windows",
        "adaptive_ranges",
        "piece",
        ADAPTIVE,
        [
            "One list of indices per output element: out lists.",
            "Window i starts at floor(i * size / out).",
            "It ends before ceil((i + 1) * size / out): -(-a // b) is a ceiling.",
        ],
        target="slowtorch_lib.nn.functional.pooling.adaptive_ranges",
        what="adaptive poolings",
    ),
    "5.10": Exercise(
        "5.10",
        "build: nn.Conv2d",
        "Conv2d",
        "piece",
        CONV2D,
        [
            "Check the settings first (ValueErrors), store them as tuples, then "
            "make weight (O, C / groups, kh, kw) and bias (O) as Parameters.",
            "reset_parameters: kaiming_uniform_(weight, a=math.sqrt(5)) and the "
            "bias from U(-b, b), b = 1 / sqrt(fan_in).",
            "forward: F.conv2d, after F.pad with the padding_mode when it is not "
            "'zeros'; extra_repr lists only the settings that differ from their "
            "defaults.",
        ],
        target="slowtorch_lib.nn.modules.conv.Conv2d",
        what="convolution layers",
        not_to_use=("_ConvNd", "_Conv"),
    ),
}
