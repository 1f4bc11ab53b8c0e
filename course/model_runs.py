"""The student's own models, trained on their engine, with PyTorch as referee.

After chapter 6's exercises the notebook assembles a GPT from the pieces
the student wrote and trains it on the names; after chapter 5's, a CNN on
their ``Conv2d`` trains on the digits. The same model, from the same
weights on the same batches, was trained once under PyTorch with the model
answers, and its record (``checks/model_runs.json``) is the referee: the
losses must agree to 1e-5 at every step, the sampled names must be the same.
When they do not, the run says which piece to look at, by running each
piece on a fixed input and comparing its output with PyTorch's.

Where each of chapter 6's pieces runs in the GPT (:data:`GPT_PATH`):

- 6.7 ``GPT`` is the model: embeddings, its ``blocks``, ``ln_f``, ``head``
  and the loss; its blocks are two of 6.6's ``Block``;
- block 0's attention splits its heads with 6.4's ``split_heads`` and calls
  ``F.scaled_dot_product_attention`` on ``(B * H, T, D)`` tensors, which
  runs 6.3's ``_composite`` (the math path), which runs 6.2's
  ``safe_softmax``;
- block 1's attention is 6.5's ``CausalSelfAttention``;
- 6.9's ``train`` trains it with the AdamW of 6.7's ``configure_optimizers``;
  6.8's ``generate`` writes the names.

Record PyTorch's runs (needs torch) after changing anything here::

    python -m course.model_runs

Standard library only apart from that command: it runs in the browser too.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import platform
import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from .checks import gpt_parts
from .datasets import load_digits, load_names
from .saved_pieces import find_workspace
from .substitute import ENGINE, substituted

__all__ = [
    "CNN_PATH",
    "GPT_PATH",
    "RECORD",
    "Run",
    "load_record",
    "printed_progress",
    "train_cnn",
    "train_gpt",
]

RECORD = Path(__file__).resolve().parent / "checks" / "model_runs.json"

# The GPT: the chapter's alphabet, a block of 8, two blocks of 2 heads.
ALPHABET = "." + "abcdefghijklmnopqrstuvwxyz"
VOCAB, BLOCK, N_EMBD, N_HEAD, N_LAYER = len(ALPHABET), 8, 16, 2, 2
GPT_BATCH, GPT_STEPS, GPT_LR = 8, 30, 1e-2
NAMES, NAME_LENGTH = 6, 10
# The CNN: chapter 5's model, on 5.10's Conv2d, a few steps on the digits.
CNN_BATCH, CNN_STEPS, CNN_LR = 32, 12, 0.02
#: What the class edition's stubs say when a piece is not written.
NAMED_STUB = re.compile(r"exercise (\d+\.\d+), `(\w+)`.* is not written yet")
TOLERANCE = 1e-5  # the largest difference allowed between two losses
PROBE_TOLERANCE = 1e-4  # the same for a piece's output on the probe input

#: For each of chapter 6's pieces, where it runs in the student's GPT.
GPT_PATH = {
    "6.2": "inside 6.3: the softmax of block 0's attention",
    "6.3": "block 0's attention: F.scaled_dot_product_attention on (B*H, T, D)",
    "6.4": "block 0's attention: its queries, keys and values split into heads",
    "6.5": "block 1's attention",
    "6.6": "both blocks (norms, MLP, residual additions)",
    "6.7": "the model: embeddings, blocks, ln_f, head, the loss, and the AdamW "
    "of its configure_optimizers, which 6.9 trains with",
    "6.8": "writes the names",
    "6.9": "trains the model (one step per batch)",
}
#: Where exercise 5.10's piece runs in the student's CNN.
CNN_PATH = {"5.10": "the CNN's convolution layer"}
GPT_NAMES = {
    "6.2": "safe_softmax",
    "6.3": "_composite",
    "6.4": "split_heads",
    "6.5": "CausalSelfAttention",
    "6.6": "Block",
    "6.7": "GPT",
    "6.8": "generate",
    "6.9": "train",
}
PIECE_NAMES = {**GPT_NAMES, "5.10": "Conv2d"}
ENGINE_PIECES = {
    "6.2": "slowtorch_lib.nn.functional.attention.safe_softmax",
    "6.3": "slowtorch_lib.nn.functional.attention._composite",
}


def load_record() -> dict[str, Any]:
    """PyTorch's recorded runs."""
    record: dict[str, Any] = json.loads(RECORD.read_text(encoding="utf-8"))
    return record


# --- fixed weights and inputs, the same in either library -------------------------


def set_weights(torch: Any, model: Any, seed: int = 0) -> None:
    """Gives every parameter values drawn from Python's random numbers,
    seeded by its name, so the order in which a piece makes its layers does
    not matter: a matrix from U(-1/sqrt(n), 1/sqrt(n)) for n columns, a
    1-d weight (a norm's gain) ones, a bias from U(-0.1, 0.1)."""
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            draw = random.Random(f"{seed}:{name}")
            count = parameter.numel()
            if parameter.dim() >= 2:
                bound = 1 / math.sqrt(parameter.shape[-1])
                values = [draw.uniform(-bound, bound) for _ in range(count)]
            elif name.endswith("weight"):
                values = [1.0] * count
            else:
                values = [draw.uniform(-0.1, 0.1) for _ in range(count)]
            parameter.copy_(torch.tensor(values).view(parameter.shape))


def probe_input(torch: Any, *shape: int, seed: int = 1) -> Any:
    """A fixed input drawn from Python's random numbers."""
    draw = random.Random(seed)
    return torch.tensor([draw.gauss(0, 1) for _ in range(math.prod(shape))]).view(shape)


def flat(x: Any) -> list[float]:
    values: list[float] = x.detach().reshape(-1).tolist()
    return values


def unwritten_piece(error: NotImplementedError, pieces: dict[str, Any]) -> str:
    """The exercise whose stub raised ``error``, found among the frames of
    its traceback."""
    codes = {}
    for id, piece in pieces.items():
        functions = vars(piece).values() if isinstance(piece, type) else [piece]
        for function in functions:
            code = getattr(function, "__code__", None)
            if code is not None:
                codes[code] = id
    found, frame = "?", error.__traceback__
    while frame is not None:
        found = codes.get(frame.tb_frame.f_code, found)
        frame = frame.tb_next
    return found


def stopped(
    model: str,
    record: dict[str, Any],
    error: NotImplementedError,
    pieces: Any,
    say_missing: bool,
) -> Run:
    """The run a missing piece stopped: a class edition's stub names its
    exercise (one of this model's, or an earlier one such as 3.6's
    ``cross_entropy``) and is raised unless ``say_missing``; else the piece
    is found among the traceback's frames."""
    named = NAMED_STUB.search(str(error))
    if named is not None and not say_missing:
        raise error
    if named is not None:
        id, name = named.groups()
        return Run(model, [], record["losses"], 0.0, unwritten=id, unwritten_name=name)
    missing = unwritten_piece(error, pieces)
    return Run(model, [], record["losses"], 0.0, unwritten=missing)


def largest_gap(ours: list[float], theirs: list[float]) -> float:
    """The largest difference between two lists (inf if their lengths differ
    or a value is not a number)."""
    if len(ours) != len(theirs):
        return math.inf
    gaps = [abs(a - b) for a, b in zip(ours, theirs)]
    return max(gaps, default=0.0) if all(g == g for g in gaps) else math.inf


# --- the outcome of a run -----------------------------------------------------------


@dataclass
class Run:
    """A training run against PyTorch's record, and what it says."""

    model: str
    losses: list[float]
    expected: list[float]
    seconds: float
    names: list[str] | None = None
    expected_names: list[str] | None = None
    culprit: str | None = None
    why: str = ""
    unwritten: str | None = None  # the exercise whose stub stopped the run
    unwritten_name: str = ""  # its function or class, if not one of PIECE_NAMES

    @property
    def gap(self) -> float:
        """The largest difference between the two loss curves."""
        return largest_gap(self.losses, self.expected)

    @property
    def left_at(self) -> int | None:
        """The first step (from 1) whose loss is more than 1e-5 from PyTorch's."""
        for step, (a, b) in enumerate(zip(self.losses, self.expected), 1):
            if not abs(a - b) <= TOLERANCE:
                return step
        return None if len(self.losses) == len(self.expected) else 1

    @property
    def agrees(self) -> bool:
        """The same losses and, if the run wrote names, the same names."""
        same_names = self.names is None or self.names == self.expected_names
        return self.left_at is None and same_names

    def report(self) -> str:
        """What a student reads: the agreement, or the step where the curve
        leaves PyTorch's and the piece to look at."""
        if self.unwritten is not None:
            name = self.unwritten_name or PIECE_NAMES.get(self.unwritten, "")
            return (
                f"exercise {self.unwritten}, `{name}`, is not written yet: your "
                f"{self.model} runs once every piece it uses is written"
            )
        lines = [
            f"your {self.model}: {len(self.losses)} steps, "
            f"loss {self.losses[0]:.4f} -> {self.losses[-1]:.4f}; "
            f"PyTorch's: {self.expected[0]:.4f} -> {self.expected[-1]:.4f}"
        ]
        if self.left_at is None:
            lines.append(
                f"every step's loss equals PyTorch's to within 1e-5 "
                f"(largest difference {self.gap:.1e})"
            )
        else:
            step = self.left_at
            ours = self.losses[step - 1] if step <= len(self.losses) else math.nan
            lines.append(
                f"your curve leaves PyTorch's at step {step}: loss {ours:.6f}, "
                f"PyTorch's {self.expected[step - 1]:.6f}"
            )
        if self.names is None and self.expected_names is not None:
            lines.append("no names: exercise 6.8, `generate` (stretch), is not written")
        if self.names is not None:
            lines.append("your names:    " + ", ".join(self.names))
            lines.append("PyTorch's:     " + ", ".join(self.expected_names or []))
            if self.left_at is None:
                same = self.names == self.expected_names
                lines.append("the same names" if same else "the names differ")
        if self.culprit is not None:
            name = PIECE_NAMES.get(self.culprit, "")
            lines.append(f"look at exercise {self.culprit}, `{name}`: {self.why}")
        return "\n".join(lines)


def printed_progress(step: int, steps: int, loss: float) -> None:
    """A progress line every fifth step (text: the same in every run and in
    the browser)."""
    if step % 5 == 0 or step == steps:
        print(f"step {step:2d}/{steps}: loss {loss:.3f}", flush=True)


# --- the GPT --------------------------------------------------------------------------


def _gpt_adapters(torch: Any) -> SimpleNamespace:
    """The glue between the pieces, for ``torch``: where 6.6's block expects
    a ``MultiheadAttention`` and 6.7's GPT a ``TransformerEncoderLayer``."""
    nn, F = torch.nn, torch.nn.functional

    class SplitAttention(torch.nn.Module):
        """Attention in a block's ``self_attn`` place: heads split by 6.4,
        then scaled dot-product attention on ``(B * H, T, D)``, the math path
        (6.3, with 6.2's softmax). Self-attention: ``key`` and ``value`` are
        the ``query``."""

        def __init__(self, split_heads: Callable[[Any, int], Any]) -> None:
            super().__init__()
            self.split_heads = split_heads
            self.qkv = nn.Linear(N_EMBD, 3 * N_EMBD, bias=False)
            self.proj = nn.Linear(N_EMBD, N_EMBD)

        def forward(
            self, query: Any, key: Any, value: Any, attn_mask: Any = None, **_: Any
        ) -> tuple[Any, None]:
            B, T, C = query.shape
            size = C // N_HEAD
            q, k, v = (
                self.split_heads(part, N_HEAD).reshape(B * N_HEAD, T, size)
                for part in self.qkv(query).split(C, dim=-1)
            )
            allowed = None if attn_mask is None else ~attn_mask  # True: may look
            mixed = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
            mixed = mixed.view(B, N_HEAD, T, size).transpose(1, 2).reshape(B, T, C)
            return self.proj(mixed), None

    class WrittenAttention(torch.nn.Module):
        """6.5's attention in a block's ``self_attn`` place (it makes its own
        causal mask)."""

        def __init__(self, attention: Any) -> None:
            super().__init__()
            self.attention = attention

        def forward(self, query: Any, *_: Any, **__: Any) -> tuple[Any, None]:
            return self.attention(query), None

    class Layer(torch.nn.Module):
        """6.6's block where 6.7's GPT calls a ``TransformerEncoderLayer``
        (the block makes its own causal mask)."""

        def __init__(self, block: Any) -> None:
            super().__init__()
            self.block = block

        def forward(self, x: Any, *_: Any, **__: Any) -> Any:
            return self.block(x)

    return SimpleNamespace(
        SplitAttention=SplitAttention, WrittenAttention=WrittenAttention, Layer=Layer
    )


def assemble_gpt(torch: Any, pieces: dict[str, Any]) -> Any:
    """6.7's GPT whose two blocks are 6.6's, with the attentions of
    :data:`GPT_PATH`, and the weights of :func:`set_weights`."""
    glue = _gpt_adapters(torch)
    model = pieces["6.7"](VOCAB, BLOCK, N_EMBD, N_HEAD, N_LAYER)
    first, second = pieces["6.6"](N_EMBD, N_HEAD), pieces["6.6"](N_EMBD, N_HEAD)
    first.self_attn = glue.SplitAttention(pieces["6.4"])
    second.self_attn = glue.WrittenAttention(pieces["6.5"](N_EMBD, N_HEAD, BLOCK))
    model.blocks = torch.nn.ModuleList([glue.Layer(first), glue.Layer(second)])
    set_weights(torch, model)
    return model


def gpt_windows(steps: int = GPT_STEPS, seed: int = 6) -> list[list[list[int]]]:
    """For each step, GPT_BATCH windows of BLOCK + 1 characters of the names
    (drawn with Python's random numbers; the record keeps them)."""
    words = load_names()
    index_of = {c: i for i, c in enumerate(ALPHABET)}
    stream = [index_of[c] for c in "." + ".".join(words) + "."]
    draw = random.Random(seed)
    return [
        [
            stream[start : start + BLOCK + 1]
            for start in (draw.randrange(len(stream) - BLOCK) for _ in range(GPT_BATCH))
        ]
        for _ in range(steps)
    ]


def gpt_probes(torch: Any, model: Any, pieces: dict[str, Any], windows: Any) -> Any:
    """Each piece's output on fixed inputs, from the initial weights, in the
    order the forward pass meets them: ``{exercise: (what, values)}``."""
    x = probe_input(torch, 2, BLOCK, N_EMBD)
    first, second = model.blocks[0].block, model.blocks[1].block
    allowed = torch.ones(BLOCK, BLOCK, dtype=torch.bool).tril()
    q, k, v = (probe_input(torch, 4, BLOCK, 4, seed=s) for s in (2, 3, 4))
    attend = torch.nn.functional.scaled_dot_product_attention
    idx = torch.tensor([w[:-1] for w in windows[0]])
    targets = torch.tensor([w[1:] for w in windows[0]])
    with torch.no_grad():
        logits, loss = model(idx, targets)
        return {
            "6.4": ("split_heads", flat(pieces["6.4"](x, N_HEAD))),
            "6.2": (
                "scaled_dot_product_attention on 4-d inputs (the fused kernel)",
                flat(attend(*(t.view(2, 2, BLOCK, 4) for t in (q, k, v)), allowed)),
            ),
            "6.3": (
                "scaled_dot_product_attention on 3-d inputs with a bool mask",
                flat(attend(q, k, v, allowed)),
            ),
            "6.5": ("block 1's CausalSelfAttention", flat(second.self_attn(x)[0])),
            "6.6": ("block 0, a Block", flat(first(x))),
            "6.7": ("the GPT's logits and loss", [*flat(logits[0]), loss.item()]),
        }


def gpt_model_pieces(torch: Any) -> dict[str, Any]:
    """The model answers for ``torch`` (6.2 and 6.3 are the library's own)."""
    parts = gpt_parts.under(torch)
    pieces = {i: getattr(parts, GPT_NAMES[i]) for i in ("6.4", "6.5", "6.6", "6.7")}
    pieces["6.8"], pieces["6.9"] = parts.generate, parts.train
    return pieces


def own_gpt_pieces(torch: Any) -> dict[str, Any]:
    """The pieces a chapter runs: the model answers on the complete engine; in
    a class edition, the pieces the student saved (their ``my_engine/``
    folder; 6.2 and 6.3 are in its engine already), stubs for the others."""
    pieces = gpt_model_pieces(torch)
    if importlib.util.find_spec(f"{ENGINE}._class") is None:
        return pieces
    folder = find_workspace()
    if folder is None:
        return pieces
    for id in ("6.4", "6.5", "6.6", "6.7", "6.8", "6.9"):
        name = GPT_NAMES[id]
        path = folder / f"ex{id.replace('.', '_')}_{name}.py"
        if path.is_file():  # the student's own, as the class engine runs them
            namespace: dict[str, Any] = {"torch": torch, "__name__": path.stem}
            exec(compile(path.read_text("utf-8"), str(path), "exec"), namespace)  # noqa: S102
            pieces[id] = namespace[name]
    return pieces


@contextlib.contextmanager
def engine_pieces(torch: Any, pieces: dict[str, Any], targets: dict[str, str]) -> Any:
    """Puts the given pieces of the engine in place of its own (the engine only)."""
    with contextlib.ExitStack() as stack:
        if torch.__name__.split(".")[0] == ENGINE:
            for id, target in targets.items():
                if pieces.get(id) is not None:
                    stack.enter_context(substituted(target, pieces[id]))
        yield


def counting_steps(torch: Any, model: Any, steps: int, progress: Any) -> Any:
    """Calls ``progress(step, steps, loss)`` each time the model gives a loss
    with autograd on (once per training step)."""
    done = [0]

    def hook(module: Any, args: Any, output: Any) -> None:
        if torch.is_grad_enabled() and output[1] is not None:
            done[0] += 1
            progress(done[0], steps, output[1].item())

    return model.register_forward_hook(hook)


def run_gpt(
    torch: Any, pieces: dict[str, Any], windows: Any, progress: Any = None
) -> tuple[list[float], list[str] | None, Any, float]:
    """Trains the assembled GPT on ``windows`` and writes names: the losses,
    the names (None if 6.8, a stretch exercise, is not written), the probes
    and the seconds."""
    with engine_pieces(torch, pieces, ENGINE_PIECES):
        model = assemble_gpt(torch, pieces)
        probes = gpt_probes(torch, model, pieces, windows)
        batches = [
            (torch.tensor([w[:-1] for w in step]), torch.tensor([w[1:] for w in step]))
            for step in windows
        ]
        handle = None
        if progress is not None:
            handle = counting_steps(torch, model, len(batches), progress)
        start = time.perf_counter()
        losses = pieces["6.9"](model, batches, len(batches), GPT_LR)
        seconds = time.perf_counter() - start
        if handle is not None:
            handle.remove()
        start_tokens = torch.zeros(NAMES, 1, dtype=torch.long)
        try:
            written = pieces["6.8"](
                model, start_tokens, NAME_LENGTH, generator=random.Random(1)
            )
        except NotImplementedError:  # 6.8 is a stretch exercise: no names then
            written = None
    names = None
    if written is not None:
        names = [
            "".join(ALPHABET[t] for t in row[1:]).split(".")[0]
            for row in written.tolist()
        ]
    return [float(loss) for loss in losses], names, probes, seconds


def first_wrong_piece(
    probes: dict[str, Any], expected: dict[str, Any]
) -> tuple[str, str] | None:
    """The first piece whose output differs from PyTorch's, and by how much."""
    for id, (what, values) in probes.items():
        gap = largest_gap(values, expected[id][1])
        if not gap <= PROBE_TOLERANCE:
            said = "different shape" if gap == math.inf else f"off by {gap:.2g}"
            return id, (
                f"on fixed weights and a fixed input, {what} gives other numbers "
                f"than PyTorch's ({said})"
            )
    return None


def train_gpt(
    torch: Any, pieces: dict[str, Any], progress: Any = None, say_missing: bool = False
) -> Run:
    """The student's GPT (pieces by exercise id, as :data:`GPT_NAMES`),
    trained against PyTorch's record. A class edition's stub is raised as it
    is (a chapter then shows the book's outputs), or with ``say_missing`` (an
    exercise notebook) named in the run's report."""
    record = load_record()["gpt"]
    try:
        losses, names, probes, seconds = run_gpt(
            torch, pieces, record["windows"], progress
        )
    except NotImplementedError as error:
        return stopped("GPT", record, error, pieces, say_missing)
    run = Run("GPT", losses, record["losses"], seconds, names, record["names"])
    wrong = first_wrong_piece(probes, record["probes"])
    if wrong is not None:
        run.culprit, run.why = wrong
    elif run.left_at is not None:
        run.culprit = "6.9"
        run.why = (
            "every piece's forward agrees with PyTorch's at the first step, so "
            "the training loop changes something (the optimiser and its settings, "
            "zero_grad before backward, the loss kept before the step)"
        )
    elif names is not None and names != record["names"]:
        run.culprit = "6.8"
        run.why = "the losses agree, the names do not: the sampling differs"
    return run


# --- the CNN ----------------------------------------------------------------------


def assemble_cnn(torch: Any, conv2d: Any) -> Any:
    """Chapter 5's CNN with 5.10's ``Conv2d``, weights as :func:`set_weights`."""
    nn = torch.nn
    model = nn.Sequential(
        conv2d(1, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(8 * 4 * 4, 10),
    )
    set_weights(torch, model)
    return model


def cnn_batches(steps: int = CNN_STEPS, seed: int = 5) -> list[list[int]]:
    """For each step, the indices of CNN_BATCH digits of the training set."""
    draw = random.Random(seed)
    return [draw.sample(range(1437), CNN_BATCH) for _ in range(steps)]


def run_cnn(
    torch: Any, conv2d: Any, batches: Any, progress: Any = None
) -> tuple[list[float], Any, float]:
    """Trains the CNN with Adam: the losses, the probe and the seconds."""
    model = assemble_cnn(torch, conv2d)
    with torch.no_grad():
        probe = flat(model[0](probe_input(torch, 2, 1, 8, 8)))
    images, labels = load_digits("train")
    optimizer = torch.optim.Adam(model.parameters(), lr=CNN_LR)
    losses = []
    start = time.perf_counter()
    for step, group in enumerate(batches, 1):
        x = torch.tensor([images[i] for i in group]).view(-1, 1, 8, 8) / 16
        y = torch.tensor([labels[i] for i in group])
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        losses.append(loss.item())
        optimizer.step()
        if progress is not None:
            progress(step, len(batches), losses[-1])
    return losses, probe, time.perf_counter() - start


def train_cnn(
    torch: Any, conv2d: Any, progress: Any = None, say_missing: bool = False
) -> Run:
    """The CNN on the student's ``Conv2d``, trained against PyTorch's record;
    a class edition's stub as in :func:`train_gpt`."""
    record = load_record()["cnn"]
    try:
        losses, probe, seconds = run_cnn(torch, conv2d, record["batches"], progress)
    except NotImplementedError as error:
        return stopped("CNN", record, error, {"5.10": conv2d}, say_missing)
    run = Run("CNN", losses, record["losses"], seconds)
    gap = largest_gap(probe, record["probe"])
    if not gap <= PROBE_TOLERANCE or run.left_at is not None:
        run.culprit = "5.10"
        run.why = (
            f"its output on fixed weights and a fixed input is off by {gap:.2g}"
            if not gap <= PROBE_TOLERANCE
            else "its forward agrees, so look at what it trains: its parameters"
        )
    return run


# --- the record -------------------------------------------------------------------


@contextlib.contextmanager
def one_thread(torch: Any) -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def record_runs() -> dict[str, Any]:
    """PyTorch's runs of both models with the model answers."""
    import torch  # only the teacher's recording needs PyTorch

    with one_thread(torch):
        windows = gpt_windows()
        pieces = gpt_model_pieces(torch)
        losses, names, probes, _ = run_gpt(torch, pieces, windows)
        batches = cnn_batches()
        cnn_losses, probe, _ = run_cnn(torch, torch.nn.Conv2d, batches)
    return {
        "recorded_on": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "torch_version": torch.__version__,
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "gpt": {
            "windows": windows,
            "losses": losses,
            "names": names,
            "probes": probes,
        },
        "cnn": {"batches": batches, "losses": cnn_losses, "probe": probe},
    }


def main() -> None:
    record = record_runs()
    text = json.dumps(record, separators=(",", ":"))
    RECORD.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {RECORD} ({len(text) // 1024} KiB)")


if __name__ == "__main__":
    main()
