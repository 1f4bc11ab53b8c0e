"""``torch.amp.GradScaler``: multiply the loss, divide the gradients back.

Each step: ``scaler.scale(loss).backward()`` makes gradients ``scale`` times
too large; ``scaler.step(optimizer)`` divides them by ``scale`` and steps,
unless a gradient is infinite or NaN (the step is then skipped);
``scaler.update()`` halves the scale after such a step, and doubles it
after ``growth_interval`` good steps in a row.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.grad_mode import no_grad

__all__ = ["GradScaler"]


class GradScaler:
    """Scales losses and unscales gradients (see the module docstring).

    Args:
        device: ``"cuda"`` (the default, disabled with PyTorch's warning on
            a machine without a GPU) or ``"cpu"``.
        init_scale: The first scale.
        growth_factor: What the scale is multiplied by after
            ``growth_interval`` good steps.
        backoff_factor: What it is multiplied by after a bad step.
        growth_interval: Good steps in a row before growing.
        enabled: False makes every method do nothing (``step`` just steps).
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        if enabled and device == "cuda":
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available. "
                " Disabling.",
                stacklevel=2,
            )
            enabled = False
        self._device = device
        self._enabled = enabled
        self._scale = float(init_scale)
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._unscaled: dict[int, bool] = {}  # optimizer id -> found an inf

    def is_enabled(self) -> bool:
        """Whether the scaler scales."""
        return self._enabled

    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or lists/tuples of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(output) for output in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer: Any) -> None:
        """Divides the optimizer's gradients by the scale, noting infinities.

        Raises:
            RuntimeError: If called twice for one optimizer before ``update``.
        """
        if not self._enabled:
            return
        if id(optimizer) in self._unscaled:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the "
                "last update()."
            )
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    param.grad.mul_(1.0 / self._scale)
                    values = param.grad.reshape(-1).tolist()
                    found_inf = found_inf or not all(map(math.isfinite, values))
        self._unscaled[id(optimizer)] = found_inf

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscales (if not done yet) and steps, unless a gradient is not finite."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if id(optimizer) not in self._unscaled:
            self.unscale_(optimizer)
        if self._unscaled[id(optimizer)]:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: float | None = None) -> None:
        """Backs off after a skipped step, grows after enough good ones."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale)
        elif any(self._unscaled.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                self._scale *= self._growth_factor
                self._growth_tracker = 0
        self._unscaled = {}

    def state_dict(self) -> dict[str, Any]:
        """The scale and its settings (empty when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._growth_tracker,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores what :meth:`state_dict` gave."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._scale = float(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]
