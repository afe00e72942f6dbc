"""docker-compose.yml describes a deployable service (no Docker engine here: we parse it)."""

from pathlib import Path

import yaml

COMPOSE = yaml.safe_load((Path(__file__).resolve().parents[2] / "docker-compose.yml").read_text())


def test_compose_names_web_worker_redis_and_postgres_roles():
    assert {"web", "worker", "redis", "postgres", "migrate"} <= set(COMPOSE["services"])


def test_web_and_worker_share_one_image_and_the_same_wiring():
    web, worker = COMPOSE["services"]["web"], COMPOSE["services"]["worker"]
    assert web["image"] == worker["image"]
    for svc in (web, worker):
        env = svc["environment"]
        assert env["DATABASE_URL"].startswith("postgresql+psycopg://") and "@postgres:" in env["DATABASE_URL"]
        assert env["REDIS_URL"].startswith("redis://redis:")
        assert "SECRET_KEY" in env


def test_a_worker_shares_no_disk_with_the_web_or_other_workers():
    web, worker = COMPOSE["services"]["web"], COMPOSE["services"]["worker"]
    named = set(COMPOSE.get("volumes") or {})
    worker_volumes = [v.split(":")[0] for v in worker.get("volumes", [])]
    assert worker_volumes == ["/data"]             # an anonymous volume: one per container
    assert not named & set(worker_volumes)
    assert worker["environment"]["DATA_DIR"] == "/data"
    assert any(v.startswith("uploads:") for v in web["volumes"])


def test_migrations_run_once_before_the_web_starts():
    assert COMPOSE["services"]["migrate"]["command"] == ["autograder", "db", "upgrade"]
    assert COMPOSE["services"]["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert COMPOSE["services"]["worker"]["command"][:2] == ["autograder", "worker"]


def test_every_stateful_service_has_a_healthcheck():
    for name in ("postgres", "redis", "web"):
        assert "healthcheck" in COMPOSE["services"][name], name


def test_web_and_worker_restart_unless_stopped():
    for name in ("web", "worker", "postgres", "redis", "proxy"):
        assert COMPOSE["services"][name]["restart"] == "unless-stopped", name


def test_the_worker_healthcheck_checks_heartbeats_not_a_path_that_always_exists():
    check = COMPOSE["services"]["worker"]["healthcheck"]["test"]
    assert check == ["CMD", "autograder", "worker", "--check"]


def test_the_worker_drops_every_capability_but_those_the_sandbox_needs():
    worker = COMPOSE["services"]["worker"]
    assert worker["cap_drop"] == ["ALL"]
    assert sorted(worker["cap_add"]) == ["KILL", "SETGID", "SETUID", "SYS_ADMIN"]
    assert "no-new-privileges:true" in worker["security_opt"]


def test_the_web_role_is_served_with_the_checked_gunicorn_settings_in_compose_and_the_image():
    # -c python:autograder.gunicorn_conf brings the thread count and the start-up check that waits
    # cannot take every thread; both launch lines must load it.
    import json
    import re

    expected = ["gunicorn", "-c", "python:autograder.gunicorn_conf"]
    assert COMPOSE["services"]["web"]["command"][:3] == expected
    dockerfile = (Path(__file__).resolve().parents[2] / "Dockerfile").read_text()
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", dockerfile, re.M).group(1))
    assert cmd[:3] == expected and cmd[-1] == "app.wsgi:app"
