"""The Celery application as the `celery` command and `autograder worker` load it."""

from app import create_app
from worker import lifecycle, similarity, tasks

flask_app = create_app()
celery_app = flask_app.extensions["celery"]
celery_app.conf.imports = (tasks.__name__, similarity.__name__)  # registered above; listed so `celery inspect` shows it
lifecycle.connect(flask_app)
