"""The class site: a class edition's in-browser course (JupyterLite, Pyodide).

``python -m course release OUT/ --site`` writes, beside the class edition,
``OUT/site/``: the book's in-browser set-up (``sitebuild`` builds
both, with the same settings, Pyodide and kernel wheels), serving the class
edition's exercise notebooks and the wheels of the class edition's engine and
course in place of the complete ones. Put the folder on any static web host
(HTTPS, or ``localhost``) and a class works with nothing installed.

In the browser the notebooks' files live under ``/drive``, a file system of
the kernel kept in the browser's storage with the notebooks themselves. The
site ships ``exercises/my_engine/`` (its README), and a kernel starts in its
notebook's folder, so a check that passes saves the piece as
``/drive/exercises/my_engine/exN_M_name.py`` (see :mod:`course.saved_pieces`):
it is still there after a reload, and every notebook's kernel loads it when it
imports the engine. A notebook downloaded from the site (File > Download)
grades as any other.

The book's chapters are served too (in ``book/``), as in the class edition:
the engine's code they quote is the class engine's, stubs and all, and they
import the class engine, which loads the saved pieces of ``/drive/exercises/``.
Building needs the book's set-up (the npm assets in
``scripts/assets/node_modules`` and ``jupyterlite-core``); the kernel's wheels
and compiled byte code come from the book build's caches.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from sitebuild import build

__all__ = ["build_site"]


def build_site(edition: Path, site: Path) -> Path:
    """Builds the in-browser course of the class edition in ``edition`` into
    ``site`` (replaced if it exists). Returns ``site``.

    Raises:
        RuntimeError: If the build fails (its reason in the message).
    """
    with tempfile.TemporaryDirectory(prefix="class-site-") as stage:
        try:
            build.main(
                output=site.resolve(),
                stage=Path(stage) / "lite",
                root=edition.resolve(),
                chapters=True,
            )
        except SystemExit as error:
            raise RuntimeError(str(error.code)) from None
    return site
