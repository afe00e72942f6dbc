"""Round 22: zip bombs in an LMS zip given to `autograder grade`. An entry that unpacks past
MAX_ZIP_MEMBER_BYTES was skipped without a word: a student whose attention.py was a bomb (or whose
notebook export was large) vanished from the batch's output, and the instructor was never told."""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

from autograder.batch import MAX_ZIP_MEMBER_BYTES, collect

CODE = b"def f():\n    return 1\n"


def _bomb(path: Path, name: str, size: int) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("alice/attention.py", CODE)
        with zf.open(name, "w", force_zip64=True) as member:
            chunk = b"\0" * (1 << 20)
            for _ in range(size >> 20):
                member.write(chunk)
    return path


def test_an_entry_past_the_member_cap_is_skipped_named_and_never_inflated(tmp_path):
    archive = _bomb(tmp_path / "bomb.zip", "bob/attention.py", 4 * MAX_ZIP_MEMBER_BYTES)
    assert archive.stat().st_size < MAX_ZIP_MEMBER_BYTES // 16          # a bomb: small packed, large unpacked
    work = tmp_path / "work"
    work.mkdir()
    notes: list[str] = []
    t0 = time.process_time()
    found = collect([archive], "attention.py", work, notes)
    assert time.process_time() - t0 < 1.0
    assert [f.student for f in found] == ["alice"]                       # the readable entry is still graded
    assert len(notes) == 1 and str(archive) in notes[0] and "bob/attention.py" in notes[0], notes
    assert f"more than {MAX_ZIP_MEMBER_BYTES // 2**20} MiB" in notes[0]
    written = sum(p.stat().st_size for p in work.rglob("*") if p.is_file())
    assert written < 1024                                                # nothing of the bomb was written
