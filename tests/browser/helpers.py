"""Helpers of the browser tests, imported as a module (fixtures stay in conftest.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from tests.helpers import rubric_result

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

ROOT = Path(__file__).resolve().parents[2]

# `make screenshots` refreshes the README's pictures; ordinary runs write to a temporary folder
# so that running the tests never dirties the work tree.
SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR") or tempfile.mkdtemp(prefix="autograder-shots-"))


def full_result(*, failing: tuple[str, ...] = (), grader_version: str = "attn-2026.11.1",
                audit_score: float = 11) -> dict:
    """A complete attention-lab result from the one builder (tests.helpers.rubric_result), with
    the audit part the browser pages show."""
    messages = {
        "test_blocked_key_gets_zero_weight": "query 0 still gives key 2 weight 0.3107 after -inf masking: "
                                             "the mask was applied after softmax",
        "test_large_logits_stable": "NaN in the weights for logits around 1e4",
    }
    base = rubric_result("attention", set(failing), audit_score=audit_score, grader_version=grader_version,
                         feedback={tid: messages.get(tid, "mismatch against the reference") for tid in failing})
    tests, cats = base["tests"], base["categories"]
    return {
        "status": "graded", "message": None,
        "total": base["total"], "max_total": base["max_total"], "categories": cats, "tests": tests,
        "audit": {
            "score": audit_score, "max": 15,
            "items": [
                {"id": "hand_example", "label": {"en": "Hand example computed and explained", "zh": "手算例子并解释"},
                 "found": True, "points": 4, "max_points": 4,
                 "feedback": {"en": "The 2×3 weights are given.", "zh": "给出了 2×3 权重。"}},
                {"id": "row_sums", "label": {"en": "Row sums and max abs error reported", "zh": "报告行和与最大绝对误差"},
                 "found": True, "points": 4, "max_points": 4,
                 "feedback": {"en": "Matches the measured 2.1e-07.", "zh": "与测得的 2.1e-07 一致。"}},
                {"id": "figure", "label": {"en": "Heatmap figure with labelled axes", "zh": "带坐标标注的 heatmap"},
                 "found": True, "points": 3, "max_points": 3,
                 "feedback": {"en": "Looks like a heatmap.", "zh": "图像看起来是 heatmap。"}},
                {"id": "limits", "label": {"en": "What the figure cannot prove (not causal importance)",
                                            "zh": "说明图不能证明什么（不是因果重要性）"},
                 "found": False, "points": 0, "max_points": 4,
                 "feedback": {"en": "Add a sentence on what the weights do not show.",
                              "zh": "补充一句：权重不能说明什么。"}},
            ],
            "flags": [{"kind": "overclaim", "message": {"en": "“The model knows key 2 is important” reads weights "
                                                              "as causal importance.",
                                                        "zh": "“模型知道 key 2 很重要”把权重当成了因果重要性。"}}],
        },
        "measurements": {"max_abs_error": 2.1e-07, "row_sum_error": 5.96e-08, "masked_weight_max": 0.0,
                         "entropy_dk128": 2.71},
        "example_weights": {"student": [[0.2119, 0.5761, 0.2119], [0.1065, 0.7870, 0.1065]],
                            "reference": [[0.2119, 0.5761, 0.2119], [0.1065, 0.7870, 0.1065]]},
        "grader_version": grader_version, "duration_s": 4.8,
        "log": "collected 33 items\n...\n2 failed, 31 passed in 4.61s",
    }


class FakeWorker:
    """Plays the Celery worker for one run: claim (running) after a pause, then store a result."""

    def __init__(self, app, run_id: int, result: dict, delay_running: float = 1.5,
                 delay_graded: float = 2.0) -> None:
        self.app, self.run_id, self.result = app, run_id, result
        self.delays = (delay_running, delay_graded)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.error: BaseException | None = None

    def start(self) -> FakeWorker:
        self.thread.start()
        return self

    def _run(self) -> None:
        from app.extensions import db
        from app.storage import BlobStore
        from worker import runs

        try:
            with self.app.app_context():
                time.sleep(self.delays[0])
                name = "grader-sim@ci"
                assert runs.claim(self.run_id, name, BlobStore(self.app.config["UPLOAD_DIR"])) is not None
                db.session.remove()
                time.sleep(self.delays[1])
                assert runs.store_result(self.run_id, name, self.result)
                db.session.remove()
        except BaseException as exc:  # noqa: BLE001 - reported by join()
            self.error = exc

    def join(self) -> None:
        self.thread.join(timeout=30)
        if self.error:
            raise self.error


def tab_to(page, predicate: str, what: str, presses: int = 60) -> None:
    """Press Tab until ``predicate`` (a JavaScript expression on ``document.activeElement``) holds: what a
    keyboard-only student does to reach ``what``; fails when it cannot be reached in ``presses`` presses."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => {{ const el = document.activeElement; return Boolean({predicate}); }}"):
            return
    raise AssertionError(f"{what} cannot be reached with the keyboard")


def syntax_error_page(app, web, browser, live_server: str, assignment, student, source: str, width: int,
                      locale: str):
    """(context, page) of the result page, open in ``locale`` at ``width``, of ``source`` submitted by ``student``
    and graded as the engine grades a file that does not parse: Python's own SyntaxError (line, column) as the
    sandbox replies it, through grading.proxy.load_error_text with the source."""
    from app.storage import BlobStore
    from app.submitting import Upload, submit
    from grading.proxy import load_error_text
    from grading.sandbox import StudentError
    from tests.browser.test_browser_flows import login
    from tests.browser.test_student_pages_browser import load_failure, new_page

    sub = submit(assignment, student, Upload("attention.py", source.encode()), store=BlobStore(app.config["UPLOAD_DIR"]),
                 max_pending=0)
    try:
        compile(source, "attention.py", "exec")
    except SyntaxError as e:   # what the sandbox replies: Python's own line and column
        error = load_error_text(StudentError(type(e).__name__, e.msg, e.lineno, e.offset), source=source)
    else:
        raise AssertionError("the source compiles")
    result = load_failure(full_result())
    result["message"] = {"en": f"attention.py did not load: {error['en']}", "zh": f"attention.py 无法导入：{error['zh']}"}
    result["load_error"] = error
    web.grade(sub, result)
    ctx, page = new_page(browser, width, locale)
    login(page, live_server, student.email)
    page.goto(f"{live_server}/lang/{locale[:2]}")
    page.goto(f"{live_server}/submissions/{sub.id}")
    return ctx, page
