"""Round 41 mend of brief C: a quote reads a name's value only through bindings it understands, and the heads' order
of an einops unfold off the size given, never off where the result puts the letters; when unsure, nothing is quoted.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import source_lines
from tests.grading.probes_round38 import line_of, probe
from tests.grading.test_quoted_lines_round31 import quoted_lines
from tests.grading.test_split_quotes_round41 import CLS, KERNEL, SDPA, _kernel

QKV = ("q = self.split_heads(self.q_proj(x))\n        k = self.split_heads(self.k_proj(memory))\n"
       "        v = self.split_heads(self.v_proj(memory))")
RAW = "q = self.q_proj(x)\n        k = self.k_proj(memory)\n        v = self.v_proj(memory)\n"
OTHERS = "\n        k = self.split_heads(self.k_proj(memory))\n        v = self.split_heads(self.v_proj(memory))"
RIGHT_OF_TRANSPOSED = "q = q.reshape(B, self.h, self.d_k, -1).transpose(2, 3)"
SPLIT_NOTES = ("split_no_transpose_note", "split_merge_no_transpose_note", "split_dim_first_note",
               "merge_no_transpose_note")

REBOUND_OTHERWISE = {   # q rebound by a form no note reads, then a line that changes nothing or splits rightly
    "generator_fault_then_same_shape": RAW + "        q, k, v = (t.view(B, self.h, -1, self.d_k) for t in (q, k, v))\n"
                                             "        q = q.reshape(B, self.h, -1, self.d_k)",
    "map_fault_then_same_shape": RAW + "        q, k, v = map(lambda t: t.reshape(B, self.h, -1, self.d_k), (q, k, v))\n"
                                       "        q = q.contiguous().view(B, self.h, -1, self.d_k)",
    "tuple_right_then_same_shape": RAW + "        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)\n"
                                         "        q = q.reshape(B, self.h, -1, self.d_k)",
    "generator_right_then_same_shape": RAW + "        q, k, v = (t.view(B, -1, self.h, self.d_k).transpose(1, 2) for t in "
                                             "(q, k, v))\n        q = q.contiguous().view(B, self.h, -1, self.d_k)",
    "map_right_then_same_shape": RAW + "        q, k, v = map(self.split_heads, (q, k, v))\n"
                                       "        q = q.view(B, self.h, -1, self.d_k)",
    "annotated_transposed": "q: torch.Tensor = self.q_proj(x).transpose(1, 2)\n        " + RIGHT_OF_TRANSPOSED + OTHERS,
    "tuple_transposed": "q = self.q_proj(x)\n        q, k = q.transpose(1, 2), self.split_heads(self.k_proj(memory))\n"
                        "        " + RIGHT_OF_TRANSPOSED + "\n        v = self.split_heads(self.v_proj(memory))",
    "walrus_transposed": "q = self.q_proj(x)\n        if (q := q.transpose(1, 2)) is not None:\n            pass\n"
                         "        " + RIGHT_OF_TRANSPOSED + OTHERS,
    "loop_transposed": "q = self.q_proj(x)\n        for _ in range(1):\n            q = q.transpose(1, 2)\n"
                       "        " + RIGHT_OF_TRANSPOSED + OTHERS,
    "plain_transposed": "q = self.q_proj(x).transpose(1, 2)\n        " + RIGHT_OF_TRANSPOSED + OTHERS,
    "branch_transposed": "q = self.q_proj(x)\n        if B > 0:\n            q = q.transpose(1, 2).reshape(B, self.h, "
                         "self.d_k, -1).transpose(2, 3)\n        q = q.view(B, self.h, -1, self.d_k)" + OTHERS,
}


@pytest.mark.parametrize("case", REBOUND_OTHERWISE)
def test_a_name_rebound_in_a_form_not_read_quotes_no_split(case):
    source = probe().replace(QKV, REBOUND_OTHERWISE[case])
    assert source != probe()
    compile(source, case, "exec")
    for note in SPLIT_NOTES:
        assert getattr(source_lines, note)(source, CLS) is None, (note, getattr(source_lines, note)(source, CLS))


def test_a_plain_split_of_the_projection_is_still_quoted():
    source = probe().replace(QKV, RAW + "        q = q.view(B, self.h, -1, self.d_k)\n"
                                        "        k = k.view(B, self.h, -1, self.d_k)\n        v = v.view(B, self.h, -1, self.d_k)")
    said = source_lines.split_no_transpose_note(source, CLS)
    assert said is not None and [q[0] for q in quoted_lines(said["en"])] == [line_of(source, "q = q.view")], said


# ------------------------------------------------------------------ the unfold's order, read off the size given
MISREAD = KERNEL.format(fold_q="fq = rearrange(q, 'b h n d -> (h b) n d')",
                        fold_k="fk = rearrange(k, 'b h n d -> (h b) n d')",
                        fold_v="fv = rearrange(v, 'b h n d -> (h b) n d')",
                        unfold="out = rearrange(o, '(h b) n d -> h b n d', h=H).transpose(0, 1)\n"
                               "        w = w.view(B, H, Nq, -1)")


def test_an_einops_unfold_reads_the_heads_letter_off_the_size_given_not_off_the_result():
    folded, unfolded = source_lines.fold_lines(MISREAD, SDPA)
    assert {f[3] for f in folded} == {"hb"}
    assert [(f[0], f[3]) for f in unfolded] == [(line_of(MISREAD, "out = rearrange"), "hb"),
                                                 (line_of(MISREAD, "w = w.view"), "bh")], unfolded
    said = source_lines.fold_note(MISREAD, SDPA, "hb_bh")
    assert said is not None and [q[0] for q in quoted_lines(said["en"])] == [
        line_of(MISREAD, "fq = rearrange"), line_of(MISREAD, "w = w.view")], said
    assert "按样本顺序（第 b*H + h 行）把它们拆开：" in said["zh"], said


@pytest.mark.parametrize("unfold", ["out = rearrange(o, '(h b) n d -> b h n d')",
                                    "out = rearrange(o, '(b h) n d -> b h n d', b=B)",
                                    "out = rearrange(o, '(b h) n d -> b h n d', b=H, h=H)"])
def test_an_einops_unfold_with_no_single_heads_size_given_is_not_read(unfold):
    source = _kernel("fq = q.reshape(B * H, Nq, D)", unfold)
    assert source_lines.fold_lines(source, SDPA)[1] == []


def test_an_einops_fold_of_a_tensor_with_batch_and_heads_exchanged_reads_the_letters_the_other_way():
    source = _kernel("fq = rearrange(q.transpose(0, 1), 'b h n d -> (b h) n d')", "out = o.view(B, H, Nq, D)")
    folded, _ = source_lines.fold_lines(source, SDPA)
    assert {f[3] for f in folded} == {"hb"}, folded


# ------------------------------------------------------------------ folds and unfolds the code does not show surely
def test_a_fold_after_a_tuple_or_generator_rebinding_is_not_read():
    body = "q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)\n        "
    for fold in ("fq = q.reshape(H * B, Nq, D)", "fq = torch.cat(q.unbind(1), 0)"):
        source = _kernel(body + fold, "out = o.view(B, H, Nq, D)")
        assert source_lines.fold_lines(source, SDPA) == ([], []), fold
    genexp = _kernel("q, k, v = (t.transpose(0, 1) for t in (q, k, v))\n        fq = q.reshape(B * H, Nq, D)",
                     "out = o.view(B, H, Nq, D)")
    assert source_lines.fold_lines(genexp, SDPA) == ([], [])


def test_an_unfold_that_does_not_reach_the_output_is_not_read():
    source = _kernel("fq = q.transpose(0, 1).reshape(H * B, Nq, D)",
                     "dbg = o.view(B, H, Nq, D)\n        out = rearrange(o, '(h b) n d -> b h n d', h=H)")
    assert [f[3] for f in source_lines.fold_lines(source, SDPA)[1]] == ["hb"]
    assert source_lines.fold_note(source, SDPA, "hb_bh") is not None
    assert "unfolds" not in source_lines.fold_note(source, SDPA, "hb_bh")["en"]


def test_an_unfold_chained_on_another_unfold_is_not_read():
    source = _kernel("fq = q.reshape(B * H, Nq, D)",
                     "out = o.view(B, H, Nq, D).transpose(0, 1).contiguous().view(H, B, Nq, D).transpose(0, 1)")
    assert source_lines.fold_lines(source, SDPA)[1] == []
