"""What the class site's welcome page says, and how a stored training bar is
kept, as ``sitebuild`` writes them (no site is built here)."""

from __future__ import annotations

from pathlib import Path

import nbformat

from sitebuild.contents import STATE_HEADER, ClassPiece, class_pieces, exercise_table
from sitebuild.notebooks import KEEP_BOOK_OUTPUTS, WIDGET_STATE, finished_bar

TABLE = '''"""The class edition's pieces."""

from slowtorch_lib._class.saved_pieces import Piece, load_saved_pieces

PIECES = {
    "1.5": Piece(
        "1.5", "contiguous_strides", "slowtorch_lib._strides.x", "exercises/01_a.ipynb"
    ),
    "2.9": Piece(
        "2.9", "topological_order", "slowtorch_lib.autograd.y", "exercises/02_b.ipynb"
    ),
}
GIVEN = ("1.5",)  # shipped with the engine's own code
'''


def test_the_pieces_and_what_the_teacher_gave_are_read_from_the_edition(
    tmp_path: Path,
) -> None:
    table = tmp_path / "slowtorch_lib" / "_class" / "__init__.py"
    table.parent.mkdir(parents=True)
    table.write_text(TABLE, encoding="utf-8")
    pieces = class_pieces(tmp_path)
    assert pieces == [
        ClassPiece("1.5", "contiguous_strides", "exercises/01_a.ipynb", True),
        ClassPiece("2.9", "topological_order", "exercises/02_b.ipynb", False),
    ]
    # Where course.saved_pieces saves a piece whose check passed.
    assert pieces[1].file == "exercises/my_engine/ex2_9_topological_order.py"
    page = exercise_table(pieces)
    assert "**Your teacher gave 1 of the 2 pieces**: 1.5 `contiguous_strides`" in page
    assert STATE_HEADER in page
    assert "| 1.5 | `contiguous_strides` | `exercises/01_a.ipynb` | given |" in page
    assert (
        "| 2.9 | `topological_order` | `exercises/02_b.ipynb` | not started |" in page
    )
    nothing = exercise_table([ClassPiece("2.9", "t", "e.ipynb", False)])
    assert "**Your teacher gave no piece**: you write all 1 of them." in nothing


def _bar_state(value: int, label: str) -> dict:
    def model(name: str, state: dict) -> dict:
        return {
            "model_name": name,
            "model_module": "@jupyter-widgets/controls",
            "state": state,
        }

    return {
        WIDGET_STATE: {
            "state": {
                "box": model(
                    "HBoxModel", {"children": ["IPY_MODEL_bar", "IPY_MODEL_l"]}
                ),
                "bar": model(
                    "IntProgressModel",
                    {"value": value, "max": 150, "description": "training"},
                ),
                "l": model("LabelModel", {"value": label}),
            },
            "version_major": 2,
            "version_minor": 0,
        }
    }


def test_a_stored_training_bar_is_kept_finished_as_html() -> None:
    view = nbformat.v4.new_output(
        "display_data",
        data={
            "application/vnd.jupyter.widget-view+json": {"model_id": "box"},
            "text/plain": "HBox(children=(IntProgress(value=0, max=150), Label()))",
        },
    )
    kept = finished_bar(view, _bar_state(150, "step 150/150, loss 2.310, done"))
    assert kept["data"]["text/plain"] == "training: step 150/150, loss 2.310, done"
    shown = kept["data"]["text/html"]
    assert '<progress value="150" max="150">150/150</progress>' in shown
    assert "step 150/150, loss 2.310, done" in shown
    assert "HBox" not in str(kept)
    text = nbformat.v4.new_output("stream", name="stdout", text="24\n")
    assert finished_bar(text, _bar_state(150, "done")) is None


def test_a_chapters_first_cell_shows_no_value() -> None:
    """Its last line is an assignment: no bare count printed under it."""
    import ast

    last = ast.parse(KEEP_BOOK_OUTPUTS.format(chapter="02_autograd")).body[-1]
    assert isinstance(last, ast.Assign)
