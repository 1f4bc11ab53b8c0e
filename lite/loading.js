// The course's additions to the lite site's pages (added by scripts/build_lite.py).
// "Python is loading..." while the in-browser kernel starts: reads the open notebook's kernel through
// window.jupyterapp (exposeAppInBrowser in jupyter-lite.json) and says what is
// happening until the kernel answers; then the note goes away.
// It also makes a cell run before the notebook has its kernel session wait for it:
// JupyterLab would otherwise ask which kernel to use ("Select Kernel").
// And a downloaded notebook keeps its own name (01_arrays_to_tensors.ipynb):
// JupyterLite names the download after the whole path, which the browser turns
// into exercises_01_arrays_to_tensors.ipynb.
(function () {
  "use strict";
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function () {
    if (this.download && this.download.includes("/")) {
      this.download = this.download.split("/").pop();
    }
    return click.call(this);
  };
  const RUN = /^(notebook:run|notebook:restart-run|runmenu:run)/;
  function waitForSession(app) {
    if (!app || !app.commands || app.commands.slowtorchWaits) return;
    const execute = app.commands.execute.bind(app.commands);
    app.commands.execute = async function (id, args) {
      if (RUN.test(id)) {
        const widget = app.shell.currentWidget;
        if (widget && widget.sessionContext) await widget.sessionContext.ready;
      }
      return execute(id, args);
    };
    app.commands.slowtorchWaits = true;
  }
  const started = Date.now();
  const note = document.createElement("div");
  note.id = "slowtorch-loading";
  note.setAttribute("role", "status");
  note.style.cssText =
    "position:fixed;bottom:12px;right:12px;z-index:10000;padding:8px 14px;" +
    "border-radius:6px;background:#1a5fb4;color:#fff;font:14px sans-serif;" +
    "box-shadow:0 2px 6px rgba(0,0,0,.3)";
  function say(text) {
    note.textContent = text;
    if (!note.isConnected && document.body) document.body.appendChild(note);
  }
  function seconds() {
    return Math.round((Date.now() - started) / 1000);
  }
  let done = false;
  function finish(text) {
    done = true;
    say(text);
    setTimeout(() => note.remove(), 2500);
  }
  function watch() {
    if (done) return;
    const app = window.jupyterapp;
    waitForSession(app);
    const widget = app && app.shell && app.shell.currentWidget;
    const context = widget && widget.sessionContext;
    const kernel = context && context.session && context.session.kernel;
    if (!kernel) {
      say(`Python is loading in this tab… (${seconds()} s; you can read meanwhile)`);
      setTimeout(watch, 250);
      return;
    }
    say(`Python is loading in this tab… (${seconds()} s; cells you run now wait for it)`);
    if (!watch.waiting) {
      watch.waiting = true;
      kernel.info.then(
        () => finish(`Python is ready (${seconds()} s).`),
        () => finish("Python could not start: reload the page.")
      );
    }
    setTimeout(watch, 500);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", watch);
  } else {
    watch();
  }
})();
