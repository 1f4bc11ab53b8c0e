"""The in-browser course's build, step by step (``scripts/build_lite.py`` runs it):
the desktop chapters, Pyodide and its lock, the wheels, the notebooks and settings,
``jupyter lite build``, then the checks and the patches of JupyterLite's code."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from sitebuild.contents import write_contents, write_listing
from sitebuild.kernel_lock import check_pyodide_version, copy_pyodide, write_lock
from sitebuild.notebooks import CHAPTERS, write_desktop_chapters
from sitebuild.patches import patch_bundle
from sitebuild.paths import OUTPUT, ROOT, STAGE, extension_options, log
from sitebuild.settings import APPS, check_output, use_boot_module, write_settings
from sitebuild.wheels import (
    PYPI_EXTRAS,
    download_wheels,
    kernel_wheels,
    own_wheels,
    requirement_pins,
)


def main(
    output: Path = OUTPUT, stage: Path = STAGE, root: Path = ROOT, chapters: bool = True
) -> int:
    """Builds the book's lite site; with arguments, a class edition's (see
    ``course/class_site.py``): the engine, course and exercises of ``root``, staged
    in ``stage``, built into ``output``, with the chapters only if ``chapters``."""
    start = time.monotonic()
    if root == ROOT:
        desktop = write_desktop_chapters()
        log(f"{len(desktop)} chapter notebooks for JupyterLab in {CHAPTERS.name}/")
        if "--chapters" in sys.argv[1:]:
            return 0
    version = check_pyodide_version()
    for folder in (stage, output):
        if folder.exists():
            shutil.rmtree(folder)
    wheels = stage / "wheels"
    wheels.mkdir(parents=True)
    pyodide = stage / "static" / "pyodide"
    copy_pyodide(pyodide)

    extras = own_wheels(wheels, root)
    extras.update(kernel_wheels(wheels))
    pins = requirement_pins()
    lock = json.loads((pyodide / "pyodide-lock.json").read_text(encoding="utf-8"))
    python = ".".join(lock["info"]["python"].split(".")[:2])
    missing = [name for name in PYPI_EXTRAS if name not in pins]
    if missing:
        raise SystemExit(f"build_lite: requirements.txt pins no version of {missing}")
    pypi = download_wheels([(name, pins[name]) for name in PYPI_EXTRAS], python)
    for name, depends in PYPI_EXTRAS.items():
        shutil.copy2(pypi[name], wheels / pypi[name].name)
        extras[name] = (wheels / pypi[name].name, [name], depends)
    preload = write_lock(pyodide, version, extras)

    notebooks = write_contents(stage / "contents", root, chapters)
    write_settings(stage, preload)
    log(f"{len(notebooks)} notebooks, {len(extras)} wheels; running jupyter lite build")
    command = [
        sys.executable,
        "-m",
        "jupyterlite_core",
        "build",
        "--lite-dir",
        str(stage),
        "--output-dir",
        str(output),
        "--contents",
        str(stage / "contents"),
        "--piplite-wheels",
        str(wheels),
        "--no-sourcemaps",
        "--no-unused-shared-packages",
        *extension_options(),
        *(item for app in APPS for item in ("--apps", app)),
    ]
    env = dict(os.environ, JUPYTERLITE_NO_JUPYTER_SERVER="0")
    result = subprocess.run(command, cwd=stage, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        print(result.stdout[-6000:], result.stderr[-6000:], sep="\n", file=sys.stderr)
        raise SystemExit("build_lite: jupyter lite build failed")
    use_boot_module(output)
    write_listing(output, notebooks)
    check_output(preload, notebooks, output)
    patch_bundle(output)
    # Browsers ask the site's root for a favicon (a 404 in the console otherwise):
    # the book's site is served from its parent, a class site from itself.
    icon = output / "lab" / "favicon.ico"
    home = output.parent if output == OUTPUT else output
    if icon.is_file() and not (home / "favicon.ico").exists():
        shutil.copy2(icon, home / "favicon.ico")
    size = sum(f.stat().st_size for f in output.rglob("*") if f.is_file())
    shown = output.relative_to(ROOT) if output.is_relative_to(ROOT) else output
    log(f"{shown} ready: {size / 1e6:.1f} MB, {time.monotonic() - start:.0f} s")
    return 0
