// The course's additions to the lite site's pages (added by scripts/build_lite.py).
// "Python is loading..." while the in-browser kernel starts: reads the open notebook's kernel through
// window.jupyterapp (exposeAppInBrowser in jupyter-lite.json) and says what is
// happening until the kernel answers; then the note goes away.
// It also makes a cell run before the notebook has its kernel session wait for it:
// JupyterLab would otherwise ask which kernel to use ("Select Kernel").
// And a downloaded notebook keeps its own name (01_arrays_to_tensors.ipynb):
// JupyterLite names the download after the whole path, which the browser turns
// into exercises_01_arrays_to_tensors.ipynb.
// On a first visit, JupyterLite registers its service worker (through which the
// kernel reaches the files kept in the browser) without noting the site's version
// beside it, so the next visit would unregister the worker and register it again,
// and the kernel would wait for it: the version is noted once the worker controls
// the page.
// And the notebook's kernel starts as soon as the application has started, while
// the page is still drawing the notebook (JupyterLab would start it only once the
// notebook has been drawn): the notebook then finds its kernel already starting.
// Sooner still, the kernel's worker is made as the page opens, and it loads
// Python while JupyterLab's own code loads (see startWorkerEarly).
(function () {
  "use strict";
  /** The kernel's worker script, from the site's root (written by the build). */
  const KERNEL_WORKER = null;
  const KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel";
  const root = new URL(".", document.currentScript.src);
  const serviceWorker = navigator.serviceWorker;
  function noteWorkerVersion() {
    let version = null;
    try {
      const data = document.getElementById("jupyter-config-data");
      version = JSON.parse(data.textContent).appVersion;
    } catch (error) {
      return;
    }
    const key = `${serviceWorker.controller.scriptURL}-version`;
    if (version && !localStorage.getItem(key)) localStorage.setItem(key, version);
  }
  if (serviceWorker && !serviceWorker.controller) {
    serviceWorker.addEventListener("controllerchange", noteWorkerVersion, { once: true });
  }
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
  // The notebook named in the address (?path=...), started through the session
  // client (which makes no connection of its own: the notebook's is the only one,
  // and the one that handles widgets' messages). If the notebook asks for its
  // session before this one has started, it gets this one: JupyterLab asks for a
  // session under a temporary path (and shuts down one that comes back under
  // another), so the session takes that path first; JupyterLab then gives it the
  // notebook's path again.
  function startKernelEarly(app) {
    const path = new URLSearchParams(window.location.search).get("path");
    const sessions = app.serviceManager && app.serviceManager.sessions;
    const client = sessions && sessions._sessionAPIClient;
    if (!path || !path.endsWith(".ipynb") || !client || !client.update) return;
    const name = path.split("/").pop();
    const early = client
      .startNew({ path, name, type: "notebook", kernel: { name: "python" } })
      .catch(() => null);
    const startNew = sessions.startNew.bind(sessions);
    sessions.startNew = async function (options, ...rest) {
      if (options && options.name === name) {
        sessions.startNew = startNew; // once: a later kernel starts as usual
        const model = await early;
        if (model) {
          await client.update({ id: model.id, path: options.path }).catch(() => null);
        }
      }
      return startNew(options, ...rest);
    };
  }
  // The kernel's worker, made as soon as the page opens, before JupyterLab has
  // loaded the kernel's code, and told to load Pyodide once the page has its
  // settings: it is sent the worker's own first step (initRuntime, in comlink's
  // message protocol, which the worker speaks) with the options that the kernel
  // will give it, and lite/pyodide_boot.mjs answers the kernel's own call with the
  // Pyodide already loading. When the kernel makes its worker, it gets this one if
  // the address is the same and the worker has not failed; a worker nobody took
  // is ended once the notebook's kernel is up. Only when the site's service worker
  // already controls the page (or the browser has none): a worker made before it
  // does would not reach the files kept in the browser.
  // Its state ("not made", "made", "taken", "failed", "ended") is shown to tests.
  const early = { worker: null, failed: false, state: "not made" };
  window.slowtorchEarlyWorker = early;
  function startWorkerEarly() {
    const path = new URLSearchParams(window.location.search).get("path");
    if (!KERNEL_WORKER || !path || !path.endsWith(".ipynb")) return;
    if (window.crossOriginIsolated || (serviceWorker && !serviceWorker.controller)) return;
    const url = new URL(KERNEL_WORKER, root).href;
    const Native = window.Worker;
    const ID = "slowtorch-early-start";
    early.worker = new Native(url, { type: "module" });
    early.state = "made";
    early.worker.addEventListener("message", (event) => {
      if (event.data && event.data.id === ID && event.data.type !== "RAW") fail();
    });
    early.worker.addEventListener("error", fail);
    function fail() {
      early.failed = true;
      if (early.worker) early.state = "failed";
    }
    window.Worker = new Proxy(Native, {
      construct(target, args, newTarget) {
        const wanted = args[0] && new URL(String(args[0]), document.baseURI).href;
        const worker = early.worker;
        if (worker && !early.failed && wanted === url) {
          early.worker = null; // once: a restarted kernel gets a new worker
          early.state = "taken";
          return worker;
        }
        return Reflect.construct(target, args, newTarget);
      },
    });
    function start(settings) {
      const pyodideUrl = new URL(settings.pyodideUrl, document.baseURI).href;
      const options = {
        pyodideUrl,
        indexUrl: pyodideUrl.slice(0, pyodideUrl.lastIndexOf("/") + 1),
        loadPyodideOptions: settings.loadPyodideOptions || {},
      };
      const message = { id: ID, type: "APPLY", path: ["initRuntime"] };
      message.argumentList = [{ type: "RAW", value: options }];
      if (early.worker) early.worker.postMessage(message);
    }
    // config-utils.js writes the site's settings into the page, then loads JupyterLab.
    const data = document.getElementById("jupyter-config-data");
    const tried = Date.now();
    (function whenConfigured() {
      let settings = null;
      try {
        const plugins = JSON.parse(data.textContent).litePluginSettings || {};
        settings = plugins[KERNEL_PLUGIN];
      } catch (error) {
        settings = null;
      }
      if (settings && settings.pyodideUrl) start(settings);
      else if (Date.now() - tried < 5000) setTimeout(whenConfigured, 10);
    })();
  }
  function endUntakenWorker() {
    if (!early.worker) return;
    early.worker.terminate();
    early.worker = null;
    early.state = "ended";
  }
  startWorkerEarly();
  // A class site has a welcome page (WELCOME.md, beside the exercises): JupyterLab
  // opened at the site's address, with no document named, shows it as text.
  const WELCOME = "WELCOME.md";
  // The welcome page's table of exercises (sitebuild/contents.py writes it with
  // the state a student starts from) gets each exercise's state in this browser:
  // "all right" if its check saved the piece in exercises/my_engine/, "saved" if
  // its notebook was saved here (its copy in the browser's storage is newer than
  // the site's), else "not started" (or "given", the teacher's piece). Filled in
  // when the page opens and each time it is shown again.
  const STATE_HEADER = ["Exercise", "Piece", "Notebook", "State"];
  function stateTable() {
    for (const table of document.querySelectorAll(".jp-RenderedMarkdown table")) {
      const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
      if (heads.join("|") === STATE_HEADER.join("|")) return table;
    }
    return null;
  }
  async function sitesListing(folder) {
    // The site's own listing of a folder (what JupyterLite serves before any save).
    try {
      const response = await fetch(new URL(`api/contents/${folder}/all.json`, root));
      const listing = await response.json();
      return new Map(listing.content.map((item) => [item.path, item.last_modified]));
    } catch (error) {
      return new Map();
    }
  }
  async function showStates(app) {
    const contents = app.serviceManager.contents;
    let table = null;
    for (let tries = 0; tries < 100 && !table; tries++) {
      table = stateTable();
      if (!table) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!table) return;
    const saved = new Set();
    try {
      const folder = await contents.get("exercises/my_engine", { content: true });
      for (const item of folder.content) saved.add(item.path);
    } catch (error) {
      // no piece saved yet
    }
    const served = await sitesListing("exercises");
    const notebooks = new Map();
    for (const row of table.querySelectorAll("tbody tr")) {
      const cells = row.querySelectorAll("td");
      const notebook = cells[2].textContent.trim();
      if (!notebooks.has(notebook)) {
        notebooks.set(
          notebook,
          contents.get(notebook, { content: false }).then(
            (model) => served.has(notebook) && model.last_modified !== served.get(notebook),
            () => false
          )
        );
      }
    }
    for (const row of table.querySelectorAll("tbody tr")) {
      const cells = row.querySelectorAll("td");
      const id = cells[0].textContent.trim();
      const name = cells[1].textContent.trim();
      const file = `exercises/my_engine/ex${id.replace(".", "_")}_${name}.py`;
      const given = row.dataset.given ?? String(cells[3].textContent.trim() === "given");
      row.dataset.given = given;
      let state = given === "true" ? "given" : "not started";
      if (saved.has(file)) state = "all right";
      else if (await notebooks.get(cells[2].textContent.trim())) {
        state = given === "true" ? "given (notebook saved)" : "saved";
      }
      cells[3].textContent = state;
      row.dataset.state = state;
    }
    table.dataset.filled = "true";
  }
  function openWelcome(app) {
    const path = new URLSearchParams(window.location.search).get("path");
    const contents = app.serviceManager && app.serviceManager.contents;
    if (path || !window.location.pathname.includes("/lab/") || !contents) return;
    contents.get(WELCOME, { content: false }).then(
      async () => {
        const widget = await app.commands.execute("docmanager:open", {
          path: WELCOME,
          factory: "Markdown Preview",
        });
        await showStates(app);
        app.shell.currentChanged.connect((shell, change) => {
          if (change.newValue === widget) showStates(app);
        });
      },
      () => null
    );
  }
  // What JupyterLab's pages leave unnamed for assistive technology (axe-core's
  // WCAG 2.1 A/AA rules, run on the class site by tests/browser/test_class_site.py):
  // the cells' editors and the buttons that fold a heading's section get a name,
  // the notebook's list of cells (a "feed") holds articles, the logo link says
  // where it goes, the scrolling Markdown page can be reached and scrolled from
  // the keyboard. Run again when the page changes. (Left: the file browser's
  // toolbar buttons say aria-pressed on an element without a role, which
  // JupyterLab's web components draw.)
  /** Calls fn on root and on every element under it that matches selector. */
  function each(root, selector, fn) {
    if (root.matches && root.matches(selector)) fn(root);
    for (const element of root.querySelectorAll(selector)) fn(element);
  }
  function nameTheUi(root) {
    each(root, ".cm-content[role=textbox]:not([aria-label])", (editor) => {
      const cell = editor.closest(".jp-Cell");
      const kind = cell && cell.classList.contains("jp-MarkdownCell") ? "Markdown" : "Code";
      editor.setAttribute("aria-label", `${kind} of the cell`);
    });
    each(root, "[role=feed] > :not([role])", (cell) => cell.setAttribute("role", "article"));
    each(root, ".jp-collapseHeadingButton:not([aria-label])", (button) => {
      const heading = button.closest("h1, h2, h3, h4, h5, h6");
      const title = heading ? heading.textContent.trim() : "";
      button.setAttribute("aria-label", `Fold or unfold the section ${title}`.trim());
    });
    each(root, "#jp-NotebookLogo:not([aria-label])", (logo) => {
      logo.setAttribute("aria-label", "The site's files");
    });
    each(root, ".jp-MarkdownViewer .jp-RenderedMarkdown:not([tabindex])", (page) => {
      page.tabIndex = 0;
      page.setAttribute("role", "region");
      page.setAttribute("aria-label", "The page's text");
    });
  }
  // At once, for what changed (an observer's callback runs before the page's
  // next task, so nothing reads the page while a new cell is still unnamed).
  function whenChanged(records) {
    const roots = new Set();
    for (const record of records) {
      if (record.type === "attributes") roots.add(record.target.parentElement || record.target);
      for (const node of record.addedNodes) {
        if (node.nodeType === Node.ELEMENT_NODE) roots.add(node.parentElement || node);
      }
    }
    for (const root of roots) if (root.isConnected) nameTheUi(root);
  }
  function watchTheUi() {
    if (!document.body) return;
    new MutationObserver(whenChanged).observe(document.body, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ["role", "aria-label", "tabindex"],
    });
    nameTheUi(document.body);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", watchTheUi);
  } else {
    watchTheUi();
  }
  function whenStarted() {
    const app = window.jupyterapp;
    if (!app || !app.started) {
      setTimeout(whenStarted, 50);
      return;
    }
    app.started.then(() => {
      startKernelEarly(app);
      openWelcome(app);
    });
  }
  whenStarted();
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
    endUntakenWorker();
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
    if (widget && !context) {
      // No notebook is open (a file browser, a launcher, a text): nothing loads.
      note.remove();
      setTimeout(watch, 500);
      return;
    }
    if (!kernel) {
      say(`Python is loading in this tab… (${seconds()} s; you can read meanwhile)`);
      setTimeout(watch, 250);
      return;
    }
    // The kernel that answers may not be the first one seen (JupyterLab can
    // replace the session's kernel while it starts, and a replaced kernel's info
    // never comes): wait for each kernel the notebook has, and take a kernel
    // that has been busy and is idle again (it has run something) as ready too.
    if (kernel.status === "busy") watch.busy = kernel;
    if (watch.busy === kernel && kernel.status === "idle") {
      finish(`Python is ready (${seconds()} s).`);
      return;
    }
    say(`Python is loading in this tab… (${seconds()} s; cells you run now wait for it)`);
    if (watch.kernel !== kernel) {
      watch.kernel = kernel;
      kernel.info.then(
        () => done || finish(`Python is ready (${seconds()} s).`),
        () => done || kernel !== watch.kernel || finish("Python could not start: reload the page.")
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

// JupyterLab's toolbar buttons (the jp-button web component) carry aria-pressed
// on the component itself, where it is not allowed (axe: aria-allowed-attr), and
// the file filter's clear button has no name. The state moves onto the native
// button inside the component, where assistive technology reads it, and only
// when pressed ("false" on a button that is no toggle would call it one); the
// clear button is named.
(function () {
  "use strict";
  function movePressed(host) {
    const value = host.getAttribute("aria-pressed");
    if (value === null) return;
    host.removeAttribute("aria-pressed");
    // The component copies its attribute inward on its next update: after it.
    setTimeout(() => {
      const control = host.shadowRoot && host.shadowRoot.querySelector("button");
      if (!control) return;
      if (value === "true") control.setAttribute("aria-pressed", "true");
      else control.removeAttribute("aria-pressed");
    }, 0);
  }
  function nameClearButton(search) {
    setTimeout(() => {
      const clear = search.shadowRoot && search.shadowRoot.querySelector(".clear-button");
      if (clear && !clear.getAttribute("aria-label")) {
        clear.setAttribute("aria-label", "Clear the filter");
      }
    }, 0);
  }
  function sweep(node) {
    if (node.localName === "jp-button") movePressed(node);
    if (node.localName === "jp-search") nameClearButton(node);
    node.querySelectorAll("jp-button[aria-pressed]").forEach(movePressed);
    node.querySelectorAll("jp-search").forEach(nameClearButton);
  }
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === "attributes") movePressed(record.target);
      record.addedNodes.forEach((node) => node.nodeType === 1 && sweep(node));
    }
  }).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["aria-pressed"],
  });
  if (document.documentElement) sweep(document.documentElement);
})();
