"""Text handling for the audit checker: normalisation, sentences and clauses, negation cues."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rubric.audit.checklist import Checklist

# ==================================================================================================
# normalisation
# ==================================================================================================

_SUPERSCRIPT_CHARS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺"
_SUPERSCRIPT_MAP = str.maketrans(_SUPERSCRIPT_CHARS, "0123456789-+")
_SUPERSCRIPT_RUN = re.compile(f"[{_SUPERSCRIPT_CHARS}]+")
_PUNCT_MAP = str.maketrans({
    "\u2212": "-", "\u2012": "-", "\u2013": "-", "\u2010": "-", "\u2011": "-",
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
    "\u00a0": " ", "\u3000": " ", "\t": " ",
    "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "",
})
_POW_STARS = re.compile(r"(\d)\s*\*\*\s*(?=[-+]?\d)")
_MD_STARS = re.compile(r"\*{2,}|(?<![\d\s])\*|\*(?![\d\s])|[`~]+|\$+")
_SPACES = re.compile(r"[ ]{2,}")


def normalise(text: str) -> str:
    """Full-width -> half-width, lower case, superscripts -> ``^``; keeps newlines."""
    text = _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group().translate(_SUPERSCRIPT_MAP), text)
    text = unicodedata.normalize("NFKC", text).translate(_PUNCT_MAP).casefold()
    text = _POW_STARS.sub(r"\1^", text)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _clean_line(line: str) -> str:
    return _SPACES.sub(" ", _MD_STARS.sub(" ", line)).strip()



# ==================================================================================================
# segmentation
# ==================================================================================================

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[a-z]{2,}|\b[a-z]\b")
_ZH_FUNCTION = re.compile(r"所以|因此|因为|如果|说明|表示|的|了|是|在|把|被|这|那|我|它|们|会|能|就|也|都|还|对|从|并|而|但|其|该|每")
_EN_FUNCTION = frozenset(
    "the a an is are was were be been being of to in on at that this these those it its and or for with as by "
    "which what each every we i our from so because if but there their they can does do did has have had will "
    "would should must how when where than then also into onto only".split())
_MAX_SENTENCE = 1000
_SENTENCE = re.compile(r".+?(?:[。!?;]+|\.(?=\s)|\.$|$)")
_CLAUSE_SPLIT = re.compile(
    r"[,、]|(?:(?<=\s)|^)(?:but|however|whereas|although|though|yet|instead)(?=\s)|但是|但|然而|不过|可是|而是|却")
_HEADING = re.compile(r"^#{1,6}\s*")
_BOLD_LINE = re.compile(r"^\s*(?:[-*+]\s+)?\*\*[^*]+\*\*\s*[:]?\s*$")
_BULLET = re.compile(r"^(?:[-*+•·]|\d{1,2}[.)、]|\(\d{1,2}\)|[a-h][.)])\s+")


@dataclass
class _Clause:
    start: int
    end: int
    negated: bool


@dataclass
class _Sentence:
    text: str
    eligible: bool          # long enough, prose, not code/heading
    is_code: bool
    is_heading: bool
    is_question: bool
    context_negated: bool
    cc: Checklist | None = None
    _clauses: list[_Clause] | None = None

    @property
    def clauses(self) -> list[_Clause]:
        """Split lazily: only sentences that may hold a caveat, an overclaim or a pass claim need it."""
        if self._clauses is None:
            if self.is_code or self.is_heading or self.cc is None:
                self._clauses = [_Clause(0, max(1, len(self.text)), self.context_negated and not self.is_code)]
            else:
                self._clauses = _split_clauses(self.cc, self.text, self.context_negated)
        return self._clauses

    def clause_at(self, pos: int) -> _Clause:
        for c in self.clauses:
            if c.start <= pos < c.end:
                return c
        return self.clauses[-1]


def _units(text: str) -> float:
    return len(_CJK.findall(text)) + 2 * len(_LATIN_WORD.findall(text))


_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def _is_prose(text: str) -> bool:
    """A sentence, not a keyword list: it has function words ("the", "is", 的, 是...), i.e. two distinct
    ones, or one plus either five Latin words or a run of six Chinese characters without a space."""
    words = _LATIN_WORD.findall(text)
    en_hits = [w for w in words if w in _EN_FUNCTION]
    zh_hits = _ZH_FUNCTION.findall(text)
    distinct = len(set(en_hits) | set(zh_hits))
    total = len(en_hits) + len(zh_hits)
    tokens = len(words) + len(_CJK.findall(text)) / 1.7
    if tokens <= 0 or total / tokens < 0.06:
        return False
    longest_run = max((len(r) for r in _CJK_RUN.findall(text)), default=0)
    return distinct >= 2 or (distinct == 1 and (len(words) >= 5 or longest_run >= 6))


def _blank_exclusions(cc: Checklist, text: str) -> str:
    """Replace words like 不同 / 误差 / "not only" by spaces of the same length (positions are kept)."""
    return cc.negation_excl.sub(lambda m: " " * len(m.group()), text)


def _cue_positions(cc: Checklist, text: str) -> list[int]:
    t = _blank_exclusions(cc, text)
    return sorted(m.start() for pat in (cc.negation, cc.caveat) for m in pat.finditer(t))


def _has_cue(cc: Checklist, text: str) -> bool:
    t = _blank_exclusions(cc, text)
    return bool(cc.negation.search(t) or cc.caveat.search(t))


def _negative_section(cc: Checklist, text: str) -> bool:
    return bool(cc.section_neg.search(text)) and not cc.section_amb.search(text)


def _split_clauses(cc: Checklist, text: str, context_negated: bool) -> list[_Clause]:
    bounds = [0]
    for m in _CLAUSE_SPLIT.finditer(text):
        bounds.append(m.start())
    bounds.append(len(text))
    cues = _cue_positions(cc, text)
    clauses: list[_Clause] = []
    carry = False
    for a, b in zip(bounds, bounds[1:], strict=False):
        if b <= a and clauses:
            continue
        neg = context_negated or carry or any(a <= p < b for p in cues)
        clauses.append(_Clause(a, max(b, a + 1), neg))
        carry = bool(cues) and bool(cc.carry.search(text[a:b].strip(" ,、")))
    return clauses or [_Clause(0, max(1, len(text)), context_negated)]


def _segment(cc: Checklist, raw: str) -> list[_Sentence]:
    out: list[_Sentence] = []
    in_code = False
    section_neg = False
    leadin_neg = False
    for raw_line in normalise(raw).split("\n"):
        stripped = raw_line.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code:
            line = _clean_line(raw_line)
            if line:
                out.append(_Sentence(line, False, True, False, False, False))
            continue
        if not stripped:
            continue
        is_heading = bool(_HEADING.match(stripped)) or bool(_BOLD_LINE.match(stripped))
        line = _clean_line(_HEADING.sub("", stripped))
        bullet = _BULLET.match(line)
        if bullet:
            line = line[bullet.end():]
        if not line or not re.search(r"\w", line):
            continue
        if is_heading:
            section_neg = _negative_section(cc, line)
            leadin_neg = False
            out.append(_Sentence(line, False, False, True, False, section_neg))
            continue
        if not bullet:
            leadin_neg = False
        context = section_neg or leadin_neg
        for m in _SENTENCE.finditer(line):
            s = m.group().strip()
            if len(s) > _MAX_SENTENCE:
                # a wall of text without punctuation is not a sentence: cut it into pieces that earn no
                # concept credit (numbers in it are still read and cross-checked)
                for i in range(0, len(s), _MAX_SENTENCE):
                    out.append(_Sentence(s[i:i + _MAX_SENTENCE], False, False, False, False, context, cc))
                continue
            if not s or not re.search(r"\w", s):
                continue
            body = s.rstrip("。!?;. ")
            eligible = _units(body) >= cc.min_units and _is_prose(body)
            out.append(_Sentence(body, eligible, False, False, s.endswith("?"), context, cc))
        if line.rstrip().endswith(":") and _negative_section(cc, line):
            leadin_neg = True
    return out


