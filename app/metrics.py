"""`/metrics`: what a Prometheus server scrapes, read from the database at each scrape.

The database is the record every web and worker process writes to, so one scrape of any web
process gives the service's numbers; no worker host needs its own endpoint. prometheus-client
renders them (a custom collector, as its documentation describes for "proxied" metrics):

- ``autograder_queue_depth{status}``: runs queued or running now;
- ``autograder_oldest_queued_seconds``: age of the oldest queued run (database clock);
- ``autograder_grading_seconds``: histogram of a run's grading time (claim to store);
- ``autograder_upload_to_result_seconds``: histogram of queue time plus grading time;
- ``autograder_grading_cpu_seconds``: histogram of CPU per grading (worker + test process);
- ``autograder_runs_finished_total{status}``: finished runs by status (graded, error);
- ``autograder_run_retries_total``: extra tries taken (takeovers and grader retries);
- ``autograder_live_workers`` and ``autograder_worker_heartbeat_age_seconds{worker}``.

Access: with ``METRICS_TOKEN`` set, a request must carry ``Authorization: Bearer <token>``;
without it, only a direct loopback client (no proxy header) is served. Anything else is 404.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator, Sequence

from flask import Blueprint, Response, abort, current_app, request
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.core import (
    CollectorRegistry,
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from prometheus_client.exposition import generate_latest
from sqlalchemy import case, func, select

from app.clock import db_now, seconds_between
from app.extensions import db
from app.models import GradingRun, Status, WorkerHeartbeat

bp = Blueprint("metrics", __name__)

# Bucket bounds (seconds): a warm grading is ~0.2 s; queueing at a deadline adds seconds.
LATENCY_BUCKETS = (0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
CPU_BUCKETS = (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30)
FINISHED = (Status.GRADED.value, Status.ERROR.value)


def _histogram(name: str, doc: str, value: object, buckets: Sequence[float]) -> HistogramMetricFamily:
    """One SQL pass: cumulative bucket counts, count and sum of ``value`` over finished runs."""
    row = db.session.execute(
        select(
            *(func.coalesce(func.sum(case((value <= b, 1), else_=0)), 0) for b in buckets),
            func.count(value),
            func.coalesce(func.sum(value), 0.0),
        ).where(GradingRun.status.in_(FINISHED))
    ).one()
    counts, total, sum_ = row[: len(buckets)], row[-2], row[-1]
    pairs = [(repr(float(b)), int(c)) for b, c in zip(buckets, counts, strict=True)]
    pairs.append(("+Inf", int(total)))
    family = HistogramMetricFamily(name, doc)
    family.add_metric([], pairs, float(sum_))
    return family


class DatabaseCollector:
    """Reads the numbers in a handful of aggregate queries per scrape."""

    def collect(self) -> Iterator[object]:
        depth = dict(db.session.execute(
            select(GradingRun.status, func.count()).where(
                GradingRun.status.in_([Status.QUEUED.value, Status.RUNNING.value])
            ).group_by(GradingRun.status)
        ).all())
        g = GaugeMetricFamily("autograder_queue_depth", "Grading runs waiting or in progress.", labels=["status"])
        for status in (Status.QUEUED.value, Status.RUNNING.value):
            g.add_metric([status], depth.get(status, 0))
        yield g

        oldest = db.session.scalar(
            select(func.max(seconds_between(GradingRun.queued_at, db_now()))).where(
                GradingRun.status == Status.QUEUED.value
            )
        )
        yield GaugeMetricFamily("autograder_oldest_queued_seconds",
                                "Age of the oldest queued run (0 when none), by the database clock.",
                                value=float(oldest or 0.0))

        yield _histogram("autograder_grading_seconds", "Grading time of finished runs (claim to store).",
                         seconds_between(GradingRun.started_at, GradingRun.finished_at), LATENCY_BUCKETS)
        yield _histogram("autograder_upload_to_result_seconds",
                         "Queue plus grading time of finished runs (queued to stored).",
                         seconds_between(GradingRun.queued_at, GradingRun.finished_at), LATENCY_BUCKETS)
        yield _histogram("autograder_grading_cpu_seconds",
                         "CPU seconds per grading in the worker and its test process.",
                         GradingRun.cpu_s, CPU_BUCKETS)

        finished = dict(db.session.execute(
            select(GradingRun.status, func.count()).where(GradingRun.status.in_(FINISHED)).group_by(GradingRun.status)
        ).all())
        c = CounterMetricFamily("autograder_runs_finished", "Finished grading runs by status.", labels=["status"])
        for status in FINISHED:
            c.add_metric([status], finished.get(status, 0))
        yield c

        retries = db.session.scalar(
            select(func.coalesce(func.sum(GradingRun.tries - 1), 0)).where(GradingRun.tries > 1)
        )
        yield CounterMetricFamily("autograder_run_retries",
                                  "Tries beyond the first: takeovers of dead workers' runs and grader retries.",
                                  value=int(retries or 0))

        stale_s = float(current_app.config["HEARTBEAT_STALE_S"])
        beats = db.session.execute(
            select(WorkerHeartbeat.hostname, seconds_between(WorkerHeartbeat.last_seen, db_now()))
        ).all()
        yield GaugeMetricFamily("autograder_live_workers",
                                "Pool processes whose heartbeat is younger than HEARTBEAT_STALE_S.",
                                value=sum(1 for _, age in beats if age is not None and age <= stale_s))
        h = GaugeMetricFamily("autograder_worker_heartbeat_age_seconds",
                              "Seconds since each pool process's last heartbeat (database clock).",
                              labels=["worker"])
        for name, age in beats:
            h.add_metric([name], max(0.0, float(age or 0.0)))
        yield h


def _allowed() -> bool:
    token = current_app.config.get("METRICS_TOKEN") or ""
    if token:
        given = request.headers.get("Authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())
    # No token: only a scraper on this host, talking to us directly (not through a proxy).
    loopback = (request.remote_addr or "").startswith("127.") or request.remote_addr == "::1"
    return loopback and "X-Forwarded-For" not in request.headers and "Forwarded" not in request.headers


@bp.get("/metrics")
def metrics() -> Response:
    if not _allowed():
        abort(404)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DatabaseCollector())
    try:
        body = generate_latest(registry)
    finally:
        db.session.remove()
    # content_type, not mimetype: Werkzeug 3 appends '; charset=utf-8' to any text/* mimetype, and a
    # repeated parameter makes the header invalid to Prometheus (Go's mime.ParseMediaType refuses it).
    return Response(body, content_type=CONTENT_TYPE_LATEST)
