"""Helpers of the web tests, imported as a module (fixtures stay in conftest.py)."""

from __future__ import annotations

import io
from datetime import timedelta

from tests.factories import PASSWORD
from tests.helpers import rubric_result

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
    """An attention-lab result built by the one builder (tests.helpers.rubric_result), with an
    audit, measurements and example weights as the real grader returns them."""
    failing = {"test_blocked_key_gets_zero_weight"} if fail_mask else set()
    result = rubric_result("attention", failing, audit_score=11, grader_version=grader_version, feedback={
        "test_row_sums_are_one": visible_feedback, "test_gradients_match_reference": hidden_feedback,
        "test_blocked_key_gets_zero_weight": "key 2 still gets weight 0.31 from query 0" if fail_mask else None})
    return {
        **result,
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
    def __init__(self, app, factory) -> None:
        self.app = app
        self.f = factory

    def login(self, client, user) -> None:
        resp = client.post("/login", data={"email": user.email, "password": PASSWORD})
        assert resp.status_code == 302, resp.data[:300]

    def submit(self, student, assignment=None, *, audit: bool = True, figure: bool = True,
               now=None):
        from app.storage import BlobStore
        from app.submitting import Upload, submit

        assignment = assignment or self.f.assignment()
        return submit(
            assignment, student, Upload("attention.py", GOOD_CODE),
            Upload("audit.md", AUDIT_MD) if audit else None,
            Upload("heatmap.png", png_bytes()) if figure else None,
            store=BlobStore(self.app.config["UPLOAD_DIR"]), max_pending=0, now=now,
        )

    def grade(self, submission, result: dict | None = None, run=None):
        """Grade the newest (or given) run with `result` through the worker's own claim and store
        (worker/runs.py): the rows are exactly what a real worker writes."""
        from app.extensions import db
        from app.models import GradingRun
        from app.storage import BlobStore
        from worker.runs import claim, store_result

        result = result or realistic_result()
        run_id = (run or submission.latest_run).id
        assert claim(run_id, "test-worker", BlobStore(self.app.config["UPLOAD_DIR"])) is not None
        assert store_result(run_id, "test-worker", result)
        db.session.expire_all()
        return db.session.get(GradingRun, run_id)

    def result_pages(self, client, student, submission_id: int) -> dict[str, str]:
        """The result page of a submission as ``student`` reads it, per language (en, zh)."""
        self.login(client, student)
        pages = {}
        for lang in ("en", "zh"):
            client.get(f"/lang/{lang}")
            pages[lang] = client.get(f"/submissions/{submission_id}").get_data(as_text=True)
        return pages


ONE_DAY = timedelta(days=1)
