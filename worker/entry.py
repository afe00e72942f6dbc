"""The Celery application as the `celery` command and `autograder worker` load it."""

from app import create_app
from worker import lifecycle

flask_app = create_app()
celery_app = flask_app.extensions["celery"]
lifecycle.connect(flask_app)
