"""The student's own GPT and CNN, refereed by PyTorch's recorded runs.

The model answers on the engine agree with the record step by step; a piece
with a classic mistake makes the curve leave PyTorch's, and the run names
that piece; the record is what PyTorch gives now.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import slowtorch_lib
from course import model_runs
from course.checks import gpt_parts
from tests.parity import require_torch


@pytest.fixture(scope="module")
def answers_run() -> model_runs.Run:
    pieces = model_runs.gpt_model_pieces(slowtorch_lib)
    return model_runs.train_gpt(slowtorch_lib, pieces)


@pytest.mark.slow
def test_the_model_answers_train_as_pytorch_did(answers_run: model_runs.Run) -> None:
    record = model_runs.load_record()["gpt"]
    assert len(answers_run.losses) == model_runs.GPT_STEPS == len(record["losses"])
    assert answers_run.gap < 1e-5
    assert answers_run.names == record["names"] and len(set(record["names"])) > 1
    assert answers_run.culprit is None and answers_run.agrees
    assert answers_run.losses[-1] < answers_run.losses[0] - 0.3  # it learns
    assert "every step's loss equals PyTorch's" in answers_run.report()


def test_every_piece_of_chapter_six_is_on_the_path() -> None:
    """Each piece given is called during the run (a piece that raises makes
    the run raise, naming it)."""
    assert set(model_runs.GPT_PATH) == set(model_runs.GPT_NAMES)
    assert set(model_runs.GPT_PATH) == {f"6.{n}" for n in range(2, 10)}
    pieces = model_runs.gpt_model_pieces(slowtorch_lib)
    engine = slowtorch_lib.nn.functional.attention
    pieces["6.2"], pieces["6.3"] = engine.safe_softmax, engine._composite
    called: set[str] = set()

    def spy(id: str, piece: Any) -> Any:
        if isinstance(piece, type):
            return type(piece.__name__, (piece,), {"__init__": _spied_init(id, called)})

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            called.add(id)
            return piece(*args, **kwargs)

        return wrapper

    spied = {id: spy(id, piece) for id, piece in pieces.items()}
    record = model_runs.load_record()["gpt"]
    model_runs.run_gpt(slowtorch_lib, spied, record["windows"][:1])
    assert called == set(model_runs.GPT_PATH)


def _spied_init(id: str, called: set[str]) -> Any:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        called.add(id)
        super(type(self), self).__init__(*args, **kwargs)

    return __init__


@pytest.mark.slow
def test_a_6_5_that_scales_by_1_over_d_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # gpt_parts' attention divides by math.sqrt(size): make it divide by size
    monkeypatch.setattr(gpt_parts, "math", SimpleNamespace(sqrt=lambda d: d))
    run = model_runs.train_gpt(
        slowtorch_lib, model_runs.gpt_model_pieces(slowtorch_lib)
    )
    assert run.left_at is not None and run.left_at <= 2
    assert run.culprit == "6.5"
    assert "look at exercise 6.5, `CausalSelfAttention`" in run.report()
    assert "leaves PyTorch's at step" in run.report()


@pytest.mark.slow
def test_a_training_loop_that_never_clears_the_gradients_is_named() -> None:
    pieces = model_runs.gpt_model_pieces(slowtorch_lib)

    def piling_up(model: Any, batches: Any, steps: int, lr: float) -> list[float]:
        optimizer = model.configure_optimizers(0.1, lr)
        losses = []
        for inputs, targets in batches[:steps]:
            _, loss = model(inputs, targets)
            loss.backward()  # no zero_grad: each step adds to the last one's
            losses.append(loss.item())
            optimizer.step()
        return losses

    pieces["6.9"] = piling_up
    run = model_runs.train_gpt(slowtorch_lib, pieces)
    assert run.left_at == 3  # step 2's update is the first with piled gradients
    assert run.culprit == "6.9"
    assert "look at exercise 6.9, `train`" in run.report()


@pytest.mark.slow
def test_a_training_loop_that_ignores_configure_optimizers_is_named() -> None:
    pieces = model_runs.gpt_model_pieces(slowtorch_lib)
    answer = pieces["6.9"]

    def own_adamw(model: Any, batches: Any, steps: int, lr: float) -> list[float]:
        return answer(_Plain(model), batches, steps, lr)  # no configure_optimizers

    pieces["6.9"] = own_adamw
    run = model_runs.train_gpt(slowtorch_lib, pieces)
    assert run.left_at == 2 and run.culprit == "6.9"


@pytest.mark.slow
def test_the_cnn_on_the_engines_conv2d_trains_as_pytorch_did() -> None:
    run = model_runs.train_cnn(slowtorch_lib, slowtorch_lib.nn.Conv2d)
    assert run.gap < 1e-5 and run.agrees and run.culprit is None
    assert len(run.losses) == model_runs.CNN_STEPS


@pytest.mark.slow
def test_a_conv2d_without_its_bias_is_named() -> None:
    class NoBias(slowtorch_lib.nn.Conv2d):
        def forward(self, input: Any) -> Any:
            return slowtorch_lib.nn.functional.conv2d(
                input, self.weight, None, self.stride, self.padding
            )

    run = model_runs.train_cnn(slowtorch_lib, NoBias)
    assert run.left_at == 1 and run.culprit == "5.10"
    assert "look at exercise 5.10, `Conv2d`" in run.report()


@pytest.mark.slow
def test_the_record_is_what_pytorch_gives_now() -> None:
    torch = require_torch()
    record = model_runs.load_record()
    assert record["torch_version"].split("+")[0] == torch.__version__.split("+")[0]
    again = model_runs.record_runs()
    assert again["gpt"]["windows"] == record["gpt"]["windows"]
    assert again["gpt"]["names"] == record["gpt"]["names"]
    for ours, theirs in ((again["gpt"], record["gpt"]), (again["cnn"], record["cnn"])):
        gap = model_runs.largest_gap(ours["losses"], theirs["losses"])
        assert gap <= 1e-6, gap
    assert math.isfinite(record["gpt"]["losses"][-1])


def test_the_teachers_guide_says_where_each_piece_runs() -> None:
    guide = (Path(__file__).resolve().parents[1] / "docs" / "teachers.md").read_text()
    for id, where in model_runs.GPT_PATH.items():
        assert f"| {id} | `{model_runs.GPT_NAMES[id]}` | {where} |" in guide


def test_a_run_without_6_8_still_trains_and_says_so() -> None:
    pieces = model_runs.gpt_model_pieces(slowtorch_lib)

    def unwritten(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    pieces["6.8"] = unwritten
    record = model_runs.load_record()["gpt"]
    losses, names, _, _ = model_runs.run_gpt(
        slowtorch_lib, pieces, record["windows"][:2]
    )
    assert names is None and len(losses) == 2


class _Plain:
    """A model seen without its ``configure_optimizers``."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def __call__(self, *args: Any) -> Any:
        return self.model(*args)

    def parameters(self) -> Any:
        return self.model.parameters()


def test_an_unwritten_piece_is_named_not_raised() -> None:
    pieces = model_runs.gpt_model_pieces(slowtorch_lib)

    class Stub(pieces["6.5"]):  # type: ignore[misc, valid-type]
        def forward(self, x: Any) -> Any:
            raise NotImplementedError

    pieces["6.5"] = Stub
    run = model_runs.train_gpt(slowtorch_lib, pieces)
    assert run.unwritten == "6.5" and not run.agrees
    assert run.report().startswith("exercise 6.5, `CausalSelfAttention`, is not")

    def conv2d(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    assert model_runs.train_cnn(slowtorch_lib, conv2d).unwritten == "5.10"


def test_a_class_edition_stub_is_raised_as_it_is() -> None:
    """The class edition's stubs name their exercise and notebook; the class
    chapter shows the book's outputs for a cell that raises one."""
    pieces = model_runs.gpt_model_pieces(slowtorch_lib)

    def stub(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "exercise 6.9, `train`, is not written yet: exercises/06_attention.ipynb"
        )

    pieces["6.9"] = stub
    with pytest.raises(NotImplementedError, match="exercise 6.9"):
        model_runs.train_gpt(slowtorch_lib, pieces)
    # an exercise notebook asks for it in words instead
    run = model_runs.train_gpt(slowtorch_lib, pieces, say_missing=True)
    assert run.unwritten == "6.9" and run.report().startswith(
        "exercise 6.9, `train`, is not written yet: your GPT runs once"
    )


def test_a_class_chapter_runs_the_pieces_the_student_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    assert model_runs.own_gpt_pieces(slowtorch_lib)["6.5"] is (
        gpt_parts.CausalSelfAttention
    )  # the complete engine: the model answers
    (tmp_path / "ex6_5_CausalSelfAttention.py").write_text(
        "class CausalSelfAttention(torch.nn.Module):\n    mine = True\n"
    )
    monkeypatch.setenv("SLOWTORCH_WORKSPACE", str(tmp_path))
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "slowtorch_lib._class" else real(name, *a),
    )
    pieces = model_runs.own_gpt_pieces(slowtorch_lib)
    assert pieces["6.5"].mine and pieces["6.6"] is gpt_parts.Block
