"""The instructor-editable checklist (YAML) compiled into a typed :class:`Checklist`."""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from rubric.audit.overlap import Handout, load_handout
from rubric.audit.text import _CJK, normalise

# Why a concept was not credited; the checklist words each reason in both languages (`reasons:`).
REASONS = ("not_found", "too_short", "copied", "negated", "not_a_limit", "no_result", "stuffed", "sentence_full",
           "threshold_only", "question", "mismatch", "contradicted", "copied_feedback", "unanchored", "unread", "other_figure",
           "noncommittal", "injection", "far", "colour_dark", "colour_light", "colour_blank", "colour_no_figure", "colour_unknown", "shown", "formula", "misread", "false_fact", "template",
           "whole_text", "unasserted", "planned", "foretold", "others_figure", "premise", "no_setting", "keyword_line", "keyword_shape")

DEFAULT_CHECKLIST_PATH = Path(__file__).resolve().parents[1] / "attention" / "audit.yaml"


class ChecklistError(ValueError):
    """The checklist YAML is malformed (message names the item/concept)."""


# ==================================================================================================
# checklist compilation
# ==================================================================================================

_LATIN_END = re.compile(r"[a-z0-9]")
# "{{zero}}" in a "re:" phrase is the checklist's macro `zero` (section `macros`): one definition of what a
# written zero or one is, shared by every phrase that needs it ("0", "0.0000", "0e0" but not "0.5").
_MACRO = re.compile(r"\{\{([a-z_]+)\}\}")


def _expand_macros(obj: Any, macros: dict[str, str], where: str = "") -> Any:
    """``obj`` (YAML data) with every ``{{name}}`` of a "re:" string replaced by ``(?:macro)``."""
    if isinstance(obj, dict):
        return {k: _expand_macros(v, macros, f"{where}.{k}" if where else str(k)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_expand_macros(v, macros, where) for v in obj]
    if isinstance(obj, str) and obj.startswith("re:") and "{{" in obj:
        def sub(m: re.Match) -> str:
            if m.group(1) not in macros:
                raise ChecklistError(f"{where}: unknown macro {{{{{m.group(1)}}}}} in {obj!r}")
            return f"(?:{macros[m.group(1)]})"
        return _MACRO.sub(sub, obj)
    return obj


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


def _required_literals(pattern: str, every: bool = False) -> list[str] | list[list[str]] | None:
    """Literals of which at least one occurs in every match of ``pattern`` (None if unknown).

    Walks the parsed regex: a sequence needs any of its mandatory parts, a branch needs one literal per
    alternative. Used only as a prefilter (``lit in sentence``) before the real regex runs. With ``every``, each of
    the top-level sequence's mandatory parts (a match holds one literal of each), not only the most selective."""
    try:
        from re import _constants as C
        from re import _parser
        tree = _parser.parse(pattern)
    except Exception:  # noqa: BLE001 - internal API; no prefilter is always correct
        return None
    if tree.state.flags & (re.IGNORECASE | re.VERBOSE):     # a global (?i) or (?x): the literals are not the text's
        return None

    def seq(items, outer: bool = False) -> Any:
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
                # a scoped flag ((?i:heatmap)) matches other spellings than its literals: nothing known inside
                r = None if av[1] or av[2] else seq(av[-1])
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
        if outer and every:
            return candidates
        return max(candidates, key=lambda alts: (min(selectivity(a) for a in alts), -len(alts)))

    def selectivity(lit: str) -> int:
        # a Chinese character is rarer than a Latin letter; spaces and punctuation are everywhere
        return sum(2 if _CJK.match(ch) else 1 for ch in lit if ch.isalnum())

    return seq(tree, outer=True)


def _literal_trie(literals) -> str:
    """A regex that finds where any of ``literals`` occurs, branching one character at a time ("caus(?:al|e)"): a flat
    alternation of ~100 literals tries each one that opens on the character at every position (round 46 mend MA2: the
    prefilters were 16 of a 20 KiB audit's ~95 ms, 9 as a trie). It only says whether one occurs: a literal that another
    extends ends the branch ("cause" finds "causes")."""
    trie: dict = {}
    for lit in literals:
        node = trie
        for ch in lit:
            node = node.setdefault(ch, {})
        node[""] = {}

    def branch(node: dict) -> str:
        if "" in node:
            return ""
        alts = [re.escape(ch) + branch(node[ch]) for ch in sorted(node)]
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return branch(trie)


class _Pat:
    """A compiled phrase group with a literal prefilter (the subset of re.Pattern that we use)."""

    __slots__ = ("regex", "triggers", "_pre", "parts", "needs", "_alts", "_lits", "_one")

    def __init__(self, regex: re.Pattern, triggers: tuple[str, ...] | None, parts: tuple[_Pat, ...] = ()):
        self.regex = regex
        self.triggers = triggers
        self.parts = parts        # see _compile_group(split=True): ``sub`` runs them one after the other
        # every literal group a match needs (one of each), for parts_that_may_match; () when unknown
        self.needs: tuple[tuple[str, ...], ...] = ()
        if triggers is None:
            self._pre = None
        elif not triggers:
            self._pre = re.compile(r"(?!x)x")
        else:   # one C-level scan for any of the literals, as a trie (_literal_trie)
            self._pre = re.compile(_literal_trie(triggers))
        # the alternation's phrases in order, each with the literals one of which its every match holds (None: unknown):
        # see :meth:`_kept`
        self.alts = ()

    @property
    def alts(self) -> tuple[tuple[str, tuple[str, ...] | None], ...]:
        return self._alts

    @alts.setter
    def alts(self, alts: tuple[tuple[str, tuple[str, ...] | None], ...]) -> None:
        self._alts = alts
        # each literal with the phrases it lets through, and the phrases with none known (always tried)
        by_lit: dict[str, list[int]] = {}
        for i, (_body, lits) in enumerate(alts):
            for t in lits or ():
                by_lit.setdefault(t, []).append(i)
        self._lits = ({t: tuple(ix) for t, ix in by_lit.items()}, tuple(i for i, (_b, lits) in enumerate(alts) if not lits))
        self._one: list[re.Pattern | None] = [None] * len(alts)     # each phrase compiled alone, on first use

    def _may_match(self, text: str) -> bool:
        return self._pre is None or self._pre.search(text) is not None

    def _kept(self, text: str) -> list[re.Pattern] | None:
        """The phrases, in order and compiled one by one, whose literals occur in ``text`` (None: try the whole
        alternation; []: no phrase may match). A phrase none of whose literals occur matches at no position, so the
        others find the group's matches (see :meth:`search`); the engine no longer tries all of a group's ~60
        branches at every position (round 41: the negation cues were ~10 % of a 20 KiB audit's CPU). Each phrase is
        compiled once, never a set of phrases per text: a new text would compile a new alternation (round 41's
        first version: 19 ms an audit graded for the first time against 12)."""
        if not self._may_match(text):
            return []
        if len(self.alts) < 4:
            return None
        lits, always = self._lits
        keep = sorted({*always, *(i for t in lits if t in text for i in lits[t])})
        if len(keep) * 2 > len(self.alts):     # most phrases stay: one alternation is cheaper than many scans
            return None
        one = self._one
        for i in keep:
            if one[i] is None:
                one[i] = re.compile(self.alts[i][0])
        return [one[i] for i in keep]

    def _first(self, kept: list[re.Pattern], text: str, pos: int = 0):
        """The alternation's match from ``pos``: the leftmost start among the phrases', and at that start the first
        phrase's in the group's order (as the alternation tries its branches at each position)."""
        best = None
        for rx in kept:
            m = rx.search(text, pos)
            if m is not None and (best is None or m.start() < best.start()):
                best = m
        return best

    def parts_that_may_match(self, text: str) -> list[_Pat]:
        """The parts (or the whole) whose literals occur in ``text``: one substring test per literal of the group
        (4 us a sentence for 45 literals) in place of one prefilter regex per part (15 us), then each part's other
        mandatory literals ("masked ... small"), so that few parts run their regex."""
        if not self.parts:
            return [self] if self._may_match(text) else []
        if self.triggers is None:
            return list(self.parts)
        # (one trie scan first: most sentences hold none of the group's literals, and the set is then empty)
        found = {t for t in self.triggers if t in text} if self._may_match(text) else set()
        return [p for p in self.parts if p.triggers is None or not found.isdisjoint(p.triggers) and all(
            any(t in text for t in group) for group in p.needs)]

    def search(self, text: str):
        kept = self._kept(text)
        return self.regex.search(text) if kept is None else self._first(kept, text)

    def match(self, text: str):
        return self.regex.match(text) if self._may_match(text) else None

    def finditer(self, text: str):
        kept = self._kept(text)
        if kept is None:
            return self.regex.finditer(text)
        found, pos = [], 0
        while (m := self._first(kept, text, pos)) is not None:
            if m.end() == m.start():       # an empty match: re's rules for what follows it are the alternation's own
                return self.regex.finditer(text)
            found.append(m)
            pos = m.end()
        return iter(found)

    def sub(self, repl, text: str) -> str:
        if self.parts:
            if not self._may_match(text):      # none of the literals of any part: one scan, no part runs
                return text
            # only the parts whose literals occur (substring tests, round 22: each part's own prefilter scan was
            # a third of the cue pass); blanking one part's match removes literals, never adds one for another
            for part in self.parts_that_may_match(text):
                text = part.regex.sub(repl, text)
            return text
        return self.regex.sub(repl, text) if self._may_match(text) else text


_NEVER = _Pat(re.compile(r"(?!x)x"), ())


def _compile_group(group: Any, where: str, *, split: bool = False) -> _Pat:
    """One regex for a phrase list. With ``split`` (groups only ever blanked with ``sub``, such as the
    intensifiers), ``sub`` runs one part per regex phrase and one for all literal phrases, each behind its
    own literal prefilter: one alternation of ~90 phrases, most starting with a look-around, is tried at
    every position of every sentence, and most sentences hold none of their literals. Blanking (a
    replacement of the same length) in parts gives the same text as in one pass."""
    if split:
        phrases = (list(group.get("zh") or []) + list(group.get("en") or [])) if isinstance(group, dict) else group
        whole = _compile_group(group, where)
        if isinstance(phrases, list) and len(phrases) > 1:
            literal = [p for p in phrases if not (isinstance(p, str) and p.startswith("re:"))]
            chunks = ([literal] if literal else []) + [[p] for p in phrases if p not in literal]
            whole.parts = tuple(_compile_group(c, where) for c in chunks)
            for part, chunk in zip(whole.parts, chunks, strict=True):
                if len(chunk) == 1 and chunk[0] not in literal:
                    groups = _required_literals(_compile_phrase(chunk[0], where), every=True)
                    part.needs = tuple(tuple(g) for g in groups or ())
        return whole
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
    alts = []
    for body in bodies:
        lits = _required_literals(body)
        alts.append((body, tuple(lits) if lits else None))
        if not lits:
            triggers = None
        elif triggers is not None:
            triggers.update(lits)
    pat = _Pat(re.compile("|".join(f"(?:{b})" for b in bodies)), tuple(sorted(triggers)) if triggers else None)
    pat.alts = tuple(alts)
    return pat


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
    evidence: str | None = None    # "observed": needs an observed result of the student's own run
    # what the experiment measures (entropy, weight, shape...): a number is a result of it only next to one
    measures: _Pat | None = None
    # what the experiment varies (round 36: "the entropy is exactly 0.42" named no scaling and no d_k, yet counted as
    # experiment A's result): a result counts only where its sentence, its paragraph or the heading above names it
    setting: _Pat | None = None
    # the opposite statement ("columns are queries"): a clause stating it credits the concept nothing
    contradicted_by: _Pat | None = None
    # `stated_alone` (round 46): words that state a caveat concept without a negation ("only one seed", 只跑了一个 seed)
    stated_alone: _Pat | None = None
    implies: list[str] = field(default_factory=list)   # concepts a statement of this one states too
    # `read_peaks` (round 35): a sentence that reads a query's peak, in whatever words and order the cell reader reads
    # one (grade._cell_claims: "q1 最关注 k2", 第2个查询最关注第3个键, "k2 is where q1 puts most of its weight"), states it
    read_peaks: bool = False
    # `low_end` (round 18): the concept as read when the figure's low end is "dark" or "light", its phrases plus
    # the colour words of that end ("the masked keys are dark" / "... are white"); see grade._low_end
    by_low_end: dict[str, _Concept] = field(default_factory=dict)


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
class _TestClaim:
    """A statement about the student's own code that their test results can refute."""

    id: str
    label: dict
    tests: list[str]
    phrases: _Pat | None
    concepts: list[str]


@dataclass
class _Metric:
    id: str
    measured_key: str
    threshold: float
    label: dict
    names: _Pat


@dataclass(eq=False)
class Checklist:
    """A validated, compiled checklist. ``source`` is the YAML data it was compiled from (instructor
    tools and tests edit a copy of it and compile again); the rest is what grading reads."""

    source: dict
    max_points: float
    min_units: float
    max_per_sentence: int
    keyword_list_concepts: int
    max_text_chars: int
    max_overclaim_flags: int
    negation_subject_gap: float
    negation: _Pat
    negation_excl: _Pat
    intensifiers: _Pat
    observed: _Pat
    caveat: _Pat
    carry: _Pat
    rebuttal: _Pat
    flip: _Pat
    section_neg: _Pat
    section_amb: _Pat
    hedge: _Pat
    unasserted: _Pat
    ditto: _Pat
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
    reasons: dict[str, dict[str, str]]
    handout: Handout | None
    test_claims: list[_TestClaim]
    # optional cue groups (rubric/attention/audit.yaml, cues.*); a checklist without them never matches
    section_denied: _Pat = _NEVER       # a heading that denies its own "cannot prove" ("Limitations: none")
    proof_header: _Pat = _NEVER         # a table column asking whether the figure can prove/show the row
    contrast: _Pat = _NEVER             # "rather than", "instead of", 而非: negate what follows only
    attribution: _Pat = _NEVER          # "some say", 有人说: a verdict after it denies what it reports
    verdict: _Pat = _NEVER              # "they are wrong", 纯属胡说
    rejection: _Pat = _NEVER            # "…: the heatmap cannot show that", 这张图证明不了: denies the claim before it
    embedded_question: _Pat = _NEVER    # "whether", 是否: the clause asks, it asserts no overclaim
    grounding: _Pat = _NEVER            # k2, a value, "reading coefficient": the limits name the student's figure (round 38)
    grounding_read: _Pat = _NEVER       # k2, 0.67, "reads", the diagonal: what grounds the list in a denial (round 39)
    noncommittal: _Pat = _NEVER         # "may or may not", 可能…也可能不: the sentence states both, so nothing
    injection: _Pat = _NEVER            # "Grader: give full marks", 忽略评分标准: instructions to the grader
    mechanical: _Pat = _NEVER           # "the mask causes a zero weight": a fact of the computation, no overclaim
    counterfactual: _Pat = _NEVER       # "if you took k2 away, the output would fall apart": across clauses (round 38)
    counterfactual_backed: _Pat = _NEVER  # "I removed k2 and re-ran", "a difference of 0.002": a run, no overclaim
    counterfactual_null: _Pat = _NEVER  # "will change nothing", "would barely change": no claim the key matters
    counterfactual_collapse: _Pat = _NEVER  # "there would be no sensible output", 就不会有意义: a breakdown (round 39)
    false_facts: _Pat = _NEVER          # "the weights are not reading coefficients": a sentence stating one earns nothing
    false_claims: _Pat = _NEVER         # "masked keys get a small weight": the same, unless a cue before it denies it
    zero: re.Pattern | None = None      # the macro `zero`: a written zero ("0", "0.0000", "0e0")
    cause_verb_en: str = ""             # the macro `cause_verb_en`: what a key is said to do to the output (round 42)
    # `anchor` (audit round 14): what ties an audit to the student's own figure and run
    anchor: _Pat = _NEVER               # a cell (q0, key 2, 第一行), "my heatmap", 这张图
    anchor_min_units: float = math.inf  # a text this long with no anchor is about attention in general
    bare_caveat_units: float = 0.0      # see settings.bare_caveat_units; 0: no caveat is bare
    anchor_quantities: _Pat = _NEVER    # what a measured value is of (entropy, weight, 误差): "0.31" alone is none
    # what a reference to the figure must come with to anchor a long text (audit round 15): a reading in its own
    # sentence (a number, a row, a column, weights) or, anywhere in the text, something seen (a bright diagonal)
    anchor_readings: _Pat | None = None   # None: a reference anchors alone (round 14)
    anchor_sights: _Pat = _NEVER
    # how much of a long text must read the figure for all of it to count (audit round 18): below this share of
    # its units, only passages that read the figure or point at the student's own case (anchor.own_case) earn concepts
    anchor_min_reading_share: float = 0.0
    anchor_own_case: _Pat = _NEVER      # "This does not prove ...", "I ran one seed", 这不能证明, 它也看不出
    anchor_masked_colour: _Pat = _NEVER  # a colour said of a masked key: no reading of a figure that shows none
    requirement: _Pat = _NEVER          # "the rubric asks students to state that ...": a requirement restated
    # "the heatmap shows that ...", 热力图表明… (audit round 19): a caveat after it is said to be shown, and a text
    # that says so twice uses the phrase as a formula that ties nothing to the figure
    anchor_said_to_show: _Pat = _NEVER
    # "This does not prove ...", 这不能证明 (audit round 19): the student's own case when the sentence before it is
    anchor_points_back: _Pat = _NEVER
    self_figure: _Pat = _NEVER          # the student naming their figure ("my figure", 我的图)
    other_figure: _Pat = _NEVER         # a figure that is no attention heatmap (a loss curve, 柱状图)
    others_figure: _Pat = _NEVER        # another's figure or model ("in BERT's attention maps", 论文里的图)


def _opt_group(obj: Any, where: str) -> _Pat | None:
    if not obj or not (obj.get("zh") or obj.get("en")):
        return None
    return _compile_group(obj, where)


def _compile_checklist(cl: dict, base_dir: Path) -> Checklist:
    if not isinstance(cl, dict):
        raise ChecklistError("checklist: expected a mapping")
    if not isinstance(cl.get("max_points"), (int, float)) or cl["max_points"] <= 0:
        # the audit's maximum is the checklist's, never a default in code
        raise ChecklistError("max_points: needs a positive number (the audit's maximum)")
    macros = cl.get("macros") or {}
    if not isinstance(macros, dict) or not all(isinstance(v, str) for v in macros.values()):
        raise ChecklistError("macros: expected a mapping of names to regular expressions")
    for name, body in macros.items():
        try:
            re.compile(body)
        except re.error as exc:
            raise ChecklistError(f"macros.{name}: bad regex {body!r}: {exc}") from None
    source, cl = cl, _expand_macros({k: v for k, v in cl.items() if k != "macros"}, macros)
    settings = cl.get("settings") or {}
    cues = cl.get("cues") or {}
    for name in ("negation", "intensifiers", "caveat", "carry", "section_negative", "section_ambiguous", "hedge",
                 "pass", "observed", "less_than", "greater_than", "threshold"):
        if name not in cues:
            raise ChecklistError(f"cues: missing '{name}'")
    metrics: dict[str, _Metric] = {}
    for mid, m in (cl.get("metrics") or {}).items():
        where = f"metrics.{mid}"
        try:
            metrics[mid] = _Metric(
                id=mid, measured_key=str(m.get("measured_key", mid)), threshold=float(m["threshold"]),
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
                concept.evidence = c.get("evidence")
                if concept.evidence not in (None, "observed"):
                    raise ChecklistError(f"{cw}: evidence must be 'observed' or absent")
                if c.get("measures"):
                    concept.measures = _compile_group(c["measures"], f"{cw}.measures")
                if c.get("setting"):
                    concept.setting = _compile_group(c["setting"], f"{cw}.setting")
                if c.get("contradicted_by"):
                    concept.contradicted_by = _compile_group(c["contradicted_by"], f"{cw}.contradicted_by")
                if c.get("stated_alone"):
                    concept.stated_alone = _compile_group(c["stated_alone"], f"{cw}.stated_alone")
                concept.implies = [str(x) for x in c.get("implies") or []]
                concept.read_peaks = bool(c.get("read_peaks", False))
                if ckind == "metric":
                    if c.get("metric") not in metrics:
                        raise ChecklistError(f"{cw}: unknown metric {c.get('metric')!r}")
                    concept.metric = c["metric"]
                else:
                    groups = c.get("all") or ([c["phrases"]] if c.get("phrases") else [])
                    if not groups:
                        raise ChecklistError(f"{cw}: needs 'phrases' or 'all'")
                    concept.groups = [_compile_group(g, cw) for g in groups]
                    for end, words in (c.get("low_end") or {}).items():
                        if end not in ("dark", "light") or len(groups) != 1:
                            raise ChecklistError(f"{cw}.low_end: 'dark' or 'light', on a concept with 'phrases'")
                        both = {lang: list(groups[0].get(lang) or []) + list((words or {}).get(lang) or [])
                                for lang in ("zh", "en")}
                        concept.by_low_end[end] = _Concept(**{**concept.__dict__, "by_low_end": {},
                                                              "groups": [_compile_group(both, f"{cw}.low_end.{end}")]})
                item.concepts.append(concept)
            item.full_credit_at = float(it.get("full_credit_at", sum(c.credit for c in item.concepts)))
            if item.full_credit_at <= 0:
                raise ChecklistError(f"{where}: full_credit_at must be > 0")
        items.append(item)
    max_points = float(cl["max_points"])
    total = sum(i.weight for i in items)
    if abs(total - max_points) > 1e-9:
        raise ChecklistError(f"item weights add up to {total:g}, max_points is {max_points:g}")
    oc = cl.get("overclaims") or {}
    for target in oc.get("deduct_from") or []:
        if target not in seen:
            raise ChecklistError(f"overclaims.deduct_from: unknown item {target!r}")
    # split: most sentences hold the literals of none of its ~60 phrases, and the one alternation of them all was
    # the slowest pass of a long audit (round 22); grade._overclaims asks the parts that may match first
    oc_patterns = _compile_group(oc["patterns"], "overclaims.patterns", split=True) if oc.get("patterns") else _NEVER
    overclaim = {
        "penalty": float(oc.get("penalty", 0)), "max_penalty": float(oc.get("max_penalty", 0)),
        "deduct_from": list(oc.get("deduct_from") or []),
        # caveat concept id -> what an overclaim after it must name to take it back (grade._taken_back)
        "takes_back": {cid: re.compile(rx, re.IGNORECASE) for cid, rx in (oc.get("takes_back") or {}).items()},
        "hedged_penalty": float(oc.get("hedged_penalty", oc.get("penalty", 0))),
        "message": _bilingual(oc.get("message"), "overclaims.message",
                              {"en": "Overclaim: \"{snippet}\".", "zh": "过度解读：「{snippet}」。"}),
        "hedged_message": _bilingual(oc.get("hedged_message") or oc.get("message"), "overclaims.hedged_message",
                                     {"en": "Overclaim: \"{snippet}\".", "zh": "过度解读：「{snippet}」。"}),
    }
    reasons = {rid: _bilingual(r, f"reasons.{rid}") for rid, r in (cl.get("reasons") or {}).items()}
    missing = set(REASONS) - set(reasons)
    if missing:
        raise ChecklistError(f"reasons: missing {sorted(missing)}")
    all_concepts = {c.id for it in items for c in it.concepts}
    for it in items:
        for c in it.concepts:
            unknown = set(c.implies) - all_concepts
            if unknown:
                raise ChecklistError(f"items({it.id}).{c.id}.implies: unknown concepts {sorted(unknown)}")
    test_claims: list[_TestClaim] = []
    for n, tc in enumerate(cl.get("test_claims") or []):
        where = f"test_claims[{n}]({tc.get('id') if isinstance(tc, dict) else None})"
        if not isinstance(tc, dict) or not tc.get("id") or not tc.get("tests"):
            raise ChecklistError(f"{where}: needs an id and a list of tests")
        unknown = set(tc.get("concepts") or []) - all_concepts
        if unknown:
            raise ChecklistError(f"{where}: unknown concepts {sorted(unknown)}")
        test_claims.append(_TestClaim(
            id=tc["id"], label=_bilingual(tc.get("label"), f"{where}.label"), tests=[str(t) for t in tc["tests"]],
            phrases=_compile_group(tc["phrases"], where) if tc.get("phrases") else None,
            concepts=list(tc.get("concepts") or [])))
    handout = load_handout(cl.get("handout"), base_dir, grader_texts(cl, base_dir)) if cl.get("handout") else None
    anchor = cl.get("anchor") or {}
    if not isinstance(anchor, dict):
        raise ChecklistError("anchor: expected a mapping")
    return Checklist(
        source=source,
        max_points=max_points,
        min_units=float(settings.get("min_units", 10)),
        max_per_sentence=int(settings.get("max_concepts_per_sentence", 2)),
        bare_caveat_units=float(settings.get("bare_caveat_units", 0)),
        keyword_list_concepts=int(settings.get("keyword_list_concepts", 3)),
        max_text_chars=int(settings.get("max_text_chars", 60000)),
        max_overclaim_flags=int(settings.get("max_overclaim_flags", 5)),
        negation_subject_gap=float(settings.get("negation_subject_gap", 4)),
        negation=_compile_group(cues["negation"], "cues.negation"),
        negation_excl=(_compile_group(cues["negation_exclusions"], "cues.negation_exclusions", split=True)
                       if _opt_group(cues.get("negation_exclusions"), "cues.negation_exclusions") else _NEVER),
        intensifiers=_compile_group(cues["intensifiers"], "cues.intensifiers", split=True),
        observed=_compile_group(cues["observed"], "cues.observed"),
        caveat=_compile_group(cues["caveat"], "cues.caveat"),
        carry=_compile_group(cues["carry"], "cues.carry"),
        rebuttal=_opt_group(cues.get("rebuttal"), "cues.rebuttal") or _NEVER,
        flip=_opt_group(cues.get("polarity_flip"), "cues.polarity_flip") or _NEVER,
        section_neg=_compile_group(cues["section_negative"], "cues.section_negative"),
        section_amb=_compile_group(cues["section_ambiguous"], "cues.section_ambiguous"),
        hedge=_compile_group(cues["hedge"], "cues.hedge"),
        unasserted=_opt_group(cues.get("unasserted"), "cues.unasserted") or _NEVER,
        ditto=_opt_group(cues.get("ditto"), "cues.ditto") or _NEVER,
        passed=_compile_group(cues["pass"], "cues.pass"),
        lt_before=_compile_group(cues["less_than"]["before"], "cues.less_than.before"),
        lt_after=_opt_group(cues["less_than"].get("after"), "cues.less_than.after"),
        gt_before=_compile_group(cues["greater_than"]["before"], "cues.greater_than.before"),
        gt_after=_opt_group(cues["greater_than"].get("after"), "cues.greater_than.after"),
        thr_before=_compile_group(cues["threshold"]["before"], "cues.threshold.before"),
        thr_after=_opt_group(cues["threshold"].get("after"), "cues.threshold.after"),
        metrics=metrics, items=items, overclaim=overclaim, overclaim_patterns=oc_patterns,
        reasons=reasons, handout=handout, test_claims=test_claims,
        section_denied=_opt_group(cues.get("section_denied"), "cues.section_denied") or _NEVER,
        proof_header=_opt_group(cues.get("proof_header"), "cues.proof_header") or _NEVER,
        contrast=_opt_group(cues.get("contrast"), "cues.contrast") or _NEVER,
        attribution=_opt_group(cues.get("attribution"), "cues.attribution") or _NEVER,
        verdict=_opt_group(cues.get("verdict"), "cues.verdict") or _NEVER,
        rejection=_opt_group(cues.get("rejection"), "cues.rejection") or _NEVER,
        embedded_question=_opt_group(cues.get("embedded_question"), "cues.embedded_question") or _NEVER,
        grounding=_opt_group(cues.get("grounding"), "cues.grounding") or _NEVER,
        grounding_read=_opt_group(cues.get("grounding_read"), "cues.grounding_read") or _NEVER,
        noncommittal=_opt_group(cues.get("noncommittal"), "cues.noncommittal") or _NEVER,
        injection=_opt_group(cues.get("injection"), "cues.injection") or _NEVER,
        requirement=_opt_group(cues.get("requirement"), "cues.requirement") or _NEVER,
        mechanical=_opt_group(oc.get("mechanical"), "overclaims.mechanical") or _NEVER,
        counterfactual=_opt_group(oc.get("counterfactual"), "overclaims.counterfactual") or _NEVER,
        counterfactual_backed=(_opt_group(oc.get("counterfactual_backed"), "overclaims.counterfactual_backed")
                               or _NEVER),
        counterfactual_null=_opt_group(oc.get("counterfactual_null"), "overclaims.counterfactual_null") or _NEVER,
        counterfactual_collapse=(_opt_group(oc.get("counterfactual_collapse"), "overclaims.counterfactual_collapse")
                                 or _NEVER),
        false_facts=_opt_group(cl.get("false_facts"), "false_facts") or _NEVER,
        # one prefiltered regex per claim (``parts``): an alternation of all of them, each with a bounded gap after a
        # common word ("weights", 权重), cost a 20 KiB audit 11 ms more; most sentences hold no claim's literals
        false_claims=(_compile_group(cl["false_claims"], "false_claims", split=True)
                      if cl.get("false_claims") else _NEVER),
        zero=re.compile(macros["zero"]) if macros.get("zero") else None,
        cause_verb_en=macros.get("cause_verb_en", ""),
        anchor=_opt_group(anchor.get("phrases"), "anchor.phrases") or _NEVER,
        anchor_min_units=float(anchor.get("min_units", math.inf)),
        anchor_quantities=_opt_group(anchor.get("quantities"), "anchor.quantities") or _NEVER,
        anchor_readings=_opt_group(anchor.get("readings"), "anchor.readings"),
        anchor_sights=_opt_group(anchor.get("sights"), "anchor.sights") or _NEVER,
        anchor_min_reading_share=float(anchor.get("min_reading_share", 0.0)),
        anchor_own_case=_opt_group(anchor.get("own_case"), "anchor.own_case") or _NEVER,
        anchor_masked_colour=_opt_group(anchor.get("masked_colour"), "anchor.masked_colour") or _NEVER,
        anchor_said_to_show=_opt_group(anchor.get("said_to_show"), "anchor.said_to_show") or _NEVER,
        anchor_points_back=_opt_group(anchor.get("points_back"), "anchor.points_back") or _NEVER,
        self_figure=_opt_group(anchor.get("self_figure"), "anchor.self_figure") or _NEVER,
        other_figure=_opt_group(anchor.get("other_figure"), "anchor.other_figure") or _NEVER,
        others_figure=_opt_group(anchor.get("others_figure"), "anchor.others_figure") or _NEVER,
    )


# Student-visible messages written in the rubric's code: dict literals {"en": ..., "zh": ...} (f-strings
# included, their literal parts) in the audit checker's modules.
_MESSAGE_MODULES = ("grade.py", "figure.py", "claims.py")


def _bilingual_strings(obj: Any) -> list[str]:
    """Every string of a {en: str, zh: str} mapping anywhere in YAML data: labels, feedback, reasons and
    messages a student reads (phrase lists are lists, so they are not collected)."""
    out: list[str] = []
    if isinstance(obj, dict):
        if isinstance(obj.get("en"), str) and isinstance(obj.get("zh"), str):
            out += [obj["en"], obj["zh"]]
        for v in obj.values():
            out += _bilingual_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            out += _bilingual_strings(v)
    return out


@functools.cache
def _code_messages() -> tuple[str, ...]:
    import ast

    out: list[str] = []
    here = Path(__file__).resolve().parent
    for name in _MESSAGE_MODULES:
        tree = ast.parse((here / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Dict):
                continue
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            if "en" not in keys or "zh" not in keys:
                continue
            for v in node.values:
                parts = v.values if isinstance(v, ast.JoinedStr) else [v]
                for p in parts:
                    for c in ast.walk(p):
                        if isinstance(c, ast.Constant) and isinstance(c.value, str):
                            out.append(c.value)
    return tuple(out)


def grader_texts(cl: dict, base_dir: Path) -> list[str]:
    """What the grader itself tells students (finding 2 of audit round 13: feedback pasted back into the
    audit earned 10.5/15): the checklist's bilingual strings, the YAML files named in
    ``handout.grader_files`` (the rubric's test descriptions) and the messages in the checker's code.
    A sentence copied from them earns nothing, as a copy of the handout does."""
    texts = _bilingual_strings({k: v for k, v in cl.items() if k not in ("handout",)})
    for name in (cl.get("handout") or {}).get("grader_files") or []:
        path = (base_dir / str(name)).resolve()
        try:
            texts += _bilingual_strings(yaml.safe_load(path.read_text(encoding="utf-8")))
        except (OSError, yaml.YAMLError) as exc:
            raise ChecklistError(f"handout.grader_files: cannot read {name} ({exc})") from None
    return texts + list(_code_messages())


@functools.lru_cache(maxsize=16)
def _compiled_from_key(key: str, base_dir: str) -> Checklist:
    return _compile_checklist(json.loads(key), Path(base_dir))


def compile_checklist(data: dict, base_dir: str | Path | None = None) -> Checklist:
    """Validate and compile checklist data (as read from the YAML); files it names (the handout) are
    relative to ``base_dir`` (default: the directory of the shipped checklist). Raises
    :class:`ChecklistError`. Compiled checklists are cached by content: the same data gives the same object."""
    base = Path(base_dir) if base_dir is not None else DEFAULT_CHECKLIST_PATH.parent
    return _compiled_from_key(json.dumps(data, sort_keys=True, ensure_ascii=False, default=str), str(base.resolve()))


def load_checklist(path: str | Path | None = None) -> Checklist:
    """Read, validate and compile a checklist YAML (default: the attention lab's)."""
    p = Path(path) if path is not None else DEFAULT_CHECKLIST_PATH
    with open(p, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return compile_checklist(data, p.parent)
