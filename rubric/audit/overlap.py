"""Overlap of a sentence with the course text (the handout), in Chinese and English alike.

A sentence and the handout are both cut into tokens: one token per Chinese character, one per Latin word
or code identifier (``torch.nn.functional.scaled_dot_product_attention`` is one token, so naming the
reference function is not copying). Shingles are runs of ``shingle_tokens`` consecutive tokens; a sentence
with at least ``min_shingles`` shingles, of which a share of at least ``copied_overlap`` occurs in the
handout, is a copy: it earns nothing and is flagged.

The grader's own words are a second source (``grader_shingles``): feedback, hints and labels pasted back
into the audit are a copy as well (audit round 13). They state the facts in the plainest words, which an
honest student also writes ("每一行是一个 query，每一列是一个 key" matches the feedback in full), so one
sentence proves nothing. A paste is a long run: ``grader_min_run`` or more consecutive tokens of the audit
(across its sentences, so that cutting a message into short sentences does not hide it) that the
grader's messages hold in the same order. A sentence with at least ``grader_overlap`` of its tokens in
such a run is a copy.
"""

from __future__ import annotations

import functools
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
    return list(_tokens(normalised))


@functools.lru_cache(maxsize=4096)
def _tokens(normalised: str) -> tuple[str, ...]:
    """Cached: a sentence is tokenised for the handout and again for the grader's messages."""
    return tuple(t for t in _TOKEN.findall(normalised) if t not in _FILLERS)


def _shingles(toks: list[str], n: int) -> list[str]:
    return ["\x1f".join(toks[i:i + n]) for i in range(len(toks) - n + 1)]


@dataclass(frozen=True)
class Handout:
    files: tuple[str, ...]
    shingle_tokens: int
    min_shingles: int
    copied_overlap: float
    shingles: frozenset[str]
    grader_shingles: frozenset[tuple[str, ...]] = frozenset()   # token n-grams of the grader's messages
    grader_min_run: int = 20
    grader_overlap: float = 0.5
    # the handout's ideas in either language (round 22, ``translated``): one named group per idea, the handout's
    # sentences as the sets of ideas they state, and how many a sentence must share with one of them
    terms: tuple[tuple[str, re.Pattern], ...] = ()
    # (literal, idea) for each literal one of which the idea's regex needs; ideas without one are counted as present
    term_heads: tuple[tuple[str, int], ...] = ()
    term_always: int = 0
    term_bare: frozenset[int] = frozenset()          # the ideas without such a literal
    term_sets: tuple[frozenset[str], ...] = ()
    min_terms: int = 5
    terms_share: float = 0.8
    # the ideas the rubric asks every student to state (``translated.asked``): a copy keeps ``min_other`` of the others
    asked: frozenset[str] = frozenset()
    min_other: int = 0
    lines: tuple[str, ...] = ()         # the handout's normalised lines (the source of a half-copied sentence)

    def overlap(self, normalised_sentence: str, source: str = "handout") -> tuple[float, int]:
        """(share of the sentence's shingles found in the handout, or with ``source="grader"`` in the
        grader's own messages, number of shingles)."""
        sh = _shingles(tokens(normalised_sentence), self.shingle_tokens)
        if not sh:
            return 0.0, 0
        if source == "grader":
            return sum(1 for x in sh if tuple(x.split("\x1f")) in self.grader_shingles) / len(sh), len(sh)
        return sum(1 for x in sh if x in self.shingles) / len(sh), len(sh)

    def is_copied(self, normalised_sentence: str) -> bool:
        """Copied from the handout."""
        share, n = self.overlap(normalised_sentence)
        return n >= self.min_shingles and share >= self.copied_overlap

    def own_words(self, normalised_sentence: str) -> tuple[str, str, str] | None:
        """A copied sentence's own words (round 30): (its own clauses, its copied clauses, the handout line they copy)
        when the sentence is a handout clause and a clause of the student's (a copied caveat, then "but my figure is
        one seed, it cannot generalise"); None when it is a copy throughout. A clause is copied when
        ``copied_overlap`` of its shingles occur in the handout; the own clauses, read together, must be no copy
        themselves (commas sprinkled through a copy leave clauses too short to judge, which read together are the
        copy again). The line is returned so that the own clauses earn no idea of it: a copied clause with the rest
        of its handout sentence reworded ("图用于审计路由" as "这张图是拿来审计路由的") is still the copy's idea."""
        cuts = [0, *(m.end() for m in _CLAUSE_CUT.finditer(normalised_sentence)), len(normalised_sentence)]
        pieces = [normalised_sentence[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
        copied = [p for p in pieces if (o := self.overlap(p))[1] and o[0] >= self.copied_overlap]
        sig = None
        if not copied:
            # a translated handout sentence (no 4-gram survives): its clauses that name an idea of the handout
            # sentence it translates are the copy ("attention itself is not causal evidence; it is only a
            # differentiable retrieval ..., and my figure is one seed, so it does not generalise")
            sig = self._translated_from(normalised_sentence)
            copied = [p for p in pieces if sig and self.ideas(p) & sig]
        own = [p for p in pieces if p not in copied]
        if not copied or not own:
            return None
        mine = " ".join(p.strip() for p in own).strip()
        if self.is_copied(mine) or self.is_translated(mine):
            return None
        copy = " ".join(p.strip() for p in copied).strip()
        if sig:
            return mine, copy, self._sig_sources.get(sig, "")
        shared: dict[int, int] = {}
        for x in set(_shingles(tokens(copy), self.shingle_tokens)):
            for i in self._lines_of.get(x, ()):
                shared[i] = shared.get(i, 0) + 1
        return mine, copy, self.lines[max(shared, key=shared.__getitem__)] if shared else ""

    def _translated_from(self, normalised_sentence: str) -> frozenset[str] | None:
        """The ideas of the handout sentence :meth:`is_translated` finds the sentence a translation of."""
        if not self.is_translated(normalised_sentence):
            return None
        ideas = self.ideas(normalised_sentence)
        need = max(self.min_terms, self.terms_share * len(ideas))
        return next((sig for sig in self.term_sets if len(ideas & sig) >= need and len((ideas & sig) - self.asked)
                     >= self.min_other), None)

    @functools.cached_property
    def _sig_sources(self) -> dict[frozenset[str], str]:
        """The handout sentence of each set of ideas (``term_sets``), built once."""
        out: dict[frozenset[str], str] = {}
        for line in self.lines:
            for unit in _UNIT_END.split(line):
                out.setdefault(self.ideas(unit), unit)
        return out

    @functools.cached_property
    def _lines_of(self) -> dict[str, tuple[int, ...]]:
        """The handout lines each shingle occurs in, built once (a hostile audit of 2,000 half-copied sentences
        compared each with every line: 1.9 s of CPU instead of 0.4)."""
        index: dict[str, list[int]] = {}
        for i, line in enumerate(self.lines):
            for x in set(_shingles(tokens(line), self.shingle_tokens)):
                index.setdefault(x, []).append(i)
        return {x: tuple(ids) for x, ids in index.items()}

    def ideas(self, normalised_sentence: str) -> frozenset[str]:
        """The handout's ideas a sentence names (``translated.terms``), in Chinese or English."""
        return frozenset(name for name, rx in self.terms if rx.search(normalised_sentence))

    def _may_name(self, normalised_sentence: str) -> set[int] | None:
        """Substring tests (C speed) first: the ideas whose literals occur, when ``min_terms`` of them may (one
        alternation of the 31 ideas tried at every position of every sentence cost 22 ms on a 20 KiB audit)."""
        found = {i for h, i in self.term_heads if h in normalised_sentence}
        return found if self.term_always + len(found) >= self.min_terms else None

    def is_translated(self, normalised_sentence: str) -> bool:
        """A handout sentence translated (machine translation to English, or back) or reworded with synonyms: no
        4-gram survives, but its ideas do. A copy when the sentence names ``min_terms`` or more ideas of one handout
        sentence and those are ``terms_share`` or more of the ideas it names (round 22: "this does not automatically
        equal causal explanation, feature importance or real mechanism discovery" shares 8 of 8), ``min_other`` or more
        of them not among the ideas the rubric asks every student to state (round 29: an honest caveat naming causality,
        importance and the real mechanism shares those with the handout, not its wording)."""
        maybe = self._may_name(normalised_sentence) if self.terms else None
        if maybe is None:
            return False
        ideas = {name for i, (name, rx) in enumerate(self.terms) if (i in maybe or i in self.term_bare)
                 and rx.search(normalised_sentence)}
        if len(ideas) < self.min_terms:
            return False
        need = max(self.min_terms, self.terms_share * len(ideas))
        return any(len(shared := ideas & sig) >= need and len(shared - self.asked) >= self.min_other
                   for sig in self.term_sets)

    def grader_copies(self, normalised_sentences: list[str | None]) -> list[bool]:
        """For each sentence of an audit (in order), whether it is part of a paste of the grader's own
        messages: at least ``grader_overlap`` of its tokens lie in a run of ``grader_min_run`` or more
        consecutive audit tokens whose every shingle occurs in those messages. ``None`` ends a run (a
        heading: students title their sections with the item labels, "图能说明什么", which no paste of
        feedback explains)."""
        if not self.grader_shingles:
            return [False] * len(normalised_sentences)
        toks: list[str] = []
        owner: list[int] = []
        for i, text in enumerate(normalised_sentences):
            t = _tokens(text) if text is not None else ("\x00",)
            toks += t
            owner += [i] * len(t)
        n = self.shingle_tokens
        # shingles as tuples of the stream (zip of shifted views: no slicing or joining per position)
        hit = list(map(self.grader_shingles.__contains__, zip(*(toks[i:] for i in range(n)), strict=False)))
        in_run = [False] * len(toks)
        k = 0
        while k < len(hit):
            if not hit[k]:
                k += 1
                continue
            j = k
            while j + 1 < len(hit) and hit[j + 1]:
                j += 1
            if (j - k + 1) + n - 1 >= self.grader_min_run:       # tokens covered by shingles k..j
                for t in range(k, j + n):
                    in_run[t] = True
            k = j + 1
        total = [0] * len(normalised_sentences)
        copied = [0] * len(normalised_sentences)
        for t, i in enumerate(owner):
            total[i] += 1
            copied[i] += in_run[t]
        return [total[i] > 0 and copied[i] / total[i] >= self.grader_overlap for i in range(len(total))]


# Where a copied clause may end and the student's own words begin: a clause mark or a conjunction that opens a new
# predicate (the text is normalised: full-width marks are half-width)
_CLAUSE_CUT = re.compile(r"[,;:]\s*|(?<=\s)(?=(?:but|however|whereas|yet)\b)|(?=但是|但|然而|不过|可是)")


# "{concept}", "{snippet}", "{rows}": a placeholder of a message is not text the student reads
_PLACEHOLDER = re.compile(r"\{[a-z_]*\}")


def load_handout(spec: Any, base_dir: Path, grader_texts: list[str] | tuple[str, ...] = ()) -> Handout:
    """``spec`` is the checklist's ``handout:`` mapping; files are relative to ``base_dir``.
    ``grader_texts`` are the grader's own messages (see :func:`rubric.audit.checklist.grader_texts`)."""
    from rubric.audit.checklist import ChecklistError

    if not isinstance(spec, dict) or not spec.get("files"):
        raise ChecklistError("handout: needs a list of files")
    try:
        n = int(spec.get("shingle_tokens", 4))
        min_sh = int(spec.get("min_shingles", 6))
        share = float(spec.get("copied_overlap", 0.5))
        grader_share = float(spec.get("grader_overlap", 0.5))
        grader_run = int(spec.get("grader_min_run", 20))
    except (TypeError, ValueError):
        raise ChecklistError("handout: shingle_tokens, min_shingles, copied_overlap, grader_overlap and "
                             "grader_min_run are numbers") from None
    if n < 2 or not 0 < share <= 1 or not 0 < grader_share <= 1 or grader_run < n:
        raise ChecklistError("handout: shingle_tokens >= 2, 0 < copied_overlap, grader_overlap <= 1 and "
                             "grader_min_run >= shingle_tokens")
    terms, heads, min_terms, terms_share, asked, min_other = _translated_terms(spec.get("translated"))
    term_sets: tuple = ()
    shingles: set[str] = set()
    texts: list[str] = []
    for name in spec["files"]:
        path = (base_dir / str(name)).resolve()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ChecklistError(f"handout: cannot read {name} ({exc.strerror})") from None
        for line in normalise(text).split("\n"):
            shingles.update(_shingles(tokens(line), n))
            texts.append(line)
    if terms:
        ideas = (frozenset(name for name, rx in terms if rx.search(u)) for line in texts for u in _UNIT_END.split(line))
        term_sets = tuple({x for x in ideas if len(x) >= min_terms})
    grader: set[tuple[str, ...]] = set()
    for text in grader_texts:
        for piece in _PLACEHOLDER.split(text):
            for line in normalise(piece).split("\n"):
                t = tokens(line)
                grader.update(zip(*(t[i:] for i in range(n)), strict=False))
    return Handout(tuple(str(f) for f in spec["files"]), n, min_sh, share, frozenset(shingles), frozenset(grader),
                   grader_run, grader_share, terms, tuple((h, i) for i, hs in enumerate(heads) for h in hs),
                   sum(1 for hs in heads if not hs), frozenset(i for i, hs in enumerate(heads) if not hs), term_sets,
                   min_terms, terms_share, asked, min_other, tuple(t for t in texts if t.strip()))


# the end of a handout sentence
_UNIT_END = re.compile(r"[。.!?！？](?!\d)")


def _translated_terms(spec: Any) -> tuple[tuple[tuple[str, re.Pattern], ...], tuple, int, float, frozenset[str], int]:
    """The ``handout.translated`` mapping: ``terms`` (idea -> regex matching it in zh and en), ``min_terms``,
    ``terms_share``, ``asked`` (ideas no sign of copying on their own) and ``min_other``."""
    from rubric.audit.checklist import ChecklistError

    if not spec:
        return (), (), 5, 0.8, frozenset(), 0
    if not isinstance(spec, dict) or not isinstance(spec.get("terms"), dict) or not spec["terms"]:
        raise ChecklistError("handout.translated: needs a mapping of terms (idea: regex)")
    try:
        min_terms = int(spec.get("min_terms", 5))
        terms_share = float(spec.get("terms_share", 0.8))
        min_other = int(spec.get("min_other", 0))
    except (TypeError, ValueError):
        raise ChecklistError("handout.translated: min_terms, terms_share and min_other are numbers") from None
    if min_terms < 2 or not 0 < terms_share <= 1 or not 0 <= min_other <= min_terms:
        raise ChecklistError("handout.translated: min_terms >= 2, 0 < terms_share <= 1 and 0 <= min_other <= min_terms")
    asked = spec.get("asked") or []
    if not isinstance(asked, list) or any(a not in spec["terms"] for a in asked):
        raise ChecklistError("handout.translated.asked: a list of the names in terms")
    parts, heads = [], []
    for idea, rx in spec["terms"].items():
        if not str(idea).isidentifier():
            raise ChecklistError(f"handout.translated.terms: {idea!r} is not a name (letters, digits, _)")
        try:
            parts.append((str(idea), re.compile(str(rx))))
        except re.error as exc:
            raise ChecklistError(f"handout.translated.terms.{idea}: {exc}") from None
        found = [_literal_head(alt) for alt in _alternatives(str(rx))]
        heads.append(() if not all(found) else tuple(found))
    return tuple(parts), tuple(heads), min_terms, terms_share, frozenset(map(str, asked)), min_other


def _alternatives(rx: str) -> list[str]:
    """The top-level alternatives of a regex ("a|b(c|d)" -> "a", "b(c|d)")."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            i += 2
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "|" and depth == 0:
            out.append(rx[start:i])
            start = i + 1
        i += 1
    return out + [rx[start:]]


_HEAD = re.compile(r"(?:\\b)?([a-z\u3400-\u9fff]+)([?*{]?)")


def _literal_head(alt: str) -> str:
    """The literal an alternative starts with ("\\bcaus\\w*" -> "caus", "colou?r" -> "colo"); "" when none."""
    m = _HEAD.match(alt)
    if not m:
        return ""
    return m.group(1)[:-1] if m.group(2) else m.group(1)
