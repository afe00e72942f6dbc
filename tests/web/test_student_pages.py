"""Student pages: the assignment, the upload form, the live submission page and the result."""

from __future__ import annotations

import io
from datetime import timedelta

from app.extensions import db
from app.models import Blob, Submission, utcnow
from tests.web.helpers import AUDIT_MD, GOOD_CODE, png_bytes, realistic_result


def form_upload(client, slug="attention", code=GOOD_CODE, name="attention.py", **extra):
    # Code alone needs the "submit without an audit" confirmation; tests of that pass it explicitly.
    data = {"code": (io.BytesIO(code), name), "confirm_no_audit": "1"}
    data.update(extra)
    return client.post(f"/assignments/{slug}/submit", data=data, content_type="multipart/form-data")


def test_anonymous_home_redirects_to_sign_in(client, course):
    resp = client.get("/")
    assert resp.status_code == 302 and "/login" in resp.headers["Location"]


def test_sign_in_page_renders_and_wrong_password_is_refused(client, course):
    assert client.get("/login").status_code == 200
    resp = client.post("/login", data={"email": "alice@example.edu", "password": "nope"})
    assert resp.status_code == 200
    assert "密码" in resp.get_data(as_text=True) or "password" in resp.get_data(as_text=True)


def test_home_shows_assignment_contract_deadline_and_rubric(client, web, course):
    a = course["assignment"]
    a.deadline = utcnow() + timedelta(days=3)
    db.session.commit()
    web.login(client, course["alice"])
    html = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Submit an attempt" in html
    # the policy text states what app/scores.py computes: 10 % of the attempt's score per started day
    assert "Late penalty" in html
    assert "takes 10% of the attempt's score off: 85 points submitted 2 days late count as 68." in html
    for label, pts in (("Formula and shapes", 25), ("Implementation", 30), ("Mask and reference parity", 30),
                       ("Audit explanation", 15)):
        assert label in html and f">{pts}<" in html
    assert "ScaledDotProductAttention" in html  # the contract (ASSIGNMENT.md or the built-in summary)
    assert client.get("/assignments/attention").status_code == 200
    assert client.get("/assignments/missing").status_code == 404


def test_instructor_home_goes_to_dashboard(client, web, course):
    web.login(client, course["teacher"])
    resp = client.get("/")
    assert resp.status_code == 302 and resp.headers["Location"].endswith("/instructor/")


def test_upload_form_creates_submission_and_redirects_to_it(client, web, course):
    web.login(client, course["alice"])
    resp = form_upload(client, audit=(io.BytesIO(AUDIT_MD), "audit.md"), figure=(io.BytesIO(png_bytes()), "fig.png"))
    assert resp.status_code == 302
    sub = db.session.query(Submission).one()
    assert resp.headers["Location"].endswith(f"/submissions/{sub.id}")
    assert sub.audit_filename == "audit.md" and sub.figure_filename == "fig.png"
    page = client.get(f"/submissions/{sub.id}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "queued" in page and "You are next in the queue." in page


def test_upload_without_code_shows_message_in_user_language(client, web, course):
    web.login(client, course["alice"])
    resp = client.post("/assignments/attention/submit", data={}, content_type="multipart/form-data",
                       headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    assert resp.status_code == 400
    assert "必须上传 attention.py" in resp.get_data(as_text=True)
    client.get("/lang/en")
    resp = client.post("/assignments/attention/submit", data={}, content_type="multipart/form-data")
    assert "attention.py is required." in resp.get_data(as_text=True)


def test_bad_audit_type_is_refused_on_the_form_and_nothing_is_stored(client, web, course):
    web.login(client, course["alice"])
    client.get("/lang/en")
    resp = form_upload(client, audit=(io.BytesIO(b"hello"), "audit.docx"))
    assert resp.status_code == 415
    assert "The audit must be Markdown" in resp.get_data(as_text=True)
    assert db.session.query(Submission).count() == 0 and db.session.query(Blob).count() == 0


def test_form_upload_over_size_limit_is_413(client, web, course, app):
    app.config["MAX_CONTENT_LENGTH"] = 32 * 1024
    web.login(client, course["alice"])
    resp = form_upload(client, code=b"# x\n" * 20000)
    assert resp.status_code == 413
    assert "上传的文件太大" in resp.get_data(as_text=True)
    assert db.session.query(Submission).count() == 0


def test_status_endpoint_reports_queue_position_then_grade(client, web, course):
    s1 = web.submit(course["bob"])
    s2 = web.submit(course["alice"], now=s1.created_at + timedelta(seconds=2))
    web.login(client, course["alice"])
    st = client.get(f"/submissions/{s2.id}/status").json
    assert st["status"] == "queued" and st["queue_position"] == 1
    run = s2.latest_run
    run.status, s2.status = "running", "running"
    db.session.commit()
    st = client.get(f"/submissions/{s2.id}/status").json
    assert st["status"] == "running" and st["queue_position"] is None
    web.grade(s2)
    st = client.get(f"/submissions/{s2.id}/status").json
    assert st["status"] == "graded" and st["total"] == 96 and st["graded_run_id"] == run.id


def test_result_page_shows_total_categories_tests_audit_measurements_heatmap(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub, realistic_result(fail_mask=True))
    web.login(client, course["alice"])
    client.get("/lang/en")
    html = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert ">92 <small>/ 100" in html
    assert "Formula and shapes" in html and "26 <span class=\"muted small\">/ 30" in html
    assert "key 2 still gets weight 0.31 from query 0" in html      # visible feedback
    assert "test_gradients_match_reference" in html                  # hidden test: listed...
    assert "SECRET" not in html and "GRADER LOG" not in html         # ...without its feedback or the log
    assert "Hidden test: only pass/fail is shown." in html
    assert "Reports row sums" in html and "missing" in html and "found" in html
    assert "The audit claims error 0" in html                        # contradiction flag
    assert "max_abs_error" in html and "2.10e-07" in html
    assert html.count('class="heat"') == 2 and "0.46" in html        # yours + reference
    assert f"/submissions/{sub.id}/figure" in html
    assert "热力图" in html and "<strong>不能</strong>" in html         # audit rendered from Markdown
    frag = client.get(f"/submissions/{sub.id}/result").get_data(as_text=True)
    assert "Tests" in frag and "<html" not in frag


def test_result_page_in_chinese_uses_zh_audit_feedback(client, web, course):
    sub = web.submit(course["alice"])
    web.grade(sub)
    web.login(client, course["alice"])
    html = client.get(f"/submissions/{sub.id}", headers={"Accept-Language": "zh-CN"}).get_data(as_text=True)
    assert "报告行和" in html and "审计称误差为 0" in html
    assert "得分" in html or "分数" in html


def test_instructor_audit_review_overrides_audit_category_with_reviewer(client, web, course):
    from app.models import AuditReview

    sub = web.submit(course["alice"])
    web.grade(sub)
    db.session.add(AuditReview(submission_id=sub.id, reviewer_id=course["teacher"].id, score=15, comment="清楚"))
    db.session.commit()
    web.login(client, course["alice"])
    client.get("/lang/en")
    html = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert ">100 <small>/ 100" in html
    assert "by <bdi>Teacher Li</bdi>" in html and "automatic: 11" in html and "清楚" in html


def test_late_penalty_is_shown_and_applied(client, web, course):
    a = course["assignment"]
    a.deadline = utcnow() - timedelta(hours=30)  # two started days late
    db.session.commit()
    sub = web.submit(course["alice"])
    assert sub.late_days == 2
    web.grade(sub)
    web.login(client, course["alice"])
    client.get("/lang/en")
    html = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert ">76.8 <small>/ 100" in html   # 96 × (1 − 2 × 0.1)
    assert "2 day(s) late" in html and "19.2" in html
    home = client.get("/").get_data(as_text=True)
    assert "2 d late (−20%)" in home


def test_history_lists_attempts_with_scores(client, web, course):
    s1 = web.submit(course["alice"])
    web.grade(s1, realistic_result(fail_mask=True))
    s2 = web.submit(course["alice"])
    web.login(client, course["alice"])
    html = client.get("/").get_data(as_text=True)
    assert f"/submissions/{s1.id}" in html and f"/submissions/{s2.id}" in html
    assert "<strong>92</strong>" in html


def test_regraded_submission_shows_run_history_with_versions(client, web, course):
    from app.regrading import request_regrade

    sub = web.submit(course["alice"])
    web.grade(sub, realistic_result(grader_version="v1"))
    run2 = request_regrade(sub)
    web.grade(sub, realistic_result(grader_version="v2", fail_mask=True), run=run2)
    web.login(client, course["alice"])
    html = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    assert "<code>v1</code>" in html and "<code>v2</code>" in html
    assert ">92 <small>" in html


def test_figure_and_audit_are_served_only_through_authorised_routes(client, web, course):
    sub = web.submit(course["alice"])
    web.login(client, course["alice"])
    fig = client.get(f"/submissions/{sub.id}/figure")
    assert fig.status_code == 200 and fig.mimetype == "image/png" and fig.data.startswith(b"\x89PNG")
    assert fig.headers["X-Content-Type-Options"] == "nosniff"
    audit = client.get(f"/submissions/{sub.id}/audit")
    assert audit.status_code == 200 and "attachment" in audit.headers["Content-Disposition"]
    code = client.get(f"/submissions/{sub.id}/code")
    assert code.data == GOOD_CODE
    assert client.get(f"/static/../data/blobs/{sub.figure_sha256[:2]}/{sub.figure_sha256}").status_code == 404


def test_api_token_page_issues_a_token_that_works(client, web, course):
    web.login(client, course["alice"])
    html = client.post("/account/tokens").get_data(as_text=True)
    import re

    token = re.search(r'id="new-token">([^<]+)<', html).group(1)
    assert client.get("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_a_note_from_the_grader_is_shown_with_the_score_in_the_students_language(client, web, course):
    """A graded result's message (e.g. display packages imported as stand-ins) is no longer seen only
    by the API and the CLI."""
    sub = web.submit(course["alice"])
    note = {"en": "attention.py imports matplotlib: in the grader these are inert stand-ins.",
            "zh": "attention.py 导入了 matplotlib：评分器中它们只是不起作用的替身。"}
    web.grade(sub, {**realistic_result(), "message": note})
    web.login(client, course["alice"])
    client.get("/lang/en")
    assert note["en"] in client.get(f"/submissions/{sub.id}").get_data(as_text=True)
    client.get("/lang/zh")
    assert note["zh"] in client.get(f"/submissions/{sub.id}").get_data(as_text=True)


def _load_error_pages(client, web, course, code: str, load_error: dict) -> dict[str, str]:
    """The load-error box of a result page, per language, for ``code`` graded with ``load_error`` (every test
    not run, as the runner stores a file that did not load)."""
    import html as html_lib

    from app.storage import BlobStore
    from app.submitting import Upload, submit

    sub = submit(course["assignment"], course["alice"], Upload("attention.py", code.encode()),
                 store=BlobStore(web.app.config["UPLOAD_DIR"]), max_pending=0)
    result = realistic_result()
    for t in result["tests"]:
        t.update(outcome="failed", points=0,
                 feedback={"en": "not run: attention.py did not load", "zh": "未运行：attention.py 无法导入"})
    result["load_error"] = load_error
    web.grade(sub, result)
    return {lang: html_lib.unescape(page[page.index('id="load-error"'):page.index('id="tests-title"')])
            for lang, page in web.result_pages(client, course["alice"], sub.id).items()}


def test_an_indentation_error_page_shows_the_error_its_line_and_the_checked_hint_in_both_languages(client, web, course):
    """The load error as the engine builds it (grading.proxy.load_error_text with the source) reaches
    the result page whole: Python's words, the highlighted line, and the widths the hint read."""
    import re

    from grading.proxy import load_error_text
    from grading.sandbox import StudentError

    code = ("import torch\n\n\ndef scale(x):\n        y = x * 2\n      return y\n")   # 8 then 6 spaces
    error = StudentError("IndentationError", "unindent does not match any outer indentation level", 6)
    pages = _load_error_pages(client, web, course, code, load_error_text(error, source=code))
    for lang, says in (("en", ("IndentationError at line 6", "line 6 is indented by 6 spaces and line 5 before it "
                                                            "by 8: no enclosing block starts at 6 spaces")),
                       ("zh", ("第 6 行出现 IndentationError", "第 6 行缩进了 6 个空格，它前面的第 5 行缩进了 8 个"))):
        assert all(s in pages[lang] for s in says), pages[lang]
        assert re.search(r'<span class="hit"><span class="ln" aria-hidden="true">6</span>\s*return y', pages[lang])


def test_an_error_raised_at_import_by_a_demo_shows_its_line_the_calling_lines_and_the_missing_classes(client, web, course):
    """Round 18: a demo at the top level ran the student's method at import and it raised. The page shows
    Python's words and the highlighted line, the top-level lines that ran it, and that the file defines neither
    contract class (SDPA and MHA named as such), as the runner builds the load error, in both languages."""
    import re

    from grader_tests.attention.signature_note import load_note
    from grading.load_hints import then
    from grading.proxy import load_error_text
    from grading.sandbox import StudentError
    from tests.grading.helpers import SUBMISSIONS

    code = (SUBMISSIONS / "faulty" / "unloadable" / "demo_at_import_alt_names.py").read_text(encoding="utf-8")
    error = StudentError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (6x8 and 16x16)", 45)
    pages = _load_error_pages(client, web, course, code, then(load_error_text(error, source=code), load_note(code)))
    for lang, says in (("en", ("RuntimeError at line 45: mat1 and mat2 shapes cannot be multiplied",
                               "top-level code called it: lines 58, 59, 60", "It defines SDPA (class, line 9)")),
                       ("zh", ("第 45 行出现 RuntimeError", "顶层代码调用了它：第 58、59、60 行", "文件定义的是类 SDPA（第 9 行）"))):
        assert all(s in pages[lang] for s in says), pages[lang]
        assert re.search(r'<span class="hit"><span class="ln" aria-hidden="true">45</span>\s*k = self._split', pages[lang])
