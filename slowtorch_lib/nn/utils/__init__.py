"""Utilities for training networks, as ``torch.nn.utils``."""

from slowtorch_lib.nn.utils import rnn
from slowtorch_lib.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_

__all__ = ["clip_grad_norm_", "clip_grad_value_", "rnn"]
