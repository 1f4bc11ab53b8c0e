"""From an LMS's download to one folder per student: ``python -m course collect``.

``collect(ZIP, OUT)`` reads the zip file that a learning management system
gives for "download all submissions" and writes each student's notebooks
into ``OUT/<student>/``, the folder layout that ``python -m course grade``
reads, with ``OUT/roster.csv``: for each folder, the student's name, which
LMS it came from and their id there, so that the grades go back to the
right row.

Each download is read as a schema: which parts of an entry's path the LMS
writes (who submitted, when, which submission) and which part the student
writes (their own file name). Only the LMS's parts say who a file belongs
to, and the LMS is decided from the shape of the whole zip, never from one
entry: a layout is chosen when every entry fits it, and no student can
write a file name that makes their entry fit another LMS's parts. The
layouts, as each LMS's own code writes them:

- Canvas ("Download Submissions"): one flat entry per file,
  ``<name>[_LATE]_<user id>_<attachment id>_<file name>`` where ``<name>``
  is the sortable name, downcased, with every character that is not a
  letter, digit or ``_`` removed (and no ``_<digits>_`` in it); with
  anonymous grading ``[LATE_]anon_<anonymous id>_<attachment id>_<file
  name>``; an online text or link submission is ``<name>_<id>_text.html``
  or ``_link.html`` (left out). A group assignment has one entry per group,
  named after the group, with the id of the member who submitted: pass
  ``groups`` (see :func:`read_groups`) to give each member the group's
  notebooks.
- Moodle ("Download all submissions"), with the participant number Moodle
  gives each student of the assignment (not the user id): in folders,
  ``<Full Name>_<number>_assignsubmission_file_/<the student's path>``
  (3.x) or ``..._assignsubmission_file/...`` (4.1 and later); flat,
  ``<Full Name>_<number>_assignsubmission_file_<file name>``. Moodle turns
  ``_`` in a name into a space, so the name holds none. Blind marking names
  everyone ``Participant``; a team submission is one folder per group,
  ``<group name>_<group id>`` (its members from ``groups``).
- Gradescope ("Export Submissions"): a folder ``submission_<id>/`` per
  submission and one ``submission_metadata.yml`` beside them naming each
  submission's submitters (several for a group) and when it was made. A
  file of that name inside a submission folder is the student's own file.

One folder per LMS id: a second name for one id is refused loudly (neither
is written; :attr:`Collected.refused`). Where one student handed in two
files of one name, the LMS's own record says which is later (Canvas's
attachment ids grow; Gradescope's ``:created_at:``; Moodle keeps one
current submission): the times of the zip's entries, which are the time of
zipping, are never read.

The zip is untrusted: nothing in it is written where its own names say
(each notebook goes to ``OUT/<student folder>/<file name>``, both made of
safe characters); links, paths that climb out (``..``) or start at the root,
files over ``MAX_FILE`` bytes (read with a cap, whatever the zip's header
claims), more than ``MAX_TOTAL`` bytes or ``MAX_FILES`` files written in
all, names that are not UTF-8 and duplicate names are each a note, and one
bad entry never stops the others.
"""

from __future__ import annotations

import csv
import os
import re
import stat
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from course.export import escape

MAX_FILE = 32 * 2**20  # bytes of one notebook
MAX_TOTAL = 4 * 2**30  # bytes written in all
MAX_FILES = 20_000  # notebooks written in all
MAX_ENTRIES = 100_000
ROSTER = "roster.csv"
SAFE = re.compile(r"[^\w .,-]+")

# What Canvas writes: a name of word characters, the LATE mark, the user id,
# the attachment id; the rest is the student's file name.
# (a name that is not UTF-8 reads with U+FFFD in it)
CANVAS = re.compile(
    r"^(?P<name>[\w\ufffd]*?)(?P<late>_LATE)?_(?P<user>\d+)_(?P<attachment>\d+)_"
    r"(?P<file>.+)$"
)
# Canvas takes every "_<digits>_" out of a name before it writes it
NOT_IN_A_CANVAS_NAME = re.compile(r"_\d+_")
CANVAS_ANONYMOUS = re.compile(
    r"^(?P<late>LATE_)?anon_(?P<user>[A-Za-z0-9]+)_(?P<attachment>\d+)_(?P<file>.+)$"
)
CANVAS_TEXT = re.compile(
    r"^(?:[\w\ufffd]*?(?:_LATE)?_\d+|(?:LATE_)?anon_[A-Za-z0-9]+)_(?:text|link)\.html$"
)
RESUBMITTED = re.compile(r"-(\d+)(\.ipynb)$", re.IGNORECASE)
# What Moodle writes: a name without "_" (a team's default group has no id).
MOODLE_PREFIX = (
    r"(?P<name>[^_/\\]+?)(?:_(?P<user>\d+))?_assignsubmission_(?P<plugin>[a-z]+)"
)
MOODLE_FOLDER_3 = re.compile(rf"^{MOODLE_PREFIX}_$")
MOODLE_FOLDER_4 = re.compile(rf"^{MOODLE_PREFIX}$")
MOODLE_FLAT = re.compile(rf"^{MOODLE_PREFIX}_(?P<file>.+)$")
GRADESCOPE_FOLDER = re.compile(r"^submission_(?P<submission>\d+)$")
METADATA = "submission_metadata.yml"


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
    lms: str = ""
    id_kind: str = ""  # "canvas user", "canvas anonymous", "moodle participant"...
    group: str = ""


@dataclass
class Collected:
    """What ``collect`` wrote, and a note for everything it left out."""

    lms: str
    students: list[Student] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # ids claimed twice


@dataclass
class Entry:
    """A zip entry that may be a student's notebook."""

    info: zipfile.ZipInfo
    parts: tuple[str, ...]  # its path, decoded, without the empty parts


@dataclass
class Claim:
    """One file of one submitter, as the LMS's own parts of its path say."""

    student: Student
    entry: Entry
    file: str  # the student's own name for it
    order: tuple[object, ...] = ()  # the LMS's record of which is later


@dataclass
class Member:
    """One member of a group, from the teacher's groups file."""

    lms_id: str
    name: str
    group: str
    group_id: str


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


def shown(text: str) -> str:
    return text.encode("unicode_escape").decode("ascii")[:120]


def entries(archive: zipfile.ZipFile, notes: list[str]) -> list[Entry]:
    """The zip's regular files, each checked; a note for each one left out.
    An entry whose name the zip holds twice is left out, both times: the
    LMSs write each name once."""
    kept = []
    for index, info in enumerate(archive.infolist()):
        if index >= MAX_ENTRIES:
            notes.append(f"more than {MAX_ENTRIES} entries: the rest left out")
            break
        name, utf8 = decoded(info)
        if not utf8:
            notes.append(
                f"{shown(name)}: its name is not UTF-8 (read as {safe(name)!r})"
            )
        kind = stat.S_IFMT(info.external_attr >> 16)
        if kind == stat.S_IFLNK:
            notes.append(f"{shown(name)}: a symbolic link, left out")
            continue
        if info.is_dir() or kind == stat.S_IFDIR:
            continue
        problem = unsafe_path(name)
        if problem is not None:
            notes.append(f"{shown(name)}: {problem}, left out")
            continue
        parts = tuple(p for p in re.split(r"[/\\]", name) if p not in ("", "."))
        if not parts or "__MACOSX" in parts or parts[-1].startswith("."):
            continue
        kept.append(Entry(info, parts))
    seen: dict[tuple[str, ...], int] = {}
    for entry in kept:
        seen[entry.parts] = seen.get(entry.parts, 0) + 1
    for parts in sorted(p for p, n in seen.items() if n > 1):
        notes.append(f"{shown('/'.join(parts))}: in the zip twice, both left out")
    return [e for e in kept if seen[e.parts] == 1]


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


# --- the layouts: which parts the LMS writes -------------------------------------


def fits_canvas(parts: tuple[str, ...]) -> bool:
    if len(parts) != 1:
        return False
    match = CANVAS.match(parts[0])
    if match is not None:
        return NOT_IN_A_CANVAS_NAME.search(f"{match['name']}_") is None
    return CANVAS_TEXT.match(parts[0]) is not None


def fits_canvas_anonymous(parts: tuple[str, ...]) -> bool:
    return len(parts) == 1 and bool(
        CANVAS_ANONYMOUS.match(parts[0]) or CANVAS_TEXT.match(parts[0])
    )


def fits_moodle_3(parts: tuple[str, ...]) -> bool:
    return len(parts) >= 2 and bool(MOODLE_FOLDER_3.match(parts[0]))


def fits_moodle_4(parts: tuple[str, ...]) -> bool:
    return len(parts) >= 2 and bool(MOODLE_FOLDER_4.match(parts[0]))


def fits_moodle_flat(parts: tuple[str, ...]) -> bool:
    return len(parts) == 1 and bool(MOODLE_FLAT.match(parts[0]))


LAYOUTS: dict[str, Callable[[tuple[str, ...]], bool]] = {
    "canvas": fits_canvas,
    "canvas anonymous": fits_canvas_anonymous,
    "moodle 3 folders": fits_moodle_3,
    "moodle 4 folders": fits_moodle_4,
    "moodle flat": fits_moodle_flat,
}


def gradescope_root(found: list[Entry]) -> tuple[str, ...] | None:
    """The folder of a Gradescope export: the one that holds
    ``submission_metadata.yml`` and every entry of the zip in its
    ``submission_<id>/`` folders; None if the zip is not laid out so."""
    roots = sorted((e.parts[:-1] for e in found if e.parts[-1] == METADATA), key=len)
    for root in roots[:1]:
        depth = len(root)
        inside = all(
            e.parts == (*root, METADATA)
            or (
                e.parts[:depth] == root
                and len(e.parts) > depth + 1
                and GRADESCOPE_FOLDER.match(e.parts[depth]) is not None
            )
            for e in found
        )
        if inside:
            return root
    return None


def which_layout(found: list[Entry]) -> str | None:
    """The one layout that every entry of the zip fits, or None."""
    if not found:
        return None
    if gradescope_root(found) is not None:
        return "gradescope"
    fitting = [
        name for name, fits in LAYOUTS.items() if all(fits(e.parts) for e in found)
    ]
    if "canvas anonymous" in fitting and "canvas" in fitting:
        # every entry anon_<id>_...: anonymous grading (an anonymous id may
        # be all digits), not a class of students all named "anon"
        fitting.remove("canvas")
    return fitting[0] if len(fitting) == 1 else None


def misfits(found: list[Entry]) -> str:
    """For the error: the entries that keep the zip from each layout."""
    lines = []
    for name, fits in LAYOUTS.items():
        wrong = [e for e in found if not fits(e.parts)]
        if wrong:
            example = shown("/".join(wrong[0].parts))
            lines.append(f"  not {name}: {len(wrong)} entries, such as {example!r}")
    return "\n".join(lines)


# --- reading each layout -----------------------------------------------------------


def canvas(found: list[Entry], notes: list[str], anonymous: bool) -> list[Claim]:
    pattern = CANVAS_ANONYMOUS if anonymous else CANVAS
    claims = []
    for entry in found:
        match = pattern.match(entry.parts[0])
        if match is None:  # fits the layout: Canvas's own text or link page
            notes.append(f"{entry.parts[0]}: a text or link submission, left out")
            continue
        user = match["user"]
        name = f"anon_{user}" if anonymous else match["name"] or user
        student = Student(
            folder="",
            name=name,
            lms_id=user,
            submission="",
            late=bool(match["late"]),
            lms="canvas",
            id_kind="canvas anonymous" if anonymous else "canvas user",
        )
        file = RESUBMITTED.sub(r"\2", match["file"])
        claims.append(Claim(student, entry, file, (int(match["attachment"]),)))
    return claims


def moodle(found: list[Entry], notes: list[str], layout: str) -> list[Claim]:
    folders = layout != "moodle flat"
    pattern = {
        "moodle 3 folders": MOODLE_FOLDER_3,
        "moodle 4 folders": MOODLE_FOLDER_4,
    }.get(layout, MOODLE_FLAT)
    claims = []
    for entry in found:
        match = pattern.match(entry.parts[0])
        assert match is not None  # every entry fits the layout
        where = shown("/".join(entry.parts))
        if match["plugin"] != "file":
            notes.append(f"{where}: not a file submission, left out")
            continue
        if match["user"] is None:
            notes.append(f"{where}: a team submission of no group, left out")
            continue
        file = "/".join(entry.parts[1:]) if folders else match["file"]
        student = Student(
            folder="",
            name=match["name"],
            lms_id=match["user"],
            lms="moodle",
            id_kind="moodle participant",
        )
        # Moodle keeps one current submission: of two files of one name, the
        # one nearer the top of the student's folder is kept.
        claims.append(Claim(student, entry, file, (-len(entry.parts), file)))
    return claims


def gradescope(
    found: list[Entry], archive: zipfile.ZipFile, notes: list[str]
) -> list[Claim]:
    root = gradescope_root(found)
    assert root is not None
    metadata_entry = next(e for e in found if e.parts == (*root, METADATA))
    text = read_capped(archive, metadata_entry.info)
    if text is None:
        raise ValueError(f"{METADATA}: more than {MAX_FILE} bytes")
    metadata = read_metadata(text.decode("utf-8", errors="replace"))
    claims = []
    for entry in found:
        if entry is metadata_entry:
            continue
        folder = entry.parts[len(root)]
        about = metadata.get(folder)
        if about is None:
            notes.append(
                f"{shown('/'.join(entry.parts))}: {folder} is not in {METADATA} "
                "(no one to give it to), left out"
            )
            continue
        submitters = about.get("submitters")
        assert isinstance(submitters, list)
        file = "/".join(entry.parts[len(root) + 1 :])
        when = created(str(about.get("created_at", "")))
        for person in submitters:
            email = str(person.get("email", ""))
            sid = str(person.get("sid", ""))
            lms_id = email.lower() or sid
            if not lms_id:
                notes.append(f"{folder}: a submitter with no email or sid, left out")
                continue
            student = Student(
                folder="",
                name=str(person.get("name") or lms_id),
                lms_id=lms_id,
                email=email,
                submission=folder,
                lms="gradescope",
                id_kind="gradescope email" if email else "gradescope sid",
                group="+".join(sorted(str(p.get("name", "")) for p in submitters))
                if len(submitters) > 1
                else "",
            )
            order = (when.timestamp() if when else float("-inf"), int(folder[11:]))
            claims.append(Claim(student, entry, file, order))
    return claims


def created(text: str) -> datetime | None:
    """Gradescope's ``:created_at:`` (``2026-11-01 12:00:00.000000000
    -07:00``) as a time, or None."""
    match = re.match(
        r"^'?(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.\d+)?\s*([+-]\d\d:?\d\d|Z|UTC)?",
        text.strip(),
    )
    if match is None:
        return None
    zone = (match[3] or "+00:00").replace("Z", "+00:00").replace("UTC", "+00:00")
    try:
        return datetime.fromisoformat(f"{match[1]}T{match[2]}{zone}")
    except ValueError:
        return None


def read_metadata(text: str) -> dict[str, dict[str, object]]:
    """The submitters of each submission from Gradescope's metadata file
    (YAML written by Ruby: ``submission_1:`` then ``:submitters:`` and a
    list of ``- :name: ...``, ``:sid: ...``, ``:email: ...``), and its
    ``:created_at:``. Only those parts are read; anything else is skipped."""
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
            if body.startswith(":created_at:"):
                current["created_at"] = body[len(":created_at:") :].strip()
            continue
        match = re.match(r"^:?(\w+):\s*(.*)$", body)
        if match and person is not None and in_submitters:
            person[match[1]] = match[2].strip().strip("'\"")
    return found


# --- groups ------------------------------------------------------------------------

GROUP_COLUMNS = {
    "group": ("group_name", "group name", "group"),
    "group id": ("canvas_group_id", "group_id", "group id"),
    "id": ("canvas_user_id", "user id", "user_id", "id", "participant"),
    "name": ("name", "full name", "student"),
}


def read_groups(path: Path) -> list[Member]:
    """The members of each group from a CSV file the teacher passes: Canvas's
    export of a group set (columns ``name``, ``canvas_user_id``,
    ``group_name``, ``canvas_group_id``), or any CSV with columns ``group``
    (or ``group id``), ``id`` (the member's id in the LMS) and ``name``.

    Raises:
        ValueError: If the file has no group column or no id column.
    """
    with open(path, newline="", encoding="utf-8-sig") as file:
        reader = csv.DictReader(file)
        header = {h.strip().lower(): h for h in reader.fieldnames or []}
        column = {
            key: next((header[c] for c in choices if c in header), None)
            for key, choices in GROUP_COLUMNS.items()
        }
        if column["id"] is None or not (column["group"] or column["group id"]):
            raise ValueError(
                f"{path}: a groups file needs an id column (canvas_user_id or id) "
                "and a group column (group_name, group or group id)"
            )
        members = []
        for row in reader:

            def value(key: str, row: dict[str, str] = row) -> str:
                name = column[key]
                return (row.get(name) or "").strip() if name else ""

            if value("id"):
                members.append(
                    Member(
                        value("id"), value("name"), value("group"), value("group id")
                    )
                )
    return members


def group_key(name: str) -> str:
    """A group's name as Moodle writes it in a folder (``_`` as a space)."""
    return " ".join(name.replace("_", " ").lower().split())


def by_group(claims: list[Claim], members: list[Member]) -> list[Claim]:
    """Each claim of a group's submission given to each of the group's
    members: Canvas names the member who submitted (find their group),
    Moodle the group itself (by its id, else its name). Gradescope's
    metadata names a group's submitters itself."""
    if not members:
        return claims
    groups: dict[str, list[Member]] = {}
    for member in members:
        groups.setdefault(member.group_id or member.group, []).append(member)
    of_member = {m.lms_id: m.group_id or m.group for m in members}
    by_name = {group_key(m.group): m.group_id or m.group for m in members}
    expanded = []
    for claim in claims:
        who = claim.student
        if who.lms == "gradescope":
            group = None
        elif who.lms == "canvas":
            group = of_member.get(who.lms_id)
        else:
            group = (
                who.lms_id if who.lms_id in groups else by_name.get(group_key(who.name))
            )
        if group is None:  # not in a group: the claim stands as it is
            expanded += [claim]
            continue
        for member in groups[group]:
            student = replace(
                who,
                name=member.name or member.lms_id,
                lms_id=member.lms_id,
                group=member.group or group,
                notebooks=[],
                id_kind=who.id_kind if who.lms == "canvas" else "group member",
            )
            expanded.append(replace(claim, student=student))
    return expanded


# --- one folder per id -------------------------------------------------------------


def per_student(claims: list[Claim], collected: Collected) -> dict[str, list[Claim]]:
    """The claims of each LMS id, with one folder each; an id that two
    names claim is refused, loudly, with all its files."""
    names: dict[str, set[str]] = {}
    for claim in claims:
        names.setdefault(claim.student.lms_id, set()).add(claim.student.name)
    for lms_id, claimed in sorted(names.items()):
        if len(claimed) > 1:
            collected.refused.append(
                f"the id {shown(lms_id)} is claimed by {len(claimed)} names "
                f"({', '.join(sorted(map(shown, claimed)))}): none of their files "
                "written. The LMS writes each id once: download again, or hand the "
                "files out by hand."
            )
    mine: dict[str, list[Claim]] = {}
    folders: set[str] = set()
    for claim in claims:
        lms_id = claim.student.lms_id
        if len(names[lms_id]) > 1:
            continue
        if lms_id not in mine:
            folder = f"{safe(claim.student.name)}_{safe(lms_id, 40)}"
            base, count = folder, 1
            while folder in folders:
                count += 1
                folder = f"{base}_{count}"
            folders.add(folder)
            mine[lms_id] = []
            claim.student.folder = folder
        else:
            claim.student.folder = mine[lms_id][0].student.folder
        mine[lms_id].append(claim)
    return mine


def latest(claims: list[Claim], collected: Collected) -> dict[str, Claim]:
    """Of one student's claims, the notebook file names and the claim kept
    for each: the latest as the LMS records it."""
    kept: dict[str, Claim] = {}
    for claim in sorted(claims, key=lambda c: c.order):
        if not claim.file.lower().endswith(".ipynb"):
            collected.notes.append(
                f"{shown('/'.join(claim.entry.parts))}: not a notebook, left out"
            )
            continue
        name = safe(Path(claim.file).name[: -len(".ipynb")], 80) + ".ipynb"
        if name in kept:
            collected.notes.append(
                f"{claim.student.folder}/{name}: handed in more than once; the "
                f"latest kept ({shown('/'.join(claim.entry.parts))})"
            )
        kept[name] = claim
    return kept


# --- writing -----------------------------------------------------------------------


def collect(zip_path: Path, out: Path, groups: Path | None = None) -> Collected:
    """Writes one folder per student into ``out`` (new or empty) and
    ``out/roster.csv``; ``groups`` is a CSV of group members
    (:func:`read_groups`) for a group assignment.

    Raises:
        FileExistsError: If ``out`` holds anything.
        ValueError: If the zip is not laid out as one of the downloads.
    """
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty: collect into a new folder")
    members = read_groups(groups) if groups is not None else []
    notes: list[str] = []
    try:
        archive = zipfile.ZipFile(zip_path)
    except (OSError, zipfile.BadZipFile) as error:
        raise ValueError(f"{zip_path}: not a zip file ({error})") from error
    with archive:
        found = entries(archive, notes)
        layout = which_layout(found)
        if layout is None:
            raise ValueError(
                f"{zip_path}: not a download this reads: not every entry is laid "
                "out as one LMS writes them (Canvas files named "
                "name_userid_attachmentid_file, a Gradescope export with "
                "submission_metadata.yml beside submission_<id>/ folders, or "
                "Moodle's Full Name_number_assignsubmission_file folders or "
                f"files)\n{misfits(found)}"
            )
        if layout == "gradescope":
            claims = gradescope(found, archive, notes)
        elif layout.startswith("canvas"):
            claims = canvas(found, notes, layout == "canvas anonymous")
        else:
            claims = moodle(found, notes, layout)
        collected = Collected(layout.split()[0], notes=notes)
        claims = by_group(claims, members)
        write_all(archive, per_student(claims, collected), out, collected)
    write_roster(collected, out / ROSTER)
    return collected


def write_all(
    archive: zipfile.ZipFile,
    mine: dict[str, list[Claim]],
    out: Path,
    collected: Collected,
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    budget = [MAX_TOTAL, MAX_FILES]
    start = time.time()
    for claims in mine.values():
        student = claims[0].student
        if student.lms == "gradescope":
            claims = active(claims, collected)
        student.late = any(c.student.late for c in claims)
        kept = latest(claims, collected)
        # the LMS's order as the files' times: the grader keeps the latest
        # notebook of a chapter by its time
        for rank, name in enumerate(sorted(kept, key=lambda n: kept[n].order)):
            target = out / student.folder / name
            if write_one(archive, kept[name], target, budget, collected):
                os.utime(target, (start + rank, start + rank))
                student.notebooks.append(name)
        if student.notebooks:
            student.notebooks.sort()
            collected.students.append(student)
    collected.students.sort(key=lambda s: s.folder)


def active(claims: list[Claim], collected: Collected) -> list[Claim]:
    """Of a Gradescope student's submissions, the latest made (by
    ``:created_at:``): the one Gradescope grades."""
    newest = max(claims, key=lambda c: c.order).student.submission
    older = sorted({c.student.submission for c in claims} - {newest})
    if older:
        collected.notes.append(
            f"{claims[0].student.folder}: in {', '.join(older)} and {newest}; "
            f"{newest} kept (the latest made)"
        )
    return [c for c in claims if c.student.submission == newest]


def write_one(
    archive: zipfile.ZipFile,
    claim: Claim,
    target: Path,
    budget: list[int],
    collected: Collected,
) -> bool:
    """Writes one notebook if the write budget (bytes, files) allows."""
    where = shown("/".join(claim.entry.parts))
    try:
        data = read_capped(archive, claim.entry.info)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        collected.notes.append(f"{where}: cannot be read ({error}), left out")
        return False
    if data is None:
        collected.notes.append(f"{where}: more than {MAX_FILE} bytes, left out")
        return False
    if len(data) > budget[0] or budget[1] < 1:
        collected.notes.append(
            f"{where}: over the write budget ({MAX_TOTAL} bytes, {MAX_FILES} "
            "files in all), left out"
        )
        return False
    try:
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(data)
    except OSError as error:
        collected.notes.append(f"{where}: cannot be written ({error}), left out")
        return False
    budget[0] -= len(data)
    budget[1] -= 1
    return True


ROSTER_COLUMNS = (
    "folder",
    "name",
    "lms",
    "lms id",
    "id kind",
    "email",
    "submission",
    "group",
    "late",
    "notebooks",
)


def read_roster(folder: Path) -> dict[str, Student]:
    """From a class folder that ``collect`` wrote: each student folder's
    name, LMS and id there (empty where there is no roster)."""
    path = folder / ROSTER
    if not path.is_file():
        return {}
    found = {}
    with open(path, newline="", encoding="utf-8") as file:
        for row in csv.DictReader(file):
            if not row.get("folder") or row.get("lms id") is None:
                continue
            cell = {k: unescaped(row.get(k) or "") for k in ROSTER_COLUMNS}
            found[cell["folder"]] = Student(
                folder=cell["folder"],
                name=cell["name"],
                lms_id=cell["lms id"],
                email=cell["email"],
                submission=cell["submission"],
                late=cell["late"] == "late",
                notebooks=[
                    n.strip() for n in cell["notebooks"].split(";") if n.strip()
                ],
                lms=cell["lms"],
                id_kind=cell["id kind"],
                group=cell["group"],
            )
    return found


def same_students(
    now: dict[str, Student], before: dict[str, Student]
) -> dict[str, str]:
    """Which folder of an earlier assignment's class folder (``before``, its
    roster) is which student's folder now (``now``): the same folder name
    (Canvas user ids, Gradescope's ids: the same each assignment), else, for
    the ids an LMS gives per assignment (Moodle's participant numbers,
    Canvas's anonymous ids), the same LMS and the same e-mail, else the same
    name, where exactly one student now has it (so never blind marking's
    "Participant")."""
    found: dict[str, str] = {}
    for folder, student in before.items():
        if folder in now:
            found[folder] = folder
            continue
        for key in ("email", "name"):
            value = getattr(student, key)
            same = [
                mine.folder
                for mine in now.values()
                if value and mine.lms == student.lms and getattr(mine, key) == value
            ]
            if len(same) == 1:
                found[folder] = same[0]
                break
    return found


def unescaped(text: str) -> str:
    """``text`` as it was before :func:`course.export.escape`."""
    return text[1:] if text.startswith("'") and escape(text[1:]) == text else text


def write_roster(collected: Collected, path: Path) -> None:
    """One row per student folder: who it is in the LMS."""
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(ROSTER_COLUMNS)
        for s in collected.students:
            writer.writerow(
                [
                    *map(escape, (s.folder, s.name, s.lms, s.lms_id, s.id_kind)),
                    *map(escape, (s.email, s.submission, s.group)),
                    "late" if s.late else "",
                    "; ".join(s.notebooks),  # a notebook's name may hold spaces
                ]
            )
