#!/usr/bin/env bash
# Set up everything the book needs and build it into _build/html.
#
# Installs, when missing: a virtual environment in .venv with requirements.txt and the
# engine (pip install -e .); a `dot` executable (Debian's graphviz + fonts-liberation2, else
# graphviz-pure in the venv); node/npm (Debian packages) and the pinned npm packages in
# scripts/assets (including Pyodide and Graphviz-in-WebAssembly for the in-browser
# notebooks). Then builds the book with warnings as errors, and the JupyterLite site
# into _build/html/lite (scripts/build_lite.py).
# Run as root or with sudo available on Debian/Ubuntu. Safe to run again: done steps are skipped.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

setup_book
build_book || die "the book build failed (warnings count as errors): see the messages above"
log "book built: open $ROOT/_build/html/index.html (the in-browser notebooks are in \
_build/html/lite; serve the folder over HTTP, e.g. .venv/bin/python -m http.server -d _build/html)"
