"""Text handling for the audit checker: normalisation, sentences and clauses, negation cues."""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from opencc import OpenCC

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


# LaTeX and Unicode math read as the plain text students also write: "\\sum_j A_{ij}=1" -> "sum_j a_ij=1",
# "-\\infty" / "−∞" -> "-inf", "\\le" -> "≤", "\\times" -> "×" (numbers like 3.1\\times10^{-7} are read later).
_LATEX_WORDS = {
    "infty": "inf", "infinity": "inf", "sum": "sum ", "max": "max", "min": "min", "le": "≤", "leq": "≤",
    "ge": "≥", "geq": "≥", "lt": "<", "gt": ">", "approx": "≈", "sim": "~", "times": "×", "cdot": "·",
    "sqrt": "sqrt", "to": "→", "rightarrow": "→", "in": "∈", "ll": "≪", "neq": "≠", "ne": "≠",
    "left": "", "right": "", "mathrm": "", "mathbf": "", "mathbb": "", "text": "", "operatorname": "",
    "mathsf": "", "big": "", "bigl": "", "bigr": "", "displaystyle": "", "quad": " ", "qquad": " ",
    "exp": "exp", "log": "log", "softmax": "softmax",
}
_LATEX_CMD = re.compile(r"\\([a-zA-Z]+)\s?")
_LATEX_SPACING = re.compile(r"\\[,;:! ]")
# one table, one pass over the text (str.translate with a dict is per character)
_PUNCT_MAP.update(str.maketrans({"∞": "inf", "⩽": "≤", "⩾": "≥", "∑": "sum "}))
# Cyrillic and Greek letters drawn like Latin ones ("prоves" with a Cyrillic о): read as the Latin letter,
# so that no phrase hides behind a homoglyph. Σ ("Σ_j w_ij = 1") is the sum sign.
_PUNCT_MAP.update(str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s",
    "ԁ": "d", "һ": "h", "ӏ": "l", "А": "a", "В": "b", "Е": "e", "К": "k", "М": "m", "Н": "h", "О": "o",
    "Р": "p", "С": "c", "Т": "t", "Х": "x", "І": "i", "Ј": "j", "ο": "o", "Ο": "o", "Σ": "sum ",
}))


def _latex(text: str) -> str:
    if "\\" not in text:
        return text
    text = _LATEX_SPACING.sub(" ", text)
    text = _LATEX_CMD.sub(lambda m: _LATEX_WORDS.get(m.group(1).lower(), m.group(0)), text)
    # braces only group in LaTeX ("A_{ij}", "10^{-7}"): drop them once commands are gone
    return text.replace("{", "").replace("}", "")


# What a reader of the rendered audit does not see is not read either: HTML comments, hidden elements,
# images' alt text, link targets and titles (the link's own text stays). A tag is a "<" followed by a
# letter, so "error < 1e-5" and "<1e-5" are text.
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_HIDDEN_ELEMENT = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)\b[^<>]*(?:\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden)"
                             r"[^<>]*>.*?</\1\s*>", re.S | re.I)
_MD_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)|!\[[^\]\n]*\]\[[^\]\n]*\]")
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_MD_LINK_DEF = re.compile(r"^[ ]{0,3}\[[^\]\n]+\]:[^\n]*$", re.M)
_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?/?>")


def visible(raw: str) -> str:
    """The text of a Markdown/HTML audit as it reads once rendered."""
    if "<" not in raw and "](" not in raw and "]:" not in raw and "![" not in raw:
        return raw
    text = _HTML_COMMENT.sub(" ", raw)
    text = _HIDDEN_ELEMENT.sub(" ", text)
    text = _MD_IMAGE.sub(" ", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_LINK_DEF.sub("", text)
    return _HTML_TAG.sub(" ", text)


# Traditional Chinese (Taiwan, Hong Kong) is read as simplified: the checklist's phrases and the handout
# are simplified, and an honest 繁體 audit must be graded as the same audit in 简体 (OpenCC's dictionaries,
# not a table of ours). Two configs, because neither alone is right for both scripts:
# * hk2s (OpenCC standard traditional + Hong Kong variants such as 衞 衹 -> simplified) leaves simplified
#   text as it is (the only simplified-looking characters it maps are HK variants no 简体 text uses);
# * tw2s also maps Taiwan's 著 for the particle 着 (意味著, 隨著: the overclaim and negation phrases use
#   意味着), but it does so character by character outside its traditional exception list, so it would
#   turn simplified 显著/著称 into 显着/着称. It therefore only runs on lines that hold traditional text.
# tw2sp/hk2sp (regional vocabulary: 資料 -> 数据, 程式 -> 程序) are not used: they also rewrite words both
# scripts share in this course (向量 -> 矢量, 序列 -> 串行, 核心 -> 内核, 遮蔽 -> 屏蔽).
# The tofu-risk dictionaries are left out: they map rare BMP characters to supplementary-plane ones
# that fonts lack (and that the CJK unit counts here do not see).
@functools.cache
def _converters() -> tuple[OpenCC, OpenCC]:
    """(hk2s, tw2s), built once per process: loading the dictionaries costs about 4 ms of CPU, converting
    a 20 KiB audit 0.04 ms (English) to 0.9 ms (traditional). The checklist is compiled through
    :func:`normalise` in the warm parent, so forked graders inherit them."""
    return (OpenCC("hk2s", include_tofu_risk_dictionaries=False),
            OpenCC("tw2s", include_tofu_risk_dictionaries=False))


def to_simplified(text: str) -> str:
    """Traditional (Taiwan, Hong Kong, OpenCC standard) Chinese -> simplified; simplified text, English
    and anything else come back unchanged.

    OpenCC's mappings in these configs are one character to one character, but nothing depends on it:
    sentences, clauses and match offsets are all computed on the converted text (and the snippets a
    flag quotes are therefore shown in simplified characters)."""
    hk2s, tw2s = _converters()
    base = hk2s.convert(text)
    if base == text:
        # No traditional character: the common case, one pass. (A prefilter for "has CJK at all" was
        # measured: the regex search costs more than converting 20 KiB of English.)
        return text
    src, plain, taiwan = text.split("\n"), base.split("\n"), tw2s.convert(text).split("\n")
    if not len(src) == len(plain) == len(taiwan):     # OpenCC keeps line breaks; never trust it blindly
        return base
    # A line that hk2s changed holds traditional text: take tw2s's reading of it (著 -> 着 in context),
    # then hk2s's again for the Hong Kong variants tw2s leaves (衞, 衹). Other lines stay as written.
    mixed = "\n".join(tw if hk != raw else raw for raw, hk, tw in zip(src, plain, taiwan, strict=True))
    return hk2s.convert(mixed)


def normalise(text: str) -> str:
    """Full-width -> half-width, lower case, superscripts -> ``^``, LaTeX/Unicode math -> plain,
    traditional Chinese -> simplified (:func:`to_simplified`); keeps newlines."""
    text = _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group().translate(_SUPERSCRIPT_MAP), text)
    text = _latex(text)
    text = unicodedata.normalize("NFKC", text).translate(_PUNCT_MAP).casefold()
    text = _POW_STARS.sub(r"\1^", text)
    # after NFKC, so that CJK compatibility ideographs (U+F900..) are unified ones that OpenCC knows
    return to_simplified(text.replace("\r\n", "\n").replace("\r", "\n"))


def _clean_line(line: str) -> str:
    return _SPACES.sub(" ", _MD_STARS.sub(" ", line)).strip()



# ==================================================================================================
# segmentation
# ==================================================================================================

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[a-z]{2,}|\b[a-z]\b")
_MAX_SENTENCE = 1000
# ";" ends a clause, not a sentence: "2 padding keys added; they get weight 0" is one statement
_SENTENCE = re.compile(r".+?(?:[。!?]+|\.(?=\s)|\.$|$)")
# Clauses end at commas and at conjunctions that start a new predicate: a negation in "the weights are not
# uniform, which proves that k2 causes the output" must not reach "causes".
_CLAUSE_SPLIT = re.compile(
    r"[,、:;]|(?:(?<=\s)|^)(?:but|however|whereas|although|though|yet|instead|which|so|because|while|and so|"
    r"therefore|hence|thus)(?=\s)|但是|但|然而|不过|可是|而是|却|所以|因此|因为|因而|从而|于是")
# A negation after the keyword belongs to it only across a short subject ("causality is not shown");
# a conjunction in between starts another phrase ("proves causality and not mere correlation").
_GAP_BREAK = re.compile(r"\b(?:and|or|but|than|with)\b|和|与|而|或|及")
# Items of a list after a negated clause are negated too: "cannot prove causality, feature importance,
# or the true mechanism", "不能证明因果、重要性或真实机制". An enumeration comma (、) always continues a
# list; in English an item starting with "or"/"nor", and a short item followed by one, do.
_LIST_ITEM_START = re.compile(r"^\s*(?:or|nor)\s")
_LIST_ITEM_UNITS = 8
_NO_ANSWER = re.compile(r"^(?:no|nope|not|it (?:can't|cannot|does not|doesn't))\b|^(?:不|没有|否|并不|不能)")
_HEADING = re.compile(r"^#{1,6}\s*")
_BOLD_LINE = re.compile(r"^\s*(?:[-*+]\s+)?\*\*[^*]+\*\*\s*[:]?\s*$")
_BULLET = re.compile(r"^(?:[-*+•·]|\d{1,2}[.)、]|\(\d{1,2}\)|[a-h][.)])\s+")
_TABLE_RULE = re.compile(r"^\|?[\s:|-]+\|?$")
# A line this long (in units: CJK characters + 2 per Latin word; a PDF line of Chinese is ~35 characters,
# one of English ~12 words) that does not end a sentence was wrapped: it continues on the next line.
# Short unpunctuated lines are notes and stay separate.
_WRAPPED_LINE_UNITS = 24
_SENTENCE_END = ("。", ".", "!", "?", ";", ":", "！", "？", "；", "：")


@dataclass
class _Clause:
    start: int
    end: int
    carried: bool           # a previous clause ended in "we cannot say that" / "不能说"


@dataclass
class _Sentence:
    text: str
    eligible: bool          # long enough, not code/heading/copied
    is_code: bool
    is_heading: bool
    is_question: bool
    context_negated: bool   # under a "what it cannot prove" heading or lead-in
    cc: Checklist | None = None
    para: int = 0           # index of the paragraph/bullet the sentence belongs to
    short: bool = False     # too short to earn credit (settings.min_units)
    copied: bool = False    # matches the course text closely (see rubric.audit.overlap)
    _clauses: list[_Clause] | None = None
    _cues: list[tuple[int, int]] | None = None
    _found: dict[int, list[re.Match]] | None = None

    def find(self, pattern) -> list[re.Match]:
        """All matches of a compiled phrase group, computed once per sentence (several rules ask)."""
        if self._found is None:
            self._found = {}
        key = id(pattern)
        if key not in self._found:
            self._found[key] = list(pattern.finditer(self.text))
        return self._found[key]

    @property
    def clauses(self) -> list[_Clause]:
        """Split lazily: only sentences that may hold a caveat, an overclaim or a pass claim need it."""
        if self._clauses is None:
            if self.is_code or self.is_heading or self.cc is None:
                self._clauses = [_Clause(0, max(1, len(self.text)), False)]
            else:
                self._clauses = _split_clauses(self.cc, self.text, self.cues)
        return self._clauses

    @property
    def cues(self) -> list[tuple[int, int]]:
        """Spans of negation and warning cues (intensifiers such as "no doubt" / 不用怀疑 removed)."""
        if self._cues is None:
            self._cues = _cue_spans(self.cc, self.text) if self.cc is not None else []
        return self._cues

    def clause_at(self, pos: int) -> _Clause:
        for c in self.clauses:
            if c.start <= pos < c.end:
                return c
        return self.clauses[-1]

    def negated(self, start: int, end: int, *, context: bool = True) -> bool:
        """Is the statement matched at ``[start, end)`` in the scope of a negation?

        Negation is scoped to its clause: a cue inside the match ("rows are *not* queries"), a cue before
        it in the same clause ("it does *not* prove causality": the predicate runs to the end of the
        clause), or a cue right after a short subject ("causality *cannot* be inferred", "因果关系*无法*").
        With ``context``, a "cannot prove" section, lead-in or carried "we cannot say that," also counts."""
        clause = self.clause_at(start)
        if context and (self.context_negated or clause.carried):
            return True
        gap = self.cc.negation_subject_gap if self.cc is not None else 4
        last = self.clause_at(max(start, end - 1))
        for cs, ce in self.cues:
            if cs < end and ce > start and self.clause_at(cs) is last:
                return True                # "rows are not queries"; not "each row, not each column, sums to 1"
            if cs < clause.start or cs >= clause.end:
                continue
            if ce <= start:
                return True
            if cs >= end and _units(self.text[end:cs]) <= gap and not _GAP_BREAK.search(self.text[end:cs]):
                return True            # "causality cannot be inferred"; not "causality and not correlation"
        return False

    def hedged(self, start: int) -> bool:
        clause = self.clause_at(start)
        return self.cc is not None and self.cc.hedge.search(self.text[clause.start:clause.end]) is not None


def _units(text: str) -> float:
    """Length in "words": a Chinese character is one, a Latin word two (about the same content)."""
    return len(_CJK.findall(text)) + 2 * len(_LATIN_WORD.findall(text))


def _blank(pattern, text: str) -> str:
    """Replace matches by spaces of the same length (positions are kept)."""
    return pattern.sub(lambda m: " " * len(m.group()), text)


def _cue_spans(cc: Checklist, text: str) -> list[tuple[int, int]]:
    """Negation and warning cues. A rebuttal ("it is wrong to say that", "oh sure,") followed by a
    negation denies that negation: both cancel, up to the end of the negation's clause."""
    t = _blank(cc.intensifiers, _blank(cc.negation_excl, text))
    cues = sorted((m.start(), m.end()) for pat in (cc.negation, cc.caveat) for m in pat.finditer(t))
    for r in cc.rebuttal.finditer(t):
        after = [c for c in cues if c[0] > r.start()]   # the rebuttal's own "wrong" starts at r.start()
        if not after:
            continue                   # "it would be wrong to say that k2 matters most": a caveat
        stop = _CLAUSE_SPLIT.search(t, after[0][1])
        end = stop.start() if stop else len(t)
        cues = [c for c in cues if not r.start() <= c[0] < end]
    return cues


def _negative_section(cc: Checklist, text: str) -> bool:
    return (bool(cc.section_neg.search(text)) and not cc.section_amb.search(text)
            and not cc.rebuttal.search(text))


def _split_clauses(cc: Checklist, text: str, cues: list[tuple[int, int]]) -> list[_Clause]:
    bounds = [0]
    for m in _CLAUSE_SPLIT.finditer(text):
        if m.start() > 0:
            bounds.append(m.start())
    bounds.append(len(text))
    spans = [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a] or [(0, max(1, len(text)))]
    clauses: list[_Clause] = []
    carry = False
    negated_before = False             # the previous clause holds a negation (or inherited one)
    for i, (a, b) in enumerate(spans):
        body = text[a:b].lstrip(" ,、")
        if negated_before and not any(a <= cs < b for cs, _ in cues):
            following = text[spans[i + 1][0]:spans[i + 1][1]].lstrip(" ,") if i + 1 < len(spans) else ""
            carry = carry or text[a] == "、" or bool(_LIST_ITEM_START.match(body)) or (
                _units(body) <= _LIST_ITEM_UNITS and bool(_LIST_ITEM_START.match(following)))
        clauses.append(_Clause(a, max(b, a + 1), carry))
        negated_before = carry or any(a <= cs < b for cs, _ in cues)
        carry = bool(cues) and bool(cc.carry.search(text[a:b].strip(" ,、")))
    return clauses


def _lines(raw: str) -> list[str]:
    """Normalised lines, with hard-wrapped lines joined to the line they continue on."""
    out: list[str] = []
    for line in normalise(visible(raw)).split("\n"):
        s = line.strip()
        prev = out[-1].strip() if out else ""
        if (s and prev and _units(prev) >= _WRAPPED_LINE_UNITS and not prev.endswith(_SENTENCE_END)
                and not _HEADING.match(s) and not _BULLET.match(s) and not s.startswith(("|", "```", "~~~"))
                and not prev.startswith(("|", "```", "~~~", "#"))):
            out[-1] = out[-1].rstrip() + " " + s
        else:
            out.append(line)
    return out


def _segment(cc: Checklist, raw: str) -> list[_Sentence]:
    out: list[_Sentence] = []
    in_code = False
    section_neg = False
    leadin_neg = False
    for para, raw_line in enumerate(_lines(raw)):
        stripped = raw_line.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code:
            line = _clean_line(raw_line)
            if line:
                out.append(_Sentence(line, False, True, False, False, False, para=para))
            continue
        if not stripped or _TABLE_RULE.match(stripped):
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
            out.append(_Sentence(line, False, False, True, False, section_neg, para=para))
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
                    out.append(_Sentence(s[i:i + _MAX_SENTENCE], False, False, False, False, context, cc, para))
                continue
            if not s or not re.search(r"\w", s):
                continue
            body = s.rstrip("。!?;. ")
            short = _units(body) < cc.min_units
            out.append(_Sentence(body, not short, False, False, s.endswith("?"), context, cc, para, short))
        if line.rstrip().endswith(":") and _negative_section(cc, line):
            leadin_neg = True
    # "Can the heatmap prove causality? No." states the caveat: the question takes the answer's negation.
    for s, nxt in zip(out, out[1:], strict=False):
        if s.is_question and nxt.para == s.para and _NO_ANSWER.match(nxt.text):
            s.is_question, s.context_negated = False, True
    return out
