"""What a user of `make run` does, end to end: the real `autograder run` (web + Celery worker on the
no-server default), real Chromium, real grading in the sandbox. Nothing is simulated."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.audit.helpers import make_heatmap
from tests.browser.helpers import SCREENSHOTS
from tests.workers import BIN, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PASSWORD = "demo-password"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def heatmap_png() -> bytes:
    return make_heatmap()


@pytest.fixture
def served(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY")}
    env["DATA_DIR"] = str(tmp_path / "data")
    for args in (["db", "upgrade"], ["demo"]):
        assert subprocess.run([str(BIN), *args], env=env, capture_output=True).returncode == 0
    port = free_port()
    log = open(tmp_path / "run.log", "wb")
    proc = subprocess.Popen([str(BIN), "run", "--port", str(port), "--concurrency", "1"], env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            import json

            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as r:
                return json.load(r)["workers"]["ok"]
        except OSError:
            return False

    try:
        wait_for(healthy, 90, interval=0.5, what="web server and a live worker")
        yield base
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        log.close()


def sign_in(page, base: str, email: str) -> None:
    page.goto(f"{base}/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_load_state()


def test_a_student_uploads_and_reads_a_real_grade_then_the_instructor_sees_it(served, browser, tmp_path):
    figure = tmp_path / "heatmap.png"
    figure.write_bytes(heatmap_png())
    page = browser.new_page(locale="zh-CN")
    sign_in(page, served, "alice@example.edu")
    page.set_input_files("input[name=code]", str(FIXTURES / "submissions" / "faulty" / "mask_after_softmax.py"))
    page.set_input_files("input[name=audit]", str(FIXTURES / "audits" / "zh_thorough.md"))
    page.set_input_files("input[name=figure]", str(figure))
    page.click("form[enctype] button[type=submit]")
    page.wait_for_url("**/submissions/*")
    t0 = time.monotonic()
    # The page updates itself (no reload) when the worker has stored the run.
    page.wait_for_selector("text=测量值", timeout=60_000)
    graded_after = time.monotonic() - t0
    body = page.inner_text("body")
    assert "已评分" in body
    # the diagnosis, in the student's language (the engine's feedback is bilingual)
    assert "应在 softmax 之前把 mask 加到 score 上" in body, "actionable feedback is shown"
    assert graded_after < 30
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "real_run_student_result.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 900})
    page.screenshot(path=str(SCREENSHOTS / "real_run_student_result_390.png"), full_page=True)

    teacher = browser.new_page(locale="en-US")
    sign_in(teacher, served, "teacher@example.edu")
    teacher.goto(f"{served}/instructor/")
    row = teacher.locator("tr", has_text="alice@example.edu")
    assert "graded" in row.inner_text()
    csv = teacher.request.get(f"{served}/instructor/gradebook.csv")
    assert csv.ok and "alice@example.edu" in csv.text()
