"""How a tensor prints: the text of ``repr(tensor)``, laid out as PyTorch does.

Printing a tensor takes four steps, one function each:

1. **Pick the elements to show** (:func:`shown_indices`). A tensor with more
   than 1000 elements is *summarised*: along every dimension longer than 6,
   only the first 3 and the last 3 entries are shown, with ``...`` between.
2. **Choose one number format** for all of them (:func:`choose_style`), by
   looking at the shown values only:

   - integers and bools print as Python prints them: ``3``, ``True``;
   - floats that are all whole numbers print with a bare point: ``2.``;
   - other floats print with 4 decimals: ``0.5000``;
   - floats switch to scientific notation, ``1.0000e+10``, when the largest
     and smallest nonzero magnitudes are more than 1000 apart, when one is
     above ``1e8``, or (for non-whole floats) when one is below ``1e-4``.

   Every number is then padded on the left to a common width (that of the
   widest nonzero finite number), so the columns line up.
3. **Lay out the brackets** (:func:`layout`). Rows of numbers are wrapped at
   80 columns; blocks of a higher dimension are separated by one more blank
   line per dimension. The nesting is built bottom-up, the same way
   ``tolist`` turns a flat list into nested lists.
4. **Add the suffixes** (:func:`suffixes`, :func:`add_suffixes`): the size
   of an empty tensor, a dtype that cannot be guessed from the numbers, and
   the autograd state.

The result is exactly what PyTorch prints, character for character::

    >>> import slowtorch_lib as torch
    >>> print(torch.tensor([[1.0, 2.5], [-3.0, 4.0]], requires_grad=True))
    tensor([[ 1.0000,  2.5000],
            [-3.0000,  4.0000]], requires_grad=True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import product
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._tensor import Tensor

__all__ = ["get_printoptions", "set_printoptions", "tensor_repr"]

# The print options (``set_printoptions`` changes them), with PyTorch's defaults.
LINE_WIDTH = 80  # characters per line
THRESHOLD: float = 1000  # more elements than this are summarised
EDGE_ITEMS = 3  # entries shown at each end of a summarised dimension
PRECISION = 4  # decimals of a fixed or scientific float
SCI_MODE: bool | None = None  # force scientific notation on (True) or off
PREFIX = "tensor("

# precision, threshold, edgeitems, linewidth of each named profile
PROFILES: dict[str, tuple[int, float, int, int]] = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Changes how every tensor prints from now on, as ``torch.set_printoptions``.

    Args:
        precision: Decimals of a float.
        threshold: More elements than this are summarised with ``...``.
        edgeitems: Entries shown at each end of a summarised dimension.
        linewidth: Characters per line.
        profile: ``"default"``, ``"short"`` or ``"full"`` (never summarise)
            sets the four options above at once; those given override it.
        sci_mode: True or False forces scientific notation on or off; None
            (the default, set again at every call) lets the values decide.
    """
    global PRECISION, THRESHOLD, EDGE_ITEMS, LINE_WIDTH, SCI_MODE
    if profile in PROFILES:
        PRECISION, THRESHOLD, EDGE_ITEMS, LINE_WIDTH = PROFILES[profile]
    PRECISION = PRECISION if precision is None else precision
    THRESHOLD = THRESHOLD if threshold is None else threshold
    EDGE_ITEMS = EDGE_ITEMS if edgeitems is None else edgeitems
    LINE_WIDTH = LINE_WIDTH if linewidth is None else linewidth
    SCI_MODE = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options, by name."""
    return {
        "precision": PRECISION,
        "threshold": THRESHOLD,
        "edgeitems": EDGE_ITEMS,
        "linewidth": LINE_WIDTH,
        "sci_mode": SCI_MODE,
    }


# ----------------------------------------------------------------------
# Step 1: which elements are shown
# ----------------------------------------------------------------------


def shown_indices(shape: tuple[int, ...], summarise: bool) -> list[list[int | None]]:
    """For each dimension, the indices shown along it, ``None`` marking ``...``.

    >>> shown_indices((2, 10), summarise=True)
    [[0, 1], [0, 1, 2, None, 7, 8, 9]]
    """
    result: list[list[int | None]] = []
    for size in shape:
        if summarise and size > 2 * EDGE_ITEMS:
            head: list[int | None] = list(range(EDGE_ITEMS))
            tail: list[int | None] = list(range(size - EDGE_ITEMS, size))
            result.append(head + [None] + tail)
        else:
            result.append(list(range(size)))
    return result


def shown_values(tensor: Tensor, indices: list[list[int | None]]) -> list[Any]:
    """The shown elements in row-major order, read straight from the storage.

    Only these are read, so printing a huge tensor stays quick. Each one is
    at ``offset + i0 * s0 + i1 * s1 + ...`` (see :mod:`slowtorch_lib._strides`).
    """
    data = tensor._storage.data
    to_python = tensor.dtype.to_python
    kept = [[i for i in dim if i is not None] for dim in indices]
    values = []
    for index in product(*kept):
        position = tensor._offset
        for i, stride in zip(index, tensor._stride):
            position += i * stride
        values.append(to_python(data[position]))
    return values


# ----------------------------------------------------------------------
# Step 2: one format for every number
# ----------------------------------------------------------------------


def nonzero_finite(value: float) -> bool:
    """Whether PyTorch's printing measures ``value``: finite and not 0."""
    return math.isfinite(value) and value != 0


#: Which values decide the format, for a dtype beyond the ten that says
#: otherwise than :func:`nonzero_finite` (registered by its module).
MEASURED: dict[dtype, Callable[[float], bool]] = {}


def choose_style(
    values: list[Any],
    is_float: bool,
    measured: Callable[[float], bool] = nonzero_finite,
) -> str:
    """The format shared by all the numbers.

    ``measured`` picks the numbers that decide the format
    (:func:`nonzero_finite`, or a dtype's own rule in :data:`MEASURED`).

    Returns:
        ``"plain"`` (``str`` of an int or bool), ``"whole"`` (``2.``),
        ``"fixed"`` (``0.5000``) or ``"scientific"`` (``5.0000e-01``).
    """
    if not is_float:
        return "plain"
    magnitudes = [abs(v) for v in values if measured(v)]
    if SCI_MODE is not None and magnitudes:  # set_printoptions(sci_mode=...)
        whole = all(v.is_integer() for v in magnitudes)
        return "scientific" if SCI_MODE else "whole" if whole else "fixed"
    if not magnitudes:
        return "whole"  # only zeros, nan and inf: ``tensor([0., nan])``
    if any(math.isnan(v) for v in magnitudes):  # no test holds for nan
        return "fixed"
    largest = max(magnitudes)
    smallest = min(magnitudes)
    spread = largest / smallest > 1000.0 or largest > 1.0e8
    if all(v.is_integer() for v in magnitudes):
        return "scientific" if spread else "whole"
    return "scientific" if spread or smallest < 1.0e-4 else "fixed"


def format_number(value: Any, style: str) -> str:
    """One number in the given style, not yet padded."""
    if style == "plain":
        return str(value)
    if style == "scientific":
        return f"{value:.{PRECISION}e}"
    if style == "fixed":
        return f"{value:.{PRECISION}f}"
    if math.isfinite(value):  # "whole": no decimals, but a point to say "float"
        return f"{value:.0f}."
    return f"{value:.0f}"  # nan, inf, -inf


def format_all(
    values: list[Any],
    is_float: bool,
    measured: Callable[[float], bool] = nonzero_finite,
) -> tuple[list[str], int]:
    """Every value formatted and right-aligned to a common width.

    For floats the width is that of the widest *nonzero finite* value:
    ``nan``, ``inf`` and zeros are padded to it but never widen it, so
    ``-0.`` or ``-inf`` may stick out: ``tensor([-0., 2.])``. With no
    nonzero finite value at all, the width is 1. ``measured`` is as in
    :func:`choose_style`.

    Returns:
        The texts, and the common width (line wrapping counts with it).
    """
    style = choose_style(values, is_float, measured)
    texts = [format_number(v, style) for v in values]
    if is_float:
        widths = [len(t) for t, v in zip(texts, values) if measured(v)]
    else:
        widths = [len(t) for t in texts]
    width = max(widths, default=1)
    return [text.rjust(width) for text in texts], width


def format_complex(values: list[Any]) -> tuple[list[str], int]:
    """Complex numbers as PyTorch prints them: ``1.5000-2.j``.

    The real parts are formatted together (one style, one width) as a
    float tensor's numbers are, and so are the imaginary parts, apart;
    the imaginary text loses its padding and gains its sign and a ``j``.

    Returns:
        The texts, and the width line wrapping counts with: both widths
        plus one for the ``j``.
    """
    reals, real_width = format_all([v.real for v in values], True)
    imags, imag_width = format_all([v.imag for v in values], True)
    texts = []
    for real, imag in zip(reals, imags):
        imag = imag.lstrip() + "j"
        texts.append(real + (imag if imag[0] in "+-" else "+" + imag))
    return texts, real_width + imag_width + 1


# ----------------------------------------------------------------------
# Step 3: brackets and lines
# ----------------------------------------------------------------------


def with_ellipsis(
    items: list[str], dim_indices: list[int | None], mark: str
) -> list[str]:
    """Puts ``mark`` where ``dim_indices`` has its ``None`` (if it has one)."""
    if None not in dim_indices:
        return items
    cut = dim_indices.index(None)
    return items[:cut] + [mark] + items[cut:]


def vector_text(items: list[str], width: int, indent: int) -> str:
    """One innermost row, ``[a, b, c]``, wrapped to fit in 80 columns.

    ``indent`` is the column where the ``[`` stands. Every item is counted
    as the common ``width`` plus 2 (for ``", "``); as many items as fit go
    on each line (at least one).
    """
    per_line = max(1, (LINE_WIDTH - indent) // (width + 2))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def layout(
    texts: list[str],
    width: int,
    indices: list[list[int | None]],
    column: int = len(PREFIX),
) -> str:
    """Nests the formatted numbers in brackets, from the last dimension out.

    First every innermost row becomes ``[a, b, c]``; then, for each earlier
    dimension, consecutive blocks are grouped and joined. Inside a tensor of
    ``n`` dimensions the blocks of dimension ``d`` are separated by a comma
    and ``n - d - 1`` line breaks, and indented to stand under their ``[``.
    ``column`` is where the outermost ``[`` stands.
    """
    ndim = len(indices)
    innermost = indices[-1]
    row_length = len([i for i in innermost if i is not None])
    indent = column + ndim - 1
    blocks = []
    for start in range(0, len(texts), row_length):
        row = with_ellipsis(texts[start : start + row_length], innermost, " ...")
        blocks.append(vector_text(row, width, indent))
    for dim in range(ndim - 2, -1, -1):
        dim_indices = indices[dim]
        group_length = len([i for i in dim_indices if i is not None])
        indent = column + dim
        separator = "," + "\n" * (ndim - dim - 1) + " " * (indent + 1)
        grouped = []
        for start in range(0, len(blocks), group_length):
            group = blocks[start : start + group_length]
            group = with_ellipsis(group, dim_indices, "...")
            grouped.append("[" + separator.join(group) + "]")
        blocks = grouped
    return blocks[0]


# ----------------------------------------------------------------------
# Step 4: the whole text, with its suffixes
# ----------------------------------------------------------------------


def suffixes(tensor: Tensor) -> list[str]:
    """The ``name=value`` parts after the numbers, in PyTorch's order.

    - ``size=(0, 3)``: an empty tensor that is not 1-d (its brackets,
      ``[]``, cannot show the shape);
    - ``dtype=torch.float64``: any dtype other than the default float
      dtype, except int64, bool and the default complex dtype (complex64
      when the default is float32), whose numbers already say what they
      are (an empty tensor has no numbers, so it always says);
    - ``grad_fn=<MulBackward0>`` for a result of a recorded operation, or
      ``requires_grad=True`` for a leaf that requires grad.
    """
    parts = []
    empty = tensor.numel() == 0
    if empty and tensor.dim() != 1:
        parts.append(f"size={tuple(tensor.shape)}")
    default_complex = dtypes.COMPLEX_OF[dtypes.get_default_dtype()]
    guessable = tensor.dtype in (dtypes.int64, dtypes.bool_, default_complex)
    if tensor.dtype is not dtypes.get_default_dtype() and (empty or not guessable):
        parts.append(f"dtype={tensor.dtype!r}")
    if tensor.grad_fn is not None:
        parts.append(f"grad_fn=<{tensor.grad_fn.name()}>")
    elif tensor.requires_grad:
        parts.append("requires_grad=True")
    return parts


def add_suffixes(text: str, parts: list[str]) -> str:
    """Appends ``, name=value`` parts, moving one to a new line if it would not fit.

    A part stays on the current line if the line, with ``", "`` and the part
    added, still leaves two of the 80 columns free (room for the closing
    parenthesis and one more: PyTorch's rule). Otherwise it starts a new
    line, indented under the ``[``.
    """
    indent = len(PREFIX)
    line_length = len(text) - text.rfind("\n") - 1  # the last line so far
    for part in parts:
        if line_length + len(", ") + len(part) + 2 > LINE_WIDTH:
            text += ",\n" + " " * indent + part
            line_length = indent + len(part)
        else:
            text += ", " + part
            line_length += len(", ") + len(part)
    return text


def tensor_repr(tensor: Tensor) -> str:
    """The text ``repr(tensor)`` (and ``print(tensor)``) shows."""
    return add_suffixes(PREFIX + tensor_body(tensor), suffixes(tensor)) + ")"


def tensor_body(tensor: Tensor, column: int = len(PREFIX)) -> str:
    """The numbers in their brackets, the outermost ``[`` in ``column``."""
    is_float = tensor.dtype.is_floating_point
    measured = MEASURED.get(tensor.dtype, nonzero_finite)

    def formatted(values: list[Any]) -> tuple[list[str], int]:
        if tensor.dtype.is_complex:
            return format_complex(values)
        return format_all(values, is_float, measured)

    if tensor.numel() == 0:
        return "[]"
    if tensor.dim() == 0:
        return formatted(shown_values(tensor, []))[0][0]
    indices = shown_indices(tensor._shape, summarise=tensor.numel() > THRESHOLD)
    texts, width = formatted(shown_values(tensor, indices))
    return layout(texts, width, indices, column)
