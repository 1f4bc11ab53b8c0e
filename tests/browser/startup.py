"""Opening a notebook of the lite site and running its first cell as soon as it
shows, timed, with where the time went: shared by the browser tests and
``python -m bench.startup``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, NamedTuple

from tests.browser.serving import HTML

#: Starting the kernel and running a notebook take long on a busy 2-core machine.
KERNEL_TIMEOUT = 240_000
LITE = HTML / "lite"


def chapters() -> list[str]:
    """The book's chapters in the lite site (known without a build: the TOC)."""
    listing = LITE / "lite-notebooks.json"
    if listing.is_file():
        return [p for p in json.loads(listing.read_text()) if p.startswith("book/")]
    return ["book/(no build)"]


CLEAR_OUTPUTS = """() => {
  const cells = jupyterapp.shell.currentWidget.content.model.cells;
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type === 'code') { c.outputs.clear(); c.executionCount = null; } } }"""

FIRST_CELL_RAN = """() => { const w = jupyterapp.shell.currentWidget;
  const cells = w.content.model.cells;
  for (let i = 0; i < cells.length; i++) { const c = cells.get(i);
    if (c.type === 'code') return c.executionCount !== null; }
  return false; }"""
RUN_FIRST_CODE_CELL = """() => { const panel = jupyterapp.shell.currentWidget;
  const cells = panel.content.model.cells;
  let index = 0;
  while (cells.get(index).type !== 'code') index += 1;
  panel.content.activeCellIndex = index;
  return jupyterapp.commands.execute('notebook:run-cell'); }"""


#: The kernel's folder, and whether it sees the open notebook's file there.
STORED_FILES = """import os
print(os.getcwd(), any(name.endswith(".ipynb") for name in os.listdir()))"""
#: The kernel worker's start-up steps (lite/pyodide_boot.mjs), as printed by Python.
STARTUP_STEPS = """import js, json
print(json.dumps(getattr(js, "slowtorchStartup", js.Array.new()).to_py()))"""
RUN_IN_KERNEL = """(code) => new Promise((resolve) => {
  const kernel = jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({code, silent: false, store_history: false});
  let text = "";
  future.onIOPub = (m) => { if (m.content && m.content.text) text += m.content.text; };
  future.done.then(() => resolve(text)); })"""


def breakdown(page: Any, first: float, steps: list[tuple[str, float]]) -> str:
    """Where the start-up went, in seconds from opening the page, from the kernel
    worker's ``steps``."""
    origin = page.evaluate("() => performance.timeOrigin")
    marks = [
        ("page: notebook shown", page.evaluate("() => window.slowtorchShown || 0")),
    ]
    marks += [(step, at - origin) for step, at in steps]
    parts = [f"{name} {at / 1000:.1f}" for name, at in marks if at > 0]
    return "; ".join(parts + [f"first cell ran {first:.1f}"])


JEDI_LOADED = """import asyncio, sys
from IPython import get_ipython
for _ in range(600):
    if get_ipython().Completer.use_jedi and "jedi" in sys.modules:
        break
    await asyncio.sleep(0.1)
print(get_ipython().Completer.use_jedi)"""
COMPLETE = """([code]) => new Promise((resolve) => {
  const kernel = jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  kernel.requestComplete({code, cursor_pos: code.length}).then(
    (reply) => resolve(reply.content.matches)); })"""


def check_completion(page: Any) -> None:
    """Completion works before jedi has loaded (IPython's own completer) and after
    (jedi completes a module's names without importing it)."""
    assert "print" in page.evaluate(COMPLETE, ["pri"])
    assert page.evaluate(RUN_IN_KERNEL, JEDI_LOADED).strip() == "True"
    code = "import slowtorch_lib.optim.muon\nslowtorch_lib.optim.muon.newton_"
    assert "newton_schulz" in page.evaluate(COMPLETE, [code])


#: The notebook's sessions and kernels: ``[[path, kernel id]], [kernel id]``.
SESSIONS = """async () => { const manager = jupyterapp.serviceManager;
  await manager.sessions.refreshRunning(); await manager.kernels.refreshRunning();
  return [[...manager.sessions.running()].map(s => [s.path, s.kernel.id]),
          [...manager.kernels.running()].map(k => k.id)]; }"""


def one_kernel(page: Any, path: str) -> None:
    """The page started one kernel, the notebook's (the course's page starts it
    before JupyterLab would, and JupyterLab must not start another)."""
    sessions, kernels = page.evaluate(SESSIONS)
    assert len(kernels) == 1, f"{len(kernels)} kernels: {sessions}"
    assert sessions == [[path, kernels[0]]], sessions
    widget = "jupyterapp.shell.currentWidget.sessionContext.session.kernel.id"
    assert page.evaluate(f"() => {widget}") == kernels[0]


class FirstCell(NamedTuple):
    """A notebook opened and its first cell run."""

    #: From opening the page to the first executed cell.
    seconds: float
    #: Where the time went: each step's time from opening the page.
    steps: str
    #: What became of the kernel worker that the page made early
    #: (``lite/loading.js``): "not made", "made", "taken", "failed" or "ended".
    early_worker: str


def open_and_run_first_cell(context: Any, site: str, path: str) -> FirstCell:
    """Seconds from opening a notebook to its first executed cell, run as soon as
    the notebook shows (before Python is up): the page says Python is loading, and
    no dialog asks which kernel to use; one kernel started, its worker loaded
    Pyodide once and reaches the files kept in the browser, and the site's service
    worker was not registered again."""
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    try:
        opened = time.monotonic()
        page.goto(f"{site}lite/notebooks/index.html?path={path}")
        page.wait_for_function(
            "() => window.jupyterapp && jupyterapp.shell.currentWidget"
            " && jupyterapp.shell.currentWidget.content"
            " && jupyterapp.shell.currentWidget.content.model"
            " && jupyterapp.shell.currentWidget.content.model.cells.length > 0",
            timeout=KERNEL_TIMEOUT,
            polling=100,
        )
        page.evaluate("() => { window.slowtorchShown = performance.now(); }")
        note = page.locator("#slowtorch-loading")
        # (30 s: on a busy machine the note can come late; it must come.)
        assert "Python is loading" in note.inner_text(timeout=30_000)
        # The notebook's file has loaded (with the book's outputs): cleared, a cell
        # has run when it has an execution count again.
        page.evaluate("() => jupyterapp.shell.currentWidget.context.ready")
        page.evaluate(CLEAR_OUTPUTS)
        page.evaluate(RUN_FIRST_CODE_CELL)
        page.wait_for_function(FIRST_CELL_RAN, timeout=KERNEL_TIMEOUT, polling=100)
        seconds = time.monotonic() - opened
        assert page.locator(".jp-Dialog").count() == 0, (
            f"a dialog opened: {page.locator('.jp-Dialog').first.inner_text()}"
        )
        page.wait_for_function(
            "() => !document.querySelector('#slowtorch-loading')"
            " || document.querySelector('#slowtorch-loading').textContent"
            ".includes('ready')",
            timeout=30_000,
        )
        steps = json.loads(page.evaluate(RUN_IN_KERNEL, STARTUP_STEPS))
        loads = [step for step, _ in steps if step == "worker: Pyodide loading"]
        assert len(loads) == 1, f"the kernel's worker loaded Pyodide {len(loads)} times"
        one_kernel(page, path)
        again = [text for text in console if "unregistering" in text]
        assert not again, f"the service worker was registered again: {again}"
        # The kernel reaches the files kept in the browser (its worker may have been
        # made before JupyterLab loaded: lite/loading.js).
        where = page.evaluate(RUN_IN_KERNEL, STORED_FILES).split()
        assert where[:2] == [f"/drive/{Path(path).parent}", "True"], where
        check_completion(page)
        early = page.evaluate("() => window.slowtorchEarlyWorker.state")
        return FirstCell(seconds, breakdown(page, seconds, steps), early)
    finally:
        page.close()
