"""What the in-browser site serves as files: every chapter named in ``_toc.yml``
(converted by :mod:`sitebuild.notebooks`), the folders of helper modules next to
them, and every notebook in ``exercises/``, all with the browser kernel's name
(``python``); for a class site, the class edition's exercises and its welcome
page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sitebuild.notebooks import (
    copy_helpers,
    notebook_source,
    toc_files,
    write_notebook,
)
from sitebuild.paths import LITE, ROOT

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
