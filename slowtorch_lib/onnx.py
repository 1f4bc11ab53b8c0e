"""``torch.onnx``: exporting a model to the ONNX format, not in this engine."""

from __future__ import annotations

from typing import Any

__all__ = ["export", "is_in_onnx_export"]


def is_in_onnx_export() -> bool:
    """Whether an export is running: never."""
    return False


def export(*args: Any, **kwargs: Any) -> None:
    """Refused: this engine records no graph an exporter could read.

    Raises:
        NotImplementedError: Always.
    """
    raise NotImplementedError(
        "torch.onnx.export is not available in this engine: export the model "
        "from PyTorch (the state_dict saved here loads there)."
    )
