"""Numbers the student reports for a metric, and their cross-check with the grader's measurement."""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass

from rubric.audit.checklist import Checklist, _Metric
from rubric.audit.text import _Sentence

# ==================================================================================================
# numbers
# ==================================================================================================

# A power of ten is written "10^-7", "10^{-7}" or, in words, "10 的 -7 次方" / "10的负7次方"; after a
# mantissa with "×", "x", "*", "·", "乘" or "乘以" ("2.4 乘 10 的 -7 次方" is 2.4e-7).
_POWER = (r"10\s*(?:\^\s*\{?\s*(?P<NAME>[-+]?\d+)\s*\}?"
          r"|的\s*(?P<NAME_zh>(?:[-+]|负\s*)?\d+)\s*次(?:方|幂))")
_NUMBER = re.compile(
    r"(?<![a-z0-9_.^])(?:"
    + _POWER.replace("NAME", "p_exp")
    + r"|(?P<mant>\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*e\s*(?P<e_exp>[-+]?\d+)"
    r"|\s*(?:×|x|\*|·|\\times|\\cdot|乘以?)\s*" + _POWER.replace("NAME", "x_exp") + ")?"
    r")(?![a-z0-9_])(?!\.\d)")
# A mantissa followed by a power this reader does not know ("2.4 × 10 to the -7") is no value of its own.
_POWER_FOLLOWS = re.compile(r"\s*(?:×|\*|·|\\times|\\cdot|乘以?|x(?=\s*10))\s*10(?![\d.])")
_ZERO_CUE = re.compile(r"(?:[=:为是≈~]|\bis|\bwas|\bof)\s*$")


@dataclass
class _Claim:
    metric: str
    relation: str           # "eq" | "lt" | "gt" | "pass"
    value: float | None
    sentence: str
    at: int = -1            # where the value (or the "passed") stands in the sentence


def _exponent(text: str) -> int:
    return int(text.replace("负", "-").replace(" ", ""))


def _parse_number(m: re.Match) -> tuple[float, bool] | None:
    try:
        p_exp = m.group("p_exp") or m.group("p_exp_zh")
        if p_exp is not None:
            return 10.0 ** _exponent(p_exp), True
        value = float(m.group("mant"))
        exp = m.group("e_exp") or m.group("x_exp") or m.group("x_exp_zh")
        if exp is not None:
            return value * 10.0 ** _exponent(exp), True
        return value, False
    except (OverflowError, ValueError):
        return None


# what may stand between a metric's name and its value: "=", ":", "为", "≈", "is", "of", "(output)", "|"
_GAP_MAX_CHARS = 30
_GAP_BLOCK = re.compile(r"[\d,;。，；]")
_PAREN = re.compile(r"\([^()]{0,24}\)")
# a name from the code between a metric and its value, counted as one word (round 34: "max_abs_error against
# scaled_dot_product_attention = 2.6e-7", the reference named as the handout names it, was a gap too long to read)
_CODE_NAME = re.compile(r"(?<![\w.])[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+|(?<![\w.])[a-z][a-z0-9]*(?:_[a-z0-9]+){2,}(?![\w.])")
# a further value for the same metric: "2.1e-6 / 3e-7", "2.1e-6 (seed 1), 3e-7 (seed 2)", "2e-7 和 3e-7"
_CHAIN = re.compile(r"\s*(?:\([^()]{0,24}\))?\s*(?:[,/、]|and|or|和|与|及)\s*(?:seed\s*\d+\s*[:=]?)?\s*")


_AFTER_COMMA = re.compile(r"^.*[,，]", re.S)
_THRESHOLD_TAIL = re.compile(r"^\s*(?:的)?(?:以下|以内|之内|要求|门槛|阈值|标准)?\s*")


def _after_threshold(cc: Checklist, gap: str) -> str | None:
    """The part of the text between a quoted threshold and the next number that may relate that number
    to its metric, or None when the number is too far away (another statement)."""
    if len(gap) > _GAP_MAX_CHARS or re.search(r"[\d;。；]", gap) or gap.count(",") + gap.count("，") > 1:
        return None
    rest = _AFTER_COMMA.sub("", gap)
    if rest == gap:                        # no comma: drop the threshold's own words ("threshold", "以下")
        rest = _THRESHOLD_TAIL.sub("", rest)
        lead = cc.thr_after.match(rest.lstrip()) if cc.thr_after is not None else None
        if lead:
            rest = rest.lstrip()[lead.end():]
    return rest


def _extract_claims(cc: Checklist, sent: _Sentence) -> tuple[list[_Claim], set[str]]:
    """Numbers that follow a metric's name (after "=", ":", "为", "≈", "is", "<"...) belong to that metric;
    a number elsewhere in the sentence does not. A lab threshold after "<" (or after "threshold") is a
    quoted requirement, not a measurement. Returns the claims and the metrics whose only number is a
    threshold."""
    text = sent.text
    mentions = sorted((m.start(), m.end(), mid) for mid, metric in cc.metrics.items()
                      for m in metric.names.finditer(text))
    if not mentions:
        return [], set()
    numbers = []
    for m in _NUMBER.finditer(text):
        parsed = _parse_number(m)
        if parsed is not None and not (not parsed[1] and _POWER_FOLLOWS.match(text, m.end())):
            # "0.0", "0.0000" and "0e0" are written values; a bare "0" may name something else
            numbers.append((m.start(), m.end(), parsed[0], "." in m.group() or parsed[1]))
    claims: list[_Claim] = []
    numbered: set[str] = set()
    threshold_only: set[str] = set()
    # Linear in the sentence: the next mention and the first number after a mention are found by
    # bisection, and each mention reads only the numbers up to the next mention (a line of 20000
    # mentions and numbers used to rescan every number per mention).
    starts = [ms for ms, _me, _mid in mentions]
    number_starts = [n[0] for n in numbers]
    for k, (_ms, me, mid) in enumerate(mentions):
        j = max(k + 1, bisect.bisect_left(starts, me))
        limit = starts[j] if j < len(starts) else len(text)
        pos, first, after_threshold = me, True, False
        for i in range(bisect.bisect_left(number_starts, pos), len(numbers)):
            ns, ne, value, decimal = numbers[i]
            if ns < pos:
                continue
            if ns >= limit:
                break
            gap = text[pos:ns]
            if after_threshold:
                # the measurement after a quoted threshold: "max_abs_error (threshold 1e-5): 2.4e-7",
                # "小于 1e-5 的要求，实际是 2.4e-7", "below the 1e-6 threshold (measured 1.2e-7)". Its
                # relation is read after the threshold's own words (and after a comma, if there is one).
                gap = _after_threshold(cc, gap)
                if gap is None:
                    break
            elif first:
                bare = _PAREN.sub(" ", _CODE_NAME.sub("x", gap))
                if len(bare) > _GAP_MAX_CHARS or _GAP_BLOCK.search(bare):
                    break
            elif not _CHAIN.fullmatch(gap):
                break
            first, after_threshold, pos = False, False, ne
            after = text[ne:ne + 6].lstrip()
            lt = cc.lt_before.search(gap) or (cc.lt_after is not None and cc.lt_after.match(after))
            gt = cc.gt_before.search(gap) or (cc.gt_after is not None and cc.gt_after.match(after))
            quoted = cc.thr_before.search(gap) or (cc.thr_after is not None and cc.thr_after.match(after))
            if quoted or (lt and math.isclose(value, cc.metrics[mid].threshold, rel_tol=1e-9)):
                threshold_only.add(mid)
                after_threshold = True
                continue
            if value == 0.0 and not decimal and not _ZERO_CUE.search(gap):
                continue               # a bare "0" may name something else; "0.0" is a value
            relation = "lt" if lt else ("gt" if gt else "eq")
            claims.append(_Claim(mid, relation, value, text, ns))
            numbered.add(mid)
    # "row_sum_error 测试通过" without a number: a claim of passing for every metric named in the sentence
    # without a value (a quoted threshold followed by "passed" is not a result: thresholds_as_results)
    for clause in (sent.clauses if cc.passed.search(text) else ()):
        piece = text[clause.start:clause.end]
        pm = cc.passed.search(piece)
        if pm and not sent.negated(clause.start + pm.start(), clause.start + pm.end(), context=False):
            for mid in sorted({mid for _s, _e, mid in mentions} - numbered - threshold_only):
                claims.append(_Claim(mid, "pass", None, text, clause.start + pm.start()))
            break
    return claims, threshold_only - numbered


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


def _claims_pass(claim: _Claim, metric: _Metric) -> bool:
    """Does this claim say the metric passes the lab threshold?"""
    if claim.relation == "pass":
        return True
    if claim.relation in ("eq", "lt"):
        return claim.value is not None and abs(claim.value) <= metric.threshold
    return False


def _check_metric(metric: _Metric, claims: list[_Claim], m: float | None) -> dict | None:
    """A contradiction flag, or None.

    The student's pass/fail claim is compared with the grader's: a contradiction is a claim of passing
    (a value or bound within the threshold, or "passed") while the grader measured a failure. A different
    value that agrees on pass/fail (another seed, another machine) is not a contradiction, and neither
    is an honest report of a failure the grader did not reproduce."""
    if m is None or not claims or m <= metric.threshold:
        return None
    if not all(_claims_pass(cl, metric) for cl in claims):
        return None
    numeric = [cl for cl in claims if cl.relation != "pass"]
    rel = {"eq": "=", "lt": "<", "gt": ">"}
    said = [f"{rel[cl.relation]} {_fmt(cl.value)}" for cl in numeric[:3]]
    said_en = ", ".join(said) or "passed"
    said_zh = "、".join(said) or "通过"       # round 46 mend: a zh list takes 、 ("为 < 0.01, = 0.02")
    measured_txt = _fmt(m) if math.isfinite(m) else "NaN/inf"
    return {
        "kind": "contradiction",
        "message": {
            "en": f"Your audit reports {metric.label['en']} {said_en}, which passes the lab threshold "
                  f"{_fmt(metric.threshold)}, but the grader measured {measured_txt} on your code, which fails it.",
            "zh": f"你的审计报告 {metric.label['zh']} 为 {said_zh}（达到实验门槛 {_fmt(metric.threshold)}），"
                  f"但评分器在你的代码上测得 {measured_txt}，未达到该门槛。",
        },
    }

