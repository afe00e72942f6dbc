"""Deadline load through the real HTTP API: N students upload at once and wait for their results.

Starts everything as production does, on a fresh PostgreSQL database and a free Redis database:
`autograder db upgrade`, `autograder web` (a real server process) and `autograder worker
--concurrency 2` (``--workers`` of them). Then

1. *idle latency*: one upload at a time against a warm worker (upload -> graded result, polled
   through `GET /api/v1/submissions/<id>`), ``--idle`` times;
2. *load*: ``--students`` (20) threads start together; each uploads ``--attempts`` (3) times,
   waiting for the result of one attempt before the next (the way students resubmit);
3. a bare ``python -c "import torch"`` in the same run, the cost a cold grading would pay.

Reports throughput (gradings/s), p50/p95 upload-to-result latency, their ratio to the bare torch
import, and the idle single-upload latency; writes bench/results/load.json. Everything it
created (database, Redis keys, processes, temporary folder) is removed afterwards.

    .venv/bin/python bench/load.py [--students 20] [--attempts 3] [--workers 1] [--idle 10]

Needs PostgreSQL (admin URL from BENCH_PG_ADMIN_URL or TEST_PG_ADMIN_URL, default
postgresql+psycopg://postgres@127.0.0.1:5432/test) and Redis at 127.0.0.1:6379.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import bare_torch_import_seconds, session_processes, summary, write  # noqa: E402

BIN = Path(sys.executable).parent / "autograder"
CORRECT = ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py"
PG_ADMIN_URL = os.environ.get("BENCH_PG_ADMIN_URL") or os.environ.get(
    "TEST_PG_ADMIN_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REDIS_BASE = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379")
REDIS_LOCK = "autograder:bench:lock"


# --- shared with bench/dashboard.py -------------------------------------------------------------


@contextmanager
def fresh_database(prefix: str = "autograder_bench"):
    """A new, empty PostgreSQL database (URL yielded), dropped afterwards."""
    from tests.helpers import scratch_pg_database

    with scratch_pg_database(prefix, PG_ADMIN_URL) as url:
        yield url


@contextmanager
def free_redis_db():
    """A Redis database nobody uses (only kombu binding keys, no lock of ours), emptied afterwards."""
    import redis

    me = uuid.uuid4().hex
    for n in (3, 2, 1, 4, 5, 6, 7, 8):
        client = redis.Redis.from_url(f"{REDIS_BASE}/{n}")
        busy = [k for k in client.scan_iter(count=100) if not k.startswith(b"_kombu.binding")]
        if busy or not client.set(REDIS_LOCK, me, nx=True, ex=3600):
            continue
        try:
            yield f"{REDIS_BASE}/{n}"
        finally:
            for key in client.scan_iter(count=500):
                if key != REDIS_LOCK.encode():
                    client.delete(key)
            if client.get(REDIS_LOCK) == me.encode():
                client.delete(REDIS_LOCK)
        return
    raise SystemExit("no free Redis database")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- service processes --------------------------------------------------------------------------


def service_env(data_dir: Path, db_url: str, redis_url: str) -> dict[str, str]:
    env = dict(os.environ)
    # `autograder web` runs a thread per request, so the per-process long-poll slots (sized for
    # gunicorn's --threads) would only make the bench's students re-poll: allow one per student.
    env.update(DATA_DIR=str(data_dir), DATABASE_URL=db_url, REDIS_URL=redis_url, SECRET_KEY="bench-secret",
               SUBMIT_RATE_LIMIT="1000 per minute", API_RATE_LIMIT="100000 per minute", LONGPOLL_SLOTS="256")
    return env


def spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "ab") as out:
        return subprocess.Popen([str(BIN), *args], env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def terminate(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue


def session_cpu_seconds(sid: int) -> float:
    """CPU used so far by every live process of session ``sid`` and by the children they have
    reaped: the web server's or a worker's whole tree (pool processes, pytest children, zygotes
    and jails)."""
    return sum(own + kids for _, own, kids in session_processes(sid).values())


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has spent not idle (every engineer's work included)."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def wait_until(predicate, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise SystemExit(f"timed out waiting for {what}")


# --- HTTP client --------------------------------------------------------------------------------


def request(method: str, url: str, token: str, body: bytes | None = None, ctype: str | None = None):
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if ctype:
        headers["Content-Type"] = ctype
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def upload(base: str, token: str, code: bytes) -> tuple[int, dict]:
    boundary = uuid.uuid4().hex
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="code"; filename="attention.py"\r\n'
        "Content-Type: text/x-python\r\n\r\n"
    ).encode() + code + f"\r\n--{boundary}--\r\n".encode()
    return request("POST", f"{base}/api/v1/submissions", token, body, f"multipart/form-data; boundary={boundary}")


def upload_and_wait(base: str, token: str, code: bytes, poll: float) -> tuple[float, dict]:
    """Seconds from the upload request to a finished result, and the final body."""
    t0 = time.perf_counter()
    status, body = upload(base, token, code)
    if status != 202:
        raise RuntimeError(f"upload refused: {status} {body}")
    url = f"{base}/api/v1/submissions/{body['id']}"
    if poll <= 0:
        url += "?wait=20"  # long-poll: the server answers as soon as the run is stored
    while True:
        status, body = request("GET", url, token)
        if status == 200 and body.get("status") in ("graded", "error"):
            return time.perf_counter() - t0, body
        if poll > 0:
            time.sleep(poll)


def make_students(db_url: str, data_dir: Path, n: int) -> list[str]:
    """n students with API tokens (no passwords: the API needs none), and the assignment."""
    os.environ["DATA_DIR"] = str(data_dir)
    from app import create_app
    from app.assignments import ensure_assignment
    from app.extensions import db
    from app.models import ApiToken, User

    app = create_app(SQLALCHEMY_DATABASE_URI=db_url, CELERY_BROKER_URL="memory://")
    tokens = []
    with app.app_context():
        ensure_assignment("attention", "Attention", "attention")
        for i in range(n):
            user = User(email=f"student{i:04d}@bench.example.edu", name=f"Student {i}", role="student")
            row, secret = ApiToken.issue(user)
            db.session.add_all([user, row])
            tokens.append(secret)
        db.session.commit()
        db.session.remove()
        db.engine.dispose()
    return tokens


def idle_breakdown(db_url: str, n: int, latencies: list[float]) -> dict[str, float]:
    """Where the idle uploads' time went, by the database's clock (median ms): ``queue`` from the
    run's insert to its claim (commit, Redis, Celery's dispatch), ``claim_to_store`` (the
    grading and the claim/store statements), and ``http`` the rest of what the client saw (the
    upload request before its commit, the long-poll's wake-up and answer after the store)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT queued_at, started_at, finished_at FROM grading_runs "
                "WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT :n"), {"n": n}).all()
    finally:
        engine.dispose()
    rows = rows[::-1]
    queue = [(r.started_at - r.queued_at).total_seconds() for r in rows]
    grading = [(r.finished_at - r.started_at).total_seconds() for r in rows]
    http = [lat - q - g for lat, q, g in zip(latencies[-len(rows):], queue, grading, strict=True)]
    import statistics

    return {k: round(statistics.median(v) * 1000, 1) for k, v in
            (("queue", queue), ("claim_to_store", grading), ("http", http))} if rows else {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--attempts", type=int, default=3, help="uploads per student, one after another")
    parser.add_argument("--workers", type=int, default=1, help="`autograder worker --concurrency 2` processes")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--idle", type=int, default=10, help="single uploads for the idle latency")
    parser.add_argument("--out", default="load", help="results file name under bench/results/ (no .json)")
    parser.add_argument("--poll", type=float, default=0,
                        help="seconds between a loaded student's status checks; 0 (default) long-polls "
                             "with GET /api/v1/submissions/<id>?wait=20")
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args()
    code = CORRECT.read_bytes()

    tmp = Path(tempfile.mkdtemp(prefix="autograder-load-"))
    procs: list[subprocess.Popen] = []
    with fresh_database() as db_url, free_redis_db() as redis_url:
        env = service_env(tmp / "data", db_url, redis_url)
        subprocess.run([str(BIN), "db", "upgrade"], env=env, check=True, capture_output=True)
        tokens = make_students(db_url, tmp / "data", args.students + 1)
        idle_token, tokens = tokens[0], tokens[1:]
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        try:
            procs.append(spawn(["web", "--host", "127.0.0.1", "--port", str(port)], env, tmp / "web.log"))
            for i in range(args.workers):
                procs.append(spawn(["worker", "--concurrency", str(args.concurrency), "--name", f"bench{i}@%h"],
                                   env, tmp / f"worker{i}.log"))
            wait_until(lambda: _healthy(base), 60, "the web server")
            for i in range(args.workers):
                wait_until(lambda i=i: b" ready." in (tmp / f"worker{i}.log").read_bytes(), 120, f"worker {i}")

            # Warm every pool process (first grading per process pays its caches), then idle latency.
            warm = [threading.Thread(target=upload_and_wait, args=(base, t, code, 0.05))
                    for t in tokens[: args.workers * args.concurrency]]
            for t in warm:
                t.start()
            for t in warm:
                t.join()
            idle, idle_totals = [], set()
            for _ in range(args.idle):
                seconds, body = upload_and_wait(base, idle_token, code, poll=0)
                idle.append(seconds)
                idle_totals.add((body.get("score") or {}).get("total"))

            idle_parts = idle_breakdown(db_url, args.idle, idle)

            # Deadline load: everyone at once, each resubmitting after seeing a result.
            latencies: list[float] = []
            totals: dict[object, int] = {}
            errors: list[str] = []
            lock = threading.Lock()
            barrier = threading.Barrier(len(tokens))

            def student(token: str) -> None:
                barrier.wait()
                for _ in range(args.attempts):
                    try:
                        seconds, body = upload_and_wait(base, token, code, poll=args.poll)
                    except Exception as exc:  # noqa: BLE001 - counted, reported
                        with lock:
                            errors.append(str(exc))
                        continue
                    with lock:
                        latencies.append(seconds)
                        total = (body.get("score") or {}).get("total") if body["status"] == "graded" else "error"
                        totals[total] = totals.get(total, 0) + 1

            threads = [threading.Thread(target=student, args=(t,)) for t in tokens]
            cpu0 = [session_cpu_seconds(p.pid) for p in procs]
            busy0, load0 = machine_busy_seconds(), os.getloadavg()
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t0
            busy = machine_busy_seconds() - busy0
            time.sleep(0.5)   # let the zygotes reap the last jails
            cpu = [session_cpu_seconds(p.pid) - c for p, c in zip(procs, cpu0, strict=True)]
        finally:
            for proc in procs:
                terminate(proc)
            if args.keep_logs:
                print(f"logs kept in {tmp}")
            else:
                import shutil

                shutil.rmtree(tmp, ignore_errors=True)

    bare = bare_torch_import_seconds(5)
    lat, idle_s, bare_s = summary(latencies), summary(idle), summary(bare)
    data = {
        "students": len(tokens),
        "attempts_per_student": args.attempts,
        "workers": args.workers,
        "concurrency_per_worker": args.concurrency,
        "poll_interval_s": args.poll,
        "gradings": len(latencies),
        "failed_uploads": errors[:10],
        "totals_seen": {str(k): v for k, v in totals.items()},
        "wall_seconds": wall,
        "throughput_gradings_per_s": len(latencies) / wall,
        "latency_seconds": lat,
        "latency_p50_s": lat["median"],
        "latency_p95_s": lat["p95"],
        "idle_single_upload_seconds": idle_s,
        # median ms of the idle uploads: queued -> claimed -> stored (database clock), and the rest
        "idle_breakdown_ms": idle_parts,
        "idle_totals_seen": sorted(str(t) for t in idle_totals),
        "bare_torch_import_seconds": bare_s,
        "ratio_p50_latency_to_bare_torch_import": lat["median"] / bare_s["median"],
        "ratio_idle_median_to_bare_torch_import": idle_s["median"] / bare_s["median"],
        "command": " ".join(["python", "bench/load.py", *sys.argv[1:]]),
        "load_average_before_burst": load0,
        # CPU per grading during the burst: the web server's tree, and all workers' trees
        # (pool processes, pytest children, zygotes, jails); the machine's busy time includes
        # PostgreSQL, Redis, the bench's clients and whatever else the shared machine ran.
        "burst_cpu_per_grading_s": {"web": cpu[0] / max(1, len(latencies)),
                                    "workers": sum(cpu[1:]) / max(1, len(latencies)),
                                    "machine_busy": busy / max(1, len(latencies))},
    }
    path = write(args.out, data)
    print(f"{len(tokens)} students x {args.attempts} attempts, {args.workers} worker(s) x {args.concurrency}: "
          f"{len(latencies)} gradings in {wall:.1f} s = {data['throughput_gradings_per_s']:.2f}/s")
    print(f"upload-to-result latency p50 {lat['median']:.2f} s, p95 {lat['p95']:.2f} s "
          f"(p50 / bare torch import = {data['ratio_p50_latency_to_bare_torch_import']:.2f})")
    print(f"idle single upload: median {idle_s['median'] * 1000:.0f} ms, p95 {idle_s['p95'] * 1000:.0f} ms; "
          f"bare python -c 'import torch': median {bare_s['median'] * 1000:.0f} ms")
    print("  of which (median ms): " + ", ".join(f"{k} {v}" for k, v in idle_parts.items()))
    per = data["burst_cpu_per_grading_s"]
    print(f"CPU per grading in the burst: web {per['web'] * 1000:.0f} ms, workers {per['workers'] * 1000:.0f} ms, "
          f"machine {per['machine_busy'] * 1000:.0f} ms (load average {load0[0]:.1f} before)")
    print(f"totals seen {data['totals_seen']}, failed uploads {len(errors)}; written to {path}")


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=2) as resp:
            return resp.status in (200, 503)
    except urllib.error.HTTPError as exc:
        return exc.code == 503
    except OSError:
        return False


if __name__ == "__main__":
    main()
