"""gunicorn, started from Python: `autograder web` and `autograder run` serve as production does.

Threads, because the submission API long-polls (`?wait=`) hold a thread each; a few processes,
because one Python process uses one core. Equivalent to
`gunicorn -w N --threads T -b HOST:PORT app.wsgi:app`.
"""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication


class _Server(BaseApplication):
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from app.wsgi import app

        return app


def serve(host: str, port: int, processes: int = 2, threads: int = 8) -> None:
    # No version banner (`Server: gunicorn`): gunicorn has no setting for it, and reads this
    # module value for every response; its worker processes inherit it when they fork.
    import gunicorn.http.wsgi

    gunicorn.http.wsgi.SERVER = "autograder"
    _Server({
        "bind": f"{host}:{port}",
        "workers": processes,
        "threads": threads,
        "worker_class": "gthread",
        # Long-polls last up to 20 s; a request is cut only well after that.
        "timeout": 60,
        "graceful_timeout": 20,
        "accesslog": "-",
    }).run()
