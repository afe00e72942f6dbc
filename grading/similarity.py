"""Code similarity across submissions, built on copydetect (winnowed k-gram fingerprints of the
token stream, with names and strings normalised, as MOSS does).

The handout's code is boilerplate: fingerprints it contains are removed first, so the skeleton
every student starts from never counts. A pair is a lead for a human, never a penalty.

Pure engine code: no Flask, no database. `worker/similarity.py` feeds it and stores the result.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger(__name__)


def boilerplate_source(suite: str) -> str:
    """The handout code of an assignment (rubric/<suite>/handout/similarity_boilerplate.py), or ''."""
    path = ROOT / "rubric" / suite / "handout" / "similarity_boilerplate.py"
    try:
        return path.read_text(encoding="utf-8") if suite.isidentifier() else ""
    except OSError:
        return ""


@dataclass(frozen=True)
class Pair:
    a: int
    b: int
    score: float          # the larger of the two shares: how much of one file is in the other
    score_a: float        # fraction of a's fingerprinted code found in b
    score_b: float
    slices_a: list[list[int]]   # [start, end) character ranges of a's code that match b
    slices_b: list[list[int]]

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "score": round(self.score, 4), "score_a": round(self.score_a, 4),
                "score_b": round(self.score_b, 4), "slices_a": self.slices_a, "slices_b": self.slices_b}


def _fingerprint(code: str, k: int, win: int, boilerplate: object):
    from copydetect import CodeFingerprint

    # `fp=` reads from memory; the file name only tells the tokenizer the language.
    return CodeFingerprint("attention.py", k, win, boilerplate=boilerplate, fp=io.StringIO(code))


# Why a file was left out of the comparison (Comparison.left_out), as stored in the report.
EMPTY = "empty"            # no fingerprint left: nothing but the handout code, or shorter than one k-gram
ALONE = "alone"            # the only file with a fingerprint: nothing to compare it with
UNREADABLE = "unreadable"  # the tokenizer failed on it
MISSING = "missing"        # its code is not in the store (worker/similarity.py, before any comparison)


@dataclass(frozen=True)
class Comparison:
    pairs: list[Pair]              # highest first
    compared: list[int]            # the ids actually compared with at least one other file
    left_out: dict[int, str]       # id -> EMPTY | ALONE | UNREADABLE


def compare(sources: Mapping[int, str], *, boilerplate: str = "", threshold: float = 0.5, k: int = 25,
            win: int = 1) -> list[Pair]:
    """Every pair of `sources` (id → code) whose similarity reaches `threshold`, highest first."""
    return comparison(sources, boilerplate=boilerplate, threshold=threshold, k=k, win=win).pairs


def comparison(sources: Mapping[int, str], *, boilerplate: str = "", threshold: float = 0.5, k: int = 25,
               win: int = 1) -> Comparison:
    """The pairs of `sources` reaching `threshold`, and which files were compared at all: a file with no
    fingerprint once the handout code is removed was counted as compared while nothing of it was (round 37)."""
    import numpy as np
    from copydetect import compare_files

    base = _fingerprint(boilerplate, k, win, None).hashes if boilerplate.strip() else set()
    base_arr = np.array(sorted(base), dtype=np.int64) if base else np.array([], dtype=np.int64)
    prints = {}
    left_out: dict[int, str] = {}
    for sid, code in sources.items():
        try:
            found = _fingerprint(code, k, win, base_arr)
        except Exception as exc:  # noqa: BLE001 - one undecodable file must not sink the report
            log.warning("similarity: submission %s skipped (%s)", sid, exc)
            left_out[sid] = UNREADABLE
            continue
        if found.hashes:
            prints[sid] = found
        else:
            left_out[sid] = EMPTY
    if len(prints) == 1:
        left_out.update(dict.fromkeys(prints, ALONE))
        prints = {}
    pairs = []
    for a, b in combinations(sorted(prints), 2):
        _, (sa, sb), (slices_a, slices_b) = compare_files(prints[a], prints[b])
        score = max(float(sa), float(sb))
        if score >= threshold:
            pairs.append(Pair(a, b, score, float(sa), float(sb), _ranges(slices_a), _ranges(slices_b)))
    return Comparison(sorted(pairs, key=lambda p: (-p.score, p.a, p.b)), sorted(prints), left_out)


def _ranges(slices) -> list[list[int]]:
    if len(slices) == 0 or len(slices[0]) == 0:
        return []
    return [[int(s), int(e)] for s, e in zip(slices[0], slices[1], strict=True)]


def segments(code: str, ranges: list[list[int]]) -> list[tuple[bool, str]]:
    """Split `code` into (matched?, text) pieces for display; the template escapes the text."""
    out, pos = [], 0
    for start, end in sorted(ranges):
        start, end = max(start, pos), min(end, len(code))
        if start > pos:
            out.append((False, code[pos:start]))
        if end > start:
            out.append((True, code[start:end]))
            pos = end
    if pos < len(code):
        out.append((False, code[pos:]))
    return out
