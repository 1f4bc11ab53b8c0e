"""A Sphinx extension: a "Run in your browser" link on every page built from a notebook.

The link opens the page's notebook in the book's own JupyterLite site (``lite/``, built
by ``scripts/build_lite.py`` after the book), where the notebook runs in the browser
with the Pyodide kernel. A page is a notebook when its source is an ``.ipynb`` file or
MyST markdown whose front matter names a ``kernelspec``; the lite site keeps the
repository's paths, with the suffix ``.ipynb``. Enabled in ``_config.yml``
(``sphinx.local_extensions``).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

LITE_APP = "lite/notebooks/index.html"
LABEL = "Run this notebook in your browser"
HINT = "no install: Python runs in this tab; your edits stay in this browser"


def _is_notebook(source: Path) -> bool:
    if source.suffix == ".ipynb":
        return True
    if source.suffix != ".md" or not source.is_file():
        return False
    head = source.read_text(encoding="utf-8")[:2000]
    return head.startswith("---") and "kernelspec:" in head.split("\n---", 1)[0]


def _add_link(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    if doctree is None or "body" not in context:
        return
    try:
        source = Path(app.env.doc2path(pagename))
    except Exception:  # noqa: BLE001 - generated pages (genindex, search) have none
        return
    if not _is_notebook(source):
        return
    root = Path(app.srcdir)
    notebook = source.relative_to(root).with_suffix(".ipynb").as_posix()
    href = context["pathto"](LITE_APP, 1) + "?path=" + html.escape(notebook)
    link = (
        '<div class="slowtorch-lite admonition tip">'
        f'<p><a class="reference external" href="{href}" target="_blank" '
        f'rel="noopener">&#9654; {LABEL}</a> <span>({HINT})</span></p></div>\n'
    )
    context["body"] = link + context["body"]


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _add_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
