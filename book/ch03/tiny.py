"""The small model that chapter 3 saves, and that real PyTorch then reads.

``record_torch_load.py`` builds it with slowtorch_lib, saves its state dict,
and records what PyTorch prints when it loads the file; the chapter builds
the same model, and checks that its file is the same, byte for byte.
"""

import slowtorch_lib as torch
from slowtorch_lib import nn


class TinyMLP(nn.Module):
    """Two inputs, three hidden tanh units, one output."""

    def __init__(self):
        super().__init__()
        self.hidden_weight = nn.Parameter(torch.empty(3, 2))
        self.hidden_bias = nn.Parameter(torch.zeros(3))
        self.out_weight = nn.Parameter(torch.empty(1, 3))
        # A fixed scaling of the inputs: state, but not learned.
        self.register_buffer("input_scale", torch.tensor([1.0, 0.5]))

    def forward(self, x):
        x = x * self.input_scale
        hidden = (x @ self.hidden_weight.T + self.hidden_bias).tanh()
        return hidden @ self.out_weight.T


def tiny_model():
    """A ``TinyMLP`` with seeded weights: the same numbers on every machine."""
    torch.manual_seed(0)
    model = TinyMLP()
    nn.init.xavier_uniform_(model.hidden_weight)
    nn.init.xavier_uniform_(model.out_weight, gain=nn.init.calculate_gain("tanh"))
    return model
