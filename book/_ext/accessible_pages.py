"""A Sphinx extension for pages every reader can use (WCAG 2.1 AA).

What the book's theme leaves out, added where the project controls it:

- The sidebar's buttons that open and close a chapter's sections (``<summary>``
  elements holding only a chevron icon) get a name: "Sections of <chapter>".
- The buttons that show a hidden cell's code ("Show code cell source") lose the
  aria-label "Toggle hidden content" that myst-nb gives them: their name is then the
  words they show (WCAG 2.5.3, label in name).
- Figures drawn by the chapters' code carry their own text alternative, made from
  the data they show: a graph drawn by ``slowtorch_lib.viz.make_dot`` has the graph's
  description as its SVG ``<title>``; a plot shown with ``book/figures.py`` has the
  description of its series in the PNG's ``Description`` text. That text becomes the
  image's ``alt`` on the page, so the words cannot drift from the figure.

Enabled in ``_config.yml`` (``sphinx.local_extensions``).
"""

from __future__ import annotations

import html
import re
import struct
import zlib
from pathlib import Path
from typing import Any

from docutils import nodes

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# The title Graphviz writes for a graph without a name.
ANONYMOUS_TITLE = re.compile(r"^(%\d+|G)$")
GRAPH_TITLE = re.compile(
    r'<g id="graph0" class="graph"[^>]*>\s*<title>(.*?)</title>', re.DOTALL
)


def png_description(data: bytes) -> str | None:
    """The ``Description`` text of a PNG file (tEXt, iTXt or zTXt), or None."""
    if not data.startswith(PNG_SIGNATURE):
        return None
    position = len(PNG_SIGNATURE)
    while position + 8 <= len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        keyword, _, rest = body.partition(b"\0")
        if keyword != b"Description":
            continue
        if kind == b"tEXt":
            return rest.decode("latin-1")
        if kind == b"zTXt":
            return zlib.decompress(rest[1:]).decode("latin-1")
        if kind == b"iTXt":
            compressed, rest = rest[0], rest[2:]
            _language, _, rest = rest.partition(b"\0")
            _translated, _, text = rest.partition(b"\0")
            return (zlib.decompress(text) if compressed else text).decode("utf-8")
    return None


def svg_description(text: str) -> str | None:
    """The title Graphviz wrote for the whole graph (its name), or None."""
    match = GRAPH_TITLE.search(text)
    if match is None:
        return None
    title = html.unescape(match.group(1)).strip()
    if not title or ANONYMOUS_TITLE.match(title):
        return None
    return title


def image_description(path: Path) -> str | None:
    """The text alternative an image file carries, or None."""
    if not path.is_file():
        return None
    if path.suffix == ".png":
        return png_description(path.read_bytes())
    if path.suffix == ".svg":
        return svg_description(path.read_text(encoding="utf-8", errors="replace"))
    return None


def _image_path(app: Any, node: nodes.image) -> Path:
    uri = str(node.get("candidates", {}).get("*", node["uri"]))
    path = Path(uri)
    if path.is_absolute() and path.is_file():
        return path
    return Path(app.srcdir) / uri.lstrip("/")


def _alt_from_images(app: Any, doctree: nodes.document, docname: str) -> None:
    for node in doctree.findall(nodes.image):
        description = image_description(_image_path(app, node))
        if description:
            node["alt"] = description


def _name_summaries(html_text: str) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html_text, "html.parser")
    for summary in soup.find_all("summary"):
        if summary.get_text(strip=True) or summary.get("aria-label"):
            continue
        item = summary.find_parent("li")
        link = item.find("a") if item is not None else None
        title = link.get_text(" ", strip=True) if link is not None else "this entry"
        summary["aria-label"] = f"Sections of {title}"
    return str(soup)


#: What myst-nb names every hidden cell's toggle, whatever it shows.
TOGGLE_LABEL = ' aria-label="Toggle hidden content"'


def _name_toggles_by_their_words(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    if "body" in context:
        context["body"] = context["body"].replace(TOGGLE_LABEL, "")


def _wrap_toctree(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    generate = context.get("generate_toctree_html")
    if generate is None:
        return

    def named(kind: str, *args: Any, **kwargs: Any) -> Any:
        result = generate(kind, *args, **kwargs)
        return _name_summaries(str(result)) if kind == "sidebar" else result

    context["generate_toctree_html"] = named


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-resolved", _alt_from_images)
    # After the theme, which puts generate_toctree_html in the context (priority 500).
    app.connect("html-page-context", _wrap_toctree, priority=900)
    app.connect("html-page-context", _name_toggles_by_their_words)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
