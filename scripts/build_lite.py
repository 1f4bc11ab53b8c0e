"""Build the in-browser course (JupyterLite, Pyodide kernel) into ``_build/html/lite``.

It also writes the chapters as notebooks for desktop JupyterLab into ``chapters/``
(git-ignored): the same conversion, the desktop kernel's name, the book's outputs,
marked trusted for this user. The steps live in the ``sitebuild`` package (one
module a job, see its docstring); this file is the command the set-up runs.

Usage: python scripts/build_lite.py   (after scripts/lib.sh installed the npm assets)
       python scripts/build_lite.py --chapters   (only the desktop chapter notebooks)
"""

from __future__ import annotations

import sys

from sitebuild.build import main

if __name__ == "__main__":
    sys.exit(main())
