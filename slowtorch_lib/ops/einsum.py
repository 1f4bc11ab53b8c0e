"""``einsum``: products and sums named by letters, as ``'bij,bjk->bik'``.

Each operand's dimensions get a letter. A letter in the output stays; a
letter left out of the output is summed over; a letter shared by two
operands multiplies them along it. So ``'ij,jk->ik'`` is the matrix
product, ``'ij->ji'`` the transpose, ``'ii->'`` the trace.

Nothing new is computed here: the equation is turned into views
(``permute``, ``unsqueeze``, a diagonal), sums and batched matrix products,
in the order PyTorch follows, so the gradients come from those operations
and the graph ends with the same node as PyTorch's.

1. Every operand is lined up on the same dimensions: the output's letters
   first, then the letters to sum over; a letter an operand lacks becomes
   a dimension of size 1 (which broadcasts), a repeated letter takes the
   diagonal.
2. Operands are combined two at a time, left to right: a letter that no
   later operand needs is summed in the same step, by one :func:`bmm`
   (:func:`_sum_product`); with nothing to sum, the step is a product.
3. The summed dimensions (now of size 1) are removed with a view, or, for
   a single operand, summed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.ops.linalg import bmm
from slowtorch_lib.ops.pointwise import mul
from slowtorch_lib.ops.views import as_strided

__all__ = ["einsum"]

ELLIPSIS = "..."
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _fail(message: str) -> RuntimeError:
    return RuntimeError(f"einsum(): {message}")


def _parse_term(term: str, operand: int, start: int) -> list[str]:
    """The letters of one operand, with ``'...'`` as one item.

    ``start`` is where the term begins in the equation, for messages.
    """
    labels: list[str] = []
    i = 0
    while i < len(term):
        char = term[i]
        if char == " ":
            i += 1
        elif char == ".":
            if ELLIPSIS in labels:
                raise _fail(
                    f"found '.' for operand {operand} for which an ellipsis was "
                    "already found"
                )
            if term[i : i + 3] != ELLIPSIS:
                raise _fail(
                    f"found '.' for operand {operand} that is not part of any ellipsis"
                )
            labels.append(ELLIPSIS)
            i += 3
        elif char in LETTERS:
            labels.append(char)
            i += 1
        else:
            raise _fail(
                f"invalid subscript given at index {start + i} in the equation "
                "string, subscripts must be in [a-zA-Z]"
            )
    return labels


def _parse(equation: str, count: int) -> tuple[list[list[str]], str | None]:
    """Each operand's letters, and the output part (None without ``->``)."""
    left, arrow, right = equation.partition("->")
    terms = left.split(",")
    if len(terms) < count:
        raise _fail("more operands were provided than specified in the equation")
    if len(terms) > count:
        raise _fail("fewer operands were provided than specified in the equation")
    parsed, start = [], 0
    for number, term in enumerate(terms):
        parsed.append(_parse_term(term, number, start))
        start += len(term) + 1
    return parsed, (right if arrow else None)


def _output_order(terms: list[list[str]], right: str | None, start: int) -> list[str]:
    """The letters of the output in order, ``'...'`` as one item.

    ``start`` is where the output part begins in the equation, for messages.
    """
    counts = {c: sum(t.count(c) for t in terms) for c in LETTERS}
    if right is None:  # implicit: the ellipsis, then letters seen once, sorted
        return [ELLIPSIS] + [c for c in LETTERS if counts[c] == 1]
    output: list[str] = []
    i = 0
    while i < len(right):
        char = right[i]
        if char == " ":
            i += 1
            continue
        if char == ".":
            if ELLIPSIS in output or right[i : i + 3] != ELLIPSIS:
                raise _fail(
                    "found '.' for output that is not part of any ellipsis (...)"
                )
            output.append(ELLIPSIS)
            i += 3
            continue
        if char not in LETTERS:
            raise _fail(
                f"invalid subscript given at index {start + i} in the equation "
                "string, subscripts must be in [a-zA-Z]"
            )
        if char in output:
            raise _fail(f"output subscript {char} appears more than once in the output")
        if counts[char] == 0:
            raise _fail(
                f"output subscript {char} does not appear in the equation for any "
                "input operand"
            )
        output.append(char)
        i += 1
    return output


def _diagonal(x: Tensor, first: int, second: int) -> Tensor:
    """The diagonal of dims ``first < second``, kept at ``first``: a view
    whose step along ``first`` moves along both."""
    if x._shape[first] != x._shape[second]:
        raise _fail("subscript sizes of a diagonal do not match")
    shape = list(x._shape)
    stride = list(x._stride)
    stride[first] += stride.pop(second)
    shape.pop(second)
    return as_strided(x, tuple(shape), tuple(stride), x._offset)


def _line_up(
    operand: Tensor,
    labels: list[str],
    number: int,
    position: dict[str, int],
    ellipsis_at: int,
    ellipsis_dims: int,
    width: int,
    sizes: dict[int, int],
    counts: list[int],
) -> Tensor:
    """``operand`` with one dimension per position of the lined-up order.

    ``sizes`` and ``counts`` are updated: the size seen at each position,
    and how many operands have a size other than 1 there.
    """
    covered = operand.dim() - (len(labels) - 1)
    permutation = [-1] * width
    dim = 0
    for label in labels:
        if label == ELLIPSIS:
            targets = range(
                ellipsis_at + ellipsis_dims - covered, ellipsis_at + ellipsis_dims
            )
        elif permutation[position[label]] != -1:  # repeated: take the diagonal
            first = permutation[position[label]]
            if operand._shape[dim] != operand._shape[first]:
                raise _fail(
                    f"subscript {label} is repeated for operand {number} but the "
                    f"sizes don't match, {operand._shape[dim]} != "
                    f"{operand._shape[first]}"
                )
            operand = _diagonal(operand, first, dim)
            continue
        else:
            targets = range(position[label], position[label] + 1)
        for target in targets:
            size = operand._shape[dim]
            if size != 1:
                if sizes.get(target, 1) not in (1, size):
                    raise _fail(
                        _broadcast_message(label, number, dim, size, sizes[target])
                    )
                sizes[target] = size
                counts[target] += 1
            permutation[target] = dim
            dim += 1
    for target in range(width):
        if permutation[target] == -1:  # a letter this operand does not have
            operand = operand.unsqueeze(dim)
            permutation[target] = dim
            dim += 1
    return operand.permute(permutation)


def _broadcast_message(label: str, number: int, dim: int, size: int, seen: int) -> str:
    if label == ELLIPSIS:
        return (
            f"dimension {dim} covered by ellipsis in operand {number}has size "
            f"{size} which does not broadcast with previously seen ellipsis with "
            f"size {seen} for the respective dimension"
        )
    return (
        f"subscript {label} has size {size} for operand {number} which does not "
        f"broadcast with previously seen size {seen}"
    )


def _sum_product(left: Tensor, right: Tensor, summed: list[int]) -> Tensor:
    """``(left * right)`` summed over the dims ``summed`` (kept as size 1),
    as one batched matrix product.

    The other dimensions fall in three groups: in both operands (the
    batch), in the left only (rows), in the right only (columns). Each
    operand is permuted and reshaped to ``(batch, rows, summed)`` and
    ``(batch, summed, columns)``, multiplied, and the product is viewed and
    permuted back.
    """
    if not summed:
        return mul(left, right)
    both: list[int] = []
    left_only: list[int] = []
    right_only: list[int] = []
    batch = rows = columns = inner = 1
    for dim in range(left.dim()):
        in_left, in_right = left._shape[dim] != 1, right._shape[dim] != 1
        if dim in summed:
            if in_left and in_right:
                inner *= left._shape[dim]
            elif in_left:
                left = left.sum(dim, keepdim=True)
            elif in_right:
                right = right.sum(dim, keepdim=True)
        elif in_left and in_right:
            both.append(dim)
            batch *= left._shape[dim]
        elif in_left:
            left_only.append(dim)
            rows *= left._shape[dim]
        else:
            right_only.append(dim)
            columns *= right._shape[dim]
    order = both + left_only + summed + right_only
    sizes = [left._shape[d] for d in both + left_only] + [1] * len(summed)
    sizes += [right._shape[d] for d in right_only]
    left = left.permute(order).reshape(batch, rows, inner)
    right = right.permute(both + summed + right_only + left_only)
    product = bmm(left, right.reshape(batch, inner, columns))
    back = [order.index(dim) for dim in range(len(order))]
    return product.view(sizes).permute(back)


def einsum(equation: str, *operands: Any) -> Tensor:
    """Sums of products named by letters: ``einsum('bij,bjk->bik', a, b)``.

    Args:
        equation: One term of letters per operand, separated by commas,
            then optionally ``->`` and the output's letters. ``...`` stands
            for any number of leading (broadcast) dimensions. Without
            ``->`` the output has the ellipsis, then the letters that occur
            once, in alphabetical order (capitals first).
        *operands: The tensors, or one list of them.

    Raises:
        ValueError: Without operands.
        RuntimeError: For an equation that does not fit the operands, with
            PyTorch's message.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, "
            "or at least one operand and its subscripts list"
        )
    for number, operand in enumerate(operands):
        if not isinstance(operand, Tensor):
            raise TypeError(
                f"expected Tensor as element {number} in argument 1, but got "
                f"{type(operand).__name__}"
            )
    terms, right = _parse(equation, len(operands))
    ellipsis_dims = _ellipsis_dims(terms, operands)
    start = len(equation.partition("->")[0]) + 2
    output = _output_order(terms, right, start)
    return _contract(terms, list(operands), output, ellipsis_dims)


def _ellipsis_dims(terms: list[list[str]], operands: Sequence[Tensor]) -> int:
    """How many dimensions ``...`` stands for (the most of any operand)."""
    most = 0
    for number, (labels, operand) in enumerate(zip(terms, operands)):
        letters = len([c for c in labels if c != ELLIPSIS])
        has_ellipsis = ELLIPSIS in labels
        if (letters > operand.dim()) if has_ellipsis else letters != operand.dim():
            raise _fail(
                f"the number of subscripts in the equation ({letters}) "
                f"{'is more than' if has_ellipsis else 'does not match'} the number "
                f"of dimensions ({operand.dim()}) for operand {number}"
                f"{'' if has_ellipsis else ' and no ellipsis was given'}"
            )
        if has_ellipsis:
            most = max(most, operand.dim() - letters)
    return most


def _contract(
    terms: list[list[str]],
    operands: list[Tensor],
    output: list[str],
    ellipsis_dims: int,
) -> Tensor:
    """Steps 1 to 3 of the module's description."""
    position: dict[str, int] = {}
    width = ellipsis_at = 0
    for label in output:
        if label == ELLIPSIS:
            ellipsis_at = width
            width += ellipsis_dims
        else:
            position[label] = width
            width += 1
    kept = width
    if ELLIPSIS not in output:
        ellipsis_at = width
        width += ellipsis_dims
    for label in LETTERS:  # the letters summed over, alphabetically
        if label not in position and any(label in t for t in terms):
            position[label] = width
            width += 1
    sizes: dict[int, int] = {}
    counts = [0] * width
    lined_up = [
        _line_up(
            op, labels, n, position, ellipsis_at, ellipsis_dims, width, sizes, counts
        )
        for n, (op, labels) in enumerate(zip(operands, terms))
    ]
    while len(lined_up) > 1:
        left, right = lined_up.pop(0), lined_up.pop(0)
        summed, left_sums, right_sums = [], [], []
        for dim in range(kept, width):
            if left._shape[dim] != 1 and right._shape[dim] != 1:
                counts[dim] -= 1
                if counts[dim] == 1:
                    summed.append(dim)
                    counts[dim] = 0
            elif counts[dim] == 1:
                if left._shape[dim] != 1:
                    left_sums.append(dim)
                    counts[dim] = 0
                elif right._shape[dim] != 1:
                    right_sums.append(dim)
                    counts[dim] = 0
        if left_sums:
            left = left.sum(left_sums, keepdim=True)
        if right_sums:
            right = right.sum(right_sums, keepdim=True)
        lined_up.insert(0, _sum_product(left, right, summed))
    result = lined_up[0]
    if width == kept:
        return result
    if len(operands) > 1:
        return result.view(list(result._shape[:kept]))
    return result.sum(list(range(kept, width)))
