"""``python -m bench.cnn_digits``: a small CNN on the 8x8 digits, engine and torch.

The model is chapter 5's: ``Conv2d(1, 8, 3, padding=1)``, ReLU,
``MaxPool2d(2)``, then ``Linear(8 * 4 * 4, 10)``, trained with Adam (lr 0.02)
on batches of 32 for 5 epochs. (Without the padding, the 6x6 maps pool to
3x3 and five epochs reach about 96 %.) Both libraries start from the
engine's initial weights and see the same batches in the same order
(shuffled by :mod:`random`, not by either
library's generator), so their losses can be compared epoch by epoch.

It prints, for each epoch, the mean training loss and the test accuracy of
each library and the engine's seconds per epoch; it exits with 1 if the
engine's final accuracy is below 97 % or its losses drift from torch's by
more than 1e-3 (relative). A run, not a unit test: it takes minutes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import slowtorch_lib as st
from course.datasets import load_digits

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book"))
from ch05.cnn import make_cnn, train  # noqa: E402

EPOCHS = 5
TARGET_ACCURACY = 0.97
LOSS_TOLERANCE = 1e-3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    args = parser.parse_args(argv)
    images, labels = load_digits("train")
    st.manual_seed(0)
    model = make_cnn(st)
    initial = {k: v.tolist() for k, v in model.state_dict().items()}
    ours = train(st, model, images, labels, args.epochs)
    theirs = None
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(1)
        t_model = make_cnn(torch)
        t_model.load_state_dict({k: torch.tensor(v) for k, v in initial.items()})
        theirs = train(torch, t_model, images, labels, args.epochs)
    print("epoch  loss (engine)  loss (torch)  acc (engine)  acc (torch)  s/epoch")
    worst = 0.0
    for epoch in range(args.epochs):
        loss, accuracy, seconds = (column[epoch] for column in ours)
        line = f"{epoch + 1:5}  {loss:13.6f}"
        if theirs is not None:
            t_loss, t_accuracy, t_seconds = (column[epoch] for column in theirs)
            worst = max(worst, abs(loss - t_loss) / abs(t_loss))
            line += f"  {t_loss:12.6f}  {accuracy:12.4f}  {t_accuracy:11.4f}"
            line += f"  {seconds:7.2f} (torch {t_seconds:.2f})"
        else:
            line += f"  {'-':>12}  {accuracy:12.4f}  {'-':>11}  {seconds:7.2f}"
        print(line)
    final = ours[1][-1]
    print(f"final test accuracy {final:.4f}; largest relative loss gap {worst:.2e}")
    ok = final >= TARGET_ACCURACY and worst <= LOSS_TOLERANCE
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
