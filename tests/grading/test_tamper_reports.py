"""Attacks on what the jail reports about the submission (its call counters and module layouts),
on the names the source analysis follows, and on the text that leaves the jail. Each ends
`graded`, earns nothing it would not earn honestly, and is flagged for an instructor."""

from __future__ import annotations

import json

import pytest

from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS

# Each attack is graded in the real sandbox (these modules: ~160 tests, ~90 s on 2 idle cores): the
# slow lane, so `make test` stays under 10 minutes; CI runs both lanes.
pytestmark = pytest.mark.slow

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()

# The runtime's ops, reached through an aliased ``sys`` (``sys.modules`` was once matched by name).
REACH_RUNTIME = '''
import sys as _s
_ops = _s.modules["grading.sandbox.runtime"].Runtime.OPS
'''
FORGE_STATS = REACH_RUNTIME + '''
_orig_stats = _ops["stats"]
def _fake_stats(self, req):
    r = _orig_stats(self, req)
    r["count"]["ScaledDotProductAttention.forward"] = 10 ** 6
    r["forbid"] = {k: 0 for k in r["forbid"]}
    return r
_ops["stats"] = _fake_stats
'''
GARBAGE_REPORTS = REACH_RUNTIME + '''
_ops["describe"] = lambda self, req: {"is_module": True, "children": ["q_proj"], "linears": "zz"}
_ops["stats"] = lambda self, req: {"forbid": ["x"], "count": 5}
'''
FUSED = CORRECT.replace("output = torch.matmul(weights, v)",
                        "output = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=additive_mask)")
FUSED_THROUGH_AN_ALIAS = CORRECT.replace("output = torch.matmul(weights, v)",
                                         "output = _T.ops.aten.scaled_dot_product_attention(q, k, v, "
                                         "attn_mask=additive_mask)") + "\n_T = torch\n"
COPIES = CORRECT.replace("out, weights = self.attention(q, k, v, mask, return_weights=True)",
                         "out, weights = _attend(q, k, v, mask)") + '''

def _attend(q, k, v, mask):
    w = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1]) + mask, dim=-1)
    return torch.matmul(w, v), w
'''
# Projections that are not nn.Linear but hold a Linear's weight and bias (contract: nn.Linear), honestly
# reported, or reported as nn.Linear by a rewritten describe op.
OWN_PROJECTIONS = CORRECT.replace("class ScaledDotProductAttention", '''class Proj(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(fout, fin) / fin ** 0.5)
        self.bias = nn.Parameter(torch.zeros(fout))
        self.fin, self.fout = fin, fout

    def forward(self, x):
        return x @ self.weight.t() + self.bias


class ScaledDotProductAttention''', 1).replace("nn.Linear(d_model, inner)", "Proj(d_model, inner)").replace(
    "nn.Linear(inner, d_model)", "Proj(inner, d_model)")
FORGE_DESCRIBE = REACH_RUNTIME + '''
_orig_describe = _ops["describe"]
def _fake_describe(self, req):
    info = _orig_describe(self, req)
    obj = self._handle(req["handle"])
    for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
        c = obj._modules.get(n)
        if c is not None:
            info["children"][n] = {"type": "Linear", "is_linear": True, "in_features": c.fin,
                                   "out_features": c.fout, "bias": True}
    return info
_ops["describe"] = _fake_describe
'''
FUSED_THROUGH_A_MATCH_PATTERN = CORRECT.replace("output = torch.matmul(weights, v)",
                                                "output = _KERNEL(q, k, v, attn_mask=additive_mask)[0]") + '''
match torch:
    case object(_scaled_dot_product_attention_math=_KERNEL):
        pass
'''
REPORT_TESTS = ("test_no_fused_attention_static", "test_no_fused_attention_runtime", "test_mha_reuses_sdpa",
                "test_mha_structure", "test_mha_custom_head_dim")


def _grade(executor, code: str) -> dict:
    result = grade(GradeInput(code=code.encode()), "attention", executor)
    assert result["status"] == "graded", result["message"]
    return result


def _points(result: dict, test_id: str) -> float:
    return next(t["points"] for t in result["tests"] if t["id"] == test_id)


@pytest.mark.parametrize(("attack", "honest"), [(FUSED + FORGE_STATS, FUSED), (COPIES + FORGE_STATS, COPIES),
                                                (FUSED_THROUGH_AN_ALIAS, FUSED),
                                                (OWN_PROJECTIONS + FORGE_DESCRIBE, OWN_PROJECTIONS),
                                                (OWN_PROJECTIONS + FORGE_DESCRIBE.replace(
                                                    "import sys as _s\n", "import os as _s\n").replace(
                                                    "_s.modules", "_s.sys.modules"), OWN_PROJECTIONS),
                                                (FUSED_THROUGH_A_MATCH_PATTERN, FUSED)],
                         ids=["fused_with_forged_counters", "copied_softmax_with_forged_counters",
                              "fused_through_an_alias_of_torch", "own_projections_with_a_forged_layout",
                              "forged_layout_through_os", "fused_kernel_read_by_a_match_pattern"])
def test_forged_reports_and_aliases_earn_nothing_and_are_flagged(executor, attack, honest):
    forged, plain = _grade(executor, attack), _grade(executor, honest)
    assert forged["total"] <= plain["total"] < 85
    assert all(_points(forged, t) == 0 for t in REPORT_TESTS)
    assert forged["review"] and not plain["review"]


def test_malformed_reports_from_the_jail_fail_the_submission_never_the_grader(executor):
    result = _grade(executor, CORRECT + GARBAGE_REPORTS)
    assert [t["id"] for t in result["tests"] if t["outcome"] == "error"] == []
    assert result["total"] < 85 and result["review"]


@pytest.mark.parametrize("where", ["forward", "import"])
@pytest.mark.parametrize("text", ["lone \\ud800 here", "nul \\x00 and \\x1b[2J escape \\u202e here"],
                         ids=["surrogate", "controls"])
def test_what_the_submission_writes_leaves_a_result_any_writer_accepts(executor, where, text):
    # printed too where printing it works (a lone surrogate cannot be encoded to stdout at all)
    say = "" if "ud800" in text else f"print('{text}'); "
    code = (CORRECT.replace("assert q.ndim == k.ndim == v.ndim == 4", f"{say}raise ValueError('{text}')")
            if where == "forward" else CORRECT + f"\n{say}raise RuntimeError('{text}')\n")
    result = _grade(executor, code)
    out = json.dumps(result, ensure_ascii=False)
    out.encode("utf-8")                            # the CLI's JSON line, a terminal
    assert "\x00" not in out and "\x1b" not in out and "\u202e" not in out   # PostgreSQL text, a terminal, a page
    assert "here" in out and result["total"] < 85


def test_projections_of_another_class_holding_a_linears_weights_are_driven_and_lose_only_the_structure_test(
        executor):
    result = _grade(executor, OWN_PROJECTIONS)
    assert [t["id"] for t in result["tests"] if t["outcome"] != "passed"] == ["test_mha_structure"]
