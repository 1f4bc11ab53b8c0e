"""Neural networks (``slowtorch_lib.nn``); the rest of the package is merged in
from the ``nn`` branch."""

from slowtorch_lib.nn import utils

__all__ = ["utils"]
