"""Everything a student reads is in one language (round 23): every message of a graded corpus file
(test feedback, load error, result message, audit items and flags, labels) and of the fixture audits
graded with and without a figure has a zh side without English sentences and an en side without
Chinese; and the figure item says which of "not submitted" and "not readable" happened."""

from __future__ import annotations

import re
import sys

import pytest

from grading.i18n import is_msg
from grading.inputs import InputError
from grading.runner import GradeInput, grade
from rubric.audit import grade_audit, load_checklist
from tests.audit.helpers import AUDITS, MEASURED_OK, make_heatmap
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, graded_corpus_file

CORPUS = sorted(p for d in ("correct", "faulty", "abuse") for p in (SUBMISSIONS / d).glob("*.py"))
FIXTURE_AUDITS = sorted(p for p in AUDITS.iterdir() if p.is_file())

# The course's technical words its Chinese text keeps in English (the handout's "feature importance",
# "causal effect", "heatmap", "reference parity", "mask audit", "entropy", "seed"), and Python's `class`
# in the class headers the feedback quotes ("class ScaledDotProductAttention(nn.Module)").
COURSE_WORDS = frozenset({"heatmap", "feature", "importance", "causal", "effect", "reference", "audit", "entropy",
                          "scale", "seed", "class"}) | frozenset(sys.stdlib_module_names)   # modules named as code
# What the student wrote, quoted back to them: in either language it stays as written.
_QUOTED = re.compile(r"「[^」]*」|“[^”]*”|\"[^\"]*\"|`[^`]*`")
# en quotes a student's sentence in ASCII quotes, and that sentence may hold quotes of its own
_QUOTED_EN = re.compile(r"「[^」]*」|“[^”]*”|\"[^\n]*\"|`[^`]*`")
_EXTENSION = re.compile(r"(?<![\w.])\.[a-z0-9]{1,5}\b")          # file names' extensions: .md, .txt
_CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")


def _messages(value, where: str = ""):
    """Every {"en", "zh"} message in a result (the instructor's log aside)."""
    if is_msg(value):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "log":
                yield from _messages(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _messages(item, f"{where}[{i}]")


def mixed(result, code: frozenset[str] = frozenset()) -> dict[str, object]:
    """where -> what is in the other language: English words left in zh, Chinese left in en."""
    found: dict[str, object] = {}
    for where, m in _messages(result):
        if left := english_in_zh(_EXTENSION.sub("", _QUOTED.sub("", m["zh"])), code | COURSE_WORDS):
            found[f"{where}.zh"] = (left, m["zh"])
        en = _QUOTED_EN.sub("", m["en"])
        for name in code:       # the file's own names, quoted from its lines: 分数 in "torch.softmax(分数, dim=-2)"
            if _CJK.search(name):
                en = en.replace(name, "")
        if chinese := _CJK.findall(en):
            found[f"{where}.en"] = ("".join(chinese), m["en"])
    return found


@pytest.mark.parametrize("path", CORPUS, ids=[f"{p.parent.name}/{p.stem}" for p in CORPUS])
def test_every_message_of_a_graded_corpus_file_is_in_one_language(executor, path):
    result = graded_corpus_file(executor, path)
    assert mixed(result, code_names(path.read_text(encoding="utf-8"))) == {}


@pytest.mark.parametrize("path", FIXTURE_AUDITS, ids=[p.name for p in FIXTURE_AUDITS])
def test_every_message_of_a_fixture_audit_is_in_one_language(path):
    checklist, text = load_checklist(), path.read_text(encoding="utf-8")
    unreadable = InputError("figure_bad_type", "This is a WebP image, not PNG or JPEG.", "这是 WebP 图片，不是 PNG 或 JPEG。")
    for figure in (make_heatmap(), None, unreadable):
        assert mixed(grade_audit(text, figure, MEASURED_OK, checklist)) == {}


def test_a_module_the_grader_lacks_is_said_wholly_in_chinese_and_wholly_in_english(executor):
    """The sandbox's "No module named 'scipy' in the grader" is the grader's own sentence: the zh side
    says it in Chinese (the name as code) before the packages note; it read as English then Chinese."""
    result = grade(GradeInput(code=b"import torch\nimport scipy\n"), "attention", executor)
    error = result["load_error"]
    assert "No module named 'scipy' in the grader" in error["en"]
    assert "评分环境中没有模块 `scipy`" in error["zh"] and "评分环境只提供" in error["zh"]
    assert mixed(result) == {}


def test_a_load_error_quotes_pythons_own_message_as_its_original_text(executor):
    result = grade(GradeInput(code=b"import torch\nx = int('boom at import')\n"), "attention", executor)
    assert "第 2 行出现 ValueError，PyTorch/Python 报错原文：invalid literal" in result["load_error"]["zh"]
    assert mixed(result) == {}


def _figure(result) -> dict:
    return next(it for it in result["audit"]["items"] if it["id"] == "figure")["feedback"]


def test_no_figure_is_said_as_not_submitted_and_an_unreadable_one_with_its_reason(executor):
    """The grader knows which happened: a figure refused at upload is never stored, and one that
    reaches grade() unreadable is passed to the checker as its error. Neither text offers the other."""
    code = (SUBMISSIONS / "correct" / "d2l.py").read_bytes()
    missing = _figure(grade(GradeInput(code=code, audit=b"text", audit_filename="audit.md"), "attention", executor))
    assert missing["en"].startswith("No figure was submitted.") and missing["zh"].startswith("没有提交图。")
    assert "could not be read" not in missing["en"] and "无法读取" not in missing["zh"]
    unreadable = _figure(grade(GradeInput(code=code, audit=b"text", audit_filename="audit.md",
                                          figure=b"not an image", figure_filename="heatmap.png"), "attention", executor))
    assert unreadable["en"].startswith("The figure could not be read: ") and unreadable["zh"].startswith("无法读取提交的图：")
    assert "submitted" not in unreadable["en"] and "未提交" not in unreadable["zh"]


_BASE = (SUBMISSIONS / "correct" / "d2l.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("source, en", [
    ("import torch\nfor _ in range(1000):\n    input()\n",
     "but the grader has no keyboard: put code that asks for input under if __name__ == '__main__':"),
    ("import sys\nopen('einops.py', 'w').write('X = 1\\n')\nsys.path.insert(0, '.')\nimport einops\n",
     "module 'einops' comes from a file written at run time"),
], ids=["input-without-keyboard", "module-written-at-run-time"])
def test_the_sandboxs_own_refusals_at_import_are_said_in_each_language(executor, source, en):
    """The runtime's own sentences (not Python's) are translated, not shown as "PyTorch/Python 报错原文"
    in zh; the input() one carried a Chinese aside in its English text."""
    result = grade(GradeInput(code=source.encode()), "attention", executor)
    assert en in result["load_error"]["en"], result["load_error"]
    assert "报错原文" not in result["load_error"]["zh"]
    assert mixed(result) == {}


def test_a_module_the_grader_lacks_imported_in_forward_is_said_in_each_language(executor):
    source = _BASE.replace("import torch\n", "import torch\n\n\ndef _helper():\n    import scipy  # noqa\n\n\n", 1)
    source = source + "\n_f = ScaledDotProductAttention.forward\nScaledDotProductAttention.forward = " \
                      "lambda self, *a, **k: (_helper(), _f(self, *a, **k))[1]\n"
    result = grade(GradeInput(code=source.encode()), "attention", executor)
    said = [t["feedback"] for t in result["tests"] if "No module named 'scipy'" in str(t["feedback"])]
    assert said and all("评分环境中没有模块 `scipy`" in fb["zh"] and "报错原文" not in fb["zh"] for fb in said), said
    assert mixed(result, code_names(source)) == {}


@pytest.mark.parametrize("status", [None, {"status": "setup_failed", "reason": "pivot_root: EPERM"},
                                    {"signal": 9, "cpu": 5.0}, {"signal": 25}, {"signal": 11}, {"signal": 15},
                                    {"signal": 99}, {"exit_code": 3}, {"status": "odd"}],
                         ids=["no-status", "setup", "cpu", "fsize", "segv", "term", "unknown-signal", "exit", "other"])
def test_every_way_the_sandbox_says_a_process_ended_is_said_in_each_language(status):
    """Each reason grading.sandbox.client gives (and one it does not know) as the load error says it."""
    from grading.proxy import load_error_text
    from grading.sandbox import SandboxDied
    from grading.sandbox.client import _describe_status
    from tests.sandbox.helpers import TEST_LIMITS

    text = load_error_text(SandboxDied(_describe_status(status, TEST_LIMITS)))
    assert mixed({"load_error": text}) == {}
    assert mixed({"load_error": load_error_text(SandboxDied("something the sandbox never said"))}) == {}


def test_an_audit_that_could_not_be_read_is_not_reported_as_not_submitted(executor):
    """As for the figure: the upload validator's refusal reaches the items, which say the file could not
    be read and why; "No audit text was submitted" is said only when none was."""
    code = (SUBMISSIONS / "correct" / "d2l.py").read_bytes()
    docx = b"PK\x03\x04" + b"\x00" * 60
    result = grade(GradeInput(code=code, audit=docx, audit_filename="audit.docx"), "attention", executor)
    items = [it for it in result["audit"]["items"] if it["id"] != "figure"]
    assert all(it["feedback"]["en"].startswith("The audit could not be read: ") and
               it["feedback"]["zh"].startswith("无法读取提交的审计文字：") for it in items), items
    assert not any("No audit text was submitted" in it["feedback"]["en"] or "没有提交审计文字" in it["feedback"]["zh"]
                   for it in items)
    assert mixed(result, code_names(code.decode())) == {}
    none = grade(GradeInput(code=code), "attention", executor)
    assert all(it["feedback"]["en"].startswith("No audit text was submitted. ")
               for it in none["audit"]["items"] if it["id"] != "figure")
