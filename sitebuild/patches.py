"""The changes made to JupyterLite's built code after ``jupyter lite build``.

JupyterLite offers no setting for these, so the build rewrites its bundled
JavaScript and pages in the built site:

- :func:`wait_for_service_worker`: the kernel's start, in the kernel extension's
  bundle (``extensions/@jupyterlite/pyodide-kernel-extension/static/*.js``,
  from jupyterlite-pyodide-kernel). The kernel reaches the files kept in the
  browser (``/drive``) through the site's service worker, and JupyterLite's
  kernel asks whether that worker is registered once, without waiting (a kernel
  that starts first never sees the notebooks or a student's saved pieces): the
  patch makes it wait until the worker controls the page.
- :func:`leave_files_to_the_browser`: the site's service worker
  (``service-worker.js``, from jupyterlite-core's app). It answers only the
  requests for files kept in the browser and leaves the rest to the browser,
  which then keeps Pyodide's compiled WebAssembly between visits.
- :func:`add_loading_note`: the pages that open a notebook (``lab/index.html``,
  ``notebooks/index.html``, from jupyterlite-core's app) load ``lite/loading.js``,
  which says that Python is loading and makes the kernel's worker (the extension's
  ``comlink.worker.*.js``) as the page opens, with Pyodide loading in it.

Each was written against one version of the code it changes, pinned in ``PINS``
(``requirements.txt`` pins the same versions; a test checks that they agree).
The build stops with a message if the built site carries another version
(:func:`check_pin`), or if the code a patch rewrites is not found exactly once
(:func:`patch_once`). ``tests/test_lite_patches.py`` runs each patch on the
installed, pinned bundle.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sitebuild.paths import KERNEL_EXTENSION, LITE, OUTPUT

#: The versions of JupyterLite's bundles that the patches were written against:
#: the Python package that ships the bundle -> its version. jupyterlite-core ships
#: the app (the service worker, the pages), jupyterlite-pyodide-kernel the kernel's
#: JupyterLab extension. A new version needs each patch checked against its code.
PINS = {
    "jupyterlite-core": "0.8.6",
    "jupyterlite-pyodide-kernel": "0.8.6",
}


def app_version(output: Path = OUTPUT) -> str:
    """The version of jupyterlite-core's app in the built site ``output``."""
    config = json.loads((output / "jupyter-lite.json").read_text(encoding="utf-8"))
    return str(config["jupyter-config-data"].get("appVersion"))


def kernel_extension_version(output: Path = OUTPUT) -> str:
    """The version of the kernel's extension in the built site ``output`` (the
    npm package's, which jupyterlite-pyodide-kernel releases with its own)."""
    path = output / "extensions" / KERNEL_EXTENSION / "package.json"
    return str(json.loads(path.read_text(encoding="utf-8")).get("version"))


def check_pin(package: str, version: str, what: str) -> None:
    """Stops the build unless ``version`` of ``package``'s bundle is the one that
    ``what`` (a patch) was written against."""
    if version != PINS[package]:
        raise SystemExit(
            f"build_lite: {what} was written for {package} {PINS[package]}, but the "
            f"site was built with {package} {version}. Check the patch in "
            "sitebuild/patches.py against the new code (tests/test_lite_patches.py "
            "runs each patch on the installed bundle), then update PINS there and "
            "the pin in requirements.txt."
        )


def patch_once(
    paths: list[Path], pattern: re.Pattern[str], replacement: str, what: str
) -> None:
    """Rewrites the one place among ``paths`` (JupyterLite's built JavaScript)
    that ``pattern`` matches. Stops the build if it matches anywhere else too,
    or nowhere: a new JupyterLite whose code the change no longer fits."""
    changed = []
    for path in paths:
        new, count = pattern.subn(replacement, path.read_text(encoding="utf-8"))
        if count:
            changed.append((path, new, count))
    total = sum(count for _, _, count in changed)
    if total != 1:
        where = [f"{path.name}: {count}" for path, _, count in changed]
        raise SystemExit(
            f"build_lite: {what} should be found once, found {total} times "
            f"{where} in {[str(p) for p in paths]}: a new JupyterLite?"
        )
    path, new, _ = changed[0]
    path.write_text(new, encoding="utf-8")


def kernel_static(output: Path = OUTPUT) -> Path:
    """The built site's folder of the kernel extension's JavaScript."""
    return output / "extensions" / KERNEL_EXTENSION / "static"


# ------------------------------------------------------------------------------------
# The kernel waits for the service worker (jupyterlite-pyodide-kernel)
# ------------------------------------------------------------------------------------

#: The kernel's start in ``KERNEL_EXTENSION`` (its bundled JavaScript): whether the
#: kernel mounts ``/drive`` is read from the service worker manager at once.
MOUNT_DRIVE = re.compile(
    r"(?P<flag>\w+)=!!\(\(null==(?P<manager>\w+)\?void 0:(?P=manager)\.enabled\)"
    r"\|\|crossOriginIsolated\)"
)
#: What it becomes: the kernel mounts ``/drive`` once the worker is registered and
#: controls the page (the kernel's own web worker, started next, is then controlled
#: too: its requests for files reach the service worker). It waits at most 10 s,
#: and not at all in a browser without service workers (where the manager never
#: settles); a page the worker does not control (a forced reload) gets no ``/drive``
#: rather than a kernel whose every file request fails.
WAITED = (
    r"\g<flag>=!!((await (async (m, sw) => {"
    r" if (!m || !sw) return false;"
    r" const controlled = () => sw.controller || new Promise("
    r"r => sw.addEventListener('controllerchange', r, {once: true}));"
    r" await Promise.race([m.ready.then(controlled, () => 0),"
    r" new Promise(r => setTimeout(r, 1e4))]);"
    r" return m.enabled && !!sw.controller;"
    r" })(\g<manager>, navigator.serviceWorker))||crossOriginIsolated)"
)


def wait_for_service_worker(output: Path = OUTPUT) -> None:
    """Makes the kernel wait until the service worker controls the page before it
    decides whether to mount ``/drive`` (see the module's docstring). A second
    run finds nothing to change and stops."""
    what = "the kernel's start (mountDrive)"
    check_pin("jupyterlite-pyodide-kernel", kernel_extension_version(output), what)
    paths = sorted(kernel_static(output).glob("*.js"))
    patch_once(paths, MOUNT_DRIVE, WAITED, what)


# ------------------------------------------------------------------------------------
# The service worker answers only the browser's files (jupyterlite-core)
# ------------------------------------------------------------------------------------

#: The site's service worker, on every GET request that is not a file in the
#: browser's storage: it answers with ``fetch(request)`` itself (JupyterLite's own
#: cache is off, as here, unless a site asks for it).
ANSWER_ALL = re.compile(
    r"shouldBroadcast\((?P<url>\w+)\)\?(?P<reply>\w+)=broadcastOne\((?P<request>\w+),"
    r"(?P=url)\):shouldDrop\((?P=request),(?P=url)\)\|\|\((?P=reply)=maybeFromCache"
    r"\((?P<event>\w+)\)\)"
)
#: What it becomes: with the cache off, the worker leaves those requests to the
#: browser (it does not call ``respondWith``).
ANSWER_STORAGE = (
    r"shouldBroadcast(\g<url>)?\g<reply>=broadcastOne(\g<request>,\g<url>):"
    r"enableCache&&!shouldDrop(\g<request>,\g<url>)&&"
    r"(\g<reply>=maybeFromCache(\g<event>))"
)


def leave_files_to_the_browser(output: Path = OUTPUT) -> None:
    """Makes the site's service worker answer only what it must (the files kept in
    the browser, under ``/api/drive``) and leave every other request to the
    browser. Measured in Chromium with a profile that keeps its cache, a warm start
    is about 1 s faster: Chromium keeps the code it compiled from a WebAssembly
    file beside that file in its cache, and it does not appear to do so for a
    response the worker made (even by ``fetch``), so each visit compiled Pyodide's
    9.6 MB again. A second run finds nothing to change and stops."""
    what = "the service worker's fetch handler"
    check_pin("jupyterlite-core", app_version(output), what)
    patch_once([output / "service-worker.js"], ANSWER_ALL, ANSWER_STORAGE, what)


# ------------------------------------------------------------------------------------
# The pages say that Python is loading (jupyterlite-core, jupyterlite-pyodide-kernel)
# ------------------------------------------------------------------------------------

#: The lite pages that open a notebook; they get the "Python is loading" note.
LOADING_PAGES = ["notebooks/index.html", "lab/index.html"]
#: Where ``lite/loading.js`` learns the kernel's worker script (from the build).
KERNEL_WORKER_NAME = "const KERNEL_WORKER = null;"
#: The page script's tag, put before a page's ``</head>``.
LOADING_TAG = '<script src="../slowtorch-loading.js" defer></script>'


def kernel_worker(output: Path = OUTPUT) -> str:
    """The kernel's worker script (comlink's), from the site's root."""
    folder = kernel_static(output)
    found = sorted(folder.glob("comlink.worker.*.js"))
    if len(found) != 1:
        raise SystemExit(
            f"build_lite: one comlink.worker.*.js expected in {folder}, found "
            f"{[path.name for path in found]}: a new jupyterlite-pyodide-kernel?"
        )
    return found[0].relative_to(output).as_posix()


def add_loading_note(output: Path = OUTPUT) -> None:
    """Adds ``lite/loading.js`` to the pages that open notebooks, with the name of
    the kernel's worker script (which the page starts early). A second run
    changes nothing: a page that has the script keeps it once."""
    what = "the pages' loading note"
    check_pin("jupyterlite-core", app_version(output), what)
    check_pin("jupyterlite-pyodide-kernel", kernel_extension_version(output), what)
    script = (LITE / "loading.js").read_text(encoding="utf-8")
    if script.count(KERNEL_WORKER_NAME) != 1:
        raise SystemExit(f"build_lite: lite/loading.js lacks {KERNEL_WORKER_NAME!r}")
    named = f"const KERNEL_WORKER = {json.dumps(kernel_worker(output))};"
    script = script.replace(KERNEL_WORKER_NAME, named)
    (output / "slowtorch-loading.js").write_text(script, encoding="utf-8")
    for page in LOADING_PAGES:
        path = output / page
        text = path.read_text(encoding="utf-8")
        if LOADING_TAG in text:
            continue
        if text.count("</head>") != 1:
            raise SystemExit(
                f"build_lite: {what}: </head> should be found once in {path}, "
                f"found {text.count('</head>')} times: a new JupyterLite?"
            )
        path.write_text(text.replace("</head>", f"    {LOADING_TAG}\n</head>", 1))


def patch_bundle(output: Path = OUTPUT) -> None:
    """Makes every change to JupyterLite's built code in the site ``output``."""
    wait_for_service_worker(output)
    leave_files_to_the_browser(output)
    add_loading_note(output)
