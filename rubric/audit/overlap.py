"""Overlap of a sentence with the course text (the handout), in Chinese and English alike.

A sentence and the handout are both cut into tokens: one token per Chinese character, one per Latin word
or code identifier (``torch.nn.functional.scaled_dot_product_attention`` is one token, so naming the
reference function is not copying). Shingles are runs of ``shingle_tokens`` consecutive tokens; a sentence
with at least ``min_shingles`` shingles, of which a share of at least ``copied_overlap`` occurs in the
handout, is a copy: it earns nothing and is flagged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rubric.audit.text import normalise

_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[a-z0-9](?:[a-z0-9_.]*[a-z0-9])?")


# Particles and fillers a light edit inserts or drops ("这一行描述了…", "the really important key"): left
# out on both sides, so that sprinkling them through a copied sentence does not hide the copy.
_FILLERS = frozenset({"的", "了", "地", "得", "着", "the", "a", "an", "really", "very", "just", "quite"})


def tokens(normalised: str) -> list[str]:
    return [t for t in _TOKEN.findall(normalised) if t not in _FILLERS]


def _shingles(toks: list[str], n: int) -> list[str]:
    return ["\x1f".join(toks[i:i + n]) for i in range(len(toks) - n + 1)]


@dataclass(frozen=True)
class Handout:
    files: tuple[str, ...]
    shingle_tokens: int
    min_shingles: int
    copied_overlap: float
    shingles: frozenset[str]

    def overlap(self, normalised_sentence: str) -> tuple[float, int]:
        """(share of the sentence's shingles found in the handout, number of shingles)."""
        sh = _shingles(tokens(normalised_sentence), self.shingle_tokens)
        if not sh:
            return 0.0, 0
        return sum(1 for x in sh if x in self.shingles) / len(sh), len(sh)

    def is_copied(self, normalised_sentence: str) -> bool:
        share, n = self.overlap(normalised_sentence)
        return n >= self.min_shingles and share >= self.copied_overlap


def load_handout(spec: Any, base_dir: Path) -> Handout:
    """``spec`` is the checklist's ``handout:`` mapping; files are relative to ``base_dir``."""
    from rubric.audit.checklist import ChecklistError

    if not isinstance(spec, dict) or not spec.get("files"):
        raise ChecklistError("handout: needs a list of files")
    try:
        n = int(spec.get("shingle_tokens", 4))
        min_sh = int(spec.get("min_shingles", 6))
        share = float(spec.get("copied_overlap", 0.5))
    except (TypeError, ValueError):
        raise ChecklistError("handout: shingle_tokens, min_shingles and copied_overlap are numbers") from None
    if n < 2 or not 0 < share <= 1:
        raise ChecklistError("handout: shingle_tokens >= 2 and 0 < copied_overlap <= 1")
    shingles: set[str] = set()
    for name in spec["files"]:
        path = (base_dir / str(name)).resolve()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ChecklistError(f"handout: cannot read {name} ({exc.strerror})") from None
        for line in normalise(text).split("\n"):
            shingles.update(_shingles(tokens(line), n))
    return Handout(tuple(str(f) for f in spec["files"]), n, min_sh, share, frozenset(shingles))
