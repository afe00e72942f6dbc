"""End to end in a real browser: a student uploads and watches grading live; an instructor
regrades and exports the gradebook. Screenshots of the main pages go to docs/screenshots/."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import GradingRun, Submission, utcnow
from tests.audit.helpers import make_heatmap
from tests.browser.helpers import SCREENSHOTS, FakeWorker, full_result
from tests.factories import PASSWORD
from tests.web.helpers import GOOD_CODE

pytestmark = pytest.mark.browser

AUDIT = (
    "# Attention 审计\n\n"
    "手算例子（B=H=1、Nq=2、Nk=3、dk=2）的权重见右图，每一行的和为 1（row_sum_error = 6e-08）。\n\n"
    "| query | k0 | k1 | k2 |\n|---|---|---|---|\n| q0 | 0.212 | 0.576 | 0.212 |\n| q1 | 0.107 | 0.787 | 0.107 |\n\n"
    "与 `torch.nn.functional.scaled_dot_product_attention` 比较，max_abs_error = 2.1e-07。\n\n"
    "模型知道 key 2 很重要。\n"
).encode()


def heatmap_png() -> bytes:
    return make_heatmap()


def seed_class(web, factory, assignment, n: int = 12) -> None:
    """A few classmates with graded attempts so the dashboard has something to show."""
    failing_sets = [(), ("test_blocked_key_gets_zero_weight",), ("test_large_logits_stable", "test_dtype_preserved"),
                    ("test_blocked_key_gets_zero_weight", "test_mask_broadcasts_over_batch_and_heads",
                     "test_padding_keys_get_zero_weight"), ("test_mha_custom_head_dim",)]
    names = ["王芳", "李雷", "张伟", "刘洋", "陈静", "杨磊", "赵敏", "黄晓明", "周杰", "吴婷", "徐涛", "孙丽"]
    for i in range(n):
        s = factory.student(email=f"stu{i:02d}@example.edu", name=names[i % len(names)])
        for k in range(1 + i % 3):
            sub = web.submit(s, assignment, audit=False, figure=False,
                             now=utcnow() - timedelta(hours=10 - k, minutes=i))
            web.grade(sub, full_result(failing=failing_sets[(i + k) % len(failing_sets)],
                                       audit_score=6 + (i * 3) % 10))
    db.session.commit()


def login(page, base: str, email: str) -> None:
    page.goto(f"{base}/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")


def test_student_uploads_watches_status_and_reads_result(app, web, factory, live_server, browser, tmp_path):
    a = factory.assignment()
    a.deadline = utcnow() + timedelta(days=5)
    db.session.commit()
    alice = factory.student(email="alice@example.edu", name="王小明")
    # someone else is already waiting: Alice sees a queue position of 1 at first
    other = factory.student(email="early@example.edu", name="早到的同学")
    early = web.submit(other, a, audit=False, figure=False, now=utcnow() - timedelta(seconds=30))

    (tmp_path / "attention.py").write_bytes(GOOD_CODE)
    (tmp_path / "audit.md").write_bytes(AUDIT)
    (tmp_path / "attention.png").write_bytes(heatmap_png())

    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    login(page, live_server, alice.email)
    page.wait_for_selector("text=提交作业")
    assert "截止时间与迟交规则" in page.content()
    page.set_input_files("input[name=code]", str(tmp_path / "attention.py"))
    page.set_input_files("input[name=audit]", str(tmp_path / "audit.md"))
    page.set_input_files("input[name=figure]", str(tmp_path / "attention.png"))
    page.click("form[data-dropform] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    badge = page.locator("[data-badge]")
    assert badge.inner_text() == "排队中"
    assert "队列中你前面还有 1 个提交" in page.locator("[data-detail]").inner_text()

    db.session.expire_all()
    sub = db.session.query(Submission).filter_by(student_id=alice.id).one()
    # the earlier run is graded first, then Alice's: she moves up, then runs, then is graded
    web.grade(early, full_result())
    expect(page.locator("[data-detail]")).to_contain_text("下一个就轮到你", timeout=10000)
    worker = FakeWorker(app, sub.latest_run.id, full_result(failing=("test_blocked_key_gets_zero_weight",
                                                                     "test_large_logits_stable"))).start()
    expect(badge).to_have_text("评分中", timeout=10000)
    expect(badge).to_have_text("已评分", timeout=15000)
    worker.join()
    page.wait_for_selector("[data-total]", timeout=10000)
    # the result appeared without reloading the page
    total = page.locator("[data-total]").inner_text()
    assert total == "90 / 100"  # 100 − 4 (mask test) − 2 (hidden large-logits test) − 4 (audit 11/15)
    text = page.locator("#result").inner_text()
    assert "query 0 still gives key 2 weight" in text            # visible failed test feedback
    assert "NaN in the weights" not in text                      # hidden test feedback never shown
    assert "隐藏测试：只显示是否通过。" in text
    assert "说明图不能证明什么" in text and "把权重当成了因果重要性" in text
    assert page.locator("table.heat").count() == 2
    img = page.locator(".figure img")
    assert img.evaluate("el => el.complete && el.naturalWidth > 0")
    # (the student pages' screenshots, at 1280 and 390 px, come from test_student_pages_browser.py)
    page.close()


def test_instructor_regrades_and_exports_gradebook(app, web, factory, live_server, browser):
    from worker.heartbeat import beat

    a = factory.assignment()
    teacher = factory.instructor(email="teacher@example.edu", name="李老师")
    seed_class(web, factory, a)
    alice = factory.student(email="alice@example.edu", name="王小明")
    sub = web.submit(alice, a)
    web.grade(sub, full_result(grader_version="attn-2026.11.1"))
    web.submit(factory.student(email="late@example.edu", name="排队的同学"), a, audit=False, figure=False)
    beat("grader-1@lab-server", "attn-2026.11.2")

    ctx = browser.new_context(viewport={"width": 1360, "height": 1000}, locale="en-US", accept_downloads=True)
    page = ctx.new_page()
    login(page, live_server, teacher.email)
    page.wait_for_url(f"{live_server}/instructor/")
    assert page.locator("#class-table tbody tr").count() == 14
    assert "grader-1@lab-server" in page.content()
    page.screenshot(path=str(SCREENSHOTS / "instructor_dashboard.png"), full_page=True)

    page.click("text=王小明")
    page.click(f"#attempt-{sub.attempt} > summary")          # attempts are collapsed by default
    page.wait_for_selector("text=Audit review")
    page.fill(f"#attempt-{sub.attempt} input[name=score]", "14")
    page.fill(f"#attempt-{sub.attempt} textarea[name=comment]", "解释清楚，但“很重要”一句需要改写。")
    page.click("text=Save review")
    page.wait_for_selector("text=Audit review saved.")
    page.screenshot(path=str(SCREENSHOTS / "instructor_student.png"), full_page=True)

    # regrade this submission, behind a confirmation; the "worker" grades it with a new grader
    # version that finds a bug, and the batch page follows without a reload
    page.locator(f"#attempt-{sub.attempt} a:has-text('Regrade')").click()
    page.wait_for_selector("text=1 run(s) will be queued.")
    page.click("text=Queue 1 run(s)")
    page.wait_for_url("**/instructor/regrades/*")
    expect(page.locator("[data-count=queued]")).to_have_text("1")
    db.session.expire_all()
    run = db.session.query(GradingRun).filter(GradingRun.submission_id == sub.id).order_by(GradingRun.id.desc()).first()
    assert run.trigger.startswith("batch:") and run.status == "queued"
    FakeWorker(app, run.id, full_result(failing=("test_mha_weights_per_head",), grader_version="attn-2026.11.2"),
               delay_running=0.1, delay_graded=0.1).start().join()
    expect(page.locator("[data-delta]")).to_have_text("-2", timeout=10000)
    expect(page.locator("[data-changed]")).to_have_text("王小明")
    page.screenshot(path=str(SCREENSHOTS / "instructor_regrades.png"), full_page=True)

    page.goto(f"{live_server}/instructor/")
    with page.expect_download() as dl:
        page.click("a[href$='gradebook.csv?a=attention']")
    data = open(dl.value.path(), "rb").read()
    assert data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    alice_row = next(r for r in rows if r[0] == "alice@example.edu")
    assert alice_row[1] == "王小明"
    # regraded total 94 (a hidden test now fails, −2) with the audit review 14 instead of 11: 97
    assert alice_row[2] == "97" and alice_row[6] == "14"
    ctx.close()
