"""Learning-rate schedules: change each group's ``lr`` as training goes on.

A scheduler wraps an optimiser. Each call of :meth:`LRScheduler.step` (once
per epoch, or once per batch, after ``optimizer.step()``) advances
``last_epoch`` by one and writes a new learning rate into every parameter
group. The first learning rate of each group is kept as ``initial_lr``.

Most schedules here are written as PyTorch writes them: "chainable", as a
change of the current learning rate (``lr * gamma``) rather than a formula
of the step number, so that several schedulers can act on one optimiser.
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from slowtorch_lib.optim.optimizer import Optimizer

__all__ = [
    "ConstantLR",
    "CosineAnnealingLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "OneCycleLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]

ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
    "1.1.0 and later, you should call them in the opposite order: "
    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
    "result in PyTorch skipping the first value of the learning rate schedule. See "
    "more details at https://pytorch.org/docs/stable/optim.html"
    "#how-to-adjust-learning-rate"
)
EPOCH_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _track_step_calls(optimizer: Optimizer) -> None:
    """Wraps ``optimizer.step`` so that the scheduler can tell it was called."""
    if getattr(optimizer.step, "_counts_calls", False):
        return
    original = optimizer.step

    def step(*args: Any, **kwargs: Any) -> Any:
        optimizer._opt_called = True  # type: ignore[attr-defined]
        return original(*args, **kwargs)

    step._counts_calls = True  # type: ignore[attr-defined]
    optimizer.step = step  # type: ignore[method-assign]


class LRScheduler:
    """Base class of schedules that set the learning rate from the step number.

    Args:
        optimizer: The optimiser whose groups' ``lr`` this changes.
        last_epoch: The index of the last step taken; -1 to start afresh.

    Attributes:
        base_lrs: Each group's ``initial_lr``.
        last_epoch: How many times :meth:`step` has run (0 after creation).

    Raises:
        TypeError: If ``optimizer`` is not an :class:`Optimizer`.
        KeyError: When resuming (``last_epoch >= 0``) without ``initial_lr``.
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        for index, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{index}] "
                    "when resuming scheduler with last_epoch >= 0.\nThis typically "
                    "happens when:\n1. You're trying to resume training from a "
                    "checkpoint but haven't properly loaded the optimizer state\n2. "
                    "You're using last_epoch >= 0 for a fresh training run (not "
                    "recommended)"
                )
        self.base_lrs: list[float] = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        _track_step_calls(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Sets the learning rate of step 0."""
        self._step_count = 0
        self.step()

    def get_lr(self) -> list[float]:
        """The learning rate of each group at step ``last_epoch``."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rate of each group, as last set by this scheduler."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Moves to the next step and sets each group's learning rate.

        Args:
            epoch: Deprecated (as in PyTorch): jump to this step, using the
                closed form of the schedule where there is one.
        """
        self._step_count += 1
        if self._step_count == 2 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(ORDER_WARNING, UserWarning, stacklevel=2)
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            warnings.warn(EPOCH_WARNING, UserWarning, stacklevel=2)
            self.last_epoch = epoch
            values = (
                self._closed_form_lr() if self._has_closed_form() else self.get_lr()
            )
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _has_closed_form(self) -> bool:
        return type(self)._closed_form_lr is not LRScheduler._closed_form_lr

    def _closed_form_lr(self) -> list[float]:
        """The learning rates as a formula of ``last_epoch`` (if there is one)."""
        raise NotImplementedError

    def _group_lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        """Everything the scheduler holds except the optimiser."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores what :meth:`state_dict` returned."""
        self.__dict__.update(state_dict)


class StepLR(LRScheduler):
    """Multiplies the learning rate by ``gamma`` every ``step_size`` steps.

    ``lr = initial_lr * gamma ** (epoch // step_size)``.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        step_size: int,
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _closed_form_lr(self) -> list[float]:
        power = self.last_epoch // self.step_size
        return [base_lr * self.gamma**power for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies the learning rate by ``gamma`` at each milestone step."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Sequence[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [lr * factor for lr in self._group_lrs()]

    def _closed_form_lr(self) -> list[float]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base_lr * self.gamma**passed for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiplies the learning rate by ``factor`` for the first ``total_iters``
    steps, then restores it.

    Raises:
        ValueError: If ``factor`` is not in ``[0, 1]``.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError(
                "Constant multiplicative factor expected to be between 0 and 1."
            )
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._group_lrs()]
        if self.last_epoch != self.total_iters:
            return self._group_lrs()
        return [lr * (1.0 / self.factor) for lr in self._group_lrs()]

    def _closed_form_lr(self) -> list[float]:
        factor = self.factor if self.last_epoch < self.total_iters else 1.0
        return [base_lr * factor for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiplies the learning rate by ``gamma`` at every step."""

    def __init__(
        self, optimizer: Optimizer, gamma: float, last_epoch: int = -1
    ) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Lowers the learning rate along half a cosine, from ``initial_lr`` at step
    0 to ``eta_min`` at step ``T_max`` (and back up after, if stepped on)::

        lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_max: int,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        epoch, t_max, eta_min = self.last_epoch, self.T_max, self.eta_min
        if epoch == 0:
            return self._group_lrs()
        if self._step_count == 1 and epoch > 0:  # started part-way: the formula
            cosine = (1 + math.cos(math.pi * epoch / t_max)) / 2
            return [eta_min + (base - eta_min) * cosine for base in self.base_lrs]
        if (epoch - 1 - t_max) % (2 * t_max) == 0:
            rise = (1 - math.cos(math.pi / t_max)) / 2
            return [
                lr + (base_lr - eta_min) * rise
                for lr, base_lr in zip(self._group_lrs(), self.base_lrs)
            ]
        ratio = (1 + math.cos(math.pi * epoch / t_max)) / (
            1 + math.cos(math.pi * (epoch - 1) / t_max)
        )
        return [ratio * (lr - eta_min) + eta_min for lr in self._group_lrs()]

    def _closed_form_lr(self) -> list[float]:
        # get_lr's first step is the formula (get_lr is an exercise: the
        # formula lives there only).
        if self.last_epoch == 0:
            return list(self.base_lrs)
        count, self._step_count = self._step_count, 1
        try:
            return self.get_lr()
        finally:
            self._step_count = count


class LinearLR(LRScheduler):
    """Scales the learning rate by a factor that goes in a straight line from
    ``start_factor`` to ``end_factor`` over ``total_iters`` steps (a warm-up).

    Raises:
        ValueError: If a factor is outside ``(0, 1]`` (start) or ``[0, 1]`` (end).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and "
                "less or equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(
                "Ending multiplicative factor expected to be between 0 and 1."
            )
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        start, end = self.start_factor, self.end_factor
        if self.last_epoch == 0:
            return [lr * start for lr in self._group_lrs()]
        if self.last_epoch > self.total_iters:
            return self._group_lrs()
        change = 1 + (end - start) / (
            self.total_iters * start + (self.last_epoch - 1) * (end - start)
        )
        return [lr * change for lr in self._group_lrs()]

    def _closed_form_lr(self) -> list[float]:
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * done
        return [base_lr * factor for base_lr in self.base_lrs]


class LambdaLR(LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)``, with a function per group or
    one for all.

    Raises:
        ValueError: If the number of functions differs from that of groups.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        groups = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != groups:
                raise ValueError(
                    f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * groups  # type: ignore[list-item]
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        return [
            base_lr * function(self.last_epoch)
            for function, base_lr in zip(self.lr_lambdas, self.base_lrs)
        ]

    def state_dict(self) -> dict[str, Any]:
        """As the base class's, without the functions (they cannot be saved);
        a callable object's attributes are saved instead."""
        state = {
            k: v
            for k, v in self.__dict__.items()
            if k not in ("optimizer", "lr_lambdas")
        }
        state["lr_lambdas"] = [
            None if _is_plain_function(f) else dict(vars(f)) for f in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for function, saved in zip(self.lr_lambdas, saved_lambdas):
            if saved is not None:
                function.__dict__.update(saved)


def _is_plain_function(function: Any) -> bool:
    """A function or method has no state worth saving; a callable object may."""
    plain = (types.FunctionType, types.MethodType, types.BuiltinFunctionType)
    return isinstance(function, plain) or not hasattr(function, "__dict__")


class OneCycleLR(LRScheduler):
    """The one-cycle policy (Smith and Topin, 2017): the learning rate rises
    from ``max_lr / div_factor`` to ``max_lr`` over the first ``pct_start`` of
    the steps, then falls to ``initial_lr / final_div_factor``. Momentum (or
    Adam's ``beta1``) moves the other way, between ``max_momentum`` and
    ``base_momentum``. Step it once per batch.

    Args:
        optimizer: The optimiser.
        max_lr: The peak learning rate (one number, or one per group).
        total_steps: The number of steps; or give ``epochs`` and
            ``steps_per_epoch``.
        epochs: The number of epochs (with ``steps_per_epoch``).
        steps_per_epoch: Batches per epoch (with ``epochs``).
        pct_start: The fraction of steps spent rising.
        anneal_strategy: ``"cos"`` or ``"linear"``.
        cycle_momentum: Also cycle the momentum.
        base_momentum: The lowest momentum (at the peak learning rate).
        max_momentum: The highest momentum.
        div_factor: ``initial_lr = max_lr / div_factor``.
        final_div_factor: ``min_lr = initial_lr / final_div_factor``.
        three_phase: Fall back to ``initial_lr`` symmetrically before
            annealing to ``min_lr``.
        last_epoch: The index of the last step taken; -1 to start afresh.

    Raises:
        ValueError: For a missing or bad number of steps, a bad
            ``pct_start`` or ``anneal_strategy``, or an optimiser without
            momentum when ``cycle_momentum`` is on; when stepped past
            ``total_steps``.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | Sequence[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | Sequence[float] = 0.85,
        max_momentum: float | Sequence[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.total_steps = _one_cycle_steps(total_steps, epochs, steps_per_epoch)
        if not 0 <= pct_start <= 1 or not isinstance(pct_start, (int, float)):
            raise ValueError(
                f"Expected float between 0 and 1 pct_start, but got {pct_start}"
            )
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                "anneal_strategy must be one of 'cos' or 'linear', instead got "
                f"{anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        self._schedule_phases = _one_cycle_phases(
            self.total_steps, pct_start, three_phase
        )
        groups = optimizer.param_groups
        max_lrs = _per_group("max_lr", groups, max_lr)
        if last_epoch == -1:
            for group, group_max_lr in zip(groups, max_lrs):
                group["initial_lr"] = group_max_lr / div_factor
                group["max_lr"] = group_max_lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        self.use_beta1 = "betas" in optimizer.defaults
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and not self.use_beta1:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` "
                    "option enabled"
                )
            highs = _per_group("max_momentum", groups, max_momentum)
            lows = _per_group("base_momentum", groups, base_momentum)
            if last_epoch == -1:
                for group, high, low in zip(groups, highs, lows):
                    self._set_momentum(group, high)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group: dict[str, Any], momentum: float) -> None:
        if self.use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            phases = self._schedule_phases
            for index, phase in enumerate(phases):
                end_step = phase["end_step"]
                if step <= end_step or index == len(phases) - 1:
                    pct = (step - start_step) / (end_step - start_step)
                    lr = self._anneal(
                        group[phase["start_lr"]], group[phase["end_lr"]], pct
                    )
                    if self.cycle_momentum:
                        momentum = self._anneal(
                            group[phase["start_momentum"]],
                            group[phase["end_momentum"]],
                            pct,
                        )
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                self._set_momentum(group, momentum)
        return lrs


def _one_cycle_steps(
    total_steps: int | None, epochs: int | None, steps_per_epoch: int | None
) -> int:
    if total_steps is not None:
        if not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError(
                f"Expected positive integer total_steps, but got {total_steps}"
            )
        return total_steps
    if epochs is None or steps_per_epoch is None:
        raise ValueError(
            "You must define either total_steps OR (epochs AND steps_per_epoch)"
        )
    if not isinstance(epochs, int) or epochs <= 0:
        raise ValueError(f"Expected positive integer epochs, but got {epochs}")
    if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
        raise ValueError(
            f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
        )
    return epochs * steps_per_epoch


def _one_cycle_phases(
    total_steps: int, pct_start: float, three_phase: bool
) -> list[dict[str, Any]]:
    """Where each phase of the cycle ends, and what it goes from and to."""
    rise_end = float(pct_start * total_steps) - 1
    if not three_phase:
        return [
            _phase(rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
            _phase(
                total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"
            ),
        ]
    return [
        _phase(rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
        _phase(
            float(2 * pct_start * total_steps) - 2,
            "max_lr",
            "initial_lr",
            "base_momentum",
            "max_momentum",
        ),
        _phase(total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
    ]


def _phase(
    end_step: float, start_lr: str, end_lr: str, start_momentum: str, end_momentum: str
) -> dict[str, Any]:
    return {
        "end_step": end_step,
        "start_lr": start_lr,
        "end_lr": end_lr,
        "start_momentum": start_momentum,
        "end_momentum": end_momentum,
    }


def _per_group(name: str, groups: list[dict[str, Any]], value: Any) -> list[Any]:
    """One value per group: a list is checked, a number repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(groups):
            raise ValueError(
                f"expected {len(groups)} values for {name}, got {len(value)}"
            )
        return list(value)
    return [value] * len(groups)


class SequentialLR(LRScheduler):
    """Runs several schedulers one after the other, switching at milestones.

    Raises:
        ValueError: Without schedulers, with schedulers of another optimiser,
            or without exactly one milestone fewer than schedulers.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: Sequence[LRScheduler],
        milestones: Sequence[int],
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler, but got no "
                "scheduler."
            )
        for index, scheduler in enumerate(schedulers):
            if scheduler.optimizer is not optimizer:
                raise ValueError(
                    f"{type(self).__name__} expects all schedulers to belong to the "
                    f"same optimizer, but got scheduler {type(scheduler).__name__} at "
                    f"index {index} has {scheduler.optimizer}, which is different "
                    f"from {type(optimizer).__name__}."
                )
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one "
                "more than the number of milestone points, but got number of "
                f"schedulers {len(schedulers)} and the number of milestones to be "
                f"equal to {len(milestones)}"
            )
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Undo the first step each scheduler took when it was made, then let
        # the first one take it again.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for scheduler in reversed(self._schedulers):
            scheduler.last_epoch -= 1
        self._schedulers[0]._initial_step()
        self._last_lr = self._schedulers[0].get_last_lr()

    def step(self, epoch: int | None = None) -> None:
        """Steps the scheduler whose turn it is (restarting it at its milestone)."""
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict[str, Any]:
        state = {
            k: v
            for k, v in self.__dict__.items()
            if k not in ("optimizer", "_schedulers")
        }
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, scheduler_state in zip(self._schedulers, saved):
            scheduler.load_state_dict(scheduler_state)


class ReduceLROnPlateau:
    """Lowers the learning rate when a measured value stops improving.

    Call ``step(metric)`` after each evaluation. When the metric has not
    improved (by more than ``threshold``) for more than ``patience`` calls,
    every group's learning rate is multiplied by ``factor`` (but not below
    ``min_lr``), and then nothing happens for ``cooldown`` calls.

    Args:
        optimizer: The optimiser.
        mode: ``"min"`` if lower is better (a loss), ``"max"`` if higher is
            (an accuracy).
        factor: What to multiply the learning rate by.
        patience: How many calls without improvement to accept.
        threshold: How much better counts as better.
        threshold_mode: ``"rel"`` (relative to the best) or ``"abs"``.
        cooldown: Calls to wait after a reduction.
        min_lr: A lower bound, one number or one per group.
        eps: Changes smaller than this are not made.

    Raises:
        ValueError: For ``factor >= 1``, an unknown mode, or the wrong number
            of ``min_lr`` values.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: float | Sequence[float] = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        _check_optimizer(optimizer)
        self.factor = factor
        self.optimizer = optimizer
        self.default_min_lr: float | None = None
        if not isinstance(min_lr, (list, tuple)):
            self.default_min_lr = min_lr  # type: ignore[assignment]
            min_lr = [min_lr] * len(optimizer.param_groups)  # type: ignore[list-item]
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

    def step(self, metrics: Any, epoch: int | None = None) -> None:
        """Records one measurement and lowers the learning rate if it is time."""
        current = float(metrics)
        if epoch is not None:
            warnings.warn(EPOCH_WARNING, UserWarning, stacklevel=2)
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

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(self.min_lrs) != len(groups):
            default = self.default_min_lr or 0
            self.min_lrs = [default] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    def is_better(self, a: float, best: float) -> bool:
        """Whether ``a`` improves on ``best`` by more than the threshold."""
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def get_last_lr(self) -> list[float]:
        """The learning rate of each group, as last set."""
        return self._last_lr

    def state_dict(self) -> dict[str, Any]:
        """Everything the scheduler holds except the optimiser."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores what :meth:`state_dict` returned."""
        self.__dict__.update(state_dict)
