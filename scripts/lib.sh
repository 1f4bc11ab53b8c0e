# Shared set-up steps for build-book.sh and run-tests.sh. Source it; do not run it.
#
# Every step checks first whether its work is already done, so a second run is fast:
# system packages are only installed when missing, pip runs only when a requirements file
# (or pyproject.toml) changed since the last install, npm only when its lock file changed.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
ASSETS="$ROOT/scripts/assets"
export PATH="$VENV/bin:$PATH"
# Deterministic execution of the book's notebooks (set and dict order, hashes).
export PYTHONHASHSEED=0
export PIP_DISABLE_PIP_VERSION_CHECK=1
export DEBIAN_FRONTEND=noninteractive

log() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf '\nERROR: %s\n' "$*" >&2; exit 1; }

# Run a command as root: directly when we are root, through sudo when it is available.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo -E "$@"
    else
        return 1
    fi
}

_apt_updated=0
# apt_install PKG...: install the Debian packages that are not installed yet.
# Returns non-zero when they could not be installed (no apt, no root, offline...).
apt_install() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$pkg")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    command -v apt-get >/dev/null 2>&1 || return 1
    log "apt-get install ${missing[*]}"
    if [ "$_apt_updated" -eq 0 ]; then
        as_root apt-get update -q || return 1
        _apt_updated=1
    fi
    as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# pip, without the warnings some machines print for every package about local index folders
# named in their pip configuration that do not exist.
_pip() {
    "$PY" -m pip "$@" 2>&1 | { grep -v "^WARNING: Location 'file:" || true; }
    return "${PIPESTATUS[0]}"
}

# A file's content hash, to notice when it changed since the last install.
_hash() { { cat "$@" 2>/dev/null || true; } | sha256sum | cut -d' ' -f1; }

ensure_venv() {
    if [ -x "$PY" ] && "$PY" -c 'import sys' >/dev/null 2>&1; then
        return 0
    fi
    local base
    base="$(command -v python3.11 || command -v python3 || true)"
    [ -n "$base" ] || { apt_install python3 python3-venv; base="$(command -v python3)"; } \
        || die "no python3 found; install Python 3.11 (e.g. apt-get install python3 python3-venv)"
    "$base" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
        || die "$base is older than Python 3.10; the requirements are pinned for Python 3.11"
    log "creating $VENV with $("$base" --version)"
    if ! "$base" -m venv "$VENV" 2>/dev/null; then
        rm -rf "$VENV"
        apt_install python3-venv || true
        "$base" -m venv "$VENV" \
            || die "could not create a virtual environment (apt-get install python3-venv)"
    fi
}

# pip_sync REQUIREMENTS_FILE: install it (and the engine, editable) unless nothing changed.
pip_sync() {
    local file="$1" stamp want
    stamp="$VENV/.installed-$(basename "$file")"
    want="$(_hash "$ROOT/$file" "$ROOT/requirements.txt" "$ROOT/pyproject.toml")"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
        && (cd /tmp && "$PY" -c 'import slowtorch_lib, course, sitebuild') >/dev/null 2>&1; then
        log "$file: already installed"
        return 0
    fi
    log "pip install -r $file"
    _pip install -q -r "$ROOT/$file" || die "pip install -r $file failed"
    log "pip install -e . (the engine; it has no dependencies)"
    _pip install -q -e "$ROOT" || die "pip install -e . failed"
    # JupyterLab opens the chapters (book/*.md) as notebooks on double-click.
    "$PY" -m course lab-settings || die "python -m course lab-settings failed"
    hide_lite_extension
    echo "$want" > "$stamp"
}

# JupyterLab loads every extension in .venv/share/jupyter/labextensions, even one it is told
# to disable, and the in-browser kernel's extension (installed by jupyterlite-pyodide-kernel)
# needs JupyterLite's own modules: on the desktop it logs "Shared module @jupyterlite/services
# doesn't exist". It is moved where only scripts/build_lite.py looks (LITE_EXTENSIONS there);
# after every pip install, which puts it back.
hide_lite_extension() {
    local from="$VENV/share/jupyter/labextensions/@jupyterlite"
    local to="$VENV/share/slowtorch-lite/labextensions"
    [ -d "$from" ] || return 0
    mkdir -p "$to"
    rm -rf "$to/@jupyterlite"
    mv "$from" "$to/" || die "could not move $from to $to"
}

# A `dot` executable for the graphviz Python package: Debian's graphviz where possible,
# else the pip-only graphviz-pure (a port, not Graphviz itself) linked as .venv/bin/dot.
ensure_dot() {
    if command -v dot >/dev/null 2>&1; then
        # Without these fonts dot warns about character widths; not fatal if missing.
        apt_install fonts-liberation2 >/dev/null 2>&1 || true
        return 0
    fi
    apt_install graphviz fonts-liberation2 || true
    command -v dot >/dev/null 2>&1 && return 0
    log "no system graphviz: installing graphviz-pure into the venv as 'dot'"
    _pip install -q graphviz-pure==0.2.2 && ln -sf graphviz-pure "$VENV/bin/dot"
    command -v dot >/dev/null 2>&1 || die "no 'dot' executable: install Graphviz \
(sudo apt-get install graphviz) or make 'pip install graphviz-pure' work, then run again"
}

# MathJax, require.js and the ipywidgets embed manager, served by the site itself.
ensure_web_assets() {
    if ! command -v npm >/dev/null 2>&1; then
        apt_install nodejs npm || die "npm is needed to fetch the book's JavaScript assets \
(sudo apt-get install nodejs npm)"
    fi
    local stamp="$ASSETS/node_modules/.installed-lock" want
    want="$(_hash "$ASSETS/package-lock.json")"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        log "npm assets: already installed"
    else
        log "npm ci (MathJax 3, require.js, @jupyter-widgets/html-manager, pyodide, @viz-js/viz, axe-core)"
        (cd "$ASSETS" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) \
            || die "npm ci failed in scripts/assets"
        echo "$want" > "$stamp"
    fi
    "$PY" "$ROOT/scripts/vendor_assets.py" || die "copying the web assets failed"
}

# Everything the book build needs.
setup_book() {
    cd "$ROOT"
    ensure_venv
    pip_sync requirements.txt
    hide_lite_extension
    ensure_dot
    ensure_web_assets
}

build_book() {
    log "jupyter-book build . -W -n --keep-going --all"
    (cd "$ROOT" && "$VENV/bin/jupyter-book" build . -W -n --keep-going --all) || return 1
    build_lite
}

# The in-browser course (JupyterLite, Pyodide) into _build/html/lite, after the book:
# the book's "Run this notebook in your browser" links point there. Fully offline at page
# time; see scripts/build_lite.py.
build_lite() {
    log "scripts/build_lite.py (JupyterLite with Pyodide into _build/html/lite)"
    "$PY" "$ROOT/scripts/build_lite.py"
}
