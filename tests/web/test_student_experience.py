"""Issue 11 as a specification: errors people and scripts can act on, the audit never lost by a
code-only resubmission, load failures shown first, attempts that say which one counts."""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest

from app.extensions import db
from app.models import Submission, utcnow
from tests.web.helpers import AUDIT_MD, GOOD_CODE, png_bytes, realistic_result


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def api_upload(client, token, **files):
    data = {"code": (io.BytesIO(GOOD_CODE), "attention.py")}
    data.update(files)
    return client.post("/api/v1/submissions", data=data, headers=bearer(token), content_type="multipart/form-data")


def form_post(client, **fields):
    return client.post("/assignments/attention/submit", data=fields, content_type="multipart/form-data")


def assert_error_shape(resp, status: int, code: str | None = None) -> None:
    assert resp.status_code == status, resp.data[:300]
    assert resp.is_json, resp.data[:300]
    body = resp.json
    assert set(body) == {"error", "code", "message"}, body
    assert isinstance(body["code"], str) and body["code"]
    assert body["message"]["en"] and body["message"]["zh"]
    assert body["error"] == body["message"]["en"]
    assert re.search(r"[\u4e00-\u9fff]", body["message"]["zh"]), body["message"]["zh"]
    if code:
        assert body["code"] == code


# --- API errors: one shape ---------------------------------------------------------------------


def test_every_api_error_has_error_code_and_bilingual_message(client, factory, course, web, app):
    alice, bob = course["alice"], course["bob"]
    token = factory.token(alice)
    assert_error_shape(client.get("/api/v1/submissions"), 401, "unauthorized")
    theirs = web.submit(bob)
    assert_error_shape(client.get(f"/api/v1/submissions/{theirs.id}", headers=bearer(token)), 404, "not_found")
    assert_error_shape(client.post(f"/api/v1/submissions/{theirs.id}/regrade", headers=bearer(token)), 403,
                       "forbidden")
    assert_error_shape(client.get("/api/v1/no-such-thing", headers=bearer(token)), 404, "not_found")
    assert_error_shape(client.delete("/api/v1/submissions", headers=bearer(token)), 405, "method_not_allowed")
    assert_error_shape(client.get(f"/api/v1/submissions/{theirs.id}?wait=soon", headers=bearer(token)), 404)
    mine = web.submit(alice)
    assert_error_shape(client.get(f"/api/v1/submissions/{mine.id}?wait=soon", headers=bearer(token)), 400,
                       "bad_wait")
    assert_error_shape(client.post("/api/v1/submissions", data={}, headers=bearer(token),
                                   content_type="multipart/form-data"), 400, "code_missing")
    app.config["MAX_CONTENT_LENGTH"] = 16 * 1024
    assert_error_shape(api_upload(client, token, audit=(io.BytesIO(b"x" * 40000), "audit.md")), 413, "too_large")


def test_an_unexpected_failure_under_api_is_json_500_in_the_same_shape(migrated_pg, tmp_path):
    from tests.helpers import make_app

    app = make_app(tmp_path, migrated_pg, CELERY_BROKER_URL="memory://", PROPAGATE_EXCEPTIONS=False)

    def boom():
        raise RuntimeError("a bug")

    app.add_url_rule("/api/v1/_boom", "boom", boom)
    app.add_url_rule("/_boom", "page_boom", boom)
    client = app.test_client()
    assert_error_shape(client.get("/api/v1/_boom"), 500, "internal_error")
    page = client.get("/_boom", headers={"Accept-Language": "zh"})
    assert page.status_code == 500 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    assert "服务器" in text and "a bug" not in text and "Traceback" not in text
    assert 'href="/"' in text


# --- error pages for people --------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "title"), [("zh", "页面不存在"), ("en", "Page not found")])
def test_404_page_is_styled_translated_and_leads_back(client, web, course, lang, title):
    web.login(client, course["alice"])
    resp = client.get("/submissions/999999", headers={"Accept-Language": lang,
                                                      "Referer": "http://localhost/assignments/attention"})
    html = resp.get_data(as_text=True)
    assert resp.status_code == 404
    assert f"<h1 id=\"error-title\">{title}</h1>" in html
    assert "/static/app.css" in html                      # the site's layout, not a bare Werkzeug page
    assert 'href="http://localhost/assignments/attention"' in html  # back where they came from
    assert 'href="/"' in html


def test_403_400_and_413_pages_are_translated(client, web, course, app):
    web.login(client, course["alice"])
    forbidden = client.get("/instructor/", headers={"Accept-Language": "zh"})
    assert forbidden.status_code == 403 and "没有权限" in forbidden.get_data(as_text=True)
    app.config["WTF_CSRF_ENABLED"] = True
    stale = client.post("/account/tokens", data={}, headers={"Accept-Language": "en"})
    assert stale.status_code == 400 and "The form has expired" in stale.get_data(as_text=True)
    app.config["WTF_CSRF_ENABLED"] = False
    app.config["MAX_CONTENT_LENGTH"] = 16 * 1024
    big = form_post(client, code=(io.BytesIO(b"#" * 40000), "attention.py"))
    assert big.status_code == 413 and "上传的文件太大" in big.get_data(as_text=True)


def test_sign_in_limit_page_shows_the_wait_time(limited_app, course):
    client = limited_app.test_client()
    for _ in range(3):
        client.post("/login", data={"email": "alice@example.edu", "password": "wrong"})
    resp = client.post("/login", data={"email": "alice@example.edu", "password": "wrong"},
                       headers={"Accept-Language": "en"})
    html = resp.get_data(as_text=True)
    assert resp.status_code == 429
    wait = int(resp.headers["Retry-After"])
    assert 0 < wait <= 60
    assert re.search(r"You can try again in \d+ seconds\.", html)
    assert "Too many requests" in html and "/static/app.css" in html


# --- the audit is never lost by accident -------------------------------------------------------


def test_code_only_resubmission_keeps_the_previous_audit_and_figure(client, web, course):
    web.login(client, course["alice"])
    client.get("/lang/en")
    first = form_post(client, code=(io.BytesIO(GOOD_CODE), "attention.py"), audit=(io.BytesIO(AUDIT_MD), "audit.md"),
                      figure=(io.BytesIO(png_bytes()), "heat.png"))
    assert first.status_code == 302
    page = client.get("/").get_data(as_text=True)
    assert "your audit from attempt 1 (audit.md) is kept" in page
    assert "The code carries 85 points; the audit and the figure together carry the other 15." in page
    second = form_post(client, code=(io.BytesIO(GOOD_CODE), "attention.py"))
    assert second.status_code == 302
    subs = db.session.query(Submission).order_by(Submission.attempt).all()
    assert subs[1].audit_sha256 == subs[0].audit_sha256 and subs[1].audit_from_attempt == 1
    assert subs[1].figure_sha256 == subs[0].figure_sha256 and subs[1].figure_from_attempt == 1
    html = client.get(second.headers["Location"]).get_data(as_text=True)
    assert "kept from attempt 1" in html
    # a third code-only attempt still names attempt 1, where the audit was uploaded
    assert form_post(client, code=(io.BytesIO(GOOD_CODE), "attention.py")).status_code == 302
    third = db.session.query(Submission).filter_by(attempt=3).one()
    assert third.audit_from_attempt == 1


def test_the_student_can_remove_or_replace_the_carried_audit(client, web, course):
    web.login(client, course["alice"])
    web.submit(course["alice"], course["assignment"])
    removed = form_post(client, code=(io.BytesIO(GOOD_CODE), "attention.py"), remove_audit="1",
                        confirm_no_audit="1")
    assert removed.status_code == 302
    sub = db.session.query(Submission).filter_by(attempt=2).one()
    assert sub.audit_sha256 is None and sub.audit_from_attempt is None
    assert sub.figure_sha256 is not None and sub.figure_from_attempt == 1  # the figure was not removed
    replaced = form_post(client, code=(io.BytesIO(GOOD_CODE), "attention.py"),
                         audit=(io.BytesIO("# new\n\n每一行的和为 1。".encode()), "v2.md"))
    assert replaced.status_code == 302
    sub = db.session.query(Submission).filter_by(attempt=3).one()
    assert sub.audit_filename == "v2.md" and sub.audit_from_attempt is None


def test_api_code_only_resubmission_keeps_the_audit_and_says_so(client, factory, course):
    token = factory.token(course["alice"])
    first = api_upload(client, token, audit=(io.BytesIO(AUDIT_MD), "audit.md"))
    assert first.status_code == 202 and first.json["carried_forward"] == {"audit": None, "figure": None}
    second = api_upload(client, token)
    assert second.status_code == 202
    assert second.json["carried_forward"] == {"audit": 1, "figure": None}
    assert "warnings" not in second.json
    got = client.get(f"/api/v1/submissions/{second.json['id']}", headers=bearer(token)).json
    assert got["audit_from_attempt"] == 1
    third = api_upload(client, token, remove_audit="1")
    assert third.json["carried_forward"]["audit"] is None
    assert third.json["warnings"][0]["code"] == "no_audit"


def test_submitting_with_no_audit_at_all_asks_for_confirmation(client, web, course):
    web.login(client, course["alice"])
    resp = form_post(client, code=(io.BytesIO(GOOD_CODE), "attention.py"))
    html = resp.get_data(as_text=True)
    assert resp.status_code == 400
    assert "没有审计" in html or "without an audit" in html
    assert re.search(r'id="confirm-no-audit"\s*>', html)  # the confirmation box is shown, not hidden
    assert "attention.py" in html and 'id="pick-again"' in html  # says which file to choose again
    assert db.session.query(Submission).count() == 0
    assert form_post(client, code=(io.BytesIO(GOOD_CODE), "attention.py"), confirm_no_audit="1").status_code == 302


def test_an_empty_code_file_is_reported_as_empty_not_missing(client, web, course, factory):
    web.login(client, course["alice"])
    client.get("/lang/en")
    html = form_post(client, code=(io.BytesIO(b""), "attention.py"), confirm_no_audit="1").get_data(as_text=True)
    assert "The code file is empty (0 bytes)." in html and "is required" not in html
    resp = api_upload(client, factory.token(course["bob"]), code=(io.BytesIO(b""), "attention.py"))
    assert_error_shape(resp, 422, "code_empty")


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_carried_audit_is_graded_again_by_the_real_grader(app, client, web, course):
    """The worker's own steps (claim → grade in the sandbox → store) on a code-only resubmission."""
    from app.storage import BlobStore
    from grading.runner import GradeInput, grade
    from grading.sandbox import Executor, Limits
    from worker import runs

    first = web.submit(course["alice"], course["assignment"])          # code, audit and figure
    second = web.submit(course["alice"], course["assignment"], audit=False, figure=False)  # code alone
    assert second.audit_from_attempt == first.attempt
    inputs = runs.claim(second.latest_run.id, "test-worker", BlobStore(app.config["UPLOAD_DIR"]))
    assert inputs is not None and inputs.audit == AUDIT_MD and inputs.figure is not None
    with Executor(Limits()) as ex:
        result = grade(GradeInput(code=inputs.code, audit=inputs.audit, audit_filename=inputs.audit_filename,
                                  figure=inputs.figure, figure_filename=inputs.figure_filename), executor=ex)
    assert result["status"] == "graded"
    assert result["audit"] is not None and result["categories"]["audit"]["score"] > 0
    assert runs.store_result(second.latest_run.id, "test-worker", result)
    web.login(client, course["alice"])
    client.get("/lang/en")
    html = client.get(f"/submissions/{second.id}").get_data(as_text=True)
    assert "This audit was uploaded with attempt 1 and carried forward to this attempt." in html


# --- results read as sentences -----------------------------------------------------------------


def load_failure_result(bilingual: bool = True) -> dict:
    """A load failure as the engine reports it: bilingual messages (grading/i18n.py), or plain
    English strings as results stored before that were."""
    result = realistic_result()
    for t in result["tests"]:
        t.update(outcome="failed", points=0,
                 feedback={"en": "not run: attention.py did not load", "zh": "未运行：attention.py 无法导入"}
                 if bilingual else "not run: attention.py did not load")
    for name in ("formula_shape", "implementation", "mask_parity"):
        result["categories"][name]["score"] = 0
    result["total"] = result["categories"]["audit"]["score"]
    en = "attention.py did not load: SyntaxError at line 2: expected ':'; the audit PDF had an unreadable page"
    zh = "attention.py 无法导入：第 2 行出现 SyntaxError：expected ':'; 审计 PDF 有一页无法读取"
    result["message"] = {"en": en, "zh": zh} if bilingual else en
    result["measurements"] = {}
    return result


@pytest.mark.parametrize("bilingual", [True, False], ids=["bilingual-message", "stored-english-message"])
def test_a_syntax_error_is_shown_first_with_its_line_in_the_students_language(client, web, course, bilingual):
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    broken = b"import torch\nclass ScaledDotProductAttention(torch.nn.Module)\n    pass\n"
    sub = submit(course["assignment"], course["alice"], Upload("attention.py", broken),
                 store=BlobStore(web.app.config["UPLOAD_DIR"]), max_pending=0)
    result = load_failure_result(bilingual)
    n = len(result["tests"])  # every test of the rubric, none of which could run
    web.grade(sub, result)
    web.login(client, course["alice"])
    zh = client.get(f"/submissions/{sub.id}", headers={"Accept-Language": "zh"}).get_data(as_text=True)
    assert zh.index('id="load-error"') < zh.index('id="tests-title"')   # the message comes first
    assert f"attention.py 无法导入，所以 {n} 个测试都没有运行" in zh       # the engine's term (无法导入)
    assert "第 2 行出现 SyntaxError：expected &#39;:&#39;" in zh or "第 2 行出现 SyntaxError：expected ':'" in zh
    assert "审计 PDF" not in zh[zh.index('id="load-error"'):zh.index('id="tests-title"')]
    assert "class ScaledDotProductAttention(torch.nn.Module)" in zh      # the offending source line
    assert re.search(r'<span class="hit"><span class="ln" aria-hidden="true">2</span>', zh)
    # the "not run" rows are collapsed under it
    assert re.search(rf"<details[^>]*><summary>[^<]*{n}[^<]*</summary>", zh)
    client.get("/lang/en")
    en = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert f"attention.py did not load, so none of the {n} tests could run" in en
    assert "SyntaxError at line 2: expected" in en


def test_a_file_that_defines_nothing_is_said_not_run_not_to_have_failed_to_load(client, web, course):
    """The runner does not run a file of only comments or imports (Suite.nothing_defined): the page
    heads its one message as defining nothing the tests can use (round 33: as a file that ran and defines no
    contract class is), not "did not load", and does not ask to run the file."""
    from grader_tests.attention.signature_note import NOTHING_DEFINED

    sub = web.submit(course["alice"])
    result = load_failure_result(True)
    for t in result["tests"]:
        t["feedback"] = {"en": "not run: " + NOTHING_DEFINED["en"], "zh": "未运行：" + NOTHING_DEFINED["zh"]}
    result["message"] = result["load_error"] = NOTHING_DEFINED
    n = len(result["tests"])
    web.grade(sub, result)
    web.login(client, course["alice"])
    zh = client.get(f"/submissions/{sub.id}", headers={"Accept-Language": "zh"}).get_data(as_text=True)
    assert f"attention.py 中没有测试能用的内容，所以 {n} 个测试都没能运行" in zh and "attention.py 没有定义任何内容" in zh
    assert "无法" not in zh[zh.index('id="load-error"'):zh.index('id="tests-title"')]
    client.get("/lang/en")
    en = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert f"attention.py defines nothing the tests can use, so none of the {n} tests could run" in en
    assert "did not load" not in en and "until it starts without an error" not in en
    assert "must define the classes the handout asks for" in en


def test_measurements_have_human_labels_in_both_languages(client, web, course):
    sub = web.submit(course["alice"])
    result = realistic_result()
    result["measurements"]["entropy_dk128"] = 2.71
    web.grade(sub, result)
    web.login(client, course["alice"])
    zh = client.get(f"/submissions/{sub.id}", headers={"Accept-Language": "zh"}).get_data(as_text=True)
    assert "与 PyTorch 参考输出的最大差异" in zh and "d_k = 128 时你的权重的平均熵" in zh
    client.get("/lang/en")
    en = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert "Largest difference from PyTorch&#39;s reference output" in en or \
        "Largest difference from PyTorch's reference output" in en
    assert "Largest distance of a row of weights from summing to 1" in en


def test_heatmap_text_contrast_is_at_least_4_5_to_1_for_every_value():
    from app.student import _luminance, heat

    for i in range(101):
        style = heat(i / 100)
        bg = tuple(int(x) for x in re.search(r"rgb\((\d+),(\d+),(\d+)\)", style).groups())
        fg = (255, 255, 255) if "color:#fff" in style else (0, 0, 0)
        hi, lo = sorted((_luminance(bg), _luminance(fg)), reverse=True)
        assert (hi + 0.05) / (lo + 0.05) >= 4.5, (i, style)


# --- attempts ---------------------------------------------------------------------------------


def test_the_counted_attempt_is_marked_and_the_policy_stated(client, web, course):
    s1 = web.submit(course["alice"], now=utcnow() - timedelta(hours=3))
    web.grade(s1, realistic_result())                       # 96
    s2 = web.submit(course["alice"], now=utcnow() - timedelta(hours=2))
    web.grade(s2, realistic_result(fail_mask=True))         # 92
    web.login(client, course["alice"])
    client.get("/lang/en")
    html = client.get("/").get_data(as_text=True)
    assert "Your grade is your best attempt, after the late penalty" in html
    assert "Attempt 1 counts now." in html
    row = re.search(r'<tr class="counted"[^>]*>(.*?)</tr>', html, re.S).group(1)
    assert "Open attempt 1" in row and "counts" in row
    for sub in (s1, s2):
        assert f'href="/submissions/{sub.id}"' in html      # every attempt can be opened


def _two_graded_attempts(client, web, student):
    """Attempt 1 fails the mask checks, attempt 2 passes them; ``student`` is signed in."""
    s1 = web.submit(student, now=utcnow() - timedelta(hours=3))
    web.grade(s1, realistic_result(fail_mask=True))
    s2 = web.submit(student, now=utcnow() - timedelta(hours=2))
    web.grade(s2, realistic_result())
    web.login(client, student)
    return s1, s2


def test_two_attempts_side_by_side_show_score_categories_and_changed_tests(client, web, course):
    s1, s2 = _two_graded_attempts(client, web, course["alice"])
    client.get("/lang/en")
    resp = client.get(f"/submissions/compare?a={s1.id}&b={s2.id}")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert "Attempt 1 and attempt 2" in html
    assert re.search(r"Mask and reference parity</th><td class=\"num\">26</td><td class=\"num\">30</td>"
                     r"<td class=\"num\"><span class=\"diff-up\">\+4</span>", html)
    changed = html[html.index("Tests whose result changed"):]
    assert "test_blocked_key_gets_zero_weight" in changed and "test_row_sums_are_one" not in changed
    assert f"{len(realistic_result()['tests']) - 1} unchanged" in html
    # with only b, the previous attempt is compared; another student's attempt is not reachable
    assert client.get(f"/submissions/compare?b={s2.id}").status_code == 200
    bob_sub = web.submit(course["bob"])
    assert client.get(f"/submissions/compare?a={bob_sub.id}&b={s2.id}").status_code == 404


def test_deadline_is_marked_for_local_time_with_a_countdown_then_days_late(client, web, course):
    a = course["assignment"]
    a.deadline = utcnow() + timedelta(days=2, hours=5, minutes=30)
    db.session.commit()
    web.login(client, course["alice"])
    client.get("/lang/en")
    html = client.get("/").get_data(as_text=True)
    assert re.search(r'<time datetime="[0-9T:.-]+Z" data-local="long">', html)
    assert re.search(r"2 d 5 h (29|30) min left", html)
    a.deadline = utcnow() - timedelta(days=1, hours=2)
    db.session.commit()
    assert "late by 2 day(s)" in client.get("/").get_data(as_text=True)


def test_api_docs_render_backticks_and_document_wait(client):
    html = client.get("/api/v1/docs").get_data(as_text=True)
    assert "`" not in re.sub(r"<pre.*?</pre>", "", html, flags=re.S)
    assert "<code>Authorization: Bearer &lt;token&gt;</code>" in html
    assert "<code>wait</code>" in html and "?wait=20" in html


def test_student_pages_have_one_h1_a_skip_link_and_no_empty_header_cells(client, web, course):
    s1, s2 = _two_graded_attempts(client, web, course["alice"])
    for url in ("/", f"/submissions/{s2.id}", f"/submissions/compare?a={s1.id}&b={s2.id}", "/account/tokens",
                "/submissions/999999"):
        html = client.get(url).get_data(as_text=True)
        assert len(re.findall(r"<h1[\s>]", html)) == 1, url          # the contract's own "#" becomes <h3>
        assert re.search(r'<a class="skip-link" href="#main">', html) and 'id="main"' in html, url
        assert not re.search(r"<th[^>]*>\s*</th>", html), url


def test_a_long_or_pathlike_file_name_is_reduced_to_a_safe_label_not_a_500(client, course, factory):
    """A 300-character name used to give a 500 (an HTML page under /api/) and an orphaned blob."""
    from app.views_helpers import MAX_FILENAME_CHARS, safe_filename

    token = factory.token(course["alice"])
    name = "C:/Users/学生/" + "注意力" * 100 + "\x07.py"
    resp = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                       data={"code": (io.BytesIO(GOOD_CODE), name)}, content_type="multipart/form-data")
    assert resp.status_code == 202, resp.get_json()
    sub = db.session.get(Submission, resp.get_json()["id"])
    assert len(sub.code_filename) <= MAX_FILENAME_CHARS and sub.code_filename.endswith(".py")
    assert sub.code_filename.startswith("注意力") and "\\" not in sub.code_filename and "\x07" not in sub.code_filename
    assert safe_filename("../../etc/passwd") == "passwd" and safe_filename("\x00") == "upload"
    assert safe_filename("D:\\work\\attention.py") == "attention.py"


def test_the_whole_load_error_is_shown_and_its_line_is_found_as_python_numbers_lines(client, web, course):
    """The engine's ``load_error`` (hint and notes included) is shown whole: cutting the joined message
    at its first "; " dropped the list of allowed packages. The highlighted line is Python's line: a
    form feed or U+2028 in a comment ends no line for Python (``str.splitlines`` would shift it)."""
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    code = "import torch  # \x0c page break \u2028 here\nimport seaborn\nx = 1\n".encode()
    sub = submit(course["assignment"], course["alice"], Upload("attention.py", code),
                 store=BlobStore(web.app.config["UPLOAD_DIR"]), max_pending=0)
    result = load_failure_result(True)
    load_error = {"en": "ModuleNotFoundError at line 2: No module named 'seaborn'; the grader has only torch, "
                        "numpy, einops and the standard library",
                  "zh": "第 2 行出现 ModuleNotFoundError：No module named 'seaborn'；评分环境只有 torch、numpy、"
                        "einops 和标准库"}
    result["load_error"] = load_error
    result["message"] = {lang: f"attention.py did not load: {text}; the audit PDF had an unreadable page"
                         for lang, text in load_error.items()}
    web.grade(sub, result)
    web.login(client, course["alice"])
    client.get("/lang/en")
    en = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    shown = en[en.index('id="load-error"'):en.index('id="tests-title"')]
    assert "the grader has only torch, numpy, einops and the standard library" in shown
    assert "unreadable page" not in shown
    assert re.search(r'<span class="hit"><span class="ln" aria-hidden="true">2</span>import seaborn', shown)
    client.get("/lang/zh")
    zh = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert "评分环境只有 torch、numpy、einops 和标准库" in zh
