"""The wheels the in-browser kernel loads.

- Built here from this checkout, never fetched: ``slowtorch_lib``, the ``course``
  package (whatever it contains at build time) and ``slowtorch_lite``
  (``lite/slowtorch_lite``: graphs rendered by Graphviz compiled to WebAssembly,
  ``@viz-js/viz``; it installs the kernel's IPython settings, ``IPYTHON_CONFIG``).
- From PyPI at the versions pinned in ``requirements.txt`` (``PYPI_EXTRAS``) or
  named in Pyodide's lock (see :mod:`sitebuild.kernel_lock`), kept in
  ``.cache/lite-wheels``.
- The kernel's own (piplite, its ipykernel shim, pyodide-kernel), from the
  kernel's JupyterLab extension.

Every wheel served, and Pyodide's standard library, carry byte code compiled by
Pyodide's own Python (``lite/compile_wheels.mjs``, :func:`compile_wheels`).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from sitebuild.paths import (
    LITE,
    MODULES,
    PYC_CACHE,
    ROOT,
    SKIPPED,
    WHEEL_CACHE,
    kernel_extension,
    log,
)

#: The kernel's Python packages that jupyterlite-pyodide-kernel ships as wheels in its
#: JupyterLab extension (static/pypi): lock name -> (wheel name prefix, depends).
KERNEL_WHEELS = {
    "piplite": ("piplite-", ["micropip"]),
    "ipykernel": ("ipykernel-", []),
    "pyodide-kernel": ("pyodide_kernel-", ["ipykernel", "ipython", "comm"]),
}
#: Extra PyPI wheels for the kernel, pinned in requirements.txt: name -> lock "depends".
PYPI_EXTRAS = {
    "comm": [],
    "graphviz": [],
    "ipywidgets": ["comm", "ipython", "traitlets"],
}

IPYTHON_CONFIG = """\
# Installed by the slowtorch_lite wheel: the in-browser kernel loads the extension.
c = get_config()  # noqa: F821
c.InteractiveShellApp.extensions.append("slowtorch_lite")
# The notebook's folder is not put before the installed packages, where each of
# the kernel's imports at start would look into it first (a request answered by
# the page): the extension puts it on sys.path last, once the kernel is up.
c.InteractiveShellApp.ignore_cwd = True
"""


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def build_wheel(
    name: str,
    version: str,
    packages: list[Path],
    folder: Path,
    summary: str,
    data_files: dict[str, str] | None = None,
) -> Path:
    """Writes a pure-Python wheel of ``packages`` (folders, every file in them)."""
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    files: dict[str, bytes] = {}
    for package in packages:
        for path in sorted(package.rglob("*")):
            relative = path.relative_to(package.parent)
            if (
                path.is_file()
                and not SKIPPED.intersection(relative.parts)
                and (path.suffix not in {".pyc", ".pyo"})
            ):
                files[relative.as_posix()] = path.read_bytes()
    for target, text in (data_files or {}).items():
        files[f"{dist}-{version}.data/data/{target}"] = text.encode()
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
        "Requires-Python: >=3.10\n"
    ).encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: slowtorch build_lite\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n"
    )
    top = sorted({Path(p).parts[0] for p in files if not p.startswith(dist + "-")})
    files[f"{info}/top_level.txt"] = ("\n".join(top) + "\n").encode()
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for member, data in files.items():
        writer.writerow([member, _record_hash(data), len(data)])
    writer.writerow([f"{info}/RECORD", "", ""])
    files[f"{info}/RECORD"] = record.getvalue().encode()
    wheel = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in files.items():
            entry = zipfile.ZipInfo(member, date_time=(2026, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data)
    return wheel


def project_version() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
    return match.group(1) if match else "0.0.0"


def own_wheels(
    folder: Path, root: Path = ROOT
) -> dict[str, tuple[Path, list[str], list[str]]]:
    """The wheels made from this checkout: lock name -> (wheel, imports, depends).
    ``root`` holds the ``slowtorch_lib`` and ``course`` packages to wheel (a class
    edition's, for its site)."""
    version = project_version()
    wheels = {
        "slowtorch-lib": (
            build_wheel(
                "slowtorch_lib",
                version,
                [root / "slowtorch_lib"],
                folder,
                "PyTorch's core rebuilt in pure Python (the slowtorch engine).",
            ),
            ["slowtorch_lib"],
            [],
        ),
        "slowtorch-lite": (
            build_wheel(
                "slowtorch_lite",
                version,
                [LITE / "slowtorch_lite"],
                folder,
                "The slowtorch course's notebooks in the browser (Pyodide).",
                {"etc/ipython/ipython_config.py": IPYTHON_CONFIG},
            ),
            ["slowtorch_lite"],
            ["graphviz"],
        ),
    }
    if (root / "course" / "__init__.py").is_file():
        wheels["slowtorch-course"] = (
            build_wheel(
                "slowtorch_course",
                version,
                [root / "course"],
                folder,
                "The slowtorch course's exercises, checks and grading.",
            ),
            ["course"],
            ["slowtorch-lib"],
        )
    return wheels


def requirement_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)", line.strip())
        if match:
            pins[normalize(match.group(1))] = match.group(2)
    return pins


def cached_wheel(name: str, version: str) -> Path | None:
    dist = re.sub(r"[-_.]+", "_", name).lower()
    for path in WHEEL_CACHE.glob("*.whl"):
        parts = path.name.split("-")
        if re.sub(r"[-_.]+", "_", parts[0]).lower() == dist and parts[1] == version:
            return path
    return None


def download_wheels(specs: list[tuple[str, str]], python: str) -> dict[str, Path]:
    """Pure-Python wheels ``name==version`` from PyPI (kept in .cache/lite-wheels)."""
    WHEEL_CACHE.mkdir(parents=True, exist_ok=True)
    missing = [f"{n}=={v}" for n, v in specs if cached_wheel(n, v) is None]
    if missing:
        log(f"pip download {' '.join(missing)}")
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--only-binary=:all:",
                "--python-version",
                python,
                "--platform",
                "any",
                "--implementation",
                "py",
                "--abi",
                "none",
                "-d",
                str(WHEEL_CACHE),
                *missing,
            ],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            # Without the noise some pip configurations print about local index folders.
            noise = re.compile(r"^WARNING: Location 'file:")
            print(
                "\n".join(
                    line for line in result.stderr.splitlines() if not noise.match(line)
                ),
                file=sys.stderr,
            )
            raise SystemExit("build_lite: pip download failed")
    found = {}
    for name, version in specs:
        wheel = cached_wheel(name, version)
        if wheel is None:
            raise SystemExit(
                f"build_lite: no pure-Python wheel of {name}=={version} on PyPI"
            )
        found[normalize(name)] = wheel
    return found


def kernel_wheels(folder: Path) -> dict[str, tuple[Path, list[str], list[str]]]:
    """The kernel's own wheels, copied into ``folder``: lock name -> (wheel,
    imports, depends)."""
    source = kernel_extension() / "static" / "pypi"
    wheels = {}
    for name, (prefix, depends) in KERNEL_WHEELS.items():
        found = sorted(source.glob(f"{prefix}*-py3-none-any.whl"))
        if not found:
            raise SystemExit(f"build_lite: no {prefix}*.whl in {source}")
        shutil.copy2(found[-1], folder / found[-1].name)
        imports = [name.replace("-", "_")]
        wheels[name] = (folder / found[-1].name, imports, depends)
    return wheels


def compile_wheels(wheels: list[Path]) -> None:
    """Adds Pyodide's byte code to ``wheels`` (in place; Pyodide's standard library
    ``python_stdlib.zip`` too, which ships without any): the browser then imports
    them without compiling each module at every kernel start. Needs Node.js (the
    set-up installs it for npm); compiled files are cached in .cache/lite-pyc."""
    todo: dict[Path, Path] = {}
    for wheel in wheels:
        cached = PYC_CACHE / sha256(wheel)[:20] / wheel.name
        if cached.is_file():
            shutil.copy2(cached, wheel)
        else:
            todo[wheel] = cached
    if not todo:
        return
    node = shutil.which("node")
    if node is None:
        log("no node: the wheels are served without byte code (slower start)")
        return
    with tempfile.TemporaryDirectory() as work:
        source, target = Path(work, "in"), Path(work, "out")
        source.mkdir()
        target.mkdir()
        for wheel in todo:
            shutil.copy2(wheel, source / wheel.name)
        log(f"compiling {len(todo)} archives with Pyodide's Python (node)")
        result = subprocess.run(
            [node, str(LITE / "compile_wheels.mjs"), str(MODULES / "pyodide")]
            + [str(source), str(target)],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            print(result.stdout[-3000:], result.stderr[-3000:], file=sys.stderr)
            raise SystemExit("build_lite: compiling the wheels failed")
        for wheel, cached in todo.items():
            cached.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(target / wheel.name, cached)
            shutil.copy2(target / wheel.name, wheel)
