"""Hostile submissions: each tries to get marks without solving anything, to
change another student's grade, or to stop the class.

Each is the blank chapter 1 notebook with the attack in the answer cell of
exercise 1.5 (and, for some, 1.6), or a notebook file malformed in one way.
Each must score what the blank notebook scores, change no other student's
row and be named in the notes column: ``ATTACKS[student] = (builder, words
the notes must contain)``.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.grading.fixtures import CHAPTER1, notebook, solution_answer, with_answers

STUB = """
def contiguous_strides(shape):
    raise NotImplementedError
"""

LIAR = """
class Liar(tuple):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __hash__(self):
        return 0
    def __repr__(self):
        return "(12, 4, 1)"
    def __iter__(self):
        return iter(())
    def __len__(self):
        return 0

def contiguous_strides(shape):
    return Liar()
"""

INTERNALS = """
import gc, sys
always = (lambda *args, **kwargs: True).__code__
for thing in gc.get_objects():
    name = getattr(thing, "__name__", "")
    if callable(thing) and name in ("close", "evaluate", "plain", "send", "emit"):
        try:
            thing.__code__ = always
        except Exception:
            pass
glob = check.__globals__
glob["plain"] = lambda value, depth=0: [12, 4, 1]
frame = sys._getframe()
while frame is not None:
    frame.f_globals["expected"] = {}
    frame = frame.f_back
for cls in object.__subclasses__():
    if cls.__name__ in ("Runner", "Reader", "Answers"):
        cls.emit = lambda *args: None
"""

PATCH_STDLIB = """
import json, os, sys, builtins
json.dumps = lambda *a, **k: '{"kind": "case", "passed": 1000, "total": 1}'
json.loads = lambda *a, **k: {"kind": "case", "passed": 1000}
os.write = lambda fd, data: len(data)
builtins.len = lambda x: 1
sys.modules["json"] = json
"""

TRACE = """
import sys, threading
def tracer(frame, event, arg):
    if event == "return" and frame.f_code.co_name == "contiguous_strides":
        frame.f_locals["result"] = (12, 4, 1)
    return tracer
sys.settrace(tracer)
threading.settrace(tracer)
sys.setprofile(lambda *args: None)
"""

THREADS = """
import threading, signal, atexit, os, time
import slowtorch_lib._strides as strides
def patch():
    while True:
        strides.contiguous_strides = lambda shape: (12, 4, 1)
        time.sleep(0.001)
threading.Thread(target=patch, daemon=True).start()
signal.signal(signal.SIGALRM, lambda *args: patch)
signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)
atexit.register(lambda: os.write(1, b"forged 1000 of 1\\n"))
threading.Timer(0.05, patch).start()
"""

PROCESSES = """
import os, subprocess, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(3)
        for name in os.listdir("/tmp"):
            open("/tmp/" + name, "w").write("forged")
        os._exit(0)
    os._exit(0)
subprocess.Popen(["sleep", "600"], start_new_session=True)
"""

FILES = """
import os, glob
written = []
for pattern in ("/tmp/*/*.ipynb", "/tmp/*/grades.csv", "/runner/*.py",
                "/runner/course/checks/*.py", "/proc/1/root/*"):
    for path in glob.glob(pattern):
        try:
            with open(path, "a") as file:
                file.write("forged")
            written.append(path)
        except OSError:
            pass
for pid in os.listdir("/proc"):
    if pid.isdigit():
        for fd in ("0", "1", "2", "3", "4"):
            try:
                with open(f"/proc/{pid}/fd/{fd}", "w") as file:
                    file.write("x" * 40 + ' {"kind": "case", "passed": 1000}\\n')
            except OSError:
                pass
"""

KILL = """
import os, signal
for pid in (1, os.getppid(), -1):  # in the sandbox, the runner is process 1
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
"""

READ_ANSWERS = """
import os, json
found = {}
for top in ("/runner", "/tmp", "/root", "/work", "/home", "/proc/1/cwd"):
    for folder, _, names in os.walk(top):
        for name in names:
            if name.startswith("expected") or name.endswith(".ipynb"):
                try:
                    found[name] = open(os.path.join(folder, name)).read()
                except OSError:
                    pass
source = ""  # the engine's own piece, as text
for folder, _, names in os.walk("/runner/slowtorch_lib"):
    if "_strides.py" in names:
        source = open(os.path.join(folder, "_strides.py")).read()
"""

QUOTE_GRADING = """
import glob
quoted = ""
for path in sorted(glob.glob("/runner/course/checks/grading_ch01.py")):
    quoted = open(path).read()
def contiguous_strides(shape):
    raise ValueError(quoted[:300])
"""
QUOTED = "grading-only cases (left out of a student release)"

FORGED = """
import gc, os
for thing in gc.get_objects():
    if type(thing).__name__ == "Child":
        thing.send({"kind": "case", "passed": 1000, "total": 1})
        thing.send({"kind": "case", "index": 999, "label": "x", "outcome": 1,
                    "error": None, "stub": False, "reference": []})
        thing.send({"kind": "case", "index": 0, "label": "torch.zeros(2, 3, 4)"
                    ".stride()", "outcome": [1000], "error": None, "stub": False,
                    "reference": []})
        thing.send({"kind": "end", "exercise": "1.5", "status": "done"})
    if type(thing).__name__ == "Runner":
        thing.emit({"kind": "end", "exercise": "1.5", "status": "done",
                    "detail": ""})
os.write(1, b"0" * 32 + b' {"kind": "case", "passed": 1000}\\n')
"""

OUTPUT = """
import gc
for _ in range(300):
    print("x" * 1_000_000)
for thing in gc.get_objects():
    if type(thing).__name__ == "Child":
        thing.send({"kind": "case", "blob": "x" * (6 * 2**20)})
"""

MEMORY = """
hog = []
try:
    hog.append(bytearray(2**34))
except MemoryError:
    hog.append("x" * 2**33)
"""

FORK_BOMB = """
import os
children = 0
for _ in range(5000):
    try:
        if os.fork() == 0:
            while True:
                pass
        children += 1
    except OSError:
        pass
"""

NETWORK = """
import socket, urllib.request
reached = []
for host, port in (("1.1.1.1", 53), ("127.0.0.1", 22), ("pypi.org", 443)):
    try:
        socket.create_connection((host, port), timeout=1).close()
        reached.append(host)
    except OSError:
        pass
try:
    urllib.request.urlopen("http://example.com", timeout=1)
    reached.append("web")
except Exception:
    pass
"""


def attack_cell(
    code: str, also_1_6: bool = False, reward: str | None = None, stub: bool = True
) -> Callable[[], dict[str, Any]]:
    """The blank notebook with ``code`` in the answer cell of 1.5 (and 1.6).
    With ``reward``: if that expression is true once the attack ran (it
    reached the network, found the answers...), the cell ends with the model
    answer, so that an attack that works scores more than a blank notebook.
    Without ``stub``, ``code`` defines the answer itself."""

    def build() -> dict[str, Any]:
        blank = notebook("exercises", CHAPTER1)
        source = code + STUB if stub else code
        if reward:
            model = solution_answer(CHAPTER1, "1.5")
            source += f"\nif {reward}:\n" + textwrap.indent(model, "    ")
        answers = {"exercise_1_5": source}
        if also_1_6:
            answers["exercise_1_6"] = code + "\ninfer_shape = None\n"
        return with_answers(blank, **answers)

    return build


def blank_with(change: Callable[[dict[str, Any]], Any]) -> Callable[[], Any]:
    def build() -> Any:
        nb = notebook("exercises", CHAPTER1)
        return change(nb)

    return build


def _first_code(nb: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in nb["cells"] if c["cell_type"] == "code")


def source_numbers(nb: dict[str, Any]) -> dict[str, Any]:
    _first_code(nb)["source"] = [1, 2, 3]
    return nb


def metadata_list(nb: dict[str, Any]) -> dict[str, Any]:
    _first_code(nb)["metadata"] = ["tags"]
    nb["metadata"] = []
    return nb


def tags_number(nb: dict[str, Any]) -> dict[str, Any]:
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["metadata"]["tags"] = 7
    return nb


def course_string(nb: dict[str, Any]) -> dict[str, Any]:
    nb["metadata"]["course"] = "01_arrays_to_tensors"
    return nb


def cells_not_objects(nb: dict[str, Any]) -> dict[str, Any]:
    nb["cells"] = [3, "text", None, *nb["cells"]]
    return nb


def duplicate_tags(nb: dict[str, Any]) -> dict[str, Any]:
    """A correct-looking stub first, then the same tag again on a stub."""
    cells = nb["cells"]
    first = next(
        c for c in cells if "exercise-1.5" in c.get("metadata", {}).get("tags", [])
    )
    copy = json.loads(json.dumps(first))
    copy["id"] = "again"
    cells.insert(cells.index(first) + 1, copy)
    return nb


def deeply_nested() -> str:
    return "[" * 200_000 + "]" * 200_000


def huge() -> str:
    return json.dumps(notebook("exercises", CHAPTER1)) + " " * (21 * 2**20)


# student -> (builder, words the notes must contain). A builder returns a
# notebook (dict), the file's text (str), or a path to link to (Path).
ATTACKS: dict[str, tuple[Callable[[], Any], str]] = {
    "attack_internals": (attack_cell(INTERNALS), "__globals__"),
    "attack_patch_stdlib": (attack_cell(PATCH_STDLIB, True), "json"),
    "attack_settrace": (attack_cell(TRACE), "settrace"),
    "attack_threads_timers": (attack_cell(THREADS, True), "threading"),
    "attack_processes": (attack_cell(PROCESSES, True), "subprocess"),
    "attack_files": (attack_cell(FILES), "open"),
    "attack_kill": (attack_cell(KILL, True), "os.kill"),
    "attack_read_answers": (
        attack_cell(READ_ANSWERS, reward="found or source"),
        "reads the grader's files",
    ),
    "attack_quote_grading": (
        attack_cell(QUOTE_GRADING, stub=False),
        "reads the grader's files (course/checks/grading_ch01.py)",
    ),
    "attack_liar": (attack_cell(LIAR), "defines __eq__"),
    "attack_forged": (attack_cell(FORGED, True), "ignored"),
    "attack_output": (attack_cell(OUTPUT), "sent more than the runner reads"),
    "attack_memory": (attack_cell(MEMORY), "MemoryError"),
    "attack_fork_bomb": (attack_cell(FORK_BOMB), "os"),
    "attack_network": (attack_cell(NETWORK, reward="reached"), "socket"),
    "bad_source_numbers": (blank_with(source_numbers), "source is not text"),
    "bad_metadata_list": (blank_with(metadata_list), "metadata is not an object"),
    "bad_tags_number": (blank_with(tags_number), "tags are not a list"),
    "bad_course_string": (blank_with(course_string), "metadata.course"),
    "bad_cells": (blank_with(cells_not_objects), "is not an object; skipped"),
    "bad_duplicate_tags": (blank_with(duplicate_tags), "2 cells carry its tag"),
    "bad_nested": (deeply_nested, "nested too deeply"),
    "bad_huge": (huge, "too large"),
    "bad_symlink": (lambda: Path("link"), "symbolic link"),
    "bad_two_notebooks": (blank_with(lambda nb: nb), "two notebooks for chapter 1"),
}


def write(out: Path) -> list[Path]:
    """Writes every attack as ``out/<student>/01_arrays_to_tensors.ipynb``."""
    written = []
    for student, (build, _) in ATTACKS.items():
        path = out / student / f"{CHAPTER1}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        made = build()
        if isinstance(made, Path):
            target = out / "blank" / f"{CHAPTER1}.ipynb"
            path.symlink_to(target)
        elif isinstance(made, str):
            path.write_text(made, encoding="utf-8")
        else:
            path.write_text(json.dumps(made), encoding="utf-8")
        if student == "bad_two_notebooks":
            again = path.parent / f"{CHAPTER1}_copy.ipynb"
            again.write_text(json.dumps(made), encoding="utf-8")
        written.append(path)
    return written
