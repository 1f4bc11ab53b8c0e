"""``python -m course collect``: crafted downloads of Canvas, Gradescope and
Moodle, each with hostile entries (paths that climb out, absolute paths,
links, a file larger than the cap, a name that is not UTF-8, a duplicate, a
damaged entry), read into one folder per student and a roster."""

from __future__ import annotations

import csv
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from course import collect, export
from course.grading import Graded, Result

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'


def add(
    archive: zipfile.ZipFile,
    name: str,
    data: bytes = NOTEBOOK,
    when: tuple[int, ...] = (2026, 11, 1, 12, 0, 0),
    mode: int = stat.S_IFREG | 0o644,
    method: int = zipfile.ZIP_DEFLATED,
) -> None:
    info = zipfile.ZipInfo(name, date_time=when)  # type: ignore[arg-type]
    info.external_attr = mode << 16
    info.compress_type = method
    archive.writestr(info, data)


def hostile(archive: zipfile.ZipFile, prefix: str) -> None:
    """Entries no download should hold; each must be left out with a note."""
    add(archive, f"../../{prefix}climbs_1_2_01_a.ipynb")
    add(archive, f"/{prefix}absolute_1_2_01_a.ipynb")
    add(
        archive,
        f"{prefix}link_3_4_01_a.ipynb",
        b"/etc/passwd",
        mode=stat.S_IFLNK | 0o777,
    )
    add(archive, f"{prefix}huge_5_6_01_a.ipynb", b"{" + b" " * (3 * 2**20))
    add(archive, f"{prefix}broken_7_8_01_a.ipynb", NOTEBOOK, method=zipfile.ZIP_STORED)


def damage(path: Path, marker: bytes) -> None:
    """Flips a byte of the stored entry after ``marker`` (its CRC then fails)."""
    data = bytearray(path.read_bytes())
    at = data.index(marker) + len(marker) + 5
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


def not_utf8(path: Path, placeholder: bytes, raw: bytes) -> None:
    """Puts ``raw`` (not UTF-8) where the zip's names say ``placeholder``."""
    assert len(placeholder) == len(raw)
    path.write_bytes(path.read_bytes().replace(placeholder, raw))


def roster(out: Path) -> dict[str, dict[str, str]]:
    rows = csv.DictReader((out / collect.ROSTER).open(encoding="utf-8"))
    return {row["folder"]: row for row in rows}


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(autouse=True)
def small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collect, "MAX_FILE", 2**20)


def test_canvas_files_become_folders_named_from_the_lms(tmp_path: Path) -> None:
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as archive:
        add(archive, "doejane_1234_5678_01_arrays_to_tensors.ipynb")
        add(archive, "doejane_1234_5678_02_walking_backwards.ipynb")
        # the resubmission (-1) first in the zip, the same time: -1 still wins
        add(archive, "smithann_late_2222_3333_01_arrays_to_tensors-1.ipynb")
        add(archive, "smithann_late_2222_3333_01_arrays_to_tensors.ipynb", b"{}")
        add(archive, "smithann_late_2222_3333_notes.txt", b"hello")
        add(archive, "mXller_77_88_01_arrays_to_tensors.ipynb")
        hostile(archive, "")
    not_utf8(download, b"mXller", b"m\xfcller")
    damage(download, b"broken_7_8_01_a.ipynb")
    out = tmp_path / "class"
    collected = collect.collect(download, out)
    assert collected.lms == "canvas"
    assert files_under(out) == {
        "roster.csv",
        "doejane_1234/01_arrays_to_tensors.ipynb",
        "doejane_1234/02_walking_backwards.ipynb",
        "smithann_2222/01_arrays_to_tensors.ipynb",
        "m_ller_77/01_arrays_to_tensors.ipynb",
    }
    # the resubmission (-1) replaced the first
    assert (out / "smithann_2222/01_arrays_to_tensors.ipynb").read_bytes() == NOTEBOOK
    rows = roster(out)
    assert rows["doejane_1234"]["lms id"] == "1234"
    assert rows["doejane_1234"]["submission"] == "5678"
    assert rows["smithann_2222"]["late"] == "late"
    assert rows["doejane_1234"]["late"] == ""
    notes = "\n".join(collected.notes)
    for words in (
        "climbs_1_2_01_a.ipynb: a path that climbs out (..), left out",
        "absolute_1_2_01_a.ipynb: an absolute path, left out",
        "link_3_4_01_a.ipynb: a symbolic link, left out",
        f"huge_5_6_01_a.ipynb: more than {2**20} bytes, left out",
        "broken_7_8_01_a.ipynb: cannot be read",
        "its name is not UTF-8",
        "smithann_2222/01_arrays_to_tensors.ipynb: handed in more than once",
        "notes.txt: not a notebook, left out",
    ):
        assert words in notes
    assert files_under(tmp_path) - {"submissions.zip"} == {
        f"class/{name}" for name in files_under(out)
    }


GRADESCOPE_METADATA = """\
submission_101:
  :submitters:
  - :name: Jane Doe
    :sid: '900'
    :email: jane@example.edu
  :created_at: 2026-11-01 12:00:00.000000000 -07:00
  :score: 0.0
submission_102:
  :submitters:
  - :name: Ann Smith
    :sid: '901'
    :email: ann@example.edu
  - :name: Bo Li
    :sid: '902'
    :email: bo@example.edu
  :created_at: 2026-11-01 12:30:00.000000000 -07:00
"""


def test_a_gradescope_export_is_read_with_its_metadata(tmp_path: Path) -> None:
    download = tmp_path / "export.zip"
    root = "assignment_77_export"
    with zipfile.ZipFile(download, "w") as archive:
        add(archive, f"{root}/submission_metadata.yml", GRADESCOPE_METADATA.encode())
        add(archive, f"{root}/submission_101/01_arrays_to_tensors.ipynb")
        add(archive, f"{root}/submission_102/work/02_walking_backwards.ipynb")
        add(archive, f"{root}/submission_103/01_arrays_to_tensors.ipynb")
        hostile(archive, f"{root}/submission_101/")
    damage(download, b"broken_7_8_01_a.ipynb")
    out = tmp_path / "class"
    collected = collect.collect(download, out)
    assert collected.lms == "gradescope"
    assert files_under(out) == {
        "roster.csv",
        "Jane Doe_900/01_arrays_to_tensors.ipynb",
        "Ann Smith_901/02_walking_backwards.ipynb",  # a group: each submitter
        "Bo Li_902/02_walking_backwards.ipynb",
        "submission_103_submission_103/01_arrays_to_tensors.ipynb",
    }
    rows = roster(out)
    assert rows["Jane Doe_900"]["email"] == "jane@example.edu"
    assert rows["Bo Li_902"]["submission"] == "submission_102"
    notes = "\n".join(collected.notes)
    assert "submission_103: not in submission_metadata.yml" in notes
    for words in ("climbs out", "an absolute path", "a symbolic link", "more than"):
        assert words in notes
    assert "cannot be read" in notes


def test_moodle_folders_and_older_flat_names(tmp_path: Path) -> None:
    download = tmp_path / "moodle.zip"
    with zipfile.ZipFile(download, "w") as archive:
        folder = "Jane Doe_5678_assignsubmission_file_"
        add(archive, f"{folder}/01_arrays_to_tensors.ipynb")
        add(archive, f"{folder}/sub/02_walking_backwards.ipynb")
        add(archive, "Jane Doe_5678_assignsubmission_onlinetext_/onlinetext.html")
        add(archive, "Ann O'Neil_91_assignsubmission_file_01_arrays_to_tensors.ipynb")
        add(archive, "Jos\u00e9 \u00c5str\u00f6m_92_assignsubmission_file_/01_a.ipynb")
        hostile(archive, f"{folder}/")
    damage(download, b"broken_7_8_01_a.ipynb")
    out = tmp_path / "class"
    collected = collect.collect(download, out)
    assert collected.lms == "moodle"
    assert files_under(out) == {
        "roster.csv",
        "Jane Doe_5678/01_arrays_to_tensors.ipynb",
        "Jane Doe_5678/02_walking_backwards.ipynb",
        "Ann O_Neil_91/01_arrays_to_tensors.ipynb",
        "Jos\u00e9 \u00c5str\u00f6m_92/01_a.ipynb",
    }
    assert roster(out)["Ann O_Neil_91"]["name"] == "Ann O'Neil"
    notes = "\n".join(collected.notes)
    assert "onlinetext.html: not a file submission, left out" in notes
    for words in ("climbs out", "an absolute path", "a symbolic link", "more than"):
        assert words in notes
    assert "cannot be read" in notes


def test_the_command_refuses_an_unknown_zip_and_a_full_folder(tmp_path: Path) -> None:
    download = tmp_path / "other.zip"
    with zipfile.ZipFile(download, "w") as archive:
        add(archive, "homework/01_arrays_to_tensors.ipynb")
    command = [sys.executable, "-m", "course", "collect", str(download)]
    refused = subprocess.run(
        [*command, str(tmp_path / "out")], cwd=ROOT, capture_output=True, text=True
    )
    assert refused.returncode == 2
    assert "not a download this reads" in refused.stderr
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("")
    refused = subprocess.run(
        [*command, str(full)], cwd=ROOT, capture_output=True, text=True
    )
    assert refused.returncode == 2 and "is not empty" in refused.stderr
    text = tmp_path / "text.zip"
    text.write_text("not a zip")
    with pytest.raises(ValueError, match="not a zip file"):
        collect.collect(text, tmp_path / "out2")


def test_the_gradescope_metadata_reader_skips_what_it_does_not_know() -> None:
    text = GRADESCOPE_METADATA + "other:\n  :submitters: []\n# a comment\nx: 1\n"
    found = collect.read_metadata(text)
    assert found["submission_102"]["submitters"] == [
        {"name": "Ann Smith", "sid": "901", "email": "ann@example.edu"},
        {"name": "Bo Li", "sid": "902", "email": "bo@example.edu"},
    ]
    assert found["other"]["submitters"] == []
    assert "x" not in found


def test_the_canvas_import_names_each_collected_student_by_their_canvas_id(
    tmp_path: Path,
) -> None:
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as archive:
        add(archive, "doejane_1234_5678_01_arrays_to_tensors.ipynb")
        add(archive, "=cmd_99_1_01_arrays_to_tensors.ipynb")
    out = tmp_path / "class"
    collect.collect(download, out)
    roster = collect.read_roster(out)
    assert roster == {"doejane_1234": ("doejane", "1234"), "cmd_99": ("=cmd", "99")}
    graded = {"1.5": Graded("1.5", "1.5", points=1.0, status="graded")}
    results = [
        Result(out / folder / "01_arrays_to_tensors.ipynb", folder, 1, graded, [])
        for folder in ("doejane_1234", "cmd_99", "someone_else")
    ]
    canvas = tmp_path / "canvas.csv"
    export.write_canvas(results, canvas, {}, roster)
    rows = list(csv.reader(canvas.open(encoding="utf-8")))
    assert rows[2][:5] == ["'=cmd", "99", "", "", ""]
    assert rows[3][:5] == ["doejane", "1234", "", "", ""]
    assert rows[4][:5] == ["someone_else", "", "", "someone_else", ""]
    assert rows[3][5] == "1.00"
