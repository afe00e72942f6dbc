"""The Celery application as the `celery` command and `autograder worker` load it."""

from app import create_app
from worker import lifecycle, polling, similarity, tasks

# The embedded broker's waits end when the worker is asked to stop (worker/polling.py).
polling.install()

flask_app = create_app()
celery_app = flask_app.extensions["celery"]
celery_app.conf.imports = (tasks.__name__, similarity.__name__)  # registered above; listed so `celery inspect` shows it
# A pool process warms its sandbox (torch import, zygote, suites) before it reports up. Celery's
# default wait of 4 s kills it under load and starts another one, which never comes up either.
celery_app.conf.worker_proc_alive_timeout = flask_app.config["WORKER_PROC_ALIVE_TIMEOUT_S"]
# Celery's prefork pool, whose stop also ends the processes still warming up (lifecycle.WarmupStop);
# `--pool=prefork` on the command line defers to this setting.
celery_app.conf.worker_pool = f"{lifecycle.__name__}:{lifecycle.TaskPool.__name__}"
lifecycle.connect(flask_app, celery_app)
