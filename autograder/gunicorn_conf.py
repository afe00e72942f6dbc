"""gunicorn's settings for the web role, however it is started: the Dockerfile and compose run
`gunicorn -c python:autograder.gunicorn_conf app.wsgi:app`, and `autograder web`/`run` pass the same
values (autograder/server.py). Command-line flags (-w, --threads, -b) override them.

Threads, because uploads decoding a file and long polls (`?wait=`) hold a thread each; a few
processes, because one Python process uses one core. At start, the threads are checked against
what may wait at once (settings.check_web_threads): a configuration in which waits could take every
thread, so that sign-in and pages stop answering, is refused with the numbers instead of served.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import gunicorn.http.wsgi

from autograder import settings

# No version banner (`Server: gunicorn`): gunicorn has no setting for it and reads this module value
# for every response; its worker processes inherit it when they fork.
gunicorn.http.wsgi.SERVER = "autograder"

worker_class = "gthread"
# DECODE_SLOTS + DECODE_QUEUE + LONGPOLL_SLOTS + LONGPOLL_LIST_SLOTS is at most 4 + 4 + 4 + 2 by
# default: 16 threads leave at least 2 for everything else.
threads = 16
# Long polls last up to LONGPOLL_MAX_WAIT_S (20 s); a request is cut only well after that.
timeout = 60
# On a stop the long polls answer at once (post_worker_init): what is left to finish is an upload's
# decode or an ordinary request.
graceful_timeout = 20
accesslog = "-"
# gunicorn 25+ opens a control socket for `gunicornc` at one path per user ($XDG_RUNTIME_DIR or
# ~/.gunicorn/gunicorn.ctl): a second server of the host took it over, and stopping either deleted it.
# Nothing of ours uses it; servers are stopped and resized by their process manager.
control_socket_disable = True


def worker_exit(server: Any, worker: Any) -> None:
    """A worker asked to stop (SIGTERM: ``alive`` false) has answered its requests by now (gthread
    waits for them): it ends without the interpreter's teardown (autograder/exiting.py). A worker
    that failed to boot exits as gunicorn decides, with the code that tells the arbiter to halt."""
    if worker.booted and not worker.alive:
        from autograder.exiting import exit_now

        exit_now(0)


def post_worker_init(worker: Any) -> None:
    """On SIGTERM, end the worker's long polls before gunicorn's own handler runs: each answers the
    status it has (the client polls again, at the next process) instead of holding the stop for up to
    LONGPOLL_MAX_WAIT_S, as long as graceful_timeout, and being cut with no answer. gunicorn has no
    hook for the signal; its handler is in place by now (init_signals runs before this hook)."""
    from app.longpoll import stop_waiting, watch_for_stop

    watch_for_stop()
    own = signal.getsignal(signal.SIGTERM)

    def on_term(signum: int, frame: Any) -> None:
        stop_waiting()
        if callable(own):
            own(signum, frame)
        elif own == signal.SIG_DFL:      # no handler of gunicorn's: end as the signal would have
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_term)
    # gunicorn installs its handlers with siginterrupt(sig, False) (system calls restart); signal.signal
    # installs without SA_RESTART, so that is set again here
    signal.siginterrupt(signal.SIGTERM, False)


def on_starting(server: Any) -> None:
    try:
        settings.check_web_threads(server.cfg.threads)
    except settings.SettingsError as exc:
        server.log.error("refusing to start: %s", exc)
        sys.exit(2)   # raised before any worker is forked: the arbiter exits with it

