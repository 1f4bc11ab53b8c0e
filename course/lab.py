"""JupyterLab settings for the course: ``python -m course lab-settings``.

Writes (or updates) ``overrides.json`` in the JupyterLab settings folder of
the environment this Python runs in (``{sys.prefix}/share/jupyter/lab/
settings``), so that a double-click on a chapter's MyST file (``book/*.md``)
opens it as a notebook, through jupytext, instead of as text, and JupyterLab
does not ask whether to fetch news. Other settings already in the file are kept.
Run by ``scripts/build-book.sh``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

VIEWERS = {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}
PLUGIN = "@jupyterlab/docmanager-extension:plugin"
#: No "Would you like to get notified about official Jupyter news?" prompt.
NEWS = {
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    }
}


def settings_file(prefix: str = sys.prefix) -> Path:
    return Path(prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


def write_settings(path: Path | None = None) -> Path:
    """Merges the course's default viewers into ``overrides.json``."""
    path = path or settings_file()
    current: dict[str, Any] = {}
    if path.exists():
        current = json.loads(path.read_text(encoding="utf-8") or "{}")
    plugin = current.setdefault(PLUGIN, {})
    plugin.setdefault("defaultViewers", {}).update(VIEWERS)
    for name, values in NEWS.items():
        current.setdefault(name, {}).update(values)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(current, indent=2) + "\n", encoding="utf-8")
    return path
