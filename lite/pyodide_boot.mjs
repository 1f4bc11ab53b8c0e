// How the in-browser kernel starts Pyodide, for the course. scripts/build_lite.py
// copies this file next to Pyodide (static/pyodide/slowtorch-pyodide.mjs) and
// points jupyter-lite.json's pyodideUrl at it: the Pyodide kernel imports it
// instead of pyodide.mjs and calls its loadPyodide, then imports piplite and its
// own Python package. What changes:
// - the packages that the kernel names in loadPyodideOptions.packages (the lock
//   file serves them with their byte code) load while Pyodide starts, except
//   the ones deferred below: slowtorch_lite loads those once the first cell has
//   run (jedi only completes code; nothing needs it at start);
// - while the kernel starts, Python does not look for modules in the notebook's
//   folder (each look there is a request answered by the page, and the kernel
//   imports some hundred modules): slowtorch_lite puts the folder back on
//   sys.path, last, when the kernel is up;
// - each step is time-stamped in globalThis.slowtorchStartup (in the kernel's
//   worker: [step, milliseconds since 1970]), which the browser test prints;
// - the page may call the kernel's first step itself, before JupyterLab has
//   loaded (lite/loading.js): the kernel's own call, with the same options, then
//   gets the Pyodide already loading (or loaded) instead of loading another. A
//   load that failed is not kept: the kernel's call tries again.
import { loadPyodide as loadPyodideItself } from "./pyodide.mjs";

/** Packages named in the settings but loaded after the first cell. */
const DEFERRED = ["jedi"];

const steps = [];
globalThis.slowtorchStartup = steps;

function mark(step) {
  steps.push([step, performance.timeOrigin + performance.now()]);
}

function markAfter(promise, step) {
  return promise.then((result) => {
    mark(step);
    return result;
  });
}

/** Names the kernel's start-up steps after the Python code it runs. */
function stepOf(code) {
  if (code.includes("import pyodide_kernel")) return "kernel ready (IPython imported)";
  if (code.includes("piplite")) return "piplite imported";
  return null;
}

/** The Pyodide this worker is loading: { key, pyodide } (a promise), or null. */
let loading = null;

export function loadPyodide(options = {}) {
  const key = JSON.stringify([options.indexURL, options.packages || []]);
  if (loading && loading.key === key) {
    mark("worker: the kernel asks for the Pyodide the page started");
    return loading.pyodide;
  }
  const pyodide = start(options);
  loading = { key, pyodide };
  pyodide.catch(() => {
    if (loading && loading.pyodide === pyodide) loading = null;
  });
  return pyodide;
}

async function start(options) {
  mark("worker: Pyodide loading");
  const packages = (options.packages || []).filter((name) => !DEFERRED.includes(name));
  const pyodide = await loadPyodideItself({ ...options, packages });
  mark("Pyodide and its preloaded packages ready");
  pyodide.runPython("import sys\nwhile '' in sys.path:\n    sys.path.remove('')");
  const run = pyodide.runPythonAsync.bind(pyodide);
  pyodide.runPythonAsync = (code, ...rest) => {
    const step = typeof code === "string" ? stepOf(code) : null;
    return step ? markAfter(run(code, ...rest), step) : run(code, ...rest);
  };
  return pyodide;
}

export * from "./pyodide.mjs";
