"""The lite site's settings (``jupyter-lite.json``), written into the stage before
JupyterLite builds and completed after it, and the check that the build kept
them: JupyterLite caches its build steps, and a stale cache silently drops
settings. The kernel loads Pyodide through ``lite/pyodide_boot.mjs`` (copied next
to Pyodide as ``BOOT_MODULE``), which defers jedi and time-stamps each step."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sitebuild.paths import BOOT_MODULE, KERNEL_EXTENSION, LITE, OUTPUT

#: What the lite site offers.
APPS = ["lab", "notebooks", "tree"]


def write_settings(lite_dir: Path, preload: list[str]) -> None:
    config = json.loads((LITE / "jupyter-lite.json").read_text(encoding="utf-8"))
    settings = config["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"
    ]
    settings["disablePyPIFallback"] = True
    settings.setdefault("loadPyodideOptions", {})["packages"] = preload
    (lite_dir / "jupyter-lite.json").write_text(json.dumps(config, indent=2) + "\n")
    shutil.copy2(
        LITE / "jupyter_lite_config.json", lite_dir / "jupyter_lite_config.json"
    )
    overrides = LITE / "overrides.json"
    if overrides.is_file():
        shutil.copy2(overrides, lite_dir / "overrides.json")


def use_boot_module(output: Path = OUTPUT) -> None:
    """Points the kernel at ``lite/pyodide_boot.mjs`` (next to Pyodide) instead of
    ``pyodide.mjs``: the build writes ``pyodideUrl`` itself."""
    path = output / "jupyter-lite.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    settings = config["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"
    ]
    url = str(settings.get("pyodideUrl", ""))
    settings["pyodideUrl"] = url[: url.rfind("/") + 1] + BOOT_MODULE
    path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


def check_output(
    preload: list[str], notebooks: list[str], output: Path = OUTPUT
) -> None:
    config = json.loads((output / "jupyter-lite.json").read_text(encoding="utf-8"))
    data = config["jupyter-config-data"]
    settings = data["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"
    ]
    problems = []
    if settings.get("pyodideUrl") != f"./static/pyodide/{BOOT_MODULE}":
        problems.append(f"pyodideUrl is {settings.get('pyodideUrl')!r}")
    if settings.get("disablePyPIFallback") is not True:
        problems.append("disablePyPIFallback is not true")
    if settings.get("loadPyodideOptions", {}).get("packages") != preload:
        problems.append("loadPyodideOptions.packages is missing")
    extensions = [e.get("name") for e in data.get("federated_extensions", [])]
    if KERNEL_EXTENSION not in extensions:
        problems.append(f"the site has no {KERNEL_EXTENSION} (no kernel)")
    for needed in [
        "static/pyodide/pyodide.mjs",
        f"static/pyodide/{BOOT_MODULE}",
        "static/pyodide/pyodide-lock.json",
        "static/pyodide/viz.js",
        "pypi/all.json",
        *(f"files/{n}" for n in notebooks),
    ]:
        if not (output / needed).is_file():
            problems.append(f"{needed} is missing")
    if problems:
        raise SystemExit(
            "build_lite: the lite build is incomplete: " + "; ".join(problems)
        )
