"""A pytest plugin for the grader: writes each nbval cell's result as JSON.

Loaded with ``-p course.nbval_results``; the file to write is named by the
environment variable ``COURSE_RESULTS``. One record per notebook cell:
the notebook, the cell's tags and id, whether it passed, what the cell
printed (when nbval got as far as comparing outputs), and why it failed.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest

RESULTS: list[dict[str, Any]] = []
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def recording(item: Any) -> Any:
    """Wraps ``item.compare_outputs`` to keep the outputs the cell produced."""
    compare = item.compare_outputs

    def compare_and_keep(test: Any, reference: Any, *args: Any, **kwargs: Any) -> Any:
        item.course_printed = "".join(
            out.get("text", "") for out in test if out.get("output_type") == "stream"
        )
        return compare(test, reference, *args, **kwargs)

    return compare_and_keep


def pytest_collection_modifyitems(items: list[Any]) -> None:
    for item in items:
        if hasattr(item, "compare_outputs"):
            item.compare_outputs = recording(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Any:
    outcome = yield
    report = outcome.get_result()
    cell = getattr(item, "cell", None)
    if cell is None or report.when != "call":
        return
    reason = ""
    if call.excinfo is not None:
        error = call.excinfo.value
        reason = ANSI.sub("", f"{error}\n{getattr(error, 'inner_traceback', '') or ''}")
    RESULTS.append(
        {
            "notebook": str(item.fspath),
            "id": cell.get("id", ""),
            "tags": list(cell.get("metadata", {}).get("tags", [])),
            "passed": report.passed,
            "printed": getattr(item, "course_printed", None),
            "reason": reason,
        }
    )


def pytest_sessionfinish(session: Any) -> None:
    path = os.environ.get("COURSE_RESULTS")
    if path:
        with open(path, "w", encoding="utf-8") as file:
            json.dump(RESULTS, file)
