"""Pyodide, copied into the site, and its lock file, rewritten for the site.

Pyodide itself is the npm package ``pyodide`` (pinned in
``scripts/assets/package.json`` at the version ``jupyterlite-pyodide-kernel``
expects), copied into the lite source's ``static/pyodide/``, which the build
publishes and points the kernel at. The pure-Python packages the kernel loads
from Pyodide's lock file (IPython, jedi, micropip...) are downloaded from PyPI at
the versions the lock names, and the lock's ``sha256`` entries are recomputed for
those files (PyPI's bytes differ from Pyodide's); every other lock entry points at
Pyodide's CDN, so that numpy and matplotlib load when the reader is online
(offline, ``slowtorch_lite`` stands in for matplotlib). The wheels of
:mod:`sitebuild.wheels` are added to the lock, and ``STARTUP_PACKAGES`` load while
Pyodide starts.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION

from sitebuild.paths import BOOT_MODULE, LITE, MODULES, log
from sitebuild.wheels import compile_wheels, download_wheels, normalize, sha256

PYODIDE_CDN = "https://cdn.jsdelivr.net/pyodide/v{version}/full/"

#: The kernel's own needs from Pyodide's lock, served by the site (with dependencies).
KERNEL_LOCK_ROOTS = ["micropip", "packaging", "ipython", "jedi"]
#: The kernel's Python packages that jupyterlite-pyodide-kernel ships as wheels in its
#: JupyterLab extension (static/pypi): lock name -> (wheel name prefix, depends).
KERNEL_WHEELS = {
    "piplite": ("piplite-", ["micropip"]),
    "ipykernel": ("ipykernel-", []),
    "pyodide-kernel": ("pyodide_kernel-", ["ipykernel", "ipython", "comm"]),
}
#: Loaded while Pyodide starts (``loadPyodideOptions.packages``): what the kernel
#: would otherwise install one after the other with micropip and piplite (it skips
#: the ones named here), and what every notebook needs. jedi is named so that the
#: kernel does not install it, but ``lite/pyodide_boot.mjs`` defers it until the
#: first cell has run. The rest of the lock (the course's checks, graphviz...) loads
#: when a cell imports it.
STARTUP_PACKAGES = [
    "comm",
    "ipykernel",
    "ipython",
    "ipywidgets",
    "jedi",
    "micropip",
    "piplite",
    "pyodide-kernel",
    "slowtorch-lib",
    "slowtorch-lite",
]


def check_pyodide_version() -> str:
    package = json.loads(
        (MODULES / "pyodide" / "package.json").read_text(encoding="utf-8")
    )
    if package["version"] != PYODIDE_VERSION:
        raise SystemExit(
            f"build_lite: scripts/assets pins pyodide {package['version']}, but "
            f"jupyterlite-pyodide-kernel expects {PYODIDE_VERSION}: pin that in "
            "scripts/assets/package.json and run 'npm install' there"
        )
    return PYODIDE_VERSION


def copy_pyodide(target: Path) -> None:
    source = MODULES / "pyodide"
    target.mkdir(parents=True)
    for path in source.iterdir():
        if path.suffix in {".map", ".ts", ".html"} or path.name in {"README.md"}:
            continue
        shutil.copy2(path, target / path.name)
    # The graph renderer (one ES module with its WebAssembly inlined) travels with
    # Pyodide: the build publishes this folder as it is.
    shutil.copy2(MODULES / "@viz-js" / "viz" / "dist" / "viz.js", target / "viz.js")
    shutil.copy2(LITE / "pyodide_boot.mjs", target / BOOT_MODULE)


def closure(packages: dict[str, Any], roots: list[str]) -> list[str]:
    seen: list[str] = []
    todo = [normalize(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen or name not in packages:
            continue
        seen.append(name)
        todo += [normalize(d) for d in packages[name].get("depends", [])]
    return sorted(seen)


def write_lock(
    folder: Path, version: str, extras: dict[str, tuple[Path, list[str], list[str]]]
) -> list[str]:
    """Rewrites ``folder/pyodide-lock.json``; returns the names to preload."""
    lock_path = folder / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text(encoding="utf-8"))
    packages: dict[str, Any] = lock["packages"]
    python = ".".join(lock["info"]["python"].split(".")[:2])

    kernel = closure(
        packages, KERNEL_LOCK_ROOTS + [d for _, _, ds in extras.values() for d in ds]
    )
    kernel = [n for n in kernel if n not in extras]
    downloaded = download_wheels([(n, packages[n]["version"]) for n in kernel], python)
    cdn = PYODIDE_CDN.format(version=version)
    served = [downloaded[name] for name in downloaded]
    served += [wheel for wheel, _, _ in extras.values()]
    for wheel in served:
        if wheel.parent != folder:
            shutil.copy2(wheel, folder / wheel.name)
    compile_wheels(
        [folder / wheel.name for wheel in served] + [folder / "python_stdlib.zip"]
    )
    for name, entry in packages.items():
        if name in downloaded:
            wheel = folder / downloaded[name].name
            entry["file_name"] = wheel.name
            entry["sha256"] = sha256(wheel)
        elif not re.match(r"^https?://", entry["file_name"]):
            entry["file_name"] = cdn + entry["file_name"]
    for name, (wheel, imports, depends) in extras.items():
        packages[name] = {
            "name": name,
            "version": wheel.name.split("-")[1],
            "file_name": wheel.name,
            "install_dir": "site",
            "sha256": sha256(folder / wheel.name),
            "package_type": "package",
            "imports": imports,
            "depends": depends,
            "unvendored_tests": False,
        }
    lock_path.write_text(
        json.dumps(lock, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    log(
        f"pyodide-lock.json: {len(downloaded)} kernel wheels and {len(extras)} course "
        "wheels served by the site, the rest from Pyodide's CDN when online"
    )
    missing = [name for name in STARTUP_PACKAGES if name not in packages]
    if missing:
        raise SystemExit(f"build_lite: the lock file has no {missing}")
    return list(STARTUP_PACKAGES)
