"""Where the in-browser build finds its sources and writes its output, and its log.

The lite source is staged afresh in ``STAGE`` on every run: JupyterLite caches its
build steps, and a stale cache silently drops settings from ``jupyter-lite.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LITE = ROOT / "lite"
STAGE = ROOT / "_build" / "lite"
OUTPUT = ROOT / "_build" / "html" / "lite"
MODULES = ROOT / "scripts" / "assets" / "node_modules"
WHEEL_CACHE = ROOT / ".cache" / "lite-wheels"
PYC_CACHE = ROOT / ".cache" / "lite-pyc"

#: The kernel's JupyterLab extension (its wheels, its worker).
KERNEL_EXTENSION = "@jupyterlite/pyodide-kernel-extension"
#: Where the set-up keeps JupyterLite's extensions, out of desktop JupyterLab's way
#: (JupyterLab loads every extension it finds, and this one fails there).
LITE_EXTENSIONS = Path(sys.prefix) / "share" / "slowtorch-lite" / "labextensions"
LAB_EXTENSIONS = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
#: The module the kernel loads Pyodide through (``lite/pyodide_boot.mjs``).
BOOT_MODULE = "slowtorch-pyodide.mjs"
#: In notebook folders, files and folders that are not copied into the lite contents.
SKIPPED = {"__pycache__", ".ipynb_checkpoints", "node_modules", ".DS_Store"}


def log(message: str) -> None:
    print(f"build_lite: {message}", flush=True)


def kernel_extension() -> Path:
    """The Pyodide kernel's JupyterLab extension, where the set-up put it."""
    for root in (LITE_EXTENSIONS, LAB_EXTENSIONS):
        folder = root / KERNEL_EXTENSION
        if (folder / "package.json").is_file():
            return folder
    raise SystemExit(
        f"build_lite: no {KERNEL_EXTENSION} in {LITE_EXTENSIONS} or {LAB_EXTENSIONS}: "
        "install jupyterlite-pyodide-kernel (scripts/lib.sh's setup_book)"
    )


def extension_options() -> list[str]:
    """The build's option for the kernel's extension where the set-up keeps it,
    out of desktop JupyterLab's way (the build does not read a lite folder's
    own ``extensions/``)."""
    extensions = kernel_extension().parent.parent
    if extensions == LAB_EXTENSIONS:
        return []  # the build finds the environment's extensions itself
    return [f"--FederatedExtensionAddon.extra_labextensions_path={extensions}"]
