"""Real servers for HTTP tests: gunicorn (the production command), nginx with deploy/nginx.conf,
a private redis-server, and a small cookie-keeping HTTP client (stdlib only)."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = Path(sys.executable).parent / "gunicorn"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listening on {port} after {timeout} s:\n{log.read_text()[-3000:]}")


def stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM the server's main process, then SIGKILL what is left of its process group."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait(timeout=10)


@contextmanager
def gunicorn(env: dict[str, str], log: Path, *, workers: int = 1, threads: int = 16,
             cpus: set[int] | None = None) -> Iterator[int]:
    """`gunicorn -c python:autograder.gunicorn_conf -w N --threads T app.wsgi:app` (the Dockerfile's
    command) on a free loopback port; yields the port.
    `cpus`: the server and every process it starts run on these CPUs only (a loaded host, made
    on purpose by pinning CPU hogs to the same CPUs)."""
    port = free_port()
    command = [str(GUNICORN), "-c", "python:autograder.gunicorn_conf", "-w", str(workers), "--threads", str(threads),
               "-b", f"127.0.0.1:{port}", "--graceful-timeout", "2", "app.wsgi:app"]
    if cpus:
        command = ["taskset", "-c", ",".join(map(str, sorted(cpus))), *command]
    with open(log, "ab") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        wait_for_port(port, proc, log)
        yield port
    finally:
        stop_group(proc)


@contextmanager
def nginx(upstream_port: int, workdir: Path, edits: dict[str, str] | None = None) -> Iterator[int]:
    """nginx running deploy/nginx.conf as shipped, with only its upstream and listen address
    pointed at this machine's ports (and `edits`: text -> replacement, e.g. a lower limit to reach
    in a test); yields the proxy's port."""
    port = free_port()
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    for old, new in (edits or {}).items():
        assert old in conf, old
        conf = conf.replace(old, new)
    conf = conf.replace("server web:8000;", f"server 127.0.0.1:{upstream_port};")
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{port};")
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "nginx.conf").write_text(conf)
    log = workdir / "error.log"
    directives = f"daemon off; pid {workdir / 'nginx.pid'}; error_log {log} info;"
    with open(workdir / "stdout.log", "ab") as out:
        proc = subprocess.Popen(
            [NGINX, "-p", str(workdir), "-c", str(workdir / "nginx.conf"), "-g", directives],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        wait_for_port(port, proc, workdir / "stdout.log")
        yield port
    finally:
        stop_group(proc)


class RedisServer:
    """A private redis-server on a free port, to stop and start at will (outage tests)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        wait_for_port(self.port, self.proc, self.workdir / "none.log", timeout=20)

    def stop(self) -> None:
        if self.proc is not None:
            stop_group(self.proc)
            self.proc = None


# --- a small HTTP client ------------------------------------------------------------------------


@dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    body: bytes
    seconds: float

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    @property
    def location(self) -> str:
        return self.headers.get("Location", "")

    def json(self) -> dict:
        import json

        return json.loads(self.body)


CSRF_FIELD = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


@dataclass
class Client:
    """One browser: keeps cookies, never follows redirects, speaks to one host:port."""

    port: int
    headers: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)
    timeout: float = 30

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> Reply:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        sent = {**self.headers, **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        t0 = time.monotonic()
        try:
            conn.request(method, path, body=body, headers=sent)
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        for raw in resp.headers.get_all("Set-Cookie") or []:
            jar = SimpleCookie()
            jar.load(raw)
            for name, morsel in jar.items():
                expired = morsel["expires"] and "1970" in morsel["expires"] or morsel["max-age"] == "0"
                if expired or morsel.value == "":
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        return Reply(resp.status, resp.headers, data, time.monotonic() - t0)

    def get(self, path: str, **kw: object) -> Reply:
        return self.request("GET", path, **kw)

    def post_form(self, path: str, data: dict[str, str], headers: dict[str, str] | None = None) -> Reply:
        return self.request("POST", path, urlencode(data).encode(),
                            {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})})

    def csrf(self, path: str = "/login") -> str:
        match = CSRF_FIELD.search(self.get(path).text)
        assert match, f"no CSRF field on {path}"
        return match.group(1)

    def sign_in(self, email: str, password: str, *, remember: bool = False, next_: str | None = None,
                headers: dict[str, str] | None = None) -> Reply:
        form = {"csrf_token": self.csrf(), "email": email, "password": password}
        if remember:
            form["remember"] = "y"
        path = "/login" + (f"?{urlencode({'next': next_})}" if next_ is not None else "")
        return self.post_form(path, form, headers)

    def sign_out(self) -> Reply:
        return self.post_form("/logout", {"csrf_token": self.csrf("/")})


def multipart(fields: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    """A multipart/form-data body of files: {field: (filename, data)}."""
    boundary = "----autograder-test-boundary"
    parts = []
    for name, (filename, data) in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n"
        )
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def is_local_path(location: str) -> bool:
    """A redirect target a browser resolves on this site (a path, no scheme, no host)."""
    parts = urlsplit(location)
    host_free = not parts.scheme and not parts.netloc and not location.startswith(("//", "/\\"))
    return host_free and location.startswith("/")
