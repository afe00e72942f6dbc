"""Review R3 (round 35): a runtime-error note names a cause only when the source shows it; otherwise it says what
was seen. Each case is a reviewer's reproduction (/tmp/r3) cut down to the lines that matter."""
from __future__ import annotations

import textwrap

from grading import load_hints as hints
from grading.proxy import student_error_text


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _line_of(src: str, text: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if text in line)


def _text(note) -> str:
    return "" if note is None else note["en"] + "\n" + note["zh"]


class _Err(Exception):
    def __init__(self, kind: str, message: str, lineno: int):
        super().__init__(message)
        self.kind, self.message, self.lineno = kind, message, lineno


SDPA = _src("""
    import torch
    from torch import nn


    class ScaledDotProductAttention(nn.Module):
        def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
            scores = q @ k.transpose(-2, -1)
            LINE
            weights = torch.softmax(scores, dim=-1)
            return (weights @ v, weights) if return_weights else weights @ v
    """)


def test_a_float_mask_given_to_masked_fill_is_told_both_remedies_not_only_the_additive_one():
    src = SDPA.replace("LINE", 'scores = scores.masked_fill(pad.float(), float("-inf"))')
    line = _line_of(src, "masked_fill(")
    note = hints.torch_call_note(src, line, "masked_fill_ only supports boolean masks, but got mask with dtype float")
    assert "`mask.bool()`" in note["en"] and "`mask.bool()`" in note["zh"]
    assert "A mask that already holds 0.0 (allowed) and -inf (blocked) is added" in note["en"]


def test_an_exception_raised_inside_an_asserts_condition_is_not_said_to_be_a_false_condition():
    src = SDPA.replace("LINE", "assert q.shape[4] == k.shape[4]")
    line = _line_of(src, "assert ")
    note = hints.own_raise_note(src, line, "tuple index out of range", kind="IndexError")
    assert "the IndexError was raised while its condition (q.shape[4] == k.shape[4]) was being computed" in note["en"]
    assert "是在计算它的条件" in note["zh"] and "false" not in note["en"] and "remove" not in note["en"]


def test_a_false_assert_is_not_told_to_be_removed():
    src = SDPA.replace("LINE", "assert torch.allclose(scores.sum(-1), torch.ones(()))")
    line = _line_of(src, "assert ")
    note = hints.own_raise_note(src, line, "", kind="AssertionError")
    assert "is false for these inputs" in note["en"] and "remove" not in note["en"] and "删掉" not in note["zh"]
    assert "If the check is right, the code before it computed a wrong value" in note["en"]


def test_the_kind_of_the_exception_reaches_the_assert_note_through_student_error_text():
    src = SDPA.replace("LINE", "assert q.shape[4] == k.shape[4]")
    err = _Err("IndexError", "tuple index out of range", _line_of(src, "assert "))
    text = student_error_text("ScaledDotProductAttention.forward", err, source=src)
    assert "the IndexError was raised while its condition" in text["en"] and "is false" not in text["en"]


def test_axis_refused_by_the_files_own_function_gets_no_numpy_note():
    src = _src("""
        import torch


        def stable_softmax(x, dim):
            return torch.softmax(x, dim=dim)


        def f(scores):
            return stable_softmax(scores, axis=-1)
        """)
    line = _line_of(src, "axis=")
    assert hints.torch_call_note(src, line, "stable_softmax() got an unexpected keyword argument 'axis'") is None
    # torch's own function refusing it is still told its torch name
    torch_src = src.replace("stable_softmax(scores, axis=-1)", "torch.softmax(scores, axis=-1)")
    note = hints.torch_call_note(torch_src, line, "softmax() got an unexpected keyword argument 'axis'")
    assert "PyTorch calls it dim=" in note["en"]


ATTR = _src("""
    from torch import nn


    class ScaledAttentionModule(nn.Module):
        def __init__(self, scale=None):
            super().__init__()
            self.scale = scale


    class MultiHeadAttention(BASE):
        def __init__(self, d_model, num_heads):
            super().__init__()
            self.num_heads = num_heads
            self.head_dim = d_model // num_heads

        def _split(FIRST, t):
            b, n, _ = t.shape
            return t.view(b, n, READ, FIRST.head_dim)
    """)


def _attr(base: str, first: str, read: str, missing: str):
    src = ATTR.replace("BASE", base).replace("FIRST", first).replace("READ", read)
    line = _line_of(src, "t.view(")
    return hints.attribute_note(src, line, f"'MultiHeadAttention' object has no attribute '{missing}'")


def test_a_first_parameter_named_this_is_read_as_self_not_as_a_missing_self():
    note = _text(_attr("nn.Module", "this", "this.n_heads", "n_heads"))
    assert "has no self parameter" not in note
    assert "line 18 reads this.n_heads, which no method of MultiHeadAttention assigns" in note


def test_a_misspelt_attribute_is_offered_the_close_assigned_name_and_no_other_cause():
    note = _attr("nn.Module", "self", "self.num_head", "num_head")
    assert "It assigns self.num_heads (line 13), a close name" in note["en"]
    assert "self.num_heads" in note["zh"] and "__init__" not in note["en"]
    far = _attr("nn.Module", "self", "self.heads_total", "heads_total")
    assert far["en"].endswith("which no method of MultiHeadAttention assigns")   # what was seen, no guessed cause


def test_a_base_class_of_the_files_own_named_module_gets_no_unassigned_note():
    assert _attr("ScaledAttentionModule", "self", "self.scale", "scale") is None


def test_a_quoted_attribute_name_is_capped():
    long = "a" * 400
    note = _attr("nn.Module", "self", f"self.{long}", long)
    assert len(note["en"]) < 200 and "…" in note["en"]
