#!/usr/bin/env bash
# Everything CI checks, in order: set-up (as build-book.sh, plus requirements-test.txt with
# torch==2.13.0 CPU and playwright, and Debian's chromium and bubblewrap), then mypy, ruff
# (lint and format), pytest on tests/ (which also runs nbval on solutions/ and exercises/:
# tests/test_course.py, beside the grader), the book build, and the browser tests.
# Every step runs even when an earlier one failed; the script exits 1 if any failed.
#
# --quick: the developer's loop. mypy, ruff and every test that builds no whole pipeline
# (pytest -m "not browser and not pipeline": no graded class, no regenerated notebooks, no
# release, no book, no browser); set-up only of the virtual environment and `dot`.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

quick=0
case "${1:-}" in
    "") ;;
    --quick) quick=1 ;;
    *) die "usage: bash scripts/run-tests.sh [--quick]" ;;
esac

if [ "$quick" -eq 1 ]; then
    cd "$ROOT"
    ensure_venv
    pip_sync requirements.txt
    pip_sync requirements-test.txt
    ensure_dot
else
    setup_book
    pip_sync requirements-test.txt
fi
if [ "$quick" -eq 0 ] && [ ! -x /usr/bin/chromium ]; then
    apt_install chromium || die "the browser tests need /usr/bin/chromium \
(sudo apt-get install chromium)"
fi
# The grader runs student code inside bubblewrap (course/sandbox.py).
command -v bwrap >/dev/null 2>&1 || apt_install bubblewrap \
    || die "grading needs bubblewrap (sudo apt-get install bubblewrap)"

failed=()
passed=()
step() {
    local name="$1"
    shift
    log "$name: $*"
    local start=$SECONDS
    if "$@"; then
        passed+=("$name")
        echo "--> $name: ok ($((SECONDS - start)) s)"
    else
        failed+=("$name")
        echo "--> $name: FAILED ($((SECONDS - start)) s)"
    fi
}

cd "$ROOT"
# Tests run in two processes (pytest-xdist), one per core, a test file in one process
# so that what a file builds once (module fixtures) is built once. The notebooks run
# in order in one process: a chapter's exercises read the pieces the earlier ones saved.
workers=(-n "${SLOWTORCH_TEST_WORKERS:-2}" --dist loadfile)

step mypy "$VENV/bin/mypy" slowtorch_lib course
step ruff "$VENV/bin/ruff" check .
step ruff-format "$VENV/bin/ruff" format --check .
if [ "$quick" -eq 1 ]; then
    step pytest-quick "$VENV/bin/pytest" tests -m "not browser and not pipeline" \
        "${workers[@]}" -p no:cacheprovider
    echo
    echo "run-tests --quick: steps ok: ${passed[*]:-none}"
    if [ "${#failed[@]}" -gt 0 ]; then
        echo "run-tests --quick: steps FAILED: ${failed[*]}"
        exit 1
    fi
    echo "run-tests --quick: every step succeeded (the full run adds the whole pipelines:"
    echo "bash scripts/run-tests.sh)"
    exit 0
fi
step pytest "$VENV/bin/pytest" tests -m "not browser" "${workers[@]}" --durations=30 \
    -p no:cacheprovider
step book build_book
if [[ " ${failed[*]} " == *" book "* ]]; then
    failed+=("browser (not run: the book did not build)")
else
    # -rP: what the browser tests print (start-up times, the matrix product's) is shown.
    step browser env SLOWTORCH_REQUIRE_BROWSER=1 "$VENV/bin/pytest" tests/browser \
        -m browser "${workers[@]}" --durations=30 -p no:cacheprovider -rP
fi

echo
echo "run-tests: steps ok: ${passed[*]:-none}"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "run-tests: steps FAILED: ${failed[*]}"
    exit 1
fi
echo "run-tests: every step succeeded"
