"""Round 40: every place the indirect-names review reason lists is stored with a kind and a subject
({line, kind, subject}), so a zh reader gets each in zh (its code in backticks) and never an English phrase: until
now about half the forms (argparse actions, private names, match patterns, foreign bases, the standard library's
uses...) were stored as kind ``text`` and reached zh pages in English. The other reason params that carry English
(fused_unseen's calls, an exception's words) are marked as code or as quoted on zh pages. Rows stored before have
their English places read back to their kinds at render time (round 41, tests/web/test_review_findings_round41.py);
a place no form knows shows as stored."""

from __future__ import annotations

import ast
import copy
import functools
import html
import inspect

import pytest

from app.review_text import localized
from grader_tests.attention import static
from grading import runner
from grading.suite import load_suite
from tests.grading.helpers import english_in_zh
from tests.web.helpers import realistic_result

# One submission per form a finding can take: kind -> source (several forms share a kind).
CASES: dict[str, tuple[str, str]] = {
    "attribute": ("code", "import torch\nx = torch.ops\n"),
    "getattr_computed": ("computed_name", "import torch\nn = input()\nf = getattr(torch, n)\n"),
    "getattr_value": ("used_as_value", "g = getattr\n"),
    "import": ("imports", "import importlib\nm = importlib.import_module('math')\n"),
    "sets": ("sets", "import torch\nclass C:\n    pass\nC.__match_args__ = ('ops',)\n"),
    "defines": ("defines", "class C:\n    def __match_args__(self):\n        pass\n"),
    "kept": ("kept_attribute", "import torch\nclass A:\n    def __init__(self):\n        self.t = torch\n"),
    "argparse_action": ("argparse_action", "import argparse\nx = argparse.BooleanOptionalAction\n"),
    "add_argument": ("argparse_action", "import argparse\np = argparse.ArgumentParser()\nx = p.add_argument('--a')\n"),
    "super": ("super_elsewhere", "import torch\nclass A:\n    def f(self):\n        return super(type(torch), torch)\n"),
    "dunder_init": ("another_self_or_value", "import torch\nf = object.__init__\n"),
    "register": ("widens_isinstance", "import torch\nclass A:\n    pass\nA.register(int)\n"),
    "module_private": ("module_private", "import numpy\nx = numpy._foo\n"),
    "foreign_private": ("foreign_private", "import torch\nx = [1]._y\n"),
    "match_reads": ("match_reads", "import torch\nmatch torch:\n    case object(_C=c):\n        pass\n"),
    "match_position": ("match_by_position",
                       "import torch\nclass K:\n    pass\nmatch torch:\n    case K(c):\n        pass\n"),
    "computed_base": ("computed_base", "import torch\nclass K(type(torch)):\n    pass\n"),
    "foreign_base": ("foreign_base", "import torch\nclass A(torch.nn.Transformer):\n    pass\n"),
    "class_attribute": ("class_attribute", "import torch\nclass A:\n    ops = 1\n"),
    "string": ("string", "import torch\nx = '_C'\nprint(getattr(torch, x))\n"),
    "self_outside": ("self_outside_class", "def f(self):\n    return self.x\ng = f\n"),
    "another_self": ("called_with_another_self", "class A:\n    def f(self):\n        return 1\nA.f(3)\n"),
    "without_self": ("used_without_self", "class A:\n    def f(self):\n        return 1\ng = A.f\n"),
    "taken_off": ("taken_off_object", "import torch\nclass A:\n    def f(self):\n        return "
                  "self.scaled_dot_product_attention\nclass B:\n    g = A.f\n"),
    "stdlib_value": ("used_as_value", "import os\nx = os\n"),
    "stdlib_attribute": ("code", "import os\nx = os.system\n"),
    "stdlib_path": ("used_as_value", "import os\nx = os.path\n"),
    "wraps": ("code", "import functools\ndef d(f):\n    return functools.wraps(f, ('__name__',))\n"),
    "namespace": ("code", "import argparse\np = argparse.ArgumentParser()\np.parse_args(namespace=object())\n"),
}


@functools.cache
def _built(source: str) -> dict:
    [found] = [r for r in runner._review(load_suite("attention"), source) if r["code"] == "attention.indirect_names"]
    return found


def _indirect(source: str) -> dict:
    return copy.deepcopy(_built(source))      # each test its own copy of the (cached) review


def _in(app, lang: str, reason: object) -> str:
    with app.test_request_context(f"/?lang={lang}"):
        return localized(reason)


def test_the_cases_build_every_kind_a_finding_has():
    assert {kind for kind, _ in CASES.values()} == set(static.FINDING_EN)


def test_no_finding_of_the_review_is_built_as_english_text_alone():
    """Every place the hidden-names review appends is a Finding (``_finding``): an f-string "line N: ..." would be
    stored as kind ``text``, English on zh pages."""
    loose = []
    for function in (static._hidden_name_uses, static._safe_stdlib, static.unbound_calls):
        for node in ast.walk(ast.parse(inspect.getsource(function).lstrip())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                    and node.args and isinstance(node.args[0], ast.JoinedStr | ast.IfExp | ast.BinOp):
                loose.append(f"{function.__name__}: line {node.lineno}")
    assert not loose, loose


def test_each_finding_form_is_stored_with_its_kind_and_reads_in_zh_without_english(app):
    wrong = {}          # case -> what is wrong (one app for every case: a fixture each cost seconds)
    for case, (kind, source) in sorted(CASES.items()):
        found = _indirect(source)
        zh, en = _in(app, "zh", found), _in(app, "en", found)
        problems = [
            *([f"no {kind} finding"] if kind not in {f["kind"] for f in found["findings"]} else []),
            *[f"kind {f['kind']}" for f in found["findings"] if f["kind"] not in static.FINDING_EN],
            *[f"English {w!r} in {zh!r}" for w in english_in_zh(zh)],
            *[f"no line {f['line']} in {zh!r}" for f in found["findings"] if f"第 {f['line']} 行" not in zh],
            # the en page says what the run log says, word for word
            *([f"en {en!r} is not the log's {found['text']!r}"] if en != found["text"] else []),
        ]
        if problems:
            wrong[case] = problems
    assert not wrong, wrong


def test_a_foreign_base_shows_the_class_and_its_base_each_as_code(app):
    found = _indirect(CASES["foreign_base"][1])
    zh = _in(app, "zh", found)
    assert "类 `A` 继承自 `torch.nn.Transformer`" in zh, zh


def test_a_stored_text_finding_no_form_knows_still_shows_its_subject_as_stored(app):
    # (round 41: a text of a known form is read back to its kind, tests/web/test_review_findings_round41.py)
    old = {**_indirect(CASES["foreign_private"][1])}
    text = "line 2: ..._y (a name no finding form words so)"
    old["findings"] = [{"line": "", "kind": "text", "subject": text}]
    for lang in ("zh", "en"):
        assert text in _in(app, lang, old)


FUSED = {"code": "attention.fused_unseen",
         "params": {"calls": "F.scaled_dot_product_attention (2x), multi_head_attention_forward (1x)"},
         "text": "PyTorch's ready-made attention ran (F.scaled_dot_product_attention (2x), "
                 "multi_head_attention_forward (1x)) though the source review found no use of it: the review cannot "
                 "read how it is reached, so the hand-written, reuse and structure checks passed on code it did not "
                 "follow; read the source"}


def test_fused_unseens_calls_read_in_zh_each_name_as_code_and_its_count_in_zh(app):
    for stored in (FUSED, FUSED["text"]):            # a row of round 39 and one before (plain text)
        zh = _in(app, "zh", stored)
        assert "`F.scaled_dot_product_attention`（2 次）、`multi_head_attention_forward`（1 次）" in zh, zh
        assert "2x" not in zh and english_in_zh(zh) == [], zh
        assert _in(app, "en", stored) == FUSED["text"]


def test_fused_unseens_calls_of_another_shape_are_quoted_whole(app):
    odd = {**FUSED, "params": {"calls": "something else ran"}}
    zh = _in(app, "zh", odd)
    assert "`something else ran`" in zh and english_in_zh(zh) == [], zh


@pytest.mark.parametrize("error", ["ValueError('the hook broke on this file')", "KeyError('`x` missing')",
                                   "RuntimeError('`')"])
@pytest.mark.parametrize("code", ["engine.review_failed", "engine.outcome_review_failed"])
def test_an_exceptions_words_are_quoted_in_zh_and_kept_as_is_in_en(app, code, error):
    word = "source" if code == "engine.review_failed" else "outcome"
    text = f"the {word} review failed: {error}"
    for stored in ({"code": code, "params": {"error": error}, "text": text}, text):
        zh = _in(app, "zh", stored)
        assert error in zh and english_in_zh(zh) == [], zh
        assert zh.endswith("`") and not zh.endswith(f"：{error}"), zh
        assert _in(app, "en", stored) == text


def _all_kinds() -> dict:
    """One stored reason listing a place of every kind (a suite stores at most five; the pages read any number)."""
    places, texts = [], []
    for case in sorted(CASES):
        built = _indirect(CASES[case][1])
        for place, text in zip(built["findings"], built["params"]["names"].split("; "), strict=True):
            if place not in places:
                places.append(place)
                texts.append(text)
    base = _indirect(CASES["attribute"][1])
    names = "; ".join(texts)
    return {**base, "params": {"names": names}, "findings": places,
            "text": base["text"].split(": line")[0] + ": " + names}


def _reasons_block(page: str) -> str:
    start = page.index("data-review-reasons")
    return page[start:page.index("</div>", start)]


def test_the_instructors_pages_show_every_kind_in_zh_without_english_and_in_en_as_the_log(client, web, course):
    found = _all_kinds()
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, {**realistic_result(), "review": [found, FUSED]})
    web.login(client, course["teacher"])
    client.get("/lang/zh")
    page = html.unescape(client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True))
    block = _reasons_block(page)
    assert "融合注意力检查无法追踪" in block and english_in_zh(block.split(">", 1)[1]) == [], block
    dashboard = html.unescape(client.get("/instructor/").get_data(as_text=True))
    assert "`torch.nn.Transformer`" in dashboard and "a private name of something" not in dashboard
    client.get("/lang/en")
    page = html.unescape(client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True))
    assert found["params"]["names"] in _reasons_block(page)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_api_gives_instructors_each_kind_in_their_language_and_students_only_a_flag(
        app, client, web, course, factory, lang):
    found = _all_kinds()
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, {**realistic_result(), "review": [found, FUSED]})
    body = client.get(f"/api/v1/submissions/{sub.id}?lang={lang}",
                      headers={"Authorization": f"Bearer {factory.token(course['teacher'])}"}).json
    got = body["result"]["review"]
    assert got[0]["findings"] == found["findings"] and got[0]["text"] == found["text"]
    if lang == "zh":
        assert all(english_in_zh(r["message"]) == [] for r in got), got
    else:
        assert [r["message"] for r in got] == [found["text"], FUSED["text"]]
    mine = client.get(f"/api/v1/submissions/{sub.id}?lang={lang}",
                      headers={"Authorization": f"Bearer {factory.token(course['alice'])}"}).json
    assert mine["result"]["instructor_review"] is True and "review" not in mine["result"]


def test_every_builders_reason_reads_in_zh_without_english(app):
    from tests.grading.test_review_codes_round39 import builders_reasons

    for built in builders_reasons():
        zh = _in(app, "zh", built)
        assert english_in_zh(zh) == [], (built["code"], zh)
