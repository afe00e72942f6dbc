"""Round 42 mend (review C): einops groups read as unfolds only when they hold the batch, empty layouts, heads
moved in place through an alias, a second group beside the folded one."""
import pytest

from grader_tests.attention import diagnose
from grader_tests.attention import source_lines as sl
from tests.grading.probes_round38 import probe
from tests.grading.test_split_quotes_round41 import _kernel

MHA_ONE_STEP = '''import math
import torch
from torch import nn
from einops import rearrange


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.h = num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        q = rearrange(self.q_proj(x), 'b n (h d) -> (b h) n d', h=self.h)
        k = rearrange(self.k_proj(x), 'b n (h d) -> (b h) n d', h=self.h)
        v = rearrange(self.v_proj(x), 'b n (h d) -> (b h) n d', h=self.h)
        w = torch.softmax(torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.size(-1)), dim=-1)
        o = torch.bmm(w, v)
        return self.out_proj(rearrange(o, '(b h) n d -> b n (h d)', h=self.h))
'''

MHA_SPLIT_THEN_FOLD = '''import math
import torch
from torch import nn
from einops import rearrange


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.h = num_heads
        self.d_k = d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x, mask=None):
        B, N, _ = x.shape
        q = rearrange(self.q_proj(x), 'b n (h d) -> b h n d', h=self.h)
        k = rearrange(self.k_proj(x), 'b n (h d) -> b h n d', h=self.h)
        v = rearrange(self.v_proj(x), 'b n (h d) -> b h n d', h=self.h)
        fq = rearrange(q, 'b h n d -> (b h) n d')
        fk = rearrange(k, 'b h n d -> (b h) n d')
        fv = rearrange(v, 'b h n d -> (b h) n d')
        w = torch.softmax(torch.bmm(fq, fk.transpose(1, 2)) / math.sqrt(self.d_k), dim=-1)
        o = torch.bmm(w, fv)
        out = rearrange(o, '(b h) n d -> b h n d', h=self.h)
        return self.out_proj(rearrange(out, 'b h n d -> b n (h d)'))
'''


def _line(src: str, text: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if text in line)


def test_a_one_step_einops_fold_from_the_projection_is_no_unfold():
    folded, unfolded = sl.fold_lines(MHA_ONE_STEP, "MultiHeadAttention")
    assert {f[3] for f in folded} == {"bh"}
    assert [(f[0], f[3]) for f in unfolded] == [(_line(MHA_ONE_STEP, "rearrange(o, '(b h)"), "bh")]


def test_the_faulty_one_step_fold_quotes_its_real_unfold_line():
    bad = MHA_ONE_STEP.replace("rearrange(o, '(b h) n d", "rearrange(o, '(h b) n d")
    said = sl.fold_note(bad, "MultiHeadAttention", "bh_hb")
    back = _line(bad, "rearrange(o, '(h b)")
    assert f"line {back} unfolds them head by head" in said["en"]
    assert f"line {_line(bad, 'q = rearrange')} unfolds" not in said["en"]


def test_an_einops_split_of_the_features_is_no_unfold():
    folded, unfolded = sl.fold_lines(MHA_SPLIT_THEN_FOLD, "MultiHeadAttention")
    assert [(f[0], f[3]) for f in unfolded] == [(_line(MHA_SPLIT_THEN_FOLD, "out = rearrange(o"), "bh")]
    bad = MHA_SPLIT_THEN_FOLD.replace("rearrange(o, '(b h) n d", "rearrange(o, '(h b) n d")
    said = sl.fold_note(bad, "MultiHeadAttention", "bh_hb")
    assert f"line {_line(bad, 'out = rearrange(o')} unfolds them head by head, row h*B + b:" in said["en"]
    assert "q_proj" not in said["en"]


@pytest.mark.parametrize("extra", ["t = rearrange(o, 'b (h n) d -> b h n d', h=H)",
                                   "t = rearrange(o, 'b n (h d) -> b n h d', h=H)"])
def test_a_group_of_positions_or_features_on_the_left_is_no_unfold(extra):
    src = _kernel("fq = rearrange(q, 'b h n d -> (b h) n d')", "out = rearrange(o, '(b h) n d -> b h n d', h=H)")
    src = src.replace("        return", f"        {extra}\n        out = out + 0 * t.sum()\n        return", 1)
    _, unfolded = sl.fold_lines(src, "ScaledDotProductAttention")
    assert [(u[0], u[3]) for u in unfolded] == [(_line(src, "out = rearrange(o"), "bh")]


@pytest.mark.parametrize("fold, unfold", [
    ("fq = rearrange(q, 'b h n d -> (b h) (n d)')", "out = rearrange(o, '(h b) n d -> b h n d', h=H)"),
    ("fq = rearrange(q, 'b h n d -> (b h) n d')", "out = rearrange(o, '(h b) (n d) -> b h n d', h=H, n=Nq)")])
def test_a_second_group_beside_the_folded_one_still_reads(fold, unfold):
    folded, unfolded = sl.fold_lines(_kernel(fold, unfold), "ScaledDotProductAttention")
    assert {f[3] for f in folded} == {"bh"} and [u[3] for u in unfolded] == ["hb"]


EMPTY = {
    "empty_shape_split": lambda: probe().replace("return t.view(t.size(0), -1, self.h, self.d_k).transpose(1, 2)",
                                                 "shape = ()\n        return t.reshape(shape)"),
    "empty_tuple_layout": lambda: _kernel("shape = ()\n        fq = q.reshape(shape)",
                                          "out = o.view(H, B, Nq, D).transpose(0, 1)"),
    "empty_list_layout": lambda: _kernel("shape = []\n        fq = q.view(*shape)",
                                         "out = o.view(H, B, Nq, D).transpose(0, 1)"),
}


@pytest.mark.parametrize("case", sorted(EMPTY))
def test_an_empty_named_layout_reads_as_no_fold_in_every_reader(case):
    src = EMPTY[case]()
    for cls in ("MultiHeadAttention", "ScaledDotProductAttention"):
        for note in diagnose.SOURCE_NOTES.values():
            try:
                note(src, cls)
            except TypeError as e:
                if "positional argument" not in str(e):
                    raise
                for order in ("bh_hb", "hb_bh"):
                    note(src, cls, order)
        sl.fold_lines(src, cls)
        assert sl.fold_note(src, cls, "bh_hb") is None


SEQ_SPLIT = ("return t.view(t.size(0), -1, self.h, self.d_k).transpose(1, 2)",
             "return t.view(t.size(0), -1, self.h, self.d_k)")
CALL = "out, attn = self.attention(q, k, v, mask, return_weights=True)"
HEADS_MOVED = {
    "loop_inplace_alias": "for t in (q, k, v):\n            t.transpose_(1, 2)\n        ",
    "helper_inplace": "self.heads_first_(q, k, v)\n        ",
    "list_inplace": "qkv = [q, k, v]\n        for t in qkv:\n            t.transpose_(1, 2)\n        ",
    "torch_transpose_inplace": "torch.Tensor.transpose_(q, 1, 2)\n        torch.Tensor.transpose_(k, 1, 2)\n"
                               "        torch.Tensor.transpose_(v, 1, 2)\n        ",
    "setattr_data": "q.data = q.data.transpose(1, 2)\n        k.data = k.data.transpose(1, 2)\n"
                    "        v.data = v.data.transpose(1, 2)\n        ",
}


@pytest.mark.parametrize("case", sorted(HEADS_MOVED))
def test_heads_moved_in_place_through_an_alias_are_not_quoted_as_a_sequence(case):
    src = probe().replace(*SEQ_SPLIT).replace(CALL, HEADS_MOVED[case] + CALL)
    if case == "helper_inplace":
        src = src.replace("    def split_heads(self, t):", "    def heads_first_(self, *ts):\n        for t in ts:\n"
                          "            t.transpose_(1, 2)\n\n    def split_heads(self, t):")
    compile(src, case, "exec")
    assert sl.heads_as_sequence_lines(src, "MultiHeadAttention") == []


def test_the_sequence_split_read_through_attributes_only_is_still_quoted():
    src = probe().replace(*SEQ_SPLIT).replace(CALL, "assert q.dim() == 4 and q.shape == k.shape\n        " + CALL)
    assert [f[0] for f in sl.heads_as_sequence_lines(src, "MultiHeadAttention")] == [_line(src, SEQ_SPLIT[1])]


def test_the_sequence_note_names_the_kernel_the_code_calls():
    src = probe().replace(*SEQ_SPLIT).replace(CALL, "out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)\n"
                                              "        attn = None")
    said = sl.heads_as_sequence_note(src, "MultiHeadAttention")
    assert "reaches F.scaled_dot_product_attention with no transpose(1, 2)" in said["en"]
    assert "就传给了 F.scaled_dot_product_attention，" in said["zh"]
    assert "ScaledDotProductAttention" not in said["en"] + said["zh"]
    module = sl.heads_as_sequence_note(probe().replace(*SEQ_SPLIT), "MultiHeadAttention")
    assert "reaches ScaledDotProductAttention with" in module["en"]


@pytest.mark.parametrize("move", ["swapaxes(1, 2)", "swapdims(2, 1)", "permute(0, 2, 1, 3)"])
def test_heads_reversed_after_any_move_of_the_positions_first_are_quoted(move):
    # _heads_backwards reads the move before flip(2) through the same test as _positions_first (round 42 mend)
    written = f"merged = out.{move}.flip(2).reshape(B, -1, self.h * self.d_k)"
    src = probe().replace("merged = out.transpose(1, 2).reshape(B, -1, self.h * self.d_k)", written)
    said = sl.merge_heads_reversed_note(src, "MultiHeadAttention")
    assert said is not None and f"line {_line(src, written)} puts the heads" in said["en"]
