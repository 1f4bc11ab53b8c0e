"""The teacher's guide (``docs/teachers.md``) runs as written.

Every ``python -m course`` line of the guide's ```bash blocks is run, in
order, in a fresh folder holding a small class (:func:`write_class`), so that
the guide cannot drift from the tools. A line ending in a comment
``# walkthrough: skip (why)`` is not run (the reason is asserted to be
given); ``# walkthrough: if command NAME`` runs only where ``python -m course
NAME`` exists, and ``# walkthrough: if option COMMAND --OPTION`` only where
that command has that option (commands being added: the guide names them
now, the walkthrough runs them once they exist). Then what the guide says
the commands produce is checked: the class edition, the Canvas CSV, the
copies report (a classmate's disguised copy is paired, never named in a
student's feedback), the feedback reports and the autograder zip.

``python -m tests.grading.test_teachers_guide`` runs the walkthrough alone
and prints its time.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from course import sandbox
from tests.grading import copy_corpus, fixtures

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "teachers.md"
CHAPTER1 = fixtures.CHAPTER1
MARKER = re.compile(r"\s+#\s*walkthrough:\s*(.*)$")
#: Canvas's "Download Submissions" names: login_userid_submissionid_file.
CANVAS = {"ana": "anaalves_1001_5001", "ben": "benbrown_1002_5002"}
CANVAS_COPY = "dandiaz_1003_5003"


def commands(text: str) -> list[tuple[list[str], str]]:
    """The guide's commands in order, each with its walkthrough marker."""
    found = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.strip()
            if not line.startswith("python -m course"):
                continue
            marker = MARKER.search(line)
            command = MARKER.sub("", line) if marker else line.split("  #")[0]
            found.append((shlex.split(command), marker.group(1) if marker else ""))
    return found


def environment() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("SLOWTORCH_WORKSPACE", None)
    return env


def course(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "course", *args],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=900,
    )


def wanted(marker: str, cwd: Path) -> bool:
    """Whether a command with this marker runs here."""
    if not marker:
        return True
    if marker.startswith("skip"):
        assert re.match(r"skip \(.+\)", marker), f"a skip says why: {marker}"
        return False
    command = re.fullmatch(r"if command (\w[\w-]*)", marker)
    if command:
        return course(command.group(1), "--help", cwd=cwd).returncode == 0
    option = re.fullmatch(r"if option (\w+) (--[\w-]+)", marker)
    assert option, f"an unknown walkthrough marker: {marker}"
    shown = course(option.group(1), "--help", cwd=cwd).stdout
    return option.group(2) in shown


def disguised_notebook(source: dict) -> dict:
    """A classmate's notebook handed in as one's own: each answer renamed,
    padded with no-ops and reordered (see ``copy_corpus.disguised``)."""
    from course.checking import load

    copied = json.loads(json.dumps(source))
    for cell in copied["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        exercise = next((t[len("exercise-") :] for t in tags if "exercise-" in t), None)
        if exercise and load(exercise).kind == "piece":
            text = "".join(cell["source"])
            cell["source"] = copy_corpus.disguised(text, {load(exercise).name})
    return copied


def write_class(folder: Path) -> None:
    """A class of three for chapter 1: Ana solved it, Ben handed in the blank
    notebook, Dan handed in Ana's answers disguised. As the LMS gives them
    (``submissions.zip``, Canvas's layout) and as ``collect`` lays them out
    (``students/<student>/``), for a copy without ``collect``."""
    solved = fixtures.notebook("solutions", CHAPTER1)
    notebooks = {
        "ana": solved,
        "ben": fixtures.notebook("exercises", CHAPTER1),
        "dan": disguised_notebook(solved),
    }
    (folder / "weights.toml").write_text('[weights]\n"1.10" = 2\n"1.11" = 2\n')
    names = {**CANVAS, "dan": CANVAS_COPY}
    with zipfile.ZipFile(folder / "submissions.zip", "w") as archive:
        for student, notebook in notebooks.items():
            archive.writestr(
                f"{names[student]}_{CHAPTER1}.ipynb", json.dumps(notebook, indent=1)
            )
    for student, notebook in notebooks.items():
        path = folder / "students" / student / f"{CHAPTER1}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")


def walk(folder: Path) -> tuple[list[list[str]], float]:
    """Runs the guide's commands in ``folder``; the commands run, and the time."""
    write_class(folder)
    started = time.monotonic()
    ran = []
    for command, marker in commands(GUIDE.read_text("utf-8")):
        if not wanted(marker, folder):
            continue
        if command[3:4] == ["collect"]:
            # The folders made above stand for what collect would write.
            (folder / "students").rename(folder / "students-by-hand")
        done = course(*command[3:], cwd=folder)
        ok = (0, 1) if command[3] == "grade" else (0,)  # 1: not every grade full
        assert done.returncode in ok, (command, done.stdout[-2000:], done.stderr)
        ran.append(command)
    return ran, time.monotonic() - started


@pytest.mark.pipeline
@pytest.mark.skipif(sandbox.problem() is not None, reason="grading needs bubblewrap")
def test_the_guides_commands_run_on_a_small_class(tmp_path: Path) -> None:
    ran, seconds = walk(tmp_path)
    print(f"the walkthrough ran {len(ran)} commands in {seconds:.1f} s")
    verbs = [command[3] for command in ran]
    assert verbs[0] == "release" and {"grade", "export"} <= set(verbs)
    # Step 1: a class edition, its engine's pieces stubs.
    strides = (tmp_path / "class/slowtorch_lib/_strides.py").read_text("utf-8")
    assert "exercise 1.5, `contiguous_strides`, is not written yet" in strides
    assert (tmp_path / "class/exercises" / f"{CHAPTER1}.ipynb").exists()
    # Step 3: the Canvas CSV, the copies report, the feedback.
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as file:
        rows = list(csv.reader(file))
    assert len([r for r in rows[2:] if r and r[0]]) == 3, rows
    total = {row[0]: row[-1] for row in rows[2:] if row and row[0]}
    # a copy renamed throughout (parameters too) runs as the original does
    assert total["dandiaz"] == total["anaalves"] == rows[1][-1], rows
    report = (tmp_path / "grades-copies.md").read_text("utf-8")
    assert (tmp_path / "grades-from-ch3-copies.md").exists()  # its own report
    pairs = [line for line in report.splitlines() if line.startswith("| 1.")]
    assert pairs and all(
        ("ana" in line or "anaalves" in line) and "dan" in line for line in pairs
    ), report
    assert {line.split("|")[1].strip() for line in pairs} >= {"1.10", "1.11"}
    feedback = {p.stem: p.read_text("utf-8") for p in (tmp_path / "feedback").iterdir()}
    assert len(feedback) == 3
    assert not any("the same code as" in text for text in feedback.values())
    dan = next(text for name, text in feedback.items() if "dan" in name)
    assert "ana's" not in dan and "anaalves" not in dan
    # Step 4: the autograder.
    assert zipfile.is_zipfile(tmp_path / "autograder.zip")


def test_every_command_of_the_guide_is_run_or_says_why_not() -> None:
    found = commands(GUIDE.read_text("utf-8"))
    assert len(found) >= 6
    for command, marker in found:
        assert command[:3] == ["python", "-m", "course"]
        assert marker == "" or re.fullmatch(
            r"skip \(.+\)|if command [\w-]+|if option \w+ --[\w-]+", marker
        ), marker
    run = [c[3] for c, m in found if not m]
    assert run[:1] == ["release"] and "grade" in run and "export" in run
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "docs/teachers.md" in readme


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        commands_run, elapsed = walk(Path(where))
        for line in commands_run:
            print(" ".join(line))
        print(f"the walkthrough ran {len(commands_run)} commands in {elapsed:.1f} s")
