"""Issue 11 in Chromium, at desktop (1280 px) and phone (390 px) width: every page of both roles in
both languages passes axe-core with no serious or critical violation and nothing is cut off; the
student flows (upload checks before uploading, files kept after a refusal, confirmation without an
audit, load failure first, counted attempt, comparison, local deadline) work as a student uses them."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Submission, utcnow
from tests.browser.a11y import axe_violations, overflow
from tests.browser.helpers import SCREENSHOTS, FakeWorker, full_result
from tests.browser.test_browser_flows import login
from tests.web.helpers import GOOD_CODE

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": 1280, "phone": 390}
BROKEN = b"import torch\nclass ScaledDotProductAttention(torch.nn.Module)\n    pass\n"


def load_failure(result: dict) -> dict:
    for t in result["tests"]:
        t.update(outcome="failed", points=0, feedback="not run: attention.py did not load")
    for name in ("formula_shape", "implementation", "mask_parity"):
        result["categories"][name]["score"] = 0
    result["total"] = result["categories"]["audit"]["score"]
    result["message"] = "attention.py did not load: SyntaxError at line 2: expected ':'"
    result["measurements"], result["example_weights"]["student"] = {}, None
    return result


def seed(web, factory) -> dict:
    """A student with three graded attempts (one that did not load), a classmate, an instructor."""
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    a = factory.assignment()
    a.deadline = utcnow() + timedelta(days=2, hours=3)
    db.session.commit()
    alice = factory.student(email="alice@example.edu", name="王小明")
    teacher = factory.instructor(email="teacher@example.edu", name="李老师")
    s1 = web.submit(alice, a, now=utcnow() - timedelta(hours=5))
    web.grade(s1, full_result(failing=("test_blocked_key_gets_zero_weight", "test_large_logits_stable")))
    s2 = submit(a, alice, Upload("attention.py", BROKEN), store=BlobStore(web.app.config["UPLOAD_DIR"]),
                max_pending=0, now=utcnow() - timedelta(hours=4))
    web.grade(s2, load_failure(full_result()))
    s3 = web.submit(alice, a, audit=False, figure=False, now=utcnow() - timedelta(hours=3))
    web.grade(s3, full_result(failing=("test_large_logits_stable",)))
    bob = factory.student(email="bob@example.edu", name="Bob")
    web.grade(web.submit(bob, a, now=utcnow() - timedelta(hours=2)), full_result())
    return {"assignment": a, "alice": alice, "teacher": teacher, "subs": (s1, s2, s3), "bob": bob}


def pages_of(role: str, data: dict) -> list[str]:
    s1, s2, s3 = data["subs"]
    if role == "student":
        return ["/", f"/submissions/{s3.id}", f"/submissions/{s2.id}",
                f"/submissions/compare?a={s1.id}&b={s3.id}", "/account/tokens", "/api/v1/docs",
                "/submissions/999999"]
    return ["/instructor/", f"/instructor/students/{data['alice'].id}", "/instructor/tests/test_large_logits_stable",
            "/instructor/settings", "/instructor/log", "/instructor/regrade?scope=all", "/instructor/regrades",
            "/instructor/roster", "/instructor/similarity", f"/submissions/{s1.id}",
            f"/submissions/compare?a={s1.id}&b={s3.id}", "/account/tokens", "/instructor/nothing-here"]


def test_every_page_passes_axe_and_fits_for_both_roles_and_languages(app, web, factory, live_server, browser):
    data = seed(web, factory)
    problems: list[str] = []
    for role, email in (("student", "alice@example.edu"), ("instructor", "teacher@example.edu")):
        for lang, locale in (("zh", "zh-CN"), ("en", "en-US")):
            for name, width in WIDTHS.items():
                ctx = browser.new_context(viewport={"width": width, "height": 900}, locale=locale,
                                          bypass_csp=True, timezone_id="Asia/Shanghai")
                page = ctx.new_page()
                login(page, live_server, email)
                page.wait_for_load_state()
                page.goto(f"{live_server}/lang/{lang}")
                for path in pages_of(role, data):
                    resp = page.goto(f"{live_server}{path}")
                    page.wait_for_load_state()
                    where = f"{role}/{lang}/{name} {path}"
                    expected = 404 if path.endswith(("nothing-here", "999999")) else 200
                    if resp.status != expected:
                        problems.append(f"{where}: status {resp.status}, expected {expected}")
                    for v in axe_violations(page):
                        problems.append(f"{where}: {v['impact']} {v['id']} ({v['help']}): {v['nodes']}")
                    if width < 500:
                        problems.extend(f"{where}: cut off: {o}" for o in overflow(page))
                ctx.close()
    assert problems == [], "\n".join(problems)


def new_page(browser, width: int, locale: str):
    ctx = browser.new_context(viewport={"width": width, "height": 900}, locale=locale, bypass_csp=True,
                              timezone_id="Asia/Shanghai")
    return ctx, ctx.new_page()


def check_page(page, problems: list[str], where: str) -> None:
    problems.extend(f"{where}: {v['impact']} {v['id']}: {v['nodes']}" for v in axe_violations(page))
    problems.extend(f"{where}: cut off: {o}" for o in overflow(page))


def shot(page, name: str, width: int) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}_{width}.png"), full_page=True)


@pytest.mark.parametrize(("width", "locale"), [(1280, "en-US"), (390, "zh-CN")], ids=["desktop-en", "phone-zh"])
def test_student_resubmits_code_only_and_keeps_the_audit(app, web, factory, live_server, browser, tmp_path,
                                                         width, locale):
    zh = locale.startswith("zh")
    a = factory.assignment()
    a.deadline = utcnow() + timedelta(days=2, hours=3, minutes=20)
    db.session.commit()
    alice = factory.student(email="alice@example.edu", name="王小明")
    first = web.submit(alice, a, now=utcnow() - timedelta(hours=5))        # code, audit and figure
    web.grade(first, full_result(failing=("test_blocked_key_gets_zero_weight",)))
    problems: list[str] = []
    ctx, page = new_page(browser, width, locale)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and "/submit" in r.url else None)
    login(page, live_server, alice.email)
    page.wait_for_selector("form[data-dropform]")

    # the deadline in the viewer's time zone (Asia/Shanghai here), with a countdown
    deadline = page.locator("#deadline-title + dl time").first
    assert "UTC" not in deadline.inner_text() and "UTC" in deadline.get_attribute("title")
    assert "GMT+8" in deadline.inner_text()
    expect(page.locator(".countdown")).to_contain_text("还剩 2 天 3 小时" if zh else "2 d 3 h")
    # the form says the audit is kept and what it is worth
    assert ("沿用" in page.inner_text("body") or "保留你第 1 次提交的审计" in page.inner_text("body")) if zh else \
        "your audit from attempt 1 (audit.md) is kept" in page.inner_text("body")
    check_page(page, problems, "assignment")
    shot(page, "student_assignment", width)

    # checks in the browser: nothing is uploaded for an empty file, a wrong type or a file too large
    (tmp_path / "attention.py").write_bytes(b"")
    page.set_input_files("input[name=code]", str(tmp_path / "attention.py"))
    page.click("form[data-dropform] button[type=submit]")
    expect(page.locator("#upload-error")).to_contain_text("空文件" if zh else "attention.py is empty")
    page.set_input_files("input[name=code]", {"name": "attention.py", "mimeType": "text/x-python",
                                               "buffer": b"#" * (app.config["MAX_CONTENT_LENGTH"] + 1)})
    page.click("form[data-dropform] button[type=submit]")
    expect(page.locator("#upload-error")).to_contain_text("MiB")
    page.set_input_files("input[name=code]", {"name": "attention.txt", "mimeType": "text/plain", "buffer": b"x"})
    page.click("form[data-dropform] button[type=submit]")
    expect(page.locator("#upload-error")).to_contain_text(".py")
    assert posts == []

    # a refusal by the server (the cooldown) keeps the chosen files
    a.cooldown_seconds = 10 * 24 * 3600
    db.session.commit()
    (tmp_path / "attention.py").write_bytes(GOOD_CODE)
    page.set_input_files("input[name=code]", str(tmp_path / "attention.py"))
    page.click("form[data-dropform] button[type=submit]")
    expect(page.locator("#upload-error")).to_contain_text("请等待" if zh else "Please wait")
    assert len(posts) == 1
    assert page.eval_on_selector("input[name=code]", "el => el.files.length && el.files[0].name") == "attention.py"
    a.cooldown_seconds = 0
    db.session.commit()

    # removing the kept audit asks for a confirmation first (nothing is sent)
    page.check("input[name=remove_audit]")
    page.click("form[data-dropform] button[type=submit]")
    expect(page.locator("#confirm-no-audit")).to_be_visible()
    assert len(posts) == 1
    page.uncheck("input[name=remove_audit]")

    # code only: the audit and figure of attempt 1 are carried forward, and graded again
    page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    expect(page.locator(".badge.carried").first).to_contain_text("1")
    banner = page.locator("[data-until-final]")
    expect(banner).to_be_visible()
    db.session.expire_all()
    second = db.session.query(Submission).filter_by(student_id=alice.id, attempt=2).one()
    assert second.audit_from_attempt == 1 and second.figure_from_attempt == 1
    FakeWorker(app, second.latest_run.id, full_result(), delay_running=0.3, delay_graded=0.5).start().join()
    page.wait_for_selector("[data-total]", timeout=15000)
    expect(banner).to_have_count(0)                    # the "submitted" banner went away when graded
    expect(page.locator("#result .carried").first).to_be_visible()
    assert "UTC" not in page.locator("#result time").first.inner_text()   # local time in the live result too
    check_page(page, problems, "result")
    shot(page, "student_result", width)

    # the attempt that counts is marked; the two attempts side by side
    page.goto(f"{live_server}/")
    expect(page.locator("tr.counted .badge.counts")).to_have_count(1)
    page.click(".compare-form button[type=submit]")
    page.wait_for_url("**/submissions/compare*")
    expect(page.locator("h1")).to_contain_text("1")
    assert "test_blocked_key_gets_zero_weight" in page.inner_text("main")
    check_page(page, problems, "compare")
    shot(page, "student_compare", width)
    ctx.close()
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(("width", "locale"), [(1280, "en-US"), (390, "zh-CN")], ids=["desktop-en", "phone-zh"])
def test_a_file_that_does_not_load_shows_its_error_first(app, web, factory, live_server, browser, width, locale):
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    a = factory.assignment()
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = submit(a, alice, Upload("attention.py", BROKEN), store=BlobStore(app.config["UPLOAD_DIR"]), max_pending=0)
    result = load_failure(full_result())
    result["message"] = {"en": result["message"], "zh": "attention.py 无法导入：第 2 行出现 SyntaxError：expected ':'"}
    web.grade(sub, result)
    ctx, page = new_page(browser, width, locale)
    login(page, live_server, alice.email)
    page.goto(f"{live_server}/submissions/{sub.id}")
    box = page.locator("#load-error")
    expect(box).to_contain_text("第 2 行出现 SyntaxError" if locale == "zh-CN" else "SyntaxError at line 2")
    expect(box.locator(".hit")).to_contain_text("class ScaledDotProductAttention(torch.nn.Module)")
    # the message is above the fold and the "not run" rows are folded away under it
    assert box.bounding_box()["y"] < 900
    expect(page.locator("table.tests")).not_to_be_visible()
    problems: list[str] = []
    check_page(page, problems, "load error")
    shot(page, "student_load_error", width)
    page.locator("#tests-title + details > summary").click()
    expect(page.locator("table.tests")).to_be_visible()
    ctx.close()
    assert problems == [], "\n".join(problems)


def test_sign_in_limit_shows_a_styled_page_with_the_wait_time(limited_app, course, browser):
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, limited_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        for width, locale, words in ((390, "zh-CN", "秒后再试"), (1280, "en-US", "You can try again in")):
            ctx, page = new_page(browser, width, locale)
            for _ in range(5):  # the limit is 3 sign-ins a minute from one address
                page.goto(f"{base}/login")
                page.fill("input[name=email]", "alice@example.edu")
                page.fill("input[name=password]", "wrong password")
                page.click("button[type=submit]")
                if page.locator("[data-retry-after]").count():
                    break
            expect(page.locator("[data-retry-after]")).to_contain_text(words)
            expect(page.locator("a.button").last).to_be_visible()        # a way back
            problems: list[str] = []
            check_page(page, problems, f"429 {locale}")
            assert problems == [], "\n".join(problems)
            shot(page, "error_429", width)
            ctx.close()
    finally:
        server.shutdown()
        thread.join(timeout=5)
