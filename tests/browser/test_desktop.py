"""Desktop JupyterLab, as the README's "Doing the exercises" starts it, in headless
Chromium: a chapter notebook opens with no console error and no dialog (no
"Select Kernel", no question about news, no error from an extension that only
works in the in-browser site).

Skipped without ``/usr/bin/chromium``, unless ``SLOWTORCH_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.serving import ROOT, launched, missing_browser, skip_or_fail

pytestmark = pytest.mark.browser

TOKEN = "slowtorch-desktop-test"
START_TIMEOUT = 120


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def desktop_lab(extra: list[str] | None = None) -> Iterator[str]:
    """JupyterLab from this environment, serving the repository; its base URL."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as home:
        env = dict(
            os.environ,
            JUPYTER_RUNTIME_DIR=str(Path(home, "runtime")),
            JUPYTERLAB_WORKSPACES_DIR=str(Path(home, "workspaces")),
            JUPYTER_CONFIG_DIR=str(Path(home, "config")),
        )
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--allow-root",
                f"--port={port}",
                "--ip=127.0.0.1",
                f"--IdentityProvider.token={TOKEN}",
                f"--ServerApp.root_dir={ROOT}",
                *(extra or []),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}/"
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while True:
                try:
                    urllib.request.urlopen(f"{base}api/status?token={TOKEN}", timeout=5)
                    break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        pytest.fail("JupyterLab did not start")
                    time.sleep(0.5)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def _notebook() -> str:
    """A chapter notebook written by the set-up, else a chapter 1 exercise."""
    for pattern in ("chapters/01_*.ipynb", "exercises/01_*.ipynb"):
        found = sorted(ROOT.glob(pattern))
        if found:
            return found[0].relative_to(ROOT).as_posix()
    pytest.fail("no chapter or exercise notebook to open")


def open_in_lab(base: str, path: str) -> tuple[list[str], list[str]]:
    """Opens ``path``; returns the console errors and the dialogs' texts."""
    errors: list[str] = []
    with launched() as browser:
        page = browser.new_page()
        page.on(
            "console",
            lambda message: (
                errors.append(message.text) if message.type == "error" else None
            ),
        )
        page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
        page.goto(f"{base}lab/tree/{path}?token={TOKEN}")
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=120_000)
        # The kernel starts and the notebook settles; a dialog would show by then.
        page.wait_for_function(
            "() => document.querySelector('.jp-Notebook')"
            " && !document.title.includes('Loading')",
            timeout=60_000,
        )
        page.wait_for_timeout(5000)
        dialogs = page.locator(".jp-Dialog").all_inner_texts()
        page.close()
    return errors, dialogs


def test_a_notebook_opens_quietly_in_desktop_jupyterlab() -> None:
    reason = missing_browser()
    if reason:
        skip_or_fail(reason)
    path = _notebook()
    with desktop_lab() as base:
        errors, dialogs = open_in_lab(base, path)
    print(f"\n[desktop] {path}: {len(errors)} console errors, {len(dialogs)} dialogs")
    assert not errors, (
        f"console errors in desktop JupyterLab: {errors} (an error from "
        "@jupyterlite/pyodide-kernel-extension: run the set-up again, "
        "scripts/lib.sh's hide_lite_extension moves it out of JupyterLab's way)"
    )
    assert not dialogs, f"desktop JupyterLab opened a dialog: {dialogs}"
