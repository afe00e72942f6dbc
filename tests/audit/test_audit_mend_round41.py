"""Round 41 mend: the phrase groups' literal pruning costs nothing on texts graded for the first time, finds what the
whole alternation finds, and knows nothing of the literals under a scoped flag."""
import random
import time
from pathlib import Path

import pytest

from rubric.audit import checklist as C
from rubric.audit import grade_audit
from tests.audit.helpers import MEASURED_OK, OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade

TESTS = Path(__file__).resolve().parents[1]


def _groups(checklist) -> list[C._Pat]:
    """Every phrase group reachable from the checklist (parts included)."""
    pats: list[C._Pat] = []
    seen: set[int] = set()

    def walk(o, depth: int = 0) -> None:
        if id(o) in seen or depth > 6:
            return
        seen.add(id(o))
        if isinstance(o, C._Pat):
            pats.append(o)
            for x in o.parts:
                walk(x, depth + 1)
        elif isinstance(o, dict):
            for v in o.values():
                walk(v, depth + 1)
        elif isinstance(o, (list, tuple)):
            for v in o:
                walk(v, depth + 1)
        elif hasattr(o, "__dict__"):
            for v in vars(o).values():
                walk(v, depth + 1)

    walk(checklist)
    return pats


def _fresh_texts(checklist, n: int, seed: int) -> list[str]:
    """Audits no test grades elsewhere: sentences of random cue literals, so each holds a new set of them."""
    rng = random.Random(seed)
    lits = sorted({t for g in (checklist.negation, checklist.caveat, checklist.flip, checklist.rebuttal,
                               checklist.overclaim_patterns) for t in g._lits[0]})
    return ["\n".join(f"k2 {' '.join(rng.sample(lits, 4))} the output {rng.randrange(10 ** 6)}." for _ in range(30))
            for _ in range(n)]


def test_grading_texts_for_the_first_time_costs_what_grading_them_again_costs(checklist):
    """Round 41's first pruning compiled one alternation per set of literals a text held: a worker grades each text
    once, so the saving showed only on a repeat (19 ms an audit first, 12 on main). Each phrase is compiled once."""
    texts = _fresh_texts(checklist, 40, seed=time.time_ns())
    grade_audit("Rows are queries. k2 is 0.5.", None, MEASURED_OK, checklist)
    t0 = time.process_time()
    for t in texts:
        grade_audit(t, None, MEASURED_OK, checklist)
    t1 = time.process_time()
    for t in texts:
        grade_audit(t, None, MEASURED_OK, checklist)
    t2 = time.process_time()
    assert t1 - t0 < 1.5 * (t2 - t1), f"first {1000 * (t1 - t0):.0f} ms, again {1000 * (t2 - t1):.0f} ms"


@pytest.mark.slow
def test_every_pruned_group_finds_what_its_whole_alternation_finds_in_every_audit_under_tests(checklist):
    """All groups of >= 4 phrases, every sentence of every audit text under tests/ (as is, lower-cased, with its
    intensifiers blanked): the same spans from finditer and the same first match from search."""
    from rubric.audit.text import _blank, _segment

    texts: set[str] = set()
    for f in TESTS.rglob("*"):
        if f.suffix in (".md", ".txt") and f.is_file():
            for s in _segment(checklist, f.read_text(encoding="utf-8", errors="ignore")):
                texts.update((s.text, s.text.lower(), _blank(checklist.intensifiers, s.text)))
    groups = [g for g in _groups(checklist) if len(g.alts) >= 4]
    assert len(groups) > 50 and len(texts) > 2000
    for g in groups:
        for t in texts:
            whole = [m.span() for m in g.regex.finditer(t)] if g._may_match(t) else []
            assert [m.span() for m in g.finditer(t)] == whole, (g.regex.pattern[:60], t)
            first = g.search(t)
            assert (first.span() if first else None) == (whole[0] if whole else None), (g.regex.pattern[:60], t)


@pytest.mark.parametrize("text", ["the HEATMAP proves it", "the Heatmap proves it", "the heatmap proves it"])
def test_a_phrase_with_a_scoped_flag_is_tried_whatever_the_case_of_its_literals(text):
    """(?i:heatmap) matches HEATMAP: its literal "heatmap" must not filter the phrase out."""
    g = C._compile_group(["re:(?i:heatmap) proves", "alpha", "beta", "gamma"], "probe")
    assert [m.span() for m in g.finditer(text)] == [(4, 18)]
    assert g.search(text) is not None


def test_a_phrase_with_a_global_ignorecase_flag_has_no_literals():
    assert C._required_literals("(?i)heatmap proves") is None


# ------------------------------------------------------------------- a hedged claim about "it" (review HIGH 2)

HEDGED_PRONOUN = [
    (OPENER_EN + "q1's output is high; maybe k2 causes it, maybe not: the heatmap cannot tell.\n", 3.0),
    (OPENER_EN + "The output might come from k2; I suspect k2 causes it, but the heatmap cannot prove causation.\n", 4.5),
    (OPENER_ZH + "输出很高，也许 k2 导致了它，也许没有：热力图无法判断。\n", 3.0),
    (OPENER_ZH + "输出很高，可能是 k2 决定了它，但热力图不能证明因果关系。\n", 4.5),
]


@pytest.mark.parametrize(("text", "score"), HEDGED_PRONOUN)
def test_a_hedge_before_a_claim_about_it_keeps_the_pronoun_unread(text, score):
    """"maybe k2 causes it", 也许 k2 导致了它: the pronoun reading (the output named for "it") dropped the hedge and
    flagged a guess; a hedged sentence is read as written."""
    r = _grade(text)
    assert "overclaim" not in kinds(r) and r["score"] == score, (r["score"], kinds(r))


@pytest.mark.parametrize("text", [OPENER_EN + "Nothing else explains the output: k2 causes it.\n",
                                  OPENER_ZH + "q1 的输出只有一个解释：k2 导致了它。\n"])
def test_an_unhedged_claim_about_it_is_still_read_with_the_output_named(text):
    assert "overclaim" in kinds(_grade(text))


# ------------------------------------------------------- a retracted claim that only names the figure (review HIGH 1)

@pytest.mark.parametrize("claim", [
    "On the map k2 causes q1's output (not really).",
    "k2 causes q1's output in the figure (not really).",
    "k2 causes q1's output (see the map) (not really).",
    "k2 is the most important key on the map (not really).",
    "In the heatmap, k2 causes q1's output (not really).",
    "热力图里 k2 导致了 q1 的输出（其实不然）。",
    "k2 导致了 q1 的输出（如图）（其实不然）。",
    "如图，k2 导致了 q1 的输出（其实不然）。",
])
def test_a_retracted_claim_that_only_names_the_figure_earns_no_limit(claim):
    """The limit is kept when the clause says the figure shows the claim ("as the map seems to show", 图上看起来如此:
    test_audit_round41); a figure merely named (热力图 holds 图) says nothing of what it shows."""
    r = _grade((OPENER_ZH if "的" in claim else OPENER_EN) + claim + "\n")
    assert items(r)["limits"]["points"] == 0, (r["score"], kinds(r))


# ----------------------------------------------------------------------- review HIGH 4: the classes, not the sentences

@pytest.mark.parametrize("claim", [
    "Nobody in class thinks the heatmap cannot prove causation.",
    "No student thinks the heatmap cannot prove causation.",
    "Few would claim the heatmap cannot prove causation.",
    "没有一个人认为热力图不能证明因果关系。",
    "没有谁认为热力图不能证明因果关系。",
    "可见没有 k2，输出就会崩。",
    "由此可见没有 k2，输出就会崩。",
])
def test_who_denies_a_denial_or_an_emphasis_before_a_counterfactual_asserts_the_claim(claim):
    """"nobody" said another way (no student, few would, 没有一个人, 没有谁) cancels the negation it reports, as "nobody
    thinks" does; 可见 / 由此可见 before a counterfactual emphasise it, as 显然 does."""
    r = _grade((OPENER_ZH if any("\u4e00" <= c <= "\u9fff" for c in claim) else OPENER_EN) + claim + "\n")
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0, (r["score"], kinds(r))


@pytest.mark.parametrize("text", ["No student thinks k2 causes the output.", "没有谁认为 k2 导致了输出。",
                                  "A few students think the heatmap cannot prove causation."])
def test_nobody_holding_a_claim_still_denies_it_and_a_few_is_not_few(text):
    r = _grade((OPENER_ZH if "谁" in text else OPENER_EN) + text + "\n")
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (r["score"], kinds(r))


@pytest.mark.parametrize("claim", ["k2 导致了 q1 的输出【其实不然】。", "k2 causes q1's output [not really]."])
def test_a_claim_taken_back_in_square_brackets_earns_no_caveat(claim):
    r = _grade((OPENER_ZH if "的" in claim else OPENER_EN) + claim + "\n")
    assert items(r)["limits"]["points"] == 0 and r["score"] <= 3, (r["score"], kinds(r))


@pytest.mark.parametrize("claim", [
    "It is not wrong to say that k2 causes the output.",
    "It wouldn't be wrong to conclude that k2 is the most important key.",
    "Ignoring that k2 causes the output would be wrong.",
    "Doubting that k2 is the most important key is unfair.",
])
def test_a_denied_verdict_or_a_verdict_that_denies_a_neglect_asserts_the_claim(claim):
    r = _grade(OPENER_EN + claim + "\n")
    assert "overclaim" in kinds(r) and items(r)["limits"]["points"] == 0, (r["score"], kinds(r))


@pytest.mark.parametrize("text", [
    "We cannot say that k2 causes the output.",
    "I cannot say that q0 is driven by k1 without removing k1.",
    "It is wrong to say that k2 causes the output.",
    "It is not wrong to say that the heatmap cannot prove causation.",
    "Ignoring that the heatmap cannot prove causation would be wrong.",
])
def test_those_leads_keep_a_caveat_they_wrap_or_deny_a_claim(text):
    r = _grade(OPENER_EN + text + "\n")
    assert "overclaim" not in kinds(r) and items(r)["limits"]["points"] > 0, (r["score"], kinds(r))


def test_a_passive_claim_about_it_is_read_with_the_output_named():
    r = _grade(OPENER_EN + "Nothing else explains the output: it is caused by k2.\n")
    assert "overclaim" in kinds(r), (r["score"], kinds(r))
    r = _grade(OPENER_EN + "The output is high; maybe it is caused by k2, but the heatmap cannot prove causation.\n")
    assert "overclaim" not in kinds(r), (r["score"], kinds(r))
