"""From an LMS's download to one folder per student: ``python -m course collect``.

``collect(ZIP, OUT)`` reads the zip file that a learning management system
gives for "download all submissions" and writes each student's notebooks
into ``OUT/<student>/``, the folder layout that ``python -m course grade``
reads, with ``OUT/roster.csv``: for each folder, the student's name and
their id in the LMS, so that the grades go back to the right row. Three
downloads are read:

- Canvas ("Download Submissions"): one flat file per submitted file, named
  ``<lastnamefirstname>_<userid>_<submissionid>_<file name>``, with
  ``_late`` after the name for a late submission and ``-N`` before the
  extension for the N-th resubmission of a file name.
- Gradescope ("Export Submissions"): a folder ``submission_<id>/`` per
  submission and a ``submission_metadata.yml`` naming its submitters (name,
  student id, email).
- Moodle (assignment, "Download all submissions"): a folder
  ``<Full Name>_<participant id>_assignsubmission_file_/`` per student
  (older versions: that prefix on each file name).

The zip is untrusted: nothing in it is written where its own names say
(each notebook goes to ``OUT/<student folder>/<file name>``, both made of
safe characters); links, paths that climb out (``..``) or start at the root,
files over ``MAX_FILE`` bytes (read with a cap, whatever the zip's header
claims), more than ``MAX_TOTAL`` bytes in all, names that are not UTF-8 and
duplicate names are each a note, and one bad entry never stops the others.
"""

from __future__ import annotations

import csv
import os
import re
import stat
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from course.export import escape

MAX_FILE = 32 * 2**20  # bytes of one notebook
MAX_TOTAL = 4 * 2**30  # bytes written in all
MAX_ENTRIES = 100_000
ROSTER = "roster.csv"
SAFE = re.compile(r"[^\w .,-]+")

CANVAS = re.compile(
    r"^(?P<name>[^_/]+?)(?P<late>_late)?_(?P<user>\d+)_(?P<submission>\d+)_(?P<file>.+)$",
    re.IGNORECASE,
)
RESUBMITTED = re.compile(r"-(\d+)(\.ipynb)$", re.IGNORECASE)
MOODLE = re.compile(
    r"^(?P<name>.+)_(?P<user>\d+)_assign(?:submission|feedback)_(?P<plugin>[a-z]+)_"
    r"(?P<rest>.*)$"
)
GRADESCOPE_FOLDER = re.compile(r"^submission_(?P<submission>\d+)$")


@dataclass
class Student:
    """One student's folder and what the LMS calls them."""

    folder: str
    name: str
    lms_id: str
    email: str = ""
    submission: str = ""
    late: bool = False
    notebooks: list[str] = field(default_factory=list)


@dataclass
class Collected:
    """What ``collect`` wrote, and a note for everything it left out."""

    lms: str
    students: list[Student] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Entry:
    """A zip entry that may be a student's notebook."""

    info: zipfile.ZipInfo
    parts: tuple[str, ...]  # its path, decoded, without the empty parts


def safe(text: str, limit: int = 60) -> str:
    """``text`` as a file name: letters, digits, spaces and ``_.,-`` only."""
    cleaned = SAFE.sub("_", text).strip(" ._") or "student"
    return cleaned[:limit].rstrip(" ._") or "student"


def decoded(info: zipfile.ZipInfo) -> tuple[str, bool]:
    """The entry's name, and whether it was valid UTF-8. Without the zip's
    UTF-8 flag, Python decoded the bytes as code page 437; most tools write
    UTF-8 there anyway."""
    name = info.filename
    if info.flag_bits & 0x800:
        return name, True
    try:
        raw = name.encode("cp437")
    except UnicodeEncodeError:
        return name, True
    try:
        return raw.decode("utf-8"), True
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), False


def unsafe_path(name: str) -> str | None:
    """Why a zip entry's own path would be unsafe to extract, or None."""
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return "an absolute path"
    if ".." in re.split(r"[/\\]", name):
        return "a path that climbs out (..)"
    return None


def entries(archive: zipfile.ZipFile, notes: list[str]) -> list[Entry]:
    """The zip's regular files, each checked; a note for each one left out."""
    kept = []
    for index, info in enumerate(archive.infolist()):
        if index >= MAX_ENTRIES:
            notes.append(f"more than {MAX_ENTRIES} entries: the rest left out")
            break
        name, utf8 = decoded(info)
        shown = name.encode("unicode_escape").decode("ascii")[:120]
        if not utf8:
            notes.append(f"{shown}: its name is not UTF-8 (read as {safe(name)!r})")
        kind = stat.S_IFMT(info.external_attr >> 16)
        if kind == stat.S_IFLNK:
            notes.append(f"{shown}: a symbolic link, left out")
            continue
        if info.is_dir() or kind == stat.S_IFDIR:
            continue
        problem = unsafe_path(name)
        if problem is not None:
            notes.append(f"{shown}: {problem}, left out")
            continue
        parts = tuple(p for p in re.split(r"[/\\]", name) if p not in ("", "."))
        if not parts or "__MACOSX" in parts or parts[-1].startswith("."):
            continue
        kept.append(Entry(info, parts))
    return kept


def read_capped(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes | None:
    """The entry's bytes, or None if it holds more than ``MAX_FILE``."""
    if info.file_size > MAX_FILE:
        return None
    chunks, size = [], 0
    with archive.open(info) as stream:
        while chunk := stream.read(1 << 20):
            size += len(chunk)
            if size > MAX_FILE:
                return None
            chunks.append(chunk)
    return b"".join(chunks)


# --- the three downloads -----------------------------------------------------------


def which_lms(found: list[Entry]) -> str | None:
    names = [e.parts for e in found]
    if any(p[-1] == "submission_metadata.yml" for p in names):
        return "gradescope"
    if any(MOODLE.match(part) for p in names for part in p[:1] + p[-1:]):
        return "moodle"
    if any(len(p) == 1 and CANVAS.match(p[0]) for p in names):
        return "canvas"
    return None


def canvas(found: list[Entry], notes: list[str]) -> list[tuple[Student, Entry, str]]:
    placed = []
    for entry in found:
        match = CANVAS.match(entry.parts[-1])
        if match is None:
            notes.append(f"{entry.parts[-1]}: not named as Canvas names files")
            continue
        student = Student(
            folder=f"{safe(match['name'])}_{match['user']}",
            name=match["name"],
            lms_id=match["user"],
            submission=match["submission"],
            late=bool(match["late"]),
        )
        placed.append((student, entry, RESUBMITTED.sub(r"\2", match["file"])))
    return placed


def moodle(found: list[Entry], notes: list[str]) -> list[tuple[Student, Entry, str]]:
    placed = []
    for entry in found:
        match = MOODLE.match(entry.parts[0])
        if match is None:
            notes.append(f"{'/'.join(entry.parts)}: not named as Moodle names folders")
            continue
        if match["plugin"] != "file":
            notes.append(f"{'/'.join(entry.parts)}: not a file submission, left out")
            continue
        name = match["rest"] if len(entry.parts) == 1 else entry.parts[-1]
        student = Student(
            folder=f"{safe(match['name'])}_{match['user']}",
            name=match["name"],
            lms_id=match["user"],
        )
        placed.append((student, entry, name))
    return placed


def gradescope(
    found: list[Entry], archive: zipfile.ZipFile, notes: list[str]
) -> list[tuple[Student, Entry, str]]:
    metadata: dict[str, dict[str, object]] = {}
    for entry in found:
        if entry.parts[-1] == "submission_metadata.yml":
            text = read_capped(archive, entry.info)
            if text is None:
                notes.append("submission_metadata.yml: too large, left out")
            else:
                metadata.update(read_metadata(text.decode("utf-8", errors="replace")))
    placed = []
    for entry in found:
        folder = next((p for p in entry.parts[:-1] if GRADESCOPE_FOLDER.match(p)), None)
        if folder is None:
            if entry.parts[-1] != "submission_metadata.yml":
                notes.append(f"{'/'.join(entry.parts)}: not in a submission folder")
            continue
        about = metadata.get(folder, {})
        submitters = about.get("submitters") or [{}]
        assert isinstance(submitters, list)
        if folder not in metadata:
            notes.append(f"{folder}: not in submission_metadata.yml (no name)")
        for person in submitters:
            name = str(person.get("name") or folder)
            lms_id = str(person.get("sid") or person.get("email") or folder)
            student = Student(
                folder=f"{safe(name)}_{safe(lms_id, 40)}",
                name=name,
                lms_id=lms_id,
                email=str(person.get("email", "")),
                submission=folder,
            )
            placed.append((student, entry, entry.parts[-1]))
    return placed


def read_metadata(text: str) -> dict[str, dict[str, object]]:
    """The submitters of each submission from Gradescope's metadata file
    (YAML written by Ruby: ``submission_1:`` then ``:submitters:`` and a
    list of ``- :name: ...``, ``:sid: ...``, ``:email: ...``). Only that
    part is read; anything else is skipped."""
    found: dict[str, dict[str, object]] = {}
    current: dict[str, object] | None = None
    person: dict[str, str] | None = None
    in_submitters = False
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if indent == 0:
            key = body.rstrip(":").strip("'\"")
            current = {"submitters": []} if body.endswith(":") else None
            if current is not None:
                found[key] = current
            in_submitters, person = False, None
            continue
        if current is None:
            continue
        if body.startswith(":submitters:"):
            in_submitters = True
            continue
        if body.startswith("- "):
            if not in_submitters:
                continue
            person = {}
            submitters = current["submitters"]
            assert isinstance(submitters, list)
            submitters.append(person)
            body = body[2:].strip()
        elif indent <= 2 and body.startswith(":"):
            in_submitters, person = False, None
            continue
        match = re.match(r"^:?(\w+):\s*(.*)$", body)
        if match and person is not None and in_submitters:
            person[match[1]] = match[2].strip().strip("'\"")
    return found


# --- writing -----------------------------------------------------------------------


def collect(zip_path: Path, out: Path) -> Collected:
    """Writes one folder per student into ``out`` (new or empty) and
    ``out/roster.csv``.

    Raises:
        FileExistsError: If ``out`` holds anything.
        ValueError: If the zip is not one of the three downloads.
    """
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty: collect into a new folder")
    notes: list[str] = []
    try:
        archive = zipfile.ZipFile(zip_path)
    except (OSError, zipfile.BadZipFile) as error:
        raise ValueError(f"{zip_path}: not a zip file ({error})") from error
    with archive:
        found = entries(archive, notes)
        lms = which_lms(found)
        if lms is None:
            raise ValueError(
                f"{zip_path}: not a download this reads (Canvas files named "
                "name_userid_submissionid_file, a Gradescope export with "
                "submission_metadata.yml, or Moodle folders "
                "Full Name_id_assignsubmission_file_)"
            )
        if lms == "canvas":
            placed = canvas(found, notes)
        elif lms == "moodle":
            placed = moodle(found, notes)
        else:
            placed = gradescope(found, archive, notes)
        collected = Collected(lms, notes=notes)
        write_all(archive, placed, out, collected)
    write_roster(collected, out / ROSTER)
    return collected


def write_all(
    archive: zipfile.ZipFile,
    placed: list[tuple[Student, Entry, str]],
    out: Path,
    collected: Collected,
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    students: dict[str, Student] = {}
    total = 0
    # Oldest first: a later resubmission of the same file replaces the earlier.
    placed = sorted(placed, key=lambda p: (p[1].info.date_time, resubmission(p[1])))
    for student, entry, file_name in placed:
        shown = "/".join(entry.parts)
        try:
            if not file_name.lower().endswith(".ipynb"):
                collected.notes.append(f"{shown}: not a notebook, left out")
                continue
            data = read_capped(archive, entry.info)
            if data is None:
                collected.notes.append(f"{shown}: more than {MAX_FILE} bytes, left out")
                continue
            if total + len(data) > MAX_TOTAL:
                collected.notes.append(
                    f"{shown}: over {MAX_TOTAL} bytes in all, left out"
                )
                continue
            known = students.setdefault(student.folder, student)
            known.late = known.late or student.late
            name = safe(file_name[: -len(".ipynb")], 80) + ".ipynb"
            target = out / known.folder / name
            if name in known.notebooks:
                collected.notes.append(
                    f"{known.folder}/{name}: handed in more than once; the latest kept"
                )
            else:
                known.notebooks.append(name)
            target.parent.mkdir(exist_ok=True)
            target.write_bytes(data)
            stamp = time.mktime((*entry.info.date_time, 0, 0, -1))
            os.utime(target, (stamp, stamp))
            total += len(data)
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
            collected.notes.append(f"{shown}: cannot be read ({error}), left out")
    collected.students = sorted(students.values(), key=lambda s: s.folder)


def read_roster(folder: Path) -> dict[str, tuple[str, str]]:
    """From a class folder that ``collect`` wrote: each student folder's
    name and LMS id (empty where there is no roster)."""
    path = folder / ROSTER
    if not path.is_file():
        return {}
    with open(path, newline="", encoding="utf-8") as file:
        return {
            unescaped(row["folder"]): (unescaped(row["name"]), unescaped(row["lms id"]))
            for row in csv.DictReader(file)
            if row.get("folder") and row.get("lms id") is not None
        }


def unescaped(text: str) -> str:
    """``text`` as it was before :func:`course.export.escape`."""
    return text[1:] if text.startswith("'") and escape(text[1:]) == text else text


def resubmission(entry: Entry) -> int:
    """Canvas's number of a resubmitted file (``name-2.ipynb``), else 0."""
    match = RESUBMITTED.search(entry.parts[-1])
    return int(match[1]) if match else 0


def write_roster(collected: Collected, path: Path) -> None:
    """One row per student folder: who it is in the LMS."""
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(
            ["folder", "name", "lms id", "email", "submission", "late", "notebooks"]
        )
        for s in collected.students:
            writer.writerow(
                [
                    escape(s.folder),
                    escape(s.name),
                    escape(s.lms_id),
                    escape(s.email),
                    escape(s.submission),
                    "late" if s.late else "",
                    " ".join(s.notebooks),
                ]
            )
