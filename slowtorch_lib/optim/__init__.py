"""Optimisers (``slowtorch_lib.optim``), as ``torch.optim``.

Each optimiser changes parameters in place from their ``.grad``; the
schedulers in :mod:`slowtorch_lib.optim.lr_scheduler` change its learning
rate over time.
"""

from slowtorch_lib.optim import lr_scheduler
from slowtorch_lib.optim.adadelta import Adadelta
from slowtorch_lib.optim.adagrad import Adagrad
from slowtorch_lib.optim.adam import Adam
from slowtorch_lib.optim.adamw import AdamW
from slowtorch_lib.optim.lbfgs import LBFGS
from slowtorch_lib.optim.lion import Lion
from slowtorch_lib.optim.muon import Muon
from slowtorch_lib.optim.optimizer import Optimizer
from slowtorch_lib.optim.rmsprop import RMSprop
from slowtorch_lib.optim.sgd import SGD

__all__ = [
    "SGD",
    "Adagrad",
    "Adam",
    "AdamW",
    "Lion",
    "Muon",
    "Optimizer",
    "RMSprop",
    "lr_scheduler",
    "Adadelta",
    "LBFGS",
]
