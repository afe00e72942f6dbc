"""Helpers for the page and API tests: sign in, submit real files, write graded runs."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest

from tests.factories import PASSWORD

GOOD_CODE = b'''import math
import torch
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if additive_mask is not None:
            scores = scores + additive_mask
        weights = torch.softmax(scores, dim=-1)
        out = weights @ v
        return (out, weights) if return_weights else out
'''

AUDIT_MD = "# 审计\n\n每一行权重之和为 1，max_abs_error 为 3e-7。热力图**不能**证明因果重要性。\n".encode()


def png_bytes(size: tuple[int, int] = (60, 40)) -> bytes:
    from PIL import Image

    im = Image.new("RGB", size, (255, 255, 255))
    for x in range(size[0]):
        for y in range(size[1]):
            im.putpixel((x, y), (30, 80, 200) if (x // 20 + y // 20) % 2 else (200, 220, 250))
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def realistic_result(total_tests_passed: bool = True, *, grader_version: str = "attn-2026.11.1",
                     hidden_feedback: str = "SECRET hidden diagnostic: expected grad 0.123",
                     visible_feedback: str = "max abs error 2.1e-07 < 1e-05",
                     audit_feedback: dict | None = None, fail_mask: bool = False) -> dict:
    """A grade result following docs/contracts.md §2 (test data)."""
    tests = [
        {"id": "test_sdpa_interface", "category": "formula_shape", "outcome": "passed", "points": 2,
         "max_points": 2, "feedback": "ok", "hidden": False},
        {"id": "test_row_sums_are_one", "category": "formula_shape", "outcome": "passed", "points": 3,
         "max_points": 3, "feedback": visible_feedback, "hidden": False},
        {"id": "test_gradients_match_reference", "category": "implementation", "outcome": "passed",
         "points": 3, "max_points": 3, "feedback": hidden_feedback, "hidden": True},
        {"id": "test_blocked_key_gets_zero_weight", "category": "mask_parity",
         "outcome": "failed" if fail_mask else "passed", "points": 0 if fail_mask else 4, "max_points": 4,
         "feedback": "key 2 still gets weight 0.31 from query 0" if fail_mask else "ok", "hidden": False},
    ]
    mask = 26 if fail_mask else 30
    cats = {"formula_shape": {"score": 25, "max": 25}, "implementation": {"score": 30, "max": 30},
            "mask_parity": {"score": mask, "max": 30}, "audit": {"score": 11, "max": 15}}
    return {
        "status": "graded", "message": None,
        "total": sum(c["score"] for c in cats.values()), "max_total": 100,
        "categories": cats,
        "tests": tests,
        "audit": {
            "score": 11, "max": 15,
            "items": [
                {"id": "row_sums", "label": {"en": "Reports row sums", "zh": "报告行和"}, "found": True,
                 "points": 4, "max_points": 4,
                 "feedback": audit_feedback or {"en": "Row sums are reported.", "zh": "报告了行和。"}},
                {"id": "not_causal", "label": {"en": "Weights are not causal importance",
                                                "zh": "权重不是因果重要性"}, "found": False, "points": 0,
                 "max_points": 4, "feedback": {"en": "Say what the heatmap cannot prove.",
                                               "zh": "说明热力图不能证明什么。"}},
            ],
            "flags": [{"kind": "contradiction", "message": {"en": "The audit claims error 0 but 2.1e-07 was measured.",
                                                            "zh": "审计称误差为 0，但测得 2.1e-07。"}}],
        },
        "measurements": {"max_abs_error": 2.1e-07, "row_sum_error": 5.9e-08},
        "example_weights": {"student": [[0.21, 0.33, 0.46], [0.5, 0.25, 0.25]],
                            "reference": [[0.21, 0.33, 0.46], [0.5, 0.25, 0.25]]},
        "grader_version": grader_version, "duration_s": 3.2,
        "log": "GRADER LOG: internal traceback details",
    }


class Web:
    def __init__(self, app, factory) -> None:  # noqa: ANN001
        self.app = app
        self.f = factory

    def login(self, client, user) -> None:  # noqa: ANN001
        resp = client.post("/login", data={"email": user.email, "password": PASSWORD})
        assert resp.status_code == 302, resp.data[:300]

    def submit(self, student, assignment=None, *, audit: bool = True, figure: bool = True,  # noqa: ANN001
               now=None):  # noqa: ANN001
        from app.storage import BlobStore
        from app.submitting import Upload, submit

        assignment = assignment or self.f.assignment()
        return submit(
            assignment, student, Upload("attention.py", GOOD_CODE),
            Upload("audit.md", AUDIT_MD) if audit else None,
            Upload("heatmap.png", png_bytes()) if figure else None,
            store=BlobStore(self.app.config["UPLOAD_DIR"]), max_pending=0, now=now,
        )

    def grade(self, submission, result: dict | None = None, run=None):  # noqa: ANN001
        """Mark the newest (or given) run graded with `result`, as the worker would."""
        from app.extensions import db
        from app.models import TestResult, utcnow
        from grading.i18n import encode  # a bilingual feedback is stored as JSON, as the worker does

        result = result or realistic_result()
        run = run or submission.latest_run
        run.status = "graded"
        run.started_at = run.started_at or utcnow()
        run.finished_at = utcnow()
        run.worker = "test-worker"
        run.grader_version = result.get("grader_version")
        run.result = result
        run.total = result["total"]
        run.max_total = result["max_total"]
        run.categories = result["categories"]
        run.log_excerpt = result.get("log")
        for t in result["tests"]:
            db.session.add(TestResult(run_id=run.id, test_id=t["id"], category=t["category"],
                                      outcome=t["outcome"], points=t["points"], max_points=t["max_points"],
                                      hidden=t["hidden"], feedback=encode(t.get("feedback"))))
        submission.status = "graded"
        db.session.commit()
        return run


@pytest.fixture
def web(app, factory):  # noqa: ANN001, ANN201
    return Web(app, factory)


@pytest.fixture
def course(factory):  # noqa: ANN001, ANN201
    """The attention assignment, two students and an instructor."""
    a = factory.assignment()
    return {
        "assignment": a,
        "alice": factory.student(email="alice@example.edu", name="Alice Wang"),
        "bob": factory.student(email="bob@example.edu", name="Bob Zhang"),
        "teacher": factory.instructor(email="teacher@example.edu", name="Teacher Li"),
    }


ONE_DAY = timedelta(days=1)


@pytest.fixture
def limited_app(app, migrated_pg, tmp_path):  # noqa: ANN001, ANN201
    """A second app on the same database with rate limiting switched on (tight limits).

    The limiter is one extension object: building this app after `app` enables it with fresh
    in-memory storage; the next test's app switches it off again."""
    from tests.conftest import make_app

    limited = make_app(tmp_path / "limited", migrated_pg, CELERY_BROKER_URL="memory://", RATELIMIT_ENABLED=True,
                       SUBMIT_RATE_LIMIT="2 per minute", LOGIN_RATE_LIMIT="3 per minute",
                       UPLOAD_DIR=app.config["UPLOAD_DIR"])
    return limited
