"""What the pages know about an assignment: its contract and its rubric, read from its files.

`rubric/<suite>/rubric.yaml` is the one source of categories, points and labels for the pages,
the API, the gradebook and the CSV; `grader_tests/<suite>/ASSIGNMENT.<lang>.md` (zh, en) is the student contract.
A broken or missing rubric is an error (RubricError), never a silent default.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from rubric.loader import Rubric, RubricError, load_rubric, rubric_path

ROOT = Path(__file__).resolve().parent.parent
AUDIT = "audit"  # the category source (rubric.yaml `source: audit`) scored by the audit checker


@dataclass(frozen=True)
class RubricView:
    """A rubric as the pages use it: categories in rubric order, with bilingual labels."""

    categories: dict[str, dict]
    tests: dict[str, dict] = field(default_factory=dict)
    max_total: float = 0

    @classmethod
    def of(cls, r: Rubric) -> RubricView:
        return cls(
            categories={c.name: {"max": c.max, "label": c.label, "source": c.source}
                        for c in r.categories.values()},
            tests={t.id: {"category": t.category, "points": t.points, "hidden": t.hidden,
                          "description": t.description} for t in r.tests.values()},
            max_total=r.max_total,
        )

    @property
    def names(self) -> list[str]:
        """Category names in rubric order: the gradebook's and the CSV's columns."""
        return list(self.categories)

    @property
    def audit_category(self) -> str | None:
        """The category scored by the written audit, or None when the assignment has no audit."""
        return next((n for n, c in self.categories.items() if c["source"] == AUDIT), None)

    @property
    def audit_max(self) -> float | None:
        name = self.audit_category
        return None if name is None else self.categories[name]["max"]

    def label(self, name: str, locale: str) -> str:
        cat = self.categories.get(name)
        if not cat:
            return name
        return cat["label"].get("zh" if locale.startswith("zh") else "en", name)

    def describe(self, test_id: str, locale: str) -> str:
        spec = self.tests.get(test_id)
        if not spec:
            return ""
        return spec["description"].get("zh" if locale.startswith("zh") else "en", "")

    def ordered(self, categories: dict[str, dict]) -> dict[str, dict]:
        """A run's categories in rubric order (JSONB keeps no key order); categories a run has but
        the rubric no longer lists (the rubric was edited since) come last."""
        out = {k: categories[k] for k in self.categories if k in categories}
        out.update({k: v for k, v in categories.items() if k not in out})
        return out


_cache: dict[str, tuple[str, RubricView]] = {}

# A file's stat is trusted to say "unchanged" only when its ctime is older than the moment its content was
# hashed by more than this: an edit written within the same timestamp tick (a coarse clock, a 1 s or 2 s
# file system) that keeps the size has the same stat, and only its content tells it apart (the "racy"
# entries of git's index, same rule). 2 s covers the coarsest file systems (FAT).
# ctime, not mtime, dates the last change: every write, rename or utime sets it to the kernel's clock, while
# utime sets mtime to anything (round 38, review RF: an in-place edit whose mtime was set back kept the old
# stamp, and a file whose mtime was in the future was hashed at every call until the clock passed it).
RACY_NS = 2_000_000_000
# file path -> ((mtime_ns, size, inode, ctime_ns), hashed at (time_ns, taken before the read), content hash)
_stamps: dict[str, tuple[tuple[int, int, int, int], int, str]] = {}


def _vouches(ctime_ns: int, hashed_at: int) -> bool:
    """Whether an unchanged stat vouches for the content hashed at `hashed_at`: the last change is older
    than the hash by more than a tick, or (a clock set back) newer than now by more than one, so that any
    change since the hash has a ctime of its own."""
    return ctime_ns < hashed_at - RACY_NS or ctime_ns > time.time_ns() + RACY_NS


def rubric_stamp(suite: str) -> str:
    """A hash of the rubric file's content: another stamp, maybe another rubric. Cheap enough for the API's
    wait to read at every check (app/api.py `_answer_version`): one stat, and the file is read and hashed
    only when its (mtime, size, inode, ctime) changed or its ctime is too recent to vouch for its content
    (RACY_NS). "" when the file cannot be read or the name is invalid."""
    try:
        path = rubric_path(suite)
        st = path.stat()
        key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
        hit = _stamps.get(str(path))
        if hit is not None and hit[0] == key and _vouches(st.st_ctime_ns, hit[1]):
            return hit[2]
        hashed_at = time.time_ns()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except (OSError, RubricError):
        return ""
    _stamps[str(path)] = (key, hashed_at, digest)
    return digest


def rubric_for(suite: str) -> RubricView:
    """The rubric of `suite`, re-read when its file changes (an instructor's edit shows at once).
    Raises RubricError when the file is missing or invalid."""
    rubric_path(suite)  # a suite name that is no folder name raises its RubricError here
    stamp = rubric_stamp(suite)  # "" when missing: load_rubric below raises the RubricError naming the file
    hit = _cache.get(suite)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    view = RubricView.of(load_rubric(suite, check_suite=False))
    _cache[suite] = (stamp, view)
    return view


def contract_markdown(suite: str, locale: str, description: str = "") -> tuple[str, str]:
    """(markdown, source): ASSIGNMENT.<lang>.md of the suite (the shipped labs have one per language),
    else a single ASSIGNMENT.md shown to every reader, else the assignment's description, else nothing."""
    base = ROOT / "grader_tests" / suite
    lang = "zh" if locale.startswith("zh") else "en"
    for name in (f"ASSIGNMENT.{lang}.md", "ASSIGNMENT.md"):
        path = base / name
        try:
            if suite.isidentifier() and path.is_file():
                return path.read_text(encoding="utf-8"), name
        except OSError:
            continue
    return description, "description"
