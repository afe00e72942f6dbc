"""Celery wired the way Flask documents it: every task runs inside the app context."""

from __future__ import annotations

from celery import Celery, Task
from flask import Flask

# The sandbox kills a grading long before these; they only catch a wedged worker.
SOFT_TIME_LIMIT = 240
HARD_TIME_LIMIT = 300


def transport_options(broker_url: str) -> dict:
    if broker_url.startswith(("redis://", "rediss://")):
        # A message of a worker that died unacked comes back after this; the sweeper usually
        # re-queues the run much sooner.
        return {"visibility_timeout": HARD_TIME_LIMIT + 60}
    return {}  # the SQLAlchemy transport passes its options to create_engine()


def celery_init_app(app: Flask) -> Celery:
    class FlaskTask(Task):
        def __call__(self, *args: object, **kwargs: object) -> object:
            with app.app_context():
                return self.run(*args, **kwargs)

    celery_app = Celery(app.name, task_cls=FlaskTask)
    queue = app.config["GRADING_QUEUE"]
    celery_app.conf.update(
        broker_url=app.config["CELERY_BROKER_URL"],
        broker_connection_retry_on_startup=True,
        # The database is the record, the broker only transport: no result backend.
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=SOFT_TIME_LIMIT,
        task_time_limit=HARD_TIME_LIMIT,
        task_default_queue=queue,
        task_routes={"autograder.*": {"queue": queue}},
        task_always_eager=app.config.get("CELERY_EAGER", False),
        broker_transport_options=transport_options(app.config["CELERY_BROKER_URL"]),
        worker_hijack_root_logger=False,
        imports=("worker.tasks",),
    )
    celery_app.set_default()
    app.extensions["celery"] = celery_app
    return celery_app
