"""The book's chapters as runnable notebooks: the conversion that both the
in-browser course and the desktop (a clone's ``chapters/``, a class edition's)
use.

Every chapter named in ``_toc.yml`` is MyST markdown: converted with jupytext,
``literalinclude`` directives replaced by the code they quote (read from the
engine of ``root``, which may be a class edition's, stubs and all), other
directives and roles by plain Markdown that JupyterLab renders, the book build's
executed outputs copied in when there are some, cells trusted and given stable
ids. The helper modules next to a chapter are copied beside it.
"""

from __future__ import annotations

import ast
import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import yaml
from nbformat.sign import NotebookNotary

from course.book_outputs import BOOK_VERSION
from sitebuild.paths import ROOT, SKIPPED, log

#: The browser kernel's name: notebooks carrying another one open with a dialog.
KERNELSPEC = {
    "name": "python",
    "display_name": "Python (Pyodide)",
    "language": "python",
}

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}[ \t]*(?P<arg>.*)$"
)
ROLE = re.compile(r"\{(?P<role>[\w:-]+)\}`(?P<text>[^`]*)`")


def toc_files() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    files.append(node[key])
            if isinstance(node.get("glob"), str):
                for path in sorted(ROOT.glob(node["glob"])):
                    if path.suffix in {".md", ".ipynb"}:
                        files.append(path.relative_to(ROOT).with_suffix("").as_posix())
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return list(dict.fromkeys(files))


def notebook_source(entry: str) -> Path | None:
    """The notebook behind a TOC entry: .ipynb, or MyST markdown with a kernelspec."""
    for suffix in (".ipynb", ".md"):
        path = ROOT / (entry + suffix)
        if path.is_file():
            if suffix == ".ipynb":
                return path
            head = path.read_text(encoding="utf-8")[:2000]
            if head.startswith("---") and "kernelspec:" in head.split("\n---", 1)[0]:
                return path
    return None


def _pyobject(source: str, dotted: str) -> str | None:
    tree = ast.parse(source)
    nodes: list[ast.AST] = [tree]
    for part in dotted.split("."):
        body = [c for n in nodes for c in getattr(n, "body", [])]
        nodes = [
            n
            for n in body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.name == part
        ]
        if not nodes:
            return None
    node = nodes[0]
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    lines = source.splitlines()[first - 1 : node.end_lineno]
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[indent:] for x in lines)


def _include(
    base: Path, argument: str, options: dict[str, str], root: Path = ROOT
) -> str:
    """The code a ``literalinclude`` quotes, as a fenced block; a file of this
    checkout is read from ``root`` instead (a class edition's, stubs and all)."""
    path = (base / argument.strip()).resolve()
    if root != ROOT and path.is_relative_to(ROOT):
        path = root / path.relative_to(ROOT)
    language = options.get("language", "python" if path.suffix == ".py" else "")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return f"*(The book shows `{argument.strip()}` here.)*"
    if "pyobject" in options:
        code = _pyobject(text, options["pyobject"].strip())
        if code is None:
            return (
                f"*(The book shows `{options['pyobject']}` from `{path.name}` here.)*"
            )
        text = code
    elif "lines" in options:
        keep: list[str] = []
        all_lines = text.splitlines()
        for part in options["lines"].split(","):
            start, _, end = part.strip().partition("-")
            keep += all_lines[int(start) - 1 : int(end or start)]
        text = "\n".join(keep)
    return f"```{language}\n{text.rstrip()}\n```"


def plain_markdown(text: str, base: Path, root: Path = ROOT) -> str:
    """MyST directives and roles as plain Markdown, which JupyterLab renders
    (quoted files of this checkout read from ``root``, see :func:`_include`)."""
    lines = text.split("\n")
    out: list[str] = []
    prose: list[str] = []  # lines outside directives; a role may span two of them
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            prose.append(lines[i])
            i += 1
            continue
        if prose:
            out.append(ROLE.sub(_role, "\n".join(prose)))
            prose = []
        fence, name, argument = match["fence"], match["name"], match["arg"].strip()
        indent = match["indent"]
        body: list[str] = []
        depth = 0
        i += 1
        while i < len(lines):
            inner = FENCE.match(lines[i])
            if (
                inner
                and inner["fence"][0] == fence[0]
                and len(inner["fence"]) == len(fence)
            ):
                depth += 1
            elif lines[i].strip() == fence and depth == 0:
                break
            elif lines[i].strip() == fence:
                depth -= 1
            body.append(
                lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i]
            )
            i += 1
        i += 1
        start = len(out)
        options: dict[str, str] = {}
        while body and re.match(r"^:[\w-]+:", body[0]):
            key, _, value = body.pop(0)[1:].partition(":")
            options[key.strip()] = value.strip()
        if name == "literalinclude":
            out.append(_include(base, argument, options, root))
        elif name in {"math"}:
            out.append("$$\n" + "\n".join(body).strip() + "\n$$")
        elif name in {"code", "code-block", "sourcecode"}:
            out.append(f"```{argument}\n" + "\n".join(body) + "\n```")
        elif name in {"figure", "image"}:
            caption = plain_markdown("\n".join(body), base, root).strip()
            out.append(
                f"![{caption}]({argument})" + (f"\n\n*{caption}*" if caption else "")
            )
        elif name in {"toctree", "tableofcontents", "bibliography", "glue:figure"}:
            continue
        else:
            title = argument or name.replace("-", " ").capitalize()
            inner_text = plain_markdown("\n".join(body), base, root).strip()
            quoted = "\n".join("> " + x if x else ">" for x in inner_text.split("\n"))
            out.append(f"> **{title}**\n>\n{quoted}")
        if indent:
            # A directive inside a list item: its replacement stays in the item.
            out[start:] = [
                "\n".join(indent + x if x else x for x in block.split("\n"))
                for block in out[start:]
            ]
    if prose:
        out.append(ROLE.sub(_role, "\n".join(prose)))
    return "\n".join(out)


def _role(match: re.Match[str]) -> str:
    role, text = match["role"], match["text"]
    if role == "math":
        return f"${text}$"
    label = re.match(r"^(.*?)\s*<([^>]*)>$", text, re.DOTALL)
    if role == "doc" and label:  # another notebook of the course: a link to it
        return f"[{label.group(1)}]({label.group(2)}.ipynb)"
    return (
        f"*{label.group(1) if label else text}*"
        if role in {"ref", "doc", "numref"}
        else (f"`{text}`")
    )


#: Where the book build leaves its executed notebooks (outputs, figures, widgets).
EXECUTED = ROOT / "_build" / "jupyter_execute"
#: The desktop kernel's name, for the chapter notebooks JupyterLab opens.
DESKTOP_KERNELSPEC = {
    "name": "python3",
    "display_name": "Python 3 (ipykernel)",
    "language": "python",
}


def executed_notebook(source: Path) -> Any:
    """The book build's executed copy of a chapter, or None (not built yet)."""
    if source.suffix != ".md":
        return None
    path = EXECUTED / source.relative_to(ROOT).with_suffix(".ipynb")
    if not path.is_file():
        return None
    return nbformat.read(path, as_version=4)


def _add_outputs(notebook: Any, executed: Any) -> int:
    """Copies the executed notebook's outputs into the cells with the same code."""
    built = [c for c in executed.cells if c.cell_type == "code"]
    cells = [c for c in notebook.cells if c.cell_type == "code"]
    if len(built) != len(cells):
        return 0
    copied = 0
    for cell, done in zip(cells, built):
        if cell.source.strip() == done.source.strip():
            cell.outputs = done.outputs
            cell.execution_count = done.execution_count
            copied += 1
    widgets = executed.metadata.get("widgets")
    if widgets:
        notebook.metadata["widgets"] = widgets
        for cell in cells:
            cell.outputs = [finished_bar(o, widgets) or o for o in cell.outputs]
    return copied


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def finished_bar(output: Any, widgets: Any) -> Any:
    """A stored training bar (``course.progress.training_bar``: a box of a
    progress bar and a label) as the reader should see it, finished: plain HTML
    with the bar's last value and words, which shows wherever the notebook is
    opened (a widget's view shows only its raw text where the page has not got
    the widget's state, as in the in-browser course). None for another output."""
    view = (output.get("data") or {}).get(WIDGET_VIEW)
    states = (widgets.get(WIDGET_STATE) or {}).get("state") or {}
    box = states.get((view or {}).get("model_id"), {})
    if box.get("model_name") != "HBoxModel":
        return None
    children = [
        states.get(str(child).removeprefix("IPY_MODEL_"), {})
        for child in box.get("state", {}).get("children", [])
    ]
    kinds = [child.get("model_name") for child in children]
    if kinds != ["IntProgressModel", "LabelModel"]:
        return None
    bar, label = (child.get("state", {}) for child in children)
    name, words = str(bar.get("description", "")), str(label.get("value", ""))
    value, top = int(bar.get("value", 0)), int(bar.get("max", 100))
    escaped = html.escape(words)
    return nbformat.v4.new_output(
        "display_data",
        data={
            "text/plain": f"{name}: {words}",
            "text/html": (
                f'<div><label>{html.escape(name)} <progress value="{value}" '
                f'max="{top}">{value}/{top}</progress></label> {escaped}</div>'
            ),
        },
    )


def write_notebook(
    source: Path,
    target: Path,
    kernelspec: dict[str, str] | None = None,
    with_outputs: bool = True,
    root: Path = ROOT,
) -> None:
    """A runnable notebook from a chapter (MyST) or an exercise notebook: quoted code
    written out (read from ``root``'s files), plain Markdown, the book build's
    outputs when there are some, cells trusted (they are the course's own), stable
    cell ids."""
    notebook = jupytext.read(source)
    for index, cell in enumerate(notebook.cells):
        # Unique in a folder: the browser's matplotlib stand-in finds a cell's
        # stored figures by its id.
        cell["id"] = f"{source.stem[:50]}-{index}"
        if cell.cell_type == "markdown":
            cell.source = plain_markdown(cell.source, source.parent, root)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata["trusted"] = True
    executed = executed_notebook(source) if with_outputs else None
    if executed is not None:
        _add_outputs(notebook, executed)
    class_chapter = root != ROOT and source.suffix == ".md"
    if class_chapter:
        notebook.cells.insert(0, _keep_book_outputs_cell(source.stem))
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["kernelspec"] = dict(kernelspec or KERNELSPEC)
    notebook.metadata["language_info"] = {"name": "python"}
    notebook.nbformat, notebook.nbformat_minor = 4, 5
    nbformat.validate(notebook)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Written as it is: nbformat.write would drop the cells' "trusted" flag, which is
    # what JupyterLite reads (a Jupyter server checks its signature instead).
    text = json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    target.write_text(text, encoding="utf-8")
    if class_chapter:  # the book's version, which the chapter shows and restores
        kept = target.parent / BOOK_VERSION / target.name
        kept.parent.mkdir(exist_ok=True)
        kept.write_text(text, encoding="utf-8")


#: The first cell of a class edition's chapter (see course/book_outputs.py).
KEEP_BOOK_OUTPUTS = """\
# Where your engine lacks a piece this chapter needs, a cell shows the book's
# output, and says which exercise makes it run on your engine.
# book_outputs.restore({chapter!r}) puts this notebook back as the book has it.
from course import book_outputs

book_cells = book_outputs.keep({chapter!r})  # the cells that have the book's output"""


def _keep_book_outputs_cell(chapter: str) -> Any:
    cell = nbformat.v4.new_code_cell(KEEP_BOOK_OUTPUTS.format(chapter=chapter))
    cell["id"] = f"{chapter[:50]}-book-outputs"
    cell.metadata["trusted"] = True
    return cell


#: Where the set-up writes the chapters as notebooks for desktop JupyterLab
#: (git-ignored; the MyST files in book/ stay the source).
CHAPTERS = ROOT / "chapters"


def trust(path: Path) -> None:
    """Signs a notebook for this user's Jupyter, so that it opens trusted."""
    try:
        NotebookNotary().sign(nbformat.read(path, as_version=4))
    except Exception as error:  # noqa: BLE001 - untrusted only means a warning there
        log(f"could not mark {path.name} as trusted: {error}")


def write_desktop_chapters(
    folder: Path = CHAPTERS, root: Path = ROOT, sign: bool = True
) -> list[Path]:
    """Every chapter as a runnable notebook for JupyterLab on the desktop, the
    engine's code it quotes read from ``root`` (a class edition's, for its
    ``chapters/``); signed as trusted for this user if ``sign``."""
    written = []
    for entry in toc_files():
        source = notebook_source(entry)
        if source is None or source.suffix != ".md":
            continue
        target = folder / source.with_suffix(".ipynb").name
        write_notebook(source, target, DESKTOP_KERNELSPEC, root=root)
        if sign:
            trust(target)
        written.append(target)
    return written


def copy_helpers(folder: Path, target: Path) -> None:
    """The helper modules and data next to a notebook (book/ch01/...), for imports."""
    for path in folder.iterdir():
        if path.name in SKIPPED or path.name.startswith((".", "_")):
            continue
        if path.is_dir():
            shutil.copytree(
                path,
                target / path.name,
                ignore=shutil.ignore_patterns(*SKIPPED, "*.pyc"),
            )
        elif path.suffix not in {".md", ".ipynb"} or path.name == "README.md":
            if path.suffix == ".md" and notebook_source(str(path.with_suffix(""))):
                continue
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / path.name)
