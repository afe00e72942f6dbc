"""Fair grades on real student code (issue 9): realistic bugs are named by their diagnosis in both
languages and no hint contradicts the code; malformed outputs are graded as the student's; the
import set is stated. (The correct styles' 85/85 is test_grading.test_correct_styles_get_full_code_marks.)"""

from __future__ import annotations

import re

import pytest

from grading.i18n import is_msg
from grading.plugin import GENERIC_ERROR
from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, graded_corpus_file
from tests.grading.helpers import declared_diagnoses as _declared
from tests.grading.helpers import named_in as _named

CODE_CATEGORIES = ("formula_shape", "implementation", "mask_parity")
FAULTY = sorted((SUBMISSIONS / "faulty").glob("*.py"))
CORRECT = sorted((SUBMISSIONS / "correct").glob("*.py"))


def _grade(executor, code: str | bytes) -> dict:
    return grade(GradeInput(code=code.encode() if isinstance(code, str) else code), "attention", executor)


_graded = graded_corpus_file


def _declared_diagnosis(path) -> str | None:
    names = _declared(path)
    return names[0] if names and names[0] != "none" else None


DIAGNOSED = [p for p in FAULTY if _declared_diagnosis(p)]
# Bugs whose numbers match a fault model only by coincidence on some case (a hard-coded constant,
# a size read from the wrong axis): feedback must describe, never name a mistake.
UNNAMED = [p for p in FAULTY if _declared(p) == ["none"]]


def test_the_realistic_bug_corpus_covers_the_named_fault_models():
    declared = {_declared_diagnosis(p) for p in DIAGNOSED}
    assert {"softmax_query_axis", "softmax_head_axis", "scale_one", "scale_dk", "scale_dk_or_dmodel", "mask_after_softmax",
            "mask_inverted", "pad_inverted", "pad_query_axis", "split_no_transpose", "merge_no_transpose",
            "shared_q", "kv_from_x", "float16", "dropout", "overflow", "raw_scores", "out_proj_skipped", "weights_transposed",
            "weights_unmasked", "kv_swapped", "split_dim_first", "residual", "layer_norm",
            "residual_layer_norm", "pad_on_values", "additive_mask_ignored"} <= declared  # qk_swapped: unit test


@pytest.mark.parametrize("path", DIAGNOSED, ids=[p.stem for p in DIAGNOSED])
def test_realistic_bug_loses_points_and_is_named_in_both_languages(executor, path):
    key = _declared_diagnosis(path)
    result = _graded(executor, path)
    assert result["status"] == "graded"
    assert sum(result["categories"][c]["score"] for c in CODE_CATEGORIES) < 85
    named = _named(result)
    assert key in named, "\n".join(f"{t['id']}: {t['feedback']}" for t in result["tests"] if t["outcome"] != "passed")
    # the hint never contradicts the code: no other mistake is named for this submission
    assert set(named) <= set(_declared(path)), named


@pytest.mark.parametrize("path", UNNAMED, ids=[p.stem for p in UNNAMED])
def test_a_bug_that_only_coincides_with_a_fault_model_is_described_not_named(executor, path):
    result = _graded(executor, path)
    assert sum(result["categories"][c]["score"] for c in CODE_CATEGORIES) < 85
    assert _named(result) == {}, _named(result)


@pytest.mark.parametrize("path", CORRECT, ids=[p.stem for p in CORRECT])
def test_no_hint_fires_on_a_correct_style(executor, path):
    result = _graded(executor, path)
    assert _named(result) == {}
    assert all(t["outcome"] == "passed" for t in result["tests"]), [t["id"] for t in result["tests"]
                                                                  if t["outcome"] != "passed"]


_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def test_the_english_detector_flags_english_words_and_separators_but_not_code_or_pytorch_messages():
    assert english_in_zh("MultiHeadAttention 自己计算了 softmax（第 57 行：softmax(...)）：请调用 q_proj 和 "
                         "ScaledDotProductAttention，mask [B,1,Nq,Nk] 与参考实现最多相差 1e-05") == []
    assert english_in_zh("MultiHeadAttention 自己计算了 softmax（line 57: softmax(...)）") == ["line"]
    assert english_in_zh("权重含有 3 个非有限值（3 个 NaN，0 个 inf）: 输出") != []
    assert english_in_zh("最大处在 [b=0, k=1]; 输出与不加 mask 时相同") != []
    assert english_in_zh("抛出 RuntimeError（attention.py 第 3 行），PyTorch/Python 报错原文：shape '[2]' is "
                         "invalid for input of size 4") == []
    assert english_in_zh("PyTorch/Python 报错原文：x is bad；the rest") == ["the", "rest"]
    # a code span is code (the GPU hint's `torch.device("cuda" if ... else "cpu")`), the words around it are not
    assert english_in_zh("请用 `torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")` 选择设备") == []
    assert english_in_zh("请用 `x.cpu()` or else 选择设备") == ["or", "else"]


@pytest.mark.parametrize("name", ["mask_after_softmax", "mask_2d_only", "heads_no_transpose"])
def test_grading_the_same_submission_twice_gives_the_same_feedback_in_both_languages(executor, name):
    """Every number in feedback comes from fixed inputs and fixed weights (these three fail the
    padding tests, whose module once kept its random initial weights)."""
    path = SUBMISSIONS / "faulty" / f"{name}.py"
    first, second = (_grade(executor, path.read_bytes()) for _ in range(2))
    assert {t["id"]: t["feedback"] for t in first["tests"]} == {t["id"]: t["feedback"] for t in second["tests"]}
    fb = next(t["feedback"] for t in first["tests"] if t["id"] == "test_padding_leaves_valid_results_unchanged")
    shown = _NUMBER.findall(fb["en"])
    assert shown and shown == _NUMBER.findall(fb["zh"]), fb


# One finding of each form grader_tests/attention/static.py writes ("line N: ..."), most of which no
# corpus file triggers.
STATIC_FINDINGS = [
    "line 3: imports importlib", "line 4: builtins used as a value", "line 5: torch._C (a module's private name)",
    "line 6: x._impl (a private name of something not your own)", "line 7: a function outside a class taking self",
    "line 8: getattr with a computed name", "line 9: Ops.kernel(...) called with another self",
    "line 9: Ops.kernel used without self", "line 10: a class attribute named ops",
    "line 11: the string 'scaled_dot_product_attention'", "line 12: defines __getattr__", "line 13: sets __class__",
    "line 14: ABC.register(...) makes isinstance true for other classes", "line 15: a match pattern reading .ops",
    "line 16: a match pattern reading attributes by position", "line 17: torch kept as an attribute",
    "line 18: class A with a base computed at run time",
    "line 19: class A derives from nn.Transformer, whose methods the review cannot follow",
    "line 20: fn reached off its object, and it reads PyTorch's attention names through self",
    "line 21: from torch.nn.functional import scaled_dot_product_attention", "line 22: F.scaled_dot_product_attention",
    "line 57: softmax(...)",
]


@pytest.mark.parametrize("finding", STATIC_FINDINGS)
def test_every_form_of_source_review_finding_reads_as_chinese(finding):
    from grader_tests.attention.test_implementation import _zh

    zh = _zh(finding)
    assert zh.startswith("第 ") and english_in_zh(zh, frozenset({"importlib", "builtins", "ops", "fn"})) == [], zh


@pytest.mark.parametrize("path", FAULTY, ids=[p.stem for p in FAULTY])
def test_chinese_feedback_is_chinese_apart_from_code_and_pytorch_messages(executor, path):
    """Every zh feedback of the faulty corpus: no English words or ASCII clause separators (code
    names, numbers and PyTorch's own quoted message aside), and the same numbers as the en text."""
    english, numbers, code = {}, {}, code_names(path.read_text(encoding="utf-8"))
    for t in _graded(executor, path)["tests"]:
        fb = t["feedback"]
        if t["outcome"] == "passed" or not is_msg(fb):
            continue
        if left := english_in_zh(fb["zh"], code):
            english[t["id"]] = (left, fb["zh"])
        if sorted(_NUMBER.findall(fb["en"])) != sorted(_NUMBER.findall(fb["zh"])):
            numbers[t["id"]] = fb
    assert english == {} and numbers == {}, (english, numbers)


@pytest.mark.parametrize("name", ["sdpa_skips_broadcast_mask", "mask_polarity_inverted"])
def test_a_mask_mistake_of_sdpa_under_a_correct_wrapper_is_blamed_on_sdpa(executor, name):
    """The wrapper builds its padding mask correctly: the padding tests say the mistake is in
    ScaledDotProductAttention, in both languages, and name no padding mistake."""
    from grader_tests.attention.diagnose import SDPA_CULPRIT

    result = _graded(executor, SUBMISSIONS / "faulty" / f"{name}.py")
    fb = next(t["feedback"] for t in result["tests"] if t["id"] == "test_padding_keys_get_zero_weight")
    assert SDPA_CULPRIT["en"] in fb["en"] and SDPA_CULPRIT["zh"] in fb["zh"], fb
    assert not {"pad_inverted", "pad_ignored", "pad_query_axis"} & set(_named(result))


# The tests whose subject is the returned weights' layout, each on a case with Nq != Nk (weights returned key x
# query fail by their shape) and, for parity and the per-head weights, one with Nq == Nk (where they keep their
# shape). The other weight checks read weights returned transposed back (round 30: drivers.read_back), so one
# layout mistake no longer fails every test that asks for the weights (34/85 for a correct output).
LAYOUT_CHECKS = {"weights_transposed": {"test_hand_example", "test_cross_attention_shapes",
                                        "test_weights_parity_reference", "test_mha_weights_per_head"},
                 "weights_transposed_self_attention": {"test_weights_parity_reference", "test_mha_weights_per_head"}}


@pytest.mark.parametrize("name", list(LAYOUT_CHECKS))
def test_weights_returned_transposed_fail_the_checks_of_their_layout(executor, name):
    """Transposed always (caught by the shapes of the rectangular cases) or only when Nq == Nk
    (caught by the values of the square ones: it used to lose 4 of 85 points)."""
    result = _graded(executor, SUBMISSIONS / "faulty" / f"{name}.py")
    failed = {t["id"] for t in result["tests"] if t["outcome"] != "passed"}
    assert failed == LAYOUT_CHECKS[name], failed


def test_a_structure_problem_is_reported_once_and_the_behaviour_still_graded(executor):
    """minGPT kept as written (a fused c_attn, no q_proj/.../out_proj names): the projections are
    found by their shapes and driven; only the structure test loses its points."""
    result = _graded(executor, SUBMISSIONS / "faulty" / "mingpt_c_attn_no_names.py")
    failed = {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}
    assert set(failed) == {"test_mha_structure"}, failed
    assert "no attribute q_proj" in failed["test_mha_structure"]["en"]
    assert "没有属性 q_proj" in failed["test_mha_structure"]["zh"]


def test_one_module_under_three_projection_names_is_named_as_such(executor):
    result = _graded(executor, SUBMISSIONS / "faulty" / "one_linear_for_qkv.py")
    fb = next(t["feedback"] for t in result["tests"] if t["id"] == "test_mha_structure")
    assert "q_proj and k_proj and v_proj are one and the same Linear module" in fb["en"]
    assert "q_proj、k_proj、v_proj 是同一个 Linear 模块" in fb["zh"]


# ----------------------------------------------------------------------------- malformed outputs
_MALFORMED_SOURCE = '''
import math
import torch
from torch import nn

KIND = {kind!r}


def spoil(t):
    if KIND == "shape":
        return t[..., :-1]
    if KIND == "transposed":
        return t.transpose(-2, -1)
    if KIND == "int":
        return t.round().to(torch.int64)
    if KIND == "bool":
        return t > 0
    if KIND == "float64":
        return t.double()
    if KIND == "nan":
        return torch.full_like(t, float("nan"))
    if KIND == "inf":
        return torch.full_like(t, float("inf"))
    if KIND == "none":
        return None
    if KIND == "number":
        return 3
    if KIND == "string":
        return "output"
    if KIND == "list":
        return t.tolist()
    if KIND == "tuple":
        return (t, t, t)
    if KIND == "scalar":
        return t.sum()
    if KIND == "empty":
        return t[..., :0, :]
    if KIND == "extra_dim":
        return t.unsqueeze(0)
    return t


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if additive_mask is not None:
            scores = scores + additive_mask
        w = torch.softmax(scores, dim=-1)
        out = w @ v
        return (spoil(out), spoil(w)) if return_weights else spoil(out)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, head_dim=None):
        super().__init__()
        self.h, self.d = num_heads, head_dim or d_model // num_heads
        self.q_proj = nn.Linear(d_model, self.h * self.d)
        self.k_proj = nn.Linear(d_model, self.h * self.d)
        self.v_proj = nn.Linear(d_model, self.h * self.d)
        self.out_proj = nn.Linear(self.h * self.d, d_model)
        self.attention = ScaledDotProductAttention()

    def forward(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
        c = x if context is None else context
        B, Nq, Nk = x.shape[0], x.shape[1], c.shape[1]
        q = self.q_proj(x).view(B, Nq, self.h, self.d).transpose(1, 2)
        k = self.k_proj(c).view(B, Nk, self.h, self.d).transpose(1, 2)
        v = self.v_proj(c).view(B, Nk, self.h, self.d).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d)
        w = torch.softmax(scores, dim=-1)
        out = self.out_proj((w @ v).transpose(1, 2).reshape(B, Nq, self.h * self.d))
        return (spoil(out), spoil(w)) if return_weights else spoil(out)
'''

MALFORMED = ["shape", "transposed", "int", "bool", "float64", "nan", "inf", "none", "number", "string", "list",
             "tuple", "scalar", "empty", "extra_dim"]


@pytest.mark.parametrize("kind", MALFORMED)
def test_malformed_output_is_graded_with_student_facing_feedback(executor, kind):
    result = _grade(executor, _MALFORMED_SOURCE.format(kind=kind))
    assert result["status"] == "graded", result["message"]
    for t in result["tests"]:
        assert t["outcome"] in ("passed", "failed"), (t["id"], t["outcome"], t["feedback"])
        if t["outcome"] == "failed":
            fb = t["feedback"]
            assert is_msg(fb) and fb["en"] and fb["zh"], (t["id"], fb)
            assert fb != GENERIC_ERROR and "grader" not in fb["en"], (t["id"], fb)
            assert "Traceback" not in fb["en"] and not re.search(r"[\u4e00-\u9fff]", fb["en"])
    if kind != "float64":
        assert any(t["outcome"] == "failed" for t in result["tests"])


# ----------------------------------------------------------------------------- packages
def test_einops_is_importable_and_other_packages_get_a_message_naming_the_set(executor):
    ok = _graded(executor, SUBMISSIONS / "correct" / "vit_pytorch_einops.py")
    assert sum(ok["categories"][c]["score"] for c in CODE_CATEGORIES) == 85
    refused = _grade(executor, "import torch\nimport scipy\n")
    assert refused["status"] == "graded"
    m = refused["message"]
    assert is_msg(m)
    assert "ModuleNotFoundError at line 2" in m["en"] and "standard library and torch, numpy, einops" in m["en"]
    assert "第 2 行" in m["zh"] and "torch、numpy、einops" in m["zh"]   # a Chinese list takes 、 (round 33)



def test_display_packages_import_as_inert_stand_ins_and_the_student_is_told(executor):
    """matplotlib, seaborn, tqdm or IPython imported at a file's top (PEP 8's place, or a notebook
    saved as .py with get_ipython() and plotting cells) used to stop the file loading: 0 of 85."""
    for name, shown in (("pep8_matplotlib_imports", "matplotlib, seaborn, tqdm"),
                        ("notebook_export", "matplotlib, IPython, tqdm")):
        result = _graded(executor, SUBMISSIONS / "correct" / f"{name}.py")
        assert sum(result["categories"][c]["score"] for c in CODE_CATEGORIES) == 85, name
        assert result["review"] == [], name              # the stand-ins reach nothing: no review needed
        m = result["message"]
        assert f"imports {shown}: in the grader these are inert stand-ins" in m["en"]
        assert "不起作用的替身" in m["zh"] and shown.replace(", ", "、") in m["zh"]


def test_stand_ins_used_inside_forward_change_nothing(executor):
    """A progress bar over the heads and a plot of every call's weights, inside forward itself."""
    source = (SUBMISSIONS / "correct" / "per_head_loop.py").read_text(encoding="utf-8")
    source = "import matplotlib.pyplot as plt\nfrom tqdm import tqdm, trange\n" + source
    source = source.replace("for h in range(self.num_heads):", "for h in tqdm(range(self.num_heads), leave=False):")
    source = source.replace("        out = weights @ v\n",
                            "        out = weights @ v\n        plt.imshow(weights[0, 0].detach()); plt.close('all')\n")
    assert "tqdm(range(" in source and "plt.imshow" in source
    result = _grade(executor, source)
    assert sum(result["categories"][c]["score"] for c in CODE_CATEGORIES) == 85, result["message"]


def test_a_computing_package_is_still_refused_with_the_set_named(executor):
    """Only display packages are stand-ins: a package whose results the code would compute with
    (scipy, pandas, sklearn) is refused, as the assignment page says."""
    for pkg in ("scipy", "sklearn", "pandas"):
        result = _grade(executor, f"import torch\nimport matplotlib\nimport {pkg}\n")
        m = result["message"]
        assert "ModuleNotFoundError at line 3" in m["en"] and "torch, numpy, einops" in m["en"], pkg
