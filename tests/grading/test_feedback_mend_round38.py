"""Round 38, review RB's findings on round 38's feedback notes (probe files f01..f27), each mended for its kind:

- the unpack note named a top-level function when a def nested in forward (or a parameter, an assignment) hid it;
- "does not pass return_weights=True" was said of ``self.attn(q, k, v, mask, True)``;
- "when what it returns is one tensor" was said of ``return res`` with ``res = (out, weights, scores)``;
- the randomness note blamed a layer built in a method only __init__ calls, or an unused Linear while the noise was
  ``torch.randn_like``, and called a top-level function "a method";
- a hint quoted a grader path after the exception's text was cut; a path equal to a grader folder, a file:// URL and
  the interpreter's own prefix were kept;
- a name read bare in forward that __init__ stores as ``self.x`` was told "pass it in as an argument";
- the Size-operand note named the ``*`` of ``(n * k.shape[-1:]) ** 0.5``;
- a comprehension's loop variable counted as a name of the function around it;
- zh put a Latin name right after 和."""

from __future__ import annotations

import sys

from grading.load_hints import name_note, size_number_note, unpack_note

# imported here, not in a test: grading.proxy imports torch, paid once at collection
from grading.proxy import _PROJECT, hide_grader_paths
from tests.grading.helpers import english_in_zh
from tests.web.test_broken_uploads_round34 import BASE, sub

CALL = "        out, weights = self.attn(q, k, v, mask, return_weights=True)\n"
SDPA_RET = "        if return_weights:\n            return out, weights\n        return out\n"
NOISE = ("        weights = F.softmax(scores, dim=-1)",
         "        weights = F.softmax(scores + 1e-3 * torch.randn_like(scores), dim=-1)")
NESTED = ("        def attention(a, b, c, m):\n            s = torch.matmul(a, b.transpose(-2, -1)) / math.sqrt(a.size(-1))\n"
          "            w = F.softmax(s, dim=-1)\n            return torch.matmul(w, c), w, s\n"
          "        out, weights = attention(q, k, v, mask)\n")
TOP = "\n\ndef attention(q, k, v, mask=None):\n    return F.softmax(q @ k.transpose(-2, -1), dim=-1) @ v\n"
TOO_MANY = "too many values to unpack (expected 2)"


def _line_in(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


class _Student:
    def __init__(self, source: str):
        self.source = source


# ------------------------------------------------------------------ the callee, by Python's scoping
def test_an_unpacked_call_of_a_def_nested_in_forward_names_that_def_not_the_top_level_one():
    src = sub(CALL, NESTED) + TOP
    said = unpack_note(src, _line_in(src, "out, weights = attention("), TOO_MANY)
    nested, ret = _line_in(src, "def attention(a, b, c, m)"), _line_in(src, "return torch.matmul(w, c), w, s")
    assert said is not None and f"attention (line {nested}) returns (torch.matmul(w, c), w, s) (3 values) on line {ret}" \
        in said["en"]
    assert f"line {_line_in(src, 'def attention(q, k, v')}" not in said["en"]


def test_no_unpack_note_when_a_parameter_or_an_assignment_of_the_function_hides_the_top_level_def():
    base = sub(CALL, "        out, weights = attention(q, k, v, mask)\n") + TOP
    for changed in (base.replace("return_weights=False):\n        if context", "return_weights=False, attention=None):"
                                 "\n        if context"),
                    base.replace("        out, weights = attention(", "        attention = self.attn\n"
                                 "        out, weights = attention(")):
        assert changed != base
        assert unpack_note(changed, _line_in(changed, "out, weights = attention("), TOO_MANY) is None
    assert unpack_note(base, _line_in(base, "out, weights = attention("), "not enough values to unpack "
                       "(expected 2, got 1)") is not None          # the top-level one, when nothing hides it


# ------------------------------------------------------------------ return_weights by position
def test_return_weights_passed_by_position_is_not_told_missing():
    three = sub(SDPA_RET, "        if return_weights:\n            return out, weights, scores\n        return out\n",
                base=BASE.replace("additive_mask=None, *, return_weights=False):\n        d_k",
                                  "additive_mask=None, return_weights=False):\n        d_k"))
    src = sub(CALL, "        out, weights = self.attn(q, k, v, mask, True)\n", base=three)
    said = unpack_note(src, _line_in(src, "self.attn(q, k, v, mask, True)"), TOO_MANY)
    assert said is not None and "return_weights=True only" not in said["en"] and "does not pass" not in said["en"]
    # one positional argument short of it: not passed, said; a *args call: not sure, not said
    short = sub(CALL, "        out, weights = self.attn(q, k, v)\n", base=three)
    said = unpack_note(short, _line_in(short, "self.attn(q, k, v)"), TOO_MANY)
    assert said is not None and "does not pass return_weights=True" in said["en"]
    star = sub(CALL, "        out, weights = self.attn(*(q, k, v))\n", base=three)
    said = unpack_note(star, _line_in(star, "self.attn(*(q, k, v))"), TOO_MANY)
    assert said is not None and "does not pass" not in said["en"]


# ------------------------------------------------------------------ what a returned name holds
def test_a_returned_name_bound_to_a_tuple_is_told_its_count_and_no_split_of_one_tensor():
    src = sub(SDPA_RET, "        res = (out, weights, scores)\n        return res\n")
    src = sub(CALL, "        out, weights = self.attn(q, k, v, mask)\n", base=src)
    said = unpack_note(src, _line_in(src, "out, weights = self.attn("), TOO_MANY)
    assert said is not None and f"res (3 values) on line {_line_in(src, 'return res')}" in said["en"]
    assert "one tensor, unpacking" not in said["en"] and "（3 个值）" in said["zh"]


def test_a_call_returned_from_an_unknown_function_gets_no_guess_of_one_tensor_split():
    src = sub(SDPA_RET, "        return inner(out, weights)\n")
    src = sub(CALL, "        out, weights = self.attn(q, k, v, mask)\n", base=src)
    said = unpack_note(src, _line_in(src, "out, weights = self.attn("), "not enough values to unpack (expected 2, got 1)")
    assert said is not None and "unpacking splits" not in said["en"] and "单个 tensor" not in said["zh"]
    assert unpack_note(src, _line_in(src, "B, H, N, D = out.shape"),
                       "not enough values to unpack (expected 4, got 3)") is None


# ------------------------------------------------------------------ a layer built per call
def test_no_layer_per_call_note_for_a_builder_only_init_calls_or_an_unused_layer_beside_randn():
    from grader_tests.attention.diagnose import randomness

    init_only = sub("        self.out_proj = nn.Linear(inner, d_model)\n", "        self._build_out(inner, d_model)\n",
                    base=sub("    def _split(self, x):", "    def _build_out(self, inner, d_model):\n"
                             "        self.out_proj = nn.Linear(inner, d_model)\n\n    def _split(self, x):"))
    spare = sub("        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))",
                "        spare = nn.Linear(H * D, H * D)\n        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))")
    noisy = sub("        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))",
                "        self.out_proj = nn.Linear(H * D, H * D)\n        out = self.out_proj(out.transpose(1, 2)"
                ".reshape(B, N, H * D))", base=sub(*NOISE))
    for src in (init_only, spare, noisy):
        assert "builds" not in randomness(_Student(src), "MultiHeadAttention")["en"]


def test_a_layer_built_in_a_top_level_function_is_told_a_function_not_a_method():
    from grader_tests.attention.diagnose import randomness

    src = sub("        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))",
              "        out = project(out.transpose(1, 2).reshape(B, N, H * D))") + \
        "\n\ndef project(x):\n    return nn.Linear(x.size(-1), x.size(-1))(x)\n"
    said = randomness(_Student(src), "MultiHeadAttention")
    assert "in a function that runs at every call" in said["en"] and "在每次调用都会执行的函数中" in said["zh"]


# ------------------------------------------------------------------ the grader's paths
def test_a_grader_folder_itself_a_file_url_and_the_interpreters_prefix_are_hidden_and_the_students_kept():
    base = sys.base_prefix
    for text in (f"cwd is {_PROJECT}", f"see {_PROJECT}.", f"file://{sys.prefix}/lib/x.py",
                 f"{base}/bin/python3", f"{base}/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip/abc.py"):
        hidden = hide_grader_paths(text)
        assert _PROJECT not in hidden and base not in hidden and sys.prefix not in hidden, hidden
    assert hide_grader_paths("np.load('/content/drive/data.npy')") == "np.load('/content/drive/data.npy')"
    assert hide_grader_paths(f"file://{sys.prefix}/lib/x.py") == "file://…/lib/x.py"


def test_every_student_facing_text_of_a_result_passes_the_path_filter_but_the_instructors_log(monkeypatch):
    from grading import runner

    leak = f"so {sys.prefix}/lib/python3.11/site-packages/torch/prior.pt is not there"
    fake = {"status": "graded", "message": {"en": leak, "zh": leak}, "log": leak, "review": [leak],
            "tests": [{"name": "t", "feedback": {"en": leak, "zh": leak}}]}
    monkeypatch.setattr(runner, "_grade", lambda *a: fake)
    result = runner.grade(runner.GradeInput(code=b""), "attention", object())
    assert sys.prefix not in result["message"]["en"] + result["tests"][0]["feedback"]["zh"]
    assert "…/torch/prior.pt" in result["tests"][0]["feedback"]["en"]
    assert result["log"] == leak and result["review"] == [leak]


# ------------------------------------------------------------------ a name of another function's
def test_a_name_read_bare_in_forward_that_init_stores_on_self_is_told_self_and_the_line():
    src = sub("/ math.sqrt(d_k)", "* scale", base=sub("    def __init__(self):\n        super().__init__()",
                                                     "    def __init__(self, scale=None):\n        super().__init__()\n"
                                                     "        self.scale = scale"))
    said = name_note(src, _line_in(src, "* scale"), "name 'scale' is not defined")
    stored = _line_in(src, "self.scale = scale")
    assert said is not None and said["en"].endswith(
        f"ScaledDotProductAttention.__init__ stores it as `self.scale` (line {stored}): write `self.scale`")
    assert said["zh"].endswith(f"ScaledDotProductAttention.__init__ 把它存成了 `self.scale`（第 {stored} 行）：请写成 "
                               "`self.scale`")
    assert "argument" not in said["en"] and english_in_zh(said["zh"], frozenset({"scale"})) == []


def test_a_name_of_another_method_read_in_forward_is_not_told_to_be_passed_as_an_argument():
    src = sub("        d_k = q.size(-1)\n", "        pass\n", base=sub("    def __init__(self):\n        super().__init__()",
                                                                   "    def __init__(self):\n        super().__init__()\n"
                                                                   "        d_k = 8"))
    said = name_note(src, _line_in(src, "math.sqrt(d_k)"), "name 'd_k' is not defined")
    assert said is not None and "ScaledDotProductAttention.__init__ (line" in said["en"]
    assert "argument" not in said["en"] and "参数传进来" not in said["zh"]


def test_a_comprehension_variable_of_another_function_is_no_binding_of_that_function():
    src = sub("        mask = additive_mask\n", "        mask = additive_mask\n        sizes = [d_k for d_k in q.shape]\n")
    src = sub("    def __init__(self):\n        super().__init__()", "    def __init__(self):\n        super().__init__()\n"
              "        self.s = 1 / math.sqrt(d_k)", base=src.replace("        d_k = q.size(-1)\n", "        d = q.size(-1)\n")
              .replace("math.sqrt(d_k)\n        if add", "math.sqrt(d)\n        if add"))
    said = name_note(src, _line_in(src, "self.s = 1 / math.sqrt(d_k)"), "name 'd_k' is not defined")
    assert said is None or "MultiHeadAttention.forward" not in said["en"]


def test_zh_puts_a_space_between_he_and_the_latin_name_after_it():
    src = "import torch\n\n\ndef f(s):\n    d_k = 1\n    return s\n\n\ndef g(s):\n    d_k = 2\n    return s\n\n\n" \
          "def h(s):\n    return s * d_k\n"
    said = name_note(src, 15, "name 'd_k' is not defined")
    assert said is not None and "f（第 5 行）和 g（第 10 行）" in said["zh"]


# ------------------------------------------------------------------ the operator of a Size operand
def test_the_size_operand_note_names_the_operation_of_the_messages_operator():
    src = sub("math.sqrt(d_k)", "(int(q.shape[0]) * k.shape[-1:]) ** 0.5")
    line = _line_in(src, "k.shape[-1:]) ** 0.5")
    said = size_number_note(src, line, "unsupported operand type(s) for ** or pow(): 'torch.Size' and 'float'")
    assert said is not None and f"line {line} computes `(int(q.shape[0]) * k.shape[-1:]) ** 0.5`, and " \
        "`int(q.shape[0]) * k.shape[-1:]` is a torch.Size" in said["en"]
    div = sub("math.sqrt(d_k)", "(2 * k.shape[-1:][0]) / k.shape[-1:]")
    said = size_number_note(div, line, "unsupported operand type(s) for /: 'int' and 'torch.Size'")
    assert said is not None and "and `k.shape[-1:]` is a torch.Size" in said["en"]


def test_a_returned_name_every_assignment_of_which_is_one_tensor_is_still_told_the_split():
    src = sub("        out = torch.matmul(weights, v)\n", "        out = torch.matmul(weights, v)\n        out = out.contiguous()\n")
    src = sub(CALL, "        out, weights = self.attn(q, k, v, mask)\n", base=src)
    said = unpack_note(src, _line_in(src, "out, weights = self.attn("), "not enough values to unpack (expected 2, got 1)")
    assert said is not None and "unpacking splits it along its first axis" in said["en"]
