// Adds byte code compiled by Pyodide's own Python to pure-Python wheels and to
// Pyodide's standard library, so that the browser imports them without compiling
// every module at each kernel start.
//
// Usage: node lite/compile_wheels.mjs PYODIDE_DIR IN_DIR OUT_DIR
// Every IN_DIR/*.whl is written to OUT_DIR with, for each module, its
// __pycache__/NAME.cpython-3XY.pyc (unchecked-hash: used as it is, whatever the
// source's time stamp) and its RECORD completed. Every IN_DIR/*.zip (the standard
// library, imported from the zip itself) gets NAME.pyc next to NAME.py, where
// Python's zipimport looks for it. The .py files stay, for tracebacks.
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, inDir, outDir] = process.argv.slice(2).map((p) => path.resolve(p));
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")));
const pyodide = await loadPyodide({ indexURL: pyodideDir + "/" });
for (const [folder, mount] of [[inDir, "/in"], [outDir, "/out"]]) {
  pyodide.FS.mkdirTree(mount);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: folder }, mount);
}
const report = pyodide.runPython(`
import base64, hashlib, importlib.util, os, posixpath, sys, warnings, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

warnings.simplefilter("ignore")
TAG = sys.implementation.cache_tag
SITE = f"/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages/"
STDLIB = f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip/"


def digest(data):
    raw = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + raw.decode()


def compiled(source, path):
    code = compile(source, path, "exec", dont_inherit=True)
    return _code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False)


def convert(name):
    stdlib = not name.endswith(".whl")
    added = []
    record_name, record = None, b""
    with zipfile.ZipFile("/in/" + name) as source, zipfile.ZipFile(
        "/out/" + name, "w", zipfile.ZIP_DEFLATED
    ) as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                record_name, record = info.filename, data
                continue
            target.writestr(info, data)
            if not info.filename.endswith(".py") or ".data/" in info.filename:
                continue
            try:
                pyc = compiled(data, (STDLIB if stdlib else SITE) + info.filename)
            except (SyntaxError, ValueError):
                continue
            folder, file = posixpath.split(info.filename)
            if stdlib:
                where = info.filename[:-3] + ".pyc"
            else:
                where = posixpath.join(folder, "__pycache__", f"{file[:-3]}.{TAG}.pyc")
            entry = zipfile.ZipInfo(where, date_time=(2026, 1, 1, 0, 0, 0))
            entry.external_attr = 0o644 << 16
            target.writestr(entry, pyc, zipfile.ZIP_DEFLATED)
            added.append(f"{where},{digest(pyc)},{len(pyc)}")
        if record_name and not stdlib:
            lines = record.decode().rstrip("\\n").split("\\n") + added
            target.writestr(record_name, "\\n".join(lines) + "\\n")
    return f"{name}: {len(added)} modules"


"\\n".join(convert(n) for n in sorted(os.listdir("/in")) if n.endswith((".whl", ".zip")))
`);
console.log(report);
