"""Round 36: every file of tests/grading/feedback_corpus_round36.py (code that does not load or fails at run time,
of kinds rounds 34 and 35 did not try) graded in the real jail and read on its result page in zh and en: what was
seen and on which line is on the page in the reader's language, nothing is invisible (a syntax error's box marks
its line), and a file that is no Python text is refused at the form."""

from __future__ import annotations

import html as html_lib
import io
import re
import sys

import pytest

from tests.grading.feedback_corpus_round36 import CASES

pytestmark = pytest.mark.slow

# Correct code however it is written down (CRLF line ends, a Chinese variable name): full marks.
LOADS = {"crlf_correct", "chinese_identifier"}
# Refused at the form, in the reader's language.
REFUSED = {
    "notebook_json_pretty": ("This is a Jupyter notebook", "这是 Jupyter notebook"),
    "html_saved_page": ("This is a web page (HTML", "这是网页（HTML"),
}
# What the page says, in each language, beside the line (a phrase of the hint or the note).
EXPECTED = {
    "unclosed_paren_at_eof": ("line 67 opens 2 '(' and closes 1 ')'", "第 67 行有 2 个“(”，却只有 1 个“)”"),
    "unclosed_bracket_at_eof": ("line 67 opens 1 '[' and closes 0 ']'", "第 67 行有 1 个“[”"),
    "unclosed_brace_in_init": ("line 41 opens 1 '{' and closes 0 '}'", "第 41 行有 1 个“{”"),
    "extra_closing_paren": ("line 22 closes 2 ')' but opens 1 '('", "第 22 行有 2 个“)”"),
    "fstring_unclosed_brace": ("line 18 has an f-string Python cannot read", "第 18 行的 f-string"),
    "fstring_empty_braces": ("it holds '{}' with nothing inside", "其中有空的“{}”"),
    "fstring_backslash": ("allows no backslash inside its braces", "不允许在花括号里使用反斜杠"),
    "walrus_as_statement": ("line 17 assigns with `:=` as a statement of its own", "第 17 行把 `:=` 单独当作一条语句"),
    "walrus_on_attribute": ("line 34 uses `:=` on an attribute or an item", "第 34 行对属性或元素使用了 `:=`"),
    "match_without_colon": ("line 54 starts a block with `match`", "第 54 行以 `match` 开始一个代码块"),
    "case_outside_match": ("line 54 begins with `case`", "第 54 行以 `case` 开头"),
    "tab_after_spaces_block": ("line 25 is indented with tabs", "第 25 行用制表符（Tab）缩进"),
    "fw_square_brackets": ("line 55, column 24 has a full-width left bracket (U+3010)", "第 55 行第 24 列有一个中文方括号"),
    "fw_period_line_end": ("line 36, column 42 has an ideographic full stop (U+3002)", "第 36 行第 42 列有一个中文句号"),
    "fw_semicolon": ("line 61, column 31 has a full-width semicolon (U+FF1B)", "第 61 行第 31 列有一个全角分号"),
    "zero_width_space_in_name": ("line 22, column 25 has a zero-width space (U+200B)", "第 22 行第 25 列有一个零宽空格"),
    "zero_width_joiner_after_colon": ("line 43, column 25 has a zero-width joiner (U+200D)", "零宽连接符（U+200D）"),
    "crlf_with_syntax_error": ("line 29 starts a block with `class`", "第 29 行以 `class` 开始一个代码块"),
    "lone_cr_with_syntax_error": ("line 29 starts a block with `class`", "第 29 行以 `class` 开始一个代码块"),
    "percent_magic_line": ("line 4 is a notebook command", "第 4 行是 Notebook 命令"),
    "cell_magic_time": ("line 29 is a notebook command", "第 29 行是 Notebook 命令"),
    "bang_shell_midfile": ("line 29 is a notebook command", "第 29 行是 Notebook 命令"),
    "missing_comma_in_call": ("line 37 has two values side by side", "第 37 行有两个值挨在一起"),
    "assign_to_call": ("line 17 has a function call on the left of '='", "第 17 行“=”的左边是函数调用"),
    "keyword_as_name": ("line 17 uses `lambda` as a variable name", "第 17 行把 `lambda` 当作变量名"),
    "default_before_plain_parameter": ("line 16 lists a parameter without a default value",
                                       "第 16 行中，没有默认值的参数"),
    "elif_after_else": ("line 52 has an `elif` after the `else` of line 50", "第 52 行的 `elif` 写在了第 50 行的 `else` 之后"),
    "import_typo_troch": ("No module named 'troch' in the grader", "评分环境中没有模块 `troch`"),
    "import_transformers_missing": ("No module named 'transformers' in the grader", "评分环境中没有模块 `transformers`"),
    "long_value_matmul": ("line 23 combines a float32 tensor with an int64 one", "第 23 行把 float32 的 tensor 与 int64"),
    "bool_mask_subtracted": ("Line 21 computes 1 - (additive_mask == 0) with `-`",
                             "第 21 行用 `-` 计算 `1 - (additive_mask == 0)`"),
    "float_slice_index": ("line 45 slices with N / 1", "第 45 行用 `N / 1` 作切片的下标"),
    "cuda_device_keyword": ("the grader runs on the CPU and has no GPU", "评分器只用 CPU，没有 GPU"),
    "to_cuda_string": ("the grader runs on the CPU and has no GPU", "评分器只用 CPU，没有 GPU"),
    "mutual_recursion": ("MultiHeadAttention._split calls MultiHeadAttention._merge (line 48), which calls "
                         "MultiHeadAttention._split (line 44)", "它又调用 MultiHeadAttention._split（第 44 行）"),
    "returns_weights_first": ("return (output, weights), in this order", "应按 (output, weights) 的顺序返回"),
    "returns_dict": ("it returned a value of type dict", "实际返回了 `dict` 类型的值"),
    "inplace_on_layer_weight": ("Line 50 changes self.q_proj.weight in place", "第 50 行原地（in-place）修改了 self.q_proj.weight"),
    "str_plus_int_message": ("line 18 joins a string and an int with `+`", "第 18 行用 `+` 把字符串和 `int` 连在一起"),
    "raise_own_value_error": ("raised ValueError at attention.py line 19, with the code's own message: q 应该是三维的",
                              "代码自己写的报错信息：q 应该是三维的"),
    "out_proj_of_d_model_width": ("out_proj maps 12 -> 12 features, expected 24 -> 12", "out_proj 把 12 维映射到 12 维"),
    "yield_in_forward": ("is a `yield`, which makes forward a generator function", "这使 forward 成为生成器函数"),
}


def _text(page: str) -> str:
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _box(page: str) -> str | None:
    m = re.search(r'<section class="card load-error" id="load-error".*?</section>', page, re.S)
    return m.group(0) if m else None


def test_the_corpus_has_40_new_files_each_with_its_words():
    from tests.grading.feedback_corpus_round35 import CASES as ROUND35
    from tests.web.test_broken_uploads_round34 import CASES as ROUND34

    assert len(CASES) >= 40 and not set(CASES) & (set(ROUND34) | set(ROUND35))
    assert not set(CASES.values()) & (set(ROUND34.values()) | set(ROUND35.values()))
    assert set(CASES) == set(EXPECTED) | LOADS | set(REFUSED)


@pytest.fixture(scope="module")
def graded(executor):
    from grading.runner import GradeInput, grade

    return {name: grade(GradeInput(code=code), "attention", executor) for name, code in CASES.items()
            if name not in REFUSED}


@pytest.mark.parametrize("name", sorted(n for n in CASES if n not in REFUSED))
def test_a_broken_file_is_told_in_both_languages_what_and_where_on_its_result_page(client, web, course, graded, name):
    from tests.grading.helpers import code_names, english_in_zh

    result = graded[name]
    assert result["status"] == "graded", result.get("message")
    assert not [t["id"] for t in result["tests"] if t["outcome"] == "error"], name    # no grader fault
    code = code_names(CASES[name].decode("utf-8-sig")) | frozenset(sys.stdlib_module_names)
    said = [result.get("load_error"), result.get("message")] + [t.get("feedback") for t in result["tests"]
                                                                if not t.get("hidden")]
    assert [(m["zh"], left) for m in said if isinstance(m, dict) and (left := english_in_zh(m["zh"], code))] == []
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    sub = submit(course["assignment"], course["alice"], Upload("attention.py", CASES[name]),
                 store=BlobStore(web.app.config["UPLOAD_DIR"]), max_pending=0)
    web.grade(sub, result)
    pages = web.result_pages(client, course["alice"], sub.id)
    load = result.get("load_error")
    for i, lang in enumerate(("en", "zh")):
        page = pages[lang]
        box = _box(page)
        if name in LOADS:
            assert box is None and result["total"] == 85, (name, result["total"])
            continue
        if load:
            assert box is not None, (name, lang)      # a file that does not load: the box, with its line marked
            line = re.search(r"\bline (\d+)\b", load["en"])
            assert line, load["en"]
            assert f'<span class="hit"><span class="ln" aria-hidden="true">{line.group(1)}</span>' in box, name
            seen = _text(box)
        else:
            assert box is None, name
            seen = _text(page)
        want = EXPECTED[name][i]
        assert want in seen, (name, lang, seen[:1500])


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
