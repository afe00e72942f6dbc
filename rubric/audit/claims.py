"""Numbers the student reports for a metric, and their cross-check with the grader's measurement."""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass

from rubric.audit.checklist import Checklist, _Metric, _Pat
from rubric.audit.text import _has_cue, _Sentence

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


def _extract_claims(cc: Checklist, sent: _Sentence) -> list[_Claim]:
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


