"""JupyterLab settings for the course: ``python -m course lab-settings``.

Writes (or updates) ``overrides.json`` in the JupyterLab settings folder of
the environment this Python runs in (``{sys.prefix}/share/jupyter/lab/
settings``), so that a double-click on a chapter's MyST file (``book/*.md``)
opens it as a notebook, through jupytext, instead of as text, and JupyterLab
does not ask whether to fetch news. Other settings already in the file are kept.
Next to it, ``etc/jupyter/labconfig/page_config.json`` disables the in-browser
kernel's extension (installed for the JupyterLite build; JupyterLab on the
desktop cannot load it and says so in the browser's console). Run by
``scripts/build-book.sh``.
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
#: Lab extensions for the browser build only, disabled on the desktop.
BROWSER_ONLY = ["@jupyterlite/pyodide-kernel-extension"]


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
    write_page_config(page_config_file(path))
    return path


def page_config_file(settings: Path) -> Path:
    """``{prefix}/etc/jupyter/labconfig/page_config.json`` for a settings file
    ``{prefix}/share/jupyter/lab/settings/overrides.json``."""
    prefix = settings.parents[4]
    return prefix / "etc" / "jupyter" / "labconfig" / "page_config.json"


def write_page_config(path: Path) -> Path:
    """Disables the browser-only lab extensions (as ``jupyter labextension
    disable`` does), keeping the rest of the file."""
    current: dict[str, Any] = {}
    if path.exists():
        current = json.loads(path.read_text(encoding="utf-8") or "{}")
    disabled = current.setdefault("disabledExtensions", {})
    disabled.update(dict.fromkeys(BROWSER_ONLY, True))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(current, indent=2) + "\n", encoding="utf-8")
    return path
