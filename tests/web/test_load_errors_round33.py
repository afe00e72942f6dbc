"""Round 33, every way a student's attention.py can fail to load, walked as a Chinese-speaking student: the result
page says what was seen, where, and what to do, in the student's language, without guessing.

Found: a file of only imports got one box ("was not run") and a file of top-level code that defines no class got
32 failures in a table, each saying a class was missing (one mistake, told two ways); a relative import
(`from .utils import f`) and an import of attention.py itself were told "the grader offers only the Python
standard library and torch, numpy, einops", which sends the student looking for a package."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from grading.proxy import load_error_text
from grading.sandbox import StudentError
from tests.web.test_student_pages import _load_error_pages

BODY = ("import torch\nfrom torch import nn\n\n\nclass ScaledDotProductAttention(nn.Module):\n"
        "    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):\n"
        "        return q\n")


def _graded_page(client, web, course, executor, code: str) -> dict[str, str]:
    """The result page's text (tags dropped) per language, for ``code`` graded by the real grader."""
    from app.storage import BlobStore
    from app.submitting import Upload, submit
    from grading.runner import GradeInput, grade

    result = grade(GradeInput(code=code.encode()), "attention", executor)
    assert result["status"] == "graded", result["message"]
    sub = submit(course["assignment"], course["alice"], Upload("attention.py", code.encode()),
                 store=BlobStore(web.app.config["UPLOAD_DIR"]), max_pending=0)
    web.grade(sub, result)
    return web.result_pages(client, course["alice"], sub.id)


def _box(page: str) -> tuple[str, str] | None:
    """(heading, advice) of the load-error box, or None when the page has none."""
    m = re.search(r'<section class="card load-error" id="load-error".*?</section>', page, re.S)
    if m is None:
        return None
    box = m.group(0)
    heading = html_lib.unescape(re.search(r"<h2[^>]*>(.*?)</h2>", box, re.S).group(1)).strip()
    advice = html_lib.unescape(re.findall(r'<p class="small">(.*?)</p>', box, re.S)[-1]).strip()
    return heading, advice


@pytest.mark.parametrize("code", [
    "import torch\nx = torch.randn(2, 3)\nprint(x.softmax(-1))\n",           # top-level code, names x
    "print('hello')\n",                                                        # top-level code, names nothing
    "import torch\n\ndef softmax(x):\n    return x.softmax(-1)\n\nprint(softmax(torch.ones(2)))\n",
], ids=["variable", "nothing-named", "helper-called"])
def test_a_file_of_top_level_code_without_the_classes_looks_like_a_file_of_only_imports(client, web, course, executor,
                                                                                         code):
    imports = _graded_page(client, web, course, executor, "import torch\nfrom torch import nn\n")
    script = _graded_page(client, web, course, executor, code)
    for lang in ("en", "zh"):
        assert _box(imports[lang]) is not None
        assert _box(script[lang]) == _box(imports[lang]), lang
    assert "defines nothing the tests can use, so none of the 32 tests could run" in _box(script["en"])[0]
    assert "中没有测试能用的内容，所以 32 个测试都没能运行" in _box(script["zh"])[0]
    # what was seen is said once, in the box, in each language; no table of 32 "does not define" failures
    en, zh = (html_lib.unescape(script[lang]) for lang in ("en", "zh"))
    assert "defines neither ScaledDotProductAttention nor MultiHeadAttention, so no test could run" in en
    assert "既没有定义 ScaledDotProductAttention，也没有定义 MultiHeadAttention，因此没有一项测试能够运行" in zh
    assert "Show the 32 tests that were not run" in en and "显示未运行的 32 个测试" in zh


def test_the_tests_own_hint_on_a_missing_class_is_kept_when_the_file_gave_the_tests_neither_class():
    """A file whose classes sit under ``if __name__ == "__main__":`` names them, so no note on what it defines
    instead is given: the tests' own hint (what they saw) is the one message; a passed test means it was tested."""
    from grader_tests.attention.signature_note import nothing_tested

    source = "import torch\nprint('start')\nif __name__ == '__main__':\n" + "\n".join(
        "    " + line for line in BODY.splitlines()) + "\n"
    hint = {"en": 'ScaledDotProductAttention is defined at line 8, under `if __name__ == "__main__":`',
            "zh": 'ScaledDotProductAttention 定义在第 8 行，位于 `if __name__ == "__main__":` 之下'}
    outcomes = {
        "test_a": {"outcome": "failed", "feedback": {
            "en": f"attention.py does not define ScaledDotProductAttention. Hint: {hint['en']}",
            "zh": f"attention.py 没有定义 ScaledDotProductAttention。提示：{hint['zh']}"}},
        "test_b": {"outcome": "failed", "feedback": {"en": "with x [2,5,16]: attention.py does not define "
                                                           "MultiHeadAttention",
                                                     "zh": "x 为 [2,5,16] 时：attention.py 没有定义 MultiHeadAttention"}},
    }
    note = nothing_tested(source, outcomes)
    assert note["en"].startswith("attention.py defines neither ScaledDotProductAttention nor MultiHeadAttention, so "
                                 "no test could run. Hint: ") and note["en"].endswith(hint["en"])
    assert note["zh"].startswith("attention.py 既没有定义") and note["zh"].endswith(hint["zh"])
    # one class seen by the tests (only one name missing), or a test passed: graded as usual
    assert nothing_tested(source, {"test_a": outcomes["test_a"]}) is None
    assert nothing_tested(source, {**outcomes, "test_c": {"outcome": "passed", "feedback": None}}) is None


@pytest.mark.parametrize(("line", "message", "en", "zh"), [
    ("from .utils import scaled_scores", "attempted relative import with no known parent package",
     "line 1 imports relative to a package (the leading '.'), but the grader runs attention.py alone",
     "第 1 行是相对导入（以“.”开头），但评分器像 `python attention.py` 一样单独运行 attention.py"),
    ("from . import utils", "attempted relative import with no known parent package",
     "line 1 imports relative to a package", "第 1 行是相对导入"),
    ("from attention import ScaledDotProductAttention",
     "cannot import name 'ScaledDotProductAttention' from 'attention' (attention.py)",
     "line 1 imports from attention, which is attention.py itself. Delete the import",
     "第 1 行从 attention 导入，而 attention 就是 attention.py 本身。请删掉这行导入"),
    ("import attention", "cannot import name 'x' from partially initialized module 'attention'",
     "line 1 imports from attention, which is attention.py itself", "而 attention 就是 attention.py 本身"),
], ids=["relative-from-module", "relative-from-dot", "self-from", "self-import"])
def test_an_import_no_package_can_satisfy_is_said_as_such_without_the_list_of_packages(client, web, course, line,
                                                                                      message, en, zh):
    source = line + "\n" + BODY
    error = load_error_text(StudentError("ImportError", message, 1), packages=("torch", "numpy", "einops"),
                            source=source)
    pages = _load_error_pages(client, web, course, source, error)
    assert en in pages["en"] and zh in pages["zh"]
    assert "offers only" not in pages["en"] and "只提供" not in pages["zh"]


def test_a_missing_package_still_names_the_packages_the_grader_offers():
    source = "from jaxtyping import Float\n" + BODY
    error = load_error_text(StudentError("ModuleNotFoundError", "No module named 'jaxtyping'", 1),
                            packages=("torch", "numpy", "einops"), source=source)
    assert "the grader offers only the Python standard library and torch, numpy, einops" in error["en"]
    assert "相对导入" not in error["zh"] and "本身" not in error["zh"]


def test_an_unindent_is_marked_where_the_lines_indentation_ends_not_past_its_end(client, web, course):
    """Python's caret for "unindent does not match any outer indentation level" stands one past the line's end; the
    page marked a blank there, where nothing is wrong. The place is the line's first character after its
    indentation, whose width the hint states."""
    source = BODY.replace("        return q\n", "        q = q * 2\n      return q\n")
    try:
        compile(source, "attention.py", "exec")
    except IndentationError as e:
        line, offset, message = e.lineno, e.offset, e.msg
    text = source.splitlines()[line - 1]
    assert message.startswith("unindent does not match") and offset == len(text) + 1   # what Python says
    error = load_error_text(StudentError("IndentationError", message, line, offset), source=source)
    pages = _load_error_pages(client, web, course, source, error)
    assert f"IndentationError at line {line}, column 7: unindent" in pages["en"]
    assert f"第 {line} 行第 7 列出现 IndentationError" in pages["zh"]
    for page in pages.values():
        assert f'<span class="ln" aria-hidden="true">{line}</span>      <mark class="column">r</mark>eturn q</span>' \
            in page, page


def _refused_on_the_form(client, web, course, code: bytes) -> dict[str, str]:
    """The upload form's refusal of ``code`` as attention.py, per language, as the page shows it."""
    import io

    web.login(client, course["alice"])
    shown = {}
    for lang in ("en", "zh"):
        client.get(f"/lang/{lang}")
        resp = client.post("/assignments/attention/submit", data={"code": (io.BytesIO(code), "attention.py"),
                                                                  "confirm_no_audit": "1"},
                           content_type="multipart/form-data")
        assert resp.status_code in (400, 422), resp.status_code
        page = resp.get_data(as_text=True)
        shown[lang] = html_lib.unescape(re.search(r'id="upload-error"[^>]*>(.*?)</div>', page, re.S).group(1))
    return shown


@pytest.mark.parametrize(("code", "line", "column", "count"), [
    (BODY.replace("return q", "return q\x00").encode(), 7, 17, 1),
    (BODY.replace("\n", "\r\n").replace("import torch", "import torch\x00\x00").encode(), 1, 13, 2),
    (("# 注意力\n" + BODY + "\x00").encode("utf-16"), 9, 1, 1),
], ids=["utf8", "crlf-two", "utf16-bom"])
def test_a_nul_in_a_text_file_is_located_and_the_file_is_not_called_binary(client, web, course, code, line, column,
                                                                          count):
    """One NUL pasted into a source file was refused as "a binary file, not text", with no place and nothing to do."""
    shown = _refused_on_the_form(client, web, course, code)
    more_en, more_zh = (f", {count} in the file", f"，文件中共有 {count} 个") if count > 1 else ("", "")
    assert f"line {line}, column {column} holds a NUL character (U+0000{more_en})" in shown["en"], shown["en"]
    assert f"第 {line} 行第 {column} 列有 NUL 字符（U+0000{more_zh}）" in shown["zh"], shown["zh"]
    assert "Delete it" in shown["en"] and "请删掉它" in shown["zh"]
    assert "binary" not in shown["en"] and "二进制" not in shown["zh"]


def test_a_file_that_is_not_text_is_still_called_binary():
    from grading.inputs import InputError, validate_code

    with pytest.raises(InputError) as refused:
        validate_code("attention.py", b"\x00\x01\xff\xfe\x80\x00" * 10)
    assert "binary file" in refused.value.en and "二进制文件" in refused.value.zh


def test_a_gbk_file_is_located_at_its_first_chinese_character_as_the_students_editor_shows_it(client, web, course):
    """A UTF-8 reader first stumbles inside the text, where GBK bytes stop reading as UTF-8 letters: "# 注意力"
    (注 is D7 A2, a valid UTF-8 letter) was said at column 4 (意). The student's editor shows 注 at column 3."""
    code = ("import torch\n# 注意力机制\n" + BODY).encode("gbk")
    shown = _refused_on_the_form(client, web, course, code)
    assert "first bad byte at line 2, column 3" in shown["en"] and "GBK/GB18030" in shown["en"]
    assert "第 2 行第 3 列" in shown["zh"] and "GBK/GB18030 编码" in shown["zh"]


@pytest.mark.parametrize(("source", "en", "zh"), [
    (BODY.replace("        return q\n", "        s = torch.matmul(q,\n                         k.transpose(-2, -1)]\n"
                                         "        return s\n"),
     "the ']' on line 8 comes while the '(' opened on line 7 is still open, and '(' closes with ')'",
     "第 8 行出现“]”时，第 7 行打开的“(”还没有闭合，而“(”要用“)”闭合"),
    (BODY.replace("return q", "return [q, k)"),
     "the ')' on line 7 comes while the '[' opened on the same line is still open, and '[' closes with ']'",
     "第 7 行出现“)”时，同一行打开的“[”还没有闭合，而“[”要用“]”闭合"),
], ids=["across-lines", "same-line"])
def test_brackets_that_do_not_match_are_explained_in_both_languages(client, web, course, source, en, zh):
    """Python says "closing parenthesis ']' does not match opening parenthesis '(' on line 7" in English only; the
    Chinese page showed it as the original text with nothing more."""
    try:
        compile(source, "attention.py", "exec")
    except SyntaxError as e:
        error = load_error_text(StudentError("SyntaxError", e.msg, e.lineno, e.offset), source=source)
    pages = _load_error_pages(client, web, course, source, error)
    assert en in pages["en"] and zh in pages["zh"], (pages["en"], pages["zh"])


def test_the_packages_the_grader_offers_are_listed_with_chinese_punctuation_in_chinese(client, web, course):
    source = "import transformers\n" + BODY
    error = load_error_text(StudentError("ModuleNotFoundError", "No module named 'transformers'", 1),
                            packages=("torch", "numpy", "einops"), source=source)
    pages = _load_error_pages(client, web, course, source, error)
    assert "评分环境只提供 Python 标准库和 torch、numpy、einops（见作业页面）" in pages["zh"], pages["zh"]
    assert "the grader offers only the Python standard library and torch, numpy, einops" in pages["en"]


MHA = ("\n\nclass MultiHeadAttention(nn.Module):\n    def __init__(self, d_model, num_heads, head_dim=None):\n"
       "        super().__init__()\n        self.sdpa = ScaledDotProductAttention()\n\n"
       "    def forwardd(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):\n"
       "        return x\n")


@pytest.mark.parametrize(("source", "message", "en", "zh"), [
    (BODY + MHA, 'Module [MultiHeadAttention] is missing the required "forward" function',
     "class MultiHeadAttention (line 10) has no method named forward, but defines `forwardd` (line 15): nn.Module "
     "calls forward, so rename `forwardd` to forward",
     "类 MultiHeadAttention（第 10 行）没有名为 forward 的方法，但定义了 `forwardd`（第 15 行）"),
    (BODY + MHA, "_forward_unimplemented() got an unexpected keyword argument 'return_weights'",
     "rename `forwardd` to forward", "请把 `forwardd` 改名为 forward"),
    (BODY.replace("    def forward(self, q, k, v", '    """Scaled dot-product attention."""\n\n\ndef forward(self, q, k, v'),
     'Module [ScaledDotProductAttention] is missing the required "forward" function',
     "the forward at line 9 is defined at the top level of the file, outside class ScaledDotProductAttention (line 5):"
     " indent it one level", "第 9 行的 forward 定义在文件的最外层，不在类 ScaledDotProductAttention（第 5 行）里面"),
], ids=["misspelt", "misspelt-called-with-keywords", "outside-the-class"])
def test_a_class_without_forward_is_told_what_its_source_shows_instead(source, message, en, zh):
    """nn.Module's English ("missing the required "forward" function", "_forward_unimplemented() got an unexpected
    keyword argument") was all a student with a method named `forwardd` read, in 10 to 30 failing tests."""
    from grading.proxy import student_error_text

    exc = StudentError("NotImplementedError" if "Module [" in message else "TypeError", message)
    said = student_error_text("MultiHeadAttention.forward", exc, source=source)
    assert en in said["en"] and zh in said["zh"], said


def test_a_class_without_forward_and_nothing_like_it_gets_no_guess():
    from grading.proxy import student_error_text

    source = BODY + MHA.replace("forwardd", "run")
    exc = StudentError("NotImplementedError", 'Module [MultiHeadAttention] is missing the required "forward" function')
    said = student_error_text("MultiHeadAttention.forward", exc, source=source)
    assert "rename" not in said["en"] and "indent" not in said["en"]


@pytest.mark.parametrize(("line", "en", "zh"), [
    ('    print(f"weights {w.shape")', "a '{' in it is never closed: close it with '}'", "其中有“{”没有闭合：请用“}”闭合它"),
    ('    print(f"sum = {w.sum(-1) +}")', "an expression inside its braces is not valid Python",
     "其中某个花括号里的表达式不是合法的 Python"),
    ("    print(f\"{'\\n'.join(names)}\")", "Python 3.11 allows no backslash inside its braces",
     "Python 3.11 不允许在花括号里使用反斜杠"),
    ('    print(f"{}")', "it holds '{}' with nothing inside", "其中有空的“{}”"),
], ids=["unclosed", "invalid", "backslash", "empty"])
def test_an_f_string_python_cannot_read_is_explained_in_both_languages(client, web, course, line, en, zh):
    """Python 3.11's "f-string: expecting '}'" and its kin reached Chinese readers as the original English only."""
    source = BODY.replace("        return q\n", "        return q\n\n\nif True:\n" + line + "\n")
    try:
        compile(source, "attention.py", "exec")
    except SyntaxError as e:
        error = load_error_text(StudentError("SyntaxError", e.msg, e.lineno, e.offset), source=source)
    pages = _load_error_pages(client, web, course, source, error)
    assert f"line 11 has an f-string Python cannot read: {en}" in pages["en"], pages["en"]
    assert f"第 11 行的 f-string（f\"…\"）Python 无法读取：{zh}" in pages["zh"], pages["zh"]


def test_an_f_string_nested_too_deeply_gets_no_guess():
    source = 'x = f"{a:{b:{c}}}"\n'
    try:
        compile(source, "attention.py", "exec")
    except SyntaxError as e:
        error = load_error_text(StudentError("SyntaxError", e.msg, e.lineno, e.offset), source=source)
    assert "Hint" not in error["en"] and "提示" not in error["zh"]
