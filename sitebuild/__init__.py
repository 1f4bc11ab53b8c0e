"""The build of the in-browser course (JupyterLite, Pyodide kernel) into
``_build/html/lite``, and of the chapters as notebooks for desktop JupyterLab.

``scripts/build_lite.py`` is the command; a class edition's site and chapters
(``course/class_site.py``, ``course/edition.py``) use the same modules. Nothing
the site needs at page time comes from another host. One module a job:

- :mod:`sitebuild.paths`: where the sources, the stage, the output and the
  kernel's extension are; the build's log.
- :mod:`sitebuild.wheels`: the wheels built from this checkout, downloaded from
  PyPI and shipped with the kernel, compiled by Pyodide's Python.
- :mod:`sitebuild.kernel_lock`: Pyodide copied into the site and its lock file
  rewritten (what the site serves, what loads at start).
- :mod:`sitebuild.notebooks`: the book's MyST chapters as runnable notebooks
  (quoted code, plain Markdown, the book's outputs), for the browser and the
  desktop.
- :mod:`sitebuild.contents`: the notebooks and helper files the site serves.
- :mod:`sitebuild.settings`: ``jupyter-lite.json``, and the check that the build
  kept it.
- :mod:`sitebuild.patches`: the changes to JupyterLite's built code, with the
  versions they were written against and the check of those versions.
- :mod:`sitebuild.build`: the steps in order (``main``).
"""
