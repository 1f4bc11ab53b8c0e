"""Answers that delegate their exercise's work, one set per chapter 2..6: to
NumPy or PyTorch (their folders appended to ``sys.path``), to the course
imported under a computed name, and to another path of the class engine
that computes the piece. Each must score nothing (see
``test_delegation.py``)."""

from __future__ import annotations

import site
import sysconfig

from course import sandbox


def installed_folders() -> list[str]:
    """Where this machine keeps installed packages (NumPy, PyTorch...)."""
    found = {sysconfig.get_path("purelib"), *site.getsitepackages()}
    found |= {str(p) for p in sandbox.installed_packages()}
    found |= {"/usr/lib/python3/dist-packages", "/usr/local/lib/python3/dist-packages"}
    return sorted(found)


def prelude(module: str, alias: str) -> str:
    """Appends the installed packages' folders and imports ``module``."""
    return (
        "import os, sys\n"
        "os.environ['OPENBLAS_NUM_THREADS'] = '1'  # no thread to notice\n"
        f"sys.path += {installed_folders()!r}\n"
        f"import {module} as {alias}\n"
    )


def computed(target: str, name: str) -> str:
    """The engine's own ``target``, through the course imported by a name the
    cell computes (the grader's text checks never see ``course``)."""
    return (
        "import importlib\n"
        "course = importlib.import_module(''.join(['cou', 'rse']))\n"
        f"{name} = course.substitute.original({target!r})\n"
    )


NUMPY = prelude("numpy", "np")
TORCH = prelude("torch", "real")

DELEGATING: dict[str, dict[str, str]] = {
    "2": {
        "2.11": NUMPY + "def numerical_jacobian(fn, inputs, eps=1e-6):\n"
        "    x = np.array(inputs[0].tolist(), dtype=float).ravel()\n"
        "    columns = []\n"
        "    for i in range(x.size):\n"
        "        step = np.zeros_like(x)\n"
        "        step[i] = eps\n"
        "        shape = inputs[0].shape\n"
        "        up = fn(torch.tensor((x + step).tolist()).reshape(shape))\n"
        "        down = fn(torch.tensor((x - step).tolist()).reshape(shape))\n"
        "        columns.append((np.array(up.tolist()) - np.array(down.tolist()))"
        ".ravel() / (2 * eps))\n"
        "    return [torch.tensor(np.stack(columns, 1).tolist())]\n",
        "2.12": TORCH + "def analytical_jacobian(fn, inputs):\n"
        "    def real_fn(*xs):\n"
        "        return real.tensor(fn(*(torch.tensor(x.tolist()) for x in xs))"
        ".tolist())\n"
        "    found = real.autograd.functional.jacobian(\n"
        "        real_fn, tuple(real.tensor(x.tolist()) for x in inputs))\n"
        "    return [torch.tensor(j.tolist()) for j in found]\n",
        "2.13": computed("slowtorch_lib.autograd.gradcheck.gradcheck", "gradcheck"),
        # the gradient of max(dim) is a scatter of the gradient to the indices
        "2.8": "def max_dim_backward(ctx, grad_values, grad_indices):\n"
        "    (indices,) = ctx.saved_tensors\n"
        "    (dim,) = ctx.dims\n"
        "    if not ctx.keepdim:\n"
        "        grad_values = grad_values.unsqueeze(dim)\n"
        "        indices = indices.unsqueeze(dim)\n"
        "    zeros = torch.zeros(ctx.input_shape, dtype=grad_values.dtype)\n"
        "    return zeros.scatter(dim, indices, grad_values)\n",
    },
    "3": {
        "3.5": NUMPY + "def kaiming_std(tensor, a, mode, nonlinearity):\n"
        "    fan = tensor.shape[1] if mode == 'fan_in' else tensor.shape[0]\n"
        "    for size in tensor.shape[2:]:\n"
        "        fan *= size\n"
        "    gain = np.sqrt(2.0 / (1 + a * a)) if nonlinearity == 'leaky_relu'"
        " else np.sqrt(2.0)\n"
        "    return float(gain / np.sqrt(fan))\n",
        "3.6": TORCH + "def cross_entropy(input, target, *args, **kwargs):\n"
        "    out = real.nn.functional.cross_entropy(\n"
        "        real.tensor(input.tolist(), requires_grad=True),\n"
        "        real.tensor(target.tolist()), *args, **kwargs)\n"
        "    return torch.tensor(out.tolist())\n",
        "3.10": computed("slowtorch_lib.safetensors.check_entries", "check_entries"),
        # log_softmax's gradient, by autograd through softmax and log
        "3.9": "def log_softmax_backward(ctx, grad_output):\n"
        "    (result,) = ctx.saved_tensors\n"
        "    x = result.detach().requires_grad_()\n"
        "    with torch.enable_grad():\n"
        "        y = x.softmax(ctx.dim).log()\n"
        "    (grad,) = torch.autograd.grad(y, x, grad_output)\n"
        "    return grad\n",
    },
    "4": {
        "4.6": NUMPY + "def cosine_get_lr(self):\n"
        "    t, t_max, floor = self.last_epoch, self.T_max, self.eta_min\n"
        "    return [float(floor + (b - floor) * (1 + np.cos(np.pi * t / t_max)) / 2)\n"
        "            for b in self.base_lrs]\n",
        "4.4": TORCH + "def sgd_update(self, param, grad, state, group):\n"
        "    p = real.tensor(param.tolist())\n"
        "    p -= group['lr'] * real.tensor(grad.tolist())\n"
        "    param.copy_(torch.tensor(p.tolist()))\n",
        "4.7": computed(
            "slowtorch_lib.nn.utils.clip_grad.clip_grad_norm_", "clip_grad_norm_"
        ),
        # the engine's other sampler draws the same permutation
        "4.9": "def random_sampler_iter(self):\n"
        "    n = len(self.data_source)\n"
        "    if self.replacement:\n"
        "        drawn = torch.randint(0, n, (self.num_samples,), "
        "generator=self.generator)\n"
        "        yield from drawn.tolist()\n"
        "        return\n"
        "    left = self.num_samples\n"
        "    while left > 0:\n"
        "        other = torch.utils.data.SubsetRandomSampler(range(n), "
        "self.generator)\n"
        "        yield from list(other)[:left]\n"
        "        left -= n\n",
    },
    "5": {
        "5.9": NUMPY + "def adaptive_ranges(size, out):\n"
        "    starts = np.floor(np.arange(out) * size / out).astype(int)\n"
        "    ends = np.ceil((np.arange(out) + 1) * size / out).astype(int)\n"
        "    return [range(int(a), int(b)) for a, b in zip(starts, ends)]\n",
        "5.8": TORCH + "def avg_pool_backward(ctx, grad_output):\n"
        "    x = real.zeros(ctx.input_shape, requires_grad=True)\n"
        "    out = real.nn.functional.avg_pool2d(x, *ctx.settings)\n"
        "    out.backward(real.tensor(grad_output.tolist()))\n"
        "    return torch.tensor(x.grad.tolist())\n",
        "5.7": computed(
            "slowtorch_lib.nn.functional.pooling.MaxPool2DWithIndices.forward",
            "max_pool_forward",
        ),
        # two Tensor.unfold calls and a slice give the same 6-d view
        "5.4": "def windows(x, kernel, dilation, stride):\n"
        "    span_h = dilation[0] * (kernel[0] - 1) + 1\n"
        "    span_w = dilation[1] * (kernel[1] - 1) + 1\n"
        "    out = x.unfold(2, span_h, stride[0]).unfold(3, span_w, stride[1])\n"
        "    return out[..., :: dilation[0], :: dilation[1]]\n",
    },
    "6": {
        "6.4": NUMPY + "def split_heads(x, heads):\n"
        "    b, t, c = x.shape\n"
        "    a = np.array(x.tolist()).reshape(b, t, heads, c // heads)\n"
        "    return torch.tensor(a.transpose(0, 2, 1, 3).tolist())\n",
        "6.3": TORCH + "def _composite(query, key, value, attn_mask, dropout_p,"
        " is_causal, scale, enable_gqa):\n"
        "    out = real.nn.functional.scaled_dot_product_attention(\n"
        "        *(real.tensor(t.tolist()) for t in (query, key, value)),\n"
        "        is_causal=is_causal, scale=scale)\n"
        "    return torch.tensor(out.tolist())\n",
        "6.8": computed("course.checks.gpt_parts.generate", "generate"),
        # the engine's softmax, its rows of nan (all -inf) made zeros
        "6.2": "def safe_softmax(input, dim):\n"
        "    return torch.nan_to_num(input.softmax(dim), nan=0.0)\n",
    },
}
