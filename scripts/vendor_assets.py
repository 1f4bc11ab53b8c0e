"""Copy the browser assets the book serves itself into ``book/_vendor``.

The npm packages are installed into ``scripts/assets/node_modules`` by
``scripts/setup.sh`` (versions pinned in ``scripts/assets/package-lock.json``). Only the
files a page needs are copied; Sphinx then publishes ``book/_vendor`` as ``_static/``
(see ``html_static_path`` in ``_config.yml``). Nothing copied here is committed:
``book/_vendor`` ignores itself.

Usage: python scripts/vendor_assets.py
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ROOT / "scripts" / "assets" / "node_modules"
TARGET = ROOT / "book" / "_vendor"

# (package folder, paths inside it to copy, destination folder under TARGET)
ASSETS = [
    (
        "mathjax/es5",
        [
            "tex-mml-chtml.js",
            "input/tex/extensions",
            "output/chtml/fonts/woff-v2",
            "ui",
            "a11y",
        ],
        "mathjax",
    ),
    ("mathjax", ["LICENSE"], "mathjax"),
    ("requirejs", ["require.js"], "requirejs"),
    ("@jupyter-widgets/html-manager", ["dist", "LICENSE"], "html-manager"),
]

# Source maps and the bundles the pages never load.
SKIPPED_NAMES = {"embed.js", "embed.js.LICENSE.txt", "libembed-amd.js"}


def _skip(_folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n.endswith(".map") or n in SKIPPED_NAMES}


def _copy(source: Path, destination: Path) -> None:
    if source.is_dir():
        shutil.copytree(source, destination, ignore=_skip, dirs_exist_ok=True)
    else:
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)


def main() -> int:
    """Copy every asset; return a process exit code."""
    missing = [pkg for pkg, _, _ in ASSETS if not (MODULES / pkg).is_dir()]
    if missing:
        print(
            f"vendor_assets: {', '.join(missing)} not installed in {MODULES}; "
            "run scripts/setup.sh first (it runs 'npm ci' in scripts/assets).",
            file=sys.stderr,
        )
        return 1
    if TARGET.exists():
        shutil.rmtree(TARGET)
    TARGET.mkdir(parents=True)
    (TARGET / ".gitignore").write_text("# Filled by scripts/vendor_assets.py\n*\n")
    for package, paths, folder in ASSETS:
        for relative in paths:
            source = MODULES / package / relative
            if not source.exists():
                if relative == "LICENSE":
                    continue
                print(f"vendor_assets: {source} is missing", file=sys.stderr)
                return 1
            destination = TARGET / folder / relative
            if package.endswith("html-manager") and relative == "dist":
                destination = TARGET / folder
            _copy(source, destination)
    size = sum(f.stat().st_size for f in TARGET.rglob("*") if f.is_file())
    print(f"vendor_assets: {TARGET.relative_to(ROOT)} ready ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
