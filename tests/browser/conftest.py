"""Browser tests: the real app served by a werkzeug thread on the test PostgreSQL, driven by
Debian's Chromium through Playwright. A background thread plays the grading worker, using the
worker's own database steps (worker.runs.claim / store_result)."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest
import yaml

from tests.web.conftest import course, limited_app, web  # noqa: F401 - shared fixtures

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
# `make screenshots` refreshes the README's pictures; ordinary runs write to a temporary folder
# so that running the tests never dirties the work tree.
SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR") or tempfile.mkdtemp(prefix="autograder-shots-"))


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (apt-get install -y chromium): browser tests need it")
    return CHROMIUM


@pytest.fixture
def live_server(app):  # noqa: ANN001, ANN201
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture
def browser(chromium_path):  # noqa: ANN001, ANN201
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=chromium_path,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"],
        )
        yield b
        b.close()


def full_result(*, failing: tuple[str, ...] = (), grader_version: str = "attn-2026.11.1",
                audit_score: float = 11) -> dict:
    """A complete grade result for every test of the rubric (docs/contracts.md §2)."""
    spec = yaml.safe_load((ROOT / "rubric" / "attention" / "rubric.yaml").read_text(encoding="utf-8"))
    tests, cats = [], {name: {"score": 0, "max": c["max"]} for name, c in spec["categories"].items()}
    for tid, t in spec["tests"].items():
        ok = tid not in failing
        pts = t["points"] if ok else 0
        cats[t["category"]]["score"] += pts
        feedback = "ok" if ok else {
            "test_blocked_key_gets_zero_weight": "query 0 still gives key 2 weight 0.3107 after -inf masking: "
                                                 "the mask was applied after softmax",
            "test_large_logits_stable": "NaN in the weights for logits around 1e4",
        }.get(tid, "mismatch against the reference")
        tests.append({"id": tid, "category": t["category"], "outcome": "passed" if ok else "failed",
                      "points": pts, "max_points": t["points"], "feedback": feedback,
                      "hidden": t["visibility"] == "hidden"})
    cats["audit"]["score"] = audit_score
    return {
        "status": "graded", "message": None,
        "total": sum(c["score"] for c in cats.values()), "max_total": 100, "categories": cats, "tests": tests,
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

    def __init__(self, app, run_id: int, result: dict, delay_running: float = 1.5,  # noqa: ANN001
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
