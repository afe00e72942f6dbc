"""Grading one audit against a compiled checklist: concepts, numbers, overclaims and the figure item."""

from __future__ import annotations

import math
import re
from typing import Any, TypedDict

from rubric.audit.checklist import Checklist, _bilingual, _Concept, _Item
from rubric.audit.claims import _check_metric, _Claim, _extract_claims, _measured_value
from rubric.audit.text import _segment, _Sentence


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


def _overclaims(cc: Checklist, sentences: list[_Sentence]) -> list[str]:
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


def grade_audit(text: str | None, figure: Any, measured: dict[str, float] | None,
                checklist: Checklist) -> AuditResult:
    """Grade a written audit. ``figure`` is a :class:`worker.inputs.FigureInfo`, its ``to_dict()``,
    or None; ``measured`` holds the grader's own measurements on the student's code."""
    cc = checklist
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


