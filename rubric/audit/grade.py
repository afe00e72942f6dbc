"""Grading one audit against a compiled checklist: concepts, numbers, overclaims and the figure item."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from rubric.audit.checklist import Checklist, _bilingual, _Concept, _Item, _Metric
from rubric.audit.claims import _check_metric, _Claim, _extract_claims, _measured_value
from rubric.audit.figure import FigureReport, analyse_figure
from rubric.audit.text import (
    _CJK,
    _INDEX_LABEL,
    _blank,
    _claim_reading,
    _counterfactuals,
    _litotes_reading,
    _segment,
    _Sentence,
    _unclaimed_reading,
    _units,
    has_traditional,
)


class Bilingual(TypedDict):
    en: str
    zh: str


class AuditItem(TypedDict):
    id: str
    label: Bilingual
    found: bool
    points: float
    max_points: float
    feedback: Bilingual


class AuditFlag(TypedDict):
    """``kind``: "contradiction" (a reported number vs the grader's measurement), "overclaim",
    "copied" (sentences copied from the handout), "figure" (not the lab's 2x3 heatmap, or the text
    describes another shape or kind of figure, or, round 30, never refers to it or reads nothing in it),
    "claim_vs_tests" (a claim the student's own test results refute) or "injection" (instructions to the
    grader: the text earns no concept)."""

    kind: str
    message: Bilingual


class AuditResult(TypedDict):
    """What :func:`grade_audit` returns (docs/contracts.md §3)."""

    score: float
    max: float
    items: list[AuditItem]
    flags: list[AuditFlag]

# ==================================================================================================
# grading
# ==================================================================================================

# Which reason to give when a concept is found in several places but credited in none: the closest miss.
_REASON_ORDER = ("injection", "other_figure", "misread", "premise", "taken_back", "false_fact", "formula", "template", "unanchored", "colour_dark", "colour_light", "colour_blank", "colour_unmasked", "colour_no_figure", "colour_unknown", "requirement", "mismatch", "contradicted", "sentence_full", "foretold", "no_result", "no_setting", "unasserted", "planned", "others_figure", "too_short", "shown", "not_a_limit", "negated",
                 "question", "noncommittal", "keyword_line", "keyword_shape", "stuffed", "copied_feedback", "copied", "unread", "far", "bare")
# An observed number: a decimal, a power of ten, or an output shape; integers are the experiments' settings
# (d_k = 8..128, 1/4/16 queries, 2 padding keys).
_RESULT_NUMBER = re.compile(
    r"(?<![\w.])\d*\.\d+(?![\w.])|(?<![\w.])\d+(?:\.\d+)?\s*e\s*-?\d+\b|\^\s*-\d+|\(\s*\d+\s*(?:,\s*\d+\s*){1,4}\)")
_SHAPE_STATED = re.compile(r"(?<![\d.])([1-9])\s*[×x*]\s*([1-9])(?![\d.])")
# a row of weights written out: "[0.21, 0.58, 0.21]", "(0.09, 0.24, 0.67)"
_STATED_ROW = re.compile(r"[\[(]\s*(\d?\.\d+|[01])(?:\s*[,，、]\s*(?:\d?\.\d+|[01])){1,7}\s*[\])]")
_DECIMAL = re.compile(r"\d?\.\d+|[01]")
WEIGHT_TOLERANCE = 0.015          # values rounded to two decimals still match
# how closely the cells' lightness must follow the plotted weights (Pearson r, either sign) for the figure to
# tell which end of its colour scale is low: the lab's viridis example gives 0.99, a Blues one -0.99
LOW_END_CORRELATION = 0.8
_FIGURE_WORDS = re.compile(r"heat\s*map|figure|plot|image|picture|grid|图|热力图|格子")
# a cell named by its index ("q5", "query 5", "row 6", "key_7", "column 4"; group 1: a row, group 2: a column)
_CELL_EN = re.compile(r"(?=[qkrc])(?<![a-z0-9_])(?:(q|query|row)|(k|key|column|col))(?:\s*#\s*|_|\s?)(\d{1,3})(?![\d.])")
_CELL_ZH = re.compile(r"第\s*(\d{1,3}|[一二三四五六七八九十]{1,3})\s*(?:行|列)")
_EXPERIMENT = re.compile(r"experiment|\bexp\b|\bpad(?:ded|ding|s)?\b|\bbatch|实验|填充|批")
_ZH_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _zh_number(text: str) -> int | None:
    """"4" -> 4, "四" -> 4, "十二" -> 12."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        head, _, tail = text.partition("十")
        return (_ZH_DIGITS.get(head, 1) if head else 1) * 10 + (_ZH_DIGITS.get(tail, 0) if tail else 0)
    return _ZH_DIGITS.get(text)


# Between what an experiment measures and its value ("the entropy without scaling dropped from 1.9 to
# 0.2", "输出形状分别是 (1, 8)"): at most this many characters, no end of statement and no reference
# ("see page 0.5", "第 3.2 节"); a value may also come just before its quantity ("0.12 nats of entropy").
_MEASURE_GAP = 60
_MEASURE_GAP_AFTER = 16
_GAP_STOP = re.compile(r"[;。；]|\b(?:page|pp?\.|section|sec\.|chapter|fig(?:ure)?\.?|table|line|eq\.?|equation|"
                       r"version|step|see)\b|§|第\s*\S{0,4}(?:页|节|章|行|步)|见")


# what a plan or an expectation says, not an observation
_PLANNED = re.compile(r"\b(?:should|would|will|expect\w*|check(?:s|ed)? (?:that|if)|supposed to|must|want\w*|plan\w*)\b|"
                      r"应该|应当|预期|期望|检查|需要|要求|计划|打算|理论上")
# an observation said to meet an expectation ("the diagonal is bright, as expected", "..., as a self-attention should",
# 对角线最亮，符合预期): the reading is still stated, so the plan words in this remark do not make it a plan (round 33:
# "In my heatmap the diagonal is bright, as expected for self-attention." escaped the check of cells it reads)
_AS_EXPECTED = re.compile(
    r"\b(?:just |exactly )?as (?:(?:i|we|one|you) (?:would |might |had |did )?)?(?:expected|predicted|hoped|anticipated)\b"
    r"|\b(?:just |exactly )?as (?:(?:a|an|the|any|my|it|they|this|one)\b[^,;.]{0,30}?)?\b(?:should|would|must)(?: do| be)?"
    r"(?=\s*(?:[,;.)]|$))"
    r"|\b(?:unsurprisingly|as one would expect|in line with (?:my |the |our )?expectations?|(?:consistent|in agreement) with "
    r"(?:what (?:i|we) |my |the |our )?expect\w*)\b"
    r"|正如(?:我们?)?(?:所)?预期(?:的那样)?|如(?:我们?)?预期(?:的那样|一样)?|符合(?:我的|我们的)?预期|(?:和|与|跟)(?:我的|我们的)?预期(?:一样|一致|相符)|不出所料")


# A result foretold, not observed (round 34: "For experiment A I will compare the entropy ...: the entropy should fall from
# about 1.05 to 0.12", 熵应该从约 1.05 降到 0.12, earned experiments 3 of 3 with no run behind it): a plan word in the stretch
# of the statement before the result, back to the last point where a new statement starts (a semicolon, "so", ", and",
# "I got", 所以, 结果; not a colon, which goes on with the plan: "I will compare the entropy: with d_k = 128 ..."). "I planned to check the mask, so I set k2 to -inf: its weight became 0.0" reports what happened.
_FORETOLD = re.compile(r"\b(?:should|would|will|'ll|shall|expect(?:s|ing|ations?)?|supposed to|going to|plan(?:s|ning)?|"
                       r"intend(?:s|ing)?|predict(?:s|ing|ions?)?|hope(?:s|ing)?|want(?:s|ing)?|might|may|ought to|goals?|aims?|"
                       r"to[\s-]?do)\b|但愿|\[\s\]|应该|应当|预期|期望|预计|预测|计划|打算|准备|"
                       r"将会|将要|将(?=为|是|比较|检查|加入|测|记录|对比|运行|得到|变|降|升|保持)|我会|我们会|目标|待做|待完成|未完成|"
                       r"会(?=\s*(?:是|变|降|升|得到|保持|成为|等于|接近|趋近|放大|缩小))|希望|估计")
_RESULT_START = re.compile(r"[;；]|\b(?:so|then|thus|hence|after that|afterwards|in the end|in fact|actually|in practice|results?|"
                           r"but|however|(?:i|we) (?:got|saw|found|measured|observed))\b|,\s*and\b|所以|因此|于是|结果|然后|之后|最后|实际上|事实上|"
                           r"实测|测得|我(?:们)?(?:得到|看到|发现)|(?<!不)但(?!愿)是?|却|可是|"
                           # what a report announces is the report ("I will report my parity check: max_abs_error = ..."),
                           # unless what it announces are predictions ("I will report my predictions: ...")
                           r"\b(?:report|present|summari[sz]e)\w*\b(?![^:：.;。；]{0,60}(?:predict|expect|plan|hope|guess))"
                           r"[^:：.;。；]{0,60}[:：]|(?:报告|汇报)(?![^:：.;。；]{0,30}(?:预测|预期|计划|猜测|估计))[^:：.;。；]{0,30}[:：]")
# A result seen, after the plan word: "I wanted to see what scaling does: ... the entropy fell from 1.05 to 0.12".
_SEEN = re.compile(r"\b(?:fell|dropped|rose|decreased|increased|became|went (?:down|up)|came out|turned out|ended up|reached|"
                   r"got|measured)\b|(?:降|升|变|减|增|涨|跌)(?:低|高|大|小)?(?:到|为|成|至)了|达到了")
# ... unless the verb is itself in the future or a question: "will have dropped", "check whether it dropped", 是否降到了
_UNSEEN_BEFORE = re.compile(r"\b(?:will|would|should|shall|must|might|may|could)\s+have\b[^.;:]*$|\b(?:whether|if)\b|"
                            r"是否|有没有|会不会")


# how far before a result its plan word is looked for: a statement's own words, and linear time on a line of 60,000
# characters of numbers
_PLAN_REACH = 240


def _foretold(text: str, pos: int) -> bool:
    """Is what ``text`` states at ``pos`` a plan or a prediction (:data:`_FORETOLD` after the last start of a
    statement before it, :data:`_RESULT_START`), not a result that was seen?"""
    head = text[max(0, pos - _PLAN_REACH):pos]
    starts = [m.end() for m in _RESULT_START.finditer(head)]
    stretch = _AS_EXPECTED.sub(" ", head[starts[-1] if starts else 0:])
    plans = [m.end() for m in _FORETOLD.finditer(stretch)]
    return bool(plans) and not any(_UNSEEN_BEFORE.search(stretch[max(0, m.start() - 40):m.start()]) is None
                                   for m in _SEEN.finditer(stretch, plans[-1]))


# The future of the student's own plan ("I will add two padding keys; ... their weight will be 0.0 and the rows will still
# sum to 1", 我会加两个 padding key；……它们的权重会是 0.0): what the student means to do, so what it says of the figure or
# the run is not yet seen. Only where the student says it is their plan (:data:`_PLAN_AGENT`, in the sentence or the one
# before it in the paragraph): "a masked key will get weight 0" alone states a fact of softmax, and "should" / 应该 also
# derive one ("each row should sum to 1, because softmax normalises over the keys", round 33), nor with its reason.
_PLAN_AGENT = re.compile(r"\b(?:i|we)(?:'ll|'m going to|'re going to| will| shall| am going to| are going to| plan\w*| intend\w*|"
                         r" want to| would like to| am about to)\b|\blet's\b|我们?(?:会|将|打算|准备|计划|想要|要去)|打算|准备|计划")
_FUTURE = re.compile(r"\b(?:will|'ll|shall|going to|plan(?:s|ned)? to|intend\w* to|am about to)\b|打算|准备|计划|将会|将要|"
                     r"会|预计")
_REASONED = re.compile(r"\b(?:because|since|as softmax|given that)\b|因为|由于")
# A step of the same plan (review R2, round 35: "Next week I am going to rerun it, and then q1 attends most to k2" earned the
# peak as a reading): "then", ", and then", "after that", 然后, 之后 go on with a future the student has just stated (will,
# going to, 打算, 会; not "planned to", which reports one), unless what follows is seen ("..., and then it fell to 0.1").
_NEXT_STEP = re.compile(r"(?:,\s*and|\bthen|\bafter that|\bafterwards|然后|之后|接着)\s*$")
_PLAIN_FUTURE = re.compile(r"\b(?:will|'ll|shall|going to|intend\w* to|am about to)\b|打算|准备|将会|将要|我们?会|计划(?!了)")


def _future_at(sentences: list[_Sentence], idx: int, pos: int) -> bool:
    """Is the statement at ``pos`` of sentence ``idx`` in the future of the student's own plan (:data:`_FUTURE` after the
    last start of a statement, as :func:`_foretold`, with :data:`_PLAN_AGENT` in this sentence or the one before it of
    the same paragraph), and given without its reason?"""
    s = sentences[idx]
    head = s.text[max(0, pos - _PLAN_REACH):pos]
    starts = [m.end() for m in _RESULT_START.finditer(head)]
    k = len(starts)
    while k and _NEXT_STEP.search(head[:starts[k - 1]]) and _SEEN.search(head[starts[k - 1]:]) is None:
        k -= 1              # "..., and then q1 attends most to k2": a next step of what comes before it
    if k < len(starts) and _FUTURE.search(head[starts[-1]:]) is None \
            and _PLAIN_FUTURE.search(head[starts[k - 1] if k else 0:starts[-1]]):
        starts = starts[:k]
    if _FUTURE.search(head[starts[-1] if starts else 0:]) is None or _REASONED.search(s.text):
        return False
    before = sentences[idx - 1] if idx > 0 and sentences[idx - 1].para == s.para else None
    return _PLAN_AGENT.search(s.text) is not None or (before is not None and _PLAN_AGENT.search(before.text) is not None)


# A metric's value predicted, not measured (round 34: "I expect max_abs_error = 1e-7 and row_sum_error = 1e-8 once I run
# the comparison" earned parity 2 of 3): the student's expectation before it in its statement. Narrower than
# :data:`_FORETOLD`: "max_abs_error should be below 1e-5 and is 2.6e-7" and "I wanted to check parity: ..." report one.
_PREDICTED = re.compile(r"\b(?:i|we) (?:(?:also |still )?(?:expect|predict|anticipate|hope)\w*|will|'ll|plan\w* to|am going to)\b|"
                        r"\bexpected to (?:be|come out)\b|\bshould (?:be|come out|end up)(?!\s*(?:below|under|less|smaller|lower|within|<))\b|"
                        r"预计|预期|应该(?:是|为|在)|将会是|会是")


def _predicted(text: str, pos: int) -> bool:
    """Is the metric value at ``pos`` of ``text`` a prediction (:data:`_PREDICTED` since the last start of a statement)?"""
    head = text[max(0, pos - _PLAN_REACH):pos]
    starts = [m.end() for m in _RESULT_START.finditer(head)]
    return _PREDICTED.search(head[starts[-1] if starts else 0:]) is not None


def _planned(text: str) -> bool:
    """Does ``text`` state a plan or an expectation rather than what was seen (:data:`_PLANNED`, outside a remark that
    what was seen met the expectation, :data:`_AS_EXPECTED`)?"""
    return _PLANNED.search(_AS_EXPECTED.sub(" ", text)) is not None


def _measured_number(measures: Any, text: str, number: re.Match) -> bool:
    """Is ``number`` a value of one of the quantities ``measures`` names, in ``text``?"""
    for m in measures.finditer(text):
        if m.end() <= number.start():
            gap = text[m.end():number.start()]
            if len(gap) <= _MEASURE_GAP and not _GAP_STOP.search(gap):
                return True
        elif number.end() <= m.start():
            gap = text[number.end():m.start()]
            if len(gap) <= _MEASURE_GAP_AFTER and not _GAP_STOP.search(gap) and "," not in gap:
                return True
    return False


def _observed(cc: Checklist, sentences: list[_Sentence], idx: int, concept: _Concept | None = None,
              foretold: bool = False) -> bool:
    """An observed result in this sentence, or in the next one of the same paragraph/bullet: a before/after
    word (cues.observed), or a result number tied to what the experiment measures (the concept's
    ``measures``; a number elsewhere, "see page 0.5", "d_k = 64", is no result of it). Not one foretold by a plan
    (:func:`_foretold`), unless ``foretold`` (asked only to say why a concept earned nothing)."""
    s = sentences[idx]
    texts = [s.text]
    if idx + 1 < len(sentences) and sentences[idx + 1].para == s.para:
        texts.append(sentences[idx + 1].text)
    measures = concept.measures if concept is not None else None
    for t in texts:
        unplanned = foretold or _FORETOLD.search(t) is None     # once a text: a line may hold thousands of numbers
        if any(unplanned or not _foretold(t, m.start()) for m in cc.observed.finditer(t)):
            return True
        for n in _RESULT_NUMBER.finditer(t):
            if (measures is None or _measured_number(measures, t, n)) and (unplanned or not _foretold(t, n.start())):
                return True
        # a zero is a setting nowhere in these experiments: next to what is measured ("the padded columns
        # were exactly 0") it is a result, however it is written ("0", "0.0000", "0e0"); not in a plan or a
        # question ("检查权重是否为 0", "the weight should be 0")
        if measures is not None and cc.zero is not None and not _PLANNED.search(t) \
                and not cc.embedded_question.search(t) and not cc.hedge.search(t):
            if any(_measured_number(measures, t, z) and (unplanned or not _foretold(t, z.start()))
                   for z in cc.zero.finditer(t)):
                return True
    return False


def _names_setting(concept: _Concept, sentences: list[_Sentence], idx: int) -> bool:
    """Whether the sentence, another of its paragraph or bullet or of the one before, or any heading that encloses it
    names what the experiment varies (the concept's ``setting``: scaling, d_k or the key dimension for experiment A, or the
    experiment's name). A value with none ("the entropy is exactly 0.42") is a number of no run the student says they
    made (round 36). Round 36b (review R4): every enclosing heading ("## Experiment A" above "### Results"), and the
    paragraph before (a setting stated first, its result next), not only the nearest heading and the own paragraph."""
    para = sentences[idx].para
    paras = {para}
    depth = 8                       # the shallowest heading seen so far: only a shallower one encloses it
    for j in range(idx, -1, -1):
        s = sentences[j]
        if s.is_heading:
            if s.level < depth:
                if s.find(concept.setting):
                    return True
                depth = s.level
            continue
        if s.para not in paras and len(paras) < 2 and depth == 8:
            paras.add(s.para)       # the paragraph just before, in the same section
        if s.para in paras and s.find(concept.setting):
            return True
    return any(s.para == para and s.find(concept.setting) for s in sentences[idx + 1:idx + 4])


def _contradicted(concept: _Concept, s: _Sentence, m: re.Match) -> bool:
    """A statement of the opposite (``contradicted_by``: "columns are queries", "each column sums to 1") in
    the clause of the match ``m``, not negated: the words of the concept are there, its fact is not."""
    if concept.contradicted_by is None:
        return False
    clauses = {id(s.clause_at(m.start())), id(s.clause_at(max(m.start(), m.end() - 1)))}
    for x in s.find(concept.contradicted_by):
        if s.negated(x.start(), x.end(), context=False):
            continue
        if id(s.clause_at(x.start())) in clauses or (x.start() < m.end() and x.end() > m.start()):
            return True
    return False


# round 46 mend (review RA HIGH 4): "only one seed" states the generality limit only in a sentence that does not say the
# result generalises ("I only ran one seed, and the result holds for every input", 只跑了一个 seed，结论可以推广到所有输入,
# "Just one example is enough to show that k2 always matters"), and "not only one seed" / 不只 denies it
_GENERALISES = re.compile(r"\bgenerali[sz]\w*|\bholds?\s+(?:for|on|in|across)\s+(?:every|all|any)\b|"
                          r"\b(?:for|on|to|across)\s+(?:all|every|any)\s+(?:other\s+)?(?:inputs?|examples?|seeds?|cases?|data|"
                          r"sentences?)\b|\balways\b|\benough\s+to\s+(?:show|prove|conclude)\b|\bthe\s+same\s+for\s+all\b|"
                          r"推广|泛化|所有|任何|一切|总是|都适用|都成立", re.IGNORECASE)
_NOT_ONLY = re.compile(r"(?:\bnot|n't|不)\s*$", re.IGNORECASE)
# round 47: a generalisation the writer declines ("所以我不会推广", 不能推广: 我不会 is the writer's own action, no negation of
# the sentence) states the limit, it does not claim the result generalises
# (mend, review RA L1: not the 别 that ends a word, 区别 / 分别 / 类别 / 特别: "没有区别所有输入" declines nothing)
_DECLINED = re.compile(r"(?:不|无法|没法|不能|不会|不可以?|(?<![区分类差级性特告识辨鉴派个])别|不要)\s*(?:再)?\s*$")


def _stated(concept: _Concept, s: _Sentence) -> tuple[bool, bool]:
    """(found, stated as the concept means it) for one sentence.

    plain: every phrase group has a match outside the scope of a negation ("rows are not queries" states
    nothing); caveat: the keyword is inside the scope of a negation or warning, or in a "cannot prove"
    section (intensifiers such as "no doubt"/不用怀疑 are not negations). The opposite statement in the
    same clause is :func:`_stated_the_other_way`, asked only of sentences that would earn the concept."""
    first = s.find(concept.groups[0])
    if not first or not all(s.find(g) for g in concept.groups[1:]):
        return False, False
    if concept.mode == "caveat":
        # ... not in a claim a retraction bracket takes back: its only negation is the retraction (round 41)
        kept = [m for m in first if not (s.retracted and s.denied is not None and s.denied[0] <= m.start() < s.denied[1])]
        if any(s.negated(m.start(), m.end()) for m in kept):
            return True, True
        alone = concept.stated_alone is not None and any(
            not s.negated(m.start(), m.end(), context=False) and not _NOT_ONLY.search(s.text, 0, m.start())
            for m in s.find(concept.stated_alone)) and not any(
            not s.negated(m.start(), m.end(), context=False) and not _DECLINED.search(s.text, 0, m.start())
            for m in _GENERALISES.finditer(s.text))
        return True, alone
    ok = all(any(not s.negated(m.start(), m.end(), context=False) for m in s.find(g)) for g in concept.groups)
    return True, ok


def _stated_the_other_way(concept: _Concept, s: _Sentence) -> bool:
    """Every affirmed match of one of the concept's phrase groups has the opposite statement in its clause
    ("the columns are queries and the rows are keys" holds the words of "rows ... queries")."""
    if concept.contradicted_by is None or not s.find(concept.contradicted_by):
        return False
    for g in concept.groups:
        affirmed = [m for m in s.find(g) if not s.negated(m.start(), m.end(), context=False)]
        if affirmed and all(_contradicted(concept, s, m) for m in affirmed):
            return True
    return False


# a line or heading that announces keywords (round 36); not 标签 / "labels", a figure's axis labels (review R4)
_KEYWORD_LABEL = re.compile(r"\W*(?:key\s*words?|keywords?|key\s*terms?|tags?|buzzwords?|关键词|关键字|关键概念)(?:\s*[:=]|$)")
# the label a line opens with ("Summary:", 要点：), dropped before the line's shape is read
_LINE_LABEL = re.compile(r"^[^:;]{1,16}:")
# what makes a short part of a line a note rather than a term: an operator, a reading's decimal value
_NOTE_MARK = re.compile(r"[=:<>→]|->|\d\.\d")
# a single word or term ("causality", 重要性): two of them among the parts make the list; a line of short limits
# ("one example; one seed; small grid") has none
_ONE_TERM = re.compile(r"[a-z][a-z-]*|[\u4e00-\u9fff]{1,4}")


def _keyword_shaped(cc: Checklist, line: str) -> bool:
    """A line whose parts, cut at its semicolons, are mostly bare terms ("causality; importance; one example; padding 0"):
    a list of keywords whatever its label says ("Summary:", 要点：; review R4: only "Keywords:" was read so). A bare term is
    short (at most 4 units), with no operator, no decimal and no negation, and two or more are a single word or term:
    "not causal; one seed; no ablation", "one example; one seed; 2x3 grid" and "rows = queries; cols = keys" are terse
    notes, not keywords."""
    parts = [p.strip(" .。") for p in _LINE_LABEL.sub("", line, count=1).split(";")]
    parts = [p for p in parts if p]
    bare = [p for p in parts if _units(p) <= 4 and not _NOTE_MARK.search(p) and not cc.negation.search(p)]
    words = [p for p in bare if _ONE_TERM.fullmatch(p)]
    return len(parts) >= 4 and len(bare) >= 3 and 2 * len(bare) >= len(parts) and len(words) >= 2


def _keyword_lists(cc: Checklist, sentences: list[_Sentence], concepts: list[_Concept]) -> set[int]:
    """Sentences with a clause that names ``settings.keyword_list_concepts`` or more concepts and metrics:
    "row query column key sums to 1 masked 0 reading budget" is a list of keywords, not a statement."""
    out: set[int] = set()
    # a statement of one concept that states others by definition (experiment B: padding keys get weight 0
    # and rows still sum to 1) is one point, not three keywords
    implies = {c.id: set(c.implies) for c in concepts}
    pats = [(c.id, c.groups[0]) for c in concepts] + [(mid, m.names) for mid, m in cc.metrics.items()]
    listed: set[int] = set()      # lines (or bullets) announced as keywords, or shaped as a list of them
    under: int | None = None      # the line a "Keywords" heading's list may continue on (review R4: not its section)
    lines: dict[int, list[str]] = {}
    for idx, s in enumerate(sentences):
        if s.is_heading:
            under = -1 if _KEYWORD_LABEL.fullmatch(s.text.strip(" #*:")) is not None else None
            continue
        if s.is_code:
            continue
        lines.setdefault(s.para, []).append(s.text)
        if under is not None and (under == -1 or s.para in (under, under + 1)):
            # the list right under the heading: its first line and the lines that follow it without a blank line
            listed.add(s.para)
            under = s.para
        else:
            under = None
            if _KEYWORD_LABEL.match(s.text) and (idx == 0 or sentences[idx - 1].para != s.para):
                listed.add(s.para)
    shaped = {p for p, texts in lines.items() if p not in listed and _keyword_shaped(cc, ";".join(texts))}
    for idx, s in enumerate(sentences):
        if s.is_code or s.is_heading or not s.eligible:
            continue
        if s.para in listed or s.para in shaped:
            # a line that calls itself keywords ("Keywords: rows are q0, q1; causality; ablation; ...", 关键词：) lists
            # words, whatever its semicolons cut it into (round 36: its parts were read as statements, 4/15); so does
            # one shaped as such a list under another label ("Summary: ...; causality; importance; ...", review R4)
            s.keyword_line = "label" if s.para in listed else "shape"
            out.add(idx)
            continue
        hits = [(cid, ms) for cid, pat in pats if (ms := s.find(pat))]
        if len(hits) < cc.keyword_list_concepts:
            continue
        # a metric given its value states a measurement, not a keyword (round 18: "my output matches
        # scaled_dot_product_attention with max_abs_error = 2.6e-7 and row_sum_error = 1.1e-7" was a keyword list)
        valued = {cl.metric for cl in _extract_claims(cc, s)[0] if cl.value is not None} if any(
            cid in cc.metrics for cid, _ms in hits) else set()
        hits = [(cid, ms) for cid, ms in hits if cid not in valued]
        if len(hits) < cc.keyword_list_concepts:
            continue
        per_clause: dict[int, set[str]] = {}
        for cid, ms in hits:
            for m in ms:
                per_clause.setdefault(s.clause_at(m.start()).start, set()).add(cid)
        for ids in per_clause.values():
            implied = set().union(*(implies.get(i, set()) for i in ids))
            if len(ids - implied) >= cc.keyword_list_concepts:
                out.add(idx)
                break
    return out


def _stated_shapes(sentences: list[_Sentence]) -> list[tuple[int, int]]:
    """The shapes the text gives its figure ("my 8x8 heatmap", "这张 2×3 的图")."""
    return [(int(m.group(1)), int(m.group(2))) for s in sentences if not s.is_code and _FIGURE_WORDS.search(s.text)
            for m in _SHAPE_STATED.finditer(s.text)]


def _anchor_number(cc: Checklist, text: str) -> bool:
    """A value of the student's own run in ``text``: a decimal, a power of ten or an output shape that is no
    lab threshold ("< 1e-6") and no bare 0 or 1 ("sums to 1.0"), in a sentence that says what it measures
    (anchor.quantities or a metric's name): "I saw the values 0.31 and 0.77" measures nothing."""
    if not cc.anchor_quantities.search(text) and not any(m.names.search(text) for m in cc.metrics.values()):
        return False
    thresholds = {m.threshold for m in cc.metrics.values()}
    for n in _RESULT_NUMBER.finditer(text):
        try:
            v = float(n.group().replace(" ", ""))
        except ValueError:
            return True
        if v not in thresholds and v not in (0.0, 1.0):
            return True
    return False


def _outside_grid(sentences: list[_Sentence], shape: tuple[int, int]) -> str | None:
    """A cell the text names that the uploaded grid does not have ("query 5", "key 7", "第 4 行"), outside the
    experiments (their tensors are larger: padding keys, 16 queries). Indices may count from 0 or 1, so only
    one past the last in both counts is outside: row/query 3+ and column/key 4+ of a 2x3 grid; 第 N 行/列 (either
    reading of 行 and 列) past the larger side."""
    rows, cols = shape
    joined = "\n".join(s.text for s in sentences)      # one scan first: most texts name no cell outside
    if not any((m.group(1) and int(m.group(3)) > rows) or (m.group(2) and int(m.group(3)) > cols)
               for m in _CELL_EN.finditer(joined)) and not any(
            (n := _zh_number(m.group(1))) is not None and n > max(rows, cols) for m in _CELL_ZH.finditer(joined)):
        return None
    for s in sentences:
        if s.is_code or _EXPERIMENT.search(s.text):
            continue
        for m in _CELL_EN.finditer(s.text):
            n = int(m.group(3))
            if (m.group(1) and n > rows) or (m.group(2) and n > cols):
                return m.group().strip()
        for m in _CELL_ZH.finditer(s.text):
            n = _zh_number(m.group(1))
            if n is not None and n > max(rows, cols):
                return m.group()
    return None


def _anchoring(cc: Checklist, sentences: list[_Sentence], report: FigureReport | None,
               formula: _Formula | bool = False) -> tuple[str | None, dict[str, str] | None]:
    """Is the text about the student's own figure? (None, None) when it is; ("other_figure", message) when it
    names its figure as another kind of figure, gives it only shapes the uploaded grid does not have or names
    cells the grid does not have; ("unanchored", None) when a text of ``anchor.min_units`` or more never
    refers to the figure or run; ("unread", None) when it refers to the figure but reads nothing in it
    (:func:`_reads_the_figure`)."""
    own = [s for s in sentences if not s.copied and not s.unseen]
    for s in own:
        if s.is_code or s.is_question or not cc.self_figure.search(s.text):
            continue
        for m in s.find(cc.other_figure):
            if not s.negated(m.start(), m.end(), context=False):
                what = m.group()
                return "other_figure", {
                    "en": f"Your text describes your figure as a {what}, not as the attention heatmap of the lab's "
                          "example; a text about another figure earns nothing for what the heatmap shows or cannot show.",
                    "zh": f"你的文字把你的图描述为「{what}」，而不是实验例子的 attention heatmap；"
                          "描述另一张图的文字不能为 heatmap 能说明或不能说明什么得分。"}
    joined = "\n".join(s.text for s in own)
    if report is not None and report.shape is not None:
        if _SHAPE_STATED.search(joined):
            shapes = _stated_shapes(own)
            if shapes and report.shape not in shapes:
                return "other_figure", None     # the figure flag says which shape (_stated_shape_flag)
        cell = _outside_grid(own, report.shape)
        if cell:
            r, c = report.shape
            return "other_figure", {
                "en": f"Your text names \"{cell}\", a cell the submitted {r}×{c} heatmap does not have: it describes "
                      "another figure, and earns nothing for what the heatmap shows or cannot show.",
                "zh": f"你的文字提到「{cell}」，而提交的 {r}×{c} heatmap 没有这个格子：它描述的是另一张图，"
                      "不能为 heatmap 能说明或不能说明什么得分。"}
    referred = any(_refers(cc, s, cc.anchor, formula) for s in own) if formula else bool(cc.anchor.search(joined))
    if (referred and _reads_the_figure(cc, own, formula)) or any(_anchor_number(cc, s.text) for s in own):
        return None, None
    if _units("\n".join(s.text for s in own if not s.is_heading)) < cc.anchor_min_units:
        return None, None
    if formula and cc.anchor.search(joined):
        # referred to only by "the heatmap shows that", which it also says of its caveats, or by a repeated opener
        return ("formula" if getattr(formula, "said", True) else "template"), None
    # "My heatmap is attached above." after an essay: the figure is named, nothing in it is read
    return ("unread" if referred else "unanchored"), None


def _reads_the_figure(cc: Checklist, own: list[_Sentence], formula: _Formula | bool = False) -> bool:
    """Does a text that refers to the figure (anchor.phrases) also say what it sees in it (anchor.readings in
    the referring sentence: "my heatmap has the queries as rows", "in my figure the weight of the key is 0.8";
    or anchor.sights anywhere: "the diagonal is bright")? An essay on attention in general with "My heatmap
    is attached above." appended reads nothing (audit round 15: it scored 11/15)."""
    if cc.anchor_readings is None:
        return True
    return any(not s.is_code and cc.anchor_sights.search(s.text) for s in own) or any(
        _refers(cc, s, cc.anchor, formula) and cc.anchor_readings.search(s.text) and not _AS_A_RULE.search(s.text)
        for s in own)


# what heatmaps show as a rule, not what this one shows (round 31: an essay with "我的热力图展示了这一过程。一般来说，
# 热力图中每一行对应一个查询……" read its figure through the rule and scored 9/15)
_AS_A_RULE = re.compile(r"\b(?:usually|typically|generally|in general|as a rule|normally|commonly|in most cases)\b|"
                        r"一般来说|一般而言|一般情况下|通常|往往|一般地")


def _plotted(report: FigureReport | None, weights: Sequence[Sequence[float]] | None,
             per_cell: Sequence[float]) -> list[float] | None:
    """The weights, row by row, when the figure's grid has their shape, ``per_cell`` holds a value for each of its
    cells and the weights differ (equal weights tell nothing of a colour scale); else None."""
    if report is None or not per_cell or not weights:
        return None
    try:
        w = [float(x) for row in weights for x in row]
    except (TypeError, ValueError):
        return None
    if len(weights) != report.rows or len(w) != len(per_cell) or max(w) - min(w) < 0.05:
        return None
    return w


def _low_end(report: FigureReport | None, weights: Sequence[Sequence[float]] | None) -> str | None:
    """Which end of the uploaded figure's colour scale is low: "dark" (viridis, rocket, magma) or "light" (Blues,
    Greys, Reds), from the lightness of its cells against the weights the student's code computes for the lab's
    example (what the figure plots); None when the figure is not that grid or its cells do not follow the
    weights either way (another example, equal weights). Reversed colour maps share one curve
    (rubric/audit/figure.py), so the figure alone cannot tell."""
    w = _plotted(report, weights, report.lightness if report is not None else ())
    if w is None:
        return None
    drawn = [(x, y) for x, y in zip(w, report.lightness, strict=True) if not (_masked_blank(report, weights) and x <= MASKED_WEIGHT)]
    r = correlation([x for x, _y in drawn], [y for _x, y in drawn])
    if r is None:
        return None
    return "dark" if r >= LOW_END_CORRELATION else "light" if r <= -LOW_END_CORRELATION else None


# lightness of a cell that shows the page (matplotlib leaves a NaN or a masked entry undrawn, seaborn's mask= too):
# white, whatever the colour map (rubric.audit.figure takes a region this light for the page)
BLANK_LIGHTNESS = 235


def _masked_blank(report: FigureReport | None, weights: Sequence[Sequence[float]] | None) -> bool:
    """Are the masked keys' cells (weight 0) of the figure left blank, as light as the page, while the other cells
    are drawn on the colour scale (round 29: a masked key read as "white" on viridis was told that 0 is the darkest
    colour, and one read as "black" was credited)? Then a masked key's colour is white whatever the colour map."""
    w = _plotted(report, weights, report.lightness if report is not None else ())
    if w is None:
        return False
    masked = [y for x, y in zip(w, report.lightness, strict=True) if x <= MASKED_WEIGHT]
    return bool(masked) and len(masked) < len(w) and min(masked) > BLANK_LIGHTNESS


# how closely the order of the cells' colours along their colormap must follow the weights (Spearman, either sign: a
# reversed map) for the figure to plot them (round 26): the lab's figure drawn on any known colormap gives 0.95 and
# more; a 2x3 heatmap of other numbers (a random matrix, another example) mostly less
FIGURE_FOLLOWS_WEIGHTS = 0.7


def ranks(xs: Sequence[float]) -> list[float]:
    """Ranks from 0, ties sharing their mean rank (also bench/audit_validation.py's Spearman)."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] - xs[order[i]] <= 1e-9:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def correlation(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Pearson's r of two equally long sequences; None when either is constant."""
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    sa = math.sqrt(sum((x - ma) ** 2 for x in a))
    sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    if sa < 1e-9 or sb < 1e-9:
        return None
    return sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True)) / (sa * sb)


def _plots_other_weights(report: FigureReport | None, weights: Sequence[Sequence[float]] | None) -> bool:
    """Does the lab's grid plot other numbers than the weights the student's code computes for the lab's example (round
    26)? Only when that can be told: every cell seen on a known colormap (``report.positions``), weights that differ,
    and neither the cells' lightness nor their order along the colormap following the weights."""
    w = _plotted(report, weights, report.positions if report is not None else ())
    if w is None or max(report.positions) - min(report.positions) < 8:
        return False
    light = correlation(w, report.lightness) if len(report.lightness) == len(w) else None
    if light is not None and abs(light) >= LOW_END_CORRELATION:
        return False
    order = correlation(ranks(w), ranks(report.positions))
    return order is not None and abs(order) < FIGURE_FOLLOWS_WEIGHTS


MASKED_WEIGHT = 1e-3        # a masked key's weight is exactly 0 (softmax of -inf); at most this is a masked cell


def _no_masked_cell(weights: Sequence[Sequence[float]] | None) -> bool:
    """Are the student's weights of the lab's example (what the figure plots) all above a masked key's 0?"""
    try:
        return bool(weights) and min(float(x) for row in weights for x in row) > MASKED_WEIGHT
    except (TypeError, ValueError):
        return False


def _unseen_colours(cc: Checklist, sentences: list[_Sentence]) -> None:
    """Mark the sentences that give a masked key a colour (audit.yaml anchor.masked_colour), when the figure shows no
    masked key: "the masked positions appear as the darkest colour in the figure" read nothing in it, so one such
    line does not tie an essay on attention in general to the figure (round 22: 10 -> 2)."""
    for s in sentences:
        if not s.is_code and s.find(cc.anchor_masked_colour):
            s.unseen = True


def _reads(cc: Checklist, s: _Sentence, formula: _Formula | bool = False) -> bool:
    """Does this sentence read the student's figure or run: something seen (anchor.sights, not negated), a reference
    with a reading ("in my heatmap q0 attends most to k2", a cell) or a measured value?"""
    if s.is_code or s.is_heading or s.unseen:
        return False
    if (_refers(cc, s, cc.anchor, formula) and cc.anchor_readings is not None and cc.anchor_readings.search(s.text)) \
            or _anchor_number(cc, s.text):
        return True
    # something seen, not denied: "a bright cell does not prove a causal effect" (亮的格子并不能证明) sees nothing
    return any(not s.negated(m.start(), m.end(), context=False) for m in s.find(cc.anchor_sights))


def _far_from_figure(cc: Checklist, sentences: list[_Sentence], formula: _Formula | bool = False) -> set[int]:
    """Sentences of a long text that earn no concept because they are about attention in general (audit round 18).

    One sentence that reads the figure anchors a text as a whole (round 15), so a generic essay plus "In my
    heatmap q0 attends most to k2." scored 11/15. When the sentences that read the figure hold less than
    anchor.min_reading_share of a long text's units, only the paragraphs (or lists) that read it or speak of the student's
    own figure or case (anchor.own_case: "this heatmap", "This does not prove ...", "I ran one
    seed", 这不能证明, 它也看不出) earn concepts. Honest audits read their figure in several sentences (a share of
    0.18 or more in tests/audit/honest and validation), and their caveats a paragraph away point back at it."""
    body = [s for s in sentences if not s.is_code and not s.is_heading]
    if not cc.anchor_min_reading_share or sum(_units(s.text) for s in body) < cc.anchor_min_units:
        return set()
    # the share counts cells and values as words ("q0 peaks at k1 (0.58)" is 11 of them, 3 for _units): a reading
    # dense in numbers is as long as it looks
    total = sum(_share_units(s.text) for s in body)
    # stop at the share: a text that reads its figure is whole after a few of its sentences (a 20 KiB audit's cost)
    needed, seen = cc.anchor_min_reading_share * total, 0.0
    read_ids: set[int] = set()
    for s in body:
        if _reads(cc, s, formula):
            read_ids.add(id(s))
            seen += _share_units(s.text)
            if seen >= needed:
                return set()
    if not read_ids:
        return set()     # no reading at all is _anchoring's case (unanchored / unread)
    blocks = _blocks(sentences)
    # a reference alone ties nothing: "interpreting these matrices requires care" names matrices in general. A sentence
    # that points back ("This does not prove ...", 这不能证明) is about what the sentence before it is about (round 19:
    # "This does not prove ..." after each generic sentence of an essay made its caveats the student's own, 6 -> 2)
    tied: set[int] = set()
    own = False        # is the sentence before about the student's figure or case?
    for i, s in enumerate(sentences):
        if s.is_code or s.is_heading:
            continue
        own = id(s) in read_ids or _refers(cc, s, cc.anchor_own_case, formula) or (
            own and cc.anchor_points_back.search(s.text) is not None)
        if own:
            tied.add(blocks[i])
    return {i for i, s in enumerate(sentences) if not s.is_code and not s.is_heading and blocks[i] not in tied}


_SHARE_TOKEN = re.compile(r"[a-z0-9]+")


def _share_units(text: str) -> float:
    """Length for the reading share: a Chinese character is one, a Latin word, a number or a cell name two."""
    return len(_CJK.findall(text)) + 2 * len(_SHARE_TOKEN.findall(text))


def _blocks(sentences: list[_Sentence]) -> list[int]:
    """The block of each sentence: a paragraph, or a list of bullets, with no blank line or heading inside
    (``para`` numbers the lines, so a gap is a blank line). A list under "Observations" is read as one."""
    out: list[int] = []
    block, prev = 0, None
    for s in sentences:
        if prev is not None and (s.is_heading or prev.is_heading or s.para > prev.para + 1):
            block += 1
        out.append(block)
        prev = s
    return out


# a condition under which a false fact of the lab holds ("if all keys are equal, the weights are always uniform")
_CONDITIONAL = re.compile(r"\b(?:if|when|whenever|unless|suppose|assuming)\b|如果|假如|假设|若|当|除非")


# A text that writes this many of its caveats as what its figure shows uses "the heatmap shows that" as a formula
# (audit round 19): one may be a slip of an honest writer, who loses that caveat only.
FORMULA_AFTER = 2


@dataclass
class _Formula:
    """What ties nothing to the figure in this text: "the heatmap shows that" (``said``, :func:`_formula`) and an
    opener repeated before most of its sentences (``opener``, :func:`_template_opener`)."""
    said: bool = False
    openers: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return self.said or bool(self.openers)


# A text whose sentences mostly open by naming the figure ("In my heatmap, ...", "Looking at my heatmap, ...", "In this
# figure, ...") and nothing else in that opening is a template (audit round 19): the openers say of every statement
# that it is about the figure, which makes none of them so. This many sentences, and at least half of a text's, open
# so; an opening that reads something (a cell, a value: "In my heatmap q0, ...") is no template.
TEMPLATE_MIN = 4
_OPENER = re.compile(r"\W*([^,;:。]{1,40}?)\s*[,:]")


def _opener(text: str) -> str | None:
    """The words before the first comma or colon, when they are few ("In my heatmap, ...", 在我的热力图中，...)."""
    m = _OPENER.match(text)
    return m.group(1).strip() if m else None


def _template_openers(cc: Checklist, sentences: list[_Sentence]) -> frozenset[str]:
    """The openings that name the figure and say nothing of it, when they open TEMPLATE_MIN or more sentences and at
    least half of the text's (else none)."""
    body = [s for s in sentences if not s.is_code and not s.is_heading and s.eligible]
    openers: list[str] = []
    for s in body:
        o = _opener(s.text)
        # a figure word first (one small regex): most openings name none
        if o and _FIGURE_WORDS.search(o) and (cc.anchor.search(o) or cc.anchor_own_case.search(o)) \
                and not re.search(r"\d", o) and not cc.anchor_sights.search(o):
            openers.append(o)
    if len(openers) < TEMPLATE_MIN or 2 * len(openers) < len(body):
        return frozenset()
    return frozenset(openers)


def _refers(cc: Checklist, s: _Sentence, pattern: Any, formula: _Formula | bool) -> bool:
    """Does ``s`` match ``pattern`` (anchor.phrases, anchor.own_case)? In a ``formula`` text, a match inside "the
    heatmap shows that ..." (anchor.said_to_show) or inside the template's opener does not count: the text says that
    of what no figure shows, or of every statement alike."""
    if not formula:
        return pattern.search(s.text) is not None
    said = [(m.start(), m.end()) for m in s.find(cc.anchor_said_to_show)] if getattr(formula, "said", True) else []
    for opener in getattr(formula, "openers", ()):
        at = s.text.find(opener)
        if 0 <= at <= 3:
            said.append((at, at + len(opener)))
    return any(not any(a < m.end() and m.start() < b for a, b in said) for m in s.find(pattern))


def _in_what_is_shown(s: _Sentence, show: re.Match, m: re.Match) -> bool:
    """Is the match ``m`` inside what "the heatmap shows that ..." (``show``) says is shown, negated there?

    What is shown runs to the end of the clause of ``show``, or fills the next clause when ``show`` ends its own
    ("as the heatmap shows, ...", "热力图显示，..."). The negation must be inside it: "the heatmap does not show
    that ..." and "nothing here shows that ..." deny the showing, which is a caveat stated the right way."""
    if m.start() < show.end():
        return False
    clause, target = s.clause_at(show.start()), s.clause_at(m.start())
    if any(clause.start <= cs < show.end() for cs, _ce in s.cues):
        return False
    if target is not clause:
        following = [c for c in s.clauses if c.start >= clause.end]
        if s.text[show.end():clause.end].strip(" ,:，：") or not following or following[0] is not target:
            return False
    return any(show.end() <= cs < target.end for cs, _ce in s.cues)


def _shown(cc: Checklist, concept: _Concept, s: _Sentence) -> bool:
    """A caveat written as what the figure shows ("the heatmap shows that attention is not feature importance",
    热力图表明注意力权重不能证明因果): every negated match of it is inside what "the heatmap shows that" says is shown.
    A heatmap shows weights; that they prove nothing is no part of it."""
    shows = [m for m in s.find(cc.anchor_said_to_show)] if not s.is_question else []
    if not shows:
        return False
    caveats = [m for m in s.find(concept.groups[0]) if s.negated(m.start(), m.end())]
    return bool(caveats) and all(any(_in_what_is_shown(s, sh, m) for sh in shows) for m in caveats)


def _formula(cc: Checklist, sentences: list[_Sentence], concepts: list[_Concept]) -> bool:
    """Does the text write FORMULA_AFTER or more of its caveats as what its figure shows?"""
    n = 0
    for s in sentences:
        if s.is_code or s.is_heading or not s.eligible:
            continue
        # a caveat's keyword first (the concepts look for it anyway: cached per sentence), then the phrase, then
        # the negations: most sentences stop at the first step
        named = [c for c in concepts if c.mode == "caveat" and s.find(c.groups[0])]
        if not named or not s.find(cc.anchor_said_to_show):
            continue
        if any(_stated(c, s) == (True, True) and _shown(cc, c, s) for c in named):
            n += 1
        if n >= FORMULA_AFTER:
            return True
    return False


# Words that say nothing of their own beside a caveat's keyword and its negation ("- not the true mechanism", "不是因果")
_BARE_FILLER = re.compile(
    r"\b(?:no|not|never|none|only|just|merely|is|are|was|were|it|its|this|that|these|a|an|the|of|to|be|can|cannot|"
    r"can't|does|doesn't|do|don't|isn't|aren't|nor|true|real|actual|effects?|attention|heat\s*map|figure|by "
    r"itself|itself|evidence|proof|yes)\b|不是|不能|不代表|不等于|并非|并不|只是|只|仅|不|非|无|没有|是|注意力|图|"
    # 权重 is filler as "weights" is not: "attention weights are not causal" and 权重不是因果 are bare alike, while a high
    # weight said ("a large weight is not a causal effect", 高权重不代表因果, 权重高不等于因果) names what is not causal
    # (round 33: the zh sentence earned half of what its en twin earned)
    r"(?<![高大])权重(?![高大])|热力图|的|也|能|证据", re.IGNORECASE)


# a clause that gives a reason, a case or what the caveat is about (a number, a high weight, "whatever the code"): what
# the caveats beside it rest on
_REASON_CLAUSE = re.compile(r"\b(?:because|since|so|therefore|thus|hence|would|need\w*|requires?|unless|without|e\.g|"
                            r"for example|for instance|whether|regardless|even if|(?:high|large|bright|strong)\w*\s+"
                            r"(?:attention\s+)?(?:weights?|cells?|values?))\b|因为|由于|所以|因此|需要|得把|要把|要做|除非|"
                            r"例如|比如|无论|不管|即使|(?<![不])(?:高|大)权重|权重(?:高|大)|\d", re.IGNORECASE)


def _bare_list(cc: Checklist, s: _Sentence) -> bool:
    """Is ``s`` a list of caveats and nothing else (round 33: "my heatmap 不能证明 causality，不能证明 feature importance，
    不能证明 model decision" earned limits 3, each caveat taking the others as what it says)? As many clauses as make a
    keyword list (``keyword_list_concepts``), each a negation of its own, none with a reason, a number or a key or
    query of the student's figure. "Not causal, not feature importance: one seed only" says what its case is, and
    "cannot prove causality, feature importance, or the true mechanism" is one negation: neither is a bare list."""
    clauses = [c for c in s.clauses if s.text[c.start:c.end].strip(" ,，、。.;；:：!！")]
    if len(clauses) < cc.keyword_list_concepts:
        return False
    for clause in clauses:
        piece = s.text[clause.start:clause.end]
        if not any(clause.start <= a < clause.end for a, _b in s.cues) or _REASON_CLAUSE.search(piece) \
                or _INDEX_LABEL.search(piece):
            return False
    return True


def _bare_caveat(cc: Checklist, concept: _Concept, s: _Sentence) -> bool:
    """A caveat stated as its keyword and a negation only ("- not causal", "causality: no", "因果：不能"): what is
    left once its one match, the negation words and filler words are blanked is under ``bare_caveat_units`` (the
    negation words, not the cue spans, which may cover a whole predicate: "reading causality off my heatmap is
    impossible"). Two matches ("one seed, one toy example, cannot generalise") say what the case is: not bare. Each
    caveat of a sentence that lists caveats and nothing else is bare (:func:`_bare_list`)."""
    if not cc.bare_caveat_units or s.denied_by_next:
        return False
    matches = [m for g in concept.groups for m in s.find(g)]
    if len(matches) != 1:
        return False
    if _bare_list(cc, s):
        return True
    a, b = matches[0].start(), matches[0].end()
    rest = _BARE_FILLER.sub(" ", s.text[:a] + " " + s.text[b:])
    # a key or query named (k2, q1) says what of the student's figure it concerns (round 33: "要把 k2 去掉看输出会不会改变"
    # was bare where "I'd have to remove k2 and see whether the output changes" was not)
    return _units(rest) + len(_INDEX_LABEL.findall(rest)) < cc.bare_caveat_units


# A clause that is only a hedge or a source besides its cue ("..., I think", "..., my friend told me", "（抄的）"): it
# disowns its whole sentence, not one clause of it.
_TAG_CLAUSE_UNITS = 3
_TAG_FILLER = re.compile(r"\b(?:my|our|a|the|me|us|so|and|just|that)\b|我们|我|的|了|是")


def _unasserted(cc: Checklist, sentences: list[_Sentence], idx: int, pos: int | None) -> bool:
    """Does the student state what sentence ``idx`` says at ``pos`` (None: anywhere in it) only as a guess or as what
    someone else said (``cues.unasserted``, round 32)? The cue counts in the statement's own clause, or as a clause of
    its own that says nothing else; a ditto mark ("(same)", 同上) repeats the sentence before it."""
    s = sentences[idx]
    cues = s.find(cc.unasserted)
    if cues:
        here = s.clause_at(pos) if pos is not None else None
        for m in cues:
            clause = s.clause_at(m.start())
            rest = s.text[clause.start:m.start()] + s.text[m.end():clause.end]
            if pos is None or clause is here or _units(_TAG_FILLER.sub(" ", rest)) <= _TAG_CLAUSE_UNITS:
                return True
    if idx > 0 and s.find(cc.ditto):
        prev = next((j for j in range(idx - 1, -1, -1) if not sentences[j].is_heading), None)
        return prev is not None and _unasserted(cc, sentences, prev, None)
    return False


def _about_others_figure(cc: Checklist, s: _Sentence) -> bool:
    """Is sentence ``s`` about another's figure or model ("In BERT's attention maps, ...", 论文里的图中…; review R2,
    round 35: their peaks were credited as readings of the student's figure), and not also about the student's own
    (anchor.own_case outside that phrase: "Unlike BERT's maps, my heatmap ...")?"""
    others = [m for m in s.find(cc.others_figure) if not s.negated(m.start(), m.end(), context=False)]
    if not others:
        return False
    return not any(all(o.end() <= m.start() or m.end() <= o.start() for o in others) for m in s.find(cc.anchor_own_case))


def _planned_cell(s: _Sentence, pos: int) -> bool:
    """Is the clause at ``pos`` a plan or an expectation about a query or key of the figure (round 33: "q0 should
    attend mostly to k0", q0 应该主要关注 k0, earned the reading-budget concept as a reading)? Only a clause naming a
    query or a key: "each row should sum to 1, because softmax normalises over the keys" derives a fact of every
    row, and "the diagonal is bright, as expected" is a reading (:func:`_planned`)."""
    clause = s.clause_at(pos)
    piece = s.text[clause.start:clause.end]
    return _planned(piece) and any(_cell_ref(m) for m in _CELL_READ.finditer(piece))


def _planned_statement(concept: _Concept, sentences: list[_Sentence], idx: int, at: int | None = None) -> bool:
    """Does sentence ``idx`` state the concept only as what should be ("q0 should attend mostly to k0",
    :func:`_planned_cell`) or as what the student's plan will show ("I will add two padding keys; ... the rows will still
    sum to 1", round 34, :func:`_future_at`)? An experiment's plan is judged by its result instead (:func:`_observed`)."""
    s = sentences[idx]
    if at is not None:          # a peak the cell reader read (``read_peaks``), at ``at``
        return _planned_cell(s, at) or (concept.evidence != "observed" and _future_at(sentences, idx, at))
    matches = s.find(concept.groups[0])
    if _planned_cell(s, matches[0].start()):
        return True
    return concept.evidence != "observed" and all(_future_at(sentences, idx, m.end()) for m in matches)


def _concept_candidates(cc: Checklist, concept: _Concept, sentences: list[_Sentence], lists: set[int],
                        far: set[int] = frozenset(), misread: set[int] = frozenset(),
                        peaks: Mapping[int, int] | None = None,
                        premises: set[int] = frozenset(),
                        taken_back: Mapping[int, set[str]] | None = None) -> tuple[list[int], set[str]]:
    """Sentences that may credit the concept, and the reasons the other places where it occurs do not
    (``far``: sentences about attention in general, :func:`_far_from_figure`; ``peaks``: where the sentences that read a
    query's peak read it, for a concept with ``read_peaks``; ``premises``: sentences that overclaim, whose readings are
    the overclaim's premise; ``taken_back``: the caveat concepts an overclaim right after takes back, by sentence)."""
    out: list[int] = []
    reasons: set[str] = set()

    def heading_caveat(s: _Sentence) -> bool:
        # a caveat's keyword alone on a line under a "cannot prove" heading or lead-in ("- causality", "- 因果") is
        # that keyword and the heading's negation: a bare caveat, half credit as "- not causal" (settings.bare_caveat_units),
        # not a line too short to count (round 34b: five such lines earned 1.25 of 4, "- causality" and "- 泛化" nothing
        # while "- feature importance" earned half; "not causal" bullets earned 2, half the item)
        return concept.mode == "caveat" and s.context_negated and not s.is_question

    for idx, s in enumerate(sentences):
        if s.is_code or s.is_heading or s.wall:
            continue
        found, ok = _stated(concept, s)
        at = None
        if concept.read_peaks and peaks and idx in peaks and not (found and ok):
            # a query's peak read in the figure (round 35: "q1 最关注 k2" while "q1 attends mostly to k2" earned it)
            found, ok, at = True, True, peaks[idx]
        if not found:
            continue
        if idx in misread:               # it reads a cell the figure does not show: a false statement earns nothing
            reasons.add("misread")
        elif idx in premises and concept.mode != "caveat":
            # a reading stated as the ground of an overclaim ("q1 最关注 k2，说明 k2 对输出贡献最大", "k2 matters most because
            # q1 attends most to it"): the sentence argues importance from it, it is no reading of its own (round 36)
            reasons.add("premise")
        elif idx in far:
            reasons.add("far")
        elif _about_others_figure(cc, s):
            reasons.add("others_figure")
        elif s.is_question:              # "Isn't a high weight the feature importance?" asks; it states nothing
            reasons.add("question")
        elif s.find(cc.requirement):     # "the rubric asks students to state that ...": restated, not stated (round 22)
            reasons.add("requirement")
        elif s.copied:
            reasons.add("copied_feedback" if s.copy_source == "grader" else "copied")
        elif s.echoes is not None and all(g.search(s.echoes) for g in concept.groups):
            reasons.add("copied")       # the own half of a half-copied sentence restates the copied line's idea
        elif s.short and not heading_caveat(s):
            reasons.add("too_short")
        elif not s.eligible and not heading_caveat(s):
            continue
        elif idx in lists:
            reasons.add({"label": "keyword_line", "shape": "keyword_shape"}.get(s.keyword_line, "stuffed"))
        elif not ok:
            reasons.add("not_a_limit" if concept.mode == "caveat" else "negated")
        elif concept.mode == "caveat" and _shown(cc, concept, s):
            reasons.add("shown")
        elif _stated_the_other_way(concept, s):
            reasons.add("contradicted")
        elif concept.evidence == "observed" and not _observed(cc, sentences, idx, concept):
            # a result the plan foretells ("the entropy should fall from 1.05 to 0.12") is said to be one (round 34)
            reasons.add("foretold" if _observed(cc, sentences, idx, concept, foretold=True) else "no_result")
        elif concept.setting is not None and not _names_setting(concept, sentences, idx):
            reasons.add("no_setting")
        elif concept.mode != "caveat" and _unasserted(
                cc, sentences, idx, at if at is not None else s.find(concept.groups[0])[0].start()):
            reasons.add("unasserted")   # "the rows are queries, my friend told me" (round 32)
        elif concept.mode != "caveat" and _planned_statement(concept, sentences, idx, at):
            reasons.add("planned")
        elif s.find(cc.noncommittal):  # "the heatmap may or may not show causality" states both, so nothing
            reasons.add("noncommittal")
        elif (s.find(cc.false_facts) or _states_false_claim(cc, s)) and not _CONDITIONAL.search(s.text):
            # "... because the output does not depend on the weights at all": the false fact is itself a denial, so
            # its own cue does not undo it (looked for last: only in sentences that would earn the concept)
            reasons.add("false_fact")
        elif taken_back and concept.id in taken_back.get(idx, ()):
            reasons.add("taken_back")   # "cannot prove causation. But of course k2 causes q1's output" (round 45)
        else:
            out.append(idx)
    if not out and concept.contradicted_by is not None and "contradicted" not in reasons:
        # the opposite alone ("the x-axis shows the queries"): the feedback says it is the wrong way round
        # (looked for only when nothing is credited, the rare case, since it reads every sentence)
        for s in sentences:
            if s.eligible and not (s.is_code or s.is_heading or s.is_question) and any(
                    not s.negated(x.start(), x.end(), context=False) for x in s.find(concept.contradicted_by)):
                reasons.add("contradicted")
                break
    return out, reasons


# A sentence about a bug or an error the student made or warns of ("I first wrote softmax over the queries, a bug"),
# or about what the student's own code does ("my softmax runs over the query axis instead of the key axis", a failing
# run reported honestly): it reports the false thing of that code, it does not claim it of attention (audit round 21).
_ABOUT_A_BUG = re.compile(r"\b(?:bugs?|buggy|typo|mistakes?|mistaken(?:ly)?|wrong(?:ly)?|incorrect(?:ly)?|myth|fixed|"
                          r"misconceptions?)\b|错误|写错|搞错|弄错|错了|误以为|误区|修复|改正|"
                          r"\bmy (?:softmax|code|implementation|function|version|mask)\b|我的\s*(?:softmax|代码|实现|函数)")


def _states_false_claim(cc: Checklist, s: _Sentence) -> bool:
    """Does the sentence assert one of the lab's false claims (``false_claims``: "masked keys get a small weight",
    "softmax runs over the queries")? Not when a negation or warning cue of its clause comes before the claim or
    inside it ("masked keys do not get a small weight"), nor under a carried "we cannot say that", nor in a
    sentence about a bug. A hedge does not make a false claim true."""
    if s.false_claim is None:
        s.false_claim = False
        # one scan for all the claims' literals, then each claim behind its own (most sentences pass neither)
        parts = cc.false_claims.parts_that_may_match(s.text)
        if parts and not _ABOUT_A_BUG.search(s.text):
            for part in parts:
                for m in part.regex.finditer(s.text):
                    clause = s.clause_at(m.start())
                    if not clause.carried and not any(clause.start <= cs < m.end() for cs, _ce in s.cues):
                        s.false_claim = True
                        break
                if s.false_claim:
                    break
    return s.false_claim


def _asked(cc: Checklist, s: _Sentence, start: int, end: int) -> bool:
    """Is the clause up to ``end`` an embedded question ("tell us whether k1 causes the output", "k1 是否导致了
    输出", "要证明因果，得做介入实验")? It asks; it asserts no overclaim."""
    return any(q.start() < end and q.end() > start for q in s.find(cc.embedded_question))


def _reported_overclaim(cc: Checklist, s: _Sentence) -> bool:
    """An overclaim the sentence reports as what others might say ("q1 attends most to k2, so one might think k2 matters
    most, but ...", 有人会说这证明 k2 最重要): the reading beside it is no premise of the student's own (review R4)."""
    first = next(cc.overclaim_patterns.finditer(s.text), None)
    return first is not None and any(a.start() < first.start() for a in cc.attribution.finditer(s.text))


def _overclaims(cc: Checklist, sentences: list[_Sentence]) -> list[tuple[int, str, bool]]:
    """(index, sentence, hedged) for each sentence that reads the weights as importance or causality."""
    found: list[tuple[int, str, bool]] = []
    for idx, s in enumerate(sentences):
        # nor the own half of a half-copied sentence (round 30): its clauses may continue the copied clause's
        # negation ("这不自动等于因果解释……，或者说明 k2 导致了输出"), which is not read with them
        if s.is_code or s.is_heading or s.is_question or s.copied or s.echoes is not None:
            continue
        # the parts of the phrase group whose literals occur, each on its own: the same answer as the whole
        # alternation's search, without trying ~60 phrases at every position of every sentence (round 22)
        nxt = sentences[idx + 1] if idx + 1 < len(sentences) else None
        hedged = _overclaimed(cc, s, nxt)
        if hedged is None:
            # a sentence mixing zh and en ("k2 是最 important 的 key", "q1 最 attend to k2 所以 k2 最 important") is read
            # again with its English words in Chinese (round 39): the zh patterns do not know the English words. Not one
            # whose denial is read from its neighbours or its table row (positions change in the glossed copy)
            # ... and without an aside put inside the claim ("k2 is, in my view, the most important key", "k2，在我看来，
            # 是最重要的 key"): the patterns read a claim in one clause, and the aside's commas cut it in three. A hedge
            # aside ("k2 is, probably, ...") keeps the claim hedged
            variant = _variant(cc, s) if s.denied is None and not s.row_denied else None
            if variant is not None:
                again = _overclaimed(cc, variant[0], nxt)
                hedged = None if again is None else (again or variant[1])
        if hedged is None and s.denied is None and not s.row_denied:
            # ... and without the negations that cancel in pairs ("很难想象 k2 不是输出的原因" claims k2 is the cause):
            # round 44, the pair asserted the claim but the patterns, written for its plain words, did not see it
            litotes = _litotes_reading(s)
            if litotes is not None:
                hedged = _overclaimed(cc, _Sentence(litotes, s.eligible, s.is_code, s.is_heading, s.is_question,
                                                    s.context_negated, cc=cc, para=s.para), nxt)
        if hedged is not None and s.denied is None and not s.row_denied:
            # ... but not a claim only reported and rebutted, or only supposed (round 44 review HIGH 2, 3): read again
            # without them
            unclaimed = _unclaimed_reading(cc, s.text)
            if unclaimed is not None:
                hedged = _overclaimed(cc, _Sentence(unclaimed, s.eligible, s.is_code, s.is_heading, s.is_question,
                                                    s.context_negated, cc=cc, para=s.para), nxt)
        if hedged is not None:
            found.append((idx, s.text, hedged))
    return _asked_then_dismissed(cc, sentences, found)


# round 48: a test asked as a question and dismissed in the answer ("Ablation? Not necessary, k2 is clearly the cause.",
# 消融？没必要，k2 就是原因。): the question mark splits the dismissed test from the claim the patterns read together
_DISMISSAL_OPENS = re.compile(r"\s*(?:no[,.]?\s+)?(?:not\s+(?:necessary|needed|required|worth\s+it)|unnecessary|pointless|needless|"
                              r"overkill|no\s+need)\b|\s*(?:没必要|没有必要|不需要|不必要?|用不着|不用|无需|多余)", re.IGNORECASE)
_TEST_QUESTION_UNITS = 12       # "Ablation?", "An ablation?", "Do we need an ablation?", 消融实验？: the question is the test


def _asked_then_dismissed(cc: Checklist, sentences: list[_Sentence],
                          found: list[tuple[int, str, bool]]) -> list[tuple[int, str, bool]]:
    """``found`` with the claims of answers that dismiss the test their question names, read as one sentence with the
    question (and with the next sentence when the answer is the dismissal alone: "Ablation? Not necessary. k2 is the
    cause."), unless a claim there is flagged already."""
    flagged = {i for i, _t, _h in found}
    added = []
    for idx in range(1, len(sentences)):
        q, s = sentences[idx - 1], sentences[idx]
        if idx in flagged or not q.is_question or q.is_code or q.is_heading or s.is_code or s.is_heading \
                or q.para != s.para or not _TEST_WORD.search(q.text) or _share_units(q.text) > _TEST_QUESTION_UNITS:
            continue
        m = _DISMISSAL_OPENS.match(s.text)
        if m is None:
            continue
        # (read as "the ablation is not necessary, ..." / 消融没必要，……, in the language of the claim after the dismissal,
        # whatever words the question and the dismissal used (round 48 mend, review M1: "Do we need an ablation? No need,
        # k2 is clearly the cause.", 要做消融吗？不用，k2 就是原因。, "Ablation? 没必要。k2 就是原因。" were merged into
        # text no pattern reads); the student's own words are what the feedback quotes)
        rest, said, last = s.text[m.end():].strip(" ,.:;，。：；!！"), q.text + " " + s.text, idx
        nxt = sentences[idx + 1] if idx + 1 < len(sentences) else None
        if not rest and nxt is not None and nxt.para == s.para and not (nxt.is_code or nxt.is_heading or nxt.is_question):
            if idx + 1 in flagged:
                continue
            rest, said, last = nxt.text, said + " " + nxt.text, idx + 1
        text = ("消融没必要，" if _CJK.search(rest) else "The ablation is not necessary, ") + rest
        hedged = _overclaimed(cc, _Sentence(text, s.eligible, False, False, False, False, cc=cc, para=s.para), None)
        if hedged is not None:
            added.append((last, said, hedged))
    return sorted(found + added) if added else found


# a contrast that opens an overclaim after a caveat: ", but" / "; yet" / 但 / 然而 (not 不但, "not only")
# (round 45 mend, review MED 3: also nevertheless / nonetheless / even so / that said / 尽管如此 / 话虽如此 / 即便如此, and after
# a comma 可 / 只是: "热力图不能证明因果，可 k2 显然导致了 q1 的输出")
_CONTRAST = re.compile(r"(?:^|[,;:，；：]|\s[-\u2013\u2014]+)\s*(?:but|yet|however|though|still|nevertheless|nonetheless|"
                       r"even\s+so|that\s+said|all\s+the\s+same)\b|(?<!不)但是?|然而|可是|不过|尽管如此|话虽如此|即便如此|即使如此|"
                       r"虽然如此|[，,；;]\s*(?:可(?![以能见靠信惜])|只是)", re.IGNORECASE)
_CONTRAST_OPENS = re.compile(r"\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:but|yet|however|still|nevertheless|nonetheless|even\s+so|that\s+said|"
                             r"all\s+the\s+same|of\s+course)\b|\s*(?:但是?|然而|可是|不过|尽管如此|话虽如此|即便如此|即使如此|"
                             r"虽然如此|当然)", re.IGNORECASE)
# ... or closes it ("k2 is clearly the most important key, though.", "k2 causes it anyway")
_CONTRAST_CLOSES = re.compile(r"(?:[,，]\s*(?:though|all\s+the\s+same)|\banyway|\bregardless)\s*[.!。！]?\s*$", re.IGNORECASE)


# a claim only mentioned, quoted or reported as a (common) reading after a caveat ("But many students write that k2 causes
# the output anyway", 但是很多同学会写"k2 导致了输出", "the common reading "k2 causes the output" is tempting") takes
# nothing back (round 45 mend, review MED 4)
_MENTIONED = re.compile(r"[\"“”「」『』]|(?<!\bthat )\bsaid\b|\b(?:write|writes|wrote|written|say|says|claim|claims|claimed|think|thinks|"
                        r"believe|believes|assume|assumes|reading|misreading|interpretation|tempting|temptation|mistake|"
                        r"myth|misconception)\b|同学|有人|别人|人们|会写|常写|误读|误解|说法|读法|常见|容易|以为", re.IGNORECASE)


def _taken_back(cc: Checklist, sentences: list[_Sentence], over: list[tuple[int, str, bool]]) -> dict[int, set[str]]:
    """The caveat concepts (overclaims.takes_back) that an unhedged overclaim opening with a contrast takes back, by the
    caveat's sentence: its own, when the contrast follows a negation cue ("It is not feature importance, yet k2 is
    clearly the most important key"), or the one before it in the paragraph ("The heatmap cannot prove causation. But
    of course k2 causes q1's output"). Only what the overclaim names (a causal claim takes back the causal caveat, not
    the importance one), and not a claim backed by a run (an ablation the student did)."""
    takes = cc.overclaim.get("takes_back") or {}
    out: dict[int, set[str]] = {}
    for i, _text, hedged in over if takes else ():
        s = sentences[i]
        if hedged or cc.counterfactual_backed.search(s.text):
            continue
        opens = _CONTRAST_OPENS.match(s.text) or _CONTRAST_CLOSES.search(s.text)
        if opens is not None and _MENTIONED.search(s.text) is not None:
            continue
        if opens is not None:
            # the sentence before, or the one before that across a reading put in between ("The heatmap cannot prove
            # causation. q1 reads mostly from k2 (0.67). But of course k2 causes q1's output": round 45 mend, MED 3),
            # in the paragraph or the lines before
            for j in (i - 1, i - 2):
                prev = sentences[j] if j >= 0 else None
                # (a line of its own is a paragraph of its own: "But of course ..." on the next line opens with the
                # contrast all the same; not across a heading or code)
                if prev is None or prev.is_code or prev.is_heading:
                    break
                out.setdefault(j, set()).update(cid for cid, rx in takes.items() if rx.search(s.text))
            continue
        for m in _CONTRAST.finditer(s.text):
            if not any(cs < m.start() for cs, _ce in s.cues):
                continue
            rest = s.text[m.end():]
            if _MENTIONED.search(rest) is not None:
                break
            if _overclaimed(cc, _Sentence(rest, s.eligible, s.is_code, s.is_heading, s.is_question, False, cc=cc,
                                          para=s.para), None) is False:
                out.setdefault(i, set()).update(cid for cid, rx in takes.items() if rx.search(rest))
                break
    return out


# round 48: a caveat taken back by the next sentence, which points to it and calls it wrong ("We cannot prove k2 causes the
# prediction. That is wrong, though: it clearly does.", 我们不能证明……。不过这其实不对，k2 就是原因。): the pronoun opens the
# sentence with its verdict, and the verdict closes its clause (round 48 mend, review H1): a verdict that goes on is about
# something else ("That is wrong reasoning", "That is not the case for the shape tests", "That is not so surprising",
# "That was wrong of me", 这是错的推理, 这不对劲), and "That would be wrong to claim" judges the claim, so the caveat keeps
# its credit; 这样说 / 这么说 ("saying so") point at the claim the caveat denies, not at the caveat
_RETRACTS = re.compile(
    r"\s*(?:(?:but|however|actually|honestly|well|in\s+fact|of\s+course|still)[,\s]+)*"
    r"(?:(?:that|this)(?:\s+(?:claim|caveat|statement|limit|sentence))?|which)(?:\s+(?:is|was)|'s)\s+"
    r"(?:(?:actually|simply|just|completely|totally|plainly|clearly|obviously|also|really|of\s+course)\s+)*"
    r"(?:wrong|false|untrue|incorrect|nonsense|not\s+(?:true|right|correct|the\s+case|so))"
    r"(?:\s*[,，]?\s*(?:though|of\s+course|after\s+all|actually|either|anyway|too|as\s+well|really))?"
    r"\s*(?:[,:;.!—–，：；。！]|$)|"
    # (review M3: withdrawn without a verdict, "Scratch that: it obviously does", "I take that back", 我收回这句话)
    r"\s*(?:(?:actually|well|no|ok(?:ay)?)[,\s]+)*(?:scratch\s+that|strike\s+that|I\s+take\s+(?:that|it)\s+back)"
    r"\s*(?:[,:;.!—–，：；。！]|$)|"
    r"\s*(?:(?:不过|但是?|可是|然而|其实)[，,]?\s*)*(?:我)?收回(?:这句话|这个说法|这一点|前面的话)?\s*(?:[，,。.！!：:；;]|$)|"
    r"\s*(?:(?:不过|但是?|可是|然而|其实|实际上)[，,]?\s*)*"
    r"(?:这一点|这个说法|这种说法|这句话|这个结论|这种想法|这个想法|这|那一点|那个说法|那)"
    r"\s*(?:其实|实际上|也|又|根本|完全|显然|当然)*\s*(?:是)?\s*(?:不对|错的|错了|不成立|不正确|不是真的|不准确|站不住脚?)"
    r"\s*(?:的|了|啊|吧|呢)?\s*(?:[，,。.！!：:；;]|$)",
    re.IGNORECASE)
# ... and what its next clause then asserts by ellipsis ("it clearly does", "k2 is.", 就是原因, 确实如此): the claim the caveat
# denied; bare, or a causal or importance predicate, not any "it is" ("That is not true: it is exact" was flagged before the
# round 48 mend, review H2)
_REASSERTS_DENIED = re.compile(
    r"\s*(?:(?:because|since|as|in\s+fact|actually|and|so|yes)[,\s]+)*"
    r"(?:(?:it|they|k_?\d+|key\s*\d+)\s+(?:(?:clearly|obviously|certainly|definitely|really|surely|actually|of\s+course)\s+)*"
    r"(?:(?:does|do|did|is|are|was|matters)\s*(?:[,;:.!，。；！]|$)|(?:matters|mattered|causes|caused|drives|drove|determines)\b"
    r"|(?:is|was)\s+(?:the\s+(?:(?:main|real|true|only)\s+)?cause|(?:very\s+|really\s+)?(?:important|crucial|decisive))\b)"
    r"|(?:因为|其实|实际上|而且)?\s*(?:(?<![a-z])k_?\d+\s*)?(?:就是(?:原因|因果|它|这样)|确实(?:如此|是|导致|决定|重要)|"
    r"显然(?:是|如此|导致|决定)|当然(?:是|如此)|(?:就|正|确实|显然)?(?:是原因|导致|决定)))",
    re.IGNORECASE)
# (the clause after the verdict: the reassertion is read there only, up to its end)
_CLAUSE_END = re.compile(r"[.;!?。；！？]")


def _retractions(cc: Checklist, sentences: list[_Sentence], over: list[tuple[int, str, bool]]
                 ) -> tuple[dict[int, set[str]], list[tuple[int, str, bool]]]:
    """The caveat concepts taken back, by the caveat's sentence (one with a negation of its own, right before the
    retraction in its paragraph), and the retractions that then assert the denied causal or importance claim, as
    overclaims (unless flagged already)."""
    caveats = {c.id for item in cc.items for c in item.concepts if c.mode == "caveat"}
    takes = cc.overclaim.get("takes_back") or {}
    flagged = {i for i, _t, _h in over}
    taken: dict[int, set[str]] = {}
    added: list[tuple[int, str, bool]] = []
    for i in range(1, len(sentences)):
        prev, s = sentences[i - 1], sentences[i]
        if s.is_code or s.is_heading or s.is_question or prev.is_code or prev.is_heading or prev.is_question \
                or prev.para != s.para or not prev.cues or prev.denied is not None or prev.retracted or prev.row_denied:
            # (not a claim the verdict denies: "Some say k2 causes the output. That is wrong: ..." rebuts it)
            continue
        m = _RETRACTS.match(s.text)
        if m is None:
            continue
        taken[i - 1] = set(caveats)
        rest = s.text[m.end():]
        end = _CLAUSE_END.search(rest)
        if i not in flagged and _REASSERTS_DENIED.match(rest[:end.end() if end else len(rest)]) \
                and any(rx.search(prev.text) for rx in takes.values()):
            added.append((i, s.text, False))
    return taken, added


# A key's importance concluded from a weight read in the clause before ("Since q1 puts 0.67 on k2, k2 is important", "q1's
# weight on k2 is 0.67, so k2 matters", 因为 q1 在 k2 上放了 0.67，所以 k2 很重要): the patterns read one clause, and the bare
# "k2 is important" of the conclusion is no claim on its own (round 45 mend, review MED 5e)
_IMPORTANCE_CONCLUDED = re.compile(
    r"(?:\bweights?\b|\battention\b|\battend(?:s|ed)?\b|\bputs?\b|\bplace[sd]?\b|\breads\b|\d?\.\d+|权重|注意力|放了|\d?\.\d+)"
    r"[^.;。；!?！？]{0,60}?(?:,\s*(?:so\s+|therefore\s+|thus\s+|hence\s+)?|\b(?:so|therefore|thus|hence)\s+(?:,\s*)?|"
    r"[，,]?\s*(?:所以|因此|因而|可见|故而?)\s*)"
    r"(?P<claim>(?<![a-z0-9_])(?:k_?\d+|key\s*\d+|token\s*\d+)\s*(?:(?:is|was|must\s+be)\s+(?:(?:very|really|highly|quite|so|"
    r"clearly|obviously|definitely|certainly|surely)\s+)?(?:important|crucial|essential|critical|vital|decisive|influential)\b|"
    r"matters\b|(?:就|也|一定|肯定|显然|确实)?(?:是)?\s*(?:很|非常|十分|特别|极其|相当|最)?\s*(?:重要|关键)))", re.IGNORECASE)


# round 46: the test a causal or importance question needs, said not to be needed ("whether k2 matters needs no ablation",
# k2 是否重要不需要做消融): the question is the subject, the denial asserts that the figure answers it
_NO_TEST_NEEDED = re.compile(r"\b(?:needs?|needed|requires?|required|takes?|took|calls?\s+for|demands?)\s+no\b|"
                             r"\b(?:does|did|do|would|will|should)\s*(?:not\b|n't\b)\s*(?:need|require|take|call\s+for|demand|have\s+to)\b|"
                             r"\bno\s+(?:\w+\s+)?(?:interventions?|ablations?|counterfactuals?|perturbations?)\s+(?:is\s+|are\s+|was\s+|were\s+|would\s+be\s+|will\s+be\s+)?(?:needed|required|necessary)\b|"
                             r"\b(?:is|are|was|were|be)\s+(?:not|never)\s+(?:needed|required|necessary)\b|\bno\s+need\b|不需要|不需|无需|无须|不必|没必要|用不着|不用|"
                             # round 47: the test skipped or called needless ("we can skip the ablation, k2 matters", 消融可以省掉)
                             r"\b(?:skip\w*|forgo\w*|bypass\w*|dispense\s+with|do\s+without|did\s+without)\b|"
                             # (mend, review RA H3: also left out, omitted, not bothered with, "Ablation not needed", 消融没有必要)
                             r"\b(?:leave|left)\s+out\b|\bomit\w*|\bbother\b|\b(?:not|never)\s+(?:needed|required|necessary)\b|没有必要|不必要|"
                             r"\b(?:unnecessary|pointless|overkill|redundant|superfluous|a\s+waste)\b|\bno\s+point\b|"
                             r"不做|不进行|不跑|跳过|省掉|省去|省了|省略|略过|免去|免了|多余", re.IGNORECASE)


# the tests a _NO_TEST_NEEDED denial is about (the sentence-wide pass below runs only with one named: 不用 / 不必 are common)
_TEST_WORD = re.compile(r"干预|消融|反事实|扰动|ablat|interven|counterfactual|perturb", re.IGNORECASE)


def _overclaimed(cc: Checklist, s: _Sentence, nxt: _Sentence | None) -> bool | None:
    """Whether ``s`` reads the weights as importance or causality (overclaims.patterns, clause by clause, then a
    counterfactual across them): None if not, else whether it is hedged."""
    may_match = any(part.regex.search(s.text) for part in cc.overclaim_patterns.parts_that_may_match(s.text))
    for clause in s.clauses if may_match else ():   # per clause: "cannot prove causality, but it shows k2 is most important"
        piece = s.text[clause.start:clause.end]
        # a fact of the computation ("the mask causes an exact zero weight", "scaling determines the
        # entropy") is no claim about what the weights explain
        facts = [(f.start(), f.end()) for f in cc.mechanical.finditer(piece)]
        for m in cc.overclaim_patterns.finditer(piece):
            if any(a < m.end() and b > m.start() for a, b in facts):
                continue
            if not s.negated(clause.start + m.start(), clause.start + m.end()) \
                    and (not _asked(cc, s, clause.start, clause.start + m.end()) or _NO_TEST_NEEDED.search(m.group(0))):
                return s.hedged(clause.start + m.start())
    if may_match and _TEST_WORD.search(s.text) and _NO_TEST_NEEDED.search(s.text):     # (the cheap literal test first)
        # ... across the sentence's clauses: "想知道 k2 是否导致输出，不需要消融实验", "No intervention is needed, not even to
        # support a causal claim" (round 46)
        for m in cc.overclaim_patterns.finditer(s.text):
            if _NO_TEST_NEEDED.search(m.group(0)) and not s.negated(m.start(), m.end()):
                return s.hedged(m.start())
    concluded = _IMPORTANCE_CONCLUDED.search(s.text) if ("重要" in s.text or "关键" in s.text or "import" in s.text
                                                         or "matters" in s.text or "crucial" in s.text) else None
    if concluded is not None and cc.counterfactual_backed.search(s.text) is None \
            and not s.negated(*concluded.span("claim")) and not _asked(cc, s, 0, concluded.end()):
        return s.hedged(concluded.start("claim"))
    return _counterfactual(cc, s, nxt)


def _variant(cc: Checklist, s: _Sentence) -> tuple[_Sentence, bool] | None:
    """``s`` with the English words of a Chinese sentence in Chinese and its asides taken out, and whether an aside
    hedged the claim; None if there is nothing to change (:func:`rubric.audit.text._claim_reading`)."""
    reading = _claim_reading(cc, s.text)
    if reading is None:
        return None
    text, hedge = reading
    # most mixed sentences claim nothing in either reading: no cues and clauses are built for them (test_a_20kb_audit)
    if not any(part.regex.search(text) for part in cc.overclaim_patterns.parts_that_may_match(text)) \
            and _counterfactuals(cc, text) is None:
        return None
    return _Sentence(text, s.eligible, s.is_code, s.is_heading, s.is_question, s.context_negated, cc=cc, para=s.para), hedge


_DIFFERENT = re.compile(r"不(?:一样|同)$")


_WILL = re.compile(r"\b(?:would|will|'d|is going to)\b|(?:就会|会|将|就|肯定会|一定会)")


def _counterfactual(cc: Checklist, s: _Sentence, nxt: _Sentence | None = None) -> bool | None:
    """Whether the sentence asserts what removing a key would do ("if you took k2 away, the output would fall apart",
    如果去掉 k2，输出一定会崩; overclaims.counterfactual): None if not, else whether it is hedged. Read across the
    sentence's clauses, since the condition and its result are split by a comma. A removal the student ran or
    measured, or says is untested, in this sentence or the next (overclaims.counterfactual_backed), and a result
    denied after its verb ("will change nothing": counterfactual_null) assert nothing the heatmap was read for
    (review RD 1)."""
    for m in _counterfactuals(cc, s.text, every=True):
        # "就会完全不一样" / 不同 says "different": its 不 denies nothing of the claim
        end = m.start() + len(_DIFFERENT.sub("", m.group()))
        # a breakdown said with a negation word ("there would be no sensible output", 就不会有意义) is the result
        # asserted: only what comes before it may deny the claim (round 39)
        collapse = next((m.start() + c.start() for c in cc.counterfactual_collapse.finditer(s.text[m.start():end])), None)
        if collapse is not None and collapse > m.start():
            denied = s.negated(m.start(), collapse, subject=False)
        else:
            denied = s.negated(m.start(), end)
        if not denied and not _asked(cc, s, 0, m.end()):
            if _backed(cc, s, nxt) or _null_result(cc, s, m):
                continue
            # ... not by a hedge word inside its breakdown ("could not produce", 不可能给出: round 39 mend, LOW 5)
            return cc.hedge.search(_blank(cc.counterfactual_collapse, m.group())) is not None
    return None


def _backed(cc: Checklist, s: _Sentence, nxt: _Sentence | None) -> bool:
    """A run, a measured change or an untested marker in ``s`` or the prose sentence after it."""
    if cc.counterfactual_backed.search(s.text):
        return True
    return nxt is not None and not (nxt.is_code or nxt.is_heading) and cc.counterfactual_backed.search(nxt.text) is not None


def _null_result(cc: Checklist, s: _Sentence, m: re.Match) -> bool:
    """Is the result after the match's would/will denied ("would barely change", "will change nothing")?"""
    wills = list(_WILL.finditer(m.group()))
    if not wills:
        return False
    tail = s.text[m.start() + wills[-1].end(): m.end() + 12]
    # ... not a breakdown said with one ("would output nothing meaningful": round 39 mend, review LOW 5)
    return cc.counterfactual_null.search(_blank(cc.counterfactual_collapse, tail)) is not None


def _grounded(cc: Checklist, sentences: list[_Sentence], credited: Collection[tuple[str, str]],
              readers: Collection[str]) -> bool:
    """Does the text read its figure (a concept of an item in ``readers`` credited: items.limits.grounded_by) or name
    something of it or of the student's case in any sentence (cues.grounding: k2, a value, "reading coefficients")? A
    list of denials that does neither could be written without the figure (round 38)."""
    if any(item_id in readers for item_id, _c in credited):
        return True
    # a heading ("## Limits (4)", its count of bullets) reads nothing of the figure (review RD 3); in a denial only what
    # is read from the figure grounds the list (cues.grounding_read: a key, a cell's value, a reading word), not the
    # figure's setting as the denial's subject ("My 2x3 heatmap (seed 0) cannot show ...", "My heatmap (torch 2.1)
    # ...", "This 2-query example cannot prove ...": round 39 mend, review HIGH 2)
    return any((cc.grounding_read if s.cues or s.context_negated else cc.grounding).search(s.text)
               for s in sentences if not (s.is_code or s.copied or s.is_heading))


def _snippet(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _round(x: float) -> float:
    return round(x + 1e-12, 2)


def _outcomes(tests: Sequence[Mapping[str, Any]] | Mapping[str, Any] | None) -> dict[str, str]:
    """Test outcomes as ``{test_id: outcome}`` from the engine's test rows or a plain mapping."""
    if not tests:
        return {}
    if isinstance(tests, Mapping):
        return {str(k): str(v.get("outcome") if isinstance(v, Mapping) else v) for k, v in tests.items()}
    return {str(t.get("id")): str(t.get("outcome")) for t in tests if isinstance(t, Mapping)}


def _labels_by_reason(missing: Sequence[tuple[dict[str, str], str]]) -> list[tuple[str, dict[str, str]]]:
    """(reason, the labels of every concept it is given for) in the order the reasons first occur: a
    reason shared by several concepts (four bare caveat bullets) is said once with their labels, where
    the feedback repeated its whole explanation once per concept."""
    grouped: dict[str, list[dict[str, str]]] = {}
    for label, reason in missing:
        grouped.setdefault(reason, []).append(label)
    # semicolons: labels hold commas and 、 themselves ("B: padding keys get weight 0, rows still sum to 1")
    joined = {"en": "; ", "zh": "；"}
    return [(reason, {lang: joined[lang].join(lb[lang] for lb in labels) for lang in ("en", "zh")})
            for reason, labels in grouped.items()]


# the anchor's reasons that are said of the whole text, which no other flag states (see _grade_text)
_WHOLE_TEXT = ("unanchored", "unread", "template", "formula")


def _whole_text_reason(cc: Checklist, reason: str) -> dict[str, str]:
    """A reason of the checklist said of the whole text: its words without the concept ("{concept}: your text
    names no cell ..." -> "Your text names no cell ...")."""
    out = {lang: re.sub(r"^\{concept\}\s*[:：]\s*", "", cc.reasons[reason][lang]) for lang in ("en", "zh")}
    out["en"] = out["en"][:1].upper() + out["en"][1:]
    return out


def _reason_text(cc: Checklist, reason: str, label: dict[str, str]) -> dict[str, str]:
    r = cc.reasons[reason]
    return {lang: r[lang].replace("{concept}", label[lang]) for lang in ("en", "zh")}


def grade_audit(text: str | None, figure: bytes | None, measured: Mapping[str, float] | None,
                checklist: Checklist, *, tests: Sequence[Mapping[str, Any]] | Mapping[str, Any] | None = None,
                weights: Sequence[Sequence[float]] | None = None,
                reference: Sequence[Sequence[float]] | None = None) -> AuditResult:
    """Grade a written audit (docs/contracts.md §3).

    ``figure`` is the figure's bytes as accepted by the upload validator (or None); ``measured`` holds
    the grader's own measurements on the student's code; ``tests`` (optional) the student's test
    outcomes, either the engine's test rows ``[{"id", "outcome", ...}]`` or ``{test_id: outcome}``:
    a claim in the audit that its own failing tests refute is flagged (``checklist.test_claims``).
    ``weights`` (optional) are the grader's weights of the lab's example computed with the student's
    code (the engine's ``example_weights["student"]``): a row of weights written in the text that
    matches no row of them is flagged. ``reference`` (optional) are the reference weights of the same example
    (``example_weights["reference"]``): the figure and the cells the text reads are evidence when they match either
    (round 32: broken code that gave no weights skipped the check, and the same audit scored 15/15 where working code
    whose weights it did not match scored 4/15). The audit is graded against each and keeps the better grade, so it
    never gains from code that computes less; with no weights of the student's, against the reference, said in the
    figure item's feedback."""
    if not reference or (weights and _same_weights(weights, reference)):
        return _grade_against(text, figure, measured, checklist, tests, weights)
    if not weights:
        result = _grade_against(text, figure, measured, checklist, tests, reference)
        note = _bilingual(checklist.source.get("reference_note"), "reference_note", _REFERENCE_NOTE)
        figure_items = {i.id for i in checklist.items if i.kind == "figure"}
        for it in result["items"]:
            if it["id"] in figure_items:
                it["feedback"] = {lang: f"{it['feedback'][lang]}{' ' if lang == 'en' else ''}{note[lang]}"
                                  for lang in ("en", "zh")}
        return result
    if isinstance(figure, (bytes, bytearray, memoryview)):
        figure = analyse_figure(figure)     # graded twice below; what the figure shows does not depend on the weights
    own = _grade_against(text, figure, measured, checklist, tests, weights)
    ref = _grade_against(text, figure, measured, checklist, tests, reference)
    return ref if ref["score"] > own["score"] else own


# said in the figure item when the student's code gave no weights of the lab's example (checklist `reference_note`)
_REFERENCE_NOTE = {
    "en": "Your code computed no weights for the lab's 2x3 example (it did not load or did not run on it), so your "
          "figure and the cells your text reads were checked against the reference weights of that example.",
    "zh": "你的代码没有算出实验 2x3 例子的权重（代码无法导入，或在该例子上没有运行成功），所以你的图和文字中读出的格子"
          "是对照该例子的参考权重检查的。"}


def _same_weights(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> bool:
    """The same matrix, to the precision a figure or a reading can show (nothing to grade twice)."""
    return len(a) == len(b) and all(len(x) == len(y) and all(abs(float(u) - float(v)) <= WEIGHT_TOLERANCE / 3
                                                             for u, v in zip(x, y, strict=True))
                                    for x, y in zip(a, b, strict=True))


def _grade_against(text: Any, figure: Any, measured: Mapping[str, float] | None, checklist: Checklist,
                   tests: Sequence[Mapping[str, Any]] | Mapping[str, Any] | None,
                   weights: Sequence[Sequence[float]] | None) -> AuditResult:
    """:func:`grade_audit` against one matrix of the example's weights."""
    cc = checklist
    # the upload validator's refusal (an InputError, as for the figure): an audit was submitted but
    # could not be read, which its items say instead of "no audit text was submitted"
    unread = text if hasattr(text, "en") and hasattr(text, "zh") else None
    text = ("" if unread is not None else text or "")[: cc.max_text_chars]
    figures = {item.id: _grade_figure(item, figure, weights) for item in cc.items if item.kind == "figure"}
    result = _grade_text(cc, text, figures, measured, tests, weights, axes_swapped=False, unread=unread)
    if result["score"] < result["max"] and ("行" in text or "列" in text) and has_traditional(text):
        # Taiwan's 列 is a row and 行 a column (rubric.audit.text.swap_axes); a traditional-script audit
        # may follow either usage, so it gets the better of the two readings (the first on a tie; a full
        # score needs no second reading)
        other = _grade_text(cc, text, figures, measured, tests, weights, axes_swapped=True)
        if other["score"] > result["score"]:
            result = other
    return result


def _grade_text(cc: Checklist, text: str, figures: dict[str, tuple[FigureReport | None, AuditItem, AuditFlag | None]],
                measured: Mapping[str, float] | None, tests: Sequence[Mapping[str, Any]] | Mapping[str, Any] | None,
                weights: Sequence[Sequence[float]] | None, *, axes_swapped: bool, unread: Any = None) -> AuditResult:
    """One reading of the audit's text (see :func:`grade_audit`); ``figures`` are the figure items, graded once."""
    sentences = _segment(cc, text, axes_swapped=axes_swapped) if text.strip() else []
    has_text = any(re.search(r"\w", s.text) for s in sentences)
    if cc.handout is not None:
        prose = [s for s in sentences if not s.is_code]
        pasted = cc.handout.grader_copies([None if s.is_heading else s.text for s in prose])
        halves: dict[int, _Sentence] = {}
        for s, from_grader in zip(prose, pasted, strict=True):
            if s.is_heading:
                continue
            if cc.handout.is_copied(s.text) or cc.handout.is_translated(s.text):
                # (not in a sentence whose attribution is denied: its span is of the whole text)
                split = None if from_grader or s.denied is not None else cc.handout.own_words(s.text)
                if split is None:
                    s.copied, s.eligible, s.copy_source = True, False, "handout"
                else:
                    # half copied, half the student's (round 30: "<a handout caveat>, but my figure is one seed and
                    # cannot generalise" lost the own half): the own clauses are read as the sentence, the copied
                    # ones go before it as a copy, which earns nothing and is flagged as one
                    own, copy, s.echoes = split
                    halves[id(s)] = _Sentence(copy, False, False, False, False, s.context_negated, cc, s.para,
                                              copied=True, copy_source="handout")
                    s.text, s.short = own, _units(own) < cc.min_units
                    s.eligible = not s.short
            elif from_grader:
                s.copied, s.eligible, s.copy_source = True, False, "grader"
        if halves:
            sentences = [x for s in sentences for x in ((halves[id(s)], s) if id(s) in halves else (s,))]
    flags: list[AuditFlag] = []

    # --- concept candidates, then a greedy assignment under the per-sentence budget -------------
    report = next((r for r, _it, _fl in figures.values() if r is not None), None)
    low = seen_low = _low_end(report, weights)
    blank = _masked_blank(report, weights)
    # the figure plots the student's weights and none of them is a masked key's 0 (the lab's example has no mask):
    # a colour said of a masked key ("the masked column is black", 被遮罩的位置在图中最暗) is seen in no cell of it
    unmasked = low is not None and _no_masked_cell(weights)
    if unmasked:
        _unseen_colours(cc, sentences)
    low = None if unmasked else low or "dark"     # unknown: the default maps' (viridis, rocket) dark low end
    if blank:
        low = "light"       # a masked key's cell shows the white page, whatever the colour map's low end
    phrase_concepts = [(item, c.by_low_end.get(low, c) if low else c) for item in cc.items if item.kind == "concepts"
                       for c in item.concepts if c.kind == "phrases"]
    lists = _keyword_lists(cc, sentences, [c for _item, c in phrase_concepts])
    formula = _Formula(_formula(cc, sentences, [c for _item, c in phrase_concepts]), _template_openers(cc, sentences))
    far = _far_from_figure(cc, sentences, formula)
    cell_claims = _cell_claims(cc, sentences, seen_low)
    # a reading of another's figure or model ("In BERT's attention maps, q1 attends most to k0") is no reading of the
    # student's: not checked against their weights; its concepts earn nothing (reason `others_figure`)
    others = {i for i in {cl.sentence for cl in cell_claims} if _about_others_figure(cc, sentences[i])}
    false_cells, true_cells = _misread_cells(cc, sentences, weights, seen_low,
                                             [cl for cl in cell_claims if cl.sentence not in others])
    misread = {cl.sentence for cl in false_cells}
    peaks = _peak_readings(sentences, cell_claims)
    over = _overclaims(cc, sentences)
    retracted, reasserted = _retractions(cc, sentences, over)
    if reasserted:
        over = sorted(over + reasserted)
    premises = {i for i, _s, _h in over if not _reported_overclaim(cc, sentences[i])}
    taken_back = _taken_back(cc, sentences, over)
    for j, ids in retracted.items():
        taken_back.setdefault(j, set()).update(ids)
    found = {(item.id, c.id): _concept_candidates(cc, c, sentences, lists, far, misread, peaks, premises, taken_back)
             for item, c in phrase_concepts}
    if low in ("dark", "light"):
        # a colour word of the other end ("the masked keys are dark" on a Blues heatmap, where 0 is white): say so,
        # naming the figure's end only when it was read from the figure (round 30: with no figure, or one whose cells
        # do not tell, "in your heatmap the smaller weights are drawn darker" was a guess)
        other = "light" if low == "dark" else "dark"
        seen = "colour_blank" if blank else f"colour_{low}" if seen_low else \
            "colour_no_figure" if report is None else "colour_unknown"
        for item in cc.items:
            for c in item.concepts:
                alt = c.by_low_end.get(other)
                if alt is None:
                    continue
                cands, reasons = found[(item.id, c.id)]
                if not cands and _concept_candidates(cc, alt, sentences, lists, far, misread)[0]:
                    reasons.add(seen)
    elif unmasked:
        for item in cc.items:
            for c in item.concepts:
                cands, reasons = found.get((item.id, c.id), ([], set()))
                if c.by_low_end and not cands and any(
                        _concept_candidates(cc, alt, sentences, lists, far, misread)[0] for alt in c.by_low_end.values()):
                    reasons.add("colour_unmasked")
    # Concepts that imply others go first (experiment B: "padding keys got weight 0 and rows still sum to 1"
    # states masked_zero and row_sum_one too); an implied concept credited in the same sentence is part of
    # that statement and takes no place of the sentence's budget.
    order = sorted(range(len(phrase_concepts)),
                   key=lambda i: (not phrase_concepts[i][1].implies,
                                  len(found[(phrase_concepts[i][0].id, phrase_concepts[i][1].id)][0]), i))
    # The budget is per statement: the parts of a sentence between semicolons ("in experiment A ...; in B ...; in C
    # ...") are statements of their own, as the checklist's sentence rule says (round 18: C lost to A and B).
    budget: dict[tuple[int, int], int] = {}
    # A sentence that restates an earlier one (more concepts than a budget, and the concepts one may credit all among
    # the other's: the same keyword line again in the other language, a keyword or two more or less) shares that
    # sentence's budget (round 32: an en keyword line and its zh twin earned 2 concepts each, 6.5/15 where a TA gives 4).
    per_sentence: dict[int, set[tuple[str, str]]] = {}
    for item, c in phrase_concepts:
        for idx in found[(item.id, c.id)][0]:
            per_sentence.setdefault(idx, set()).add((item.id, c.id))
    restates: dict[int, int] = {}
    for j in sorted(per_sentence):
        if len(per_sentence[j]) > cc.max_per_sentence:
            earlier = next((i for i in sorted(per_sentence) if i < j and i not in restates
                            and len(per_sentence[i]) > cc.max_per_sentence
                            and (per_sentence[j] <= per_sentence[i] or per_sentence[i] <= per_sentence[j])), None)
            if earlier is not None:
                restates[j] = earlier
    implied_at: dict[tuple[int, int], set[str]] = {}
    credited: set[tuple[str, str]] = set()
    credited_at: dict[tuple[str, str], int] = {}        # the sentence that earned a concept
    for i in order:
        item, c = phrase_concepts[i]
        cands, reasons = found[(item.id, c.id)]
        # a caveat said in full goes before the same caveat said as a bare keyword (see _bare_caveat)
        if c.mode == "caveat" and len(cands) > 1:
            cands = sorted(cands, key=lambda idx: _bare_caveat(cc, c, sentences[idx]))
        for idx in cands:
            first = sentences[idx].find(c.groups[0])
            # (a peak the cell reader read is stated where it reads it: round 35, "...，每行和为 1；q1 最关注 k2" shared the
            # budget of the statement before the semicolon)
            at = first[0].start() if first else peaks.get(idx, 0) if c.read_peaks else 0
            key = (idx, sentences[idx].text.count(";", 0, at))
            if idx in restates:
                key = (restates[idx], 0)
            if c.id in implied_at.get(key, set()) or (c.read_peaks and idx in peaks):
                # (round 35: a peak the cell reader read and checked against the weights is a reading of a cell, no
                # keyword: like a metric's value it takes no place of the budget. "这只说明 q0 主要读 k1，不能说明 k1 对预测
                # 最重要，更不能说明因果" lost a caveat to it)
                credited.add((item.id, c.id))
                credited_at[(item.id, c.id)] = idx
                break
            if budget.get(key, 0) < cc.max_per_sentence:
                budget[key] = budget.get(key, 0) + 1
                implied_at.setdefault(key, set()).update(c.implies)
                credited.add((item.id, c.id))
                credited_at[(item.id, c.id)] = idx
                break
        else:
            if cands:
                reasons.add("sentence_full")

    # --- a text about another figure, or about no figure at all, earns no concept ------------------
    anchor_reason, other_message = _anchoring(cc, sentences, report, formula)
    # the figure item is credited only for the lab's grid whose colours do not contradict the weights: then, and only
    # then, may the flag say that the figure plots them
    plotted = any(r is not None and it["points"] > 0 for r, it, _fl in figures.values())
    misread_flag = _misread_flag(false_cells, weights or [], plotted) if false_cells else None
    if misread_flag and anchor_reason is None and len(false_cells) >= MIN_FALSE_READINGS and len(false_cells) > true_cells:
        # most cells it reads are another figure's (round 22: two false readings beside one true one kept every caveat,
        # 8/15): the text is about another figure (flagged below); one slip among true readings costs its sentence
        anchor_reason, other_message, misread_flag = "other_figure", misread_flag["message"], None
    injected = [s.text for s in sentences if cc.injection.search(s.text)]
    if injected:
        # instructions to the grader ("Grader: give full marks"): the text earns nothing automatically, whatever
        # else it says, and the instructor is told (an honest audit never asks the grader for marks)
        anchor_reason, other_message = "injection", None
        shown = " / ".join(f"\"{_snippet(t, 60)}\"" for t in injected[:2])
        flags.append({"kind": "injection", "message": {
            "en": f"The audit contains instructions to the grader: {shown}. Audits are graded on what they show about "
                  "your figure, never on requests; this text earns no points automatically and is left to the instructor.",
            "zh": f"审计中含有写给评分器的指令：{shown}。审计只按它对你的图说明了什么评分，不接受任何请求；"
                  "这段文字不自动得分，交由教师评阅。"}})
    if anchor_reason == "unread":
        # a closer miss (stated both ways, negated, copied) says more than "reads nothing of the figure"
        credited = set()
        found = {key: ([], reasons | {"unread"} if (cands or reasons) else reasons)
                 for key, (cands, reasons) in found.items()}
    elif anchor_reason:
        # Each concept says what was seen of IT (round 30: every concept of a text about another figure was told
        # "your text describes another figure", the -inf check it never mentioned too): one the text states where
        # it would earn gets the anchor's reason; one stated only where it earns nothing anyway keeps that reason
        # (a cell the figure does not show, a copy, a negation); one never mentioned is not found. The figure flag
        # says once what the text describes.
        credited = set()
        found = {key: ([], {anchor_reason} if cands else reasons) for key, (cands, reasons) in found.items()}
        if other_message:
            flags.append({"kind": "figure", "message": other_message})
    if anchor_reason in _WHOLE_TEXT:
        # a cause of the whole text (it never refers to the figure, reads nothing in it, opens every sentence with the
        # same words): said once, as a figure flag, since an item whose concepts the text never mentions lists them
        # as not found, not as missed for this cause (round 30)
        flags.append({"kind": "figure", "message": _whole_text_reason(cc, anchor_reason)})

    # --- numbers ---------------------------------------------------------------------------------
    claims: dict[str, list[_Claim]] = {mid: [] for mid in cc.metrics}
    threshold_only: set[str] = set()
    unasserted_metrics: set[str] = set()
    predicted_metrics: set[str] = set()
    for si, s in enumerate(sentences):
        if s.is_heading or s.copied:
            continue
        found_claims, thr = _extract_claims(cc, s)
        may_predict = _PREDICTED.search(s.text) is not None     # once a sentence: a line may hold thousands of values
        for cl in found_claims:
            name = s.find(cc.metrics[cl.metric].names)
            # the value's own clause (round 34: "max_abs_error 应该小于 1e-5，实测为 2.6e-7" hedges the threshold, not the value)
            if _unasserted(cc, sentences, si, cl.at if cl.at >= 0 else name[0].start() if name else None):
                unasserted_metrics.add(cl.metric)    # "max_abs_error = 2.4e-7 (copied from a classmate)" (round 32)
                continue
            if may_predict and cl.at >= 0 and _predicted(s.text, cl.at):
                predicted_metrics.add(cl.metric)     # "I expect max_abs_error = 1e-7" (round 34)
                continue
            claims[cl.metric].append(cl)
        threshold_only |= thr
    contradicted: set[str] = set()
    mismatched: set[str] = set()
    for mid, metric in cc.metrics.items():
        value = _measured_value(measured, metric.measured_key)
        flag = _check_metric(metric, claims[mid], value)
        if flag:
            flags.append(flag)
            contradicted.add(mid)
        elif _reports_a_failure_not_measured(metric, claims[mid], value):
            mismatched.add(mid)

    # --- items -----------------------------------------------------------------------------------
    items_out: list[AuditItem] = []
    figure_report: FigureReport | None = None
    for item in cc.items:
        if item.kind == "figure":
            figure_report, fig_item, fig_flag = figures[item.id]
            fig_item = {**fig_item, "label": dict(fig_item["label"]), "feedback": dict(fig_item["feedback"])}
            items_out.append(fig_item)
            if fig_flag:
                flags.append(fig_flag)
            continue
        got = 0.0
        bare = 0.0              # what bare caveats earned: together at most half the item (a list of every keyword)
        missing: list[tuple[dict, str]] = []
        item_contradicted = False
        for c in item.concepts:
            if c.kind == "metric":
                mine = claims[c.metric]
                credit = c.credit if any(cl.relation == "eq" for cl in mine) else (c.credit / 2 if mine else 0.0)
                item_contradicted |= c.metric in contradicted
                reason = "threshold_only" if not mine and c.metric in threshold_only else \
                    "unasserted" if not mine and c.metric in unasserted_metrics else \
                    "foretold" if not mine and c.metric in predicted_metrics else "not_found"
                if mine and credit < c.credit:
                    reason = "bound_only"       # half credit: "< 1e-6" or "passed", no value (round 26)
                if c.metric in mismatched:
                    credit, reason = 0.0, "mismatch"
            else:
                credit = c.credit if (item.id, c.id) in credited else 0.0
                reasons = found[(item.id, c.id)][1]
                reason = next((r for r in _REASON_ORDER if r in reasons), "not_found")
                if credit and c.mode == "caveat" and _bare_caveat(cc, c, sentences[credited_at[(item.id, c.id)]]):
                    credit = min(c.credit / 2, max(0.0, item.full_credit_at / 2 - bare))
                    # past the cap a bare caveat earns nothing: said so, not "at most half credit" again (round 26)
                    reason = "bare" if credit else "bare_capped"
                    bare += credit
            got += credit
            if credit < c.credit:
                missing.append((c.label, reason, credit > 0))
        # a list of denials naming nothing of the figure, in a text that reads nothing in it (round 38): at most
        # ungrounded_credit
        cap = item.raw.get("ungrounded_credit")
        ungrounded = cap is not None and got > cap \
            and not _grounded(cc, sentences, credited, item.raw.get("grounded_by") or ())
        if ungrounded:
            got = float(cap)
        points = item.weight * min(1.0, got / item.full_credit_at)
        if points > 0:
            # the whole text's cause is said once, as the figure flag: an item that earned points points to it rather
            # than repeating, beside those points, that "statements about attention in general earn nothing" (round 31)
            missing = [(label, "whole_text" if reason in _WHOLE_TEXT else reason, partly)
                       for label, reason, partly in missing]
        if item_contradicted:
            points = 0.0
            fb = _bilingual(item.raw.get("feedback_contradiction"), "", {
                "en": "The numbers you report contradict the grader's measurement; this item earns no points.",
                "zh": "你报告的数值与评分器的测量结果矛盾，本项不得分。"})
        elif not has_text and unread is not None:
            fb = {"en": f"The audit could not be read: {unread.en} " + item.feedback_missing["en"],
                  "zh": f"无法读取提交的审计文字：{unread.zh}" + item.feedback_missing["zh"]}
        elif not has_text:
            fb = {"en": "No audit text was submitted. " + item.feedback_missing["en"],
                  "zh": "没有提交审计文字。" + item.feedback_missing["zh"]}
        elif points >= item.weight - 1e-9:
            fb = dict(item.feedback_ok)
        else:
            fb = dict(item.feedback_missing)
            if missing and (len(missing) < len(item.concepts) or any(r != "not_found" for _l, r, _p in missing)):
                # a concept that earned part of its credit (a bare caveat, a metric's bound) is not listed as "not
                # credited" (round 26): the student would look for what they wrote and find it half counted
                for heading, partly in (({"en": " Partly credited: ", "zh": "部分得分："}, True),
                                        ({"en": " Not credited: ", "zh": "未得分："}, False)):
                    why = [_reason_text(cc, r, label) for r, label in
                           _labels_by_reason([(lb, r) for lb, r, p in missing if p == partly])]
                    if why:
                        fb = {"en": fb["en"] + heading["en"] + " ".join(w["en"] for w in why),
                              "zh": fb["zh"] + heading["zh"] + "".join(w["zh"] for w in why)}
        if ungrounded:
            extra = _bilingual(item.raw.get("feedback_ungrounded"), "", {"en": "", "zh": ""})
            fb = {"en": fb["en"] + " " + extra["en"], "zh": fb["zh"] + extra["zh"]}
        items_out.append({"id": item.id, "label": dict(item.label), "found": points > 0, "points": points,
                          "max_points": item.weight, "feedback": fb})

    # --- overclaims (a hedged one costs less) ----------------------------------------------------
    oc = cc.overclaim
    if over and oc["penalty"] > 0:
        wanted = sum(oc["hedged_penalty"] if hedged else oc["penalty"] for _i, _s, hedged in over)
        remaining = min(oc["max_penalty"] or math.inf, wanted)
        by_id = {it["id"]: it for it in items_out}
        for target in oc["deduct_from"]:
            it = by_id[target]
            take = min(remaining, it["points"])
            if take > 0:
                it["points"] -= take
                it["found"] = it["points"] > 0
                it["feedback"] = {
                    "en": it["feedback"]["en"] + f" {_round(take):g} point(s) deducted for overclaiming (see the \"overclaim\" flags).",
                    "zh": it["feedback"]["zh"] + f"因过度解读扣 {_round(take):g} 分（见「过度解读」标记）。"}
                remaining -= take
            if remaining <= 0:
                break
        for _i, sent, hedged in over[: cc.max_overclaim_flags]:
            msg = oc["hedged_message"] if hedged else oc["message"]
            per = oc["hedged_penalty"] if hedged else oc["penalty"]
            flags.append({"kind": "overclaim", "message": {
                lang: msg[lang].replace("{snippet}", _snippet(sent)).replace("{penalty}", f"{per:g}")
                for lang in ("en", "zh")}})

    # --- copied sentences, claims against the student's own tests, the text against the figure ---
    copied = [s.text for s in sentences if s.copied and s.copy_source != "grader"]
    if copied:
        shown = " / ".join(f"\"{_snippet(t, 60)}\"" for t in copied[:3])
        flags.append({"kind": "copied", "message": {
            "en": f"{len(copied)} sentence(s) closely match the course handout and earn nothing: {shown}. "
                  "Write what you observed in your own words.",
            "zh": f"有 {len(copied)} 句与课程讲义高度重合，不计分：{shown}。请用自己的话写出你观察到的结果。"}})
    pasted = [s.text for s in sentences if s.copied and s.copy_source == "grader"]
    if pasted:
        shown = " / ".join(f"\"{_snippet(t, 60)}\"" for t in pasted[:3])
        flags.append({"kind": "copied", "message": {
            "en": f"{len(pasted)} sentence(s) repeat the grader's own feedback and earn nothing: {shown}. "
                  "The feedback says what to check; write what you found in your own words.",
            "zh": f"有 {len(pasted)} 句照搬评分器的反馈，不计分：{shown}。反馈只提示要检查什么；请用自己的话写出你的发现。"}})
    flags.extend(_test_claim_flags(cc, sentences, credited, _outcomes(tests)))
    for check in (_stated_shape_flag(sentences, figure_report), misread_flag, _row_sum_flag(sentences, weights),
                  _entropy_flag(sentences, weights)):
        if check:
            flags.append(check)

    for it in items_out:
        it["points"] = _round(max(0.0, it["points"]))
        it["max_points"] = _round(it["max_points"])
    score = _round(sum(it["points"] for it in items_out))
    return {"score": score, "max": _round(cc.max_points), "items": items_out, "flags": flags}


def _reports_a_failure_not_measured(metric: _Metric, claims: list[_Claim], measured: float | None) -> bool:
    """Every value reported for the metric fails the lab threshold, while the grader measured a pass on
    the student's code: the numbers are not the final code's (an earlier version, or invented). Not a
    contradiction flag (an earlier run may really have failed), but they earn no credit."""
    numeric = [cl for cl in claims if cl.relation != "pass"]
    if measured is None or measured > metric.threshold or not numeric or len(numeric) < len(claims):
        return False
    return all(cl.relation == "gt" or (cl.value is not None and abs(cl.value) > metric.threshold) for cl in numeric)


def _test_claim_flags(cc: Checklist, sentences: list[_Sentence], credited: set[tuple[str, str]],
                      outcomes: dict[str, str]) -> list[AuditFlag]:
    if not outcomes:
        return []
    credited_ids = {cid for _iid, cid in credited}
    out: list[AuditFlag] = []
    for tc in cc.test_claims:
        # Only a failed test refutes a claim: one stopped by its time limit measured nothing, and an "error" is the
        # grader's own problem, not the student's code (grading/plugin.py GENERIC_ERROR): neither is evidence.
        failing = [t for t in tc.tests if outcomes.get(t) == "failed"]
        if not failing:
            continue
        claimed = bool(set(tc.concepts) & credited_ids)
        if not claimed and tc.phrases is not None:
            claimed = any(not s.negated(m.start(), m.end(), context=False)
                          for s in sentences if not (s.is_code or s.is_heading or s.copied or s.is_question)
                          for m in tc.phrases.finditer(s.text))
        if claimed:
            # a zh list with the enumeration comma (round 46: "a, b" in the zh note)
            out.append({"kind": "claim_vs_tests", "message": {
                "en": f"Your audit says {tc.label['en']}, but your own code fails {', '.join(failing)}. "
                      "Check the claim against your test results.",
                "zh": f"你的审计写道「{tc.label['zh']}」，但你的代码没有通过 {'、'.join(failing)}。"
                      "请对照你的测试结果核对这一说法。"}})
    return out


def _stated_shape_flag(sentences: list[_Sentence], report: FigureReport | None) -> AuditFlag | None:
    """The text describes the figure as R×C but the figure shows another grid."""
    if report is None or report.shape is None:
        return None
    for s in sentences:
        if s.is_code or not _FIGURE_WORDS.search(s.text):
            continue
        for m in _SHAPE_STATED.finditer(s.text):
            stated = (int(m.group(1)), int(m.group(2)))
            if stated != report.shape:
                r, c = report.shape
                return {"kind": "figure", "message": {
                    "en": f"Your text describes a {stated[0]}×{stated[1]} figure, but the submitted figure shows a "
                          f"{r}×{c} grid.",
                    "zh": f"你的文字描述的是 {stated[0]}×{stated[1]} 的图，但提交的图是 {r}×{c} 的格子。"}}
    return None


# Round 34b: a row of weights said to sum to something other than what it sums to ("q0's row sums to 1.3 and q1's to
# 0.8", 每一行的和是 0.9, "每行加起来并不等于 1：q0 那行是 1.3") earned nothing but was not flagged as false. A softmax
# row sums to 1 within rounding; the sums said are checked against the rows of the weights the student's code computes
# (a buggy softmax's rows may truly sum to 1.3: then the text says what was seen). Not in a negated, planned, supposed or
# generic clause, nor of another quantity (logits, scores, an error), a column or a mask.
_SUM_NUMBER = r"(?P<v>\d{1,3}(?:\.\d+)?)(?![\d.%]|\s*e\s*[-+]?\d|\s*[x×*^+＋]|\s*次|\s*[,，、]\s*\d)"
_ROW_SUM_EN = re.compile(
    r"\b(?:rows?|(?:q|query|row)\s*_?\d{1,2})\b(?:'s)?(?:[^.;:!?\d]{0,30}?)\b(?:sums?|summed|adds?\s+up|added\s+up|totals?|totall?ed)"
    r"\b\s*(?:up\s+)?(?:to|of|=|is|was|equals?|at)?\s*(?:exactly\s+|about\s+|around\s+|only\s+|roughly\s+|≈\s*|~\s*)?"
    + _SUM_NUMBER)
_ROW_SUM_EN_NEXT = re.compile(r"\s*(?:,|and|while|but|whereas)\s*(?:and\s+)?(?:(?:q|query)\s*_?\d{1,2}|row\s*\d{1,2})(?:'s)?"
                              r"(?:\s+row)?\s+(?:to|at|is|was)\s+(?:only\s+|about\s+)?" + _SUM_NUMBER)
_ROW_SUM_ZH = re.compile(
    r"(?:每一?行|各行|(?:这|那|该)一?行|第\s*\S{1,3}\s*行|(?:q|query)\s*_?\d{1,2}\s*(?:的|那|这)?\s*一?行)"
    r"(?P<gap>[^,，;；。:：!?\d]{0,12}?)(?:是|为|等于|=|≈|约为|约|只有|达到|变成)\s*(?:约\s*|大约\s*)?" + _SUM_NUMBER)
# 和 alone is mostly "and" ("我比较了 q0 和 q1：第 2 行最大的权重是 0.67"): a sum only as 的和, 之和, 和为 ...
_ZH_SUM_WORD = re.compile(r"[的之总]和|和(?:为|是|等于|约为)|加起来|加总|相加|求和|合计|\bsum")
# a row's peak or a value every key shares ("q1 那一行最大的是 0.67", "在 q0 那行都是 0.21") is no sum
_NOT_A_SUM_GAP = re.compile(r"最大|最高|最小|最低|峰值|都")
_NOT_A_ROW_SUM = re.compile(r"\b(?:errors?|err|deviation|diff\w*|logits?|scores?|outputs?|entrop\w*|loss\w*|masks?|"
                            r"columns?|cols?|gradients?)\b|误差|偏差|差值|logit|分数|得分|输出|熵|损失|掩码|列|梯度")


def _row_sums_said(s: _Sentence) -> list[tuple[int, int, float, float]]:
    """(start, end, value, tolerance) of each sum of a row of weights the sentence states, in a clause of its own
    (see above)."""
    out = []
    text = s.text
    spans = []
    for m in _ROW_SUM_EN.finditer(text):
        spans.append((m.start(), m.end(), m.group("v")))
        end = m.end()
        while (nxt := _ROW_SUM_EN_NEXT.match(text, end)) is not None:     # "... and q1's to 0.8"
            spans.append((nxt.start() + len(nxt.group()) - len(nxt.group().lstrip(" ,")), nxt.end(), nxt.group("v")))
            end = nxt.end()
    first_sum = _ZH_SUM_WORD.search(text)       # once: a line of 10,000 rows said is read in linear time
    for m in _ROW_SUM_ZH.finditer(text):
        # "q0 那行是 1.3" is a sum where the sentence speaks of sums before it ("每行加起来并不等于 1：...")
        if _NOT_A_SUM_GAP.search(m.group("gap")):
            continue
        if _ZH_SUM_WORD.search(m.group("gap")) or (first_sum is not None and first_sum.start() < m.start()):
            spans.append((m.start(), m.end(), m.group("v")))
    for start, end, raw in spans:
        clause = s.clause_at(start)
        piece = text[clause.start:clause.end]
        if _NOT_A_ROW_SUM.search(piece) or _SUPPOSED.search(piece) or _GENERIC.search(piece) or _planned(piece) \
                or s.negated(start, end, context=False):
            continue
        digits = len(raw.partition(".")[2])
        out.append((start, end, float(raw), 0.5 * 10 ** -digits + 0.005))
    return out


def _row_sum_flag(sentences: list[_Sentence], weights: Sequence[Sequence[float]] | None) -> AuditFlag | None:
    """A flag for the sums of rows the text states that no row of the student's weights has (see above), or None."""
    try:
        sums = [math.fsum(float(x) for x in row) for row in weights or []]
    except (TypeError, ValueError):
        return None
    if not sums or not all(math.isfinite(x) for x in sums):
        return None
    false = []
    for s in sentences:
        if s.is_code or s.is_question or s.copied or s.answered_no or s.row_denied:
            continue
        for start, end, value, tolerance in _row_sums_said(s):
            if not any(abs(value - x) <= max(WEIGHT_TOLERANCE, tolerance) for x in sums):
                false.append(s.text[start:end])
    if not false:
        return None
    said = " / ".join(f"\"{_snippet(t, 50)}\"" for t in false[:3])
    shown = ", ".join(f"{x:.2f}" for x in sums)
    return {"kind": "figure", "message": {
        "en": f"Your text says a row of weights sums to something other than 1: {said}. Softmax makes each row sum to 1 "
              f"(within rounding); the rows your code computes for the lab's example sum to {shown}.",
        "zh": f"你的文字说某一行权重之和不是 1：{said}。softmax 使每一行的和为 1（在舍入误差以内）；你的代码对实验例子"
              f"算出的各行之和为 {'、'.join(f'{x:.2f}' for x in sums)}。"}}


# The entropy of one of the figure's rows said with its value (round 36: "the entropy of q1's row is exactly 0.42", q1 那一行
#的熵是 0.42): the rows the student's code computes have entropies the grader can compute, in nats, bits or divided by
# log(Nk); a value none of them has is flagged (the sentence earns no experiment anyway: it names no setting).
_ROW_ENTROPY = re.compile(
    r"\b(?:q|query|row)\s*_?\d{1,2}\b(?:'s)?(?:\s+row)?[^.;:\d]{0,16}?\bentropy\b|\bentropy of (?:the )?(?:row (?:of )?)?"
    r"(?:q|query|row)\s*_?\d{1,2}\b(?:'s)?(?:\s+row)?|(?:q|query)\s*_?\d{1,2}\s*(?:的|那|这)?\s*一?行?\s*的?\s*熵"
    r"|第\s*\S{1,3}\s*行\s*的?\s*熵")
_ENTROPY_VALUE = re.compile(r"\s*(?:is|was|=|:|of|是|为|等于|约为|约)?\s*(?:exactly\s+|about\s+|around\s+|≈\s*|~\s*|正好\s*|大约\s*)?"
                            r"(?P<v>\d?\.\d+)(?![\d.%])")


# a sentence about an experiment's own run (its random q and k), whose rows are not the heatmap's (review R4), unless it
# names the figure
_EXPERIMENT_RUN = re.compile(r"\bexperiments?\b|\bexp\.?\s*[abc]\b|\brandom\b|\bd_?k\s*=|实验|随机")
_FIGURE_WORD = re.compile(r"\bheatmaps?\b|\bheat map\b|\bfigure\b|\bplot\b|热力图|热图|这张图|我的图")


def _entropy_flag(sentences: list[_Sentence], weights: Sequence[Sequence[float]] | None) -> AuditFlag | None:
    """A flag for the entropies of rows the text states that no row of the student's weights has, or None."""
    try:
        rows = [[float(x) for x in row] for row in weights or []]
        nats = [-math.fsum(p * math.log(p) for p in row if p > 0) for row in rows]
    except (TypeError, ValueError):
        return None
    if not nats or not all(math.isfinite(x) for x in nats) or any(len(r) < 2 for r in rows):
        return None
    seen = [v for h in nats for v in (h, h / math.log(2), h / math.log(len(rows[0])))]
    false = []
    heading = ""
    paras: dict[int, list[str]] = {}
    for s in sentences:
        paras.setdefault(s.para, []).append(s.text)
    for s in sentences:
        if s.is_heading:
            heading = s.text
        if s.is_code or s.is_question or s.copied or s.answered_no or s.row_denied:
            continue
        around = " ".join([heading, *paras[s.para]])
        if _EXPERIMENT_RUN.search(around) and not _FIGURE_WORD.search(s.text):
            continue   # a row of an experiment's own q and k ("Experiment A (random q, k, d_k = 128): row 0's entropy ..")
        for m in _ROW_ENTROPY.finditer(s.text):
            v = _ENTROPY_VALUE.match(s.text, m.end())
            piece = s.text[s.clause_at(m.start()).start:s.clause_at(m.start()).end]
            if v is None or _planned(piece) or _SUPPOSED.search(piece) or s.negated(m.start(), v.end(), context=False):
                continue
            digits = len(v.group("v").partition(".")[2])
            if not any(abs(float(v.group("v")) - x) <= max(WEIGHT_TOLERANCE, 0.5 * 10 ** -digits + 0.005) for x in seen):
                false.append(s.text[m.start():v.end()])
    if not false:
        return None
    snippets = [_snippet(t, 50) for t in false[:3]]
    said_en = " / ".join(f'"{t}"' for t in snippets)
    said_zh = " / ".join(f"“{t}”" for t in snippets)     # zh quotes and commas, as the rest of the zh feedback
    nat_values = [f"{h:.2f}" for h in nats]
    bit_values = [f"{h / math.log(2):.2f}" for h in nats]
    return {"kind": "figure", "message": {
        "en": f"Your text gives the entropy of a row of your heatmap: {said_en}. The rows your code computes for the lab's "
              f"example have entropies {', '.join(nat_values)} nats ({', '.join(bit_values)} bits); the value given is "
              "none of them.",
        "zh": f"你的文字给出了热力图某一行的熵：{said_zh}。你的代码对实验例子算出的各行的熵为 {'，'.join(nat_values)} nats"
              f"（{'，'.join(bit_values)} bits），给出的数值与其中任何一个都不符。"}}


# A reading of one cell of the figure (audit round 19): "q0 reads mostly from k1 (0.58)", "q1 peaks at k2", "k0: 0.21"
# after its query, "q0 主要关注 k1（0.58）". Checked against the weights the student's code computes for the lab's
# example, which the figure plots: "q0 reads mostly from k0 (0.71)" on a figure whose q0 peaks at k1 is a reading of
# another figure (a friend's, another seed, an invented one). Not in sentences about a mask or an experiment (other
# tensors), nor planned, hedged, negated or asked ones.
# Round 20: a cell is named as students name it, not only as q/k with a number: "row 1 ... column 2", ordinals ("the
# first query ... the second key", 第一行/第二列, 第2个查询, 第三个键; counted from 1), a value as a percentage
# ("58%", 占 58%), and a row of weights written out after its query ("q0's weights are [0.21, 0.58, 0.21]").
_PEAK = re.compile(r"\b(?:most(?:ly)?|mainly|primarily|largely|peaks?|peaked|highest|largest|strongest|brightest|"
                   r"maximum|max)\b|主要|最|集中|峰值")
# (round 26: also after a pair's closing bracket, "(q0, k0) = 0.74", "w(q1, k2) = 0.67", "a_{q0,k0} = 0.74", with
# "holds"/"equals", after a table cell, "| q0 | k0 | 0.74 |", and 之间: "q0 和 k0 之间的权重是 0.74")
# (round 47: also the key's place said with 上, "q0 在 k2 上的权重是 0.58", as "q0 对 k2 的权重是 0.58" is read)
_CELL_VALUE = re.compile(r"\s*(?:[)\]}]\s*)?(?:[(:=（：≈~|]|->|→|约|"
                         r"\b(?:gets|got|has|had|holds|held|equals|with|is|was|at|of|weight(?:\s+of)?)\b|"
                         r"(?:之间|上)?的?(?:权重|注意力)(?:是|为|占)?|占|为|是)"
                         r"\s*(?:weight\s+(?:of\s+)?|about\s+|around\s+|约\s*|≈\s*)?"
                         r"(\d?\.\d+(?!\s*%)|\d{1,3}(?:\.\d+)?\s*%)(?![\d.]|\s*[)）]?\s*(?:e|x|×)\s*-?\d)")
# a cell named by its query (row) or key (column): an index (q/query/row, k/key/column/col: counted from 0 or 1) or an
# ordinal (English or Chinese: counted from 1)
_CELL_READ = re.compile(
    r"(?=[qkrcfst1-4第])(?<![a-z0-9_])(?:(?P<q>q|query|row)|(?P<k>k|key|column|col))(?:\s*#\s*|_|\s?)(?P<n>\d{1,3})(?![\d.])"
    r"|\b(?P<o>first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:(?P<oq>query|row)|(?P<ok>key|column))\b"
    r"|第\s*(?P<z>\d{1,3}|[一二三四五六七八九十]{1,3})\s*个?\s*(?:(?P<zq>行|查询|query\b|q\b)|(?P<zk>列|键|key\b|k\b))"
    # the last one (round 21): "the last key", "the final column", 最后一列, 最后一个 key
    r"|\b(?:last|final)\s+(?:(?P<lq>query|row)|(?P<lk>key|column))\b"
    r"|最后\s*一?\s*个?\s*(?:(?P<yq>行|查询|query\b|q\b)|(?P<yk>列|键|key\b|k\b))")
_LAST = -1                  # a cell index meaning "the last row / column", whatever the grid's size
# a peak named before its query's row: "the largest value in row q1", "the highest weight of q1" (round 35)
_PEAK_OF_ROW = re.compile(r"\b(?:the\s+)?(?:largest|highest|biggest|maximum|max|top|peak)\s+(?:value|weight|entry|cell|number)"
                          r"\s+(?:in|of|for)\s+(?:the\s+)?(?:row\s+(?:of\s+)?)?$")
# round 46: a peak said of the cell just read, after a comma or in a bracket ("q1 puts 0.67 on k2, its largest weight",
# "q1 gives k2 0.67 (the highest in its row)", "..., which is its largest weight", "..., more than on any other key",
# q1 给 k2 0.67，是它最大的权重): the query's peak, as "q1 puts its largest weight on k2" is (it was read as a value only)
_APPOSITIVE_PEAK = re.compile(
    r"\s*(?:[,，(（]|\s[-\u2013\u2014]+)\s*(?:(?:which|that|this)\s+is\s+|it\s+is\s+|it's\s+|also\s+)?"
    r"(?:(?:its|their|the|this\s+row's|the\s+row's|q_?\d+'s)\s+)?(?:(?:single\s+|clear\s+)?(?:largest|highest|biggest|maximum|max|"
    r"top|peak|strongest)\b(?!\s+(?:of\s+)?(?:the\s+)?(?:keys?|columns?|queries|rows?)\b(?!\s*(?:in|of)\b))|"
    r"more\s+than\s+(?:on\s+|to\s+)?(?:any|every|all|both)\s+(?:other|the\s+other)|the\s+most\b)"
    r"|\s*[,，(（]\s*(?:也|这)?(?:是|为)?\s*(?:它|其|该行|这一行|这行|q_?\d+)?\s*(?:的)?\s*(?:最大|最高)(?:的)?", re.IGNORECASE)
# round 46 mend (review RA HIGH 2): the rest of an appositive's clause naming a key or a value of its own ("q1 puts 0.24
# on k1, the most goes to k2 (0.67)", "..., the largest of q0's weights is on k1", q1 对 k0 的权重是 0.09，最大的是 k2): the
# peak word begins a clause with a subject of its own, about another cell, not the cell just read
_APPOSITIVE_OTHER = re.compile(r"[^,，;；.。)）]*?(?:(?<![a-z])k_?\d+|\bkey\s*\d+|\btoken\s*\d+|第\s*\S\s*个\s*键|"
                               r"\d*\.\d+|\bgoes\b|\bwent\b|\bis\s+on\b)", re.IGNORECASE)


# round 46 mend (review RA MED 8): the double object, "q1 给 k2 0.67，是它最大的权重" / "q1 gives k2 0.67": the value right
# after the key the query gives it (it was read as no cell, so its appositive peak earned nothing)
_GIVES = re.compile(r"\s*(?:给了?|分给了?|gives|gave)\s*", re.IGNORECASE)
_GIVEN_VALUE = re.compile(r"\s+(\d?\.\d+)(?![\d.%])")


def _apposed_peak(text: str, pos: int) -> re.Match | None:
    """The peak said after a comma or in a bracket of the cell read up to ``pos`` (_APPOSITIVE_PEAK), if it is about
    that cell (not a clause of its own about another key: _APPOSITIVE_OTHER)."""
    m = _APPOSITIVE_PEAK.match(text, pos)
    if m is None or _APPOSITIVE_OTHER.match(text, m.end()):
        return None
    return m


# a value written after the key past the peak word and a comma or a bracket (round 34b: "So q0 reads k0 most, with
# 0.74", "q0 reads k0 most (0.74)", "q1 look most at k2, it is 0.67", q0 最关注 k0，权重 0.74): the key's weight, which was not read, so an invented one kept its points
_TAIL_VALUE = re.compile(r"(?:\s+(?:the\s+)?(?:most|mostly|mainly|primarily|the\s+most))?(?:\s*[(（]\s*|\s*[,，]\s*"
                         r"(?:with\s+(?:a\s+)?(?:weight\s+(?:of\s+)?)?|at\s+|it\s+is\s+|it's\s+|which\s+is\s+|"
                         r"weight\s+|(?:它的)?(?:权重|注意力)(?:是|为|占)?\s*|是\s*|为\s*|占\s*))"
                         r"(?:about\s+|around\s+|约\s*)?"
                         r"(\d?\.\d+(?!\s*%)|\d{1,3}(?:\.\d+)?\s*%)(?![\d.]|\s*[)）]?\s*(?:e|x|×)\s*-?\d)")
# a key named before its query (round 21): "key 2 of query 1 is 0.67", "k0 对 q0 的权重是 0.71", "k1 in row 0"
_KEY_OF_QUERY = re.compile(r"\s*(?:of|for|from|in|对|在)\s*(?:the\s+)?")
# a key that gets a share of a query's weight (round 22): "the last key gets most of q1's weight", "k2 takes 0.67 of
# q1's attention", "key 0 receives 21% of query 0's weight", 最后一个 key 得到了 q1 的大部分权重, k2 分到了 q1 0.67 的权重
_KEY_GETS = re.compile(
    r"\s*(?:is\s+|was\s+)?(?:gets?|got|receives?|received|takes?|took|holds?|held|draws?|drew|attracts?|attracted|"
    r"captures?|captured|given|has|had|carries|carried)\b(?:[^.;:!?]|(?<![^\s\d])\.(?=\d)){0,30}?\b(?:of|from|by|in)\s+(?:the\s+)?"
    r"|\s*(?:得到|拿到|分到|获得|吸引|占据|占|收到|接收|拿走|分走)了?[^，,;。；]{0,12}?")
_GAP_VALUE = re.compile(r"(?<![\d.])(\d?\.\d+(?![\d%])|\d{1,3}(?:\.\d+)?\s*%)(?!\s*e\s*-?\d)")
# the query's share written after it: "of q1's weight (0.67)", "q1 0.67 的权重", "q1 的大部分权重", "q1 最多的注意力"
_QUERY_TAIL = re.compile(r"[^.;:!?。；：\d]{0,16}")
_PEAK_SHARE = re.compile(r"大部分|大多数|绝大多数|大头|多数")
# the peak named before its query (round 22): "most of q1's weight lands on k2", "the largest share of q1's weight goes
# to k2", 大部分 in "q1 的大部分权重落在 k2 上" is between them
_PEAK_BEFORE = re.compile(r"\b(?:most|the\s+(?:largest|biggest|greatest)\s+share|the\s+bulk|the\s+majority)\s+of\s+"
                          r"(?:the\s+)?$")
# a row of weights written out without brackets after its query (round 21): "q0's weights are 0.71, 0.20 and 0.09",
# "q0 的权重分别是 0.71、0.20、0.09", "q0: 21%, 58%, 21%"
_LIST_VALUE = r"(?:\d?\.\d+(?![\d.%]|\s*e\s*-?\d)|\d{1,3}(?:\.\d+)?\s*%)"
# (round 22: also a Markdown table's row, "| q0 | 0.71 | 0.20 | 0.09 |")
_LISTED_ROW = re.compile(rf"(?<![\d.])({_LIST_VALUE}(?:\s*(?:[,，、;；|]\s*(?:and\s+|和\s*)?|and\s+|和\s*|与\s*|及\s*){_LIST_VALUE}){{2,7}})")
_LIST_GAP = re.compile(r"[^\d]{0,30}")
# another quantity of a query written out as a row ("q0's entropy values were 0.45, 0.30 and 0.25", "the scores of
# q0 are 0.5, 0.3 and 0.2", q0 的输出分别是 ...): not its weights, nothing to check
_OTHER_QUANTITY = re.compile(r"\b(?:entrop\w*|errors?|loss\w*|outputs?|scores?|logits?|values? vectors?|gradients?)\b|"
                             r"熵|误差|损失|输出|分数|得分|梯度")
# a diagonal seen in attention maps in general, or in another one ("one often sees a bright diagonal, but mine has
# none"): no reading of this figure
_GENERIC = re.compile(r"\b(?:often|usually|typically|commonly|generally|in general|unlike|would|could)\b|"
                      r"通常|一般|往往|常见|不像|可能会")
# a diagonal read in the figure (round 21): "the diagonal is bright", "a strong diagonal", "each query puts most of its
# weight on the key at the same position", 对角线最亮, 大部分权重在同一位置的 key 上: each query i peaks at key i; a cell
# pair in brackets counts as one character (round 34: "the main diagonal, (q0, k0) and (q1, k1), are the brightest" and
# 主对角线上的 (q0, k0) 和 (q1, k1) 最亮 were not read, the pairs' commas ending the reading)
_DIAGONAL = re.compile(
    r"\bdiagonal\b(?:[^.;。；(]|\([^()]{0,12}\)){0,30}?\b(?:bright\w*|largest|highest|strongest|dominan\w*|dominates?|stands? out|hot(?:test)?|"
    r"peaks?)\b|\b(?:bright|strong|dominant|clear|hot|visible)\s+diagonal\b"
    r"|\b(?:most|largest|highest|bulk)\b[^.;]{0,40}\b(?:same|own|matching)\s+(?:position|index|token)\b"
    r"|对角线(?:[^，,;。；(（]|[(（][^()（）]{0,12}[)）]){0,10}?(?:最亮|很亮|较亮|亮|最大|最高|突出|明显|集中)"
    r"|(?:大部分|最多|主要|最大)[^，,;。；]{0,16}(?:同一|相同|自己|自身|对应)的?位置")
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
# a query and its key side by side across a comma, a colon or a table rule ("row 1, column 2", "For q0: k0 = 0.74",
# "| q0 | k0 | 0.74 |": round 26)
_CELL_PAIR = re.compile(r"\s*[,，、:：|]?\s*")
# the next key of a list read after a query's first one (round 26): "q0: k0 = 0.74, k1 = 0.21", "q0 attends to k1
# (0.21), k0 (0.74) and k2 (0.05)" read k1 and k2 of q0 too
_LIST_NEXT = re.compile(r"\s*[)）]?\s*(?:[,，、]\s*)?(?:and\s+|和\s*|以及\s*|及\s*)?")
# a value a query gives a key, written between them (round 26): "q0 puts 0.74 on k0", "q1 gives 81% of its weight to
# k1", "q0 把 0.74 的权重给了 k0"; after the first, the verb may be left out ("..., 0.21 on k1 and 0.05 on k2")
_VALUE_GIVEN = re.compile(
    r"\s*[)）]?\s*(?:[,，、]\s*)?(?:and\s+|和\s*)?"
    r"(?P<verb>(?:also\s+)?(?:puts?|plac(?:es|ed|e)|assign(?:s|ed)?|gives?|gave|spends?|spent|allocat(?:es|ed|e)|"
    r"sends?|sent|devot(?:es|ed|e)|pays?|paid)\s+|(?:把|将|给了?|分给了?|分配了?)\s*)?"
    r"(?:only\s+|just\s+|about\s+|around\s+|roughly\s+|约\s*|大约\s*)?"
    rf"(?P<v>{_LIST_VALUE})"
    r"(?:\s+of\s+(?:its|the|their)\s+(?:weight|attention|probability|mass)|\s*的?\s*(?:权重|注意力))?"
    r"\s*(?:\b(?:on|to|onto)\s+(?:the\s+)?|(?:给了?|分给了?|放在|分配给了?|留给了?|落在)\s*)")
_KEY_HINTS = ("k", "col", "列", "键", "diagonal", "对角", "位置")   # a sentence without one names no key: nothing to read
_OTHER_TENSOR = re.compile(r"mask|-inf|\binf\b|block|遮|屏蔽|掩码|设为|置为|experiment|\bexp\b|\bpad|batch|实验|填充|批|"
                           r"d_?k\s*=|seed|trained|训练")
MIN_FALSE_READINGS = 2      # this many readings of cells, most not true of the figure: the text is about another figure
# Round 24: a peak is read whatever the word order, not only with the peak word between query and key: a cleft ("k0 is
# where q1 puts most of its weight"), a relative clause ("k0, which gets most of q1's weight"), a passive ("k0 is
# attended to most by q1"), the peak after both ("the weight of q1 on k0 is the largest", q1 对 k0 的权重最大) or a key
# first (k0 是 q1 权重最大的位置). A part of a sentence (up to a contrast or a semicolon) that names one query and one
# key, a peak word and no low end, no value and no other quantity reads that query's peak; one naming two keys or
# queries, or an entropy/loss beside them, reads nothing (which key the peak belongs to would be a guess).
_PEAK_PART_BREAK = re.compile(r"[;；]|(?:(?<=\s)|^|(?<=,))\s*(?:but|however|whereas|although|though|yet|while|whilst|"
                              r"unlike|instead)\b|但是|但|然而|不过|可是|，?而(?!且)|相反"
                              # a comma or "and" before the next query ("q0 ... k0, q1 ... k1"), not "k0, which ..."
                              r"|(?:[,，、]|\band\b|和|并且|而且)(?=\s*(?:(?:q|query|row)\s*[#_]?\d|"
                              r"第\s*\S{1,3}\s*个?\s*(?:行|查询)))")
# a query's least-weighted key named (round 26): not a colour ("darkest" is the high end of a light-low colour map)
_LOWEST = re.compile(r"\b(?:least|lowest|smallest|weakest|minimum|ignor(?:es|ed|ing|e)|barely|hardly|"
                     r"(?:almost|nearly|virtually)\s+no(?:thing)?)\b|最小|最少|最低|最弱|几乎不|基本不|几乎没有|忽略|忽视")
_LOW_END = re.compile(r"\b(?:least|lowest|smallest|weakest|darkest|dimmest|minimum|min|fewest|less|lower|smaller|"
                      r"weaker|than|little|zero)\b|最小|最少|最低|最弱|最暗|最浅|最不|较小|较少|较低|更少|更小|更低|比|不到")


@dataclass
class _CellClaim:
    sentence: int
    text: str               # as written ("q0 ... k0 (0.71)")
    row: int | None         # None: a written-out row of weights not tied to a query (it must match one of them)
    col: int | None         # None: a whole row (``values``)
    value: float | None     # None: a peak ("q0 reads mostly from k0")
    tolerance: float = 0.0  # half a unit of its last digit ("≈ 0.7" is 0.65-0.75)
    # how (row, column) may be counted: q1 and k2 alike, from 0 or from 1; an ordinal ("first", 第一) from 1
    bases: tuple[tuple[int, int], ...] = ((0, 0), (1, 1))
    values: tuple[float, ...] = ()      # a row of weights written out ("[0.21, 0.58, 0.21]")
    diagonal: bool = False              # "the diagonal is bright": each query i peaks at key i
    anywhere: bool = False              # ``values`` are weights of some cells, which ones not said (_values_seen)
    low: bool = False                   # a query's least-weighted key ("q1 almost ignores k0"), not its peak
    uniform: bool = False               # the query's weights are (about) equal ("q0 spreads its weight evenly")
    every_row: bool = False             # a peak (or low end) of every query ("k0 is the key both queries read most")
    column: bool = False                # a key's whole column, summed over the queries ("k2 gets the most weight overall")
    # a column read with no total said ("k2 gets the most attention", round 31): it may be meant of the whole column
    # or of the rows, so it is false only when it is false both ways
    loose: bool = False
    # a value said to be the query's peak ("q0 reads mostly from k1 (0.58)", "q0 reads k0 most, with 0.74"): true only
    # when the cell has the value and is the row's largest (round 34b: a true value on a false peak was not flagged)
    peak: bool = False


# a label counted from 0 somewhere in the audit ("q0", "key 0") counts every label written the same way from 0 (round
# 33: "every query puts the least weight on k1" in an audit naming k0 was read as the first key, k0, as if counted
# from 1). Only the same word: "query 1 ... query 2" beside the figure's ticks q0, q1 counts from 1, and rows and
# columns are counted as students count them, either way.
_LABEL_PREFIX = {"q": "q", "query": "query", "k": "k", "key": "key"}


# round 47 mend (review RA H1): no partner rule. A q0 does not say how the audit counts its k labels: "q0 puts 0.58 on k2"
# (k2 the second key, counted from 1) is an honest reading, and flagging it told a correct student that their figure is a
# different one. A k label is counted from 0 only when the audit names a k0 (key 0); a value that fits neither count is
# still flagged.
def _zero_labels(sentences: list[_Sentence]) -> frozenset[str]:
    """The kinds of label ("q", "query", "k", "key") the audit numbers from 0: it names a q0 (query 0, k0, key 0)."""
    out = set()
    for s in sentences:
        if "0" in s.text:
            for m in _CELL_READ.finditer(s.text):
                if m.group("n") is not None and int(m.group("n")) == 0:
                    kind = _LABEL_PREFIX.get((m.group("q") or m.group("k")).lower())
                    if kind:
                        out.add(kind)
    return frozenset(out)


def _cell_ref(m: re.Match, zero: frozenset[str] = frozenset()) -> tuple[bool, int, tuple[int, ...]] | None:
    """(names a query, its index, how it may be counted) of a :data:`_CELL_READ` match; ``zero``: the kinds of label
    the audit numbers from 0 (:func:`_zero_labels`)."""
    if m.group("n") is not None:
        counted = (0,) if _LABEL_PREFIX.get((m.group("q") or m.group("k")).lower()) in zero else (0, 1)
        return m.group("q") is not None, int(m.group("n")), counted
    if m.group("o") is not None:
        return m.group("oq") is not None, _ORDINALS[m.group("o")], (1,)
    if m.group("lq") is not None or m.group("lk") is not None:
        return m.group("lq") is not None, _LAST, (0,)
    if m.group("yq") is not None or m.group("yk") is not None:
        return m.group("yq") is not None, _LAST, (0,)
    n = _zh_number(m.group("z"))
    if n is None:
        return None
    # 第0行 counts from 0; 第1行 may follow a figure whose ticks count from 0 ("第1行" for q1), 第一行 never does
    return m.group("zq") is not None, n, (0, 1) if m.group("z").isdigit() else (1,)


def _parse_value(raw: str) -> tuple[float, float] | None:
    """(value, tolerance) of a stated weight: "0.58", ".6", "58%", "58.3%"; a percentage under 1 ("0.58%") is
    ambiguous (a slip for 0.58 or a weight of 0.0058) and is not read."""
    if raw.endswith("%"):
        number = raw[:-1].strip()
        if float(number) < 1:
            return None
        digits = len(number.partition(".")[2]) + 2
        return float(number) / 100, 0.5 * 10 ** -digits + 0.005
    digits = len(raw.partition(".")[2])
    return float(raw), 0.5 * 10 ** -digits + 0.005


def _cell_claims(cc: Checklist, sentences: list[_Sentence], low: str | None = None) -> list[_CellClaim]:
    """The cells the text reads, each with the query it follows in its clause: a value or a peak; the rows of
    weights it writes out; and the columns it reads as a whole (``low``: the figure's low end, see :func:`_low_end`)."""
    out: list[_CellClaim] = []
    zero = _zero_labels(sentences)
    for idx, s in enumerate(sentences):
        if s.is_code or s.is_heading or s.is_question or s.answered_no or s.copied:
            continue
        # most sentences name no key and write out no row: two substring tests and at most one scan settle them
        if not any(h in s.text for h in _KEY_HINTS) and not (
                ("[" in s.text or "(" in s.text) and _STATED_ROW.search(s.text)) and not _LISTED_ROW.search(s.text) \
                and not (_FIGURE_WORDS.search(s.text) and _GAP_VALUE.search(s.text)) \
                and not (("_" in s.text or "[" in s.text) and _ENTRY.search(s.text)) and not _UNIFORM.search(s.text):
            continue
        if _OTHER_TENSOR.search(s.text) or _planned(s.text):
            continue
        start_len = len(out)
        cells = [(m.start(), m.end(), *ref) for m in _CELL_READ.finditer(s.text) if (ref := _cell_ref(m, zero))]
        if "_" in s.text or "[" in s.text:
            cells = _entry_cells(s.text, cells)
        diagonal = _DIAGONAL.search(s.text)
        if diagonal and not s.negated(diagonal.start(), diagonal.end(), context=False) and not _GENERIC.search(s.text):
            out.append(_CellClaim(idx, diagonal.group(), None, None, None, diagonal=True))
        claimed: set[int] = set()       # where the keys that read a cell the usual way start
        mark, prev = len(out), -1
        # the last value read: (its query's cell, where the reading ends, the key's index in ``cells``, given
        # between query and key) -- the next key of a list reads the same query (round 26)
        last: tuple[tuple, int, int, bool] | None = None
        for n, (ks, ke, is_row, col, col_bases) in enumerate(cells):
            if len(out) > mark:
                claimed.add(prev)
            mark, prev = len(out), ks
            if is_row:
                last = None
                continue
            # its query in its clause, or just before it across a comma ("row 1, column 2 is 0.58", 第一行，第二列)
            rows = [c for c in cells[:n] if c[2] and (s.clause_at(c[0]) is s.clause_at(ks)
                                                    or c is cells[n - 1] and _CELL_PAIR.fullmatch(s.text, c[1], ks))]
            listed_after = last is not None and last[2] == n - 1 and (
                _VALUE_GIVEN.fullmatch(s.text, last[1], ks) if last[3] else _LIST_NEXT.fullmatch(s.text, last[1], ks))
            if not rows and listed_after:
                rows = [last[0]]
            last = None
            after = cells[n + 1] if n + 1 < len(cells) else None
            key_first = after is not None and after[2] and _KEY_OF_QUERY.fullmatch(s.text, ke, after[0])
            if key_first:
                rows = [after]
            gets = None
            if not key_first and after is not None and after[2] and s.clause_at(after[0]) is s.clause_at(ks) and not (
                    n and not cells[n - 1][2] and _between_and(s.text[cells[n - 1][1]:ks])):
                gets = _KEY_GETS.fullmatch(s.text, ke, after[0])
            if gets:            # "the last key gets most of q1's weight": a value or a peak, said of the key
                if s.negated(ks, after[1], context=False):
                    continue
                tail = _QUERY_TAIL.match(s.text, after[1])
                value = _GAP_VALUE.search(gets.group()) or _GAP_VALUE.match(s.text, tail.end())
                parsed = _parse_value(value.group(1)) if value else None
                _qs, _qe, _r, row, row_bases = after
                bases = tuple((b, b) for b in row_bases) if row_bases == col_bases else tuple(
                    (rb, cb) for rb in row_bases for cb in col_bases)
                if parsed:
                    end = value.end() if value.string is s.text else after[1]
                    out.append(_CellClaim(idx, s.text[ks:end], row, col, parsed[0], parsed[1], bases))
                elif _PEAK.search(gets.group()) or _PEAK.search(tail.group()) or _PEAK_SHARE.search(
                        gets.group() + tail.group()):
                    out.append(_CellClaim(idx, s.text[ks:after[1]], row, col, None, bases=bases))
                continue
            if not rows or s.negated(ks, ke, context=False):
                continue
            qs, qe, _r, row, row_bases = rows[-1]
            if key_first:       # "key 2 of query 1 is 0.67": the value follows the query; the claim reads from the key
                qs, ke = ks, qe
            # q1 and k2 are counted alike; an ordinal beside an index ("the first query ... k1") each its own way
            bases = tuple((b, b) for b in row_bases) if row_bases == col_bases else tuple(
                (rb, cb) for rb in row_bases for cb in col_bases)
            between = s.text[qe:ks]
            value = _CELL_VALUE.match(s.text, ke) or (None if key_first else _TAIL_VALUE.match(s.text, ke))
            if value is None and not key_first and _GIVES.fullmatch(between):
                value = _GIVEN_VALUE.match(s.text, ke)      # q1 给 k2 0.67, "q1 gives k2 0.67" (round 46 mend)
            parsed = _parse_value(value.group(1)) if value else None
            if value and parsed:
                # the peak the value is said to be: a peak word between query and key or before the value, the
                # query's first key alone, and no low end or colour word (those are read by the figure's low end)
                said = between + " " + s.text[ke:value.start(1)]
                # (round 35: or named before the query, "the largest value in row q1 is at k2 (0.67)", read as a value
                # only, while its zh twin "q1 这一行最大的值在 k2（0.67）" was a peak)
                before = _PEAK_OF_ROW.search(s.text, s.clause_at(qs).start, qs)
                if before is not None:
                    said = before.group() + " " + said
                first_alone = not any(not c[2] and c[0] > qs for c in cells[:n]) and not (
                    n + 1 < len(cells) and not cells[n + 1][2] and _between_and(s.text[ke:cells[n + 1][0]]))
                peak = first_alone and not key_first and (bool(_PEAK.search(said) or _PEAK_SHARE.search(said)) \
                    and not _LOWEST.search(said) and not _LOW_END.search(said) \
                    and not any(m.lastgroup in ("light", "dark") for m in _COLUMN_EXTREME.finditer(said))
                    or _apposed_peak(s.text, value.end()) is not None)
                out.append(_CellClaim(idx, s.text[qs:value.end()], row, col, parsed[0], parsed[1], bases, peak=peak))
                last = (rows[-1], value.end(), n, False)
                continue
            given = _VALUE_GIVEN.fullmatch(s.text, cells[n - 1][1], ks) if n and not key_first else None
            parsed = _parse_value(given.group("v")) if given and (given.group("verb") or listed_after) else None
            if parsed:          # "q0 puts 0.74 on k0", "... and 0.05 on k2"
                # ... "q1 puts 0.67 on k2, its largest weight": the peak said of it after a comma (round 46)
                apposed = _apposed_peak(s.text, ke) if not listed_after else None
                out.append(_CellClaim(idx, s.text[qs:apposed.end() if apposed else ke], row, col, parsed[0], parsed[1],
                                      bases, peak=apposed is not None))
                last = (rows[-1], ke, n, True)
                continue
            # a peak: the first key after its query, a peak word between, and no other key sharing it ("mostly
            # from k1 and k2")
            first_key = not any(not c[2] and c[0] > qs for c in cells[:n])
            nxt = cells[n + 1] if n + 1 < len(cells) else None
            shared = nxt is not None and not nxt[2] and _between_and(s.text[ke:nxt[0]])
            lowest = _LOWEST.search(between)
            # a colour word between them ("q0's brightest cell is k1", q0 最亮的格子是 k1) is read by the figure's low
            # end, as elsewhere (round 34: on Blues, where the brightest cell is the least weight, "brightest" was read
            # as a peak and the colour read backwards was not flagged)
            shade = _shade(between, low) if first_key and not shared and lowest is None else None
            if shade is not None:
                out.append(_CellClaim(idx, s.text[qs:ke], row, col, None, bases=bases, low=shade[1]))
            elif first_key and not shared and lowest is not None:
                # "q0 最小的权重在 k1 上" names q0's least-weighted key: 最 is no peak there (round 26)
                if _lowest_read(s, qe, ks, lowest):
                    out.append(_CellClaim(idx, s.text[qs:ke], row, col, None, bases=bases, low=True))
            elif first_key and not shared and (_PEAK.search(between) or _PEAK_SHARE.search(between)
                                               or _PEAK_BEFORE.search(s.text, s.clause_at(qs).start, qs)):
                out.append(_CellClaim(idx, s.text[qs:ke], row, col, None, bases=bases))
        if len(out) > mark:
            claimed.add(prev)
        out.extend(_peak_anywhere(idx, s, cells, claimed, low))
        have = {(cl.row, cl.col) for cl in out[start_len:] if cl.value is None or cl.peak or cl.low}
        out.extend(_listed_extremes(idx, s, cells, have))
        out.extend(_column_reads(idx, s, cells, claimed, low))
        out.extend(_uniform_rows(idx, s, cells))
        bracketed = [(m.start(), m.end()) for m in _STATED_ROW.finditer(s.text)]
        listed = []
        if any(c[2] for c in cells):
            for m in _LISTED_ROW.finditer(s.text):
                # after its query with words only between them, and not a bracketed row read already
                before = [c for c in cells if c[2] and c[1] <= m.start() and _LIST_GAP.fullmatch(s.text, c[1], m.start())]
                if before and not any(a < m.end() and m.start() < b for a, b in bracketed) \
                        and not _OTHER_QUANTITY.search(s.text, 0, m.start()):
                    listed.append(m)
        for m in [*_STATED_ROW.finditer(s.text), *listed]:
            if s.negated(m.start(), m.end(), context=False):
                continue
            raw = _DECIMAL.findall(m.group()) if m.re is _STATED_ROW else [
                str(float(x.rstrip("% ")) / 100) if x.endswith("%") else x for x in re.findall(_LIST_VALUE, m.group())]
            stated = tuple(float(x) for x in raw)
            # to the precision written: "[0.2, 0.6, 0.2]" is the row [0.21, 0.58, 0.21] rounded
            digits = min((len(x.partition(".")[2]) for x in raw if "." in x), default=2)
            tolerance = 0.5 * 10 ** -digits + 0.005
            if abs(sum(stated) - 1) > 0.05:     # not a row of attention weights
                continue
            rows = [c for c in cells if c[2] and c[1] <= m.start() and (
                s.clause_at(c[0]) is s.clause_at(m.start()) or m.re is _LISTED_ROW)]
            if rows:
                qs, _qe, _r, row, row_bases = rows[-1]
                out.append(_CellClaim(idx, s.text[qs:m.end()], row, None, None, bases=tuple((b, b) for b in row_bases),
                                      tolerance=tolerance, values=stated))
            else:
                out.append(_CellClaim(idx, m.group(), None, None, None, tolerance, values=stated))
        if len(out) == start_len:
            out.extend(_values_seen(idx, s))
    return out


# Round 24: weights said to be in the figure without their cells ("my heatmap shows the values 0.33, 0.45 and 0.91 as
# its brightest cells", 图中的权重有 0.91): each must be a weight of the grid, wherever it is. Not a colour bar's or an
# axis's ticks, another quantity, a generic or denied statement.
_SEEN_VALUE_WORDS = re.compile(r"\b(?:values?|weights?|cells?|numbers?|entries)\b|数值|权重|格子|的值")
_NOT_CELL_VALUES = re.compile(r"\b(?:bar|scale|ticks?|axis|axes|legend|range|threshold|tolerance)\b|色条|色标|刻度|坐标|"
                              r"图例|范围|阈值")


def _values_seen(idx: int, s: _Sentence) -> list[_CellClaim]:
    if not (_FIGURE_WORDS.search(s.text) and _SEEN_VALUE_WORDS.search(s.text)) or _NOT_CELL_VALUES.search(s.text) \
            or _OTHER_QUANTITY.search(s.text) or _GENERIC.search(s.text):
        return []
    found = [(m, p) for m in _GAP_VALUE.finditer(s.text) if (p := _parse_value(m.group(1))) and 0 < p[0] < 1
             and not s.negated(m.start(), m.end(), context=False)]
    if not found:
        return []
    # each value is a reading of its own (three invented values are three readings of another figure)
    return [_CellClaim(idx, m.group(1), None, None, None, p[1], values=(p[0],), anywhere=True) for m, p in found]


# Round 24: an entry of the weight matrix written as in maths or code, "A_{0,2}", "a_01", "α_{12}", "w[0][2]",
# "attn[1, 2]" (row, then column; counted from 0 or from 1, as q1 and k2 are), names its query and its key
_ENTRY = re.compile(r"(?<![a-z0-9])(?:a|attn|attention|w|weights?|α|\\?alpha|p)\s*"
                    r"(?:_\s*\{?\s*(\d)\s*,?\s*(\d)\s*\}?|\[\s*(\d)\s*(?:,|\]\s*\[)\s*(\d)\s*\])(?![\d.])")


def _entry_cells(text: str, cells: list[tuple]) -> list[tuple]:
    """``cells`` with the query and the key of each matrix entry written as one (``_ENTRY``), in text order."""
    extra = []
    for m in _ENTRY.finditer(text):
        r, c = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(3), m.group(4))
        mid = m.start() + (m.end() - m.start()) // 2
        extra += [(m.start(), mid, True, int(r), (0, 1)), (mid, m.end(), False, int(c), (0, 1))]
    if not extra:
        return cells
    return sorted([c for c in cells if not any(e[0] <= c[0] < e[1] for e in extra)] + extra)


def _shade(part: str, low: str | None) -> tuple[re.Match, bool] | None:
    """(the colour extreme, whether it is the low end) of a part that reads a key by its colour alone ("k2 is the
    darkest in both rows", 两行里 k2 都是最暗的), by the figure's low end (``low``, see :func:`_low_end`): "darkest" is the
    least weight on viridis, the most on Blues. None when the low end is not known, or when the part also has a
    value word of either end or a comparison ("darker than"): which it reads would be a guess."""
    if low is None:
        return None
    m = next((m for m in _COLUMN_EXTREME.finditer(part) if m.lastgroup in ("light", "dark")), None)
    if m is None:
        return None
    rest = part[:m.start()] + " " + part[m.end():]
    if _LOW_END.search(rest) or _PEAK.search(rest) or _PEAK_SHARE.search(rest) or _COMPARED.search(rest):
        return None
    return m, (m.lastgroup == "dark") == (low == "dark")


# Each key of a list given its own extreme after one query (review R2, round 35: "q1 gives k0 the least weight (0.09) and
# k2 the most (0.67)", q1 给 k0 的权重最小，给 k2 的权重最大 were read as no peak, while "q1 gives k2 the most weight"
# was): the extreme word right after the key ("k2 the most", "k2 的权重最大") or right before it ("the most on k2").
_EXTREME_WORD = (r"(?:(?P<hi>most|highest|largest|biggest|greatest|maximum|max|最大|最高|最多|最强)"
                 r"|(?P<lo>least|lowest|smallest|fewest|minimum|min|最小|最低|最少|最弱))")
_EXTREME_AFTER = re.compile(r"\s*(?:的\s*)?(?:(?:share\s+of\s+)?(?:weight|attention|权重|注意力)\s*)?(?:(?:is|was)\s+|是|为)?"
                            r"\s*(?:the\s+|its\s+)?" + _EXTREME_WORD +
                            # a weight's extreme, not another quality's ("k2 is the most important key": an overclaim)
                            r"(?=\s*(?:$|[,.;:!)(（），。；：、！]|\d|(?:weight|attention|share|of|and|while|but|with|at|for|in)\b|"
                            r"的?权重|的?注意力|的(?!重要|关键)|是|为))")
_EXTREME_BEFORE = re.compile(r"(?<![a-z])(?:the\s+|its\s+)?" + _EXTREME_WORD +
                             r"\s+(?:(?:weight|attention|share)\s+)?(?:on|to|at|for)\s*$")


def _listed_extremes(idx: int, s: _Sentence, cells: list[tuple], have: set[tuple[int, int]]) -> list[_CellClaim]:
    """A peak or a low end given to each key of a list after one query (:data:`_EXTREME_AFTER`, :data:`_EXTREME_BEFORE`):
    the query is the last one before the key, and only the words between the key and its neighbours are read. ``have``:
    the (row, column) pairs read as a peak or a low end already."""
    out: list[_CellClaim] = []
    for n, (ks, ke, is_row, col, col_bases) in enumerate(cells):
        if is_row:
            continue
        rows = [c for c in cells[:n] if c[2]]
        if not rows or s.negated(ks, ke, context=False):
            continue
        qs, _qe, _r, row, row_bases = rows[-1]
        if (row, col) in have:
            continue
        prev_end = cells[n - 1][1]
        nxt = cells[n + 1][0] if n + 1 < len(cells) else len(s.text)
        m = _EXTREME_AFTER.match(s.text[:nxt], ke) or _EXTREME_BEFORE.search(s.text[prev_end:ks])
        if m is None:
            continue
        bases = tuple((b, b) for b in row_bases) if row_bases == col_bases else tuple(
            (rb, cb) for rb in row_bases for cb in col_bases)
        out.append(_CellClaim(idx, s.text[qs:max(ke, m.end() if m.string is s.text else ke)], row, col, None,
                              bases=bases, low=m.group("lo") is not None, peak=m.group("hi") is not None))
    return out


def _peak_anywhere(idx: int, s: _Sentence, cells: list[tuple], claimed: set[int],
                   low: str | None = None) -> list[_CellClaim]:
    """The peaks a sentence reads in another word order than "q1 ... most ... k0" (see :data:`_PEAK_PART_BREAK`),
    in the parts of it whose key read nothing the usual way (``claimed``: where those that did start). A colour word
    reads a peak or a low end by the figure's low end (``low``, round 33: "k2 is the darkest column in both rows" on
    viridis, false of the lab's q1, was not read)."""
    out: list[_CellClaim] = []
    bounds = [0, *(m.start() for m in _PEAK_PART_BREAK.finditer(s.text) if m.start() > 0), len(s.text)]
    for start, end in zip(bounds, bounds[1:], strict=False):
        part = s.text[start:end]
        inside = [c for c in cells if start <= c[0] < end]
        if any(c[0] in claimed for c in inside):
            continue
        # by index: "A_{0,0} ... in row q_0" names one query, however each may be counted (_zero_labels)
        queries = {c[3] for c in inside if c[2]}
        keys = {c[3] for c in inside if not c[2]}
        every = _every_query(part) if not queries and len(keys) == 1 and not _COLUMN_WHOLE.search(part) else None
        if every is not None:
            # "k0 is the key both queries read most" (两个 query 都主要看 k0): a peak of every row (round 26)
            inside = sorted([*inside, (start + every.start(), start + every.end(), True, 0, (0,))])
            queries = {0}
        if len(queries) != 1 or len(keys) != 1 or _OTHER_QUANTITY.search(part):
            continue
        values = list(_GAP_VALUE.finditer(part))
        said = None             # the peak's value, said after it (round 35: "q1 对 k2 的权重最大，是 0.67")
        if values:
            peak_word = _PEAK.search(part) or _PEAK_SHARE.search(part)
            # from the peak word or the key, whichever is later ("the largest value in row q1 is at k2 (0.67)")
            gap = part[max(peak_word.end(), max(c[1] for c in inside) - start):values[0].start()] if peak_word else ""
            if len(values) != 1 or peak_word is None or values[0].start() < peak_word.end() \
                    or any(c[1] > start + values[0].start() for c in inside) or _units(gap) > _PEAK_VALUE_GAP_UNITS \
                    or re.search(r"\d", gap):
                continue
            said = _parse_value(values[0].group(1))
            if said is None:
                continue
        first = min(c[0] for c in inside)
        q = next(c for c in inside if c[2])
        k = next(c for c in inside if not c[2])
        bases = tuple((b, b) for b in q[4]) if q[4] == k[4] else tuple((rb, cb) for rb in q[4] for cb in k[4])
        if every is not None:
            bases = tuple((0, cb) for cb in k[4])
        lowest = _LOWEST.search(part)
        shade = _shade(part, low) if lowest is None else None
        if shade is not None:
            word, is_low = shade
            a, b = start + word.start(), start + word.end()
            first_at, last = min(first, a), max(max(c[1] for c in inside), b)
            if not s.negated(first_at, last, context=False) and not any(
                    start <= c0 < end and not a <= c0 < b for c0, _c1 in s.cues):
                out.append(_CellClaim(idx, s.text[first_at:last], q[3], k[3], None, bases=bases, low=is_low,
                                      every_row=every is not None))
            continue
        if lowest is not None:
            if _lowest_read(s, start, end, lowest):
                a, b = start + lowest.start(), start + lowest.end()
                last = max(max(c[1] for c in inside), b)
                out.append(_CellClaim(idx, s.text[min(first, a):last], q[3], k[3], None, bases=bases, low=True,
                                      every_row=every is not None))
            continue
        if _LOW_END.search(part):
            continue
        peak = _PEAK.search(part) or _PEAK_SHARE.search(part) or _PEAK_BEFORE.search(part)
        if peak is None:
            continue
        last = max(max(c[1] for c in inside), start + peak.end())
        if s.negated(min(first, start + peak.start()), last, context=False):
            continue
        if said is not None:
            out.append(_CellClaim(idx, s.text[first:start + values[0].end()], q[3], k[3], said[0], said[1], bases,
                                  every_row=every is not None, peak=True))
            continue
        out.append(_CellClaim(idx, s.text[first:last], q[3], k[3], None, bases=bases, every_row=every is not None))
    return out


# a value said right after a peak read in another word order ("the weight of q1 on k2 is the largest, 0.67", q1 对 k2
# 的权重最大，是 0.67, "the largest value in row q1 is at k2 (0.67)"; round 35: the part was skipped for its value, while
# "q1's largest weight is on k2, 0.67" was read): at most this many units between the peak word (or the key after it)
# and the value
_PEAK_VALUE_GAP_UNITS = 6


# Round 29: a key's column read as a whole, the weight it receives from all the queries together ("key 2 receives the
# most attention overall", "across both queries k0 gets the least weight in total", 两个 query 加起来 k2 得到的权重最多,
# "column 1 is the darkest", 第三列最亮). A part (see :data:`_PEAK_PART_BREAK`) that names one key and no query, says it
# of the whole column (a total, or the key named as a column) and has a peak, a low end or a colour extreme reads the
# column's sum over the queries. A colour word counts only where the figure's low end is known ("darkest" is the least
# weight on viridis, the most on Blues); a value, another quantity or a comparison ("darker than") reads nothing.
_COLUMN_WHOLE = re.compile(r"\b(?:overall|in total|total(?:ly)?|altogether|in all|summed|combined|cumulative\w*|"
                           r"across (?:both|all|the two|every|each) (?:of the )?(?:quer(?:y|ies)|rows?)|"
                           r"of all (?:the )?(?:keys|columns)|(?:whole|entire) (?:heat\s*map|figure|map|grid|plot))\b|"
                           r"整体|总体|总共|合计|加起来|加总|总和|总量|全图|整张图|所有列|各列|(?:这|那)一列")
_COLUMN_NAMED = re.compile(r"col|列")
# the word "column" beside a key named by its label (round 33: "Column k0 is the brightest", "k2 is the darkest column",
# "k0 列最亮", k2 是最暗的一列): the key is read as a column, as "column 0" is
_COLUMN_BEFORE = re.compile(r"(?:\bcol(?:umn)?|(?<!序)列)\s*[:：]?\s*$", re.I)
_COLUMN_AFTER = re.compile(r"\s*(?:col(?:umn)?\b|列|(?:这|那)一列)"
                           r"|\s*(?:is|was)\s+(?:the\s+)?\w+\s+col(?:umn)?\b"
                           r"|\s*(?:是|为)[^，,;。；\d]{0,8}?的?一列", re.I)
# the column's extreme: the most weight, the least, the lightest colour, the darkest (named groups)
_COLUMN_EXTREME = re.compile(
    r"(?P<high>\b(?:most|largest|highest|biggest|greatest|strongest|heaviest|maximum|max)\b|最多|最大|最高|最强|最重)"
    r"|(?P<low>\b(?:least|lowest|smallest|weakest|fewest|minimum|min)\b|最少|最小|最低|最弱)"
    r"|(?P<light>\b(?:brightest|lightest|palest|whitest)\b|最亮|最浅|最淡|最白)"
    r"|(?P<dark>\b(?:darkest|deepest|dimmest|blackest)\b|最暗|最深|最黑)")
_COMPARED = re.compile(r"\b(?:than|compared|versus|vs)\b|比|相比|不如")
# Round 31: a key said to receive the most (least) attention with no total and no query ("k2 gets the most attention",
# 第二个键得到的注意力最多) was not read, so a false one was credited. A part that names what the key receives reads its
# column as well, with a peak or a low end only (a colour word of a key alone may be a cell's).
# a column supposed, not read: "if k0 gets the most attention, it does not mean ...", 假设 k0 得到的权重最大 (the cue in the
# key's own clause: "如果把两行加起来，k2 得到的注意力最多" reads the sum after its comma)
_SUPPOSED = re.compile(r"\b(?:if|suppose\w*|assum\w*|whether|imagine|even though)\b|如果|假如|假设|即使|即便|若|要是")
_COLUMN_QUANTITY = re.compile(r"\b(?:attention|weights?|probabilit(?:y|ies)|attended)\b|注意力|权重|概率|关注")
_COLUMN_PIECE = re.compile(r"[,:，：]")


def _column_reads(idx: int, s: _Sentence, cells: list[tuple], claimed: set[int], low: str | None) -> list[_CellClaim]:
    """The columns a sentence reads as a whole (see :data:`_COLUMN_WHOLE`), part by part, checked against the sums of
    the student's weights over the queries."""
    if not (_COLUMN_WHOLE.search(s.text) or _COLUMN_NAMED.search(s.text) or _COLUMN_QUANTITY.search(s.text)):
        return []
    out: list[_CellClaim] = []
    bounds = [0, *(m.start() for m in _PEAK_PART_BREAK.finditer(s.text) if m.start() > 0), len(s.text)]
    spans = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        if sum(1 for c in cells if start <= c[0] < end) < 2:
            spans.append((start, end, start, end))
            continue
        # two columns in one part ("key 0 gets the most overall, and column 0 is the brightest", "k2 gets the least in
        # total: the last column is the darkest"): each comma- or colon-separated piece on its own
        cuts = [start, *(m.end() for m in _COLUMN_PIECE.finditer(s.text, start, end)), end]
        # a total said once covers the part's pieces ("两个 query 加起来，k0 得到的权重最多")
        spans += [(a, b, start, end) for a, b in zip(cuts, cuts[1:], strict=False)]
    for start, end, whole_start, whole_end in spans:
        part = s.text[start:end]
        inside = [c for c in cells if start <= c[0] < end]
        keys = [c for c in inside if not c[2]]
        if len(keys) != 1 or len(inside) != 1 or keys[0][0] in claimed or _GAP_VALUE.search(part) \
                or _OTHER_QUANTITY.search(part) or _COMPARED.search(part):
            continue
        k = keys[0]
        clause = s.clause_at(k[0])
        if _SUPPOSED.search(s.text, clause.start, k[0]):
            continue
        whole = _COLUMN_WHOLE.search(s.text, whole_start, whole_end)
        if _every_query(part) and not whole:
            continue        # "k2 is the darkest column in both rows": each row's low end, read by _peak_anywhere
        loose = not (whole or _COLUMN_NAMED.search(s.text, k[0], k[1]) or _COLUMN_BEFORE.search(s.text[start:k[0]])
                     or _COLUMN_AFTER.match(s.text, k[1], end))
        if loose and (not _COLUMN_QUANTITY.search(part) or _GENERIC.search(part) or _every_query(part) or any(
                c[2] for c in cells if whole_start <= c[0] < whole_end)):
            # (a query named in the part, before a comma or a colon, is the row the key is read in: "for q0, k1 gets
            # the most attention" is q0's peak, read as such)
            continue
        words = {m.lastgroup: m for m in reversed(list(_COLUMN_EXTREME.finditer(part)))}     # the first of each
        high, lowest, light, dark = (words.get(k) for k in ("high", "low", "light", "dark"))
        if low is not None and (light or dark):
            # the colour of the most weight: light on a dark-low map (viridis), dark on a light-low one (Blues)
            high = high or (light if low == "dark" else dark)
            lowest = lowest or (dark if low == "dark" else light)
        if loose:
            high, lowest = words.get("high"), words.get("low")
        word = high or lowest
        if word is None or (high and lowest):
            continue
        a, b = start + word.start(), start + word.end()
        first, last = min(k[0], a), max(k[1], b)
        if s.negated(first, last, context=False):
            continue
        out.append(_CellClaim(idx, s.text[first:last], None, k[3], None, bases=tuple((0, cb) for cb in k[4]),
                              low=high is None, column=True, loose=loose))
    return out


# every query named at once (round 26): "both queries", "every row", 两个 query, 每一行
_EVERY_QUERY = re.compile(r"\b(?:both|all|every|each)\s+(?:of\s+the\s+)?(?:two\s+)?(?:quer(?:y|ies)|rows?)\b|"
                          r"两个\s*(?:query|查询|行)|两行|每个\s*(?:query|查询)|每一?行|所有\s*的?\s*(?:query|查询|行)")
# "each row is a query", 每一行是一个 query: the layout, said of every row, not what every query reads (round 31: "each
# row is a query, each column is a key, and k2 gets the most attention" was read as k2 the peak of every row, false of
# the lab's q0, and the honest layout statement earned nothing)
_LAYOUT_AFTER = re.compile(r"\s*(?:is|are|represents?|corresponds?\s+to|stands?\s+for|means?|=|:|是|表示|代表|对应|为|就是)")


def _every_query(part: str) -> re.Match | None:
    """The first mention of every query in ``part`` that is not the subject of the figure's layout."""
    return next((m for m in _EVERY_QUERY.finditer(part) if not _LAYOUT_AFTER.match(part, m.end())), None)


# A query's weights read as equal (round 26): "q0 spreads its weight evenly over the keys", "q1's weights are uniform",
# q0 的权重很均匀. Not denied (不均匀, "not uniform"), compared ("closer to uniform than", 更均匀), supposed ("if the
# weights were uniform", "a uniform baseline"), nor with a key named (an even split between two keys is another claim).
_UNIFORM = re.compile(r"\b(?:uniform(?:ly)?|evenly|equally|flat)\b|均匀|平均分|平分")
_NOT_A_UNIFORM_READING = re.compile(
    r"\b(?:if|would|were|compared|baseline|than|instead|unlike|rather|expect\w*|should|ideal|more|less|closer|"
    r"towards?|approach\w*|become|becomes|became|get|gets|got|entrop\w*)\b|如果|假如|若|相比|比|而不是|应该|期望|理想|"
    r"更|越|接近|趋向|变得|熵")
UNIFORM_SPREAD = 0.1        # a row whose weights differ by at most this is (about) uniform


def _uniform_rows(idx: int, s: _Sentence, cells: list[tuple]) -> list[_CellClaim]:
    """The queries a sentence reads as spreading their weight evenly over the keys, part by part (see
    :data:`_PEAK_PART_BREAK`): checked like a peak against the weights the student's code computes."""
    if not _UNIFORM.search(s.text):
        return []
    out: list[_CellClaim] = []
    bounds = [0, *(m.start() for m in _PEAK_PART_BREAK.finditer(s.text) if m.start() > 0), len(s.text)]
    for start, end in zip(bounds, bounds[1:], strict=False):
        part = s.text[start:end]
        inside = [c for c in cells if start <= c[0] < end]
        word = _UNIFORM.search(part)
        if word is None or not inside or not all(c[2] for c in inside) or _NOT_A_UNIFORM_READING.search(part) \
                or s.negated(start + word.start(), start + word.end(), context=False):
            continue
        for q in inside:
            if q[3] != _LAST:
                out.append(_CellClaim(idx, part.strip(), q[3], None, None, bases=tuple((b, b) for b in q[4]),
                                      uniform=True))
    return out


# (最后 "the last", 最初 "the first": positions, no peak)
_LOW_COLOUR = re.compile(r"\b(?:darkest|dimmest|palest|lightest)\b|最暗|最浅|最淡|最后|最初|最先")


def _lowest_read(s: _Sentence, start: int, end: int, lowest: re.Match) -> bool:
    """Does ``lowest`` (a :data:`_LOWEST` match in ``s.text[start:end]``) read the query's least-weighted key (round
    26)? Only when nothing else there is a peak, a comparison or a negation: "q1 almost ignores k0" reads, "q1 does
    not ignore k0" and "q1 gives less to k0 than to k2" do not. A colour word beside it ("its darkest cell") agrees on
    a dark-low colour map and is not a peak, nor is 最后 ("the last", a position)."""
    part = s.text[start:end]
    rest = _LOW_COLOUR.sub(" ", part[:lowest.start()] + " " + part[lowest.end():])
    a, b = start + lowest.start(), start + lowest.end()
    return not (_LOW_END.search(rest) or _PEAK.search(rest) or _PEAK_SHARE.search(rest)
                or any(start <= c0 < end and not a <= c0 < b for c0, _c1 in s.cues))


def _between_and(gap: str) -> bool:
    """"k1 and k2", "k1 or k2", "k1/k2", "k1、k2": the peak is shared, no one key is named."""
    return bool(re.fullmatch(r"\s*(?:,|and|or|/|、|和|或|与)\s*", gap))


def _true_of(claim: _CellClaim, rows: list[list[float]]) -> bool:
    """Is the claim true of the weights, indices counted as the claim may count them? A row written out that has
    not as many weights as the figure has keys is not read (another tensor: padding, more keys)."""
    if claim.column:
        sums = [sum(r[c] for r in rows) for c in range(len(rows[0]))]
        tolerance = WEIGHT_TOLERANCE * len(rows)
        for _rb, cb in claim.bases:
            c = len(sums) - 1 if claim.col == _LAST else claim.col - cb
            if 0 <= c < len(sums) and (sums[c] <= min(sums) + tolerance if claim.low else sums[c] >= max(sums) - tolerance):
                return True
            if claim.loose and 0 <= c < len(sums) and any(
                    (r[c] <= min(r) + WEIGHT_TOLERANCE) if claim.low else (r[c] >= max(r) - WEIGHT_TOLERANCE) for r in rows):
                return True             # true of a query's row: perhaps the one meant
        return False
    if claim.anywhere:
        tolerance = max(WEIGHT_TOLERANCE, claim.tolerance)
        return all(any(abs(w - v) <= tolerance for r in rows for w in r) for v in claim.values)
    if claim.diagonal:
        return all(rows[i][i] >= max(rows[i]) - WEIGHT_TOLERANCE for i in range(min(len(rows), len(rows[0]))))
    if claim.every_row:
        for _rb, cb in claim.bases:
            c = len(rows[0]) - 1 if claim.col == _LAST else claim.col - cb
            if 0 <= c < len(rows[0]) and all(
                    (r[c] <= min(r) + WEIGHT_TOLERANCE) if claim.low else (r[c] >= max(r) - WEIGHT_TOLERANCE) for r in rows):
                return True
        return False
    if claim.uniform:
        return any(max(rows[claim.row - b]) - min(rows[claim.row - b]) <= UNIFORM_SPREAD
                   for b, _ in claim.bases if 0 <= claim.row - b < len(rows))
    if claim.values:
        if len(claim.values) != len(rows[0]):
            return True
        candidates = rows if claim.row is None else [rows[-1]] if claim.row == _LAST else [
            rows[claim.row - b] for b, _ in claim.bases if 0 <= claim.row - b < len(rows)]
        tolerance = max(WEIGHT_TOLERANCE, claim.tolerance)
        return any(all(abs(a - b) <= tolerance for a, b in zip(r, claim.values, strict=True))
                   for r in candidates if len(r) == len(claim.values))
    for row_base, col_base in claim.bases:
        r = len(rows) - 1 if claim.row == _LAST else claim.row - row_base
        c = len(rows[0]) - 1 if claim.col == _LAST else claim.col - col_base
        if not (0 <= r < len(rows) and 0 <= c < len(rows[r])):
            continue
        w = rows[r][c]
        if claim.value is not None and abs(w - claim.value) <= max(WEIGHT_TOLERANCE, claim.tolerance) and (
                not claim.peak or w >= max(rows[r]) - WEIGHT_TOLERANCE):
            return True
        if claim.value is None and claim.low and w <= min(rows[r]) + WEIGHT_TOLERANCE:
            return True
        if claim.value is None and not claim.low and w >= max(rows[r]) - WEIGHT_TOLERANCE:
            return True
    return False


def _inside(claim: _CellClaim, rows: list[list[float]]) -> bool:
    """Does the claim name a row (and a column) of the grid in one of the ways it may be counted?"""
    if claim.column:
        return claim.col == _LAST or any(0 <= claim.col - cb < len(rows[0]) for _rb, cb in claim.bases)
    if claim.row is None or claim.row == _LAST or claim.col == _LAST:
        return True
    return any(0 <= claim.row - rb < len(rows) and (claim.col is None or 0 <= claim.col - cb < len(rows[0]))
               for rb, cb in claim.bases)


def _misread_cells(cc: Checklist, sentences: list[_Sentence], weights: Sequence[Sequence[float]] | None,
                   low: str | None = None, claims: list[_CellClaim] | None = None) -> tuple[list[_CellClaim], int]:
    """(the readings of cells that are false of the student's weights, how many readings are true); ``low``: the
    figure's low end, which its colour words are read by; ``claims``: :func:`_cell_claims`' answer, when known."""
    try:
        rows = [[float(x) for x in row] for row in weights or []]
    except (TypeError, ValueError):
        return [], 0
    if not rows:
        return [], 0
    # a cell outside the grid however it is counted ("第 4 行第 4 列" of a 2x3 grid) is no misreading of this grid
    # but a cell of another one, which the anchoring check names (``_outside_grid``)
    claims = [cl for cl in (_cell_claims(cc, sentences, low) if claims is None else claims) if _inside(cl, rows)]
    false = [cl for cl in claims if not _true_of(cl, rows)]
    return false, len(claims) - len(false)


def _peak_readings(sentences: list[_Sentence], claims: list[_CellClaim]) -> dict[int, int]:
    """{sentence: where it reads it} for the sentences that read a query's peak (``read_peaks``, round 35): one query's
    key with the most weight ("q1 最关注 k2", "k2 is where q1 puts most of its weight", a value said to be the peak), or
    the key every query reads most; not a least-weighted key, a whole column, a diagonal or values without their cell.
    Whether it is true is the misreading check's (a false one costs its sentence)."""
    out: dict[int, int] = {}
    for cl in claims:
        if cl.sentence in out or cl.row is None or cl.col is None or cl.low or cl.uniform or cl.column or cl.diagonal \
                or cl.anywhere or cl.values or (cl.value is not None and not cl.peak):
            continue
        at = sentences[cl.sentence].text.find(cl.text)
        out[cl.sentence] = max(at, 0)
    return out


def _misread_flag(false: list[_CellClaim], weights: Sequence[Sequence[float]], plotted: bool = True) -> AuditFlag:
    """The readings of cells that the student's weights of the lab's example do not have. ``plotted``: the figure was
    seen to be the lab's grid plotting those weights; otherwise (no figure, one that could not be read, another grid,
    other numbers) the flag says what the figure is to plot, never that it plots them (round 27: "which the figure
    plots" stood beside "the figure could not be read")."""
    said = " / ".join(f"\"{_snippet(cl.text, 50)}\"" for cl in false[:3])
    shown = "; ".join(f"q{i}: [" + ", ".join(f"{float(x):.2f}" for x in row) + "]" for i, row in enumerate(weights))
    if plotted:
        return {"kind": "figure", "message": {
            "en": f"Your text reads cells your figure does not show: {said}; your code computes {shown} for the lab's "
                  "example, which the figure plots. A reading of another figure earns nothing.",
            "zh": f"你的文字读出的格子与你的图不符：{said}；你的代码对实验例子算出的是 {shown}，图画的正是它。"
                  "描述另一张图的读数不计分。"}}
    return {"kind": "figure", "message": {
        "en": f"Your text reads cells that the weights of the lab's example do not have: {said}; your code computes "
              f"{shown} for that example, and the figure is to plot these weights (weights[0, 0]). A reading of other "
              "numbers earns nothing.",
        "zh": f"你的文字读出的格子与实验例子的权重不符：{said}；你的代码对这个例子算出的是 {shown}，图应当画的就是这组权重"
              "（weights[0, 0]）。描述别的数的读数不计分。"}}


def _article(n: int) -> str:
    """"an 8×8 grid", "an 11×2 grid", "a 4×4 grid"."""
    return "an" if str(n).startswith("8") or n in (11, 18) else "a"


def _grade_figure(item: _Item, figure: Any, weights: Sequence[Sequence[float]] | None = None
                  ) -> tuple[FigureReport | None, AuditItem, AuditFlag | None]:
    """Only the lab's grid (``grid: [rows, cols]`` in the checklist, 2x3) earns the figure points; anything
    else earns 0, says what was seen, and is flagged for the instructor. So does the lab's grid whose colours do not
    follow the weights the student's code computes for the lab's example (round 26: another matrix drawn)."""
    raw = item.raw
    expected = tuple(raw.get("grid") or (2, 3))
    report: FigureReport | None = None
    seen: dict[str, str] | None = None
    if figure is None:
        points, fb = 0.0, dict(item.feedback_missing)
    elif hasattr(figure, "en") and hasattr(figure, "zh"):
        # the upload validator's refusal (an InputError): the figure was submitted but could not be read
        report = FigureReport("unreadable")
        points, seen = 0.0, report.seen
        fb = {"en": f"The figure could not be read: {figure.en}", "zh": f"无法读取提交的图：{figure.zh}"}
    else:
        report = figure if isinstance(figure, FigureReport) else analyse_figure(figure) \
            if isinstance(figure, (bytes, bytearray, memoryview)) else FigureReport("unreadable")
        if report.shape == expected and _plots_other_weights(report, weights):
            shown = "; ".join(f"q{i}: [" + ", ".join(f"{float(x):.2f}" for x in row) + "]" for i, row in enumerate(weights))
            points = 0.0
            tmpl = _bilingual(raw.get("feedback_other_weights"), f"items.{item.id}.feedback_other_weights", {
                "en": "The figure is a 2×3 heatmap, but the order of its colours does not follow the weights your code "
                      "computes for the lab's example ({weights}). Draw weights[0, 0] of that example.",
                "zh": "这张图是 2×3 的 heatmap，但颜色的深浅顺序与你的代码在实验例子上算出的权重（{weights}）不一致。"
                      "请画这个例子的 weights[0, 0]。"})
            fb = {lang: tmpl[lang].replace("{weights}", shown) for lang in ("en", "zh")}
            flag = {"kind": "figure", "message": {
                "en": f"The figure is a {expected[0]}×{expected[1]} heatmap whose colours do not follow the weights the "
                      f"student's code computes for the lab's example ({shown}): it plots other numbers.",
                "zh": f"提交的图是 {expected[0]}×{expected[1]} 的 heatmap，但颜色与学生代码在实验例子上算出的权重"
                      f"（{shown}）不一致：图上画的是别的数。"}}
            return report, {"id": item.id, "label": dict(item.label), "found": False, "points": points,
                            "max_points": item.weight, "feedback": fb}, flag
        if report.shape == expected:
            points, fb = item.weight, dict(item.feedback_ok)
        else:
            points = 0.0
            seen = report.seen
            key = {"grid": "feedback_wrong_grid", "blank": "feedback_blank", "unreadable": "feedback_unreadable",
                   "flat": "feedback_flat"}.get(report.kind, "feedback_not_heatmap")
            if report.reason == "not_colour_scale" and raw.get("feedback_not_colour_scale"):
                key = "feedback_not_colour_scale"
            elif report.reason == "too_small" and raw.get("feedback_too_small"):
                key = "feedback_too_small"
            tmpl = _bilingual(raw.get(key) or raw.get("feedback_not_heatmap"), f"items.{item.id}.{key}",
                              item.feedback_missing)
            a_grid = f"{_article(report.rows)} {report.rows}×{report.cols} grid"
            fb = {lang: tmpl[lang].replace("{rows}", str(report.rows)).replace("{cols}", str(report.cols))
                  .replace("{a_grid}", a_grid).replace("{width}", str(report.width))
                  .replace("{height}", str(report.height)) for lang in ("en", "zh")}
            if report.jpeg_quality:
                # what was seen of the file itself (its quantisation tables), and what to upload instead (round 33:
                # the lab's heatmap with 60-pixel cells saved at quality 15 or lower was "a 2×2 grid" or "not a
                # heatmap", with nothing said of the compression)
                note = _bilingual(raw.get("feedback_low_quality_jpeg"), f"items.{item.id}.feedback_low_quality_jpeg", {
                    "en": "The file is a JPEG saved at about quality {quality} of 100: compression this strong blurs the "
                          "cells' edges and shifts their colours. Upload the heatmap as PNG (plt.savefig('attention.png')).",
                    "zh": "这个文件是以约 {quality}/100 的质量保存的 JPEG：这么强的压缩会模糊格子边界、改变颜色，以上是从压缩后的图中读到的。"
                          "请把 heatmap 保存为 PNG 再上传（plt.savefig('attention.png')），或保存为质量 75 以上的 JPEG。"})
                fb = {lang: fb[lang] + (" " if lang == "en" else "") + note[lang].replace(
                    "{quality}", str(report.jpeg_quality)) for lang in ("en", "zh")}
    flag: AuditFlag | None = None
    if seen is not None and report is not None and report.kind == "not_heatmap" and not report.reason:
        # ``seen`` is then a predicate ("not a heatmap"), not a noun phrase to follow "The figure is"
        flag = {"kind": "figure", "message": {
            "en": f"The figure is not a heatmap (no grid of uniform coloured cells was found), so it is not the "
                  f"lab's {expected[0]}×{expected[1]} attention heatmap.",
            "zh": f"提交的图不是 heatmap（没有找到由均匀色块组成的格子），因此不是实验要求的 "
                  f"{expected[0]}×{expected[1]} attention heatmap。"}}
    elif seen is not None:
        flag = {"kind": "figure", "message": {
            "en": f"The figure is {seen['en']}, not the lab's {expected[0]}×{expected[1]} attention heatmap.",
            "zh": f"提交的图是{seen['zh']}，不是实验要求的 {expected[0]}×{expected[1]} attention heatmap。"}}
    return report, {"id": item.id, "label": dict(item.label), "found": points > 0, "points": points,
                    "max_points": item.weight, "feedback": fb}, flag
