"""The in-browser kernel's helpers that run anywhere: the blank pictures that stand
in for figures saved offline (lite/slowtorch_lite), the start-up settings of the
lite build (sitebuild/) and the kernel's IPython settings, and, run in Node, the
module through which the kernel loads Pyodide (lite/pyodide_boot.mjs). The build's
changes to JupyterLite's code are tested in test_lite_patches.py."""

from __future__ import annotations

import importlib.util
import io
import json
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from types import ModuleType

import pytest

from sitebuild.kernel_lock import STARTUP_PACKAGES
from sitebuild.wheels import IPYTHON_CONFIG

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


lite = _load("slowtorch_lite", ROOT / "lite" / "slowtorch_lite" / "__init__.py")


def _png_size_and_pixels(data: bytes) -> tuple[int, int, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, {}
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        end = position + 8 + length
        body = data[position + 8 : end]
        (crc,) = struct.unpack(">I", data[end : end + 4])
        assert crc == zlib.crc32(kind + body), f"bad CRC in {kind!r}"
        chunks[kind] = body
        position += 12 + length
    width, height = struct.unpack(">II", chunks[b"IHDR"][:8])
    return width, height, zlib.decompress(chunks[b"IDAT"])


def test_a_blank_png_is_a_valid_picture_of_the_asked_size() -> None:
    width, height, pixels = _png_size_and_pixels(lite.blank_png(7, 3))
    assert (width, height) == (7, 3)
    row = b"\x00" + bytes(lite.BLANK_RGB) * 7
    assert pixels == row * 3


def test_savefig_offline_writes_a_picture_of_the_figure_size() -> None:
    buffer = io.BytesIO()
    lite._save_blank((4.2, 3.4), (buffer,), {"format": "png", "dpi": 72})
    width, height, _ = _png_size_and_pixels(buffer.getvalue())
    assert (width, height) == (302, 245)
    text = io.StringIO()
    lite._save_blank((2.0, 1.0), (text,), {"format": "svg"})
    assert text.getvalue().startswith("<svg") and 'width="200"' in text.getvalue()
    assert "offline" in text.getvalue()


def test_savefig_offline_into_a_file(tmp_path: Path) -> None:
    target = tmp_path / "figure.png"
    lite._save_blank(lite.DEFAULT_FIGSIZE, (str(target),), {})
    width, height, _ = _png_size_and_pixels(target.read_bytes())
    assert (width, height) == (640, 480)


def test_the_kernel_starts_with_what_it_would_install_one_by_one() -> None:
    # The kernel skips installing each of these when they are preloaded.
    for name in ["micropip", "piplite", "ipykernel", "comm", "pyodide-kernel"]:
        assert name in STARTUP_PACKAGES
    assert "jedi" in STARTUP_PACKAGES  # named, then deferred by the boot
    boot = (ROOT / "lite" / "pyodide_boot.mjs").read_text(encoding="utf-8")
    assert 'const DEFERRED = ["jedi"];' in boot
    assert "slowtorch-course" not in STARTUP_PACKAGES


#: Pyodide as the boot module sees it (``./pyodide.mjs``): counts the loads, and
#: fails the first one when asked to.
FAKE_PYODIDE = """
globalThis.loads = [];
export async function loadPyodide(options) {
  globalThis.loads.push(options.packages);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const first = globalThis.loads.length === 1;
  if (globalThis.failFirst && first) throw new Error("no network");
  return { runPython() {}, async runPythonAsync() {}, id: globalThis.loads.length };
}
"""
BOOT_HARNESS = """
const [boot, failFirst] = process.argv.slice(1);
globalThis.failFirst = failFirst === "fail";
const { loadPyodide } = await import(boot);
const options = { indexURL: "http://site.test/lite/static/pyodide/",
                  packages: ["ipython", "jedi", "slowtorch-lib"] };
const page = loadPyodide({ ...options, stdout: () => {} });
const results = [];
try { results.push((await page).id); } catch (error) { results.push(String(error)); }
const kernel = loadPyodide({ ...options, stdout: () => {} });
results.push((await kernel).id);
const other = await loadPyodide({ ...options, packages: ["ipython"] });
results.push(other.id);
console.log(JSON.stringify({ results, loads: globalThis.loads,
  steps: globalThis.slowtorchStartup.map(([step]) => step) }));
"""


def _boot(tmp_path: Path, fail_first: bool) -> dict[str, list[object]]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node.js (the set-up installs it with npm)")
    shutil.copy2(ROOT / "lite" / "pyodide_boot.mjs", tmp_path / "boot.mjs")
    (tmp_path / "pyodide.mjs").write_text(FAKE_PYODIDE, encoding="utf-8")
    result = subprocess.run(
        [
            node,
            "--input-type=module",
            "-e",
            BOOT_HARNESS,
            str(tmp_path / "boot.mjs"),
            "fail" if fail_first else "ok",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_kernel_gets_the_pyodide_that_the_page_started(tmp_path: Path) -> None:
    """The page starts the kernel's first step before JupyterLab has loaded
    (lite/loading.js); the kernel's own call, with the same options, gets the same
    Pyodide, loaded once (without the deferred jedi). Other options load another."""
    run = _boot(tmp_path, fail_first=False)
    assert run["results"] == [1, 1, 2]
    assert run["loads"] == [["ipython", "slowtorch-lib"], ["ipython"]]
    asked = "worker: the kernel asks for the Pyodide the page started"
    assert run["steps"].count("worker: Pyodide loading") == 2
    assert run["steps"].count(asked) == 1


def test_a_pyodide_that_failed_to_load_is_loaded_again(tmp_path: Path) -> None:
    """A load started by the page that failed (the network, say) is not handed to
    the kernel: its own call loads Pyodide again."""
    run = _boot(tmp_path, fail_first=True)
    assert run["results"][0] == "Error: no network"
    assert run["results"][1:] == [2, 3]
    assert len(run["loads"]) == 3


def test_the_kernel_starts_without_the_notebook_folder_before_the_packages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The in-browser kernel's IPython settings (installed by the slowtorch_lite
    wheel) load the extension and keep IPython from putting the working folder
    (the browser's storage) before the installed packages while it starts: each
    import would look there first, through a request answered by the page."""
    from IPython.core.shellapp import InteractiveShellApp
    from traitlets.config import Config

    config = Config()
    exec(IPYTHON_CONFIG, {"get_config": lambda: config})
    app = InteractiveShellApp(config=config)
    assert "slowtorch_lite" in app.extensions
    path = ["/lib/python314.zip", "/lib/python3.14/site-packages"]
    monkeypatch.setattr(sys, "path", list(path))
    app.init_path()
    assert sys.path == path
    # What IPython does without them.
    InteractiveShellApp().init_path()
    assert sys.path == ["/lib/python314.zip", "", "/lib/python3.14/site-packages"]
