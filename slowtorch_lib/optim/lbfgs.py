"""L-BFGS: a quasi-Newton method that learns the curvature from its steps."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from slowtorch_lib._creation import zeros
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.grad_mode import enable_grad, no_grad
from slowtorch_lib.ops.complex_parts import view_as_real
from slowtorch_lib.ops.joining import cat
from slowtorch_lib.optim.line_search import strong_wolfe
from slowtorch_lib.optim.optimizer import Optimizer

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """Limited-memory BFGS (Nocedal, 1980; Liu and Nocedal, 1989).

    Newton's method steps by ``-H g``, with ``H`` the inverse of the
    matrix of second derivatives. BFGS builds ``H`` from what the steps
    show instead: a step ``s`` that changed the gradient by ``y`` says the
    curvature along ``s`` is about ``y . s / s . s``. L-BFGS keeps only the
    last ``history_size`` pairs ``(s, y)`` and computes ``-H g`` from them
    directly (the "two-loop recursion"), without ever forming ``H``.

    ``step(closure)`` runs up to ``max_iter`` such iterations, each calling
    ``closure`` (which recomputes the loss and its gradients) at least
    once; all parameters are handled as one flat vector, so there is one
    parameter group.

    Args:
        params: The tensors to optimise.
        lr: Scales each step.
        max_iter: Iterations per call of ``step``.
        max_eval: Calls of ``closure`` per ``step`` (``max_iter * 5 // 4``
            by default).
        tolerance_grad: Stop when no gradient element is larger than this.
        tolerance_change: Stop when the loss or the parameters change less.
        history_size: How many ``(s, y)`` pairs to remember.
        line_search_fn: None (fixed steps of ``lr``) or ``"strong_wolfe"``.

    Raises:
        ValueError: For a negative ``lr`` or several parameter groups.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError(
                "LBFGS doesn't support per-parameter options (parameter groups)"
            )
        self._params: list[Tensor] = self.param_groups[0]["params"]

    # ------------------------------------------------------------------
    # The parameters as one flat vector
    # ------------------------------------------------------------------

    def _flat_grad(self) -> Tensor:
        """Every gradient, flattened and joined (zeros where there is none;
        a complex one as its real and imaginary parts)."""
        views = []
        for param in self._params:
            grad = param.grad
            if grad is None:
                grad = zeros(param.numel(), dtype=param.dtype)
            if grad.is_complex():
                grad = view_as_real(grad)
            views.append(grad.reshape(-1))
        return cat(views, 0)

    def _add_step(self, step_size: float, direction: Tensor) -> None:
        """Moves the parameters by ``step_size * direction`` (flat)."""
        offset = 0
        for param in self._params:
            if param.is_complex():
                param = view_as_real(param)
            count = param.numel()
            part = direction[offset : offset + count].view_as(param)
            param.add_(part, alpha=step_size)
            offset += count

    def _evaluate_at(
        self, closure: Callable[[], Any], x: list[Tensor], t: float, d: Tensor
    ) -> tuple[float, Tensor]:
        """The loss and flat gradient at ``x + t * d``; the parameters are
        put back to ``x`` afterwards."""
        self._add_step(t, d)
        with enable_grad():
            loss = float(closure())
        flat_grad = self._flat_grad()
        for param, value in zip(self._params, x):
            param.copy_(value)
        return loss, flat_grad

    # ------------------------------------------------------------------
    # The direction: -H g by the two-loop recursion
    # ------------------------------------------------------------------

    def _remember(self, state: dict[str, Any], y: Tensor, s: Tensor) -> None:
        """Adds the pair ``(s, y)`` if it shows positive curvature."""
        ys = y.dot(s).item()
        if ys <= 1e-10:
            return
        if len(state["old_dirs"]) == self.param_groups[0]["history_size"]:
            for key in ("old_dirs", "old_stps", "ro"):
                state[key].pop(0)
        state["old_dirs"].append(y)
        state["old_stps"].append(s)
        state["ro"].append(1.0 / ys)
        state["H_diag"] = ys / y.dot(y).item()

    def _direction(self, state: dict[str, Any], flat_grad: Tensor) -> Tensor:
        """``-H g``: the gradient bent by the remembered curvature."""
        dirs, steps, ro = state["old_dirs"], state["old_stps"], state["ro"]
        alphas = [0.0] * len(dirs)
        q = flat_grad.neg()
        for i in reversed(range(len(dirs))):
            alphas[i] = steps[i].dot(q).item() * ro[i]
            q.add_(dirs[i], alpha=-alphas[i])
        r = q * state["H_diag"]
        for i in range(len(dirs)):
            beta = dirs[i].dot(r).item() * ro[i]
            r.add_(steps[i], alpha=alphas[i] - beta)
        return r

    # ------------------------------------------------------------------
    # The step
    # ------------------------------------------------------------------

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Runs up to ``max_iter`` iterations; returns the first loss.

        Args:
            closure: Clears the gradients, computes the loss, calls
                ``backward`` and returns the loss. It is required.

        Raises:
            RuntimeError: For a ``line_search_fn`` other than
                ``"strong_wolfe"``.
        """
        with no_grad():
            return self._step(closure)

    def _step(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr = group["lr"].item() if isinstance(group["lr"], Tensor) else group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad = group["tolerance_grad"]
        tolerance_change = group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            first_loss = closure()
        loss = float(first_loss)
        evaluations = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max().item() <= tolerance_grad:
            return first_loss
        iteration = 0
        while iteration < max_iter:
            iteration += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                state.update(old_dirs=[], old_stps=[], ro=[], H_diag=1)
                d = flat_grad.neg()
            else:
                y = flat_grad.sub(state["prev_flat_grad"])
                self._remember(state, y, state["d"].mul(state["t"]))
                d = self._direction(state, flat_grad)
            state["prev_flat_grad"] = flat_grad.clone()
            state["prev_loss"] = loss
            if state["n_iter"] == 1:
                t = min(1.0, (1.0 / flat_grad.abs().sum()).item()) * lr
            else:
                t = lr
            state["d"], state["t"] = d, t
            gtd = flat_grad.dot(d).item()
            if gtd > -tolerance_change:
                break
            loss, flat_grad, t, used, converged = self._move(
                closure, d, t, loss, flat_grad, gtd, evaluations, iteration
            )
            state["t"] = t
            evaluations += used
            state["func_evals"] += used
            if iteration == max_iter or evaluations >= max_eval or converged:
                break
            if d.mul(t).abs().max().item() <= tolerance_change:
                break
            if abs(loss - state["prev_loss"]) < tolerance_change:
                break
        return first_loss

    def _move(
        self,
        closure: Callable[[], Any],
        d: Tensor,
        t: float,
        loss: float,
        flat_grad: Tensor,
        gtd: float,
        evaluations: int,
        iteration: int,
    ) -> tuple[float, Tensor, float, int, bool]:
        """Steps along ``d``: by ``t``, or as far as the line search says.

        Returns the new loss, flat gradient and step, the number of
        closure calls made, and whether the gradient is now small enough.
        """
        group = self.param_groups[0]
        search = group["line_search_fn"]
        used = 0
        converged = False
        if search is not None:
            if search != "strong_wolfe":
                raise RuntimeError("only 'strong_wolfe' is supported")
            start = [param.clone() for param in self._params]

            def evaluate(x: list[Tensor], t: float, d: Tensor) -> tuple[float, Tensor]:
                return self._evaluate_at(closure, x, t, d)

            max_ls = group["max_eval"] - evaluations
            loss, flat_grad, t, used = strong_wolfe(
                evaluate, start, t, d, loss, flat_grad, gtd, max_ls=max_ls
            )
            self._add_step(t, d)
            converged = flat_grad.abs().max().item() <= group["tolerance_grad"]
        else:
            self._add_step(t, d)
            if iteration != group["max_iter"]:
                with enable_grad():
                    loss = float(closure())
                flat_grad = self._flat_grad()
                converged = flat_grad.abs().max().item() <= group["tolerance_grad"]
                used = 1
        return loss, flat_grad, t, used, converged
