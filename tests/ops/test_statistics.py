"""``var``, ``std`` and the norms (``slowtorch_lib/ops/statistics.py``) against
PyTorch: values, gradients and edges."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agree import agree, gradient


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("values", [[1.0, 1.0, 1.0], [[2.0, 1.0], [2.0, 3.0]]])
def test_std_var_at_zero_spread(name: str, values: list[Any]) -> None:
    agree(gradient(lambda x: getattr(x, name)(0), values))


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("correction", [3, 5, 3.5])
@pytest.mark.parametrize("values", [[1.0, 2.0, 4.0], [2.0, 2.0, 2.0], [1.0]])
def test_std_var_without_degrees_of_freedom(
    name: str, correction: Any, values: list[float]
) -> None:
    agree(gradient(lambda x: getattr(x, name)(correction=correction), values))


def test_var_of_one_element() -> None:
    agree(gradient(lambda x: x.var(), [1.0]))
    agree(gradient(lambda x: x.std(), [1.0]))


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("correction", [3, 5])
@pytest.mark.parametrize("keepdim", [False, True])
def test_std_var_along_a_dim_without_degrees_of_freedom(
    name: str, correction: int, keepdim: bool
) -> None:
    agree(
        gradient(
            lambda x: getattr(x, name)(0, correction=correction, keepdim=keepdim),
            [1.0, 2.0, 4.0],
        )
    )
    agree(
        gradient(
            lambda x: getattr(x, name)(1, correction=correction),
            [[1.0, 2.0, 4.0], [1.0, 1.0, 1.0]],
        )
    )
