"""The grading engine: runner, proxy and sandbox. It imports neither Flask, SQLAlchemy, Celery nor `app`."""
