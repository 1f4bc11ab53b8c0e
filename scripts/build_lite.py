"""Build the in-browser course (JupyterLite, Pyodide kernel) into ``_build/html/lite``.

Nothing the site needs at page time comes from another host:

- Pyodide itself: the npm package ``pyodide`` (pinned in
  ``scripts/assets/package.json`` at the version ``jupyterlite-pyodide-kernel``
  expects) is copied into the lite source's ``static/pyodide/``, which the build
  publishes and points the kernel at;
- the pure-Python packages the kernel loads from Pyodide's lock file (IPython, jedi,
  micropip...) are downloaded from PyPI at the versions the lock names, and the
  lock's ``sha256`` entries are recomputed for those files (PyPI's bytes differ from
  Pyodide's);
  every other lock entry points at Pyodide's CDN, so that numpy and matplotlib load when
  the reader is online (offline, ``slowtorch_lite`` stands in for matplotlib);
- the wheels of ``slowtorch_lib``, of the ``course`` package (whatever it contains at
  build time) and of ``slowtorch_lite`` (``lite/slowtorch_lite``: graphs rendered by
  Graphviz compiled to WebAssembly, ``@viz-js/viz``) are built here from this checkout,
  never fetched; with ``comm``, ``graphviz`` and ``ipywidgets`` (pinned in
  ``requirements.txt``) and the kernel's own wheels (piplite, its ipykernel shim,
  pyodide-kernel: from the kernel's JupyterLab extension) they are added to the lock
  and also published in the site's ``pypi/`` folder for ``%pip`` with
  ``disablePyPIFallback``;
- start-up: every wheel served here, and Pyodide's standard library, carry byte
  code compiled by Pyodide's own Python (``lite/compile_wheels.mjs``); the packages
  in ``STARTUP_PACKAGES`` load while Pyodide starts, the rest of the lock when a cell
  imports it; the kernel loads Pyodide through ``lite/pyodide_boot.mjs``, which
  defers jedi and time-stamps each step; the pages that open a notebook carry
  ``lite/loading.js`` (``add_loading_note``), which says that Python is loading and
  makes the kernel's worker as the page opens, before JupyterLab's own code has
  loaded, with Pyodide loading in it; the kernel's IPython settings keep the
  notebook's folder off ``sys.path`` while it starts (``IPYTHON_CONFIG``);
- the kernel's files: the kernel reaches the files kept in the browser (``/drive``)
  through the site's service worker, and JupyterLite's kernel asks whether that
  worker is registered once, without waiting (a kernel that starts first never sees
  the notebooks or a student's saved pieces); the build makes it wait until the
  worker controls the page (``wait_for_service_worker``); that worker answers only
  those files' requests and leaves the rest to the browser, which then keeps
  Pyodide's compiled WebAssembly between visits (``leave_files_to_the_browser``);
- the notebooks: every chapter named in ``_toc.yml`` (MyST markdown notebooks, converted
  with jupytext; ``literalinclude`` directives replaced by the code they quote, other
  directives by plain Markdown), the folders of helper modules next to them, and every
  notebook in ``exercises/``, all with the browser kernel's name (``python``).

The lite source is staged afresh in ``_build/lite`` on every run: JupyterLite caches its
build steps, and a stale cache silently drops settings from ``jupyter-lite.json``. The
script checks the written settings before it finishes.

It also writes the chapters as notebooks for desktop JupyterLab into ``chapters/``
(git-ignored): the same conversion, the desktop kernel's name, the book's outputs,
marked trusted for this user.

Usage: python scripts/build_lite.py   (after scripts/lib.sh installed the npm assets)
       python scripts/build_lite.py --chapters   (only the desktop chapter notebooks)
"""

from __future__ import annotations

import ast
import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from course.book_outputs import BOOK_VERSION

ROOT = Path(__file__).resolve().parent.parent
LITE = ROOT / "lite"
STAGE = ROOT / "_build" / "lite"
OUTPUT = ROOT / "_build" / "html" / "lite"
MODULES = ROOT / "scripts" / "assets" / "node_modules"
WHEEL_CACHE = ROOT / ".cache" / "lite-wheels"
PYC_CACHE = ROOT / ".cache" / "lite-pyc"
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
#: The kernel's JupyterLab extension (its wheels, its worker).
KERNEL_EXTENSION = "@jupyterlite/pyodide-kernel-extension"
#: Where the set-up keeps JupyterLite's extensions, out of desktop JupyterLab's way
#: (JupyterLab loads every extension it finds, and this one fails there).
LITE_EXTENSIONS = Path(sys.prefix) / "share" / "slowtorch-lite" / "labextensions"
LAB_EXTENSIONS = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
#: The module the kernel loads Pyodide through (``lite/pyodide_boot.mjs``).
BOOT_MODULE = "slowtorch-pyodide.mjs"
#: Extra PyPI wheels for the kernel, pinned in requirements.txt: name -> lock "depends".
PYPI_EXTRAS = {
    "comm": [],
    "graphviz": [],
    "ipywidgets": ["comm", "ipython", "traitlets"],
}
#: The browser kernel's name: notebooks carrying another one open with a dialog.
KERNELSPEC = {
    "name": "python",
    "display_name": "Python (Pyodide)",
    "language": "python",
}
#: What the lite site offers.
APPS = ["lab", "notebooks", "tree"]
#: In notebook folders, files and folders that are not copied into the lite contents.
SKIPPED = {"__pycache__", ".ipynb_checkpoints", "node_modules", ".DS_Store"}

IPYTHON_CONFIG = """\
# Installed by the slowtorch_lite wheel: the in-browser kernel loads the extension.
c = get_config()  # noqa: F821
c.InteractiveShellApp.extensions.append("slowtorch_lite")
# The notebook's folder is not put before the installed packages, where each of
# the kernel's imports at start would look into it first (a request answered by
# the page): the extension puts it on sys.path last, once the kernel is up.
c.InteractiveShellApp.ignore_cwd = True
"""


def log(message: str) -> None:
    print(f"build_lite: {message}", flush=True)


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------------------------
# Wheels built from this checkout
# ------------------------------------------------------------------------------------


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
    for path, data in files.items():
        writer.writerow([path, _record_hash(data), len(data)])
    writer.writerow([f"{info}/RECORD", "", ""])
    files[f"{info}/RECORD"] = record.getvalue().encode()
    wheel = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
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


# ------------------------------------------------------------------------------------
# Wheels from PyPI
# ------------------------------------------------------------------------------------


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


# ------------------------------------------------------------------------------------
# Pyodide and its lock file
# ------------------------------------------------------------------------------------


def check_pyodide_version() -> str:
    from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION

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


# ------------------------------------------------------------------------------------
# Notebooks
# ------------------------------------------------------------------------------------

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}[ \t]*(?P<arg>.*)$"
)
ROLE = re.compile(r"\{(?P<role>[\w:-]+)\}`(?P<text>[^`]*)`")


def toc_files() -> list[str]:
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    files.append(node[key])
            if isinstance(node.get("glob"), str):
                for path in sorted(ROOT.glob(node["glob"])):
                    if path.suffix in {".md", ".ipynb"}:
                        files.append(path.relative_to(ROOT).with_suffix("").as_posix())
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return list(dict.fromkeys(files))


def notebook_source(entry: str) -> Path | None:
    """The notebook behind a TOC entry: .ipynb, or MyST markdown with a kernelspec."""
    for suffix in (".ipynb", ".md"):
        path = ROOT / (entry + suffix)
        if path.is_file():
            if suffix == ".ipynb":
                return path
            head = path.read_text(encoding="utf-8")[:2000]
            if head.startswith("---") and "kernelspec:" in head.split("\n---", 1)[0]:
                return path
    return None


def _pyobject(source: str, dotted: str) -> str | None:
    tree = ast.parse(source)
    nodes: list[ast.AST] = [tree]
    for part in dotted.split("."):
        body = [c for n in nodes for c in getattr(n, "body", [])]
        nodes = [
            n
            for n in body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.name == part
        ]
        if not nodes:
            return None
    node = nodes[0]
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    lines = source.splitlines()[first - 1 : node.end_lineno]
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[indent:] for x in lines)


def _include(
    base: Path, argument: str, options: dict[str, str], root: Path = ROOT
) -> str:
    """The code a ``literalinclude`` quotes, as a fenced block; a file of this
    checkout is read from ``root`` instead (a class edition's, stubs and all)."""
    path = (base / argument.strip()).resolve()
    if root != ROOT and path.is_relative_to(ROOT):
        path = root / path.relative_to(ROOT)
    language = options.get("language", "python" if path.suffix == ".py" else "")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return f"*(The book shows `{argument.strip()}` here.)*"
    if "pyobject" in options:
        code = _pyobject(text, options["pyobject"].strip())
        if code is None:
            return (
                f"*(The book shows `{options['pyobject']}` from `{path.name}` here.)*"
            )
        text = code
    elif "lines" in options:
        keep: list[str] = []
        all_lines = text.splitlines()
        for part in options["lines"].split(","):
            start, _, end = part.strip().partition("-")
            keep += all_lines[int(start) - 1 : int(end or start)]
        text = "\n".join(keep)
    return f"```{language}\n{text.rstrip()}\n```"


def plain_markdown(text: str, base: Path, root: Path = ROOT) -> str:
    """MyST directives and roles as plain Markdown, which JupyterLab renders
    (quoted files of this checkout read from ``root``, see :func:`_include`)."""
    lines = text.split("\n")
    out: list[str] = []
    prose: list[str] = []  # lines outside directives; a role may span two of them
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            prose.append(lines[i])
            i += 1
            continue
        if prose:
            out.append(ROLE.sub(_role, "\n".join(prose)))
            prose = []
        fence, name, argument = match["fence"], match["name"], match["arg"].strip()
        indent = match["indent"]
        body: list[str] = []
        depth = 0
        i += 1
        while i < len(lines):
            inner = FENCE.match(lines[i])
            if (
                inner
                and inner["fence"][0] == fence[0]
                and len(inner["fence"]) == len(fence)
            ):
                depth += 1
            elif lines[i].strip() == fence and depth == 0:
                break
            elif lines[i].strip() == fence:
                depth -= 1
            body.append(
                lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i]
            )
            i += 1
        i += 1
        start = len(out)
        options: dict[str, str] = {}
        while body and re.match(r"^:[\w-]+:", body[0]):
            key, _, value = body.pop(0)[1:].partition(":")
            options[key.strip()] = value.strip()
        if name == "literalinclude":
            out.append(_include(base, argument, options, root))
        elif name in {"math"}:
            out.append("$$\n" + "\n".join(body).strip() + "\n$$")
        elif name in {"code", "code-block", "sourcecode"}:
            out.append(f"```{argument}\n" + "\n".join(body) + "\n```")
        elif name in {"figure", "image"}:
            caption = plain_markdown("\n".join(body), base, root).strip()
            out.append(
                f"![{caption}]({argument})" + (f"\n\n*{caption}*" if caption else "")
            )
        elif name in {"toctree", "tableofcontents", "bibliography", "glue:figure"}:
            continue
        else:
            title = argument or name.replace("-", " ").capitalize()
            inner_text = plain_markdown("\n".join(body), base, root).strip()
            quoted = "\n".join("> " + x if x else ">" for x in inner_text.split("\n"))
            out.append(f"> **{title}**\n>\n{quoted}")
        if indent:
            # A directive inside a list item: its replacement stays in the item.
            out[start:] = [
                "\n".join(indent + x if x else x for x in block.split("\n"))
                for block in out[start:]
            ]
    if prose:
        out.append(ROLE.sub(_role, "\n".join(prose)))
    return "\n".join(out)


def _role(match: re.Match[str]) -> str:
    role, text = match["role"], match["text"]
    if role == "math":
        return f"${text}$"
    label = re.match(r"^(.*?)\s*<([^>]*)>$", text, re.DOTALL)
    if role == "doc" and label:  # another notebook of the course: a link to it
        return f"[{label.group(1)}]({label.group(2)}.ipynb)"
    return (
        f"*{label.group(1) if label else text}*"
        if role in {"ref", "doc", "numref"}
        else (f"`{text}`")
    )


#: Where the book build leaves its executed notebooks (outputs, figures, widgets).
EXECUTED = ROOT / "_build" / "jupyter_execute"
#: The desktop kernel's name, for the chapter notebooks JupyterLab opens.
DESKTOP_KERNELSPEC = {
    "name": "python3",
    "display_name": "Python 3 (ipykernel)",
    "language": "python",
}


def executed_notebook(source: Path) -> Any:
    """The book build's executed copy of a chapter, or None (not built yet)."""
    import nbformat

    if source.suffix != ".md":
        return None
    path = EXECUTED / source.relative_to(ROOT).with_suffix(".ipynb")
    if not path.is_file():
        return None
    return nbformat.read(path, as_version=4)


def _add_outputs(notebook: Any, executed: Any) -> int:
    """Copies the executed notebook's outputs into the cells with the same code."""
    built = [c for c in executed.cells if c.cell_type == "code"]
    cells = [c for c in notebook.cells if c.cell_type == "code"]
    if len(built) != len(cells):
        return 0
    copied = 0
    for cell, done in zip(cells, built):
        if cell.source.strip() == done.source.strip():
            cell.outputs = done.outputs
            cell.execution_count = done.execution_count
            copied += 1
    widgets = executed.metadata.get("widgets")
    if widgets:
        notebook.metadata["widgets"] = widgets
    return copied


def write_notebook(
    source: Path,
    target: Path,
    kernelspec: dict[str, str] | None = None,
    with_outputs: bool = True,
    root: Path = ROOT,
) -> None:
    """A runnable notebook from a chapter (MyST) or an exercise notebook: quoted code
    written out (read from ``root``'s files), plain Markdown, the book build's
    outputs when there are some, cells trusted (they are the course's own), stable
    cell ids."""
    import jupytext
    import nbformat

    notebook = jupytext.read(source)
    for index, cell in enumerate(notebook.cells):
        # Unique in a folder: the browser's matplotlib stand-in finds a cell's
        # stored figures by its id.
        cell["id"] = f"{source.stem[:50]}-{index}"
        if cell.cell_type == "markdown":
            cell.source = plain_markdown(cell.source, source.parent, root)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata["trusted"] = True
    executed = executed_notebook(source) if with_outputs else None
    if executed is not None:
        _add_outputs(notebook, executed)
    class_chapter = root != ROOT and source.suffix == ".md"
    if class_chapter:
        notebook.cells.insert(0, _keep_book_outputs_cell(source.stem))
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["kernelspec"] = dict(kernelspec or KERNELSPEC)
    notebook.metadata["language_info"] = {"name": "python"}
    notebook.nbformat, notebook.nbformat_minor = 4, 5
    nbformat.validate(notebook)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Written as it is: nbformat.write would drop the cells' "trusted" flag, which is
    # what JupyterLite reads (a Jupyter server checks its signature instead).
    text = json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    target.write_text(text, encoding="utf-8")
    if class_chapter:  # the book's version, which the chapter shows and restores
        kept = target.parent / BOOK_VERSION / target.name
        kept.parent.mkdir(exist_ok=True)
        kept.write_text(text, encoding="utf-8")


#: The first cell of a class edition's chapter (see course/book_outputs.py).
KEEP_BOOK_OUTPUTS = """\
# Where your engine lacks a piece this chapter needs, a cell shows the book's
# output, and says which exercise makes it run on your engine.
# book_outputs.restore({chapter!r}) puts this notebook back as the book has it.
from course import book_outputs

book_outputs.keep({chapter!r})"""


def _keep_book_outputs_cell(chapter: str) -> Any:
    import nbformat

    cell = nbformat.v4.new_code_cell(KEEP_BOOK_OUTPUTS.format(chapter=chapter))
    cell["id"] = f"{chapter[:50]}-book-outputs"
    cell.metadata["trusted"] = True
    return cell


#: Where the set-up writes the chapters as notebooks for desktop JupyterLab
#: (git-ignored; the MyST files in book/ stay the source).
CHAPTERS = ROOT / "chapters"


def trust(path: Path) -> None:
    """Signs a notebook for this user's Jupyter, so that it opens trusted."""
    import nbformat

    try:
        from nbformat.sign import NotebookNotary

        NotebookNotary().sign(nbformat.read(path, as_version=4))
    except Exception as error:  # noqa: BLE001 - untrusted only means a warning there
        log(f"could not mark {path.name} as trusted: {error}")


def write_desktop_chapters(
    folder: Path = CHAPTERS, root: Path = ROOT, sign: bool = True
) -> list[Path]:
    """Every chapter as a runnable notebook for JupyterLab on the desktop, the
    engine's code it quotes read from ``root`` (a class edition's, for its
    ``chapters/``); signed as trusted for this user if ``sign``."""
    written = []
    for entry in toc_files():
        source = notebook_source(entry)
        if source is None or source.suffix != ".md":
            continue
        target = folder / source.with_suffix(".ipynb").name
        write_notebook(source, target, DESKTOP_KERNELSPEC, root=root)
        if sign:
            trust(target)
        written.append(target)
    return written


def copy_helpers(folder: Path, target: Path) -> None:
    """The helper modules and data next to a notebook (book/ch01/...), for imports."""
    for path in folder.iterdir():
        if path.name in SKIPPED or path.name.startswith((".", "_")):
            continue
        if path.is_dir():
            shutil.copytree(
                path,
                target / path.name,
                ignore=shutil.ignore_patterns(*SKIPPED, "*.pyc"),
            )
        elif path.suffix not in {".md", ".ipynb"} or path.name == "README.md":
            if path.suffix == ".md" and notebook_source(str(path.with_suffix(""))):
                continue
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / path.name)


#: A class site's welcome page: the page script opens it in JupyterLab when the
#: site's address is opened (lite/loading.js).
CLASS_WELCOME = LITE / "class_welcome.md"
CLASS_WELCOME_PAGE = "WELCOME.md"


def write_contents(
    contents: Path, root: Path = ROOT, chapters: bool = True
) -> list[str]:
    """Every chapter and exercise notebook, as the lite site serves them: the
    exercises of ``root`` (a class edition's, for its site), the chapters unless
    not ``chapters`` (quoting the engine of ``root``)."""
    written: list[str] = []
    folders: set[Path] = set()
    sources = [notebook_source(entry) for entry in toc_files()] if chapters else []
    if root != ROOT:  # a class edition's exercise notebooks, not the book's
        sources = [s for s in sources if s and not s.is_relative_to(ROOT / "exercises")]
    sources += sorted((root / "exercises").glob("*.ipynb"))
    for source in dict.fromkeys(s for s in sources if s is not None):
        base = root if source.is_relative_to(root) else ROOT
        relative = source.relative_to(base).with_suffix(".ipynb")
        write_notebook(source, contents / relative, root=root)
        written.append(relative.as_posix())
        folders.add(source.parent)
    for folder in sorted(folders):
        base = root if folder.is_relative_to(root) else ROOT
        copy_helpers(folder, contents / folder.relative_to(base))
    if root != ROOT:  # a class site: its welcome page in place of the desktop's notes
        (contents / "exercises" / "README.md").unlink(missing_ok=True)
        shutil.copy2(CLASS_WELCOME, contents / CLASS_WELCOME_PAGE)
    (contents / "lite-notebooks.json").write_text(json.dumps(written, indent=1) + "\n")
    return written


# ------------------------------------------------------------------------------------
# The build
# ------------------------------------------------------------------------------------


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


#: The lite pages that open a notebook; they get the "Python is loading" note.
LOADING_PAGES = ["notebooks/index.html", "lab/index.html"]


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


def wait_for_service_worker(output: Path = OUTPUT) -> None:
    """Makes the kernel wait until the service worker controls the page before it
    decides whether to mount ``/drive`` (see the module's docstring)."""
    folder = kernel_static(output)
    paths = sorted(folder.glob("*.js"))
    patch_once(paths, MOUNT_DRIVE, WAITED, "the kernel's start (mountDrive)")


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
    9.6 MB again."""
    path = output / "service-worker.js"
    patch_once([path], ANSWER_ALL, ANSWER_STORAGE, "the service worker's fetch handler")


#: Where ``lite/loading.js`` learns the kernel's worker script (from the build).
KERNEL_WORKER_NAME = "const KERNEL_WORKER = null;"


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
    the kernel's worker script (which the page starts early)."""
    script = (LITE / "loading.js").read_text(encoding="utf-8")
    if script.count(KERNEL_WORKER_NAME) != 1:
        raise SystemExit(f"build_lite: lite/loading.js lacks {KERNEL_WORKER_NAME!r}")
    named = f"const KERNEL_WORKER = {json.dumps(kernel_worker(output))};"
    script = script.replace(KERNEL_WORKER_NAME, named)
    (output / "slowtorch-loading.js").write_text(script, encoding="utf-8")
    tag = '<script src="../slowtorch-loading.js" defer></script>'
    for page in LOADING_PAGES:
        path = output / page
        text = path.read_text(encoding="utf-8")
        if tag not in text:
            path.write_text(text.replace("</head>", f"    {tag}\n</head>", 1))


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
    check_output(preload, notebooks, output)
    wait_for_service_worker(output)
    leave_files_to_the_browser(output)
    add_loading_note(output)
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


if __name__ == "__main__":
    sys.exit(main())
