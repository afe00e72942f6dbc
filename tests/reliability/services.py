"""Private servers for fault tests: a `redis-server` and a PostgreSQL cluster of our own, on free
ports, so restarting or stopping them disturbs nobody else on the machine (or in CI).

The PostgreSQL cluster is made with `initdb` into a temporary folder owned by the `postgres` user
(PostgreSQL refuses to run as root) and started and stopped with `pg_ctl`.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, timeout: float, up: bool = True) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                if up:
                    return
        except OSError:
            if not up:
                return
        time.sleep(0.05)
    raise TimeoutError(f"port {port} still {'closed' if up else 'open'} after {timeout} s")


class PrivateRedis:
    """A `redis-server` without persistence: a restart loses every key, as an unconfigured Redis
    (or one that crashed between snapshots) does."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.log = folder / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        exe = shutil.which("redis-server")
        if exe is None:
            raise FileNotFoundError("redis-server")
        self.proc = subprocess.Popen(
            [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder), "--logfile", str(self.log)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port, 10)
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()  # a crash: no goodbye to the clients
            self.proc.wait(10)
        _wait_port(self.port, 10, up=False)

    def restart(self, down_s: float) -> None:
        self.stop()
        time.sleep(down_s)
        self.start()

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


def can_run_private_postgres() -> str | None:
    """None when a private cluster can be made here, else the reason it cannot."""
    if pg_bin() is None:
        return "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin"
    if os.geteuid() != 0:
        return "making a cluster as the postgres user needs root"
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return "no postgres user"
    return None


class PrivatePostgres:
    """`initdb` + `pg_ctl` on a free port, trust authentication on 127.0.0.1 only."""

    def __init__(self) -> None:
        self.bin = pg_bin()
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="autograder-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "postgres.log"
        pw = pwd.getpwnam("postgres")
        self._uid, self._gid = pw.pw_uid, pw.pw_gid
        os.chown(self.folder, self._uid, self._gid)

    def _run(self, *args: str, timeout: float = 60) -> None:
        subprocess.run(list(args), check=True, user=self._uid, group=self._gid, timeout=timeout,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=self.folder)

    def init(self) -> PrivatePostgres:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "--no-sync", "-E", "UTF8")
        return self

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", opts, "-w",
                  "start")

    def stop(self) -> None:
        # Fast: open connections are cut, as when the server restarts or fails over.
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def admin_url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def create_database(self, name: str) -> str:
        from sqlalchemy import create_engine, text

        engine = create_engine(self.admin_url(), isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        engine.dispose()
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def destroy(self) -> None:
        try:
            self.stop()
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)
