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


MHA_LINE = _src("""
    from torch import nn


    class MultiHeadAttention(nn.Module):
        def forward(self, out, context, b, nq):
            LINE
            return out
    """)


def test_a_view_as_on_the_line_is_not_paired_with_the_reshape_beside_it():
    src = MHA_LINE.replace("LINE", "out = self.out_proj(out.reshape(b, nq, -1)).view_as(context)")
    line = _line_of(src, "view_as")
    assert hints.shape_note(src, line, "shape '[2, 7, 16]' is invalid for input of size 160") is None


def test_a_written_size_that_differs_from_the_message_means_another_call_raised_it():
    src = MHA_LINE.replace("LINE", "out = helper(out.reshape(b, nq, 4, 4))")
    line = _line_of(src, "reshape")
    assert hints.shape_note(src, line, "shape '[2, 7, 2, 8]' is invalid for input of size 160") is None


def test_a_negative_literal_size_is_shown_once_not_as_minus_one_equals_minus_one():
    src = MHA_LINE.replace("LINE", "out = out.reshape(b, nq, -1, 4)")
    line = _line_of(src, "reshape")
    note = hints.shape_note(src, line, "shape '[2, 7, -1, 4]' is invalid for input of size 160")
    assert "(`b` = 2, `nq` = 7, -1, 4)" in note["en"] and "`-1`" not in note["en"]


def test_an_extra_positional_argument_is_said_not_assigned_to_return_weights():
    src = _src("""
        from torch import nn


        class ScaledDotProductAttention(nn.Module):
            def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
                return q


        class MultiHeadAttention(nn.Module):
            def forward(self, q, k, v, mask):
                return self.attention(q, k, v, mask, True)
        """)
    line = _line_of(src, "self.attention(")
    note = hints.call_shape_note(src, line, "ScaledDotProductAttention.forward() takes from 4 to 5 positional "
                                            "arguments but 6 were given")
    assert "takes 4 arguments by position (q, k, v, additive_mask) and return_weights only by keyword" in note["en"]
    assert "q、k、v、additive_mask" in note["zh"]
    assert "return_weights=return_weights" not in note["en"] + note["zh"]


def test_a_long_keyword_only_list_is_capped():
    names = ", ".join(f"option_{i}=None" for i in range(200))
    src = _src(f"""
        from torch import nn


        class ScaledDotProductAttention(nn.Module):
            def forward(self, q, k, v, additive_mask=None, *, return_weights=False, {names}):
                return q


        def f(m, q):
            return m(q, q, q, None, True)
        """)
    line = _line_of(src, "return m(")
    note = hints.call_shape_note(src, line, "ScaledDotProductAttention.forward() takes from 4 to 5 positional "
                                            "arguments but 6 were given")
    assert len(note["en"]) < 300 and len(note["zh"]) < 300 and "…" in note["en"]


OWN_BASE = _src("""
    from torch import nn


    class AttentionBase(nn.Module):
        def __init__(self):
            super().__init__()


    class MultiHeadAttention(AttentionBase):
        def __init__(self, d_model):
            super().__init__(d_model)
    """)


def test_a_refusal_by_the_files_own_base_init_is_not_said_to_be_nn_modules():
    line = _line_of(OWN_BASE, "super().__init__(d_model)")
    note = hints.call_shape_note(OWN_BASE, line, "AttentionBase.__init__() takes 1 positional argument but 2 were given")
    assert "nn.Module" not in note["en"] + note["zh"]
    assert note["en"] == f"line {line} passes arguments (super().__init__(d_model)) to AttentionBase.__init__ " \
                         "(line 5), which takes only self"


def test_getattr_recursion_with_super_getattr_already_there_gets_no_advice_to_add_it():
    src = _src("""
        from torch import nn


        class MultiHeadAttention(nn.Module):
            def __getattr__(self, name):
                try:
                    return super().__getattr__(name)
                except AttributeError:
                    return getattr(self.config, name)
        """)
    # the deepest frame of the recursion is the super() call: the read of self that recursed is named
    note = hints.getattr_recursion_note(src, _line_of(src, "super().__getattr__"), "maximum recursion depth exceeded")
    assert "super().__getattr__" not in note["en"] + note["zh"] and "delete" not in note["en"]
    assert f"MultiHeadAttention.__getattr__ (line 5) reads self.config at line {_line_of(src, 'self.config')}" \
        in note["en"]


def test_the_last_def_of_a_method_is_the_one_python_keeps():
    src = _src("""
        class ScaledDotProductAttention:
            def forward(self, q):
                return q

            def forward(self, q):
                print(q)
        """)
    note = hints.no_return_note(src, "ScaledDotProductAttention")
    assert "ScaledDotProductAttention.forward (line 5) has no return statement" in note["en"]


def test_a_returned_numpy_array_is_named_once():
    import numpy as np
    import pytest

    from grader_tests.attention.drivers import normalise_result
    from grading.proxy import Feedback

    with pytest.raises(Feedback) as raised:
        normalise_result(np.zeros((2, 3)), "ScaledDotProductAttention", False, True)
    said = raised.value.message
    assert said["en"].count("NumPy array") == 1 and said["zh"].count("NumPy 数组") == 1
    assert "it returned an array of shape [2,3]: a NumPy array (numpy.ndarray) is not a torch.Tensor" in said["en"]


def test_a_forward_signature_note_caps_the_files_names_and_lists_them_with_the_chinese_comma():
    from grader_tests.attention.signature_note import forward_note

    many = ", ".join(f"extra_{i}" for i in range(100))
    src = _src(f"""
        from torch import nn


        class ScaledDotProductAttention(nn.Module):
            def forward(self, query, key, value, {many}):
                return query
        """)
    outcomes = {"t": {"feedback": "ScaledDotProductAttention.forward() missing 2 required positional arguments"}}
    note = forward_note(src, outcomes)
    assert len(note["en"]) < 600 and len(note["zh"]) < 600 and "…" in note["en"]
    assert "query、key、value" in note["zh"]


def test_long_class_and_method_names_are_capped_in_the_assert_and_getattr_notes():
    long = "Attention" + "x" * 300
    src = SDPA.replace("ScaledDotProductAttention", long).replace("LINE", "assert q.dim() == 4")
    note = hints.own_raise_note(src, _line_of(src, "assert "), "", kind="AssertionError")
    assert len(note["en"]) < 400 and "…" in note["en"] and "…" in note["zh"]
    rec = _src(f"""
        from torch import nn


        class {long}(nn.Module):
            def __getattr__(self, name):
                return self.config
        """)
    note = hints.getattr_recursion_note(rec, _line_of(rec, "self.config"), "maximum recursion depth exceeded")
    assert "x" * 100 not in note["en"] + note["zh"]
