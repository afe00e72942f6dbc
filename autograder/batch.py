"""Offline batch grading: many submissions, one warm executor, one JSON object per line.

`autograder grade` takes files, folders and zips (as an LMS exports them) and groups what it finds
into one submission per student:

- a folder with one sub-folder per student: each sub-folder is one student (its name is the key);
- loose files (a Canvas or Moodle "download all submissions" layout): files are grouped by student
  and the LMS's id where the name has the LMS's layout (Canvas: `smithjane_123_456_attention.py`,
  `smithjane_LATE_123_456_...`; Moodle: `Jane Smith_123_assignsubmission_file_attention.py`, a name
  with `_` in it too), so two students of the same name (王伟 and 王伟) stay two submissions; the id
  is reported as `lms_id`. Other names are grouped by the text before the first `_`. Moodle's
  folders (`Jane Smith_123_assignsubmission_file_`, `..._onlinetext_`) are read the same way, one
  student's folders one submission;
- a zip: extracted into a private temporary folder (no absolute or `..` paths, no links, size
  caps), then read like a folder;
- a single `.py` file named on the command line: one submission, keyed by its path.

Within a submission, the `.py` file is the code (the assignment's file name wins when there are
several; `attention.py.txt` counts as code), `.md`/`.markdown`/`.txt`/`.pdf` is the audit and `.png`/`.jpg`/`.jpeg` is the figure.
"""

from __future__ import annotations

import re
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

AUDIT_EXTENSIONS = (".md", ".markdown", ".txt", ".pdf")
FIGURE_EXTENSIONS = (".png", ".jpg", ".jpeg")
# Caps on what a zip may unpack to: an LMS export of 300 students is a few MiB.
MAX_ZIP_MEMBER_BYTES = 16 * 1024 * 1024
MAX_ZIP_TOTAL_BYTES = 512 * 1024 * 1024
MAX_ZIP_MEMBERS = 20_000


class BatchError(ValueError):
    """An input that cannot be read at all (the message says which and why)."""


@dataclass
class Found:
    """One student's files."""

    student: str
    lms_id: str | None = None   # the LMS's user or participant id from the file or folder name
    code: Path | None = None
    audit: Path | None = None
    figure: Path | None = None
    extra: list[str] = field(default_factory=list)  # files that were not used, by name


def _classify(found: Found, path: Path, student_file: str) -> None:
    ext = path.suffix.lower()
    if path.name.lower().endswith(".py.txt") and found.code is None:
        ext = ".py"              # attention.py saved by a browser or Windows as attention.py.txt
    if ext == ".py":
        if found.code is None or (path.name.endswith(student_file) and not found.code.name.endswith(student_file)):
            if found.code is not None:
                found.extra.append(found.code.name)
            found.code = path
            return
    elif ext in AUDIT_EXTENSIONS and found.audit is None:
        found.audit = path
        return
    elif ext in FIGURE_EXTENSIONS and found.figure is None:
        found.figure = path
        return
    found.extra.append(path.name)


def _visible_files(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink()
        and not any(part.startswith(".") or part == "__MACOSX" for part in p.relative_to(folder).parts)
    )


# An LMS's "download all submissions" names, where the student's id can be read (names are not unique in a
# class: a 300-student course has several 王伟; the id is). Moodle: `Full Name_<participant id>_assignsubmission_
# <plugin>_<file>` (a full name may hold `_`), a folder per plugin ends at `_`; Canvas: `<sortable name>_[late_]
# <user id>_<submission id>_<file>`.
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<id>[0-9]+)_assignsubmission_[a-z]+_", re.ASCII)
_CANVAS = re.compile(r"^(?P<name>[^_]+)_(?:late_)?(?P<id>[0-9]+)_[0-9]+_.", re.ASCII | re.IGNORECASE)


def lms_student(name: str) -> tuple[str, str | None]:
    """(student, LMS id) from an LMS export's file or folder name (``_MOODLE``, ``_CANVAS``); any other name:
    (the text before the first `_`, None). Grouping by the name alone graded one of two students of one name
    and listed the other's files as ignored."""
    found = _MOODLE.match(name) or _CANVAS.match(name)
    if found:
        return found["name"], found["id"]
    return name.split("_", 1)[0], None


def _from_folder(folder: Path, student_file: str) -> Iterator[Found]:
    subdirs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX")))
    loose = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    groups: dict[tuple[str, str | None], Found] = {}
    for sub in subdirs:
        student, lms_id = lms_student(sub.name)
        # A plain folder name (no LMS id in it) is the student's key as it is. Moodle writes one folder per
        # submission plugin (`..._assignsubmission_file_`, `..._assignsubmission_onlinetext_`): one student.
        key = (student, lms_id) if lms_id else (sub.name, None)
        found = groups.setdefault(key, Found(student=key[0], lms_id=key[1]))
        for path in _visible_files(sub):
            _classify(found, path, student_file)
    for path in loose:
        if path.suffix.lower() == ".zip":
            continue  # a zip inside a folder is not unpacked: name it on the command line
        key = lms_student(path.name) if "_" in path.name else (path.stem, None)
        _classify(groups.setdefault(key, Found(student=key[0], lms_id=key[1])), path, student_file)
    yield from groups.values()


# What one member of an LMS zip can raise while it is read or written: a damaged or encrypted entry,
# an unsupported compression method, a name the file system refuses (too long, or a file where a folder
# of the same name is needed). Such a member is skipped and named; the rest of the class is graded.
_MEMBER_ERRORS = (OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError, ValueError, EOFError,
                  zlib.error)


def _extract(archive: Path, into: Path, notes: list[str]) -> Path:
    """Unpack a zip safely into a new folder below `into`; members that cannot be unpacked are
    skipped, each with a line in `notes`."""
    target = Path(tempfile.mkdtemp(prefix="zip-", dir=into))
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise BatchError(f"{archive}: not a readable zip ({exc})") from exc
    with zf:
        members = zf.infolist()
        if len(members) > MAX_ZIP_MEMBERS:
            raise BatchError(f"{archive}: {len(members)} entries, more than {MAX_ZIP_MEMBERS}")
        total = 0
        for info in members:
            name = PurePosixPath(info.filename)
            if info.is_dir():
                continue
            if name.is_absolute() or ".." in name.parts or info.external_attr >> 28 == 0o12:
                continue  # absolute paths, parent references and symlinks are never written
            if info.file_size > MAX_ZIP_MEMBER_BYTES:
                notes.append(f"{archive}: skipped {info.filename[:200]}: unpacks to {info.file_size} bytes, more than "
                             f"{MAX_ZIP_MEMBER_BYTES // 2**20} MiB")
                continue
            total += info.file_size
            if total > MAX_ZIP_TOTAL_BYTES:
                raise BatchError(f"{archive}: unpacks to more than {MAX_ZIP_TOTAL_BYTES // 2**20} MiB")
            dest = target.joinpath(*name.parts)
            if dest == target:
                notes.append(f"{archive}: skipped an entry named {info.filename!r}")
                continue
            try:
                with zf.open(info) as src:
                    # Read at most the declared size plus one byte: a lying header cannot inflate more.
                    data = src.read(info.file_size + 1)
                if len(data) > info.file_size:
                    notes.append(f"{archive}: skipped {info.filename}: larger than its header says")
                    continue
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
            except _MEMBER_ERRORS as exc:
                notes.append(f"{archive}: skipped {info.filename[:200]}: {type(exc).__name__}: {str(exc)[:200]}")
    return target


def collect(paths: list[Path], student_file: str, workdir: Path, notes: list[str] | None = None) -> list[Found]:
    """Every student's submission found under `paths`, in a stable order; what could not be read
    (zip members) is named in `notes`."""
    notes = [] if notes is None else notes
    out: list[Found] = []
    for path in paths:
        if path.is_dir():
            out.extend(_from_folder(path, student_file))
        elif path.is_file() and zipfile.is_zipfile(path):
            out.extend(_from_folder(_extract(path, workdir, notes), student_file))
        elif path.is_file():
            found = Found(student=str(path))
            _classify(found, path, student_file)
            out.append(found)
        else:
            raise BatchError(f"{path}: no such file or folder")
    return out
