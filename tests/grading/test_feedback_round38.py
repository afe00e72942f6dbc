"""Round 38, feedback on broken and half-working code: a call's result unpacked into the wrong number of names, the
grader's own folders inside Python's ImportError, and the files of tests/grading/feedback_corpus_round38.py graded
once and read in zh and en.

Found, each said now in both languages with what was seen:
- ``out, weights = self.attn(q, k, v, ...)`` where the file's ScaledDotProductAttention returns one tensor (or three
  values) was Python's "not enough values to unpack (expected 2, got 1)" / "too many values to unpack (expected 2)"
  alone, and with the tests' batch of 2 the unpacking even succeeded (a tensor splits along its first axis) and the
  next line's ``B, H, N, D = out.shape`` failed "expected 4, got 3": the note names the unpacking line, the returns the
  callee writes and what the assignment says the module returns;
- ``from einops import rearange`` quoted the grader's site-packages folder (Python's words end in "(/…/site-packages/
  einops/__init__.py)"), on the result page and in the API: the grader's folders are cut, the module's own path kept;
- ``self.scale = 1 / math.sqrt(d_k)`` in __init__ with ``d_k`` assigned only in forward (and a class attribute read
  bare in a method) was "name 'd_k' is not defined" alone: the note says where the name is given a value;
- ``q.shape[-1:] ** 0.5`` was "unsupported operand type(s) for ** or pow(): 'torch.Size' and 'float'" alone;
- MultiHeadAttention returning ``(weights, output)`` was "the output has shape [2,4,2,11]" (round 21 said the reversed
  pair for ScaledDotProductAttention only);
- ``self.out_proj = nn.Linear(...)`` in forward was told "randomness is still active in eval mode (e.g. F.dropout
  ...)": the line that builds a layer at every call is named.
Already fine (read in zh and en, see the corpus test's expected words): mixed tabs, a misspelt einops name (its hint
aside), F.scaled_dot_product_attention used, math not imported, .view after transpose, a super().__init__() missing in
ScaledDotProductAttention, a float64 mask, k.T on 4-D, softmax over dim=1 or without dim (but for the hand example, whose
single head makes every weight 1.0), heads split without transpose, `mask == 0` on the float mask, matplotlib imported."""

from __future__ import annotations

import sys

import pytest

from grading.load_hints import unpack_note

# imported here, not in a test: grading.proxy imports torch, 20 s on a loaded host, paid once at collection
from grading.proxy import SANDBOX_WORKDIR, hide_grader_paths, load_error_text, student_error_text
from grading.sandbox import StudentError
from tests.grading.feedback_corpus_round37 import CASES as ROUND37
from tests.grading.feedback_corpus_round38 import CASES
from tests.grading.helpers import english_in_zh

_CODE = frozenset({"tensor", "shape", "out", "weights", "output"})


class _Raised(Exception):
    def __init__(self, kind: str, message: str, lineno: int | None):
        super().__init__(message)
        self.kind, self.message, self.lineno = kind, message, lineno


def _line_in(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def _said(source: str, kind: str, message: str, text: str) -> dict:
    said = student_error_text("MultiHeadAttention.forward", _Raised(kind, message, _line_in(source, text)),
                              source=source)
    assert english_in_zh(said["zh"].split("；", 1)[1], _CODE) == []
    return said


# ------------------------------------------------------------------ a call's result unpacked
def test_an_unpacked_call_of_a_module_returning_three_values_is_told_the_return_and_the_contract():
    src = CASES["unpack_two_sdpa_returns_three"]
    said = _said(src, "ValueError", "too many values to unpack (expected 2)", "out, weights = self.attn(")
    line, three = _line_in(src, "out, weights = self.attn("), _line_in(src, "return out, weights, scores")
    assert f"line {line} unpacks what self.attn(...) returns into 2 names (out, weights), and " \
           f"ScaledDotProductAttention.forward (line 16) returns (out, weights, scores) (3 values) on line {three}" \
           in said["en"]
    assert "returns one tensor (output) by default, and the pair (output, weights) only with return_weights=True" \
        in said["en"]
    assert f"第 {line} 行把 `self.attn(...)` 的返回值解包成 2 个名字（`out, weights`）" in said["zh"]
    assert f"第 {three} 行返回 `(out, weights, scores)`（3 个值）" in said["zh"]
    assert "只有 `return_weights=True` 时才返回 `(output, weights)` 两个值" in said["zh"]
    assert "does not pass" not in said["en"]        # the call passes return_weights=True


def test_an_unpacked_single_tensor_is_told_it_splits_along_its_first_axis():
    src = CASES["unpack_two_sdpa_returns_one"]
    said = _said(src, "ValueError", "not enough values to unpack (expected 2, got 1)", "out, weights = self.attn(")
    assert f"returns out on line {_line_in(src, '        return out')}. When what it returns is one tensor, unpacking " \
           "splits it along its first axis, so Python counted that axis's size" in said["en"]
    assert "如果它返回的是单个 tensor，解包会沿第一维把它拆开，Python 数的是这一维的大小" in said["zh"]


def test_the_shape_of_a_name_bound_by_unpacking_a_single_tensor_names_the_line_that_unpacked_it():
    # the tests' batch of 2 fits `out, weights`: Python fails one line later, on `B, H, N, D = out.shape`
    src = CASES["unpack_two_sdpa_returns_one"]
    said = _said(src, "ValueError", "not enough values to unpack (expected 4, got 3)", "B, H, N, D = out.shape")
    shape, call = _line_in(src, "B, H, N, D = out.shape"), _line_in(src, "out, weights = self.attn(")
    assert f"line {shape} unpacks the shape of out, which has one axis fewer than its 4 names: line {call} unpacks " \
           "what self.attn(...) returns into 2 names" in said["en"]
    assert "so each name gets one slice of it, with that axis gone" in said["en"]
    assert f"第 {shape} 行解包 `out` 的 shape，它比这一行的 4 个名字少一维：第 {call} 行把" in said["zh"]


def test_a_call_without_return_weights_is_told_it_does_not_pass_it():
    src = ROUND37["unpack_two_from_attn"]
    said = _said(src, "ValueError", "not enough values to unpack (expected 4, got 3)", "B, H, N, D = out.shape")
    call = _line_in(src, "out, weights = self.attn(")
    assert f"and line {call} does not pass return_weights=True" in said["en"]
    assert f"而第 {call} 行的调用没有传入 `return_weights=True`" in said["zh"]


def test_no_unpack_note_when_the_source_does_not_show_the_cause():
    good = ROUND37["numpy_softmax"]      # the attention call passes return_weights=True to a pair it returns
    assert unpack_note(good, _line_in(good, "B, H, N, D = out.shape"),
                       "not enough values to unpack (expected 4, got 3)") is None
    # a callee outside the file, a starred target, another unpacking on the line
    for line in ("        a, b = torch.max(q, -1)", "        a, *b = self.attn(q, k, v)",
                 "        a, b = self.attn(q, k, v); c, d = 1, 2"):
        src = good.replace("        B, H, N, D = out.shape", line + "\n        B, H, N, D = out.shape")
        assert unpack_note(src, _line_in(src, line.strip()), "too many values to unpack (expected 2)") is None, line
    # the name is bound again before the line (or the line is in a loop): which value it holds is not known
    src = good.replace("        B, H, N, D = out.shape", "        out = out.mean(0)\n        B, H, N, D = out.shape")
    bad = src.replace("self.attn(q, k, v, mask, return_weights=True)", "self.attn(q, k, v, mask)")
    assert unpack_note(bad, _line_in(bad, "B, H, N, D = out.shape"),
                       "not enough values to unpack (expected 4, got 3)") is None
    # a message of another kind on the line
    assert unpack_note(ROUND37["unpack_two_from_attn"], _line_in(ROUND37["unpack_two_from_attn"], "out.shape"),
                       "cannot unpack non-iterable NoneType object") is None


# ------------------------------------------------------------------ the grader's paths
def _site(module: str) -> str:
    return __import__(module).__file__


def test_an_import_error_keeps_the_modules_path_and_not_the_graders_folders():
    path = _site("einops")
    assert "site-packages" in path or "dist-packages" in path
    src = CASES["import_einops_rearrange_typo"]
    said = load_error_text(StudentError("ImportError", f"cannot import name 'rearange' from 'einops' ({path})",
                                        _line_in(src, "rearange")), source=src, packages=["torch", "numpy", "einops"])
    for lang in ("en", "zh"):
        assert "(…/einops/__init__.py)" in said[lang], said[lang]
        assert path not in said[lang] and "site-packages" not in said[lang] and sys.prefix not in said[lang]


def test_a_runtime_message_naming_a_grader_file_or_the_jails_folder_is_cut_and_the_students_paths_kept():
    torch_file = _site("torch")
    said = student_error_text("forward", _Raised("RuntimeError", f"failed in {torch_file} while reading", 3))
    assert "…/torch/__init__.py" in said["en"] and torch_file not in said["en"] and torch_file not in said["zh"]
    own = f"cannot import name 'X' from partially initialized module 'attention' ({SANDBOX_WORKDIR}/attention.py)"
    assert hide_grader_paths(own).endswith("(attention.py)")
    for kept in ("[Errno 2] No such file or directory: '/content/drive/MyDrive/data.npy'", "a/b 1/2",
                 "/tmp/workshop/x.npy"):
        assert hide_grader_paths(kept) == kept


def test_the_jails_working_folder_is_the_one_the_sandbox_makes():
    from grading.sandbox import runtime

    assert runtime.WORKDIR == SANDBOX_WORKDIR


# ------------------------------------------------------------------ the corpus, graded once
@pytest.fixture(scope="module")
def graded(executor):
    from grading.runner import GradeInput, grade
    return {name: grade(GradeInput(code=code.encode()), "attention", executor) for name, code in CASES.items()}


@pytest.mark.slow
def test_every_corpus_file_is_told_in_both_languages_what_failed_and_no_grader_path(graded):
    from grading.proxy import _grader_roots
    from tests.grading.helpers import code_names

    expected = {"unpack_two_sdpa_returns_one": "解包会沿第一维把它拆开",
                "unpack_two_sdpa_returns_three": "（3 个值）",
                "import_einops_rearrange_typo": "(…/einops/__init__.py)",
                "import_sdpa_from_torch_nn": "(…/torch/nn/__init__.py)",
                "tab_in_forward_body": "制表符", "math_not_imported": "import math",
                "view_after_transpose_merge": ".reshape(...)", "sdpa_builtin_used": "现成的 attention",
                "sdpa_super_init_missing_called": "super().__init__()", "double_mask_float64": "float64",
                "k_dot_T_on_4d": ".transpose(-2, -1)", "softmax_dim_1": "dim=1",
                "heads_split_without_transpose": "view(B, N, H, head_dim).transpose(1, 2)",
                "mask_eq_zero_on_float_mask": "mask 的作用反了",
                "linear_built_in_forward": "在每次调用都会执行的方法中", "sdpa_scale_in_init": "其他函数看不到它",
                "dk_pow_on_shape": "torch.Size，不是一个数", "mha_returns_weights_first": "应按 (output, weights) 的顺序返回"}
    roots = [root for root, _keep in _grader_roots()]
    for name, result in graded.items():
        assert result["status"] == "graded", (name, result.get("message"))
        said = [result.get("load_error"), result.get("message")] + [t.get("feedback") for t in result["tests"]]
        said = [m for m in said if isinstance(m, dict)]
        assert said, name
        code = code_names(CASES[name]) | frozenset(sys.stdlib_module_names) | _CODE
        assert [(name, m["zh"], left) for m in said if (left := english_in_zh(m["zh"], code))] == []
        assert [(name, m) for m in said for root in roots if root + "/" in m["en"] + m["zh"]] == []
        if name in expected:
            assert any(expected[name] in m["zh"] for m in said), (name, [m["zh"] for m in said][:3])


# ------------------------------------------------------------------ a name of another function's (or the class body's)
def test_a_name_assigned_only_in_another_method_is_told_where_and_that_functions_do_not_share_names():
    src = CASES["sdpa_scale_in_init"]
    line, made = _line_in(src, "self.scale = 1 / math.sqrt(d_k)"), _line_in(src, "        d_k = q.size(-1)")
    said = student_error_text("creating ScaledDotProductAttention()",
                              _Raised("NameError", "name 'd_k' is not defined", line), source=src)
    assert f"line {line} (in ScaledDotProductAttention.__init__) uses `d_k`, which the file gives a value only inside " \
           f"ScaledDotProductAttention.forward (line {made}): a name assigned in a function (or a parameter of it) " \
           "belongs to that function alone" in said["en"]
    assert f"而文件只在 ScaledDotProductAttention.forward（第 {made} 行）中给它赋值" in said["zh"]
    assert english_in_zh(said["zh"].split("；", 1)[1], _CODE) == []


def test_a_class_attribute_read_bare_in_a_method_is_told_to_read_it_through_self():
    src = CASES["sdpa_scale_in_init"].replace("        self.scale = 1 / math.sqrt(d_k)\n", "").replace(
        '    """缩放点积注意力。"""\n', '    """缩放点积注意力。"""\n    eps = 1e-9\n', 1).replace(
        "        weights = F.softmax(scores, dim=-1)", "        weights = F.softmax(scores, dim=-1) + eps")
    line = _line_in(src, "+ eps")
    said = student_error_text("ScaledDotProductAttention.forward", _Raised("NameError", "name 'eps' is not defined",
                                                                           line), source=src)
    assert f"uses `eps`, which is set in the body of class ScaledDotProductAttention (line {_line_in(src, 'eps = 1e-9')})" \
           in said["en"] and "write `self.eps`" in said["en"]
    assert "请写成 `self.eps`" in said["zh"]


def test_no_scope_note_when_the_module_or_the_function_itself_binds_the_name_or_a_global_names_it():
    from grading.load_hints import name_note

    src = CASES["sdpa_scale_in_init"]
    line = _line_in(src, "self.scale = 1 / math.sqrt(d_k)")
    for changed in (src + "\nd_k = 64\n",                                       # bound at the top level: an order matter
                    src.replace("        self.scale", "        global d_k\n        self.scale"),
                    src.replace("    def __init__(self):", "    def __init__(self, d_k=None):")):
        at = _line_in(changed, "self.scale = 1 / math.sqrt(d_k)")
        assert name_note(changed, at, "name 'd_k' is not defined") is None
    assert name_note(src, line, "name 'd_k' is not defined") is not None


# ------------------------------------------------------------------ a shape in arithmetic
def test_a_shape_raised_to_a_power_is_told_it_is_a_torch_size_and_to_take_one_axis():
    src = CASES["dk_pow_on_shape"]
    said = _said(src, "TypeError", "unsupported operand type(s) for ** or pow(): 'torch.Size' and 'float'",
                 "q.shape[-1:] ** 0.5")
    line = _line_in(src, "q.shape[-1:] ** 0.5")
    assert f"line {line} computes `q.shape[-1:] ** 0.5`, and `q.shape[-1:]` is a torch.Size that holds axis sizes, " \
           "not one number (a slice of .shape is a torch.Size too)" in said["en"] and "`q.size(-1)`" in said["en"]
    assert "而 `q.shape[-1:]` 是包含维度大小的 torch.Size，不是一个数（对 `.shape` 切片得到的也是 torch.Size）" in said["zh"]
    # the whole shape divided: no slice remark; two shapes on the line, or another operand: no note
    from grading.load_hints import size_number_note

    whole = src.replace("q.shape[-1:] ** 0.5", "q.shape ** 0.5")
    said = size_number_note(whole, line, "unsupported operand type(s) for ** or pow(): 'torch.Size' and 'float'")
    assert said is not None and "slice" not in said["en"]
    two = src.replace("q.shape[-1:] ** 0.5", "q.shape[-1:] ** 0.5 + k.shape[-1:] ** 0.5")
    assert size_number_note(two, line, "unsupported operand type(s) for ** or pow(): 'torch.Size' and 'float'") is None
    assert size_number_note(src, line, "unsupported operand type(s) for ** or pow(): 'str' and 'float'") is None


# ------------------------------------------------------------------ the wrapper's pair in reverse order
@pytest.mark.slow       # one grading: 16 s on a loaded host
def test_the_wrappers_pair_returned_in_reverse_order_is_told_so(executor):
    # round 21 said it for ScaledDotProductAttention; MultiHeadAttention's was "the output has shape [2,4,2,11]"
    from grading.runner import GradeInput, grade

    result = grade(GradeInput(code=CASES["mha_returns_weights_first"].encode()), "attention", executor)
    failed = [t["feedback"] for t in result["tests"] if t["outcome"] != "passed" and isinstance(t.get("feedback"), dict)]
    reversed_ = [fb for fb in failed if "the first tensor returned has the weights' shape" in fb["en"]]
    assert reversed_, [fb["en"] for fb in failed]
    assert all("应按 (output, weights) 的顺序返回" in fb["zh"] for fb in reversed_)
    assert not [fb["en"] for fb in failed if "the output of MultiHeadAttention has shape" in fb["en"]]


# ------------------------------------------------------------------ a layer built in forward
class _Student:
    def __init__(self, source: str):
        self.source = source


def test_results_that_differ_in_eval_mode_name_a_linear_layer_built_in_forward():
    from grader_tests.attention.diagnose import randomness

    src = CASES["linear_built_in_forward"]
    line = _line_in(src, "self.out_proj = nn.Linear(H * D, x.size(-1))")
    said = randomness(_Student(src), "MultiHeadAttention")
    assert f"line {line} builds nn.Linear(H * D, x.size(-1)) in a method that runs at every call, not in __init__: " \
           "each call makes a new layer with new random weights" in said["en"]
    assert f"第 {line} 行在每次调用都会执行的方法中（而不是在 __init__ 中）构建了 nn.Linear(H * D, x.size(-1))" in said["zh"]
    # built in __init__ (the correct file), or in forward of another class than the one whose results changed: not said
    from tests.web.test_broken_uploads_round34 import BASE

    assert "builds" not in randomness(_Student(BASE), "MultiHeadAttention")["en"]
    assert "builds" not in randomness(_Student(src), "ScaledDotProductAttention")["en"]


def test_a_usual_module_name_bound_only_in_another_function_is_told_its_import():
    from grading.load_hints import name_note

    src = "import torch\n\n\ndef f(s, F=None):\n    return s\n\n\ndef g(s):\n    return F.relu(s)\n"
    said = name_note(src, 9, "name 'F' is not defined")
    assert said is not None and "gives a value only inside f (line 4)" in said["en"]
    assert said["en"].endswith("Add `import torch.nn.functional as F` at the top of the file")
    assert said["zh"].endswith("请在文件开头加上 `import torch.nn.functional as F`")
