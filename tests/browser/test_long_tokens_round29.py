"""Round 29, in Chromium at 360 px: an unbroken 120-character name or file name (the longest either may be)
cuts nothing off at the screen's edge on the student's and the instructor's pages."""

from __future__ import annotations

import pytest

from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.browser.a11y import overflow
from tests.browser.test_browser_flows import login
from tests.web.helpers import AUDIT_MD, GOOD_CODE, png_bytes, realistic_result

pytestmark = pytest.mark.browser

LONG_NAME = "王" + "x" * 119
LONG_FILE = "a" * 117 + ".py"


def test_long_unbroken_names_stay_on_a_360px_phone(app, web, factory, live_server, browser):
    a = factory.assignment()
    teacher = factory.instructor(email="teacher@example.edu", name="李老师")
    alice = factory.student(email="alice@example.edu", name=LONG_NAME)
    sub = submit(a, alice, Upload(LONG_FILE, GOOD_CODE), Upload("b" * 117 + ".md", AUDIT_MD),
                 Upload("c" * 116 + ".png", png_bytes()), store=BlobStore(app.config["UPLOAD_DIR"]), max_pending=0)
    web.grade(sub, realistic_result())
    seen = {}
    for who, paths in ((alice, ["/assignments/attention", f"/submissions/{sub.id}"]),
                       (teacher, ["/instructor/", f"/instructor/students/{alice.id}", "/instructor/roster",
                                  "/instructor/settings"])):
        ctx = browser.new_context(viewport={"width": 360, "height": 800}, locale="zh-CN")
        page = ctx.new_page()
        login(page, live_server, who.email)
        page.wait_for_load_state()
        for path in paths:
            page.goto(f"{live_server}{path}")
            seen[path] = overflow(page)
        ctx.close()
    bad = {p: o for p, o in seen.items() if o}
    assert bad == {}, "\n".join(f"{p}: {o}" for p, o in bad.items())
