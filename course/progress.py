"""A progress bar for a training run in a notebook: the steps done, the
last loss and the time left.

The chapters that train a model pass :func:`training_bar`'s result to their
loop, which calls it after every step. Once the last step is done the bar
says so and no time, so a notebook saved afterwards holds the same text on
every run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["training_bar"]

#: What a training loop calls after each step: steps done, steps, loss.
Progress = Callable[[int, int, float], None]


def training_bar(steps: int) -> Progress:
    """Shows a bar for ``steps`` steps and returns the function that moves it."""
    import ipywidgets as widgets  # lazily: only a notebook's kernel has them
    from IPython.display import display  # (IPython too)

    bar = widgets.IntProgress(min=0, max=steps, description="training")
    label = widgets.Label(f"step 0/{steps}")
    display(widgets.HBox([bar, label]))
    start = time.perf_counter()

    def show(step: int, steps: int, loss: float) -> None:
        bar.max, bar.value = steps, step
        said = f"step {step}/{steps}, loss {loss:.3f}"
        if step < steps:
            left = (time.perf_counter() - start) / step * (steps - step)
            said += f", about {left:.0f} s left"
        else:
            said += ", done"
        label.value = said

    return show
