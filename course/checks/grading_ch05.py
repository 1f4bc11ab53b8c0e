"""Chapter 5: grading-only cases (left out of a student release).

Same form as the public cases in ``ch05.py``; the grader runs both. Most
marks come from ``DRAWN``: shapes, settings and values drawn for each run.
"""

from __future__ import annotations

import importlib
from typing import Any

from course.checking import Case
from course.checks import drawn as d
from course.checks.ch05 import (
    conv,
    folded,
    layer,
    pooled,
    strided_grad,
    tie_pool,
    unfolded,
)

CASES = {
    "5.3": [
        Case("F.fold, dilation 4 on 9 rows", folded((9, 9), (3, 2), dilation=(4, 1))),
        Case("F.fold, padding 3, stride 3", folded((4, 4), 3, padding=3, stride=3)),
    ],
    "5.4": [
        Case("F.unfold, a 1x1 window", unfolded((1, 2, 3, 4), 1)),
        Case(
            "F.unfold, dilation (1, 3), stride (2, 1)",
            unfolded((2, 1, 6, 7), (2, 2), dilation=(1, 3), stride=(2, 1)),
        ),  # fmt: skip
    ],
    "5.5": [
        Case(
            "windows of a column slice",
            strided_grad(lambda b: b.reshape(3, 4)[:, 1:], (2, 2), (4, 1), 1),
        ),  # fmt: skip
    ],
    "5.6": [
        Case(
            "conv2d, groups=2, stride 2: gradients",
            conv((2, 4, 5, 5), (4, 2, 3, 3), True, groups=2, stride=2),
        ),  # fmt: skip
        Case("conv2d with a bias-free 1x1 kernel", conv((1, 3, 3, 3), (2, 3, 1, 1))),
    ],
    "5.7": [
        Case(
            "ties, 2 x 2 windows, stride 2, padding 1",
            tie_pool(kernel_size=2, stride=2, padding=1),
        ),
        Case(
            "max_pool2d, every element equal",
            pooled("max_pool2d", (1, 1, 4, 4), 2, seed=17, return_indices=True),
        ),  # fmt: skip
    ],
    "5.8": [
        Case(
            "avg_pool2d, stride 1, padding 1",
            pooled("avg_pool2d", (1, 1, 4, 5), 3, stride=1, padding=1),
        ),  # fmt: skip
    ],
    "5.9": [
        Case(
            "adaptive_avg_pool2d 9x2 to (4, 2)",
            pooled("adaptive_avg_pool2d", (1, 1, 9, 2), (4, 2)),
        ),  # fmt: skip
    ],
    "5.10": [
        Case("Conv2d(2, 2, 1)", layer(2, 2, 1)),
        Case(
            "Conv2d(2, 2, (3, 2), padding='same', dilation=(1, 3), circular)",
            layer(
                2, 2, (3, 2), padding="same", dilation=(1, 3), padding_mode="circular"
            ),
        ),
    ],
}


# --- drawn ---------------------------------------------------------------------


def settings(rng: d.Rng) -> dict[str, Any]:
    """Drawn stride, padding and dilation (pairs)."""
    return {
        "stride": (rng.randint(1, 3), rng.randint(1, 3)),
        "padding": (rng.randint(0, 2), rng.randint(0, 2)),
        "dilation": (rng.randint(1, 2), rng.randint(1, 2)),
    }


def drawn_conv(grads: bool) -> Any:
    def run(torch: Any, rng: d.Rng) -> Any:
        groups = rng.choice([1, 1, 2, 3])
        c_in = groups * rng.randint(1, 2)
        c_out = groups * rng.randint(1, 2)
        kernel = [rng.randint(1, 3), rng.randint(1, 3)]
        size = [rng.randint(5, 8), rng.randint(5, 8)]
        x = d.leaf(torch, rng, [rng.randint(1, 2), c_in, *size])
        w = d.leaf(torch, rng, [c_out, c_in // groups, *kernel])
        out = torch.nn.functional.conv2d(x, w, groups=groups, **settings(rng))
        if not grads:
            return out
        (out * d.tensor(torch, rng, list(out.shape))).sum().backward()
        return out, x.grad, w.grad

    return run


# The pieces alone: in the engine, the piece called on data the case makes
# itself (plain numbers, or window columns laid out by hand), so that no other
# piece of the chapter runs; in PyTorch, the operation that gives the same.


def blocks_alone(torch: Any, rng: d.Rng) -> Any:
    """blocks() for a drawn size, kernel, dilation, padding and stride (each
    fits at least one window); in PyTorch, the windows F.unfold makes."""
    found = []
    for _ in range(4):
        kernel, dilation = rng.randint(1, 4), rng.randint(1, 3)
        padding, stride = rng.randint(0, 2), rng.randint(1, 3)
        span = dilation * (kernel - 1) + 1
        size = rng.randint(max(1, span - 2 * padding), span + 9)
        if torch.__name__ == "torch":
            x = torch.zeros(1, 1, size, 1)
            columns = torch.nn.functional.unfold(
                x, (kernel, 1), (dilation, 1), (padding, 0), (stride, 1)
            )
            found.append(columns.shape[-1])
        else:
            blocks = d.piece(torch, "nn.functional.fold.blocks")
            found.append(blocks(size, kernel, dilation, padding, stride))
    return found


def columns_by_hand(
    x: list[Any], kernel: list[int], settings: dict[str, Any]
) -> tuple[list[Any], list[int]]:
    """F.unfold of the nested list ``x`` (N, C, H, W), in plain Python:
    ``(N, C * kh * kw, L)``, and the output's height and width."""
    (sh, sw), (ph, pw) = settings["stride"], settings["padding"]
    (dh, dw), (kh, kw) = settings["dilation"], kernel
    h, w = len(x[0][0]), len(x[0][0][0])
    out_h = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    out_w = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1

    def at(plane: list[Any], i: int, j: int) -> float:
        inside = 0 <= i < h and 0 <= j < w
        return float(plane[i][j]) if inside else 0.0

    columns = [
        [
            [
                at(plane, oi * sh - ph + ki * dh, oj * sw - pw + kj * dw)
                for oi in range(out_h)
                for oj in range(out_w)
            ]
            for plane in sample
            for ki in range(kh)
            for kj in range(kw)
        ]
        for sample in x
    ]
    return columns, [out_h, out_w]


def filters_alone(torch: Any, rng: d.Rng) -> Any:
    """weight_times_columns on window columns laid out by the case, with
    groups and drawn settings: the output and the weight's gradient; in
    PyTorch, conv2d itself."""
    groups = rng.choice([1, 1, 2, 3])
    c_in, c_out = groups * rng.randint(1, 2), groups * rng.randint(1, 2)
    kernel = [rng.randint(1, 3), rng.randint(1, 3)]
    size = [rng.randint(5, 8), rng.randint(5, 8)]
    n = rng.randint(1, 2)

    def whole(sizes: list[int]) -> Any:  # small whole numbers: sums are exact
        return d.nested(
            [float(rng.randint(-3, 3)) for _ in range(d.numel(sizes))], sizes
        )

    x_nested = whole([n, c_in, *size])
    w = torch.tensor(whole([c_out, c_in // groups, *kernel]), requires_grad=True)
    found = settings(rng)
    if torch.__name__ == "torch":
        x = torch.tensor(x_nested)
        out = torch.nn.functional.conv2d(x, w, groups=groups, **found)
    else:
        columns, _ = columns_by_hand(x_nested, kernel, found)
        conv = importlib.import_module(f"{torch.__name__}.nn.functional.conv")
        s = conv.Settings(groups=groups, **found)
        out = conv.weight_times_columns(w, torch.tensor(columns), tuple(size), s)
    (out * torch.tensor(whole(list(out.shape)))).sum().backward()
    return out, w.grad


def ranges_alone(torch: Any, rng: d.Rng) -> Any:
    """adaptive_ranges for drawn sizes (smaller and larger outputs); in
    PyTorch, the input positions each window of adaptive_avg_pool1d weighs."""
    found = []
    for _ in range(3):
        size, out = rng.randint(1, 13), rng.randint(1, 9)
        if torch.__name__ == "torch":
            weights = torch.nn.functional.adaptive_avg_pool1d(
                torch.eye(size)[None], out
            )
            found.append(
                [[j for j in range(size) if weights[0, j, i] > 0] for i in range(out)]
            )
        else:
            ranges = d.piece(torch, "nn.functional.pooling.adaptive_ranges")
            found.append([list(r) for r in ranges(size, out)])
    return found


def drawn_fold(torch: Any, rng: d.Rng) -> Any:
    size = (rng.randint(4, 12), rng.randint(4, 12))
    kernel = (rng.randint(1, 3), rng.randint(1, 3))
    return folded(size, kernel, **settings(rng))(torch)


def drawn_unfold(torch: Any, rng: d.Rng) -> Any:
    x = d.tensor(torch, rng, [rng.randint(1, 2), rng.randint(1, 3), 6, 7])
    if rng.random() < 0.5:
        x = x.transpose(2, 3)
    kernel = (rng.randint(1, 3), rng.randint(1, 3))
    found = settings(rng)
    return torch.nn.functional.unfold(x, kernel, **found)


def drawn_strided(torch: Any, rng: d.Rng) -> Any:
    base = d.leaf(torch, rng, [12])
    x = base.reshape(3, 4) if rng.random() < 0.5 else base.reshape(3, 4).t()
    window = rng.randint(1, 3)
    step = rng.randint(1, 3)
    count = (10 - window) // step + 1
    out = x.as_strided((count, window), (step, 1), rng.randint(0, 2))
    (out * d.tensor(torch, rng, list(out.shape))).sum().backward()
    return base.grad


def ties(torch: Any, rng: d.Rng, sizes: list[int]) -> Any:
    """A leaf of small whole numbers: windows with ties."""
    values = [float(rng.randint(0, 3)) for _ in range(d.numel(sizes))]
    return torch.tensor(d.nested(values, sizes)).requires_grad_()


def drawn_pool(kind: str) -> Any:
    def run(torch: Any, rng: d.Rng) -> Any:
        sizes = [rng.randint(1, 2), rng.randint(1, 2), rng.randint(4, 7), 6]
        x = ties(torch, rng, sizes)
        kernel = rng.randint(2, 3)
        stride = rng.randint(1, 3)
        padding = rng.randint(0, kernel // 2)
        ceil = rng.random() < 0.5
        if kind == "max":
            out, where = torch.nn.functional.max_pool2d(
                x, kernel, stride, padding, rng.randint(1, 2), ceil, True
            )
        else:
            where = None
            out = torch.nn.functional.avg_pool2d(
                x, kernel, stride, padding, ceil, rng.random() < 0.5
            )
        (out * d.tensor(torch, rng, list(out.shape))).sum().backward()
        return out, where, x.grad

    return run


def drawn_adaptive(torch: Any, rng: d.Rng) -> Any:
    """Adaptive max pooling, whose windows max pooling's forward takes."""
    x = d.leaf(torch, rng, [1, 2, rng.randint(2, 9), rng.randint(2, 9)])
    size = (rng.randint(1, 6), rng.randint(1, 6))
    out = torch.nn.functional.adaptive_max_pool2d(x, size)
    (out * d.tensor(torch, rng, list(out.shape))).sum().backward()
    return out, x.grad


def drawn_layer(torch: Any, rng: d.Rng) -> Any:
    groups = rng.choice([1, 2])
    c_in, c_out = groups * rng.randint(1, 2), groups * rng.randint(1, 2)
    kernel = (rng.randint(1, 3), rng.randint(1, 3))
    mode = rng.choice(["zeros", "reflect", "replicate", "circular"])
    padding = (rng.randint(0, 1), rng.randint(0, 1))
    m = torch.nn.Conv2d(
        c_in, c_out, kernel, stride=rng.randint(1, 2), padding=padding,
        groups=groups, bias=rng.random() < 0.7, padding_mode=mode,
    )  # fmt: skip
    with torch.no_grad():
        m.weight.copy_(d.tensor(torch, rng, list(m.weight.shape)))
        if m.bias is not None:
            m.bias.copy_(d.tensor(torch, rng, list(m.bias.shape)))
    x = d.leaf(torch, rng, [1, c_in, rng.randint(3, 6), rng.randint(3, 6)])
    out = m(x)
    (out * d.tensor(torch, rng, list(out.shape))).sum().backward()
    return repr(m), out, x.grad, m.weight.grad


DRAWN = {
    "5.3": [
        d.drawn("blocks(size, kernel, dilation, padding, stride)", blocks_alone),
        d.drawn("blocks (again)", blocks_alone),
        d.drawn("F.fold, drawn image and settings", drawn_fold),
    ],
    "5.4": [
        d.drawn("F.unfold, drawn image and settings", drawn_unfold),
        d.drawn("F.unfold (again)", drawn_unfold),
        d.drawn("conv2d values, drawn", drawn_conv(False)),
    ],
    "5.5": [
        d.drawn("as_strided windows: gradient", drawn_strided),
        d.drawn("as_strided windows (again)", drawn_strided),
    ],
    "5.6": [
        d.drawn("filters times window columns laid out by hand", filters_alone),
        d.drawn("filters times columns (again)", filters_alone),
        d.drawn("filters times columns (a third)", filters_alone),
    ],
    "5.7": [
        d.drawn("max_pool2d with ties, drawn settings", drawn_pool("max")),
        d.drawn("max_pool2d (again)", drawn_pool("max")),
        d.drawn("adaptive max pooling", drawn_adaptive),
    ],
    "5.8": [
        d.drawn("avg_pool2d, drawn settings", drawn_pool("avg")),
        d.drawn("avg_pool2d (again)", drawn_pool("avg")),
    ],
    "5.9": [
        d.drawn("adaptive_ranges(size, out), drawn sizes", ranges_alone),
        d.drawn("adaptive_ranges (again)", ranges_alone),
    ],
    "5.10": [
        d.drawn("Conv2d, drawn settings and padding mode", drawn_layer),
        d.drawn("Conv2d (again)", drawn_layer),
    ],
}
