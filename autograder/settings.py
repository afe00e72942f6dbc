"""Every tunable of the service, in one place, read by the web app, the worker and the engine.

Each value comes from the environment (same name) or the default written here. The module only
reads: nothing here talks to a server. `check()` runs at start (web app factory, worker start,
offline `autograder grade`) and refuses an inconsistent configuration with a message that names
the variables, so a wrong timeout never shows up first as a run stuck at a deadline.

Timeouts form one chain, each stage inside the next:

    call < import < session < budget < grading < soft limit < hard limit < run deadline <= broker visibility

- a student call (one forward) is bounded by CALL_TIMEOUT_S,
- loading attention.py (jail setup + module top level) by IMPORT_TIMEOUT_S,
- one sandbox session by SESSION_WALL_S (time host load kept its jail waiting for a CPU not counted,
  up to WALL_BACKSTOP times as long),
- everything the student's code does in one grading, over all its sessions, by GRADING_BUDGET_S of
  wall time and GRADING_CPU_BUDGET_S of CPU (tests that run out are `timeout`, the run is `graded`),
- one whole grading (every session and the trusted test process) by GRADING_WALL_S,
- the Celery task by TASK_SOFT_TIME_LIMIT_S / TASK_HARD_TIME_LIMIT_S (they catch a wedged worker),
- a run still `running` after RUN_DEADLINE_S is taken over by the sweeper,
- an unacknowledged Redis message comes back after BROKER_VISIBILITY_S.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


class SettingsError(ValueError):
    """The configuration is inconsistent; the message names the variables to change."""


def _num(name: str, default: float, env: Mapping[str, str] | None = None) -> float:
    raw = (os.environ if env is None else env).get(name)
    if raw is None or raw == "":
        return float(default)
    try:
        return float(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a number") from None


def _int(name: str, default: int) -> int:
    return int(_num(name, default))


def _str(name: str, default: str) -> str:
    return os.environ.get(name) or default


# --- uploads and fairness ------------------------------------------------------------------------
# Largest request body accepted (413 above it); a figure or audit is far smaller.
MAX_UPLOAD_BYTES = _int("MAX_UPLOAD_BYTES", 8 * 1024 * 1024)
# Ungraded attempts one student may have waiting: keeps one student from starving the class at a
# deadline while every accepted attempt is still graded.
MAX_PENDING_PER_STUDENT = _int("MAX_PENDING_PER_STUDENT", 3)
# Flask-Limiter limits (syntax "N per minute; M per hour"). Only *failed* sign-ins count.
# Failed sign-ins per (client address, account): one student's typos or guesses never lock out
# another account behind the same NAT or proxy.
LOGIN_RATE_LIMIT = _str("LOGIN_RATE_LIMIT", "10 per minute; 50 per hour")
# Failed sign-ins per client address, whatever the account: a higher ceiling that stops password
# spraying across many accounts but leaves room for a classroom behind one NAT address.
LOGIN_ADDRESS_RATE_LIMIT = _str("LOGIN_ADDRESS_RATE_LIMIT", "60 per minute; 300 per hour")
# Submissions per authenticated user (pages and API alike).
SUBMIT_RATE_LIMIT = _str("SUBMIT_RATE_LIMIT", "30 per minute")
# Every API request per authenticated user (the key is the user, never the raw header).
API_RATE_LIMIT = _str("API_RATE_LIMIT", "300 per minute")
# Live (unrevoked) API tokens one user may hold; creating more is refused until one is revoked.
MAX_LIVE_TOKENS_PER_USER = _int("MAX_LIVE_TOKENS_PER_USER", 5)

# --- long polls (GET /api/v1/submissions/ID?wait=S; the assignment page's attempts list) ---------
# The longest wait a client may ask for.
LONGPOLL_MAX_WAIT_S = _num("LONGPOLL_MAX_WAIT_S", 20)
# API waits one user may hold at once in one web process; more answer 429 with Retry-After at once.
# The attempts lists' waits are counted apart (below): open pages never take what the API client was
# promised (round 38: two open tabs made the student's API long poll a 429 for as long as they stayed).
LONGPOLL_PER_USER = _int("LONGPOLL_PER_USER", 2)
# Waits one web process holds at once, all users together. Keep it below gunicorn's --threads
# (8 in docker-compose) so waiting requests never take every thread: past it, a request is
# answered at once with the current state (no wait) instead of holding a thread.
LONGPOLL_SLOTS = _int("LONGPOLL_SLOTS", 4)
# Waits of the assignment pages' attempts lists (/assignments/<slug>/attempts?wait=S) one user may hold at
# once in one web process (their tabs); another tab is answered 429 and checks its list once a minute.
LONGPOLL_LIST_PER_USER = _int("LONGPOLL_LIST_PER_USER", 2)
# List waits one web process holds at once, all users together, besides LONGPOLL_SLOTS (a list waits for
# a regrade that may never come: its own pool, so it never takes an API wait's slot). Past it a list is
# answered at once (`X-Long-Poll: now`) and the page asks again at its next check; users take turns.
LONGPOLL_LIST_SLOTS = _int("LONGPOLL_LIST_SLOTS", 2)

# --- sessions, proxy, public URLs ----------------------------------------------------------------
# /metrics (Prometheus): with a token, scrapers send `Authorization: Bearer <token>`; without
# one, only a direct loopback client is served (app/metrics.py).
METRICS_TOKEN = _str("METRICS_TOKEN", "")
# Retry-After (seconds) sent with "storage unavailable" when the upload disk cannot take a write.
STORAGE_RETRY_AFTER_S = _num("STORAGE_RETRY_AFTER_S", 30)
# 1 behind HTTPS (docker-compose sets it): cookies are then sent over TLS only.
SESSION_COOKIE_SECURE = os.environ.get("SESSION_COOKIE_SECURE", "0") == "1"
# Lifetime of the "remember me" cookie (it also ends at sign-out, on every device).
REMEMBER_COOKIE_DAYS = _num("REMEMBER_COOKIE_DAYS", 14)
# A session without "remember me" ends this long after sign-in, checked server-side (a copied
# cookie dies too). OWASP ASVS 4.0 level 2 (3.3.2) asks for re-authentication after 12 hours.
SESSION_MAX_HOURS = _num("SESSION_MAX_HOURS", 12)
# How many reverse proxies stand in front of the web app and set X-Forwarded-For/-Proto/-Host.
# 0 = none: forwarded headers are ignored (a client could forge them). docker-compose sets 1
# (its nginx); add one per extra hop, e.g. 2 behind a TLS-terminating load balancer.
PROXY_COUNT = _int("PROXY_COUNT", 0)
# The public base URL, e.g. https://grader.example.edu, used in generated absolute links (the
# API docs' curl examples). Never taken from the request's Host header. Empty: relative links.
PUBLIC_URL = _str("PUBLIC_URL", "").rstrip("/")

# --- decoding uploaded audits and figures (grading/decode.py) ------------------------------------
# PDF text extraction and image decoding run in a child with these limits, in the web request and
# in the worker alike: a hostile file is refused with a clear reason after seconds, not minutes.
# The cost of a file is its CPU time (DECODE_CPU_S, an rlimit of the child): on a loaded host a
# decode waits for a CPU, and that wait is the server's, never a reason to call a file too costly.
DECODE_CPU_S = _num("DECODE_CPU_S", 3)
# Wall time a decode may spend *besides* waiting for a CPU (computing, or stuck): the limit for a
# child that stops using CPU without finishing.
DECODE_WALL_S = _num("DECODE_WALL_S", 6)
# Wall time after which a decode that is still starved of CPU is given up: the upload is answered
# "server busy, retry" (503), not refused as too costly. It bounds how long an upload holds a thread.
DECODE_BUSY_WALL_S = _num("DECODE_BUSY_WALL_S", 20)
DECODE_MEMORY_BYTES = _int("DECODE_MEMORY_BYTES", 768 * 1024 * 1024)


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


# Decodes one process runs at once (each is a child using up to a CPU): more than the CPUs only
# makes each slower. At most 4 by default so that, with DECODE_QUEUE, decoding holds at most 8
# threads. Keep DECODE_SLOTS + DECODE_QUEUE + LONGPOLL_SLOTS below gunicorn's --threads, so that
# uploads of costly files never hold every thread: the other pages keep answering.
DECODE_SLOTS = _int("DECODE_SLOTS", max(1, min(_usable_cpus(), 4)))
# Uploads of one process that may wait for a decode slot (up to DECODE_SLOT_WAIT_S each); one
# more is answered "server busy" at once rather than holding a thread for nothing.
DECODE_QUEUE = _int("DECODE_QUEUE", DECODE_SLOTS)
DECODE_SLOT_WAIT_S = _num("DECODE_SLOT_WAIT_S", 2)
# Retry-After (seconds) of a "server busy" answer to an upload (nothing was stored).
DECODE_BUSY_RETRY_S = _num("DECODE_BUSY_RETRY_S", 5)
# What one user's uploads may cost the web in decoding (app/submitting.py): the CPU seconds of
# their decodes in a fixed window of DECODE_USER_WINDOW_S, counted in the rate limiter's store
# (Redis: across processes). Past it their uploads with an audit or figure get 429 with Retry-After
# (code-only uploads are never decoded). Honest files cost about 0.05 s (round 28); a file at the decoder's
# limits costs DECODE_CPU_S. 0 switches the budget off.
DECODE_USER_CPU_S = _num("DECODE_USER_CPU_S", 30)
DECODE_USER_WINDOW_S = _int("DECODE_USER_WINDOW_S", 600)

# --- the grading timeout chain (seconds; see the module docstring) ------------------------------
CALL_TIMEOUT_S = _num("CALL_TIMEOUT_S", 5)
IMPORT_TIMEOUT_S = _num("IMPORT_TIMEOUT_S", 10)
# CALL_TIMEOUT_S and IMPORT_TIMEOUT_S count the jail's CPU seconds (a loaded host does not inflate
# them); each also has a wall limit WALL_BACKSTOP times as long (cut to the session's), which bounds
# a call that waits without using CPU where the idle watch does not see it.
WALL_BACKSTOP = _num("WALL_BACKSTOP", 3)
# A session's wall limit; the zygote does not count the time its jail's threads waited for a CPU that other
# load held (forking.load_credit), up to WALL_BACKSTOP times the limit.
SESSION_WALL_S = _num("SESSION_WALL_S", 30)
# One budget per grading for all the student's sessions together: each session's wall and CPU
# limits are cut to what is left, so a submission that sleeps or spins ends `graded` (its
# remaining tests `timeout`) within about GRADING_BUDGET_S, however it spends it. An honest
# submission uses well under a second of it.
GRADING_BUDGET_S = _num("GRADING_BUDGET_S", 40)
GRADING_CPU_BUDGET_S = _num("GRADING_CPU_BUDGET_S", 30)
# The wall budget gives back the seconds host load kept the ended sessions' jails waiting for a CPU
# (forking.load_credit), at most this many in a grading.
GRADING_LOAD_CREDIT_S = _num("GRADING_LOAD_CREDIT_S", 15)
# A call (or the import) the grader waits for while the jail's threads use no CPU, none of them
# runnable or waiting for a CPU, is stopped after IDLE_WINDOW_S of that (a sleep, a blocking read, a
# lock nobody releases): a sleeping submission held a worker for the whole budget while an honest
# grading uses ~0.2 s of CPU. IDLE_TOTAL_S bounds such waiting over a whole grading (many shorter
# sleeps). A call starved of CPU by other load is runnable, hence never idle.
IDLE_WINDOW_S = _num("IDLE_WINDOW_S", 2)
IDLE_TOTAL_S = _num("IDLE_TOTAL_S", 6)
# The trusted side's own hard limit: only a hung grader reaches it (status `error`, retried).
GRADING_WALL_S = _num("GRADING_WALL_S", 120)
# CPU seconds the worker gives the suite's source review (never executed code: a syntax-tree
# analysis, ~20 ms for a real file). Past it the review stops and the source is flagged as
# unreviewable; a file built to make the analysis slow must not hold a worker or end in `error`.
REVIEW_CPU_S = _num("REVIEW_CPU_S", 3)
# CPU seconds shared by the other trusted readers of the source in one grading (the runner's notes and
# shortcuts in the worker, then the hints added to failing tests in the test process, grading/allowance.py):
# an honest file's use a few milliseconds; past it a hint is left out (round 44: crafted files cost 2-3 s).
HINT_CPU_S = _num("HINT_CPU_S", 0.15)
TASK_SOFT_TIME_LIMIT_S = _num("TASK_SOFT_TIME_LIMIT_S", 240)
TASK_HARD_TIME_LIMIT_S = _num("TASK_HARD_TIME_LIMIT_S", 300)
# A task cannot outlive the hard limit, so a run still `running` this long after its claim is lost.
RUN_DEADLINE_S = _num("RUN_DEADLINE_S", TASK_HARD_TIME_LIMIT_S + 60)
# Redis redelivers an unacknowledged message after this; the sweeper usually re-sends far sooner.
BROKER_VISIBILITY_S = _num("BROKER_VISIBILITY_S", RUN_DEADLINE_S)

# --- recovery (worker/sweeper.py, worker/runs.py, worker/heartbeat.py) ---------------------------
# How often the sweeper looks for lost or abandoned runs.
SWEEP_INTERVAL_S = _num("SWEEP_INTERVAL_S", 20)
# A queued run absent from the broker this long is sent again.
QUEUED_GRACE_S = _num("QUEUED_GRACE_S", 30)
# How often a pool process writes its heartbeat, and when a silent one counts as dead.
HEARTBEAT_INTERVAL_S = _num("HEARTBEAT_INTERVAL_S", 5)
HEARTBEAT_STALE_S = _num("HEARTBEAT_STALE_S", 30)
# Grader failures (never a student's) are retried this many times, this far apart, then `error`.
MAX_TRIES = _int("MAX_TRIES", 3)
RETRY_DELAY_S = _num("RETRY_DELAY_S", 2)
# How long a grading task keeps trying to reach the database to store a finished grading; after
# that the result is kept on the worker's disk ($DATA_DIR/spool) and stored when the database is
# back (worker/spool.py), checked every SPOOL_FLUSH_INTERVAL_S.
DB_RETRY_S = _num("DB_RETRY_S", 60)
SPOOL_FLUSH_INTERVAL_S = _num("SPOOL_FLUSH_INTERVAL_S", 1)
# A run that could not even be claimed because the database was away is sent again after this.
DB_DOWN_REQUEUE_S = _num("DB_DOWN_REQUEUE_S", 5)
# How long a migration (`autograder db upgrade`) waits for a table lock on PostgreSQL before it gives
# up with the database unchanged. A lock it waits for queues every later writer of that table behind
# it (uploads, claims, heartbeats): a deploy run beside a transaction left open must fail and be run
# again, not stall the service for as long as that transaction lasts.
MIGRATION_LOCK_TIMEOUT_S = _num("MIGRATION_LOCK_TIMEOUT_S", 10)

# --- instructor tools (app/course.py, app/roster.py, grading/similarity.py) ----------------------
# How long a one-time sign-in link stays valid (hours): long enough to reach a student by email
# over a weekend, short enough that a forgotten link is soon useless.
SIGNIN_LINK_TTL_H = _num("SIGNIN_LINK_TTL_H", 72)
# Similarity pairs at or above this fraction of shared (non-boilerplate) code are shown. A pair is
# a lead for a human, never a penalty. 0.5 keeps independent solutions of a 40-line lab out.
SIMILARITY_THRESHOLD = _num("SIMILARITY_THRESHOLD", 0.5)
# copydetect's k-gram length and winnowing window (characters of the normalised token stream);
# copydetect's defaults are 25 and 1: short enough for 40-line files, long enough that common
# one-liners (`weights = torch.softmax(scores, dim=-1)`) alone do not make a match.
SIMILARITY_NOISE_K = _int("SIMILARITY_NOISE_K", 25)
SIMILARITY_WINDOW = _int("SIMILARITY_WINDOW", 1)
# How long Celery waits for a new pool process to warm up (torch, zygote, suites) and report up
# before killing it; the default 4 s is too short on a loaded 2-core host.
WORKER_PROC_ALIVE_TIMEOUT_S = _num("WORKER_PROC_ALIVE_TIMEOUT_S", 120)
# `autograder worker` restarts a Celery worker that exited unasked after this pause, doubling up
# to the maximum while it keeps failing (worker/supervisor.py).
WORKER_RESTART_BACKOFF_S = _num("WORKER_RESTART_BACKOFF_S", 1)
WORKER_RESTART_BACKOFF_MAX_S = _num("WORKER_RESTART_BACKOFF_MAX_S", 30)

# --- the course's time zone (app/course.py, instructor pages, `autograder assignment add`) --------
# IANA name of the zone staff think in. A deadline typed on an instructor page or given to the CLI
# without an offset is read in it (DST-correct; a local time a DST change skips or repeats is
# refused), and those inputs show stored deadlines in it. Stored times stay UTC; the API reads an
# ISO 8601 value without an offset as UTC, as it always has; student pages show the reader's zone.
COURSE_TIMEZONE = _str("COURSE_TIMEZONE", "Asia/Shanghai").strip()

# Names of the chain, in order, for check() and its message.
TIMEOUT_CHAIN = (
    "CALL_TIMEOUT_S", "IMPORT_TIMEOUT_S", "SESSION_WALL_S", "GRADING_BUDGET_S", "GRADING_WALL_S",
    "TASK_SOFT_TIME_LIMIT_S", "TASK_HARD_TIME_LIMIT_S", "RUN_DEADLINE_S",
)


def check(values: Mapping[str, float] | None = None) -> None:
    """Refuse a configuration whose timeouts are out of order (or not positive).

    `values` overrides module values by name (the Flask config passes its own)."""
    v = {name: float(globals()[name]) for name in (*TIMEOUT_CHAIN, "BROKER_VISIBILITY_S", "GRADING_CPU_BUDGET_S",
                                                   "REVIEW_CPU_S", "HINT_CPU_S", "IDLE_WINDOW_S", "IDLE_TOTAL_S",
                                                   "MIGRATION_LOCK_TIMEOUT_S")}
    if values:
        v.update({k: float(x) for k, x in values.items() if k in v and x is not None})
    for name, x in v.items():
        if not x > 0:
            raise SettingsError(f"{name} must be a positive number of seconds, not {x:g}")
    given = (values or {}).get("WALL_BACKSTOP")
    backstop = float(WALL_BACKSTOP if given is None else given)
    if not backstop >= 1:
        raise SettingsError(f"WALL_BACKSTOP ({backstop:g}) must be at least 1: a call's wall limit is that many "
                            "times its CPU limit, and less would stop a call before it had used its CPU")
    for a, b in zip(TIMEOUT_CHAIN, TIMEOUT_CHAIN[1:], strict=False):
        if not v[a] < v[b]:
            chain = " < ".join(f"{n} ({v[n]:g})" for n in TIMEOUT_CHAIN)
            raise SettingsError(f"{a} ({v[a]:g}) must be less than {b} ({v[b]:g}); the chain is {chain}")
    # A session's wall limit (SESSION_WALL_S, cut to what is left of the budget) does not count the time host
    # load took from its jail, up to WALL_BACKSTOP times the limit (zygote.Jail.wall_over): the last session the
    # budget allows a full limit, so credited, must still end before the trusted side's own limit.
    given = (values or {}).get("GRADING_LOAD_CREDIT_S")
    credit = float(GRADING_LOAD_CREDIT_S if given is None else given)
    if not credit >= 0:
        raise SettingsError(f"GRADING_LOAD_CREDIT_S must not be negative, not {credit:g}")
    session, budget = v["SESSION_WALL_S"], v["GRADING_BUDGET_S"] + credit
    latest = max(0.0, budget - session) + backstop * min(session, budget)
    if not latest < v["GRADING_WALL_S"]:
        raise SettingsError(
            f"GRADING_WALL_S ({v['GRADING_WALL_S']:g}) must exceed the latest end of a session whose wall limit "
            f"host load stretched to WALL_BACKSTOP ({backstop:g}) times SESSION_WALL_S ({session:g}) within "
            f"GRADING_BUDGET_S and GRADING_LOAD_CREDIT_S ({budget:g}): {latest:g} s")
    _check_decoding(values)
    _check_longpoll(values)
    _check_timezone(values)
    if v["BROKER_VISIBILITY_S"] < v["RUN_DEADLINE_S"]:
        raise SettingsError(
            f"BROKER_VISIBILITY_S ({v['BROKER_VISIBILITY_S']:g}) must be at least RUN_DEADLINE_S "
            f"({v['RUN_DEADLINE_S']:g}): Redis would redeliver a run that is still being graded"
        )


def _check_decoding(values: Mapping[str, float] | None) -> None:
    """The decoder's limits: positive, the CPU limit inside the wall limits, at least one slot."""
    names = ("DECODE_CPU_S", "DECODE_WALL_S", "DECODE_BUSY_WALL_S", "DECODE_SLOTS", "DECODE_QUEUE",
             "DECODE_SLOT_WAIT_S", "DECODE_BUSY_RETRY_S")
    v = {name: float(globals()[name]) for name in names}
    if values:
        v.update({k: float(x) for k, x in values.items() if k in v and x is not None})
    for name in ("DECODE_CPU_S", "DECODE_WALL_S", "DECODE_BUSY_WALL_S", "DECODE_SLOTS"):
        if not v[name] > 0:
            raise SettingsError(f"{name} must be positive, not {v[name]:g}")
    for name in ("DECODE_QUEUE", "DECODE_SLOT_WAIT_S", "DECODE_BUSY_RETRY_S"):
        if v[name] < 0:
            raise SettingsError(f"{name} must not be negative, not {v[name]:g}")
    if not v["DECODE_WALL_S"] < v["DECODE_BUSY_WALL_S"]:
        raise SettingsError(
            f"DECODE_WALL_S ({v['DECODE_WALL_S']:g}) must be less than DECODE_BUSY_WALL_S "
            f"({v['DECODE_BUSY_WALL_S']:g}): a decode stuck without using CPU would never be refused"
        )


def _check_longpoll(values: Mapping[str, float] | None) -> None:
    """The long polls' limits: a wait of at most a positive number of seconds; counts never negative (0 slots: no
    wait at all, every poll answered at once; 0 per user: every wait refused)."""
    names = ("LONGPOLL_MAX_WAIT_S", "LONGPOLL_PER_USER", "LONGPOLL_SLOTS", "LONGPOLL_LIST_PER_USER",
             "LONGPOLL_LIST_SLOTS")
    v = {name: float(globals()[name]) for name in names}
    if values:
        v.update({k: float(x) for k, x in values.items() if k in v and x is not None})
    if not v["LONGPOLL_MAX_WAIT_S"] > 0:
        raise SettingsError(f"LONGPOLL_MAX_WAIT_S must be a positive number of seconds, not {v['LONGPOLL_MAX_WAIT_S']:g}")
    for name in names[1:]:
        if not v[name] >= 0:
            raise SettingsError(f"{name} must not be negative, not {v[name]:g}")


def _check_timezone(values: Mapping[str, object] | None) -> None:
    """COURSE_TIMEZONE must name a zone of the IANA database (a typo would put every deadline an
    instructor types in UTC, or fail on the first save)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    name = (values or {}).get("COURSE_TIMEZONE") or COURSE_TIMEZONE
    try:
        ZoneInfo(str(name))
    except (ZoneInfoNotFoundError, ValueError):
        raise SettingsError(
            f"COURSE_TIMEZONE={name!r} is not an IANA time zone name: give one such as Asia/Shanghai, "
            "Europe/Berlin or UTC"
        ) from None


def check_web_threads(threads: int, values: Mapping[str, float] | None = None) -> None:
    """Refuse a web process whose threads the waits could all take: decodes running and queued plus
    long polls must leave at least one thread for sign-in and pages (gunicorn's on_starting hook,
    autograder/gunicorn_conf.py, calls this with its --threads)."""
    names = ("DECODE_SLOTS", "DECODE_QUEUE", "LONGPOLL_SLOTS", "LONGPOLL_LIST_SLOTS")
    v = {name: int(globals()[name]) for name in names}
    if values:
        v.update({k: int(x) for k, x in values.items() if k in v and x is not None})
    held = sum(v.values())
    if threads <= held:
        parts = " + ".join(f"{n} ({v[n]})" for n in names)
        raise SettingsError(
            f"gunicorn --threads {threads} leaves no thread for pages: {parts} = {held} threads can be "
            f"waiting at once. Give gunicorn at least {held + 1} threads, or lower those settings."
        )


def as_dict() -> dict[str, object]:
    """Every tunable by name (upper-case module attributes), e.g. to seed the Flask config."""
    return {k: v for k, v in globals().items() if k.isupper() and k != "TIMEOUT_CHAIN"}
