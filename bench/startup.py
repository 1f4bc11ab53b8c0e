"""``python -m bench.startup``: how long the in-browser course takes to start.

For each chapter of the built lite site (``bash scripts/build-book.sh``), the time
from opening its page to its first executed cell, in headless Chromium with a
profile of its own that keeps its cache on disk, as a student's browser does:

* **cold**: the first chapter, opened first in a new profile (nothing cached,
  the site's service worker not yet registered);
* **warm**: every chapter opened after that in the same profile (the site's files
  come from the browser's cache; the first chapter's is its second visit).

Each round starts a new profile; the medians over the rounds are printed with
the fastest and slowest run, the machine's load average and where the time went
in the last round. The targets: 10 s cold, 5 s warm, on a quiet machine. The
start-up test (``tests/browser/test_lite.py``) makes the same visits once.

Usage: python -m bench.startup [--rounds N]   (default 5)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from tests.browser.serving import HTML, launched, missing_browser, served, with_profile
from tests.browser.startup import FirstCell, chapters, open_and_run_first_cell

COLD_TARGET = 10.0
WARM_TARGET = 5.0


def one_round(browser: object, site: str, paths: list[str]) -> list[FirstCell]:
    """The first chapter cold, then every chapter warm, in a new profile."""
    with with_profile(browser) as context:
        return [open_and_run_first_cell(context, site, path) for path in paths]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.startup")
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args(argv).rounds
    if not (HTML / "lite" / "jupyter-lite.json").is_file():
        print(
            f"no lite site in {HTML}: run bash scripts/build-book.sh", file=sys.stderr
        )
        return 2
    reason = missing_browser()
    if reason:
        print(reason, file=sys.stderr)
        return 2
    paths = chapters()
    visits = [("cold", paths[0])] + [("warm", path) for path in paths]
    seconds: list[list[float]] = [[] for _ in visits]
    last: list[FirstCell] = []
    with served(HTML) as site, launched() as browser:
        for number in range(rounds):
            last = one_round(browser, site, [path for _, path in visits])
            for times, opened in zip(seconds, last, strict=True):
                times.append(opened.seconds)
            shown = " ".join(f"{opened.seconds:.1f}" for opened in last)
            print(f"round {number + 1}/{rounds}: {shown}", flush=True)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nseconds to the first executed cell, {rounds} rounds", end="")
    print(f" (load average {load}; {os.cpu_count()} cores)")
    met = True
    for (kind, path), times in zip(visits, seconds, strict=True):
        target = COLD_TARGET if kind == "cold" else WARM_TARGET
        median = statistics.median(times)
        met = met and median <= target
        print(
            f"{kind:4} {path:32} median {median:4.1f}  "
            f"(fastest {min(times):.1f}, slowest {max(times):.1f}; target {target:.0f})"
        )
    print("\nwhere the time went (last round, s from opening):")
    for (kind, path), opened in zip(visits, last, strict=True):
        print(f"{kind} {path}: {opened.steps}")
    print("\nevery median within its target" if met else "\na median missed its target")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
