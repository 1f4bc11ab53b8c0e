# ruff: noqa: F821, F811  (setup-cell names; each answer cell imports its own)

# %% [markdown]
# # Chapter 4 exercises: optimisation
#
# Two predictions first (learning rates under schedulers; what `zero_grad`,
# `step` and a `DataLoader` do), checked against PyTorch's recorded answers.
# Then pieces of the engine: `Optimizer.zero_grad`, the update rules of SGD
# and Adam, the cosine schedule, gradient clipping, batching and shuffling,
# and a whole training loop; then whole classes: Adagrad,
# `ReduceLROnPlateau`, RMSprop and the `DataLoader`. Each check puts your
# piece **into the engine in place of its own** and runs real optimisers,
# schedulers and data loaders through it, comparing parameters, learning
# rates and batches with PyTorch's.
#
# An optimiser in this engine is written as torch's are: the base class
# `Optimizer.step` finds every parameter that has a gradient and, with
# autograd off, calls `self._update(param, grad, state, group)`, where
# `group` is the parameter's group (a dict: `group["lr"]`,
# `group["momentum"]`...) and `state` the dict the optimiser keeps for that
# parameter between steps (empty at the first step). `_update` changes
# `param` **in place**. Keep everything an answer needs inside its cell: the
# grader runs each answer cell on its own.

# %% [markdown]
# ## Exercise 4.1: which learning rate?
#
# Each scheduler is made on an SGD optimiser `opt` whose learning rate is
# `1.0` (in the one case with two groups, `opt2`, their rates are `1.0` and
# `0.2`). Then the loop `opt.step(); scheduler.step()` runs the given number
# of times. What is `opt.param_groups[0]["lr"]` afterwards (a list with both
# groups' rates for `opt2`)? For `ReduceLROnPlateau`, `scheduler.step(loss)`
# is called once with each loss in turn. Write floats.

# %% tags=["exercise-4.1"]
answers_4_1 = {
    "StepLR(opt, step_size=3, gamma=0.5), 7 steps": 0.25,  # ANSWER
    "MultiStepLR(opt, milestones=[2, 5], gamma=0.1), 5 steps": 0.01,  # ANSWER
    "ExponentialLR(opt, gamma=0.5), 3 steps": 0.125,  # ANSWER
    "CosineAnnealingLR(opt, T_max=4), 2 steps": 0.5,  # ANSWER
    "CosineAnnealingLR(opt, T_max=4), 4 steps": 0.0,  # ANSWER
    "CosineAnnealingLR(opt, T_max=4, eta_min=0.2), 6 steps": 0.6,  # ANSWER
    "LinearLR(opt, start_factor=0.25, total_iters=3), 0 steps": 0.25,  # ANSWER
    "LinearLR(opt, start_factor=0.25, total_iters=3), 1 step": 0.5,  # ANSWER
    "LinearLR(opt, start_factor=0.25, total_iters=3), 10 steps": 1.0,  # ANSWER
    "LambdaLR(opt, lambda k: 1 / (k + 1)), 3 steps": 0.25,  # ANSWER
    "StepLR(opt2, step_size=2, gamma=0.5), 2 steps": [0.5, 0.1],  # ANSWER
    "ReduceLROnPlateau(opt, patience=1, factor=0.5), losses 3, 2, 2, 2": 0.5,  # ANSWER
}

# %% tags=["check-4.1"]
check("4.1", answers_4_1)

# %% [markdown]
# ## Exercise 4.2: the loop's bookkeeping
#
# Each entry is a little program (statements separated by `;`) that starts
# from fresh names:
#
# ```python
# w = torch.tensor([1.0, 2.0], requires_grad=True)
# opt = torch.optim.SGD([w], lr=0.1)
# ds = TensorDataset(torch.arange(10.0).reshape(10, 1), torch.arange(10))
# ```
#
# and `DataLoader` from `torch.utils.data`. What is the value of its last
# expression? Write a tensor as a list of floats, `None` for no gradient, a
# shape as a tuple, a dtype as a string such as `"torch.float32"`.

# %% tags=["exercise-4.2"]
answers_4_2 = {
    "(w * w).sum().backward(); opt.zero_grad(); w.grad": None,  # ANSWER
    "(w * w).sum().backward(); opt.zero_grad(set_to_none=False); "
    "w.grad": [0.0, 0.0],  # ANSWER
    "(w * w).sum().backward(); opt.step(); w": [0.8, 1.6],  # ANSWER
    "(w * w).sum().backward(); (w * w).sum().backward(); opt.step(); "
    "w": [0.6, 1.2],  # ANSWER
    "opt.step(); w": [1.0, 2.0],  # ANSWER
    "len(opt.param_groups)": 1,  # ANSWER
    "opt.param_groups[0]['momentum']": 0,  # ANSWER
    "m = torch.optim.SGD([w], lr=0.1, momentum=0.9); (w * w).sum().backward(); "
    "m.step(); sorted(m.state[w])": ["momentum_buffer"],  # ANSWER
    "a = torch.optim.Adam([w], lr=0.1); (w * w).sum().backward(); a.step(); "
    "w": [0.9, 1.9],  # ANSWER
    "a = torch.optim.Adam([w]); (w * w).sum().backward(); a.step(); "
    "sorted(a.state[w])": ["exp_avg", "exp_avg_sq", "step"],  # ANSWER
    "(w * w).sum().backward(); "
    "torch.nn.utils.clip_grad_norm_([w], 1.0).item()": 20**0.5,  # ANSWER
    "(w * w).sum().backward(); torch.nn.utils.clip_grad_norm_([w], 1.0); "
    "w.grad": [2 / 20**0.5, 4 / 20**0.5],  # ANSWER
    "len(DataLoader(ds, batch_size=4))": 3,  # ANSWER
    "len(DataLoader(ds, batch_size=4, drop_last=True))": 2,  # ANSWER
    "[len(y) for x, y in DataLoader(ds, batch_size=4)]": [4, 4, 2],  # ANSWER
    "x, y = next(iter(DataLoader(ds, batch_size=4))); x.shape": (4, 1),  # ANSWER
    "x, y = next(iter(DataLoader(ds, batch_size=4))); y.dtype": "torch.int64",  # ANSWER
}

# %% tags=["check-4.2"]
check("4.2", answers_4_2)

# %% [markdown]
# ## Exercise 4.3: `clear_grads`, behind every `zero_grad`
#
# `Module.zero_grad` and `Optimizer.zero_grad` follow one rule, and the engine
# keeps it in one function, `clear_grads(params, set_to_none=True)`: both
# methods pass it their parameters. Write it. With `set_to_none=True` (the
# default) each gradient becomes `None`; with `False` it is filled with zeros
# **in place**, so that `.grad` stays the same tensor. A parameter without a
# gradient is left alone. The check makes it the rule of every `zero_grad`.


# %% tags=["exercise-4.3"]
def clear_grads(params, set_to_none=True):
    """Clears the gradients that backward added up."""
    # BEGIN SOLUTION
    for param in params:
        grad = param.grad
        if grad is None:
            continue
        if set_to_none:
            param.grad = None
            continue
        if grad.grad_fn is not None:
            grad.detach_()
        else:
            grad.requires_grad_(False)
        grad.zero_()
    # END SOLUTION


# %% tags=["check-4.3"]
check("4.3", clear_grads)

# %% [markdown]
# ## Exercise 4.4: SGD with momentum and Nesterov
#
# Write `SGD._update(self, param, grad, state, group)`, one step of PyTorch's
# SGD for one parameter $\theta$ with gradient $g_t$ at step $t$, under the
# settings of its group: `lr` $\eta$, `momentum` $\mu$, `dampening`
# $\tau$, `weight_decay` $\lambda$, `nesterov` and `maximize`.
#
# **The maths.** The objective SGD minimises is the loss plus the L2 penalty
# $\frac{\lambda}{2}\lVert\theta\rVert^2$ (or, under `maximize`, the
# loss is climbed: its gradient changes sign). Momentum keeps a velocity
# $b$, an exponentially weighted sum of the gradients $d_t$ of that
# objective:
#
# $$b_1 = d_1, \qquad b_t = \mu\, b_{t-1} + (1 - \tau)\, d_t \quad (t > 1),$$
#
# and the step is $\theta \leftarrow \theta - \eta\, s_t$, where the
# direction $s_t$ is $b_t$, or, with Nesterov's look-ahead,
# $d_t + \mu\, b_t$. Without momentum ($\mu = 0$) there is no velocity
# and $s_t = d_t$.
#
# **The contract.** Change `param` in place. The velocity is what PyTorch
# keeps in `state["momentum_buffer"]` (a tensor of its own, not a view of
# the gradient), so that `state_dict` saves it and `load_state_dict` brings
# it back.


# %% tags=["exercise-4.4"]
def sgd_update(self, param, grad, state, group):
    """One SGD step for one parameter, in place."""
    # BEGIN SOLUTION
    momentum = group["momentum"]
    direction = -grad if group["maximize"] else grad
    if group["weight_decay"]:
        direction = direction + group["weight_decay"] * param
    if momentum:
        velocity = state.get("momentum_buffer")
        if velocity is None:
            velocity = direction.detach().clone()
            state["momentum_buffer"] = velocity
        else:
            velocity.mul_(momentum).add_(direction, alpha=1 - group["dampening"])
        if group["nesterov"]:
            direction = direction + momentum * velocity
        else:
            direction = velocity
    param.sub_(group["lr"] * direction)
    # END SOLUTION


# %% tags=["check-4.4"]
check("4.4", sgd_update)

# %% [markdown]
# ## Exercise 4.5: Adam, with bias correction, and AdamW
#
# Write `Adam._update(self, param, grad, state, group)`; `AdamW` uses it too.
#
# **The maths.** Adam keeps, per element, exponential moving averages of the
# gradient and of its square, with `(beta1, beta2) = group["betas"]`:
#
# $$m_t = \beta_1 m_{t-1} + (1 - \beta_1)\, g_t, \qquad
#   v_t = \beta_2 v_{t-1} + (1 - \beta_2)\, g_t^2, \qquad m_0 = v_0 = 0.$$
#
# Started at zero, the averages are biased towards it: if every $g$ were the
# same, $m_t$ would be $(1 - \beta_1^t)\, g$. Adam divides that factor out
# of each average, then steps by the corrected mean over the corrected root
# mean square, $\eta\, \hat m_t / (\sqrt{\hat v_t} + \varepsilon)$,
# where $\varepsilon$ (`eps`) is added after the root.
#
# Weight decay $\lambda$ comes in two ways. Adam's is an L2 penalty: its
# gradient $\lambda\theta$ joins $g_t$ before the averages. AdamW's, when
# `group["decoupled_weight_decay"]` is true, is kept out of the averages:
# the parameter itself shrinks by the factor $1 - \eta\lambda$ before the
# step. `maximize` climbs (the gradient's sign flips); `amsgrad` uses, in
# the denominator, the largest $v$ each element has had so far instead of
# the current one.
#
# **The contract.** Change `param` in place. Keep what PyTorch keeps, so that
# `state_dict` matches: `state["step"]` (a float32 0-d tensor),
# `state["exp_avg"]`, `state["exp_avg_sq"]` and, with amsgrad,
# `state["max_exp_avg_sq"]`.


# %% tags=["exercise-4.5"]
def adam_update(self, param, grad, state, group):
    """One Adam (or AdamW) step for one parameter, in place."""
    # BEGIN SOLUTION
    if not state:
        state["step"] = torch.tensor(0.0)
        state["exp_avg"] = torch.zeros_like(param)
        state["exp_avg_sq"] = torch.zeros_like(param)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = torch.zeros_like(param)
    beta1, beta2 = group["betas"]
    lr, decay = group["lr"], group["weight_decay"]
    g = -grad if group["maximize"] else grad
    state["step"] += 1
    t = state["step"].item()
    if decay and group["decoupled_weight_decay"]:
        param.mul_(1 - lr * decay)
    elif decay:
        g = g + decay * param
    mean, square = state["exp_avg"], state["exp_avg_sq"]
    mean.mul_(beta1).add_(g, alpha=1 - beta1)
    square.mul_(beta2).add_(g * g, alpha=1 - beta2)
    if group["amsgrad"]:
        largest = state["max_exp_avg_sq"]
        largest.copy_(torch.maximum(largest, square))
        square = largest
    mean_hat = mean / (1 - beta1**t)
    root = (square / (1 - beta2**t)).sqrt()
    param.sub_(lr * mean_hat / (root + group["eps"]))
    # END SOLUTION


# %% tags=["check-4.5"]
check("4.5", adam_update)

# %% [markdown]
# ## Exercise 4.6: the cosine schedule
#
# Write `CosineAnnealingLR.get_lr(self)`: the learning rate of each group
# at step `t = self.last_epoch` (`scheduler.step()` adds 1 to it and then
# writes what `get_lr` returns into the groups). It falls along half a
# cosine from each group's starting rate (`self.base_lrs`) at `t = 0` to
# `self.eta_min` at `t = self.T_max`, and rises again after. The optimiser
# is `self.optimizer`.
#
# PyTorch's `get_lr` does not recompute the rate from scratch: it scales each
# group's **current** rate, so that another scheduler changing the rate too
# still counts (one check case runs two schedulers on one optimiser). Try the
# direct formula first; then, for that case, think about what the ratio of
# two consecutive rates is.

# %% tags=["exercise-4.6"]
import math


def cosine_get_lr(self):
    """Each group's learning rate at step ``self.last_epoch``."""
    # BEGIN SOLUTION
    t, t_max, floor = self.last_epoch, self.T_max, self.eta_min
    current = [group["lr"] for group in self.optimizer.param_groups]
    if t == 0:
        return current
    if (t - 1 - t_max) % (2 * t_max) == 0:
        # The previous step was at the bottom, where the ratio would be 0 / 0:
        # climb by one step of the cosine instead.
        climb = (1 - math.cos(math.pi / t_max)) / 2
        return [lr + (b - floor) * climb for lr, b in zip(current, self.base_lrs)]
    height = 1 + math.cos(math.pi * t / t_max)
    before = 1 + math.cos(math.pi * (t - 1) / t_max)
    return [floor + (lr - floor) * height / before for lr in current]
    # END SOLUTION


# %% tags=["check-4.6"]
check("4.6", cosine_get_lr)

# %% [markdown]
# ## Exercise 4.7: clipping by the global norm
#
# Write `clip_grad_norm_(parameters, max_norm, norm_type=2.0,
# error_if_nonfinite=False, foreach=None)`. The *total norm* is the norm of
# all the gradients' elements taken together as one long vector (the
# `norm_type`-norm: `(sum |x| ** p) ** (1 / p)`, or the largest `|x|` for
# `inf`). If it is larger than `max_norm`, multiply **every** gradient in
# place by `max_norm / (total_norm + 1e-6)`: the step keeps its direction and
# only its length shrinks. Return the total norm measured before clipping, as
# a 0-d tensor. `parameters` is a tensor or an iterable of tensors (maybe a
# generator); those without a gradient are skipped. With
# `error_if_nonfinite=True`, a total norm that is `nan` or `inf` raises a
# `RuntimeError`.

# %% tags=["exercise-4.7"]
import math


def clip_grad_norm_(
    parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None
):
    """Scales all gradients together so that their total norm is <= max_norm."""
    # BEGIN SOLUTION
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    sizes = torch.cat([g.reshape(-1) for g in grads]).abs()
    if norm_type == math.inf:
        total = sizes.max()
    else:
        total = (sizes**norm_type).sum() ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError("the total norm of the gradients is not finite")
    factor = min(max_norm / (total.item() + 1e-6), 1.0)
    for g in grads:
        g.mul_(factor)
    return total
    # END SOLUTION


# %% tags=["check-4.7"]
check("4.7", clip_grad_norm_)

# %% [markdown]
# ## Exercise 4.8: batches
#
# A `DataLoader` does not cut batches itself: it asks a `BatchSampler` for
# lists of indices, then fetches and collates those samples. Write the class
# `BatchSampler(sampler, batch_size, drop_last)`: iterating over it gives the
# indices of `sampler` (any iterable of indices, read in its order) in lists
# of `batch_size`; the last list may be shorter, unless `drop_last` leaves it
# out. `len()` of it is the number of lists one pass gives. Each pass reads
# `sampler` afresh (a shuffling sampler gives a new order). The check makes
# it the `BatchSampler` of every `DataLoader`.


# %% tags=["exercise-4.8"]
class BatchSampler:
    """Groups the indices of ``sampler`` into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size, drop_last):
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        # BEGIN SOLUTION
        pending = []
        for index in self.sampler:
            pending.append(index)
            if len(pending) == self.batch_size:
                yield pending
                pending = []
        if pending and not self.drop_last:
            yield pending
        # END SOLUTION

    def __len__(self):
        # BEGIN SOLUTION
        full, rest = divmod(len(self.sampler), self.batch_size)
        return full if self.drop_last or not rest else full + 1
        # END SOLUTION


# %% tags=["check-4.8"]
check("4.8", BatchSampler)

# %% [markdown]
# ## Exercise 4.9: shuffling
#
# `DataLoader(..., shuffle=True)` visits the data set through a
# `RandomSampler`. Write its `__iter__(self)`, a generator: one pass yields
# every index of `range(n)`, `n = len(self.data_source)`, once each, in a
# random order drawn from `self.generator` (a `torch.Generator`, or `None`
# for the global generator that `torch.manual_seed` seeds). Two more
# settings: with `self.replacement`, draw `self.num_samples` indices
# independently (some twice, some never); without, when `self.num_samples`
# is more than `n`, give whole random orders one after another, the last one
# cut short.
#
# A right answer may draw its random numbers in another order than
# PyTorch's, so the check does not compare orders with PyTorch's: it checks
# what any right answer gives (every index once, a new order each pass, the
# same order from the same seed).


# %% tags=["exercise-4.9"]
def random_sampler_iter(self):
    """The indices of ``self.data_source``, in a random order."""
    # BEGIN SOLUTION
    n = len(self.data_source)
    if self.replacement:
        drawn = torch.randint(0, n, (self.num_samples,), generator=self.generator)
        yield from drawn.tolist()
        return
    left = self.num_samples
    while left > 0:
        yield from torch.randperm(n, generator=self.generator).tolist()[:left]
        left -= n
    # END SOLUTION


# %% tags=["check-4.9"]
check("4.9", random_sampler_iter)

# %% [markdown]
# ## Exercise 4.10: a training loop
#
# Write `train(model, loss_fn, optimizer, loader, epochs)`: `epochs` passes
# over `loader`, one optimiser step per batch `(inputs, targets)`. Return a
# list with one Python float per epoch: the epoch's loss **per sample**,
# $\frac{1}{N}\sum_{i=1}^{N} \ell_i$ over the $N$ samples of the epoch,
# where $\ell_i$ is sample $i$'s loss at the moment its batch was used.
# `loss_fn` gives the mean over its batch (as the default
# `reduction="mean"` does), and the last batch of an epoch may be smaller
# than the others. The check trains a straight-line fit (whose losses must
# be PyTorch's) and small classifiers on two moons and three blobs, which
# must reach a given accuracy, in a few seconds.


# %% tags=["exercise-4.10"]
def train(model, loss_fn, optimizer, loader, epochs):
    """Trains ``model``; returns the mean batch loss of each epoch."""
    # BEGIN SOLUTION
    history = []
    for _ in range(epochs):
        total, count = 0.0, 0
        for inputs, targets in loader:
            guess = model(inputs)
            error = loss_fn(guess, targets)
            optimizer.zero_grad()
            error.backward()
            optimizer.step()
            total += error.item() * len(inputs)
            count += len(inputs)
        history.append(total / count)
    return history
    # END SOLUTION


# %% tags=["check-4.10"]
check("4.10", train)

# %% [markdown]
# ## Exercise 4.11 (build): Adagrad, the whole optimiser
#
# Until now you wrote one method inside an optimiser that was already there.
# This time write the class `Adagrad(torch.optim.Optimizer)` whole: its
# settings, its per-parameter memory and its update. The check makes it
# `torch.optim.Adagrad` everywhere and compares parameters and saved states
# with PyTorch's.
#
# **The maths.** Adagrad (Duchi, Hazan and Singer, 2011) gives every element
# of a parameter its own step size: the learning rate divided by the root of
# the sum of all the squared gradients that element has seen. At step
# $t = 1, 2, \dots$, with gradient $g_t$ (negated under `maximize`) and
# $\lambda$ the weight decay:
#
# $$g_t \leftarrow g_t + \lambda\,\theta_{t-1}, \qquad
#   \eta_t = \frac{\text{lr}}{1 + (t - 1)\,\text{lr\_decay}}, \qquad
#   s_t = s_{t-1} + g_t^2, \qquad
#   \theta_t = \theta_{t-1} - \eta_t\,\frac{g_t}{\sqrt{s_t} + \varepsilon}$$
#
# with $s_0$ filled with `initial_accumulator_value`.
#
# **The contract.**
# - `Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0,
#   initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
#   differentiable=False, fused=None)`. A negative `lr`, `lr_decay`,
#   `weight_decay`, `initial_accumulator_value` or `eps` raises `ValueError`
#   before anything is made.
# - Every setting is a default of the base class (`Optimizer.__init__(params,
#   defaults)`), so that each parameter group can override it and
#   `state_dict()` saves it.
# - Unlike Adam, Adagrad makes each parameter's state **when it is built**,
#   not at the first step: `state["step"]`, a float32 0-d tensor counting the
#   steps, and `state["sum"]`, $s$, shaped like the parameter. A group added
#   later, or a state loaded by `load_state_dict`, must still work.
# - `_update(param, grad, state, group)` is called by `Optimizer.step` with
#   autograd off, for each parameter that has a gradient; it changes `param`
#   and the state in place.


# %% tags=["exercise-4.11"]
class Adagrad(torch.optim.Optimizer):
    """Adagrad: each element's step shrinks with the gradients it has seen."""

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        # BEGIN SOLUTION
        limits = {
            "learning rate": lr,
            "lr_decay value": lr_decay,
            "weight_decay value": weight_decay,
            "initial_accumulator_value value": initial_accumulator_value,
            "epsilon value": eps,
        }
        for what, value in limits.items():
            if value < 0.0:
                raise ValueError(f"Invalid {what}: {value}")
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        # The state of every parameter is made now, not at the first step.
        every = [(p, group) for group in self.param_groups for p in group["params"]]
        for param, group in every:
            self._init_state(param, group)
        # END SOLUTION

    def _init_state(self, param, group):
        """Makes the state of ``param`` (``step`` and ``sum``) if it has none."""
        # BEGIN SOLUTION
        state = self.state[param]
        if not state:
            state["step"] = torch.tensor(0.0)
            state["sum"] = torch.full_like(param, group["initial_accumulator_value"])
        # END SOLUTION

    def _update(self, param, grad, state, group):
        """One Adagrad step of ``param``, in place."""
        # BEGIN SOLUTION
        if not state:
            self._init_state(param, group)
        if group["maximize"]:
            grad = -grad
        state["step"] += 1
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state["sum"].addcmul_(grad, grad, value=1)
        std = state["sum"].sqrt().add_(group["eps"])
        param.addcdiv_(grad, std, value=-clr)
        # END SOLUTION


# %% tags=["check-4.11"]
check("4.11", Adagrad)

# %% [markdown]
# ## Exercise 4.12 (build): `ReduceLROnPlateau`, the whole scheduler
#
# The schedules so far follow the clock. `ReduceLROnPlateau` follows the
# training: it lowers the learning rate when a measured value (a validation
# loss, an accuracy) stops improving. Write the class whole; the check makes
# it `torch.optim.lr_scheduler.ReduceLROnPlateau` and compares learning
# rates and the scheduler's bookkeeping with PyTorch's.
#
# **The rule.** Each call `step(metric)` compares the metric with the best
# value seen so far. In `mode="min"` a value $a$ improves on the best $b$
# when $a < b\,(1 - \text{threshold})$ (`threshold_mode="rel"`) or
# $a < b - \text{threshold}$ (`"abs"`); in `mode="max"`, when
# $a > b\,(1 + \text{threshold})$ or $a > b + \text{threshold}$. The best
# starts at the worst value there is ($+\infty$ for `"min"`). The calls
# since the last improvement are the *bad epochs*; when there are more
# than `patience` of them, every group's rate becomes
# $\max(\text{lr} \cdot \text{factor}, \text{min\_lr})$ (a change smaller
# than `eps` is not made), the count starts again, and for the next
# `cooldown` calls bad epochs are not counted.
#
# **The contract.**
# - `ReduceLROnPlateau(optimizer, mode="min", factor=0.1, patience=10,
#   threshold=1e-4, threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8)`:
#   `min_lr` is one number, or a list with one per group. `ValueError` for
#   `factor >= 1`, an unknown mode or threshold mode, or a `min_lr` list of
#   the wrong length; `TypeError` if `optimizer` is not an optimiser.
# - Attributes as PyTorch's: `best`, `num_bad_epochs`, `cooldown_counter`,
#   `last_epoch` (the calls so far), `in_cooldown` (a property), and
#   `get_last_lr()`, the groups' rates after the last call.
# - `step(metrics, epoch=None)`: `metrics` may be a number or a 0-d tensor;
#   passing `epoch` sets `last_epoch` and warns (`UserWarning`, deprecated).
# - `state_dict()` holds every attribute but the optimiser;
#   `load_state_dict(state)` puts them back.


# %% tags=["exercise-4.12"]
import math
import warnings


class ReduceLROnPlateau:
    """Lowers the learning rate when a measured value stops improving."""

    def __init__(
        self,
        optimizer,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0,
        eps=1e-8,
    ):
        # BEGIN SOLUTION
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.factor = factor
        self.optimizer = optimizer
        self.default_min_lr = None
        if not isinstance(min_lr, (list, tuple)):
            self.default_min_lr = min_lr
            min_lr = [min_lr] * len(optimizer.param_groups)
        elif len(min_lr) != len(optimizer.param_groups):
            expected = len(optimizer.param_groups)
            raise ValueError(f"expected {expected} min_lrs, got {len(min_lr)}")
        self.min_lrs = list(min_lr)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = [group["lr"] for group in optimizer.param_groups]
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0
        # END SOLUTION

    def step(self, metrics, epoch=None):
        """Records one measurement and lowers the learning rate if it is time."""
        # BEGIN SOLUTION
        current = float(metrics)
        if epoch is not None:
            warnings.warn("The epoch parameter is deprecated.", UserWarning, 2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]
        # END SOLUTION

    def _reduce_lr(self):
        # BEGIN SOLUTION
        groups = self.optimizer.param_groups
        if len(self.min_lrs) != len(groups):
            default = self.default_min_lr or 0
            self.min_lrs = [default] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr
        # END SOLUTION

    def is_better(self, a, best):
        """Whether ``a`` improves on ``best`` by more than the threshold."""
        # BEGIN SOLUTION
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold
        # END SOLUTION

    @property
    def in_cooldown(self):
        # BEGIN SOLUTION
        return self.cooldown_counter > 0
        # END SOLUTION

    def get_last_lr(self):
        """The learning rate of each group, as last set."""
        # BEGIN SOLUTION
        return self._last_lr
        # END SOLUTION

    def state_dict(self):
        """Everything the scheduler holds except the optimiser."""
        # BEGIN SOLUTION
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}
        # END SOLUTION

    def load_state_dict(self, state_dict):
        """Restores what ``state_dict`` returned."""
        # BEGIN SOLUTION
        self.__dict__.update(state_dict)
        # END SOLUTION


# %% tags=["check-4.12"]
check("4.12", ReduceLROnPlateau)

# %% [markdown]
# ## Exercise 4.13 (build): RMSprop, the whole optimiser
#
# Adagrad's sum of squared gradients only grows, so its steps shrink for
# ever. RMSprop (Hinton's lecture notes, 2012) keeps a running *average*
# instead, which forgets old gradients. Write the class
# `RMSprop(torch.optim.Optimizer)` whole; the check makes it
# `torch.optim.RMSprop` everywhere and compares parameters and saved states
# with PyTorch's.
#
# **The maths.** With gradient $g_t$ (negated under `maximize`), $\lambda$
# the weight decay, $\alpha$ the smoothing constant and $\mu$ the momentum,
# at each step:
#
# $$g_t \leftarrow g_t + \lambda\,\theta_{t-1}, \qquad
#   v_t = \alpha\,v_{t-1} + (1 - \alpha)\,g_t^2, \qquad
#   d_t = \sqrt{v_t} + \varepsilon$$
#
# and, with `centered=True`, the running average of the gradients
# $\bar g_t = \alpha\,\bar g_{t-1} + (1 - \alpha)\,g_t$ is taken out of the
# mean square: $d_t = \sqrt{v_t - \bar g_t^2} + \varepsilon$. Then, without
# momentum $\theta_t = \theta_{t-1} - \text{lr}\,g_t / d_t$, and with it
# $b_t = \mu\,b_{t-1} + g_t / d_t$ and $\theta_t = \theta_{t-1} - \text{lr}\,b_t$.
# Every running quantity ($v$, $\bar g$, $b$) starts at zero.
#
# **The contract.**
# - `RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0,
#   momentum=0, centered=False, capturable=False, foreach=None,
#   maximize=False, differentiable=False)`. A negative `lr`, `eps`,
#   `momentum`, `weight_decay` or `alpha` raises `ValueError` before
#   anything is made.
# - Every setting is a default of the base class (`Optimizer.__init__(params,
#   defaults)`), so that each parameter group can override it and
#   `state_dict()` saves it.
# - A parameter's state is made at its first step, as Adam's:
#   `state["step"]`, a float32 0-d tensor counting the steps;
#   `state["square_avg"]` ($v$), shaped like the parameter;
#   `state["momentum_buffer"]` ($b$) only when `momentum > 0`, and
#   `state["grad_avg"]` ($\bar g$) only when `centered`.
# - `_update(param, grad, state, group)` is called by `Optimizer.step` with
#   autograd off, for each parameter that has a gradient; it changes `param`
#   and the state in place.


# %% tags=["exercise-4.13"]
class RMSprop(torch.optim.Optimizer):
    """RMSprop: divide the step by a running root-mean-square of gradients."""

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        # BEGIN SOLUTION
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if alpha < 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)
        # END SOLUTION

    def _update(self, param, grad, state, group):
        """One RMSprop step of ``param``, in place."""
        # BEGIN SOLUTION
        if not state:
            state["step"] = torch.tensor(0.0)
            state["square_avg"] = torch.zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = torch.zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = torch.zeros_like(param)
        if group["maximize"]:
            grad = -grad
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        alpha = group["alpha"]
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(group["eps"])
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.mul_(group["momentum"]).addcdiv_(grad, avg)
            param.add_(buf, alpha=-group["lr"])
        else:
            param.addcdiv_(grad, avg, value=-group["lr"])
        # END SOLUTION


# %% tags=["check-4.13"]
check("4.13", RMSprop)

# %% [markdown]
# ## Exercise 4.14 (build): `DataLoader`, the whole loader
#
# You wrote the `BatchSampler` and the `RandomSampler`'s shuffle; now write
# the class that puts them together, `DataLoader`, whole. The check makes it
# `torch.utils.data.DataLoader` everywhere and compares the batches, the
# lengths and what the loader keeps with PyTorch's.
#
# **The idea.** A loader does not hold data. It asks a *sampler* for the order
# of the indices (`SequentialSampler(dataset)`, `RandomSampler(dataset,
# generator=generator)` when `shuffle`, or the `sampler` given: any iterable
# of indices), a *batch sampler* for groups of them
# (`BatchSampler(sampler, batch_size, drop_last)`, or the `batch_sampler`
# given: any iterable of lists of indices), fetches each sample with
# `dataset[i]` and hands each group's list of samples to a *collate
# function*, which makes the batch: `torch.utils.data.default_collate`
# stacks tensors along a new first dimension, turns Python numbers into
# tensors and collates tuples, lists and dicts part by part. With
# `batch_size=None` there is no batching: each sample goes alone through
# `torch.utils.data.default_convert` (which makes a tuple a list).
#
# **The contract.**
# - `DataLoader(dataset, batch_size=1, shuffle=None, sampler=None,
#   batch_sampler=None, num_workers=0, collate_fn=None, pin_memory=False,
#   drop_last=False, timeout=0, worker_init_fn=None,
#   multiprocessing_context=None, generator=None, *, prefetch_factor=None,
#   persistent_workers=False, pin_memory_device="", in_order=True)`.
# - `ValueError`, as PyTorch, for a negative `num_workers` or `timeout`, for
#   `sampler` with `shuffle`, for `batch_sampler` with a `batch_size` other
#   than 1, `shuffle`, `sampler` or `drop_last`, and for `batch_size=None`
#   with `drop_last`. (`num_workers > 0` raises `NotImplementedError`: this
#   engine loads every batch in the main process.)
# - Attributes `dataset`, `sampler`, `batch_sampler` (`None` without
#   batching), `batch_size` and `drop_last` (`None` and `False` when a
#   `batch_sampler` is given), `collate_fn`, `generator`, `num_workers`,
#   `pin_memory` and `timeout`.
# - Each `for batch in loader` is a new pass that reads its samplers afresh;
#   `len(loader)` is the number of batches (or, without batching, samples)
#   of a pass.


# %% tags=["exercise-4.14"]
class DataLoader:
    """Iterates over a data set in batches."""

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
    ):
        # BEGIN SOLUTION
        data = torch.utils.data
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to "
                "disable multiprocessing."
            )
        if num_workers > 0:
            raise NotImplementedError("this engine loads batches in the main process")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, "
                    "shuffle, sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually "
                "exclusive with drop_last"
            )
        if sampler is None and shuffle:
            sampler = data.RandomSampler(dataset, generator=generator)
        elif sampler is None:
            sampler = data.SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = data.BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None and batch_sampler is None:
            collate_fn = data.default_convert
        elif collate_fn is None:
            collate_fn = data.default_collate
        self.dataset, self.collate_fn = dataset, collate_fn
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.batch_size, self.drop_last = batch_size, drop_last
        self.generator, self.num_workers = generator, num_workers
        self.pin_memory, self.timeout = pin_memory, timeout
        # END SOLUTION

    def __iter__(self):
        """One pass: the batches (without batching, the samples)."""
        # BEGIN SOLUTION
        if self.batch_sampler is None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        for indices in self.batch_sampler:
            yield self.collate_fn([self.dataset[i] for i in indices])
        # END SOLUTION

    def __len__(self):
        """The number of batches (without batching, of samples) of a pass."""
        # BEGIN SOLUTION
        if self.batch_sampler is None:
            return len(self.sampler)
        return len(self.batch_sampler)
        # END SOLUTION


# %% tags=["check-4.14"]
check("4.14", DataLoader)
