"""The wrong answers each piece exercise is about, and how the checks take them.

Each wrong answer is the model answer (``solutions/``) with one mistake a
student would really make: the tie rule of a max pool, a NaN gradient on a
hidden row, an off-by-one window, a forgotten dilation, reversed strides, a
flipped sign, a forgotten accumulation or bias correction... It is written as
text replacements in the model answer, so it follows the model answer as it
changes (a replacement that no longer applies fails the test).

:func:`public_verdict` runs the notebook's own public cases (what ``check``
prints "All right!" for); :func:`grader_verdict` runs every case the grader
runs (public, grading-only and drawn, the drawn ones answered by the complete
engine for one seed, as the judge's answer key does). Both put the answer in
place of the engine's own piece, the other pieces being the engine's.

``python tests/grading/wrong_answers.py`` prints, per chapter, how many wrong
answers each side accepts.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())

from course.checking import (  # noqa: E402
    Exercise,
    case_rng,
    close,
    evaluate,
    expected_outcomes,
    load,
    outcome_of,
    run_case,
    run_piece_case,
)

ROOT = Path(__file__).resolve().parents[2]
SEED = "wrong answers"


class Wrong(NamedTuple):
    """One wrong answer: the exercise, what is wrong, the replacements."""

    exercise: str
    what: str
    edits: tuple[tuple[str, str], ...]


def _w(exercise: str, what: str, *edits: str) -> Wrong:
    pairs = tuple(zip(edits[::2], edits[1::2]))
    assert pairs and len(edits) % 2 == 0, (exercise, what)
    return Wrong(exercise, what, pairs)


# fmt: off
WRONG = [
    # --- chapter 1 ------------------------------------------------------------
    _w("1.5", "strides from the first dimension (reversed)",
       "for dim in range(len(shape) - 1, -1, -1):", "for dim in range(len(shape)):"),
    _w("1.5", "a size 0 multiplies the later strides",
       "block = block * shape[dim] if shape[dim] else block",
       "block = block * shape[dim]"),
    _w("1.5", "each stride includes its own size (off by one dimension)",
       "result[dim] = block\n        block = block * shape[dim] if shape[dim] else "
       "block",
       "block = block * shape[dim] if shape[dim] else block\n        result[dim] = "
       "block"),
    _w("1.6", "a 0 among the known sizes not refused",
       "if known == 0 or count % known:", "if count % known:"),
    _w("1.6", "the -1 multiplied in with the known sizes",
       "if size != -1:\n            known *= size", "known *= size"),
    _w("1.7", "the first dimension varies fastest",
       "for start in found for i in range(size)]",
       "for i in range(size) for start in found]"),
    _w("1.7", "the offset is forgotten", "found = [offset]", "found = [0]"),
    _w("1.7", "dimensions walked from the last",
       "zip(shape, strides)", "zip(reversed(shape), reversed(strides))"),
    _w("1.8", "a dimension of size 1 breaks a block",
       "joins = dim > 0 and (shape[dim - 1] == 1 or chained)",
       "joins = dim > 0 and chained"),
    _w("1.8", "a block's stride taken from its size-1 dimensions",
       "            if dim > 0:  # the next block starts at the dimension before\n"
       "                inner = strides[dim - 1]\n", "",
       "    for dim in reversed(range(len(shape))):\n        elements *= shape[dim]",
       "    for dim in reversed(range(len(shape))):\n        if elements == 1:\n"
       "            inner = strides[dim]\n        elements *= shape[dim]"),
    _w("1.8", "a split that needs a copy is answered as a view",
       "if placed != elements:\n            return None",
       "if False:\n            return None"),
    _w("1.9", "a stretched dimension keeps its stride",
       "out_shape[dim], out_strides[dim] = size, 0",
       "out_shape[dim], out_strides[dim] = size, step"),
    _w("1.9", "a new leading dimension of size 1 gets stride 0",
       "if size == 1 and dim + 1 < len(sizes):", "if False:"),
    _w("1.10", "a negative index refused",
       "if not -size <= item < size:", "if not 0 <= item < size:"),
    _w("1.10", "None always adds the first dimension",
       "view = view.unsqueeze(dim)", "view = view.unsqueeze(0)"),
    _w("1.10", "the slice's step ignored",
       "step = 1 if item.step is None else int(item.step)", "step = 1"),
    _w("1.10", "Ellipsis stands for no dimension",
       "dim, named = dim + ndim - taken, named + ndim - taken",
       "dim, named = dim, named"),
    _w("1.11", "separated index tensors stay in place",
       "together = dims == list(range(dims[0], dims[-1] + 1))", "together = True"),
    _w("1.11", "adjacent index tensors move to the front",
       "together = dims == list(range(dims[0], dims[-1] + 1))", "together = False"),
    _w("1.11", "negative indices not wrapped",
       "picked[i] += (value % size) * step[dim]", "picked[i] += value * step[dim]"),
    # --- chapter 2 ------------------------------------------------------------
    _w("2.3", "times x instead of over x",
       "return grad_output / x", "return grad_output * x"),
    _w("2.3", "the incoming gradient forgotten",
       "return grad_output / x", "return 1 / x"),
    _w("2.4", "1 - y instead of 1 - y squared",
       "grad_output * (1 - y * y)", "grad_output * (1 - y)"),
    _w("2.4", "the incoming gradient forgotten",
       "return grad_output * (1 - y * y)", "return 1 - y * y"),
    _w("2.4", "a plus sign", "grad_output * (1 - y * y)", "grad_output * (1 + y * y)"),
    _w("2.5", "leaving switches recording on, whatever it was",
       "GRAD_MODE.enabled = self.before.pop()",
       "self.before.pop()\n        GRAD_MODE.enabled = True"),
    _w("2.5", "as a decorator it switches nothing off",
       "with self:\n                return function(*args, **kwargs)",
       "return function(*args, **kwargs)"),
    _w("2.6", "the gradient of b without its minus sign",
       "grad_b = -grad_output * numerator", "grad_b = grad_output * numerator"),
    _w("2.6", "b squared forgotten",
       "numerator / (b * b) if", "numerator / b if"),
    _w("2.6", "the gradient of a times b",
       "grad_a = grad_output / b", "grad_a = grad_output * b"),
    _w("2.7", "dimensions aligned from the left",
       "enumerate(shape, start=extra)", "enumerate(shape)"),
    _w("2.7", "stretched size-1 dimensions not summed",
       "if size == 1 and input.shape[dim] != 1:\n            stretched.append(dim)",
       "if False:\n            stretched.append(dim)"),
    _w("2.8", "every element gets the gradient",
       "torch.where(chosen, grad_values, 0.0)",
       "torch.where(chosen, grad_values, grad_values)"),
    _w("2.8", "keepdim ignored", "if not ctx.keepdim:", "if False:"),
    _w("2.8", "the gradient unsqueezed at the last dimension",
       "grad_values = grad_values.unsqueeze(dim)",
       "grad_values = grad_values.unsqueeze(-1)"),
    _w("2.9", "the finishing order, not reversed",
       "return finished[::-1]", "return finished"),
    _w("2.9", "a node reached twice is visited twice",
       "if n is not None and n not in seen", "if n is not None"),
    _w("2.10", "gradients of one output overwrite instead of adding up",
       "inbox[node][number] = gradient if earlier is None else earlier + gradient",
       "inbox[node][number] = gradient"),
    _w("2.10", "a broadcast input's gradient not summed to its shape",
       "if tuple(gradient.shape) != tuple(shape):", "if False:"),
    _w("2.10", "a gradient keeps the dtype it came in",
       "if gradient.dtype != dtype:", "if False:"),
    _w("2.10", "saved tensors freed even with retain_graph",
       "if not retain_graph:", "if True:"),
    _w("2.10", "pre-hooks not called",
       "received = hooked(node.pre_hooks, received)", "pass"),
    _w("2.11", "the central difference over eps, not 2 eps",
       "(high - low) / (2 * eps)", "(high - low) / eps"),
    _w("2.11", "rows and columns swapped",
       "rows = [[column[o][j] for column in columns] for j in range(size)]",
       "rows = [[column[o][j] for j in range(size)] for column in columns]"),
    _w("2.11", "the input not put back after the minus step",
       "            data[index] = original\n            columns",
       "            columns"),
    _w("2.12", "a seed of ones (every row the sum)",
       "seed = torch.zeros(out.numel(), dtype=out.dtype)",
       "seed = torch.ones(out.numel(), dtype=out.dtype)"),
    _w("2.12", "the graph freed after the first row",
       "retain_graph=True", "retain_graph=False"),
    _w("2.13", "the absolute tolerance only",
       "abs(a - n) <= atol + rtol * abs(n)", "abs(a - n) <= atol"),
    _w("2.13", "atol and rtol swapped",
       "abs(a - n) <= atol + rtol * abs(n)", "abs(a - n) <= rtol + atol * abs(n)"),
    # --- chapter 3 ------------------------------------------------------------
    _w("3.4", "the output alone, alpha forgotten",
       "grad_output * (result + ctx.alpha)", "grad_output * result"),
    _w("3.4", "alpha alone (the derivative at the origin)",
       "grad_output * (result + ctx.alpha)", "grad_output * ctx.alpha"),
    _w("3.4", "zero on the positive side", "x > 0", "x >= 0"),
    _w("3.5", "over fan, not its square root",
       "/ math.sqrt(fan)", "/ fan"),
    _w("3.5", "the two modes swapped",
       "fan = fan_in if mode == \"fan_in\" else fan_out",
       "fan = fan_out if mode == \"fan_in\" else fan_in"),
    _w("3.5", "the gain forgotten",
       "torch.nn.init.calculate_gain(nonlinearity, a) / math.sqrt(fan)",
       "1 / math.sqrt(fan)"),
    _w("3.6", "the mean not taken", "return total if reduction == \"sum\" else "
       "total / losses.numel()", "return total"),
    _w("3.6", "classes along the last dimension",
       "class_dim = 0 if input.dim() == 1 else 1", "class_dim = -1"),
    _w("3.6", "class weights ignored with probabilities",
       "products = products * weight.reshape(along)", "products = products"),
    _w("3.6", "no minus sign", "losses = -products.sum(class_dim)",
       "losses = products.sum(class_dim)"),
    _w("3.7", "a shared tensor named twice",
       "if remove_duplicate:\n                yielded.add(tensor)",
       "if False:\n                yielded.add(tensor)"),
    _w("3.7", "names without the module's path",
       "(f\"{path}.{name}\" if path else name)", "name"),
    _w("3.7", "recurse ignored", "if recurse:", "if True:"),
    _w("3.8", "alpha forgotten",
       "grad_m1 = grad_output.mm(m2.t()) * ctx.alpha",
       "grad_m1 = grad_output.mm(m2.t())"),
    _w("3.8", "beta forgotten", "grad_output * ctx.beta", "grad_output"),
    _w("3.8", "the gradient of m2 transposed",
       "m1.t().mm(grad_output)", "grad_output.t().mm(m1)"),
    _w("3.9", "summed over every dimension",
       "grad_output.sum(ctx.dim, keepdim=True)", "grad_output.sum()"),
    _w("3.9", "the softmax subtracted without the gradient's sum",
       "probabilities * grad_output.sum(ctx.dim, keepdim=True)", "probabilities"),
    _w("3.10", "a bool taken for an int", "type(v) is int", "isinstance(v, int)"),
    _w("3.10", "bytes counted as elements",
       "prod(shape) * dtype.itemsize", "prod(shape)"),
    _w("3.11", "the padding row gets a gradient",
       "if ctx.padding_idx is not None:", "if False:"),
    _w("3.11", "scale_grad_by_freq ignored", "if ctx.scale_grad_by_freq:", "if False:"),
    _w("3.12", "buffers not loaded",
       "for name, buffer in module._buffers.items():",
       "for name, buffer in {}.items():"),
    _w("3.12", "non-persistent buffers expected",
       " and name not in module._non_persistent_buffers_set", ""),
    _w("3.12", "strict=False still refuses a missing key",
       "if strict and missing:", "if missing:"),
    # --- chapter 4 ------------------------------------------------------------
    _w("4.3", "gradients zeroed, never set to None",
       "if set_to_none:\n            param.grad = None",
       "if False:\n            param.grad = None"),
    _w("4.3", "gradients always set to None",
       "if set_to_none:\n            param.grad = None",
       "if True:\n            param.grad = None"),
    _w("4.4", "dampening ignored", "alpha=1 - group[\"dampening\"]", "alpha=1"),
    _w("4.4", "Nesterov ignored", "if group[\"nesterov\"]:", "if False:"),
    _w("4.4", "maximize ignored",
       "direction = -grad if group[\"maximize\"] else grad", "direction = grad"),
    _w("4.4", "weight decay subtracted",
       "direction + group[\"weight_decay\"] * param",
       "direction - group[\"weight_decay\"] * param"),
    _w("4.4", "the first momentum buffer dampened",
       "velocity = direction.detach().clone()",
       "velocity = direction.detach() * (1 - group[\"dampening\"])"),
    _w("4.5", "no bias correction of the mean",
       "mean_hat = mean / (1 - beta1**t)", "mean_hat = mean"),
    _w("4.5", "no bias correction of the square",
       "root = (square / (1 - beta2**t)).sqrt()", "root = square.sqrt()"),
    _w("4.5", "AdamW's decay as Adam's",
       "if decay and group[\"decoupled_weight_decay\"]:", "if False:"),
    _w("4.5", "amsgrad ignored",
       "if group[\"amsgrad\"]:\n        largest", "if False:\n        largest"),
    _w("4.5", "eps inside the square root",
       "(root + group[\"eps\"])", "(root * root + group[\"eps\"]).sqrt()"),
    _w("4.6", "the floor eta_min forgotten",
       "floor + (lr - floor) * height / before", "lr * height / before"),
    _w("4.6", "one step ahead",
       "math.cos(math.pi * t / t_max)", "math.cos(math.pi * (t + 1) / t_max)"),
    _w("4.7", "small gradients scaled up",
       "min(max_norm / (total.item() + 1e-6), 1.0)",
       "max_norm / (total.item() + 1e-6)"),
    _w("4.7", "norm_type ignored (always 2)",
       "(sizes**norm_type).sum() ** (1.0 / norm_type)", "(sizes**2).sum() ** 0.5"),
    _w("4.7", "the infinity norm as a power", "if norm_type == math.inf:", "if False:"),
    _w("4.8", "drop_last ignored when iterating",
       "if pending and not self.drop_last:", "if pending:"),
    _w("4.8", "the length rounded down",
       "return full if self.drop_last or not rest else full + 1", "return full"),
    _w("4.8", "one batch too many when the size divides",
       "return full if self.drop_last or not rest else full + 1",
       "return full if self.drop_last else full + 1"),
    _w("4.9", "num_samples ignored", "left = self.num_samples", "left = n"),
    _w("4.9", "replacement ignored", "if self.replacement:", "if False:"),
    _w("4.9", "the generator ignored",
       "torch.randperm(n, generator=self.generator)", "torch.randperm(n)"),
    _w("4.10", "zero_grad forgotten",
       "optimizer.zero_grad()\n            error", "error"),
    _w("4.10", "the mean of the batch means",
       "total += error.item() * len(inputs)", "total += error.item()",
       "count += len(inputs)", "count += 1"),
    _w("4.10", "the step before backward",
       "error.backward()\n            optimizer.step()",
       "optimizer.step()\n            error.backward()"),
    _w("4.11", "lr_decay ignored",
       "clr = group[\"lr\"] / (1 + (step - 1) * group[\"lr_decay\"])",
       "clr = group[\"lr\"]"),
    _w("4.11", "lr_decay one step early", "(step - 1) * group", "step * group"),
    _w("4.11", "eps inside the square root",
       "state[\"sum\"].sqrt().add_(group[\"eps\"])",
       "state[\"sum\"].add(group[\"eps\"]).sqrt()"),
    _w("4.11", "the last square instead of the sum",
       "state[\"sum\"].addcmul_(grad, grad, value=1)",
       "state[\"sum\"].copy_(grad * grad)"),
    _w("4.11", "initial_accumulator_value ignored",
       "torch.full_like(param, group[\"initial_accumulator_value\"])",
       "torch.zeros_like(param)"),
    _w("4.12", "patience off by one",
       "if self.num_bad_epochs > self.patience:",
       "if self.num_bad_epochs >= self.patience:"),
    _w("4.12", "cooldown ignored",
       "self.cooldown_counter = self.cooldown", "self.cooldown_counter = 0"),
    _w("4.12", "threshold ignored",
       "return a < best * (1.0 - self.threshold)", "return a < best"),
    _w("4.12", "min_lr ignored",
       "new_lr = max(old_lr * self.factor, min_lr)", "new_lr = old_lr * self.factor"),
    _w("4.13", "alpha and 1 - alpha swapped",
       "square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)",
       "square_avg.mul_(1 - alpha).addcmul_(grad, grad, value=alpha)"),
    _w("4.13", "centered ignored",
       "if group[\"centered\"]:\n            grad_avg",
       "if False:\n            grad_avg"),
    _w("4.13", "eps inside the square root",
       "avg = square_avg.sqrt()\n", "avg = square_avg.add(group[\"eps\"]).sqrt()\n",
       "avg = avg.add_(group[\"eps\"])", "avg = avg"),
    _w("4.14", "shuffle ignored", "if sampler is None and shuffle:", "if False:"),
    _w("4.14", "drop_last ignored",
       "data.BatchSampler(sampler, batch_size, drop_last)",
       "data.BatchSampler(sampler, batch_size, False)"),
    _w("4.14", "the length in samples",
       "return len(self.batch_sampler)", "return len(self.sampler)"),
    # --- chapter 5 ------------------------------------------------------------
    _w("5.3", "dilation forgotten",
       "span = dilation * (kernel - 1) + 1", "span = kernel"),
    _w("5.3", "padding on one side only", "2 * padding", "padding"),
    _w("5.3", "one window short", "// stride + 1", "// stride"),
    _w("5.3", "rounded up",
       "(size + 2 * padding - span) // stride + 1",
       "-(-(size + 2 * padding - span) // stride) + 1"),
    _w("5.4", "dilation forgotten inside a window",
       "inside.append(step * dilation[d])", "inside.append(step)"),
    _w("5.4", "stride forgotten between windows",
       "steps.append(step * stride[d])", "steps.append(step)"),
    _w("5.4", "one window short",
       "sizes.append((extent - span) // stride[d] + 1)",
       "sizes.append((extent - span) // stride[d])"),
    _w("5.4", "the storage offset forgotten", "x.storage_offset())", "0)"),
    _w("5.4", "the span without dilation",
       "span = dilation[d] * (kernel[d] - 1) + 1", "span = kernel[d]"),
    _w("5.5", "a cell read twice is not shared out",
       "if max(counts, default=1.0) > 1:", "if False:"),
    _w("5.6", "groups ignored", "g = s.groups", "g = 1"),
    _w("5.6", "dilation forgotten in the output size",
       "span = s.dilation[d] * (weight.shape[2 + d] - 1) + 1",
       "span = weight.shape[2 + d]"),
    _w("5.6", "padding forgotten in the output size",
       "2 * s.padding[d]", "0"),
    _w("5.7", "the last largest element wins a tie",
       "if channel[p] > channel[best] or", "if channel[p] >= channel[best] or"),
    _w("5.7", "a NaN does not win",
       "if channel[p] > channel[best] or channel[p] != channel[p]:",
       "if channel[p] > channel[best]:"),
    _w("5.7", "the index within the window, not the plane",
       "where.append(best)", "where.append(cell.index(best))"),
    _w("5.8", "divided by the cells in the window, not the divisor",
       "[1 / divisors[k % windows]] * len(cell)", "[1 / len(cell)] * len(cell)"),
    _w("5.8", "not divided at all",
       "[1 / divisors[k % windows]] * len(cell)", "[1.0] * len(cell)"),
    _w("5.8", "every plane's gradient into the first",
       "target += [(k // windows) * plane + p for p in cell]",
       "target += [p for p in cell]"),
    _w("5.9", "the end rounded down",
       "-(-(i + 1) * size // out)", "(i + 1) * size // out"),
    _w("5.9", "the start rounded up",
       "range(i * size // out,", "range(-(-i * size // out),"),
    _w("5.9", "equal windows of size // out",
       "range(i * size // out, -(-(i + 1) * size // out))",
       "range(i * (size // out), (i + 1) * (size // out))"),
    _w("5.10", "'same' padding's extra on the wrong side",
       "amounts += [total // 2, total - total // 2]",
       "amounts += [total - total // 2, total // 2]"),
    _w("5.10", "padding amounts in height-first order",
       "for d in (1, 0):", "for d in (0, 1):"),
    _w("5.10", "the weight's shape ignores groups",
       "shape = (out_channels, in_channels // groups)",
       "shape = (out_channels, in_channels)"),
    _w("5.10", "padding_mode ignored",
       "if self.padding_mode == \"zeros\":", "if True:"),
    # --- chapter 6 ------------------------------------------------------------
    _w("6.2", "softmax first, hidden rows zeroed after (a NaN gradient)",
       "weights = input.masked_fill(nowhere, 0.0).softmax(dim)",
       "weights = input.softmax(dim)"),
    _w("6.2", "a row with any -inf zeroed",
       "(input == float(\"-inf\")).all(dim, keepdim=True)",
       "(input == float(\"-inf\")).any(dim, keepdim=True)"),
    _w("6.2", "rows always along the last dimension",
       ".all(dim, keepdim=True)", ".all(-1, keepdim=True)"),
    _w("6.3", "the scale forgotten", "root = math.sqrt(abs(scale))", "root = 1.0"),
    _w("6.3", "the scale applied twice", "root = math.sqrt(abs(scale))",
       "root = abs(scale)"),
    _w("6.3", "the causal mask upper, not lower", ".tril()", ".triu()"),
    _w("6.3", "a boolean mask read the other way",
       "masked_fill(~mask, float(\"-inf\"))", "masked_fill(mask, float(\"-inf\"))"),
    _w("6.3", "a plain softmax (NaN on fully masked rows)",
       "weights = safe_softmax(scores, -1)", "weights = scores.softmax(-1)"),
    _w("6.3", "a negative scale's sign lost",
       "math.copysign(root, scale)", "root"),
    _w("6.4", "viewed straight as (B, heads, T, C / heads)",
       "x.view(batch, length, heads, channels // heads).transpose(1, 2)",
       "x.view(batch, heads, length, channels // heads)"),
    _w("6.4", "heads and head size swapped",
       "x.view(batch, length, heads, channels // heads)",
       "x.view(batch, length, channels // heads, heads)"),
    _w("6.5", "scores over d, not its square root",
       "/ math.sqrt(size)", "/ size"),
    _w("6.5", "scores over the square root of C",
       "/ math.sqrt(size)", "/ math.sqrt(C)"),
    _w("6.5", "a position hides itself",
       "triu(diagonal=1) == 1", "triu(diagonal=0) == 1"),
    _w("6.5", "no mask", "scores = scores.masked_fill(self.mask[:T, :T], "
       "float(\"-inf\"))", "scores = scores"),
    _w("6.5", "heads merged without the transpose",
       "attended.transpose(1, 2).reshape(B, T, C)", "attended.reshape(B, T, C)"),
    _w("6.6", "the attention's residual forgotten", "x = x + heard", "x = heard"),
    _w("6.6", "not causal", "if self.causal:", "if False:"),
    _w("6.6", "the mask read the other way",
       "triu(diagonal=1) == 1  # True", "triu(diagonal=1) == 0  # True"),
    _w("6.6", "ReLU for GELU",
       "torch.nn.functional.gelu(thought)", "torch.nn.functional.relu(thought)"),
    _w("6.6", "the second norm forgotten",
       "self.linear1(self.norm2(x))", "self.linear1(x)"),
    _w("6.7", "positions not added",
       "self.tokens(idx) + self.positions(torch.arange(T))", "self.tokens(idx)"),
    _w("6.7", "the final norm forgotten",
       "self.head(self.ln_f(x))", "self.head(x)"),
    _w("6.7", "the blocks not causal",
       "x = block(x, src_mask=mask, is_causal=True)", "x = block(x)"),
    _w("6.7", "weight decay on every parameter",
       "if parameter.dim() >= 2:", "if True:"),
    _w("6.8", "the context not cut to block_size",
       "model(idx[:, -model.block_size :])", "model(idx)"),
    _w("6.8", "temperature multiplies",
       "logits[:, -1, :] / temperature", "logits[:, -1, :] * temperature"),
    _w("6.8", "the first position's scores",
       "logits[:, -1, :]", "logits[:, 0, :]"),
    _w("6.8", "top_k keeps one too few", "scores < kth", "scores <= kth"),
    _w("6.9", "zero_grad forgotten",
       "optimizer.zero_grad(set_to_none=True)\n        loss", "loss"),
    _w("6.9", "grad_clip ignored", "if grad_clip is not None:", "if False:"),
    _w("6.9", "always the first batch",
       "batches[step % len(batches)]", "batches[0]"),
]
# fmt: on


# --- the model answers --------------------------------------------------------


def _source(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def solutions() -> dict[str, tuple[str, str]]:
    """``{exercise id: (set-up code before it, model answer)}``."""
    found = {}
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        setup: list[str] = []
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            tags = cell.get("metadata", {}).get("tags", [])
            if "setup" in tags:
                setup.append(_source(cell))
            for tag in tags:
                if tag.startswith("exercise-"):
                    found[tag.removeprefix("exercise-")] = (
                        "\n".join(setup),
                        _source(cell),
                    )
    return found


def mutated(source: str, wrong: Wrong) -> str:
    """The model answer with the wrong answer's replacements, each of which
    must apply exactly once."""
    for old, new in wrong.edits:
        count = source.count(old)
        assert count == 1, f"{wrong.exercise} {wrong.what}: {old!r} is there {count}x"
        source = source.replace(old, new)
    return source


def answer(wrong: Wrong, found: dict[str, tuple[str, str]] | None = None) -> Any:
    """The wrong answer's function or class, as its notebook cell defines it."""
    setup, model = (found or solutions())[wrong.exercise]
    namespace: dict[str, Any] = {"__name__": "__student__"}
    exec(compile(setup, "<setup>", "exec"), namespace)  # noqa: S102
    exec(compile(mutated(model, wrong), "<answer>", "exec"), namespace)  # noqa: S102
    return namespace[load(wrong.exercise).name]


# --- the verdicts ---------------------------------------------------------------


def public_verdict(exercise: Exercise, impl: Any) -> list[str]:
    """The public cases the answer fails: none is the check's "All right!"."""
    report = evaluate(
        exercise, impl, exercise.cases, expected_outcomes().get(exercise.id, {})
    )
    return [r.label for r in report.results if not r.passed]


def grader_verdict(
    exercise: Exercise, impl: Any, seed: str = SEED, first: bool = False
) -> list[str]:
    """Every case the grader runs that the answer fails (fixed ones against
    the recorded answers, drawn ones against the complete engine's outcome
    for the same draw): none is full marks. With ``first``, the cases run one
    at a time, in the same order, up to the first that fails, which is the
    only one returned: empty exactly when the whole verdict is."""
    import slowtorch_lib

    expected = dict(expected_outcomes().get(exercise.id, {}))
    expected.update(expected_outcomes(grading=True).get(exercise.id, {}))
    fixed = [*exercise.cases, *exercise.grading_cases]
    failed: list[str] = []
    for batch in ([case] for case in fixed) if first else [fixed]:
        report = evaluate(exercise, impl, batch, expected)
        failed += [r.label for r in report.results if not r.passed]
        if first and failed:
            return failed
    for k, case in enumerate(exercise.drawn_cases):
        index = len(fixed) + k

        def reference(torch: Any, case: Any = case, index: int = index) -> Any:
            return run_case(case, torch, case_rng(seed, exercise.id, index))

        want = outcome_of(reference, slowtorch_lib)
        try:
            got, _ = run_piece_case(
                exercise, impl, case, case_rng(seed, exercise.id, index)
            )
        except NotImplementedError:
            got = {"raised": "NotImplementedError"}
        if not close(want, got):
            failed.append(case.label)
            if first:
                break
    return failed


def verdicts(wrongs: list[Wrong]) -> Iterator[tuple[Wrong, list[str], list[str]]]:
    found = solutions()
    for wrong in wrongs:
        exercise = load(wrong.exercise)
        impl = answer(wrong, found)
        yield wrong, public_verdict(exercise, impl), grader_verdict(exercise, impl)


def main() -> int:
    chosen = [w for w in WRONG if not sys.argv[1:] or w.exercise in sys.argv[1:]]
    by_chapter: dict[str, list[int]] = {}
    for wrong, public, graded in verdicts(chosen):
        chapter = wrong.exercise.split(".")[0]
        counts = by_chapter.setdefault(chapter, [0, 0, 0])
        counts[0] += 1
        counts[1] += not public
        counts[2] += not graded
        if not public or not graded:
            sys.stdout.write(
                f"{wrong.exercise} {wrong.what}: check "
                f"{'All right' if not public else 'fails'}, grader "
                f"{'full marks' if not graded else 'not full'}\n"
            )
    for chapter, (total, by_check, by_grader) in sorted(by_chapter.items()):
        sys.stdout.write(
            f"chapter {chapter}: {total} wrong answers, {by_check} pass their "
            f"check, {by_grader} get full marks\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
