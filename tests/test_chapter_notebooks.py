"""The chapters as notebooks (for JupyterLab on the desktop and in the browser) show
the code the book quotes: no MyST directive is left raw, nested ones included."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbformat.sign import NotebookNotary

from sitebuild import notebooks
from slowtorch_lib.autograd.function import AccumulateGrad

# Converts every chapter to a notebook: the full run only.
pytestmark = pytest.mark.pipeline

ROOT = Path(__file__).resolve().parents[1]
#: A MyST directive (```{name} or :::{name}), anywhere in a line.
DIRECTIVE = re.compile(r"(`{3,}|:{3,})\{[\w:-]+\}")
ROLE = re.compile(r"\{(doc|ref|numref|math)\}`")


@pytest.fixture(scope="module")
def chapters(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    written = notebooks.write_desktop_chapters(tmp_path_factory.mktemp("chapters"))
    assert written, "no chapter was written"
    return written


def test_no_raw_directive_in_any_chapter_notebook(chapters: list[Path]) -> None:
    for path in chapters:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for index, cell in enumerate(notebook["cells"]):
            source = "".join(cell["source"])
            found = DIRECTIVE.search(source)
            assert found is None, f"{path.name}, cell {index}: raw {found.group(0)}"


def test_no_raw_role_in_any_chapter_notebook(chapters: list[Path]) -> None:
    """A role split over two lines (each chapter's link to its exercises) too:
    a link to another notebook of the course becomes a Markdown link."""
    for path in chapters:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for index, cell in enumerate(notebook["cells"]):
            if cell["cell_type"] != "markdown":
                continue
            source = "".join(cell["source"])
            found = ROLE.search(source)
            assert found is None, f"{path.name}, cell {index}: raw {found.group(0)}"
    by_name = {p.name: p for p in chapters}
    text = by_name["01_tensors.ipynb"].read_text(encoding="utf-8")
    assert "(../exercises/01_arrays_to_tensors.ipynb)" in text


def test_nested_quote_is_written_out(chapters: list[Path]) -> None:
    """The quote inside a list item (chapter 2's AccumulateGrad.apply) is code."""
    by_name = {p.name: p for p in chapters}
    text = by_name["02_autograd.ipynb"].read_text(encoding="utf-8")
    cells = json.loads(text)["cells"]
    markdown = "\n".join(
        "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
    )
    source = inspect.getsource(AccumulateGrad.apply)
    first = source.strip().splitlines()
    first = [line for line in first if line.strip().startswith("def apply(")]
    assert first, "AccumulateGrad.apply has no def line"
    # Written out as code, indented like the list item that quotes it.
    assert "  ```python\n" in markdown
    assert "  " + first[0].strip() in markdown


def test_chapter_notebooks_are_runnable_on_the_desktop(chapters: list[Path]) -> None:
    for path in chapters:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        assert notebook["metadata"]["kernelspec"]["name"] == "python3", path.name
        code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
        assert code and all(c["metadata"].get("trusted") for c in code), path.name
        # Signed for this user: the Jupyter server opens it trusted.
        assert NotebookNotary().check_signature(nbformat.read(path, 4)), path.name


def test_desktop_lab_does_not_ask_about_news(tmp_path: Path) -> None:
    from course.lab import write_settings

    path = tmp_path / "share/jupyter/lab/settings/overrides.json"
    write_settings(path)
    settings = json.loads(path.read_text())
    notification = settings["@jupyterlab/apputils-extension:notification"]
    assert notification["fetchNews"] == "false"
