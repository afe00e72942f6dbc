"""Round 31: Chinese text takes Chinese punctuation everywhere, not only on the pages round 29 read.

The regrade confirmation ended its zh sentence with an ASCII "." and joined the title to the scope with
": " ("注意力：…" read "Attention: 每位学生计分的那次提交."), because the template wrote the punctuation
between two outputs, the same in every language. Scanning every template found the same in ten more places
("代码: attention.py", "一次提交: 王五", a test's "<code>id</code>: 反馈", reasons joined with "; ", worker
names with ", "), and the zh catalog had "应为 邮箱,姓名[,角色]". These scans read every zh text the
service has: the gettext catalog, every {"en", "zh"} table and msg(en, zh) in the code (grading, rubric,
suites, app, worker), and every template, so a new text with ASCII punctuation fails here."""

from __future__ import annotations

import ast
import html
import io
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
CJK = r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]"
# ASCII punctuation written as Chinese punctuation: after a Chinese character (".view", "!pip", "e.g"
# are code: a letter follows), before one, or parentheses around Chinese words.
ASCII_MARK = re.compile(rf"(?<={CJK})[,.;:!?](?![A-Za-z_0-9(])|[,;:!?](?={CJK})|\([^()]*{CJK}[^()]*\)")
# Quoted code keeps its own punctuation: `x.view(...)`, 'attention.py', "email,name", 「…」, and the
# placeholders that stand for a value.
QUOTED = re.compile(r"`[^`]*`|'[^'\n]*'|\"[^\"\n]*\"|「[^」]*」|“[^”]*”|%\(\w+\)[sdfr]|\{[^{}]*\}")


def ascii_marks(zh: str) -> list[str]:
    text = QUOTED.sub("X", zh)
    return [text[max(0, m.start() - 12):m.end() + 12] for m in ASCII_MARK.finditer(text)]


@pytest.mark.parametrize("zh, found", [
    ("参见 API 文档.", True), ("状态: 已评分", True), ("应为 邮箱,姓名", True), ("形状 (两个维度)", True),
    ("请在第 3 行改用 .reshape(...)（或 .contiguous()）", False), ("Notebook 命令（%matplotlib、!pip 这类）", False),
    ("请写成 `x.view(b, n)`：这样", False), ("第 %(n)s 行。", False), ("文件 'a.b:c' 无法读取", False),
])
def test_the_scan_finds_ascii_punctuation_in_chinese_prose_and_not_in_code(zh, found):
    assert bool(ascii_marks(zh)) is found, ascii_marks(zh)


def test_no_zh_message_of_the_catalog_uses_ascii_punctuation():
    with open(ROOT / "app" / "translations" / "zh" / "LC_MESSAGES" / "messages.po", "rb") as f:
        catalog = read_po(f)
    found = {}
    for message in catalog:
        texts = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        for text in texts:
            if message.id and text and ascii_marks(text):
                found[str(message.id)[:60]] = ascii_marks(text)
    assert found == {}


def _literal(node: ast.AST) -> str | None:
    """A string literal's text, an f-string's with each value as X, "a" + "b" joined."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "X" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        return None if left is None or right is None else left + right
    return None


def zh_texts(tree: ast.AST) -> list[tuple[int, str]]:
    """Every zh text of a module: msg(en, zh)'s second argument, a zh= keyword, a {"zh": ...} entry."""
    out = []
    for node in ast.walk(tree):
        values = []
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "msg" and len(node.args) >= 2:
                values.append(node.args[1])
            values += [k.value for k in node.keywords if k.arg == "zh"]
        elif isinstance(node, ast.Dict):
            values += [v for k, v in zip(node.keys, node.values, strict=True)
                       if isinstance(k, ast.Constant) and k.value == "zh"]
        out += [(node.lineno, text) for text in map(_literal, values) if text]
    return out


def test_the_table_scan_reads_msg_calls_zh_keywords_and_zh_entries():
    tree = ast.parse('msg("a", "甲.")\nerror(zh="乙: 丙")\nT = {"en": "x", "zh": f"丁{n}(戊)"}\n')
    assert [bool(ascii_marks(text)) for _line, text in zh_texts(tree)] == [True, True, True]


def test_no_zh_text_of_the_code_uses_ascii_punctuation():
    found = []
    for package in ("app", "grading", "rubric", "grader_tests", "worker", "autograder"):
        for path in sorted((ROOT / package).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            if "zh" not in source:     # parsing only what can hold a zh text: the scan took 3.7 s
                continue
            for line, text in zh_texts(ast.parse(source)):
                found += [f"{path.relative_to(ROOT)}:{line}: {m}" for m in ascii_marks(text)]
    assert found == []


def template_marks(source: str) -> list[str]:
    """ASCII punctuation a template writes next to an output ("{{ a }}: {{ b }}", "{{ x }}."): the same in
    every language, so ASCII on a zh page. Attributes, code and tag names are not text a reader sees."""
    text = re.sub(r"\{#.*?#\}", "", source, flags=re.S)
    text = re.sub(r"<(script|style|code|pre)\b.*?</\1>", " ", text, flags=re.S)
    text = re.sub(r"\{\{.*?\}\}", "\x00", text, flags=re.S)
    text = re.sub(r"\{%.*?%\}", "", text, flags=re.S)
    text = re.sub(r"<[^<>]*>", " ", text)
    joins = re.findall(r"\|\s*join\(\s*['\"][,;] ?['\"]\s*\)", source)   # a list joined with ", " (use |join_list)
    return joins + [text[max(0, m.start() - 20):m.end() + 5].replace("\x00", "{{}}")
                    for m in re.finditer(r"\x00\s*[:.;,!?)]|[:.;,!?(]\s*\x00", text)]


def test_the_template_scan_finds_punctuation_between_outputs_and_not_in_attributes():
    assert template_marks("<p>{{ a }}: {{ b }}.</p>") and template_marks("<li><code>{{ a }}</code>: {{ b }}</li>")
    assert template_marks("{% for w in ws %}{{ w }}{% if not loop.last %}, {% endif %}{% endfor %}")
    assert template_marks("<p>{{ _('Changed: %(n)s', n=names|join(', ')) }}</p>")
    assert template_marks("<span>({{ _('raw %(r)s', r=r) }})</span>") and not template_marks("<span>{{ x|parens }}</span>")
    assert not template_marks('<input value="{{ a }}:{{ b }}"><p>{{ a }}{{ colon() }}{{ b }}</p>')
    assert not template_marks("<p>{{ _('Changed: %(n)s', n=names|join_list) }}</p>")


def test_no_template_writes_ascii_punctuation_next_to_an_output():
    found = {str(p.relative_to(ROOT)): template_marks(p.read_text(encoding="utf-8"))
             for p in sorted((ROOT / "app" / "templates").rglob("*.html"))}
    assert {k: v for k, v in found.items() if v} == {}


@pytest.mark.parametrize("lang, sentence", [("en", "Attention: the attempt that counts for each student.</p>"),
                                            ("zh", "Attention：每位学生计分的那次提交。</p>")])
def test_the_regrade_confirmation_ends_its_sentence_in_the_readers_punctuation(client, web, course, lang, sentence):
    course["assignment"].title = "Attention"
    web.grade(web.submit(course["alice"]))
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page = client.post("/instructor/regrade", data={"scope": "counting", "a": course["assignment"].slug})
    assert sentence in page.get_data(as_text=True)


_GETTEXT = {"_", "_l", "gettext", "lazy_gettext", "ngettext"}


def ascii_list_joins(tree: ast.AST) -> list[int]:
    """Lines where a translated message gets a list joined with ", " or "; " as a value (list_join says it
    in the reader's language: "a、b" in zh)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _GETTEXT:
            for value in [k.value for k in node.keywords]:
                for inner in ast.walk(value):
                    if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                            and inner.func.attr == "join" and isinstance(inner.func.value, ast.Constant)
                            and inner.func.value.value in (", ", "; ", ",", ";")):
                        found.append(node.lineno)
    return found


def test_the_join_scan_finds_a_list_joined_with_an_ascii_comma_into_a_translated_message():
    assert ascii_list_joins(ast.parse('_("Saved: %(f)s.", f=", ".join(names))')) == [1]
    assert ascii_list_joins(ast.parse('_("Saved: %(f)s.", f=list_join(names))')) == []


def test_no_translated_message_of_the_pages_takes_a_list_joined_with_an_ascii_comma():
    # The API's lists are its accepted values ("json, canvas", "counting, all"): code, and one value
    # serves both languages of its error's message.
    api = {"api.py", "api_input.py"}
    found = {str(p.relative_to(ROOT)): ascii_list_joins(ast.parse(p.read_text(encoding="utf-8")))
             for p in sorted((ROOT / "app").glob("*.py")) if p.name not in api}
    assert {k: v for k, v in found.items() if v} == {}


@pytest.mark.parametrize("lang, joined", [("en", "('a.py', 'b.py')"), ("zh", "（'a.py'、'b.py'）")])
def test_two_files_in_one_field_are_listed_with_the_readers_list_comma(client, web, course, lang, joined):
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    files = [(io.BytesIO(b"x = 1\n"), "a.py"), (io.BytesIO(b"x = 2\n"), "b.py")]
    page = client.post("/assignments/attention/submit", data={"code": files, "confirm_no_audit": "1"},
                       content_type="multipart/form-data")
    assert page.status_code == 400 and joined in html.unescape(page.get_data(as_text=True))


@pytest.mark.parametrize("lang, saved", [("en", "Settings saved: Late penalty, Wait between attempts."),
                                         ("zh", "设置已保存：迟交扣分、两次提交的最短间隔。")])
def test_settings_saved_lists_the_changed_settings_with_the_readers_list_comma(client, web, course, lang, saved):
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    a = course["assignment"]
    form = {"late_penalty_percent": "37", "late_days_allowed": str(a.late_days_allowed),
            "cooldown_seconds": "77", "published": "1"}
    page = client.post(f"/instructor/settings?a={a.slug}", data=form, follow_redirects=True)
    assert saved in html.unescape(page.get_data(as_text=True))


@pytest.mark.parametrize("lang, shown", [("en", "(+2 days)"), ("zh", "（+2 天）")])
def test_an_extension_in_days_is_parenthesized_in_the_readers_punctuation(client, web, course, lang, shown):
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    a = course["assignment"]
    client.post(f"/instructor/extensions?a={a.slug}", data={"student": "alice@example.edu", "extra_days": "2"})
    page = html.unescape(client.get(f"/instructor/settings?a={a.slug}").get_data(as_text=True))
    assert shown in page


def test_parentheses_escape_what_they_hold(app):
    from markupsafe import Markup

    from app.views_helpers import parenthesized

    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert parenthesized("<b>") == "(&lt;b&gt;)" and parenthesized(Markup("<b>x</b>")) == "(<b>x</b>)"
