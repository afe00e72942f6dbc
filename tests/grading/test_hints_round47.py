"""Round 47 (brief D 3): every hint shown for 31 faulty multi-head files (head split and merge orders, view on a
non-contiguous tensor, the scale by d_model or head_dim, shared projections, concatenation on the wrong axis, the
output projection missing, doubled or without its bias, masks on the wrong axis, dropout at eval, batch-first
confusions) was read against its code, in en and zh. Two said what the code does not do:

- the padding mask's broadcast note said "against the scores [B, H, Nq, Nk] its Nk meets the scores' Nq" where the
  failing line adds the padding mask to the additive mask (``mask + pad``), not to the scores: it now names the axes
  (the scores' layout, which a mask added to them shares), not the scores;
- an output holding NaN was said to be "inf away from the reference" / to differ "by inf" (max_err counts NaN as
  infinitely far): a number the code never gave. It now says how many non-finite values each output holds.

The slow test grades all 31 files and checks no hint says either again, and that no zh hint keeps English."""

from __future__ import annotations

import math

import pytest
import torch

from grader_tests.attention import test_mask_parity as T
from grader_tests.attention.checks import apart, non_finite
from grading.load_hints import padding_note
from grading.proxy import Feedback
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, grade_stored
from tests.grading.test_padding_fill_round45 import _Student

# a correct multi-head file (the corpus's r34 file with its padding fill made -inf)
BASE = (SUBMISSIONS / "faulty" / "r34_pad_filled_with_zero.py").read_text().split("\n", 3)[3].replace(
    "pad = pad.masked_fill(key_padding_mask, 0.0)[:, None, None, :]",
    "pad = pad.masked_fill(key_padding_mask, float('-inf'))[:, None, None, :]")
SPLIT = "return t.view(B, N, self.num_heads, self.head_dim).transpose(1, 2)"
MERGE = "return t.transpose(1, 2).reshape(B, N, H * D)"
ATT = "out, weights = self.attention(q, k, v, mask, return_weights=True)"
OUT = "out = self.out_proj(self._merge(out))"
OWN = ("scores = q @ k.transpose(-2, -1) / {scale}\n        if mask is not None:\n            scores = scores + mask\n"
       "        weights = torch.softmax(scores, dim={dim})\n        out = weights @ v")

MUTANTS: dict[str, list[tuple[str, str]]] = {
    "split_dh_order": [(SPLIT, "return t.view(B, N, self.head_dim, self.num_heads).permute(0, 3, 1, 2)")],
    "split_no_transpose": [(SPLIT, "return t.view(B, self.num_heads, N, self.head_dim)")],
    "split_reshape_hn": [(SPLIT, "return t.reshape(B, self.num_heads, N, self.head_dim)")],
    "merge_no_transpose": [(MERGE, "return t.reshape(B, N, H * D)")],
    "merge_view_noncontig": [(MERGE, "return t.transpose(1, 2).view(B, N, H * D)")],
    "merge_wrong_perm": [(MERGE, "return t.permute(0, 2, 3, 1).reshape(B, N, H * D)")],
    "concat_seq_dim": [(MERGE, "return torch.cat([t[:, h] for h in range(H)], dim=1)")],
    "concat_heads_stack_last": [(MERGE, "return torch.stack([t[:, h] for h in range(H)], dim=-1).reshape(B, N, H * D)")],
    "heads_summed": [(MERGE, "return t.sum(1).repeat(1, 1, H)")],
    "scale_by_d_model": [(ATT, OWN.format(scale="math.sqrt(self.d_model)", dim="-1"))],
    "scale_by_head_dim_no_sqrt": [(ATT, OWN.format(scale="self.head_dim", dim="-1"))],
    "scale_by_num_heads": [(ATT, OWN.format(scale="math.sqrt(self.num_heads)", dim="-1"))],
    "softmax_dim_heads": [(ATT, OWN.format(scale="math.sqrt(self.head_dim)", dim="1"))],
    "softmax_before_scale": [(ATT, OWN.format(scale="1", dim="-1") + " / math.sqrt(self.head_dim)")],
    "k_shares_q_proj": [("k = self._split(self.k_proj(kv))", "k = self._split(self.q_proj(kv))")],
    "v_shares_k_proj": [("v = self._split(self.v_proj(kv))", "v = self._split(self.k_proj(kv))")],
    "one_proj_all": [("k = self._split(self.k_proj(kv))", "k = self._split(self.q_proj(kv))"),
                     ("v = self._split(self.v_proj(kv))", "v = self._split(self.q_proj(kv))")],
    "q_from_context": [("q = self._split(self.q_proj(x))", "q = self._split(self.q_proj(kv))")],
    "out_proj_missing": [(OUT, "out = self._merge(out)")],
    "out_proj_doubled": [(OUT, "out = self.out_proj(self.out_proj(self._merge(out)))")],
    "out_proj_no_bias": [(OUT, "out = F.linear(self._merge(out), self.out_proj.weight)")],
    "pad_on_query_axis": [("[:, None, None, :]", "[:, None, :, None]")],
    "pad_inverted": [("pad.masked_fill(key_padding_mask,", "pad.masked_fill(~key_padding_mask,")],
    "pad_finite_per_head": [("pad = pad.masked_fill(key_padding_mask, float('-inf'))[:, None, None, :]",
                             "fills = torch.tensor([-5.0 if h % 2 == 0 else -8.0 for h in range(self.num_heads)])\n"
                             "            pad = key_padding_mask[:, None, None, :].to(q.dtype) * fills[None, :, None, None]")],
    "additive_mask_head_axis": [("mask = additive_mask[:, None] if additive_mask.dim() == 3 else additive_mask",
                                 "mask = additive_mask[None] if additive_mask.dim() == 3 else additive_mask")],
    "dropout_functional_eval": [("weights = self.dropout(weights)", "weights = F.dropout(weights, p=0.1)")],
    "dropout_training_true": [("weights = self.dropout(weights)", "weights = F.dropout(weights, 0.1, training=True)")],
    "batch_first_output_seq_first": [(OUT, "out = self.out_proj(self._merge(out)).transpose(0, 1)")],
    "batch_first_input_seq_first": [("kv = x if context is None else context",
                                     "x = x.transpose(0, 1)\n        kv = x if context is None else context.transpose(0, 1)")],
    "weights_mean_heads": [("out = self.out_proj(self._merge(out))\n        return (out, weights)",
                            "out = self.out_proj(self._merge(out))\n        return (out, weights.mean(1))")],
    "weights_before_merge_dropped_heads": [(MERGE, "return t[:, :1].expand(-1, H, -1, -1).transpose(1, 2).reshape(B, N, H * D)")],
}


def _mutant(name: str) -> str:
    source = BASE
    for old, new in MUTANTS[name]:
        assert old in source, (name, old)
        source = source.replace(old, new)
    return source


# ------------------------------------------------------------------ the padding mask's broadcast note
def test_the_broadcast_note_names_the_axes_where_the_padding_mask_meets_another_mask_not_the_scores():
    source = _mutant("pad_on_query_axis")
    line = source.splitlines().index("            mask = pad if mask is None else mask + pad") + 1
    said = padding_note(source, line, "The size of tensor a (4) must match the size of tensor b (6) at non-singleton "
                                      "dimension 2", 1)
    assert said is not None
    en, zh = said["en"], said["zh"]
    assert "the scores' Nq" not in en and "its Nk meets the Nq axis at dimension 2" in en, en
    assert "against the scores' axes [B, H, Nq, Nk] (which a mask added to the scores shares)" in en, en
    assert "对上了 score 的" not in zh and "它的 Nk 对上了 Nq 轴" in zh, zh
    assert english_in_zh(zh, code_names(source)) == [], zh


# ------------------------------------------------------------------ NaN said as NaN, not "inf away"
def test_an_output_holding_nan_is_said_so_not_as_a_distance():
    a, b = torch.tensor([1.0, math.nan, math.inf]), torch.tensor([1.0, 2.0, 3.0])
    said = apart(a, b, {"en": "the first", "zh": "前者"}, {"en": "the second", "zh": "后者"})
    assert said["en"] == " (the first holds 2 non-finite values, the second 0)", said
    assert "inf" not in said["en"] and "前者含有 2 个非有限值，后者 0 个" in said["zh"]
    assert apart(b, b + 0.5, {"en": "", "zh": ""}, {"en": "", "zh": ""})["en"] == " by 0.5"
    assert non_finite(b) is None and non_finite(a)["en"] == "2 non-finite values (1 NaN, 1 inf)"


@pytest.mark.parametrize("faults, said", [
    ({None: ("inverted", -math.inf)}, "sample 0 has no padding, but with the padding mask its output holds "),
    ({None: ("filled", math.nan)}, "sample 1 with 3 padded keys differs (its output holds "),
], ids=["sample_0_all_blocked", "sample_1_nan_at_padding"])
def test_the_padding_test_says_how_many_values_are_not_finite_where_it_said_inf(faults, said):
    with pytest.raises(Feedback) as got:
        T.test_padding_leaves_valid_results_unchanged(_Student(faults))
    en, zh = got.value.message["en"], got.value.message["zh"]
    assert said in en and "non-finite values" in en and "inf away" not in en and "by inf" not in en, en
    assert "非有限值" in zh and "相差 inf" not in zh, zh


# ------------------------------------------------------------------ every hint of the 31 files
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_no_hint_of_a_faulty_multi_head_file_says_inf_for_nan_or_names_the_scores_for_another_mask(executor, name):
    source = _mutant(name)
    result = grade_stored(executor, source)
    assert result["status"] == "graded" and result["total"] < 85, name
    code = code_names(source)
    for test in result["tests"]:
        if test["outcome"] == "passed":
            continue
        en, zh = test["feedback"]["en"], test["feedback"]["zh"]
        assert "inf away" not in en and "by inf" not in en and "相差 inf" not in zh, (test["id"], en)
        assert "meets the scores'" not in en, (test["id"], en)
        assert english_in_zh(zh, code) == [], (test["id"], zh)
    if name == "pad_finite_per_head":
        said = next(t["feedback"]["en"] for t in result["tests"] if t["id"] == "test_padding_keys_get_zero_weight")
        assert "finite scores instead of -inf for the padding keys" in said and " (head 1)" in said, said
