"""Written-audit checker ("submit one figure and a paragraph explaining what it can and cannot prove").

    from rubric.audit import grade_audit, load_checklist
    checklist = load_checklist()                    # rubric/attention/audit.yaml by default
    result = grade_audit(text, figure_info, {"max_abs_error": 2.4e-7, "row_sum_error": 1.2e-7}, checklist)

The checklist (YAML, editable by instructors) lists items with weights, bilingual labels and feedback,
and phrase lists in Chinese and English. Matching is deterministic and works on sentences:

* the text is normalised (NFKC full-width -> half-width, case-folding, superscripts, whitespace);
* it is split into sentences (。 ! ? ; newline, ". ") and sentences into clauses (, 、 but 但 ...);
* a concept is credited by one sentence that is long enough and reads like prose, and each sentence
  credits at most a few concepts, so a bare keyword list earns little;
* "caveat" concepts (not causal, not importance, ...) count only in a clause with a negation or
  warning cue, or under a "what it cannot prove" heading; the same cues stop a sentence from being
  flagged as an overclaim ("does not prove causality" is a caveat, "proves that token 2 causes the
  output" is an overclaim);
* numbers reported for max_abs_error / row_sum_error are extracted (3.2e-7, 3.2×10^-7, 3.2 × 10⁻⁷,
  0.00000032, "< 1e-5", "通过") and compared with the grader's measurement.
"""

from __future__ import annotations

import bisect
import functools
import json
import math
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

DEFAULT_CHECKLIST_PATH = Path(__file__).resolve().parent / "attention" / "audit.yaml"


class ChecklistError(ValueError):
    """The checklist YAML is malformed (message names the item/concept)."""


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
# checklist compilation
# ==================================================================================================

_LATIN_END = re.compile(r"[a-z0-9]")


def _compile_phrase(phrase: str, where: str) -> str:
    if not isinstance(phrase, str) or not phrase.strip():
        hint = " (YAML reads unquoted yes/no/on/off as booleans and bare numbers as numbers: quote them)" \
            if isinstance(phrase, (bool, int, float)) else ""
        raise ChecklistError(f"{where}: empty or non-string phrase {phrase!r}{hint}")
    if phrase.startswith("re:"):
        body = phrase[3:]
        try:
            re.compile(body)
        except re.error as exc:
            raise ChecklistError(f"{where}: bad regex {body!r}: {exc}") from None
        return body
    p = normalise(phrase).strip()
    parts = [x for x in re.split(r"[\s_\-\\]+", p) if x]
    body = r"[\s_\-\\]*".join(re.escape(x) for x in parts)     # also "row\_sum" from LaTeX
    if _LATIN_END.match(p):
        # "(?<![a-z0-9])abc" written as "a(?<![a-z0-9]a)bc": same match, but the branch starts with a
        # literal, so the regex engine rejects most positions on the first character (much faster)
        first = re.escape(p[0])
        body = f"{first}(?<![a-z0-9]{first})" + body[len(first):]
    if _LATIN_END.match(p[-1]):
        body = body + r"(?![a-z0-9])"
    return body


def _required_literals(pattern: str) -> list[str] | None:
    """Literals of which at least one occurs in every match of ``pattern`` (None if unknown).

    Walks the parsed regex: a sequence needs any of its mandatory parts, a branch needs one literal per
    alternative. Used only as a prefilter (``lit in sentence``) before the real regex runs."""
    try:
        from re import _constants as C  # noqa: N812
        from re import _parser
        tree = _parser.parse(pattern)
    except Exception:  # noqa: BLE001 - internal API; no prefilter is always correct
        return None

    def seq(items) -> list[str] | None:
        candidates: list[list[str]] = []
        cur = ""
        for op, av in items:
            if op is C.LITERAL:
                cur += chr(av)
                continue
            if op in (C.AT, C.ASSERT, C.ASSERT_NOT):      # zero width: literals stay contiguous
                continue
            if cur:
                candidates.append([cur])
                cur = ""
            r = None
            if op is C.SUBPATTERN:
                r = seq(av[-1])
            elif op is C.BRANCH:
                alts = [seq(a) for a in av[1]]
                r = None if any(a is None for a in alts) else sorted({x for a in alts for x in a})
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT)) and av[0] >= 1:
                r = seq(av[2])
            if r:
                candidates.append(r)
        if cur:
            candidates.append([cur])
        if not candidates:
            return None
        return max(candidates, key=lambda alts: (min(selectivity(a) for a in alts), -len(alts)))

    def selectivity(lit: str) -> int:
        # a Chinese character is rarer than a Latin letter; spaces and punctuation are everywhere
        return sum(2 if _CJK.match(ch) else 1 for ch in lit if ch.isalnum())

    return seq(tree)


class _Pat:
    """A compiled phrase group with a literal prefilter (the subset of re.Pattern that we use)."""

    __slots__ = ("regex", "triggers", "_pre")

    def __init__(self, regex: re.Pattern, triggers: tuple[str, ...] | None):
        self.regex = regex
        self.triggers = triggers
        if triggers is None:
            self._pre = None
        elif not triggers:
            self._pre = re.compile(r"(?!x)x")
        else:   # one C-level scan for any of the literals
            self._pre = re.compile("|".join(re.escape(t) for t in sorted(triggers, key=len, reverse=True)))

    def _may_match(self, text: str) -> bool:
        return self._pre is None or self._pre.search(text) is not None

    def search(self, text: str):
        return self.regex.search(text) if self._may_match(text) else None

    def match(self, text: str):
        return self.regex.match(text) if self._may_match(text) else None

    def finditer(self, text: str):
        return self.regex.finditer(text) if self._may_match(text) else iter(())

    def sub(self, repl, text: str) -> str:
        return self.regex.sub(repl, text) if self._may_match(text) else text


_NEVER = _Pat(re.compile(r"(?!x)x"), ())


def _compile_group(group: Any, where: str) -> _Pat:
    if isinstance(group, dict):
        phrases = list(group.get("zh") or []) + list(group.get("en") or [])
    elif isinstance(group, list):
        phrases = group
    else:
        raise ChecklistError(f"{where}: expected a {{zh: [...], en: [...]}} phrase list")
    if not phrases:
        raise ChecklistError(f"{where}: no phrases")
    bodies = [_compile_phrase(p, where) for p in phrases]
    triggers: set[str] | None = set()
    for body in bodies:
        lits = _required_literals(body)
        if not lits:
            triggers = None
            break
        triggers.update(lits)
    return _Pat(re.compile("|".join(f"(?:{b})" for b in bodies)), tuple(sorted(triggers)) if triggers else None)


def _bilingual(obj: Any, where: str, default: dict | None = None) -> dict[str, str]:
    if obj is None and default is not None:
        return default
    if not isinstance(obj, dict) or not isinstance(obj.get("en"), str) or not isinstance(obj.get("zh"), str):
        raise ChecklistError(f"{where}: needs both 'en' and 'zh' strings")
    return {"en": obj["en"], "zh": obj["zh"]}


@dataclass
class _Concept:
    id: str
    label: dict
    credit: float
    kind: str                      # "phrases" | "metric"
    mode: str = "plain"            # "plain" | "caveat"
    groups: list[_Pat] = field(default_factory=list)
    metric: str | None = None


@dataclass
class _Item:
    id: str
    kind: str
    weight: float
    label: dict
    feedback_ok: dict
    feedback_missing: dict
    raw: dict
    concepts: list[_Concept] = field(default_factory=list)
    full_credit_at: float = 1.0


@dataclass
class _Metric:
    id: str
    measured_key: str
    threshold: float
    noise_floor: float
    max_ratio: float
    label: dict
    names: _Pat


@dataclass
class _Compiled:
    max_points: float
    min_units: float
    max_per_sentence: int
    max_text_chars: int
    max_overclaim_flags: int
    negation: _Pat
    negation_excl: _Pat
    caveat: _Pat
    carry: _Pat
    section_neg: _Pat
    section_amb: _Pat
    hedge: _Pat
    passed: _Pat
    lt_before: _Pat
    lt_after: _Pat | None
    gt_before: _Pat
    gt_after: _Pat | None
    thr_before: _Pat
    thr_after: _Pat | None
    metrics: dict[str, _Metric]
    items: list[_Item]
    overclaim: dict
    overclaim_patterns: _Pat


def _opt_group(obj: Any, where: str) -> _Pat | None:
    if not obj or not (obj.get("zh") or obj.get("en")):
        return None
    return _compile_group(obj, where)


def _compile_checklist(cl: dict) -> _Compiled:
    if not isinstance(cl, dict):
        raise ChecklistError("checklist: expected a mapping")
    settings = cl.get("settings") or {}
    cues = cl.get("cues") or {}
    for name in ("negation", "caveat", "carry", "section_negative", "section_ambiguous", "hedge", "pass",
                 "less_than", "greater_than", "threshold"):
        if name not in cues:
            raise ChecklistError(f"cues: missing '{name}'")
    metrics: dict[str, _Metric] = {}
    for mid, m in (cl.get("metrics") or {}).items():
        where = f"metrics.{mid}"
        try:
            metrics[mid] = _Metric(
                id=mid, measured_key=str(m.get("measured_key", mid)), threshold=float(m["threshold"]),
                noise_floor=float(m.get("noise_floor", 0.0)), max_ratio=float(m.get("max_ratio", 10)),
                label=_bilingual(m.get("label"), where), names=_compile_group(m["names"], f"{where}.names"))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ChecklistError):
                raise
            raise ChecklistError(f"{where}: {exc!r}") from None
    items: list[_Item] = []
    seen: set[str] = set()
    for n, it in enumerate(cl.get("items") or []):
        iid = it.get("id") if isinstance(it, dict) else None
        where = f"items[{n}]({iid})"
        if not iid or iid in seen:
            raise ChecklistError(f"{where}: missing or duplicate id")
        seen.add(iid)
        kind = it.get("kind", "concepts")
        if kind not in ("figure", "concepts"):
            raise ChecklistError(f"{where}: kind must be 'figure' or 'concepts'")
        try:
            weight = float(it["weight"])
        except (KeyError, TypeError, ValueError):
            raise ChecklistError(f"{where}: needs a numeric weight") from None
        item = _Item(id=iid, kind=kind, weight=weight, label=_bilingual(it.get("label"), f"{where}.label"),
                     feedback_ok=_bilingual(it.get("feedback_ok"), f"{where}.feedback_ok",
                                            {"en": "Covered.", "zh": "已涵盖。"}),
                     feedback_missing=_bilingual(it.get("feedback_missing"), f"{where}.feedback_missing"),
                     raw=it)
        if kind == "concepts":
            concepts = it.get("concepts") or []
            if not concepts:
                raise ChecklistError(f"{where}: no concepts")
            cids: set[str] = set()
            for c in concepts:
                cid = c.get("id")
                cw = f"{where}.{cid}"
                if not cid or cid in cids:
                    raise ChecklistError(f"{cw}: missing or duplicate concept id")
                cids.add(cid)
                ckind = "metric" if c.get("kind") == "metric" else "phrases"
                concept = _Concept(id=cid, label=_bilingual(c.get("label"), f"{cw}.label"),
                                   credit=float(c.get("credit", 1)), kind=ckind, mode=c.get("mode", "plain"))
                if concept.mode not in ("plain", "caveat"):
                    raise ChecklistError(f"{cw}: mode must be 'plain' or 'caveat'")
                if ckind == "metric":
                    if c.get("metric") not in metrics:
                        raise ChecklistError(f"{cw}: unknown metric {c.get('metric')!r}")
                    concept.metric = c["metric"]
                else:
                    groups = c.get("all") or ([c["phrases"]] if c.get("phrases") else [])
                    if not groups:
                        raise ChecklistError(f"{cw}: needs 'phrases' or 'all'")
                    concept.groups = [_compile_group(g, cw) for g in groups]
                item.concepts.append(concept)
            item.full_credit_at = float(it.get("full_credit_at", sum(c.credit for c in item.concepts)))
            if item.full_credit_at <= 0:
                raise ChecklistError(f"{where}: full_credit_at must be > 0")
        items.append(item)
    max_points = float(cl.get("max_points", 15))
    total = sum(i.weight for i in items)
    if abs(total - max_points) > 1e-9:
        raise ChecklistError(f"item weights add up to {total:g}, max_points is {max_points:g}")
    oc = cl.get("overclaims") or {}
    for target in oc.get("deduct_from") or []:
        if target not in seen:
            raise ChecklistError(f"overclaims.deduct_from: unknown item {target!r}")
    oc_patterns = _compile_group(oc["patterns"], "overclaims.patterns") if oc.get("patterns") else _NEVER
    overclaim = {
        "penalty": float(oc.get("penalty", 0)), "max_penalty": float(oc.get("max_penalty", 0)),
        "deduct_from": list(oc.get("deduct_from") or []),
        "message": _bilingual(oc.get("message"), "overclaims.message",
                              {"en": "Overclaim: \"{snippet}\".", "zh": "过度解读：「{snippet}」。"}),
    }
    return _Compiled(
        max_points=max_points,
        min_units=float(settings.get("min_units", 10)),
        max_per_sentence=int(settings.get("max_concepts_per_sentence", 2)),
        max_text_chars=int(settings.get("max_text_chars", 60000)),
        max_overclaim_flags=int(settings.get("max_overclaim_flags", 5)),
        negation=_compile_group(cues["negation"], "cues.negation"),
        negation_excl=_opt_group(cues.get("negation_exclusions"), "cues.negation_exclusions") or _NEVER,
        caveat=_compile_group(cues["caveat"], "cues.caveat"),
        carry=_compile_group(cues["carry"], "cues.carry"),
        section_neg=_compile_group(cues["section_negative"], "cues.section_negative"),
        section_amb=_compile_group(cues["section_ambiguous"], "cues.section_ambiguous"),
        hedge=_compile_group(cues["hedge"], "cues.hedge"),
        passed=_compile_group(cues["pass"], "cues.pass"),
        lt_before=_compile_group(cues["less_than"]["before"], "cues.less_than.before"),
        lt_after=_opt_group(cues["less_than"].get("after"), "cues.less_than.after"),
        gt_before=_compile_group(cues["greater_than"]["before"], "cues.greater_than.before"),
        gt_after=_opt_group(cues["greater_than"].get("after"), "cues.greater_than.after"),
        thr_before=_compile_group(cues["threshold"]["before"], "cues.threshold.before"),
        thr_after=_opt_group(cues["threshold"].get("after"), "cues.threshold.after"),
        metrics=metrics, items=items, overclaim=overclaim, overclaim_patterns=oc_patterns,
    )


@functools.lru_cache(maxsize=16)
def _compiled_from_key(key: str) -> _Compiled:
    return _compile_checklist(json.loads(key))


def _compiled(checklist: dict) -> _Compiled:
    return _compiled_from_key(json.dumps(checklist, sort_keys=True, ensure_ascii=False, default=str))


def load_checklist(path: str | Path | None = None) -> dict:
    """Read and validate a checklist YAML (default: the attention lab's). Raises ChecklistError."""
    p = Path(path) if path is not None else DEFAULT_CHECKLIST_PATH
    with open(p, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    _compiled(data)   # validates (and warms the cache)
    return data


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
    cc: _Compiled | None = None
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


def _blank_exclusions(cc: _Compiled, text: str) -> str:
    """Replace words like 不同 / 误差 / "not only" by spaces of the same length (positions are kept)."""
    return cc.negation_excl.sub(lambda m: " " * len(m.group()), text)


def _cue_positions(cc: _Compiled, text: str) -> list[int]:
    t = _blank_exclusions(cc, text)
    return sorted(m.start() for pat in (cc.negation, cc.caveat) for m in pat.finditer(t))


def _has_cue(cc: _Compiled, text: str) -> bool:
    t = _blank_exclusions(cc, text)
    return bool(cc.negation.search(t) or cc.caveat.search(t))


def _negative_section(cc: _Compiled, text: str) -> bool:
    return bool(cc.section_neg.search(text)) and not cc.section_amb.search(text)


def _split_clauses(cc: _Compiled, text: str, context_negated: bool) -> list[_Clause]:
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


def _segment(cc: _Compiled, raw: str) -> list[_Sentence]:
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


# ==================================================================================================
# numbers
# ==================================================================================================

_NUMBER = re.compile(
    r"(?<![a-z0-9_.^])(?:"
    r"10\s*\^\s*\{?\s*(?P<p_exp>[-+]?\d+)\s*\}?"
    r"|(?P<mant>\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*e\s*(?P<e_exp>[-+]?\d+)"
    r"|\s*(?:×|x|\*|·|\\times|\\cdot)\s*10\s*\^\s*\{?\s*(?P<x_exp>[-+]?\d+)\s*\}?)?"
    r")(?![a-z0-9_])(?!\.\d)")
_ZERO_CUE = re.compile(r"(?:[=:为是≈~]|\bis|\bwas|\bof)\s*$")


@dataclass
class _Claim:
    metric: str
    relation: str           # "eq" | "lt" | "gt" | "pass"
    value: float | None
    sentence: str


def _parse_number(m: re.Match) -> tuple[float, bool] | None:
    try:
        if m.group("p_exp") is not None:
            return 10.0 ** int(m.group("p_exp")), True
        value = float(m.group("mant"))
        exp = m.group("e_exp") or m.group("x_exp")
        if exp is not None:
            return value * 10.0 ** int(exp.replace(" ", "")), True
        return value, False
    except (OverflowError, ValueError):
        return None


def _last_cue(pattern: _Pat | None, text: str) -> tuple[int, int] | None:
    if pattern is None:
        return None
    best = None
    for m in pattern.finditer(text):
        key = (m.end(), m.end() - m.start())
        if best is None or key > best:
            best = key
    return best


def _extract_claims(cc: _Compiled, sent: _Sentence) -> list[_Claim]:
    text = sent.text
    mentions: list[tuple[int, int, str]] = []
    for mid, metric in cc.metrics.items():
        for m in metric.names.finditer(text):
            mentions.append((m.start(), m.end(), mid))
    if not mentions:
        return []
    mentions.sort(key=lambda mm: (mm[1], mm[0]))          # by end position
    ends = [mm[1] for mm in mentions]
    thresholds = {metric.threshold for metric in cc.metrics.values()}
    claims: list[_Claim] = []
    numbered: set[str] = set()
    prev_end = 0
    for m in _NUMBER.finditer(text):
        parsed = _parse_number(m)
        start, end = m.start(), m.end()
        k = bisect.bisect_right(ends, start)                 # mentions[:k] end before the number
        boundary = max(prev_end, ends[k - 1] if k else 0)
        prev_end = end
        if parsed is None:
            continue
        value, sci = parsed
        before = text[max(boundary, start - 24):start]
        after = text[end:end + 6]
        if not sci:
            if value == 0.0:
                if not _ZERO_CUE.search(before):
                    continue
            elif value >= 0.5:
                continue
        # which metric: the nearest mention before the number, else the first one after it
        metric_id = mentions[k - 1][2] if k else min(mentions, key=lambda mm: mm[0])[2]
        lt = _last_cue(cc.lt_before, before)
        gt = _last_cue(cc.gt_before, before)
        if lt or gt:
            relation = "lt" if (lt or (-1, 0)) >= (gt or (-1, 0)) else "gt"
        elif cc.lt_after is not None and cc.lt_after.match(after.lstrip()):
            relation = "lt"
        elif cc.gt_after is not None and cc.gt_after.match(after.lstrip()):
            relation = "gt"
        elif cc.thr_before.search(before) or (cc.thr_after is not None and cc.thr_after.match(after.lstrip())):
            continue    # the lab threshold being quoted, not a measurement
        elif any(math.isclose(value, t, rel_tol=1e-9) for t in thresholds):
            continue    # a bare 1e-5 / 1e-6 in a table is the threshold column
        else:
            relation = "eq"
        claims.append(_Claim(metric_id, relation, value, text))
        numbered.add(metric_id)
    # "row_sum_error 测试通过" without a number: a claim of passing
    # (every metric named in the sentence without a number is claimed to pass)
    for clause in (sent.clauses if cc.passed.search(text) else ()):
        piece = text[clause.start:clause.end]
        if cc.passed.search(piece) and not _has_cue(cc, cc.passed.sub(" ", piece)):
            for mid in sorted({mid for _s, _e, mid in mentions} - numbered):
                claims.append(_Claim(mid, "pass", None, text))
            break
    return claims


def _fmt(x: float) -> str:
    """Scientific notation as students write it: 4.1e-03, 1e-05, 0."""
    if x is None or math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf"
    if x == 0:
        return "0"
    mant, exp = f"{x:.1e}".split("e")
    return f"{mant.removesuffix('.0')}e{exp}"


def _measured_value(measured: dict | None, key: str) -> float | None:
    if not measured or key not in measured or measured[key] is None:
        return None
    try:
        v = float(measured[key])
    except (TypeError, ValueError):
        return None
    return math.inf if math.isnan(v) else abs(v)


def _claim_contradicts(claim: _Claim, m: float, metric: _Metric) -> bool:
    floor, ratio, thr = metric.noise_floor, metric.max_ratio, metric.threshold

    def c(x: float) -> float:
        return max(x, floor, 1e-300)

    if claim.relation == "eq":
        r = abs(claim.value)
        return c(r) / c(m) > ratio or c(m) / c(r) > ratio or (r <= thr < m)
    if claim.relation == "lt":
        b = claim.value
        return m > c(b) * ratio or (b <= thr < m)
    if claim.relation == "gt":
        return c(m) * ratio < claim.value
    if claim.relation == "pass":
        return m > thr
    return False


def _check_metric(metric: _Metric, claims: list[_Claim], m: float | None) -> dict | None:
    """Return a contradiction flag, or None."""
    if m is None or not claims:
        return None
    passes = [cl for cl in claims if cl.relation == "pass"]
    numeric = [cl for cl in claims if cl.relation != "pass"]
    all_numbers_wrong = bool(numeric) and all(_claim_contradicts(cl, m, metric) for cl in numeric)
    claims_pass_but_fails = m > metric.threshold and (
        bool(passes) or any(cl.relation in ("eq", "lt") and cl.value <= metric.threshold for cl in numeric))
    if not (all_numbers_wrong or claims_pass_but_fails):
        return None
    shown = [cl for cl in numeric if _claim_contradicts(cl, m, metric)] or numeric
    if shown:
        rel = {"eq": "≈", "lt": "<", "gt": ">"}
        said_en = ", ".join(f"{rel[cl.relation]} {_fmt(cl.value)}" for cl in shown[:3])
        said_zh = said_en
    else:
        said_en, said_zh = "passed", "通过"
    measured_txt = _fmt(m) if math.isfinite(m) else "NaN/inf"
    status_en = "fails" if m > metric.threshold else "passes"
    status_zh = "未达到" if m > metric.threshold else "达到"
    return {
        "kind": "contradiction",
        "message": {
            "en": f"Your audit reports {metric.label['en']} {said_en}, but the grader measured {measured_txt} on your "
                  f"code, which {status_en} the lab threshold {_fmt(metric.threshold)}.",
            "zh": f"你的审计报告 {metric.label['zh']} 为 {said_zh}，但评分器在你的代码上测得 {measured_txt}，"
                  f"{status_zh}实验门槛 {_fmt(metric.threshold)}。",
        },
    }


# ==================================================================================================
# grading
# ==================================================================================================

def _concept_candidates(concept: _Concept, sentences: list[_Sentence]) -> list[int]:
    out = []
    for idx, s in enumerate(sentences):
        if not s.eligible:
            continue
        if concept.mode == "caveat":
            # the keyword must sit in a clause that states a limit
            ok = any(s.clause_at(m.start()).negated for m in concept.groups[0].finditer(s.text))
            ok = ok and all(g.search(s.text) for g in concept.groups[1:])
        else:
            ok = all(g.search(s.text) for g in concept.groups)
        if ok:
            out.append(idx)
    return out


def _overclaims(cc: _Compiled, sentences: list[_Sentence]) -> list[str]:
    found: list[str] = []
    for s in sentences:
        if s.is_code or s.is_heading or s.is_question or s.context_negated:
            continue
        if not cc.overclaim_patterns.search(s.text):
            continue
        for clause in s.clauses:
            piece = s.text[clause.start:clause.end]
            if clause.negated or cc.hedge.search(piece):
                continue
            if cc.overclaim_patterns.search(piece):
                found.append(s.text)
                break
    return found


def _snippet(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _round(x: float) -> float:
    return round(x + 1e-12, 2)


def grade_audit(text: str | None, figure: Any, measured: dict[str, float] | None, checklist: dict) -> dict:
    """Grade a written audit. ``figure`` is a :class:`grading.inputs.FigureInfo`, its ``to_dict()``,
    or None; ``measured`` holds the grader's own measurements on the student's code."""
    cc = _compiled(checklist)
    text = (text or "")[: cc.max_text_chars]
    sentences = _segment(cc, text) if text.strip() else []
    has_text = any(re.search(r"\w", s.text) for s in sentences)

    # --- concept candidates, then a greedy assignment under the per-sentence budget -------------
    phrase_concepts = [(item, c) for item in cc.items if item.kind == "concepts"
                       for c in item.concepts if c.kind == "phrases"]
    candidates = {(item.id, c.id): _concept_candidates(c, sentences) for item, c in phrase_concepts}
    order = sorted(range(len(phrase_concepts)),
                   key=lambda i: (len(candidates[(phrase_concepts[i][0].id, phrase_concepts[i][1].id)]), i))
    budget: dict[int, int] = {}
    credited: set[tuple[str, str]] = set()
    for i in order:
        item, c = phrase_concepts[i]
        for idx in candidates[(item.id, c.id)]:
            if budget.get(idx, 0) < cc.max_per_sentence:
                budget[idx] = budget.get(idx, 0) + 1
                credited.add((item.id, c.id))
                break

    # --- numbers ---------------------------------------------------------------------------------
    claims: dict[str, list[_Claim]] = {mid: [] for mid in cc.metrics}
    for s in sentences:
        if s.is_heading:
            continue
        for cl in _extract_claims(cc, s):
            claims[cl.metric].append(cl)
    flags: list[dict] = []
    contradicted: set[str] = set()
    for mid, metric in cc.metrics.items():
        flag = _check_metric(metric, claims[mid], _measured_value(measured, metric.measured_key))
        if flag:
            flags.append(flag)
            contradicted.add(mid)

    # --- items -----------------------------------------------------------------------------------
    items_out: list[dict] = []
    for item in cc.items:
        if item.kind == "figure":
            items_out.append(_grade_figure(item, figure))
            continue
        got = 0.0
        missing: list[dict] = []
        item_contradicted = False
        for c in item.concepts:
            if c.kind == "metric":
                mine = claims[c.metric]
                credit = c.credit if any(cl.relation == "eq" for cl in mine) else (c.credit / 2 if mine else 0.0)
                item_contradicted |= c.metric in contradicted
            else:
                credit = c.credit if (item.id, c.id) in credited else 0.0
            got += credit
            if credit < c.credit:
                missing.append(c.label)
        points = item.weight * min(1.0, got / item.full_credit_at)
        if item_contradicted:
            points = 0.0
            fb = _bilingual(item.raw.get("feedback_contradiction"), "", {
                "en": "The numbers you report contradict the grader's measurement; this item earns no points.",
                "zh": "你报告的数值与评分器的测量结果矛盾，本项不得分。"})
        elif not has_text:
            fb = {"en": "No audit text was submitted. " + item.feedback_missing["en"],
                  "zh": "没有提交审计文字。" + item.feedback_missing["zh"]}
        elif points >= item.weight - 1e-9:
            fb = dict(item.feedback_ok)
        else:
            fb = dict(item.feedback_missing)
            if 0 < len(missing) < len(item.concepts):
                fb = {"en": fb["en"] + " Not yet covered: " + "; ".join(x["en"] for x in missing) + ".",
                      "zh": fb["zh"] + "尚未涵盖：" + "；".join(x["zh"] for x in missing) + "。"}
        items_out.append({"id": item.id, "label": dict(item.label), "found": points > 0, "points": points,
                          "max_points": item.weight, "feedback": fb})

    # --- overclaims ------------------------------------------------------------------------------
    oc = cc.overclaim
    over = _overclaims(cc, sentences)
    if over and oc["penalty"] > 0:
        total_penalty = min(oc["max_penalty"] or math.inf, oc["penalty"] * len(over))
        remaining = total_penalty
        by_id = {it["id"]: it for it in items_out}
        for target in oc["deduct_from"]:
            it = by_id[target]
            take = min(remaining, it["points"])
            if take > 0:
                it["points"] -= take
                it["found"] = it["points"] > 0
                it["feedback"] = {
                    "en": it["feedback"]["en"] + f" {_round(take):g} point(s) deducted for overclaiming (see flags).",
                    "zh": it["feedback"]["zh"] + f"因过度解读扣 {_round(take):g} 分（见 flags）。"}
                remaining -= take
            if remaining <= 0:
                break
        per = oc["penalty"]
        for sent in over[: cc.max_overclaim_flags]:
            msg = oc["message"]
            flags.append({"kind": "overclaim", "message": {
                lang: msg[lang].replace("{snippet}", _snippet(sent)).replace("{penalty}", f"{per:g}")
                for lang in ("en", "zh")}})

    for it in items_out:
        it["points"] = _round(max(0.0, it["points"]))
        it["max_points"] = _round(it["max_points"])
    score = _round(sum(it["points"] for it in items_out))
    return {"score": score, "max": _round(cc.max_points), "items": items_out, "flags": flags}


def _fig_attr(figure: Any, name: str, default: Any = None) -> Any:
    if figure is None:
        return default
    if isinstance(figure, dict):
        return figure.get(name, default)
    return getattr(figure, name, default)


def _grade_figure(item: _Item, figure: Any) -> dict:
    raw = item.raw
    if figure is None:
        points, fb = 0.0, item.feedback_missing
    elif _fig_attr(figure, "is_blank", False):
        points = float(raw.get("points_if_blank", 0))
        fb = _bilingual(raw.get("feedback_blank"), "", item.feedback_missing)
    elif not _fig_attr(figure, "looks_like_heatmap", True):
        points = float(raw.get("points_if_not_heatmap", item.weight / 2))
        fb = _bilingual(raw.get("feedback_not_heatmap"), "", item.feedback_missing)
    else:
        points, fb = item.weight, item.feedback_ok
    points = min(points, item.weight)
    return {"id": item.id, "label": dict(item.label), "found": figure is not None and points > 0,
            "points": points, "max_points": item.weight, "feedback": dict(fb)}


def _main(argv: list[str] | None = None) -> int:
    """``python -m rubric.audit [--check] [CHECKLIST] [AUDIT]``: validate a checklist, grade a text file."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m rubric.audit")
    ap.add_argument("--checklist", default=None)
    ap.add_argument("audit", nargs="?")
    ap.add_argument("--max-abs-error", type=float)
    ap.add_argument("--row-sum-error", type=float)
    args = ap.parse_args(argv)
    cl = load_checklist(args.checklist)
    if not args.audit:
        print(f"checklist ok: {len(cl['items'])} items, {cl.get('max_points')} points")
        return 0
    with open(args.audit, encoding="utf-8-sig") as fh:
        text = fh.read()
    measured = {k: v for k, v in (("max_abs_error", args.max_abs_error), ("row_sum_error", args.row_sum_error))
                if v is not None}
    print(json.dumps(grade_audit(text, None, measured, cl), ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
