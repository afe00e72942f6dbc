"""Round 34, what a student reads when the code does not work: 50 broken attention.py files as Chinese-speaking
students make them (full-width punctuation and spaces, smart quotes, a BOM, mixed tabs, Python 2 print, a 3.12
f-string, a self-import, a missing import, a forgotten super().__init__(), `foward`, a wrong __init__, a tuple or None
returned, float64, CUDA, input(), a missing data file, huge prints, exit(), a top-level self-test that raises, a
notebook, a zip, GBK, an endless loop, a 14 GB tensor, a Markdown fence, a console prompt, prose without '#', ...),
each graded by the real grader and read on the result page in zh and en, on the live status and in the API.

Checked for every file: a message exists in both languages, each with its own language's frame (no "Hint:" in zh, no
提示 in en), the line it names is the one highlighted, the API's load error is the page's, the live status agrees with
the page's score, and the page offers a new attempt. The expected words of each file pin what the student is told.
Found (round 34; unit tests in tests/grading/test_load_hints_round34.py): see those tests' docstring."""

from __future__ import annotations

import html as html_lib
import io
import json
import re
import sys

import pytest

pytestmark = pytest.mark.slow   # 50 gradings through the sandbox: about 40 s

BASE = '''# -*- coding: utf-8 -*-
"""Mini-TabPFN 第二课：手写注意力。"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ScaledDotProductAttention(nn.Module):
    """缩放点积注意力。"""

    def __init__(self):
        super().__init__()

    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        d_k = q.size(-1)
        # 计算注意力分数
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
        if additive_mask is not None:
            scores = scores + additive_mask
        weights = F.softmax(scores, dim=-1)
        out = torch.matmul(weights, v)
        if return_weights:
            return out, weights
        return out


class MultiHeadAttention(nn.Module):
    """多头注意力。"""

    def __init__(self, d_model, num_heads, head_dim=None):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = head_dim if head_dim is not None else d_model // num_heads
        inner = num_heads * self.head_dim
        self.q_proj = nn.Linear(d_model, inner)
        self.k_proj = nn.Linear(d_model, inner)
        self.v_proj = nn.Linear(d_model, inner)
        self.out_proj = nn.Linear(inner, d_model)
        self.attn = ScaledDotProductAttention()

    def _split(self, x):
        B, N, _ = x.shape
        return x.view(B, N, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
        if context is None:
            context = x
        q = self._split(self.q_proj(x))
        k = self._split(self.k_proj(context))
        v = self._split(self.v_proj(context))
        mask = additive_mask
        if mask is not None and mask.dim() == 3:
            mask = mask[:, None]
        if key_padding_mask is not None:
            pad = torch.zeros(key_padding_mask.shape, dtype=q.dtype)
            pad = pad.masked_fill(key_padding_mask, float("-inf"))[:, None, None, :]
            mask = pad if mask is None else mask + pad
        out, weights = self.attn(q, k, v, mask, return_weights=True)
        B, H, N, D = out.shape
        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))
        if return_weights:
            return out, weights
        return out
'''


def sub(old, new, count=1, base=BASE):
    assert old in base, old
    return base.replace(old, new, count)


TEST_TAIL = '''

# 测试
x = torch.randn(2, 5, 16)
mha = MultiHeadAttention(16, 4)
y = mha(x)
print(y.shape)
'''

NOTEBOOK = json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": BASE.splitlines(True),
                                  "outputs": [], "execution_count": 1}],
                       "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5},
                      ensure_ascii=False, indent=1)


def _zip() -> bytes:
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("attention.py", BASE)
        z.writestr("audit.md", "# 审计\n")
    return buf.getvalue()


CASES: dict[str, bytes] = {
    "fw_comma": sub("k.transpose(-2, -1)", "k.transpose(-2，-1)"),
    "fw_parens": sub("F.softmax(scores, dim=-1)", "F.softmax（scores, dim=-1）"),
    "fw_colon_def": sub("    def _split(self, x):", "    def _split(self, x)："),
    "fw_space_indent": sub("        d_k = q.size(-1)", "　　　　d_k = q.size(-1)"),
    "fw_space_inline": sub("d_k = q.size(-1)", "d_k =　q.size(-1)"),
    "fw_equals_minus": sub("dim=-1)\n        out", "dim＝－1)\n        out"),
    "smart_double": sub('float("-inf")', "float(“-inf”)"),
    "smart_single": sub('float("-inf")', "float(‘-inf’)"),
    "bom_midfile": sub("class MultiHeadAttention", "\ufeffclass MultiHeadAttention"),
    "bom_utf8_ok": "\ufeff".encode() + BASE.encode(),
    "tabs_mixed": sub("        d_k = q.size(-1)\n        # 计算", "\td_k = q.size(-1)\n        # 计算"),
    "py2_print": BASE + '\nprint "done", 1\n',
    "fstring_nested": BASE + '\ncfg = {"d": 16}\nprint(f"d_model={cfg["d"]}")\n',
    "self_star_import": sub("import torch.nn.functional as F\n", "import torch.nn.functional as F\nfrom attention import *\n"),
    "missing_nn_import": sub("import torch.nn as nn\n", ""),
    "missing_F_import": sub("import torch.nn.functional as F\n", ""),
    "missing_math_import": sub("import math\n", ""),
    "no_super_init": sub("        super().__init__()\n        self.num_heads", "        self.num_heads"),
    "foward_typo": sub("    def forward(self, x, context", "    def foward(self, x, context"),
    "init_wrong_args": sub("def __init__(self, d_model, num_heads, head_dim=None):", "def __init__(self, d_model, num_heads, head_dim, dropout):"),
    "returns_tuple_always": sub("        if return_weights:\n            return out, weights\n        return out\n\n\nclass",
                                "        return out, weights\n\n\nclass"),
    "returns_none": sub("        if return_weights:\n            return out, weights\n        return out\n\n\nclass",
                        "        self.last = (out, weights)\n\n\nclass"),
    "wrong_dtype_f64": sub("        out = torch.matmul(weights, v)", "        out = torch.matmul(weights.double(), v.double())"),
    "cuda_call": sub("        d_k = q.size(-1)", "        q, k, v = q.cuda(), k.cuda(), v.cuda()\n        d_k = q.size(-1)"),
    "device_cuda_toplevel": sub("\n\nclass ScaledDotProductAttention", "\ndevice = torch.device('cuda')\nscale_t = torch.ones(1, device='cuda')\n\n\nclass ScaledDotProductAttention"),
    "set_default_device_cuda": sub("import torch.nn.functional as F\n", "import torch.nn.functional as F\n\ntorch.set_default_device('cuda')\n"),
    "input_toplevel": sub("\n\nclass ScaledDotProductAttention", "\nHEADS = int(input('请输入头数：'))\n\n\nclass ScaledDotProductAttention"),
    "data_file_missing": sub("\n\nclass ScaledDotProductAttention", "\nimport numpy as np\nDATA = np.loadtxt('tabpfn_data.csv', delimiter=',')\n\n\nclass ScaledDotProductAttention"),
    "huge_prints": BASE + "\nfor i in range(200000):\n    print('第', i, '步：', torch.randn(3))\n",
    "print_in_forward": sub("        d_k = q.size(-1)", "        print('q =', q)\n        print('k =', k)\n        d_k = q.size(-1)"),
    "exit_at_import_before": sub("\n\nclass MultiHeadAttention", "\n\nexit()\n\n\nclass MultiHeadAttention"),
    "exit_at_end": BASE + TEST_TAIL + "exit()\n",
    "module_test_raises": BASE + TEST_TAIL.replace("y = mha(x)", "y = mha(x)\nassert y.shape == (2, 5, 4), '形状不对'"),
    "module_test_wrong_ctor": BASE + TEST_TAIL.replace("MultiHeadAttention(16, 4)", "MultiHeadAttention(16)"),
    "notebook_json": NOTEBOOK.encode(),
    "zip_upload": _zip(),
    "gbk_file": BASE.encode("gbk"),
    "infinite_loop": BASE + "\nwhile True:\n    pass\n",
    "oom_toplevel": BASE + "\nbig = torch.randn(60000, 60000)\n",
    "nameerror_forward": sub("/ math.sqrt(d_k)", "/ math.sqrt(dk)"),
    "two_classes_same_name": BASE + '\n\nclass ScaledDotProductAttention(nn.Module):\n    """TODO"""\n    pass\n',
    "chinese_prose_line": sub("        # 计算注意力分数\n", "        计算注意力分数，然后除以根号 d_k\n"),
    "markdown_fence": ("```python\n" + BASE + "```\n").encode(),
    "repl_prompt": sub("        d_k = q.size(-1)", "        >>> d_k = q.size(-1)"),
    "unterminated_docstring": sub('    """多头注意力。"""', '    """多头注意力。”'),
    "missing_colon_class": sub("class MultiHeadAttention(nn.Module):", "class MultiHeadAttention(nn.Module)"),
    "recursion_forward": sub("        out, weights = self.attn(q, k, v, mask, return_weights=True)", "        out, weights = self.attn(q, k, v, mask, return_weights=True)\n        self(x)"),
    "torch_load_missing": sub("        self.attn = ScaledDotProductAttention()", "        self.attn = ScaledDotProductAttention()\n        self.load_state_dict(torch.load('mha.pt'))"),
    "pip_install_line": ("!pip install einops\n" + BASE).encode(),
    "wechat_nbsp_indent": sub("        weights = F.softmax", "\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0weights = F.softmax"),
}
CASES = {k: (v.encode() if isinstance(v, str) else v) for k, v in CASES.items()}

# What each file's reader must be told, per language (a part of the load error, or of a failed test's feedback).
EXPECTED: dict[str, tuple[str, str]] = {
    "fw_comma": ("full-width comma (U+FF0C)", "全角逗号（U+FF0C）"),
    "fw_parens": ("full-width left parenthesis (U+FF08)", "全角左括号（U+FF08）"),
    "fw_colon_def": ("full-width colon (U+FF1A)", "全角冒号（U+FF1A）"),
    "fw_space_indent": ("a full-width space (U+3000)", "全角空格（U+3000）"),
    "fw_space_inline": ("a full-width space (U+3000)", "全角空格（U+3000）"),
    "fw_equals_minus": ("a full-width '＝' (U+FF1D)", "全角字符“＝”（U+FF1D）"),
    "smart_double": ("curly (smart) double quote (U+201C)", "中文双引号（U+201C）"),
    "smart_single": ("curly (smart) single quote (U+2018)", "中文单引号（U+2018）"),
    "bom_midfile": ("zero-width no-break space (BOM) (U+FEFF)", "零宽不换行空格（BOM）（U+FEFF）"),
    "tabs_mixed": ("is indented with tabs", "用制表符（Tab）缩进"),
    "py2_print": ("uses print as a statement, as Python 2 did", "Python 2"),
    "fstring_nested": ("PEP 701", "PEP 701"),
    "missing_nn_import": ("add `from torch import nn` at the top of the file", "请在文件开头加上 `from torch import nn`"),
    "missing_F_import": ("add `import torch.nn.functional as F`", "`import torch.nn.functional as F`"),
    "missing_math_import": ("add `import math` at the top of the file", "`import math`"),
    "no_super_init": ("MultiHeadAttention.__init__ (line 32) never calls super().__init__()",
                      "MultiHeadAttention.__init__（第 32 行）没有调用 super().__init__()"),
    "foward_typo": ("defines `foward`", "`foward`"),
    "init_wrong_args": ("give head_dim, dropout a default (head_dim=None, dropout=0.0)",
                        "给 head_dim、dropout 设默认值（head_dim=None, dropout=0.0）"),
    "returns_tuple_always": ("it returned a tuple (Tensor, Tensor)", "(Tensor, Tensor)"),
    "returns_none": ("it returned None", "None"),
    "wrong_dtype_f64": ("must have the same dtype, but got Double and Float", "but got Double and Float"),
    "cuda_call": ("the grader runs on the CPU and has no GPU", "评分器只用 CPU，没有 GPU"),
    "device_cuda_toplevel": ("the grader runs on the CPU and has no GPU", "评分器只用 CPU，没有 GPU"),
    "set_default_device_cuda": ("Line 9 makes the GPU the default device (torch.set_default_device('cuda'))",
                                "第 9 行把 GPU 设为默认设备（torch.set_default_device('cuda')）"),
    "input_toplevel": ("input() gets no keyboard input there", "input() 读不到键盘输入"),
    "data_file_missing": ("FileNotFoundError at line 10: tabpfn_data.csv not found. Hint: line 10 runs when the grader "
                          "imports your file (the grader runs attention.py alone, in a folder without your other files)",
                          "第 10 行在评分器导入你的文件时就会运行（评分器在一个没有你其他文件的文件夹里单独运行 attention.py）"),
    "huge_prints": ("line 67 (loops) run then", "第 67 行（循环）都会在导入时运行"),   # a CPU or a wall limit, by load
    "print_in_forward": ("remove debugging prints", "删掉调试用的 print"),
    "exit_at_import_before": ("MultiHeadAttention is defined at line 32, but line 29 calls exit() before it",
                              "第 29 行在它之前调用了 exit()，导入就在那里结束了"),
    "module_test_raises": ("line 72 runs when the grader imports your file", "第 72 行在评分器导入你的文件时就会运行"),
    "module_test_wrong_ctor": ("line 70 runs when the grader imports your file", "第 70 行在评分器导入你的文件时就会运行"),
    "infinite_loop": ("line 67 (loops) run then", "第 67 行（循环）都会在导入时运行"),
    "oom_toplevel": ("line 67 runs when the grader imports your file", "第 67 行在评分器导入你的文件时就会运行"),
    "two_classes_same_name": ("class ScaledDotProductAttention is defined at line 10 with a forward and again at "
                              "line 68 without one", "类 ScaledDotProductAttention 在第 10 行定义过（有 forward），"
                                                     "又在第 68 行重新定义（没有 forward）"),
    "chinese_prose_line": ("line 18 is Chinese text (计算注意力分数，然后除以根号 d_k), not code",
                           "第 18 行是中文文字（计算注意力分数，然后除以根号 d_k），不是代码"),
    "markdown_fence": ("line 1 is a Markdown code fence (```), which is not Python: delete the fence lines (lines 1, 67)",
                       "第 1 行是 Markdown 代码块标记（```），不是 Python 代码：请删掉这些标记行（第 1、67 行）"),
    "repl_prompt": ("line 17 starts with `>>>`, the prompt of the interactive Python console",
                    "第 17 行以 `>>>` 开头，这是 Python 交互式控制台的提示符"),
    "unterminated_docstring": ("column 14 of that line has a Chinese quote ” (U+201D), which does not close it",
                               "该行第 14 列是中文引号 ”（U+201D），它不能闭合字符串"),
    "missing_colon_class": ("line 29 starts a block with `class` but does not end with ':'",
                            "第 29 行以 `class` 开始一个代码块，但行末没有“:”"),
    "pip_install_line": ("line 1 is a notebook command", "第 1 行是 Notebook 命令"),
    "wechat_nbsp_indent": ("a no-break space (U+00A0)", "不换行空格（U+00A0）"),
    "nameerror_forward": ("line 19 uses `dk`, which nothing in the file gives a value, but `d_k` (line 17) differs",
                          "第 19 行用到了 `dk`，文件中没有任何地方给它赋值，而第 17 行的 `d_k` 与它只差大小写或下划线"),
    "torch_load_missing": ("FileNotFoundError at attention.py line 42: [Errno 2] No such file or directory: 'mha.pt'; "
                           "the grader runs attention.py alone, in a folder without your other files, so mha.pt is not "
                           "there", "评分器在一个没有你其他文件的文件夹里单独运行 attention.py，所以那里没有 mha.pt"),
    "recursion_forward": ("line 61 in MultiHeadAttention.forward calls the module itself (self(...))",
                          "第 61 行在 MultiHeadAttention.forward 中调用了模块自身（self(...)）"),
}
# Refused at the upload form, before any grading: what the refusal says.
REFUSED = {
    "notebook_json": ("This is a Jupyter notebook", "Jupyter Notebook"),
    "zip_upload": ("ZIP archive", "ZIP"),
    "gbk_file": ("GBK/GB18030", "GBK/GB18030"),
}
LOADS = {"bom_utf8_ok", "exit_at_end", "print_in_forward"}   # correct code: full code marks

EN_FRAME = ("Hint:", "did not load", "Fix this first", "of your attention.py", "Submit a new attempt")
ZH_FRAME = ("提示：", "无法导入", "请先修复这个问题", "你的 attention.py 第", "再次提交")


def _text(page: str) -> str:
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", page))


def _box(page: str) -> str | None:
    m = re.search(r'<section class="card load-error" id="load-error".*?</section>', page, re.S)
    return m.group(0) if m else None


def _token(client) -> str:
    page = client.post("/account/tokens").get_data(as_text=True)
    return re.search(r'id="new-token">([^<]+)<', page).group(1)


@pytest.fixture(scope="module")
def graded(executor):
    """Each file's grading, once for the module."""
    from grading.runner import GradeInput, grade

    return {name: grade(GradeInput(code=code), "attention", executor) for name, code in CASES.items()
            if name not in REFUSED}


@pytest.mark.parametrize("name", [n for n in CASES if n not in REFUSED])
def test_a_broken_file_is_told_in_both_languages_where_and_what_on_the_page_the_live_status_and_the_api(
        client, web, course, graded, name):
    from app.storage import BlobStore
    from app.submitting import Upload, submit
    from tests.grading.helpers import code_names, english_in_zh

    result = graded[name]
    assert result["status"] == "graded", result.get("message")
    # the Chinese of every message is Chinese, but for code (the file's names, the standard library's modules the
    # source review lists), numbers and Python's or PyTorch's quoted words
    code = code_names(CASES[name].decode("utf-8-sig")) | frozenset(sys.stdlib_module_names)
    said = [result.get("load_error"), result.get("message")] + [t.get("feedback") for t in result["tests"]]
    assert [(m["zh"], left) for m in said if isinstance(m, dict) and (left := english_in_zh(m["zh"], code))] == []
    sub = submit(course["assignment"], course["alice"], Upload("attention.py", CASES[name]),
                 store=BlobStore(web.app.config["UPLOAD_DIR"]), max_pending=0)
    # while it waits, the live page says so in the reader's language, and its status has no reason to show
    web.login(client, course["alice"])
    client.get("/lang/zh")
    assert "排队中" in client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert client.get(f"/submissions/{sub.id}/status").get_json()["reason"] is None
    web.grade(sub, result)
    pages = web.result_pages(client, course["alice"], sub.id)
    token = _token(client)
    load = result.get("load_error")
    for lang, own, other in (("en", EN_FRAME, ZH_FRAME), ("zh", ZH_FRAME, EN_FRAME)):
        page = pages[lang]
        assert own[-1] in page, (lang, "no way to resubmit")
        client.get(f"/lang/{lang}")
        status = client.get(f"/submissions/{sub.id}/status").get_json()
        api = client.get(f"/api/v1/submissions/{sub.id}?lang={lang}", headers={"Authorization": f"Bearer {token}"})
        body = api.get_json()
        assert status["status"] == body["status"] == "graded" and status["total"] == body["score"]["total"]
        box = _box(page)
        if name in LOADS:
            assert box is None and status["total"] == 85, (name, status)
            continue
        if load:
            assert box is not None, (name, lang)
            shown = _text(box)
            assert not any(word in shown for word in other), (name, lang, shown)
            # the page shows the load error the API gives, whole
            assert " ".join(body["result"]["load_error"].split()) in " ".join(shown.split()), (name, lang)
            line = re.search(r"\bline (\d+)\b", load["en"])
            if line:
                assert f'<span class="hit"><span class="ln" aria-hidden="true">{line.group(1)}</span>' in box, name
            seen = shown
        else:
            assert box is None, name
            seen = _text(page)
            for test in result["tests"]:
                if test["outcome"] != "passed" and not test.get("hidden"):
                    assert set(test["feedback"]) == {"en", "zh"} and test["feedback"]["zh"] != test["feedback"]["en"]
        if name in EXPECTED:
            want = EXPECTED[name][0 if lang == "en" else 1]
            flat = " ".join(seen.split())
            assert want in flat, (name, lang, flat[:1200])


def test_every_file_of_the_corpus_is_checked_for_its_words():
    assert len(CASES) >= 30
    assert set(CASES) - set(EXPECTED) - set(REFUSED) - LOADS == {"self_star_import"}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_file_that_is_no_python_text_is_refused_at_the_form_in_the_readers_language(client, web, course, name):
    web.login(client, course["alice"])
    for lang, want in zip(("en", "zh"), REFUSED[name], strict=True):
        client.get(f"/lang/{lang}")
        resp = client.post("/assignments/attention/submit",
                           data={"code": (io.BytesIO(CASES[name]), "attention.py"), "confirm_no_audit": "1"},
                           content_type="multipart/form-data")
        assert resp.status_code in (400, 422), resp.status_code
        shown = html_lib.unescape(re.search(r'id="upload-error"[^>]*>(.*?)</div>', resp.get_data(as_text=True),
                                            re.S).group(1))
        assert want in shown, (lang, shown)
        assert not any(word in shown for word in (ZH_FRAME if lang == "en" else EN_FRAME)), shown
