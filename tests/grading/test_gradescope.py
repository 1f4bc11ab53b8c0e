"""The Gradescope autograder, run exactly where Gradescope runs it.

Each run builds Gradescope's documented layout in a temporary folder (the zip
extracted into ``source/``, ``run_autograder`` copied beside it, the
submission in ``submission/``) and binds that folder at ``/autograder`` in a
bubblewrap container that stands for Gradescope's: root, Docker's default
capabilities (no CAP_SYS_ADMIN, so no bubblewrap inside), its own process and
network namespaces, Python 3.10 (Ubuntu 22.04's) when this machine has one.
``run_autograder`` is started from ``/autograder`` as Gradescope does, and the
container is kept for a few seconds after it exits, so that a process a
submission left behind would have the time to rewrite the results.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from course import edition, export, sandbox
from tests.grading import attacks, fixtures

DOCKER_CAPABILITIES = (
    "CAP_CHOWN CAP_DAC_OVERRIDE CAP_FOWNER CAP_FSETID CAP_KILL CAP_SETGID "
    "CAP_SETUID CAP_SETPCAP CAP_NET_BIND_SERVICE CAP_NET_RAW CAP_SYS_CHROOT "
    "CAP_MKNOD CAP_AUDIT_WRITE CAP_SETFCAP"
).split()
PYTHON_3_10 = sorted(Path("/root/.pyenv/versions").glob("3.10.*/bin/python3.10"))
AFTER = 4  # seconds the container lives on after run_autograder


def python_home() -> Path:
    """The Python the container has: 3.10 where there is one, else this one."""
    executable = PYTHON_3_10[0] if PYTHON_3_10 else Path(sys.executable)
    return Path(os.path.realpath(executable)).parent.parent


pytestmark = [
    pytest.mark.slow,
    pytest.mark.pipeline,
    pytest.mark.skipif(
        shutil.which("bwrap") is None or os.geteuid() != 0,
        reason="the container needs bubblewrap, run as root",
    ),
]


def container(root: Path, command: str) -> list[str]:
    """``command`` (bash) in a stand-in for Gradescope's container, with
    ``root`` at ``/autograder``."""
    home = python_home()
    wrapped = ["bwrap", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for name in ("bin", "lib", "lib64", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            wrapped += ["--symlink", os.readlink(path), str(path)]
    if not str(home).startswith("/usr/"):
        for parent in reversed(home.parents[:-1]):
            wrapped += ["--perms", "0755", "--dir", str(parent)]
        wrapped += ["--ro-bind", str(home), str(home)]
    wrapped += ["--bind", str(root), "/autograder"]
    # Graders on this machine lend user ids from one range; the container's
    # shares their leases, or a grader outside could kill its runners.
    leases = str(sandbox.lease_folder())
    wrapped += ["--bind", leases, leases]
    wrapped += ["--dev", "/dev", "--proc", "/proc", "--perms", "1777"]
    wrapped += ["--tmpfs", "/tmp", "--unshare-pid", "--unshare-net"]
    wrapped += ["--unshare-ipc", "--unshare-uts", "--die-with-parent"]
    wrapped += ["--cap-drop", "ALL"]
    for capability in DOCKER_CAPABILITIES:
        wrapped += ["--cap-add", capability]
    wrapped += ["--clearenv", "--setenv", "PATH", f"{home}/bin:/usr/bin:/bin"]
    wrapped += ["--setenv", "HOME", "/root", "--chdir", "/autograder"]
    return [*wrapped, "--", "/bin/bash", "-c", command]


def autograde(
    archive: Path, root: Path, notebooks: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    """Runs the autograder of ``archive`` on ``notebooks`` (file name to
    notebook) as Gradescope does; the results and the container's output."""
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(root / "source")
    for name in ("setup.sh", "run_autograder"):
        (root / "source" / name).chmod(0o755)
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    for name, notebook in notebooks.items():
        text = json.dumps(notebook)
        (root / "submission" / name).write_text(text, encoding="utf-8")
    script = (
        "/autograder/run_autograder; echo exit=$?; touch /tmp/ended; "
        f"sleep {AFTER}; cat /tmp/found 2>/dev/null || true"
    )
    done = subprocess.run(
        container(root, script), capture_output=True, text=True, timeout=600
    )
    assert "exit=0" in done.stdout, done.stdout + done.stderr
    results = json.loads((root / "results" / "results.json").read_text("utf-8"))
    return results, done.stdout


@contextlib.contextmanager
def a_grader_beside() -> Iterator[list[int]]:
    """A grader on this machine, outside the container, lending user ids to
    runners of three seconds each for as long as the block lasts; the ids
    it lent. Were its leases not the container's, it could lend an id the
    container's grader lends too, and kill that runner when its own ends."""
    lent: list[int] = []
    stop = threading.Event()

    def grade() -> None:
        while not stop.is_set():
            with sandbox.runner_user() as uid:
                assert uid is not None
                lent.append(uid)
                sleep = subprocess.Popen(["sleep", "3"], **sandbox.as_user(uid))
                sleep.wait()

    thread = threading.Thread(target=grade)
    thread.start()
    try:
        yield lent
    finally:
        stop.set()
        thread.join()


def chapter(number: int) -> str:
    return [fixtures.CHAPTER1, fixtures.CHAPTER2][number - 1]


def test_the_zip_holds_setup_and_run_autograder_at_its_root(tmp_path: Path) -> None:
    archive = tmp_path / "autograder.zip"
    names = set(export.gradescope(archive))
    assert {"setup.sh", "run_autograder", "course/answers.json"} <= names
    assert {"course/gradescope.py", "slowtorch_lib/__init__.py"} <= names
    assert not [n for n in names if n.startswith("source/")]
    assert not [n for n in names if "solutions" in n or "sources/" in n]
    with zipfile.ZipFile(archive) as opened:
        strides = opened.read("slowtorch_lib/_strides.py").decode()
        setup = opened.read("setup.sh").decode()
    assert "exercise 1.5, `contiguous_strides`, is not written yet" in strides
    assert "apt-get install" in setup and "python3" in setup


SNOOP = """
import os, time
found = []
for path in ("/autograder/source/course/answers.json",
             "/autograder/source/course/checks/expected.json",
             "/autograder/submission/01_arrays_to_tensors.ipynb"):
    try:
        with open(path) as file:
            found.append(path + " READ " + file.read(40))
    except OSError as error:
        found.append(f"{path} refused {error.errno}")
try:
    with open("/autograder/results/results.json", "w") as file:
        file.write('{"score": 1000}')
    found.append("results WRITTEN")
except OSError as error:
    found.append(f"results refused {error.errno}")
with open("/tmp/found", "w") as file:
    file.write("\\n".join(found))
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1)
        for _ in range(1200):
            if os.path.exists("/tmp/ended"):  # run_autograder has exited
                with open("/tmp/found", "a") as file:
                    file.write("\\nlingering ALIVE")
            try:
                with open("/autograder/results/results.json", "w") as file:
                    file.write('{"score": 1000}')
                with open("/tmp/found", "a") as file:
                    file.write("\\nlingering WROTE")
            except OSError:
                pass
            time.sleep(0.05)
        os._exit(0)
    os._exit(0)
"""


def test_full_blank_and_hostile_submissions_in_gradescopes_layout(
    tmp_path: Path,
) -> None:
    archive = tmp_path / "autograder.zip"
    export.gradescope(archive)
    name = f"{fixtures.CHAPTER1}.ipynb"
    full, _ = autograde(
        archive, tmp_path / "full", {name: fixtures.notebook("solutions", chapter(1))}
    )
    tests = [t for t in full["tests"] if t.get("number")]
    assert [t["number"] for t in tests] == [
        "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11"
    ]  # fmt: skip
    assert full["score"] == 7, full
    notes = [t for t in full["tests"] if t["name"] == "Notes for the teacher"]
    assert notes and notes[0]["visibility"] == "hidden"
    assert "graded without bubblewrap" in notes[0]["output"]
    blank, _ = autograde(
        archive, tmp_path / "blank", {name: fixtures.notebook("exercises", chapter(1))}
    )
    assert blank["score"] == 0 and len(blank["tests"]) >= 7
    hostile = attacks.attack_cell(SNOOP, reward="any('READ' in f for f in found)")()
    attacked, output = autograde(archive, tmp_path / "hostile", {name: hostile})
    assert attacked["score"] == 0, attacked
    assert "/autograder/source/course/answers.json refused 13" in output
    assert "/autograder/source/course/checks/expected.json refused 13" in output
    assert "ipynb refused 13" in output
    assert "results refused 13" in output
    assert "READ" not in output and "ALIVE" not in output


def test_an_autograder_for_one_chapter_with_weights(tmp_path: Path) -> None:
    archive = tmp_path / "chapter2.zip"
    export.gradescope(archive, chapter=2, weights={"2.5": 3.0})
    submission = {
        f"{chapter(n)}.ipynb": fixtures.notebook("solutions", chapter(n))
        for n in (1, 2)
    }
    results, _ = autograde(archive, tmp_path / "root", submission)
    tests = {t["number"]: t for t in results["tests"] if t.get("number")}
    assert tests and all(number.startswith("2.") for number in tests)
    assert tests["2.5"]["max_score"] == 3.0 and tests["2.5"]["score"] == 3.0
    assert results["score"] == len(tests) + 2
    alone, _ = autograde(
        archive,
        tmp_path / "first",
        {f"{chapter(1)}.ipynb": fixtures.notebook("solutions", chapter(1))},
    )
    assert alone["score"] == 0 and "no notebook of chapter 2" in alone["output"]


def test_a_chapter_handed_in_alone_asks_for_the_earlier_ones_or_uses_give(
    tmp_path: Path,
) -> None:
    alone = {f"{chapter(2)}.ipynb": fixtures.notebook("solutions", chapter(2))}
    archive = tmp_path / "chapter2.zip"
    export.gradescope(archive, chapter=2)
    asked, _ = autograde(archive, tmp_path / "asked", alone)
    assert "MISSING chapter 1" in asked["output"]
    assert "--give ch1" in asked["output"]
    given = tmp_path / "chapter2-given.zip"
    export.gradescope(given, chapter=2, given=edition.parse_give("ch1"))
    with a_grader_beside() as runs:
        results, _ = autograde(given, tmp_path / "given", alone)
    assert runs and all(uid in sandbox.RUNNER_UIDS for uid in runs)
    tests = [t for t in results["tests"] if t.get("number")]
    assert "used chapter 1 from the reference (given)" in results["output"]
    lost = [t["output"][:300] for t in tests if t["score"] < t["max_score"]]
    assert results["score"] == len(tests) > 0, lost
