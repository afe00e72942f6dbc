"""Round 34b: the names of uploaded code files.

* `attention.py.txt` (Windows hides known extensions; grading/inputs.py accepts it as the code) was kept
  under that name, and the result page of code that did not load told the student to run
  "python attention.py.txt". It is kept as attention.py, and the page says so, with how to rename the file.
* Old browsers (Internet Explorer, old Edge) send the whole Windows path as the file name,
  `C:\\Users\\x\\attention.py`, a backslash standing for itself; werkzeug read each backslash as an escape
  and the file was kept as `C:Usersxattention.py`. The last component is kept, whichever the separator.
"""

from __future__ import annotations

import html as html_lib
import io
import re

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Submission
from tests.web.helpers import GOOD_CODE, realistic_result

SAVED_AS = {
    "en": "attention.py.txt was saved as attention.py: Windows hides the .txt extension, so the file shown as "
          "attention.py is really named attention.py.txt. To run it as the results say, turn on View → File name "
          "extensions in Explorer and rename it to attention.py.",
    "zh": "attention.py.txt 已保存为 attention.py：Windows 默认隐藏 .txt 扩展名，显示为 attention.py 的文件实际名为 "
          "attention.py.txt。要按结果中的说明运行它，请在资源管理器中打开“查看 → 文件扩展名”，并把它重命名为 attention.py。",
}


def _newest(student) -> Submission:
    db.session.expire_all()
    return db.session.scalars(select(Submission).where(Submission.student_id == student.id)
                              .order_by(Submission.id.desc())).first()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hidden_txt_extension_is_dropped_and_the_student_told_so(client, web, course, lang):
    student = course["alice"] if lang == "en" else course["bob"]
    web.login(client, student)
    client.get(f"/lang/{lang}")
    resp = client.post("/assignments/attention/submit",
                       data={"code": (io.BytesIO(GOOD_CODE), "attention.py.txt"), "confirm_no_audit": "1"},
                       content_type="multipart/form-data", follow_redirects=True)
    assert resp.status_code == 200
    assert _newest(student).code_filename == "attention.py"
    assert SAVED_AS[lang] in html_lib.unescape(resp.get_data(as_text=True))


def test_a_plain_py_upload_gets_no_such_note(client, web, course):
    web.login(client, course["alice"])
    client.get("/lang/en")
    resp = client.post("/assignments/attention/submit",
                       data={"code": (io.BytesIO(GOOD_CODE), "attention.py"), "confirm_no_audit": "1"},
                       content_type="multipart/form-data", follow_redirects=True)
    assert _newest(course["alice"]).code_filename == "attention.py"
    assert "was saved as" not in resp.get_data(as_text=True)


@pytest.mark.parametrize(("sent", "kept"), [
    ("attention.py.txt", "attention.py"), ("Attention.PY.TXT", "Attention.PY"), ("注意力.py。txt", "注意力.py"),
    ("attention.py.txt. ", "attention.py"), ("attention.py", "attention.py"), ("notes.txt", "notes.txt"),
    (None, "attention.py"), ("", "attention.py")])
def test_the_kept_name_of_a_code_file(sent, kept):
    from grading.inputs import code_file_name

    assert code_file_name(sent) == kept


def test_a_result_page_never_says_to_run_a_txt_file(client, web, course):
    # an attempt kept before this round under its .txt name, whose code did not load
    sub = web.submit(course["alice"], course["assignment"])
    sub.code_filename = "attention.py.txt"
    db.session.commit()
    result = realistic_result()
    for t in result["tests"]:
        t.update(outcome="failed", points=0,
                 feedback={"en": "not run: attention.py did not load", "zh": "未运行：attention.py 无法导入"})
    result["load_error"] = {"en": "SyntaxError at line 2: invalid syntax", "zh": "第 2 行出现 SyntaxError"}
    result["message"] = {"en": "attention.py did not load: SyntaxError at line 2: invalid syntax",
                         "zh": "attention.py 无法导入：第 2 行出现 SyntaxError"}
    web.grade(sub, result)
    pages = web.result_pages(client, course["alice"], sub.id)
    box = html_lib.unescape(re.search(r'id="load-error".*?</section>', pages["en"], re.S).group(0))
    assert "run “python attention.py” on your computer" in box
    assert "attention.py.txt" not in box


def _multipart(filename_header: str) -> bytes:
    return (b"--B\r\nContent-Disposition: form-data; name=\"confirm_no_audit\"\r\n\r\n1\r\n"
            b"--B\r\nContent-Disposition: form-data; name=\"code\"; " + filename_header.encode() +
            b"\r\nContent-Type: text/x-python\r\n\r\n" + GOOD_CODE + b"\r\n--B--\r\n")


@pytest.mark.parametrize("path", [r"C:\Users\x\attention.py", r"\\server\作业\attention.py"])
def test_a_windows_path_sent_as_the_name_keeps_its_last_component(client, web, course, path):
    web.login(client, course["alice"])
    resp = client.post("/assignments/attention/submit", data=_multipart(f'filename="{path}"'),
                       content_type="multipart/form-data; boundary=B")
    assert resp.status_code == 302, resp.get_data(as_text=True)[:500]
    assert _newest(course["alice"]).code_filename == "attention.py"


def test_a_refused_file_sent_with_its_windows_path_is_named_by_its_own_name(client, web, course):
    web.login(client, course["alice"])
    client.get("/lang/en")
    resp = client.post("/assignments/attention/submit",
                       data=_multipart(r'filename="C:\Users\x\attention.ipynb"').replace(GOOD_CODE, b'{"cells": []}'),
                       content_type="multipart/form-data; boundary=B")
    shown = html_lib.unescape(resp.get_data(as_text=True))
    assert resp.status_code in (400, 415, 422)
    assert "attention.ipynb" in shown and "Usersx" not in shown


@pytest.mark.parametrize(("disposition", "parsed", "want"), [
    (r'form-data; name="code"; filename="C:\Users\x\a.py"', "C:Usersxa.py", r"C:\Users\x\a.py"),
    # curl escapes a quote in a name as \"
    (r'form-data; name="code"; filename="say \"hi\".py"', 'say "hi".py', 'say "hi".py'),
    # no backslash: werkzeug's reading stands
    ('form-data; name="code"; filename="attention.py"', "attention.py", "attention.py"),
    # a name sent as filename* is the one werkzeug read
    ('form-data; name="code"; filename="C:\\x\\a.py"; filename*=UTF-8\'\'%E6%B3%A8.py', "注.py", "注.py"),
])
def test_the_sent_name_is_read_as_browsers_send_it(disposition, parsed, want):
    from app.api_input import sent_filename

    assert sent_filename(parsed, disposition) == want
