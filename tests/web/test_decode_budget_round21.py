"""Round 21: the per-student decode budget lives in Flask-Limiter's storage.

The budget (app/submitting.decode_budget) built a `limits` storage of its own from
RATELIMIT_STORAGE_URI: a second Redis connection pool per process, and counters the limiter did
not know about, so `limiter.reset()` (an operator clearing every limit after an incident) left a
student's uploads with figures refused for the rest of the window. It now counts in
`limiter.storage`.
"""

from __future__ import annotations

from app.extensions import limiter
from tests.audit.helpers import make_heatmap
from tests.web.helpers import GOOD_CODE
from tests.web.test_uploads_round19 import send


def test_clearing_the_rate_limits_clears_the_decode_budget_too(limited_app, factory, course):
    limited_app.config.update(DECODE_USER_CPU_S=0.1, DECODE_USER_WINDOW_S=600, MAX_PENDING_PER_STUDENT=10,
                              PROPAGATE_EXCEPTIONS=False)
    client = limited_app.test_client()
    token = factory.token(course["alice"])
    assert send(client, token, figure=(make_heatmap(), "heatmap.png")).status_code == 202  # spends the 0.1 s
    refused = send(client, token, code=GOOD_CODE + b"\n# 2\n", figure=(make_heatmap(), "heatmap.png"))
    assert refused.status_code == 429 and refused.json["code"] == "decode_budget", refused.json
    limiter.reset()
    again = send(client, token, code=GOOD_CODE + b"\n# 3\n", figure=(make_heatmap(), "heatmap.png"))
    assert again.status_code == 202, again.json


def test_the_decode_budget_counts_in_the_limiters_storage(limited_app, factory, course):
    limited_app.config.update(DECODE_USER_CPU_S=0.1, DECODE_USER_WINDOW_S=600, MAX_PENDING_PER_STUDENT=10)
    from app.submitting import _budget_store

    client = limited_app.test_client()
    with limited_app.app_context():
        strategy, item = _budget_store()
        assert strategy.storage is limiter.storage
        before = strategy.get_window_stats(item, str(course["alice"].id)).remaining
    assert send(client, factory.token(course["alice"]), figure=(make_heatmap(), "heatmap.png")).status_code == 202
    with limited_app.app_context():
        assert strategy.get_window_stats(item, str(course["alice"].id)).remaining < before
