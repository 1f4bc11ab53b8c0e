"""Every page of the built book meets WCAG 2.1 AA as axe-core checks it, and a
reader with a keyboard alone reaches every chapter and operates every widget.

- axe: axe-core (npm, pinned in ``scripts/assets/package-lock.json``) is injected
  into each page once its maths is typeset and its widgets are drawn, and run with
  the rules tagged ``wcag2a``, ``wcag2aa``, ``wcag21a`` and ``wcag21aa``. Every
  violation is printed with the elements it was found on; the test asks for none.
- maths: every typeset formula keeps MathJax's assistive MathML, which screen
  readers read.
- keyboard: from the first page, Tab and Enter only (Enter on a closed section of
  the sidebar opens it) reach every page of the table of contents in order; on a
  page with widgets, Tab reaches every control, a slider or a list moves with its
  arrow key, and the buttons are native buttons (Enter and Space press them).

Build the book first (``bash scripts/build-book.sh``); see test_site.py for how the
pages are served and Chromium is launched offline.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import test_site
from tests.browser.serving import ROOT
from tests.browser.test_site import PAGES, WAIT_FOR_MATHJAX, _expected, _toc_files

# The built book served from 127.0.0.1, and Chromium: test_site.py's fixtures.
site = test_site.site
browser = test_site.browser

pytestmark = [pytest.mark.browser, pytest.mark.pipeline]

AXE = ROOT / "scripts" / "assets" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

RUN_AXE = """
async (tags) => {
  const result = await axe.run(document, {
    runOnly: {type: "tag", values: tags},
    resultTypes: ["violations"],
  });
  return result.violations.map(v => ({
    id: v.id,
    help: v.help,
    nodes: v.nodes.map(n => n.target.join(" ")),
  }));
}
"""

# A widget's controls: what a keyboard must reach, and the key that changes each.
WIDGET_CONTROLS = """
() => Array.from(document.querySelectorAll(
    ".jupyter-widgets [role=slider], .jupyter-widgets select, "
    + ".jupyter-widgets input, .jupyter-widgets button"))
  .filter(el => !el.disabled && el.getClientRects().length > 0)
  .map((el, index) => {
    el.dataset.a11yControl = String(index);
    return el.outerHTML.slice(0, 120);
  })
"""

FOCUSED = """
() => {
  const el = document.activeElement;
  if (!el || el === document.body) { return null; }
  const details = el.tagName === "SUMMARY" ? el.parentElement : null;
  return {
    tag: el.tagName,
    href: el.tagName === "A" ? el.href : null,
    control: el.dataset ? (el.dataset.a11yControl || null) : null,
    role: el.getAttribute("role"),
    type: el.getAttribute("type"),
    closed: details ? !details.open : false,
    below: details ? Array.from(details.querySelectorAll("a")).map(a => a.href) : [],
    value: el.getAttribute("aria-valuenow") || el.value
      || el.getAttribute("aria-pressed") || el.className,
  };
}
"""

# Typeset formulas without the hidden MathML copy that screen readers read.
MATHS_WITHOUT_MATHML = """
() => Array.from(document.querySelectorAll("article mjx-container"))
  .filter(el => !el.querySelector("mjx-assistive-mml math"))
  .map(el => el.textContent.slice(0, 60))
"""

MAX_TABS = 600


def _unavailable() -> str | None:
    if not AXE.is_file():
        return f"{AXE} is missing: run 'bash scripts/build-book.sh' (npm ci)"
    return None


@pytest.fixture
def tab(site: str, browser: Any) -> Iterator[Any]:
    """A fresh page in a browser context that never leaves the local server."""
    context = browser.new_context()

    def route(route: Any) -> None:
        if route.request.url.startswith((site, "data:", "blob:")):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", route)
    # Generous: the pages are heavy (MathJax, widgets) and axe checks every element.
    context.set_default_timeout(120_000)
    try:
        yield context.new_page()
    finally:
        context.close()


def _settle(tab: Any, page: str) -> None:
    """Waits until the page's maths is typeset and its widgets are drawn."""
    expected = _expected(page)
    if expected.maths:
        tab.evaluate(WAIT_FOR_MATHJAX)
    if expected.widgets:
        tab.wait_for_function(
            "document.querySelectorAll('.jupyter-widgets').length >= "
            f"{expected.widgets}",
            timeout=60_000,
        )


def _content_pages() -> list[str]:
    return [p for p in PAGES if _expected(p).redirect is None]


@pytest.mark.parametrize("page", _content_pages() or ["(no built book)"])
def test_no_wcag_violations(page: str, tab: Any, site: str) -> None:
    """axe-core finds no WCAG 2.1 A or AA violation on the page."""
    reason = _unavailable()
    if reason:
        pytest.skip(reason)
    tab.goto(site + page, wait_until="load")
    _settle(tab, page)
    if _expected(page).maths:
        unread = tab.evaluate(MATHS_WITHOUT_MATHML)
        assert not unread, f"{page}: maths without assistive MathML: {unread[:5]}"
    tab.add_script_tag(path=str(AXE))
    violations = tab.evaluate(RUN_AXE, WCAG_TAGS)
    count = sum(len(v["nodes"]) for v in violations)
    print(f"{page}: {count} WCAG violations")
    for violation in violations:
        print(f"  {violation['id']} ({violation['help']}): {len(violation['nodes'])}")
        for target in violation["nodes"][:5]:
            print(f"    {target}")
    assert not violations, f"{page}: {count} WCAG 2.1 A/AA violations (printed above)"


def _tab_to(tab: Any, wanted: str) -> int:
    """Presses Tab until a link to ``wanted`` has the focus, opening with Enter any
    closed sidebar section that holds it; returns the number of key presses."""
    presses = 0
    while presses < MAX_TABS:
        tab.keyboard.press("Tab")
        presses += 1
        focused = tab.evaluate(FOCUSED)
        if focused is None:
            continue
        if focused["href"] and focused["href"].split("#")[0] == wanted:
            return presses
        if focused["closed"] and wanted in [h.split("#")[0] for h in focused["below"]]:
            tab.keyboard.press("Enter")
            presses += 1
    raise AssertionError(f"{MAX_TABS} presses of Tab never reached a link to {wanted}")


def test_keyboard_reaches_every_page(tab: Any, site: str) -> None:
    """From the first page, Tab and Enter alone open every page of the book."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = list(dict.fromkeys(_toc_files(toc)))
    # Then every other page of the book (the exercises: sections of the chapters).
    special = {"genindex.html", "search.html"}
    files += [
        page[: -len(".html")]
        for page in _content_pages()
        if page not in special and page[: -len(".html")] not in files
    ]
    tab.goto(site + files[0] + ".html", wait_until="load")
    walk = [files[0]]
    for name in files[1:]:
        wanted = site + name + ".html"
        presses = _tab_to(tab, wanted)
        with tab.expect_navigation():
            tab.keyboard.press("Enter")
        assert tab.url.split("#")[0] == wanted, f"Enter opened {tab.url}, not {wanted}"
        walk.append(f"{name} ({presses} keys)")
    print("keyboard walk: " + " -> ".join(walk))
    assert len(walk) == len(files)


# For each kind of control: the key that changes it, and the key that changes it back.
KEYS = {"SELECT": ("ArrowDown", "ArrowUp"), "slider": ("ArrowRight", "ArrowLeft")}


def _operate(tab: Any, focused: dict[str, Any]) -> bool:
    """Whether the focused control answers the keyboard. A slider or a list moves
    with its key (and is moved back, so that nothing else on the page changes); a
    button is a native <button>, which Enter and Space press."""
    if focused["tag"] == "BUTTON":
        return True
    forward, back = KEYS["SELECT" if focused["tag"] == "SELECT" else "slider"]
    tab.keyboard.press(forward)
    after = tab.evaluate(FOCUSED)
    if after is None or after["value"] == focused["value"]:
        tab.keyboard.press(back)  # at the end of its range: the other way
        after = tab.evaluate(FOCUSED)
        moved = after is not None and after["value"] != focused["value"]
        tab.keyboard.press(forward)
        return moved
    tab.keyboard.press(back)
    return True


WIDGET_PAGES = [p for p in _content_pages() if _expected(p).widgets]


@pytest.mark.parametrize("page", WIDGET_PAGES or ["(no page with widgets)"])
def test_keyboard_operates_every_widget(page: str, tab: Any, site: str) -> None:
    """Tab reaches every widget control of the page, and each answers its key."""
    if page not in WIDGET_PAGES:
        pytest.skip("no page with widgets")
    tab.goto(site + page, wait_until="load")
    _settle(tab, page)
    controls = tab.evaluate(WIDGET_CONTROLS)
    if not controls:
        print(f"{page}: widgets that show output only, no control")
        return
    reached: set[str] = set()
    inert: list[str] = []
    for _ in range(MAX_TABS):
        tab.keyboard.press("Tab")
        focused = tab.evaluate(FOCUSED)
        if focused is None or focused["control"] is None:
            continue
        if focused["control"] in reached:
            continue
        reached.add(focused["control"])
        if not _operate(tab, focused):
            inert.append(str(focused))
        if len(reached) == len(controls):
            break
    print(f"{page}: {len(reached)} of {len(controls)} widget controls reached")
    missed = [c for i, c in enumerate(controls) if str(i) not in reached]
    assert not missed, f"{page}: Tab never reached these controls: {missed}"
    assert not inert, f"{page}: controls that their key did not change: {inert}"
