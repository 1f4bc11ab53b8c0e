"""The changes the build makes to JupyterLite's built code (sitebuild/patches.py),
each run on the bundle that the pins name: the files of the installed
jupyterlite-core's app and of the installed kernel extension, copied into a
site's layout as the build leaves it before patching."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import jupyterlite_core
import pytest

from sitebuild import patches
from sitebuild.paths import KERNEL_EXTENSION, kernel_extension
from sitebuild.wheels import requirement_pins

#: The files of jupyterlite-core's app that the patches read or change.
APP_FILES = ["service-worker.js", "jupyter-lite.json", *patches.LOADING_PAGES]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A built site's files that the patches touch, from the installed bundles."""
    app = sorted(Path(jupyterlite_core.__file__).parent.glob("jupyterlite-app-*.tgz"))
    assert app, "jupyterlite-core ships no app archive"
    with tarfile.open(app[-1]) as archive:
        for name in APP_FILES:
            member = archive.extractfile(f"package/{name}")
            assert member is not None, f"the app has no {name}"
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_bytes(member.read())
    shutil.copytree(kernel_extension(), tmp_path / "extensions" / KERNEL_EXTENSION)
    return tmp_path


def _texts(paths: list[Path]) -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in paths)


# --- the pins -----------------------------------------------------------------------


def test_the_pins_are_the_installed_and_required_versions(site: Path) -> None:
    """The bundles installed, and the versions requirements.txt installs, are the
    ones the patches were written against."""
    required = requirement_pins()
    for package, version in patches.PINS.items():
        assert importlib.metadata.version(package) == version, package
        assert required[package] == version, f"requirements.txt pins {package}"
    assert patches.app_version(site) == patches.PINS["jupyterlite-core"]
    pinned = patches.PINS["jupyterlite-pyodide-kernel"]
    assert patches.kernel_extension_version(site) == pinned


def test_another_version_of_a_bundle_stops_the_build(site: Path) -> None:
    config_path = site / "jupyter-lite.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["jupyter-config-data"]["appVersion"] = "0.99.0"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    before = _texts([site / "service-worker.js"])
    message = r"written for jupyterlite-core 0\.8\.6, but .* jupyterlite-core 0\.99\.0"
    with pytest.raises(SystemExit, match=message):
        patches.leave_files_to_the_browser(site)
    with pytest.raises(SystemExit, match=message):
        patches.add_loading_note(site)
    assert _texts([site / "service-worker.js"]) == before  # nothing changed

    package_path = site / "extensions" / KERNEL_EXTENSION / "package.json"
    package = json.loads(package_path.read_text(encoding="utf-8"))
    package["version"] = "0.99.0"
    package_path.write_text(json.dumps(package), encoding="utf-8")
    with pytest.raises(SystemExit, match="written for jupyterlite-pyodide-kernel"):
        patches.wait_for_service_worker(site)


# --- the kernel waits for the service worker ----------------------------------------


def test_the_kernel_waits_for_the_service_worker(site: Path) -> None:
    scripts = sorted(patches.kernel_static(site).glob("*.js"))
    assert len(patches.MOUNT_DRIVE.findall(_texts(scripts))) == 1
    patches.wait_for_service_worker(site)
    patched = _texts(scripts)
    assert patches.MOUNT_DRIVE.search(patched) is None
    assert "navigator.serviceWorker))||crossOriginIsolated)" in patched
    assert "sw.addEventListener('controllerchange'" in patched
    # A second run finds nothing to change and stops the build.
    with pytest.raises(SystemExit, match="found 0 times"):
        patches.wait_for_service_worker(site)
    assert _texts(scripts) == patched


# --- the service worker answers only the browser's files ----------------------------


#: Runs a service worker's script in Node with the browser's pieces it uses faked,
#: then sends it one GET request per URL given; prints, for each, whether the
#: worker answered it (called ``respondWith``) or left it to the browser.
SERVICE_WORKER_HARNESS = r"""
const [script, query, ...urls] = process.argv.slice(1);
const handlers = {};
globalThis.self = {
  addEventListener: (name, handler) => { handlers[name] = handler; },
  skipWaiting: () => {},
  clients: { claim: async () => {} },
};
globalThis.location = new URL("http://site.test/lite/service-worker.js" + query);
globalThis.BroadcastChannel = class {
  postMessage() {} addEventListener() {} removeEventListener() {}
};
globalThis.caches = { open: async () => ({ match: async () => null, put: async () => {},
                                          addAll: async () => {} }) };
globalThis.fetch = async () => ({ status: 200, clone() { return this; } });
const source = require("fs").readFileSync(script, "utf8");
new Function(source)();
handlers.activate({ waitUntil: () => {} });
for (const url of urls) {
  let answered = false;
  const request = { url, method: "GET", json: async () => ({}) };
  handlers.fetch({ request, respondWith: () => { answered = true; },
                   waitUntil: () => {} });
  console.log(`${answered ? "answered" : "left"} ${url}`);
}
"""


def _service_worker_script(tmp_path: Path) -> Path:
    """JupyterLite's own service worker, from the installed jupyterlite-core."""
    app = sorted(Path(jupyterlite_core.__file__).parent.glob("jupyterlite-app-*.tgz"))
    assert app, "jupyterlite-core ships no app archive"
    with tarfile.open(app[-1]) as archive:
        member = archive.extractfile("package/service-worker.js")
        assert member is not None
        script = tmp_path / "service-worker.js"
        script.write_bytes(member.read())
    return script


def _requests_answered(script: Path, query: str, urls: list[str]) -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node.js (the set-up installs it with npm)")
    result = subprocess.run(
        [node, "-e", SERVICE_WORKER_HARNESS, str(script), query, *urls],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()[::2]


def test_the_service_worker_patch_changes_its_fetch_handler(site: Path) -> None:
    script = site / "service-worker.js"
    assert len(patches.ANSWER_ALL.findall(script.read_text(encoding="utf-8"))) == 1
    patches.leave_files_to_the_browser(site)
    patched = script.read_text(encoding="utf-8")
    assert patches.ANSWER_ALL.search(patched) is None
    assert "enableCache&&!shouldDrop(" in patched
    with pytest.raises(SystemExit, match="found 0 times"):
        patches.leave_files_to_the_browser(site)
    assert script.read_text(encoding="utf-8") == patched


def test_the_service_worker_answers_only_the_files_kept_in_the_browser(
    site: Path,
) -> None:
    """The built site's worker leaves Pyodide's files to the browser (which then
    keeps their compiled code between visits) and still answers the kernel's
    requests for stored files; JupyterLite's worker answered everything."""
    script = site / "service-worker.js"
    urls = [
        "http://site.test/lite/static/pyodide/pyodide.asm.wasm",
        "http://site.test/lite/api/drive.v1",
        "http://site.test/api/service-worker-heartbeat",
    ]
    off = "?enableCache=false"
    assert _requests_answered(script, off, urls) == ["answered"] * 3
    patches.leave_files_to_the_browser(site)
    assert _requests_answered(script, off, urls) == ["left", "answered", "answered"]
    # A site that turns JupyterLite's cache on keeps it.
    on = "?enableCache=true"
    assert _requests_answered(script, on, urls) == ["answered"] * 3


# --- the pages say that Python is loading -------------------------------------------


def test_the_pages_load_the_note_naming_the_kernel_worker(site: Path) -> None:
    """The build writes the kernel's worker script (which the page makes early)
    into the page script, and adds that script to the pages once."""
    (worker,) = patches.kernel_static(site).glob("comlink.worker.*.js")
    for page in patches.LOADING_PAGES:
        assert patches.LOADING_TAG not in (site / page).read_text(encoding="utf-8")
    patches.add_loading_note(site)
    script = (site / "slowtorch-loading.js").read_text(encoding="utf-8")
    name = worker.relative_to(site).as_posix()
    assert f'const KERNEL_WORKER = "{name}";' in script
    assert patches.KERNEL_WORKER_NAME not in script
    pages = _texts([site / page for page in patches.LOADING_PAGES])
    assert pages.count(f"    {patches.LOADING_TAG}\n</head>") == 2
    # A second run changes nothing.
    patches.add_loading_note(site)
    assert _texts([site / page for page in patches.LOADING_PAGES]) == pages
    assert (site / "slowtorch-loading.js").read_text(encoding="utf-8") == script


def test_the_note_needs_one_kernel_worker_and_one_head(site: Path) -> None:
    static = patches.kernel_static(site)
    (worker,) = static.glob("comlink.worker.*.js")
    (static / "comlink.worker.4567ef.js").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"one comlink\.worker\.\*\.js expected"):
        patches.add_loading_note(site)
    (static / "comlink.worker.4567ef.js").unlink()
    worker.unlink()
    with pytest.raises(SystemExit, match=r"one comlink\.worker\.\*\.js expected"):
        patches.add_loading_note(site)
    worker.write_text("", encoding="utf-8")
    page = site / patches.LOADING_PAGES[0]
    page.write_text("<html><body></body></html>", encoding="utf-8")
    with pytest.raises(SystemExit, match="</head> should be found once"):
        patches.add_loading_note(site)
