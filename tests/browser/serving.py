"""What both browser test files need: the built site served from 127.0.0.1,
and Debian's Chromium driven by playwright (no browser download)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The book's build folder; another book's can be tested with SLOWTORCH_BOOK_BUILD=PATH.
BUILD = Path(os.environ.get("SLOWTORCH_BOOK_BUILD", ROOT / "_build")).resolve()
HTML = BUILD / "html"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    # Offline without request interception (which turns the HTTP cache off): no
    # host name but the local server's resolves.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


def missing_browser() -> str | None:
    """Why Chromium cannot be driven here, or None."""
    if not CHROMIUM.is_file():
        return (
            f"{CHROMIUM} is missing: install Debian's chromium "
            "(apt-get install chromium)"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (requirements-test.txt)"
    return None


def skip_or_fail(reason: str) -> None:
    """Skips, or fails where ``SLOWTORCH_REQUIRE_BROWSER=1`` (run-tests.sh)."""
    if os.environ.get("SLOWTORCH_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without logging, with the types the in-browser site needs."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
    }

    #: Seconds to wait before answering a request for a file of this name.
    delays: Mapping[str, float] = {}
    #: What to answer, instead of the file, to a request for a file of this name.
    replaced: Mapping[str, bytes] = {}

    def do_GET(self) -> None:
        name = self.path.split("?")[0].rsplit("/", 1)[-1]
        time.sleep(self.delays.get(name, 0))
        if name not in self.replaced:
            super().do_GET()
            return
        body = self.replaced[name]
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(name))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def end_headers(self) -> None:
        # As static hosts do (GitHub Pages sends this): a page opened again within
        # ten minutes takes its files from the browser's cache.
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def served(
    directory: Path,
    delays: Mapping[str, float] | None = None,
    replaced: Mapping[str, bytes] | None = None,
) -> Iterator[str]:
    """The base URL of ``directory`` served from 127.0.0.1 on a free port; a
    request for a file named in ``delays`` is answered that many seconds late
    (a slow network, for one file), one for a file named in ``replaced`` with
    the bytes given there (a file of another version of the site, say)."""
    settings = {"delays": dict(delays or {}), "replaced": dict(replaced or {})}
    handler_class = type("Handler", (QuietHandler,), settings)
    handler = functools.partial(handler_class, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class Offline:
    """A browser context on one site with every request to another host blocked,
    and what it saw: the blocked requests, the failed responses and, on the pages
    it was asked to watch, the console errors."""

    def __init__(self, browser: Any, site: str, **options: Any) -> None:
        self.site = site
        self.outside: list[str] = []
        self.failed: list[str] = []
        self.errors: list[str] = []
        self.context = browser.new_context(accept_downloads=True, **options)
        # The kernel runs in a web worker, whose requests only the context sees.
        self.context.route("**/*", self._route)
        self.context.on("response", self._response)

    def watch(self, page: Any) -> Any:
        """Records the console errors of ``page``; returns it."""
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        return page

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith((self.site, "data:", "blob:")):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self.failed.append(f"{response.status} {response.url}")

    def close(self) -> None:
        self.context.close()


@contextlib.contextmanager
def with_profile(browser: Any) -> Iterator[Any]:
    """A context of ``browser``'s Chromium with a profile of its own (a temporary
    folder), which keeps its cache on disk as a student's browser does. A context
    from ``browser.new_context()`` is a private window's: it keeps its cache in
    memory, and its second visit to the site downloads Pyodide's WebAssembly
    (9.6 MB) and standard library (7 MB) again."""
    with tempfile.TemporaryDirectory(prefix="slowtorch-profile-") as folder:
        context = browser.browser_type.launch_persistent_context(
            folder, executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
        )
        try:
            yield context
        finally:
            context.close()


@contextlib.contextmanager
def launched() -> Iterator[Any]:
    """Debian's Chromium, headless."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
        )
        try:
            yield browser
        finally:
            browser.close()
