"""``BatchNorm1d`` and ``BatchNorm2d``: per-channel normalization with running stats."""

from __future__ import annotations

from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import ones, tensor, zeros
from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.modules.normalization import add_affine, reset_affine

__all__ = ["BatchNorm1d", "BatchNorm2d"]


class BatchNorm1d(Module):
    """Normalizes each channel of ``(N, C)`` or ``(N, C, L)`` input.

    In training (``model.train()``) it uses the batch's mean and variance and
    updates the running averages ``running_mean`` and ``running_var``
    (buffers); in evaluation (``model.eval()``) it uses the running averages.

    Args:
        num_features: The number of channels ``C``.
        eps: Added to the variance before the square root.
        momentum: Weight of each new batch in the running averages; ``None``
            gives the plain average of all batches so far.
        affine: Whether to learn ``weight`` and ``bias`` (ones and zeros).
        track_running_stats: Whether to keep running averages; without them
            the batch's statistics are used in evaluation too.
        bias: Whether to learn ``bias`` (if ``affine``).
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Dtype | None = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        self.has_bias = affine and bias
        add_affine(self, (num_features,), affine, bias, dtype, device)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=dtypes.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches seen."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        reset_affine(self)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        counting = self.training and self.track_running_stats
        factor = 0.0 if self.momentum is None else self.momentum
        if counting and self.momentum is None:  # the average of every batch so far
            factor = 1.0 / (float(self.num_batches_tracked.item()) + 1.0)
        # Batch statistics in training, and whenever there are no running ones.
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        output = F.batch_norm(
            input,
            self.running_mean if track else None,
            self.running_var if track else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            self.eps,
        )
        if counting:  # counted once the batch was accepted
            with no_grad():
                self.num_batches_tracked.add_(1)
        return output

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.has_bias}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm2d(BatchNorm1d):
    """Normalizes each channel of ``(N, C, H, W)`` input, over the batch and
    every position of the map (the arguments are those of
    :class:`BatchNorm1d`)."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")
