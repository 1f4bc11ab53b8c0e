"""What the course's notebooks need when they run in the browser (JupyterLite, Pyodide).

The in-browser kernel loads this module as an IPython extension when it starts (the
wheel installs ``etc/ipython/ipython_config.py``, which names it). Outside Pyodide
(``sys.platform != "emscripten"``) loading it changes nothing. Under Pyodide it:

- renders ``graphviz`` objects: the ``dot`` program cannot run in a browser, so the
  DOT source goes to Graphviz compiled to WebAssembly (the npm package ``@viz-js/viz``,
  served by the site next to Pyodide) and comes back as SVG, synchronously once the
  renderer has loaded (it loads before the first cell that may draw a graph, not
  with the kernel, so that the kernel starts sooner);
- completes code with jedi once the first cell has run: the kernel starts without
  it (``lite/pyodide_boot.mjs`` defers it), so IPython's own completer answers until
  then;
- puts the notebook's folder back on ``sys.path`` (the start-up leaves it out), at
  the end: modules next to the notebook can be imported as on the desktop, but
  each look into a folder of the browser's storage is a request answered by the
  page, so Python looks there last, after the installed packages (IPython would
  put it before them, and the kernel's own imports at start would look there
  first, but the kernel's settings tell it not to; importing the engine with the
  folder first took 0.3 to 0.5 s longer);
- limits recursion to CPython's default depth (1000), so that a runaway recursion
  raises ``RecursionError`` instead of overflowing the browser's stack;
- lets a cell tagged ``raises-exception`` (a chapter's deliberate error) show its
  traceback without stopping "Run All": JupyterLite drops every queued cell after an
  error reply, whatever the cell's tag says, so for those cells the traceback is
  printed (as the error output would show it) and the reply says the cell ran;
- stands in for ``matplotlib`` when the browser cannot load it (offline: its
  WebAssembly wheels live on Pyodide's CDN): the cell runs, and ``plt.show()`` shows
  the figure the book built for that cell again (the notebooks carry the book's
  outputs) with a note saying why no new one could be drawn, or a one-line note
  when there is none; a figure saved into a picture (a widget's) becomes a blank
  grey picture of the figure's size (an empty one would show as a broken image)
  and a note says why. Online the real matplotlib is loaded and plots work.
"""

from __future__ import annotations

import asyncio
import importlib.abc
import importlib.machinery
import json
import os
import re
import struct
import subprocess
import sys
import types
import zlib
from typing import Any

__all__ = ["load_ipython_extension", "ready", "render_svg"]

#: Where the renderer lives, relative to the folder that holds Pyodide.
VIZ_PATH = "viz.js"
#: Shown instead of a figure when matplotlib cannot be loaded.
MATPLOTLIB_NOTE = (
    "(No figure here: matplotlib cannot be loaded in the browser while offline. "
    "Online, this cell draws it.)"
)
#: Shown under the book's figure, kept when a plotting cell runs again offline.
KEPT_NOTE = (
    "(The figure above is the one the book built: matplotlib cannot be loaded in "
    "the browser while offline, so this cell could not draw a new one. Online, "
    "it does.)"
)
#: Said once per cell when a figure is saved to a file or buffer offline.
SAVED_NOTE = (
    "(The pictures here are blank: matplotlib cannot be loaded in the browser "
    "while offline, so they could not be drawn. Online, this cell draws them.)"
)
#: matplotlib's default figure size (inches) and resolution (dots per inch).
DEFAULT_FIGSIZE = (6.4, 4.8)
DEFAULT_DPI = 100
#: The colour of a blank picture (RGB).
BLANK_RGB = (238, 238, 238)
#: Output types of a stored figure.
FIGURE_TYPES = ("image/png", "image/svg+xml")
#: Modules replaced by a stand-in when they cannot be imported.
STAND_IN_MODULES = ("matplotlib", "mpl_toolkits", "pylab")

_state: dict[str, Any] = {"viz": None, "error": None}


def _pyodide_base_url() -> str:
    """The URL of the folder that holds Pyodide (and, next to it, the renderer)."""
    import js  # type: ignore[import-not-found]

    try:
        import pyodide_js  # type: ignore[import-not-found]

        base = str(pyodide_js._api.config.indexURL)
        if base:
            return base
    except Exception:  # noqa: BLE001 - fall back on the worker's own address
        pass
    href = str(js.location.href)
    return href.split("/extensions/")[0] + "/static/pyodide/"


async def _load_viz() -> Any:
    from pyodide.code import run_js  # type: ignore[import-not-found]

    url = _pyodide_base_url() + VIZ_PATH
    try:
        module = await run_js(f"import({url!r})")
        _state["viz"] = await module.instance()
    except Exception as error:  # noqa: BLE001 - reported when a graph is drawn
        _state["error"] = f"{type(error).__name__}: {error}"
    return _state["viz"]


async def ready() -> bool:
    """Waits until the Graphviz renderer has loaded; True when it can draw."""
    if _state["viz"] is None and _state["error"] is None:
        await _load_viz()
    return _state["viz"] is not None


def render_svg(source: str, engine: str = "dot") -> str:
    """Renders DOT source to SVG with the in-browser Graphviz.

    Raises:
        RuntimeError: If the renderer has not loaded (yet, or at all).
        ValueError: If Graphviz rejects the source.
    """
    from pyodide.ffi import JsException, to_js  # type: ignore[import-not-found]

    viz = _state["viz"]
    if viz is None:
        reason = (
            _state["error"] or "it is still loading; run the cell again in a moment"
        )
        raise RuntimeError(
            f"the in-browser Graphviz renderer is not available: {reason}"
        )
    import js

    options = to_js(
        {"format": "svg", "engine": engine}, dict_converter=js.Object.fromEntries
    )
    try:
        return str(viz.renderString(source, options))
    except JsException as error:
        raise ValueError(f"Graphviz could not draw this graph: {error}") from None


def _run_check(original: Any) -> Any:
    """A stand-in for graphviz's ``execute.run_check``: ``dot -Tsvg`` in the browser."""

    def run_check(cmd: Any, *args: Any, **kwargs: Any) -> subprocess.CompletedProcess:
        words = [str(word) for word in cmd]
        formats = [w[2:] for w in words if w.startswith("-T")]
        engines = [w[2:] for w in words if w.startswith("-K")]
        data = kwargs.get("input")
        lines = kwargs.get("input_lines")
        if data is None and lines is not None:
            parts = list(lines)
            data = (
                b"".join(parts)
                if parts and isinstance(parts[0], bytes)
                else "".join(parts)
            )
        if not words or os.path.basename(words[0]) != "dot" or data is None or args:
            return original(cmd, *args, **kwargs)
        fmt = formats[0].split(":")[0] if formats else "svg"
        if fmt != "svg":
            raise RuntimeError(f"in the browser graphs render as SVG only, not {fmt!r}")
        encoding = kwargs.get("encoding")
        source = data if isinstance(data, str) else bytes(data).decode("utf-8")
        try:
            svg = render_svg(source, engines[0] if engines else "dot")
        except ValueError as error:
            raise subprocess.CalledProcessError(1, words, stderr=str(error)) from None
        stdout: str | bytes = svg if encoding else svg.encode("utf-8")
        stderr: str | bytes = "" if encoding else b""
        return subprocess.CompletedProcess(words, 0, stdout=stdout, stderr=stderr)

    run_check.slowtorch_lite = True  # type: ignore[attr-defined]
    return run_check


def _patch_graphviz() -> None:
    """Routes graphviz's ``dot`` calls to the in-browser renderer."""
    try:
        from graphviz.backend import execute  # type: ignore[import-untyped]
    except ImportError:
        return
    if not getattr(execute.run_check, "slowtorch_lite", False):
        execute.run_check = _run_check(execute.run_check)
    # Code that checks for the program first (shutil.which("dot")) finds a stand-in:
    # it is never run, graphviz's calls to it end up above.
    folder = "/usr/local/bin"
    os.makedirs(folder, exist_ok=True)
    stand_in = os.path.join(folder, "dot")
    if not os.path.exists(stand_in):
        with open(stand_in, "w", encoding="utf-8") as file:
            file.write("#!/bin/sh\n# Graphviz runs as WebAssembly in the browser.\n")
        os.chmod(stand_in, 0o755)
    path = os.environ.get("PATH", "")
    if folder not in path.split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join(p for p in (folder, path) if p)


class _Absorber:
    """Stands in for any matplotlib object: every call and attribute gives another."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, name: str) -> _Absorber:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Absorber(f"{self._name}.{name}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        last = self._name.rsplit(".", 1)[-1]
        if last == "show":
            _show_built_figures()
            return None
        if last == "savefig":
            _save_blank(self._size, args, kwargs)
            _once_per_cell("saved", SAVED_NOTE)
            return None
        if last in ("figure", "subplots") and "figsize" in kwargs:
            _state["figsize"] = tuple(kwargs["figsize"])
        if last == "subplots":
            rows = args[0] if args else kwargs.get("nrows", 1)
            cols = args[1] if len(args) > 1 else kwargs.get("ncols", 1)
            count = rows * cols
            axes: Any = _Absorber("axes") if count == 1 else _AbsorberList(count)
            return _Absorber("figure"), axes
        return _Absorber(f"{self._name}()")

    @property
    def _size(self) -> tuple[float, float]:
        """The size in inches of the figure drawn last (matplotlib's default)."""
        width, height = _state.get("figsize") or DEFAULT_FIGSIZE
        return float(width), float(height)

    def __getitem__(self, key: Any) -> _Absorber:
        return _Absorber(f"{self._name}[]")

    def __iter__(self) -> Any:
        return iter(())

    def __enter__(self) -> _Absorber:
        return self

    def __exit__(self, *args: Any) -> None:
        return None

    def __repr__(self) -> str:
        return "<matplotlib is not available offline>"


def _running_cell() -> str | None:
    """The id of the cell being run (JupyterLab sends it with the request)."""
    try:
        from IPython import get_ipython

        parent = get_ipython().kernel.get_parent()
        return str((parent.get("metadata") or {}).get("cellId") or "") or None
    except Exception:  # noqa: BLE001 - outside a notebook there is no cell
        return None


def built_figures(cell_id: str, folder: str = ".") -> list[dict[str, Any]]:
    """The figures stored for a cell in the notebook files of ``folder`` (the book
    build's outputs, which the course's notebooks carry)."""
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".ipynb"):
            continue
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as file:
                notebook = json.load(file)
        except (OSError, ValueError):
            continue
        for cell in notebook.get("cells", []):
            if cell.get("id") == cell_id:
                return [
                    {k: v for k, v in o["data"].items() if k in FIGURE_TYPES}
                    for o in cell.get("outputs", [])
                    if any(k in FIGURE_TYPES for k in o.get("data", {}))
                ]
    return []


def _once_per_cell(what: str, note: str) -> bool:
    cell = _running_cell()
    if cell is not None and _state.get(what) == cell:
        return False
    _state[what] = cell
    print(note)
    return True


def _show_built_figures() -> None:
    """Offline ``plt.show()``: the book's figures for this cell, and why."""
    cell = _running_cell()
    if cell is not None and _state.get("shown") == cell:
        return
    _state["shown"] = cell
    figures = built_figures(cell) if cell else []
    if not figures:
        print(MATPLOTLIB_NOTE)
        return
    from IPython.display import display

    for data in figures:
        display(data, raw=True)
    print(KEPT_NOTE)


def blank_png(width: int, height: int, rgb: tuple[int, int, int] = BLANK_RGB) -> bytes:
    """A PNG picture of one colour (written by hand: no imaging library offline)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    row = b"\x00" + bytes(rgb) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def blank_svg(width: int, height: int) -> str:
    """An SVG picture of the blank colour that says why it is blank."""
    fill = "#" + bytes(BLANK_RGB).hex()
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
        f'<rect width="100%" height="100%" fill="{fill}"/>'
        '<text x="50%" y="50%" text-anchor="middle" font-family="sans-serif" '
        'font-size="12">No figure offline: the book\'s page shows it.</text></svg>'
    )


def _save_blank(size: tuple[float, float], args: Any, kwargs: dict[str, Any]) -> None:
    """What ``savefig`` writes offline: a blank picture where the figure would be."""
    target = args[0] if args else kwargs.get("fname")
    if target is None:
        return
    name = str(target) if isinstance(target, (str, os.PathLike)) else ""
    fmt = str(kwargs.get("format") or os.path.splitext(name)[1][1:] or "png").lower()
    dpi = kwargs.get("dpi")
    scale = float(dpi) if isinstance(dpi, (int, float)) else DEFAULT_DPI
    width, height = (max(1, round(side * scale)) for side in size)
    if fmt == "svg":
        data: bytes | str = blank_svg(width, height)
    elif fmt == "png":
        data = blank_png(width, height)
    else:
        return
    if name:
        mode = "w" if isinstance(data, str) else "wb"
        with open(name, mode) as file:
            file.write(data)
    elif hasattr(target, "write"):
        try:
            target.write(data)
        except TypeError:
            target.write(data.encode() if isinstance(data, str) else data.decode())


class _AbsorberList(list):  # type: ignore[type-arg]
    def __init__(self, count: int) -> None:
        super().__init__(_Absorber("axes[]") for _ in range(count))

    def __getattr__(self, name: str) -> _Absorber:
        return _Absorber(f"axes.{name}")

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, int):
            return list.__getitem__(self, key)
        return _Absorber("axes[]")


class _StandInModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Absorber(f"{self.__name__}.{name}")


class _StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on ``sys.meta_path``: used only when the real package is not there."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname.split(".")[0] not in STAND_IN_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: Any) -> types.ModuleType:
        module = _StandInModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


def _install_stand_ins() -> None:
    if not any(isinstance(finder, _StandInFinder) for finder in sys.meta_path):
        sys.meta_path.append(_StandInFinder())


#: Cells that may draw a graph wait for the renderer before they run.
GRAPH_CODE = re.compile(r"graphviz|make_dot|Digraph|\bdot\b")


def _quiet(*args: Any) -> None:
    return None


def _patch_package_loading() -> None:
    """Before each cell: wait for the renderer if the cell may draw, and load the
    packages it imports without console errors for the ones that cannot be had
    offline (their import then fails, or finds a stand-in, in the cell itself)."""
    kernel = sys.modules.get("pyodide_kernel.kernel")
    original = getattr(kernel, "_load_packages_from_imports", None)
    if original is None or getattr(original, "slowtorch_lite", False):
        return
    import js
    from pyodide.ffi import create_proxy, to_js

    quiet = create_proxy(_quiet)
    options = to_js({"errorCallback": quiet}, dict_converter=js.Object.fromEntries)

    async def load_packages_from_imports(code: str, *args: Any) -> Any:
        if GRAPH_CODE.search(code):
            await ready()
        try:
            return await original(code, options)
        except Exception:  # noqa: BLE001 - the import fails in the cell, with a message
            return None

    load_packages_from_imports.slowtorch_lite = True  # type: ignore[attr-defined]
    kernel._load_packages_from_imports = load_packages_from_imports


#: The cell tag of a deliberate error (honoured by JupyterLab, nbval and myst-nb).
RAISES_TAG = "raises-exception"


def _expects_error(parent: Any) -> bool:
    """Whether the cell being run is tagged as raising (its execute request)."""
    try:
        tags = (parent.get("metadata") or {}).get("tags") or []
        return RAISES_TAG in list(tags)
    except (AttributeError, TypeError):
        return False


async def _load_jedi(shell: Any) -> None:
    """Loads jedi and gives it to IPython's completer, as IPython does at start."""
    try:
        import js
        import pyodide_js  # type: ignore[import-not-found]
        from pyodide.ffi import create_proxy, to_js

        quiet = create_proxy(_quiet)
        options = to_js(
            {"messageCallback": quiet, "errorCallback": quiet},
            dict_converter=js.Object.fromEntries,
        )
        await pyodide_js.loadPackage("jedi", options)
        import jedi  # type: ignore[import-untyped]
        import jedi.api.classes  # type: ignore[import-untyped]
        import jedi.api.helpers  # type: ignore[import-untyped]
        from IPython.core import completer

        completer.jedi = jedi  # type: ignore[attr-defined]
        completer.JEDI_INSTALLED = True
        shell.Completer.use_jedi = True
    except Exception:  # noqa: BLE001 - IPython's own completer keeps answering
        return


def _defer_jedi(shell: Any) -> None:
    """Until jedi has loaded, IPython completes without it."""
    if "jedi" not in sys.modules and getattr(shell, "Completer", None) is not None:
        shell.Completer.use_jedi = False
        _state["jedi"] = shell


def _after_first_cell() -> None:
    shell = _state.pop("jedi", None)
    if shell is not None:
        _state["jedi_task"] = asyncio.ensure_future(_load_jedi(shell))


def _patch_deliberate_errors(kernel: Any) -> None:
    """Makes a tagged cell's error a printed traceback and an "ok" reply."""
    original = getattr(kernel, "run", None)
    if original is None or getattr(original, "slowtorch_lite", False):
        return

    async def run(code: str) -> Any:
        results = await original(code)
        _after_first_cell()
        if results.get("status") != "error" or not _expects_error(kernel.get_parent()):
            return results
        traceback = results.get("traceback") or [
            f"{results.get('ename')}: {results.get('evalue')}"
        ]
        sys.stderr.write("\n".join(str(line) for line in traceback) + "\n")
        return {"payload": results.get("payload", []), "status": "ok"}

    run.slowtorch_lite = True  # type: ignore[attr-defined]
    kernel.run = run


def load_ipython_extension(shell: Any) -> None:
    """Sets the kernel up for the course (only under Pyodide)."""
    if sys.platform != "emscripten":
        return
    # CPython's default depth: Pyodide allows 3000 nested calls, more than the
    # browser's stack holds for some of them (a deep recursion then kills the kernel
    # instead of raising RecursionError, as chapter 2 shows it does).
    sys.setrecursionlimit(min(sys.getrecursionlimit(), 1000))
    # As in a desktop kernel, modules next to the notebook can be imported; they
    # are looked for last (see the module's docstring), not before the installed
    # packages, where IPython puts the folder unless told not to (the kernel's
    # settings tell it not to, so that its own imports at start never look there).
    while "" in sys.path:
        sys.path.remove("")
    sys.path.append("")
    _patch_graphviz()
    _install_stand_ins()
    _patch_package_loading()
    _defer_jedi(shell)
    if getattr(shell, "kernel", None) is not None:
        _patch_deliberate_errors(shell.kernel)
