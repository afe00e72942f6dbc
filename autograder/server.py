"""gunicorn, started from Python: `autograder web` and `autograder run` serve as production does.

Equivalent to `gunicorn -c python:autograder.gunicorn_conf -w N --threads T -b HOST:PORT app.wsgi:app`
(the settings and the reasons for them are in autograder/gunicorn_conf.py).
"""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication

from autograder import gunicorn_conf
from autograder.exiting import exit_now


class _Server(BaseApplication):
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        # What `-c python:autograder.gunicorn_conf` does: every module value that names a gunicorn
        # setting is set, then the command line's (here: bind, workers, threads) override them.
        for key in self.cfg.settings:
            if hasattr(gunicorn_conf, key):
                self.cfg.set(key, getattr(gunicorn_conf, key))
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from app.wsgi import app

        return app


def serve(host: str, port: int, processes: int = 2, threads: int = gunicorn_conf.threads) -> None:
    """gunicorn with autograder/gunicorn_conf.py's settings (the Dockerfile's, too); exits 2 with
    the numbers when ``threads`` leaves none for pages."""
    try:
        _Server({"bind": f"{host}:{port}", "workers": processes, "threads": threads}).run()
    except SystemExit as stop:  # the arbiter's halt, once its workers are gone
        exit_now(stop.code)
