"""/metrics: the Prometheus text format, parsed with prometheus-client's own parser, with numbers
that match the database; served only to a loopback scraper or one holding METRICS_TOKEN."""

from __future__ import annotations

from flask_migrate import upgrade
from prometheus_client.parser import text_string_to_metric_families

from app.clock import db_now
from app.extensions import db
from app.models import WorkerHeartbeat
from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.factories import Factory
from tests.helpers import make_app
from tests.reliability.helpers import CORRECT


def seed() -> None:
    """2 queued, 1 running, 3 graded (1.5 s grading, 4 s from upload, 0.3 CPU s), 1 error after
    3 tries; one worker beating now and one silent for a minute."""
    f = Factory()
    a = f.assignment()
    runs = [submit(a, f.student(), Upload("attention.py", CORRECT), store=BlobStore(None)).runs[0]
            for _ in range(7)]
    for run in runs[2:3]:
        run.status, run.started_at, run.worker, run.tries = "running", db_now(-1), "w:1", 1
    for run in runs[3:6]:
        run.status, run.tries, run.cpu_s = "graded", 1, 0.3
        run.queued_at, run.started_at, run.finished_at = db_now(-10), db_now(-7.5), db_now(-6)
    run = runs[6]
    run.status, run.tries, run.queued_at, run.started_at, run.finished_at = "error", 3, db_now(-4), db_now(-1.2), db_now()
    db.session.add_all([
        WorkerHeartbeat(hostname="w:1", started_at=db_now(-100), last_seen=db_now(-1)),
        WorkerHeartbeat(hostname="w:2", started_at=db_now(-100), last_seen=db_now(-60)),
    ])
    db.session.commit()


def scrape(client, **headers) -> dict:
    resp = client.get("/metrics", headers=headers)
    assert resp.status_code == 200, resp.status_code
    assert resp.content_type.startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(resp.get_data(as_text=True)):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def check_numbers(samples: dict) -> None:
    assert samples[("autograder_queue_depth", (("status", "queued"),))] == 2
    assert samples[("autograder_queue_depth", (("status", "running"),))] == 1
    assert samples[("autograder_runs_finished_total", (("status", "graded"),))] == 3
    assert samples[("autograder_runs_finished_total", (("status", "error"),))] == 1
    assert samples[("autograder_run_retries_total", ())] == 2
    assert samples[("autograder_live_workers", ())] == 1
    assert 55 <= samples[("autograder_worker_heartbeat_age_seconds", (("worker", "w:2"),))] <= 120
    assert samples[("autograder_grading_seconds_count", ())] == 4
    assert samples[("autograder_grading_seconds_bucket", (("le", "0.5"),))] == 0
    assert samples[("autograder_grading_seconds_bucket", (("le", "2.0"),))] == 4  # 1.5 s (graded) and 1.2 s (error)
    assert abs(samples[("autograder_grading_seconds_sum", ())] - 5.7) < 0.2
    assert samples[("autograder_upload_to_result_seconds_bucket", (("le", "5.0"),))] == 4
    assert samples[("autograder_grading_cpu_seconds_count", ())] == 3  # the error run has no CPU figure
    assert samples[("autograder_grading_cpu_seconds_bucket", (("le", "0.5"),))] == 3
    assert samples[("autograder_oldest_queued_seconds", ())] >= 0


def test_metrics_parse_with_the_prometheus_parser_and_match_the_database(app, client, factory):
    seed()
    check_numbers(scrape(client))


def test_metrics_on_the_embedded_sqlite_default(tmp_path):
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'autograder.sqlite'}", CELERY_BROKER_URL="memory://")
    with app.app_context():
        upgrade()
        seed()
        db.session.remove()
    check_numbers(scrape(app.test_client()))


def test_metrics_are_refused_through_a_proxy_or_without_the_token(app, client):
    assert client.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 404
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "198.51.100.7"}).status_code == 404
    app.config["METRICS_TOKEN"] = "s3cret-token"
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 404
    ok = client.get("/metrics", headers={"Authorization": "Bearer s3cret-token"},
                    environ_base={"REMOTE_ADDR": "198.51.100.7"})
    assert ok.status_code == 200 and b"autograder_queue_depth" in ok.data
