"""``python -m course collect`` and the grades handed back: downloads laid
out as each LMS's own code lays them out (Canvas's ``lib/content_zipper.rb``,
Moodle's ``mod/assign/locallib.php`` and ``classes/downloader.php``,
Gradescope's export), the attacks on them (a student's file named as
another LMS's entry, a crafted Moodle name claiming a classmate's id, a
``submission_metadata.yml`` inside a submission, zip entry times, hostile
entries), and the CSV files that go back to the LMS."""

from __future__ import annotations

import csv
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from course import __main__ as cli
from course import collect, edition, export, gradescope, grading
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


# --- downloads laid out as each LMS's own code lays them out -----------------------


def canvas_entry(
    sortable: str,
    user: int,
    attachment: int,
    display: str,
    late: bool = False,
    anonymous: str | None = None,
) -> str:
    """A Canvas entry as ``lib/content_zipper.rb`` names it: the sortable name
    without ``_<digits>_``, downcased; the LATE mark; the user id (or
    ``anon_<id>``); every non-word character removed from that prefix; then
    the attachment id and the display name with ``\\/:*?"<>|`` replaced."""
    name = None if anonymous else re.sub(r"_(\d+)_", r"\1", sortable).lower()
    ident = f"anon_{anonymous}" if anonymous else str(user)
    parts = [p for p in (name, "LATE" if late else None, ident) if p is not None]
    prefix = re.sub(r"[^\w]", "", "_".join(parts))
    shown = re.sub(r'[\x00/\\:*?"<>|]+', "_", display)
    return f"{prefix}_{attachment}_{shown}"


def moodle_prefix(fullname: str, number: int | None) -> str:
    """Moodle's prefix: ``_`` in the name turned to spaces, then the number;
    ``clean_filename`` drops what a file name cannot hold."""
    text = fullname.replace("_", " ") + (f"_{number}" if number is not None else "")
    return re.sub(r"[\\/:*?\"<>|']", "", text)


def moodle_entry(
    prefix: str,
    file: str,
    version: int = 4,
    folders: bool = True,
    plugin: str = "file",
    path: str = "/",
) -> str:
    """A Moodle entry: 4.1+ (``classes/downloader.php``) writes the folder
    ``<prefix>_assignsubmission_file``, 3.x (``locallib.php``) the same with
    a trailing ``_``; flat, ``<prefix>_assignsubmission_file_<file>``."""
    if not folders:
        return f"{prefix}_assignsubmission_{plugin}_{file}"
    folder = f"{prefix}_assignsubmission_{plugin}" + ("_" if version == 3 else "")
    return folder + (path if plugin == "file" else "/") + file


def gradescope_metadata(
    submissions: dict[str, tuple[str, list[tuple[str, str, str]]]],
) -> str:
    """``submission_metadata.yml`` as Gradescope writes it (Ruby's YAML)."""
    lines = []
    for folder, (when, people) in submissions.items():
        lines += [f"{folder}:", "  :submitters:"]
        for name, sid, email in people:
            lines += [
                f"  - :name: {name}",
                f"    :sid: '{sid}'",
                f"    :email: {email}",
            ]
        lines += [f"  :created_at: {when}", "  :score: 0.0"]
    return "\n".join(lines) + "\n"


ZIPPED = (2026, 11, 30, 9, 0, 0)  # Canvas and Moodle: the time of zipping


def canvas_class(download: Path, anonymous: bool = False) -> None:
    """Five students: a name that keeps an underscore, a non-ASCII name, a
    late one, one who uploaded a notebook twice (Canvas renamed the second
    ``-1``) and one with a text entry beside their notebook."""
    people = [
        ("O_Neil, Ann", 101, "aaaa1"),
        ("M\u00fcller, J\u00f6rg", 102, "bbbb2"),
        ("Doe, Jane", 103, "12345"),
        ("Smith, Bo", 104, "dddd4"),
        ("Li, Wu", 105, "eeee5"),
    ]
    with zipfile.ZipFile(download, "w") as archive:
        for number, (sortable, user, anon) in enumerate(people):
            entry = canvas_entry(
                sortable,
                user,
                9000 + number,
                "01_arrays_to_tensors.ipynb",
                late=user == 103,
                anonymous=anon if anonymous else None,
            )
            add(archive, entry, NOTEBOOK, when=ZIPPED)
        # Bo uploaded twice: the later upload (the larger attachment id) is
        # "-1"; its zip entry time says nothing (both zipped at once)
        second = canvas_entry(
            "Smith, Bo",
            104,
            9100,
            "01_arrays_to_tensors-1.ipynb",
            anonymous="dddd4" if anonymous else None,
        )
        add(archive, second, LATER, when=(2026, 1, 1, 0, 0, 0))
        text = "anon_eeee5_text.html" if anonymous else "liwu_105_text.html"
        add(archive, text, b"<p>hello</p>", when=ZIPPED)


LATER = b'{"cells": [], "metadata": {"later": 1}, "nbformat": 4, "nbformat_minor": 5}'
MOODLE_CLASS = [("Ann O'Neil", 11), ("J\u00f6rg M\u00fcller", 12), ("Jane_Doe", 13)]


def moodle_class(
    download: Path, version: int, folders: bool, blind: bool = False
) -> None:
    """Three students, each with a notebook (Jane's in a subfolder where
    folders are written) and an online text."""
    with zipfile.ZipFile(download, "w") as archive:
        for name, number in MOODLE_CLASS:
            prefix = moodle_prefix("Participant" if blind else name, number)
            path = "/work/" if number == 13 else "/"
            file = "01_arrays_to_tensors.ipynb"
            add(archive, moodle_entry(prefix, file, version, folders, path=path))
            add(
                archive,
                moodle_entry(prefix, "onlinetext.html", version, folders, "onlinetext"),
                b"<p>hi</p>",
            )


def gradescope_class(download: Path, root: str = "assignment_77_export") -> None:
    """Three submissions: Jane; Ann and Bo as a group; Cy twice (an older
    submission still in the export, and the one made later)."""
    metadata = gradescope_metadata(
        {
            "submission_101": (
                "2026-11-01 12:00:00.000000000 -07:00",
                [("Jane Doe", "900", "jane@example.edu")],
            ),
            "submission_102": (
                "2026-11-01 12:30:00.000000000 -07:00",
                [
                    ("Ann Smith", "901", "ann@example.edu"),
                    ("Bo Li", "902", "bo@example.edu"),
                ],
            ),
            "submission_104": (
                "2026-11-02 08:00:00.000000000 -07:00",
                [("Cy Ng", "903", "cy@example.edu")],
            ),
            "submission_103": (
                "2026-11-01 09:00:00.000000000 -07:00",
                [("Cy Ng", "903", "cy@example.edu")],
            ),
        }
    )
    with zipfile.ZipFile(download, "w") as archive:
        add(archive, f"{root}/submission_metadata.yml", metadata.encode())
        add(archive, f"{root}/submission_101/01_arrays_to_tensors.ipynb")
        add(archive, f"{root}/submission_102/work/02_walking_backwards.ipynb")
        # the older submission's entry is the newer in the zip: not read
        add(
            archive,
            f"{root}/submission_103/01_arrays_to_tensors.ipynb",
            NOTEBOOK,
            when=(2027, 1, 1, 0, 0, 0),
        )
        add(
            archive,
            f"{root}/submission_104/01_arrays_to_tensors.ipynb",
            LATER,
            when=(2020, 1, 1, 0, 0, 0),
        )


def test_canvas_as_content_zipper_writes_it(tmp_path: Path) -> None:
    download = tmp_path / "submissions.zip"
    canvas_class(download)
    out = tmp_path / "class"
    collected = collect.collect(download, out)
    assert collected.lms == "canvas" and not collected.refused
    assert files_under(out) == {
        "roster.csv",
        "o_neilann_101/01_arrays_to_tensors.ipynb",
        "m\u00fcllerj\u00f6rg_102/01_arrays_to_tensors.ipynb",
        "doejane_103/01_arrays_to_tensors.ipynb",
        "smithbo_104/01_arrays_to_tensors.ipynb",
        "liwu_105/01_arrays_to_tensors.ipynb",
    }
    # the larger attachment id is the later upload, whatever the zip's times
    assert (out / "smithbo_104/01_arrays_to_tensors.ipynb").read_bytes() == LATER
    rows = roster(out)
    assert rows["doejane_103"]["late"] == "late"
    assert rows["o_neilann_101"]["late"] == ""
    assert rows["o_neilann_101"]["lms id"] == "101"
    assert rows["o_neilann_101"]["id kind"] == "canvas user"
    notes = "\n".join(collected.notes)
    assert "liwu_105_text.html: a text or link submission, left out" in notes
    assert "smithbo_104/01_arrays_to_tensors.ipynb: handed in more than once" in notes


def test_canvas_anonymous_grading(tmp_path: Path) -> None:
    download = tmp_path / "submissions.zip"
    canvas_class(download, anonymous=True)
    out = tmp_path / "class"
    collected = collect.collect(download, out)
    assert collected.lms == "canvas"
    folders = {p.parent.name for p in out.glob("*/*.ipynb")}
    # an anonymous id may be all digits ("12345"): still anonymous
    assert folders == {
        f"anon_{i}_{i}" for i in ("aaaa1", "bbbb2", "12345", "dddd4", "eeee5")
    }
    rows = roster(out)
    assert rows["anon_12345_12345"]["late"] == "late"
    assert rows["anon_aaaa1_aaaa1"]["id kind"] == "canvas anonymous"
    assert (out / "anon_dddd4_dddd4/01_arrays_to_tensors.ipynb").read_bytes() == LATER


CANVAS_GROUPS = """\
name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id
Ann Smith,201,,ann,,Team Red,7,
Bo Li,202,,bo,,Team Red,7,
Cy Ng,203,,cy,,Team Blue,8,
Di Wu,204,,di,,Team Blue,8,
"""


def test_a_canvas_group_assignment_gives_each_member_the_notebook(
    tmp_path: Path,
) -> None:
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as archive:
        # one entry per group: named after the group, with the submitter's id
        add(archive, canvas_entry("Team Red", 202, 1, "01_arrays_to_tensors.ipynb"))
        add(archive, canvas_entry("Team Blue", 203, 2, "01_arrays_to_tensors.ipynb"))
    groups = tmp_path / "groups.csv"
    groups.write_text(CANVAS_GROUPS, encoding="utf-8")
    out = tmp_path / "class"
    collect.collect(download, out, groups)
    rows = roster(out)
    assert {r["lms id"]: r["group"] for r in rows.values()} == {
        "201": "Team Red",
        "202": "Team Red",
        "203": "Team Blue",
        "204": "Team Blue",
    }
    assert all(r["notebooks"] == "01_arrays_to_tensors.ipynb" for r in rows.values())
    assert all(r["id kind"] == "canvas user" for r in rows.values())
    alone = collect.collect(download, tmp_path / "alone")  # without the members
    assert [s.lms_id for s in alone.students] == ["203", "202"]


@pytest.mark.parametrize(
    ("version", "folders"), [(3, True), (4, True), (3, False), (4, False)]
)
def test_moodle_as_moodle_writes_it(
    tmp_path: Path, version: int, folders: bool
) -> None:
    download = tmp_path / "moodle.zip"
    moodle_class(download, version, folders)
    out = tmp_path / "class"
    collected = collect.collect(download, out)
    assert collected.lms == "moodle" and not collected.refused
    assert files_under(out) == {
        "roster.csv",
        "Ann ONeil_11/01_arrays_to_tensors.ipynb",
        "J\u00f6rg M\u00fcller_12/01_arrays_to_tensors.ipynb",
        "Jane Doe_13/01_arrays_to_tensors.ipynb",
    }
    assert roster(out)["Jane Doe_13"]["id kind"] == "moodle participant"
    assert "onlinetext.html: not a file submission, left out" in "\n".join(
        collected.notes
    )


def test_moodle_blind_marking_and_teams(tmp_path: Path) -> None:
    download = tmp_path / "blind.zip"
    moodle_class(download, 4, True, blind=True)
    out = tmp_path / "blind"
    collect.collect(download, out)
    assert {p.parent.name for p in out.glob("*/*.ipynb")} == {
        "Participant_11",
        "Participant_12",
        "Participant_13",
    }
    teams = tmp_path / "teams.zip"
    with zipfile.ZipFile(teams, "w") as archive:
        for group, number in (("Team_Red", 7), ("Team Blue", 8)):
            prefix = moodle_prefix(group, number)
            add(archive, moodle_entry(prefix, "01_arrays_to_tensors.ipynb"))
        # the students in no group: "Default group", no id
        add(archive, moodle_entry("Default group", "01_arrays_to_tensors.ipynb"))
    groups = tmp_path / "groups.csv"
    groups.write_text(
        "group,group id,id,name\nTeam Red,7,31,Ann\nTeam Red,7,32,Bo\n"
        "Team Blue,8,33,Cy\n",
        encoding="utf-8",
    )
    out = tmp_path / "teams"
    collected = collect.collect(teams, out, groups)
    rows = roster(out)
    assert {r["lms id"]: r["group"] for r in rows.values()} == {
        "31": "Team Red",
        "32": "Team Red",
        "33": "Team Blue",
    }
    assert "a team submission of no group, left out" in "\n".join(collected.notes)


def test_gradescope_as_its_export_lays_it_out(tmp_path: Path) -> None:
    download = tmp_path / "export.zip"
    gradescope_class(download)
    out = tmp_path / "class"
    collected = collect.collect(download, out)
    assert collected.lms == "gradescope"
    assert files_under(out) == {
        "roster.csv",
        "Jane Doe_jane_example.edu/01_arrays_to_tensors.ipynb",
        "Ann Smith_ann_example.edu/02_walking_backwards.ipynb",  # a group
        "Bo Li_bo_example.edu/02_walking_backwards.ipynb",
        "Cy Ng_cy_example.edu/01_arrays_to_tensors.ipynb",
    }
    # Cy's later submission by :created_at:, though its zip entry is older
    assert (
        out / "Cy Ng_cy_example.edu/01_arrays_to_tensors.ipynb"
    ).read_bytes() == LATER
    rows = roster(out)
    assert rows["Bo Li_bo_example.edu"]["submission"] == "submission_102"
    assert rows["Bo Li_bo_example.edu"]["group"] == "Ann Smith+Bo Li"
    assert "submission_104 kept (the latest made)" in "\n".join(collected.notes)


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_hostile_entries_are_left_out_with_a_note(tmp_path: Path) -> None:
    for lms, prefix in (
        ("canvas", ""),
        ("moodle", "Jane Doe_5_assignsubmission_file/"),
        ("gradescope", "export/submission_1/"),
    ):
        download = tmp_path / f"{lms}.zip"
        with zipfile.ZipFile(download, "w") as archive:
            if lms == "gradescope":
                metadata = gradescope_metadata(
                    {
                        "submission_1": (
                            "2026-11-01 12:00:00 -07:00",
                            [("Jo", "1", "jo@x")],
                        )
                    }
                )
                add(archive, "export/submission_metadata.yml", metadata.encode())
            name = "doejane_1_2_" if lms == "canvas" else prefix
            add(archive, f"{name}01_arrays_to_tensors.ipynb")
            add(archive, f"{name}01_arrays_to_tensors.ipynb", b"{}")  # twice
            hostile(archive, prefix)
            add(
                archive,
                "mXller_77_88_01_a.ipynb"
                if lms == "canvas"
                else f"{prefix}mXller.ipynb",
            )
        not_utf8(download, b"mXller", b"m\xfcller")
        damage(download, b"broken_7_8_01_a.ipynb")
        out = tmp_path / lms
        collected = collect.collect(download, out)
        assert collected.lms == lms
        notes = "\n".join(collected.notes)
        for words in (
            "climbs_1_2_01_a.ipynb: a path that climbs out (..), left out",
            "absolute_1_2_01_a.ipynb: an absolute path, left out",
            "link_3_4_01_a.ipynb: a symbolic link, left out",
            f"huge_5_6_01_a.ipynb: more than {2**20} bytes, left out",
            "broken_7_8_01_a.ipynb: cannot be read",
            "its name is not UTF-8",
            "01_arrays_to_tensors.ipynb: in the zip twice, both left out",
        ):
            assert words in notes, (lms, words)
        # one notebook, once per student, in a folder of the class
        assert all(len(p.relative_to(out).parts) <= 2 for p in out.rglob("*"))
        assert {p.name for p in out.glob("*/*")} == {"m_ller.ipynb"} or lms == "canvas"
    written = {p.relative_to(tmp_path).parts[0] for p in tmp_path.rglob("*")}
    zips = {"canvas.zip", "moodle.zip", "gradescope.zip"}
    assert written == {"canvas", "moodle", "gradescope", *zips}


# --- the attacks -------------------------------------------------------------------


def test_a_student_file_named_like_another_lms_does_not_switch_the_lms(
    tmp_path: Path,
) -> None:
    download = tmp_path / "canvas.zip"
    canvas_class(download)
    with zipfile.ZipFile(download, "a") as archive:
        add(
            archive,
            canvas_entry(
                "Li, Wu", 105, 9200, "Ann ONeil_11_assignsubmission_file_01_a.ipynb"
            ),
        )
        add(archive, canvas_entry("Li, Wu", 105, 9201, "submission_metadata.yml"))
    collected = collect.collect(download, tmp_path / "canvas")
    assert collected.lms == "canvas" and len(collected.students) == 5
    moodle = tmp_path / "moodle.zip"
    moodle_class(moodle, 4, True)
    with zipfile.ZipFile(moodle, "a") as archive:
        prefix = moodle_prefix("Ann O'Neil", 11)
        add(archive, moodle_entry(prefix, "submission_metadata.yml"))
        add(archive, moodle_entry(prefix, "doejane_103_9002_01_a.ipynb"))
    collected = collect.collect(moodle, tmp_path / "moodle")
    assert collected.lms == "moodle" and len(collected.students) == 3


def test_a_crafted_moodle_name_cannot_claim_a_classmates_id(tmp_path: Path) -> None:
    download = tmp_path / "moodle.zip"
    moodle_class(download, 4, False)
    with zipfile.ZipFile(download, "a") as archive:
        # Ann uploads a file named as Moodle would name Jörg's
        crafted = (
            "J\u00f6rg M\u00fcller_12_assignsubmission_file_01_arrays_to_tensors.ipynb"
        )
        add(
            archive,
            moodle_entry(moodle_prefix("Ann O'Neil", 11), crafted, folders=False),
            b"{}",
        )
    out = tmp_path / "class"
    collected = collect.collect(download, out)
    rows = roster(out)
    assert [r["lms id"] for r in rows.values()].count("12") == 1
    assert (
        out / "J\u00f6rg M\u00fcller_12/01_arrays_to_tensors.ipynb"
    ).read_bytes() == NOTEBOOK
    assert not collected.refused


def test_a_second_claim_on_an_id_is_refused_loudly(tmp_path: Path) -> None:
    download = tmp_path / "moodle.zip"
    moodle_class(download, 4, True)
    with zipfile.ZipFile(download, "a") as archive:
        add(
            archive,
            moodle_entry(moodle_prefix("Eve Evans", 12), "01_arrays_to_tensors.ipynb"),
        )
    out = tmp_path / "class"
    collected = collect.collect(download, out)
    assert (
        collected.refused and "the id 12 is claimed by 2 names" in collected.refused[0]
    )
    assert "12" not in {r["lms id"] for r in roster(out).values()}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "course",
            "collect",
            str(download),
            str(tmp_path / "cli"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "REFUSED: the id 12" in done.stderr


def test_a_metadata_file_inside_a_submission_is_the_students_own(
    tmp_path: Path,
) -> None:
    download = tmp_path / "export.zip"
    gradescope_class(download)
    swapped = gradescope_metadata(
        {
            "submission_101": (
                "2027-01-01 00:00:00 -07:00",
                [("Cy Ng", "903", "cy@example.edu")],
            ),
            "submission_104": (
                "2027-01-01 00:00:00 -07:00",
                [("Jane Doe", "900", "jane@example.edu")],
            ),
        }
    )
    with zipfile.ZipFile(download, "a") as archive:
        add(
            archive,
            "assignment_77_export/submission_104/submission_metadata.yml",
            swapped.encode(),
        )
    out = tmp_path / "class"
    collect.collect(download, out)
    assert (
        out / "Cy Ng_cy_example.edu/01_arrays_to_tensors.ipynb"
    ).read_bytes() == LATER
    assert (
        out / "Jane Doe_jane_example.edu/01_arrays_to_tensors.ipynb"
    ).read_bytes() == NOTEBOOK
    # with no metadata at the export's root, only one inside a submission:
    # not a Gradescope export
    alone = tmp_path / "alone.zip"
    with zipfile.ZipFile(alone, "w") as archive:
        add(archive, "export/submission_1/submission_metadata.yml", swapped.encode())
        add(archive, "export/submission_1/01_arrays_to_tensors.ipynb")
        add(archive, "export/submission_2/01_arrays_to_tensors.ipynb")
    with pytest.raises(ValueError, match="not a download this reads"):
        collect.collect(alone, tmp_path / "alone")


def test_the_zip_entry_times_never_decide_which_file_counts(tmp_path: Path) -> None:
    for when in ((1980, 1, 1, 0, 0, 0), (2107, 12, 31, 23, 59, 58)):
        download = tmp_path / f"{when[0]}.zip"
        with zipfile.ZipFile(download, "w") as archive:
            add(
                archive,
                canvas_entry("Doe, Jane", 1, 50, "01_a-1.ipynb"),
                LATER,
                when=ZIPPED,
            )
            add(
                archive,
                canvas_entry("Doe, Jane", 1, 49, "01_a.ipynb"),
                NOTEBOOK,
                when=when,
            )
        out = tmp_path / f"class{when[0]}"
        collect.collect(download, out)
        assert (out / "doejane_1/01_a.ipynb").read_bytes() == LATER


def test_the_write_budget_counts_files_and_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as archive:
        for user in range(1, 6):
            add(archive, canvas_entry(f"S{user}", user, user, "01_a.ipynb"))
    monkeypatch.setattr(collect, "MAX_FILES", 3)
    collected = collect.collect(download, tmp_path / "files")
    assert sum(len(s.notebooks) for s in collected.students) == 3
    assert "over the write budget" in "\n".join(collected.notes)
    monkeypatch.setattr(collect, "MAX_FILES", 100)
    monkeypatch.setattr(collect, "MAX_TOTAL", 2 * len(NOTEBOOK))
    collected = collect.collect(download, tmp_path / "bytes")
    assert sum(len(s.notebooks) for s in collected.students) == 2


def test_a_zip_no_lms_writes_is_refused_with_the_entries_that_do_not_fit(
    tmp_path: Path,
) -> None:
    download = tmp_path / "mixed.zip"
    canvas_class(download)
    with zipfile.ZipFile(download, "a") as archive:
        add(archive, moodle_entry(moodle_prefix("Ann", 1), "01_a.ipynb"))
    with pytest.raises(ValueError, match="not canvas: 1 entries"):
        collect.collect(download, tmp_path / "out")


# --- the command, the metadata reader ----------------------------------------------


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
    text = gradescope_metadata(
        {
            "submission_102": (
                "2026-11-01 12:30:00.000000000 -07:00",
                [
                    ("Ann Smith", "901", "ann@example.edu"),
                    ("Bo Li", "902", "bo@example.edu"),
                ],
            )
        }
    )
    text += "other:\n  :submitters: []\n# a comment\nx: 1\n"
    found = collect.read_metadata(text)
    assert found["submission_102"]["submitters"] == [
        {"name": "Ann Smith", "sid": "901", "email": "ann@example.edu"},
        {"name": "Bo Li", "sid": "902", "email": "bo@example.edu"},
    ]
    created = collect.created(str(found["submission_102"]["created_at"]))
    assert created is not None and created.isoformat() == "2026-11-01T12:30:00-07:00"
    assert found["other"]["submitters"] == []
    assert "x" not in found


# --- handing the grades back -------------------------------------------------------


def graded(out: Path, folder: str, chapter: int) -> Result:
    exercise = f"{chapter}.5"
    grade = {exercise: Graded(exercise, exercise, points=1.0, status="graded")}
    notebook = out / folder / f"0{chapter}_a.ipynb"
    return Result(notebook, folder, chapter, grade, [])


def test_the_canvas_import_puts_only_canvas_user_ids_in_its_id_column(
    tmp_path: Path,
) -> None:
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as archive:
        add(archive, canvas_entry("Doe, Jane", 1234, 1, "01_a.ipynb"))
        add(archive, canvas_entry("-cmd", 99, 2, "01_a.ipynb"))
    canvas_out = tmp_path / "canvas"
    collect.collect(download, canvas_out)
    moodle = tmp_path / "moodle.zip"
    moodle_class(moodle, 4, True)
    with zipfile.ZipFile(moodle, "a") as archive:
        add(archive, moodle_entry(moodle_prefix("=cmd", 14), "01_a.ipynb"))
    moodle_out = tmp_path / "moodle"
    collect.collect(moodle, moodle_out)
    gradescope = tmp_path / "gradescope.zip"
    gradescope_class(gradescope)
    gradescope_out = tmp_path / "gradescope"
    collect.collect(gradescope, gradescope_out)
    anonymous = tmp_path / "anonymous.zip"
    canvas_class(anonymous, anonymous=True)
    anonymous_out = tmp_path / "anonymous"
    collect.collect(anonymous, anonymous_out)
    roster = {
        **collect.read_roster(canvas_out),
        **collect.read_roster(moodle_out),
        **collect.read_roster(gradescope_out),
        **collect.read_roster(anonymous_out),
    }
    assert roster["cmd_99"].name == "cmd" and roster["cmd_14"].name == "=cmd"
    folders = ["doejane_1234", "cmd_99", "cmd_14", "Jane Doe_13"]
    folders.append("Jane Doe_jane_example.edu")
    results = [graded(tmp_path, f, 1) for f in [*folders, "anon_12345_12345", "other"]]
    results.append(graded(tmp_path, "doejane_1234", 2))
    path = tmp_path / "canvas.csv"
    export.write_canvas(results, path, {}, roster)
    rows = {r[0]: r for r in csv.reader(path.open(encoding="utf-8"))}
    assert rows["doejane"][:7] == ["doejane", "1234", "", "", "", "1.00", "1.00"]
    assert rows["cmd"][:5] == ["cmd", "99", "", "", ""]
    assert rows["'=cmd"][:5] == ["'=cmd", "", "", "", ""]  # never a formula
    # a Moodle participant number, a Gradescope SID and a Canvas anonymous id
    # are not Canvas user ids: matched by name
    assert rows["Jane Doe"][1:5] == ["", "", "", ""]
    assert rows["anon_12345"][1:5] == ["", "", "", ""]
    assert rows["other"][:5] == ["other", "", "", "other", ""]
    # chapter 2 not handed in: blank, so Canvas keeps the score it holds
    assert rows["'=cmd"][5:] == ["1.00", ""]
    header = next(csv.reader(path.open(encoding="utf-8")))
    assert header[5:] == ["slowtorch chapter 1", "slowtorch chapter 2"]
    export.write_canvas(results, path, {}, roster, {2: "Notebook two"})
    header, possible, *table = list(csv.reader(path.open(encoding="utf-8")))
    assert header[5:] == ["Notebook two"] and possible[5:] == ["1.00"]
    assert {tuple(r[5:]) for r in table} == {("1.00",), ("",)}
    assert export.parse_columns("2=Notebook two, 3") == {2: "Notebook two", 3: ""}
    with pytest.raises(ValueError):
        export.parse_columns("two=x")


def test_the_grades_csv_carries_the_lms_late_mark(tmp_path: Path) -> None:
    download = tmp_path / "submissions.zip"
    canvas_class(download)
    out = tmp_path / "class"
    collect.collect(download, out)
    results = [graded(out, f, 1) for f in ("doejane_103", "smithbo_104")]
    path = tmp_path / "grades.csv"
    export.write_csv(results, path, {}, collect.read_roster(out))
    rows = {r["student"]: r for r in csv.DictReader(path.open(encoding="utf-8"))}
    assert rows["doejane_103"]["late"] == "late" and rows["smithbo_104"]["late"] == ""
    export.write_csv(results, path, {})  # not collected: no late column
    assert "late" not in next(csv.reader(path.open(encoding="utf-8")))


def test_grade_checks_where_it_writes_before_grading(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    (folder / "ann").mkdir(parents=True)
    (folder / "ann" / "01_arrays_to_tensors.ipynb").write_bytes(NOTEBOOK)
    blocker = tmp_path / "a file"
    blocker.write_text("")
    for option in ("--csv", "--feedback"):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "course",
                "grade",
                str(folder),
                option,
                str(blocker / "inside" / "grades.csv"),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert "(nothing graded)" in done.stderr and "graded " not in done.stdout


def test_grades_that_cannot_be_written_where_asked_are_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = [graded(tmp_path, "ann", 1)]
    blocker = tmp_path / "a file"
    blocker.write_text("")
    assert not cli.write_grades(
        results, blocker / "grades.csv", "plain", ({}, {}, None)
    )
    kept = Path(tempfile.gettempdir()) / f"grades-{os.getpid()}.csv"
    try:
        assert "ann" in kept.read_text(encoding="utf-8")
        assert f"wrote {kept}" in capsys.readouterr().out
    finally:
        kept.unlink()
        kept.with_name(f"{kept.stem}-copies.md").unlink()


def test_a_chapter_handed_in_alone_says_what_it_was_graded_with(
    tmp_path: Path,
) -> None:
    alone = [graded(tmp_path, "ann", 3)]
    absent = grading.sources_of_earlier(alone, {}, ())
    assert alone[0].waiting == [1, 2] and {"1.5", "2.9"} <= absent
    (line,) = gradescope.earlier_chapters(alone)
    assert line[0] is alone[0]
    assert line[1].startswith("MISSING chapter 1, 2: no notebook")
    assert "--give ch1,ch2" in line[1] and "--earlier" in line[1]
    with_first = [graded(tmp_path, "ann", 1), graded(tmp_path, "ann", 3)]
    given = edition.parse_give("ch2")
    assert not grading.sources_of_earlier(with_first, {}, given)
    lines = [text for _, text in gradescope.earlier_chapters(with_first)]
    assert lines == [
        "used chapter 1 from 01_a.ipynb (handed in with it), "
        "chapter 2 from the reference (given)"
    ]
    # the student's earlier submission comes before the reference
    before = {2: grading.Submitted(graded(tmp_path / "before", "ann", 2))}
    mine = [graded(tmp_path, "ann", 1), graded(tmp_path, "ann", 3)]
    assert not grading.sources_of_earlier(mine, before, given)
    assert mine[1].earlier[2] == "02_a.ipynb (an earlier submission)"
    own = [graded(tmp_path, "ann", c) for c in (1, 2, 3)]
    assert not grading.sources_of_earlier(own, {}, ())
    assert not gradescope.earlier_chapters(own, own_too=False)
    assert gradescope.earlier_chapters(own, only=3) == [
        (
            own[2],
            "used chapter 1 from 01_a.ipynb (handed in with it), "
            "chapter 2 from 02_a.ipynb (handed in with it)",
        )
    ]


def test_the_gradescope_export_records_what_it_gives(tmp_path: Path) -> None:
    archive = tmp_path / "chapter3.zip"
    export.gradescope(archive, chapter=3, given={"1.5"})
    with zipfile.ZipFile(archive) as opened:
        settings = json.loads(opened.read("course/autograder.json"))
        strides = opened.read("slowtorch_lib/_strides.py").decode()
    assert settings["given"] == ["1.5"] and settings["chapter"] == 3
    assert "exercise 1.5, `contiguous_strides`, is not written yet" not in strides


def test_earlier_submissions_are_matched_to_the_student_across_assignments(
    tmp_path: Path,
) -> None:
    def moodle(name: str, people: dict[str, int] | list[tuple[str, int]]) -> Path:
        download = tmp_path / f"{name}.zip"
        pairs = list(people.items()) if isinstance(people, dict) else people
        with zipfile.ZipFile(download, "w") as archive:
            for person, number in pairs:
                entry = moodle_entry(moodle_prefix(person, number), f"{name}.ipynb")
                add(archive, entry)
        collect.collect(download, tmp_path / name)
        return tmp_path / name

    # Moodle numbers the participants of each assignment afresh
    first = moodle("01_a", {"Jane Doe": 5, "Ann ONeil": 6})
    third = moodle("03_a", {"Jane Doe": 41, "Ann ONeil": 40})
    same = collect.same_students(collect.read_roster(third), collect.read_roster(first))
    assert same == {"Jane Doe_5": "Jane Doe_41", "Ann ONeil_6": "Ann ONeil_40"}
    earlier = cli.earlier_submissions([first], [third], None)
    assert (first / "Jane Doe_5" / "01_a.ipynb", "Jane Doe_41") in earlier
    # blind marking names everyone alike: never matched by name
    blind = [("Participant", 7), ("Participant", 8)]
    then = collect.read_roster(moodle("02_a", blind))
    now = collect.read_roster(
        moodle("04_a", [("Participant", 30), ("Participant", 31)])
    )
    assert len(then) == len(now) == 2 and not collect.same_students(now, then)
