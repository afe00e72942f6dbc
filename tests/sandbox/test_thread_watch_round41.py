"""Round 41 (E): the thread watch (zygote.ThreadWatch, the kernel's proc connector) where it cannot apply.

In the docker-compose deployment the worker has its own pid and network namespaces: the kernel takes no proc
connector request there, so the watch was silently absent and nothing said so. The zygote now reports why there is no
watch at its start (tried once: a request the kernel refuses is known then, not at the first jail), the executor keeps
it (``Executor.thread_watch_off``) and logs it once per process and reason; the README's deployment section says the
watch is off there, and why it is not made to work.
"""

from __future__ import annotations

import errno
import logging
import re
from pathlib import Path

import pytest
import yaml

from grading.sandbox import client, zygote

ROOT = Path(__file__).resolve().parents[2]


def test_a_watch_outside_the_hosts_namespaces_says_why_it_is_off(monkeypatch):
    monkeypatch.setattr(zygote, "in_host_namespaces", lambda: False)
    watch = zygote.ThreadWatch()
    assert watch.fileno() is None
    assert "not in the host's pid and user namespaces" in watch.off


def test_a_request_the_kernel_refuses_closes_the_watch_and_says_why(monkeypatch):
    watch = zygote.ThreadWatch()
    if watch.fileno() is None:
        pytest.skip(f"no thread watch on this host: {watch.off}")
    assert watch.off is None

    def refused(fd, op):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(zygote, "_set_membership", refused)
    watch.listen(True)
    assert watch.fileno() is None
    assert watch.off.startswith("the kernel refused the proc connector request: ") and "not permitted" in watch.off


def test_why_the_watch_is_off_is_logged_once_per_process_and_reason(monkeypatch, caplog):
    monkeypatch.setattr(client, "_thread_watch_told", set())
    with caplog.at_level(logging.WARNING, logger="grading.sandbox.client"):
        for _ in range(3):          # the worker restarts its executors: each start reports the same reason
            client._log_thread_watch_off("not in the host's pid and user namespaces")
        client._log_thread_watch_off(None)
    said = [r.getMessage() for r in caplog.records if r.name == "grading.sandbox.client"]
    # (since mend 41 it also says a fault is named only where the kernel's log is read: test_thread_watch_mend_round41)
    assert said == ["sandbox thread watch off: not in the host's pid and user namespaces; a fault the kernel logs for "
                    "a jail's thread is named only for a thread a CPU check saw, and only where the zygote reads the "
                    "kernel's log (/dev/kmsg; in docker-compose it does not, and no fault is named) (README, "
                    "\"Deployment\")"], said


def test_the_executor_reports_whether_its_zygote_has_a_watch(executor):
    if zygote.in_host_namespaces():
        assert executor.thread_watch_off is None      # root in the host's namespaces: the watch applies
    else:
        assert "namespaces" in executor.thread_watch_off


def test_the_readme_deployment_section_says_the_compose_worker_has_no_thread_watch_and_why():
    worker = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["worker"]
    # what the README says holds: the worker keeps its own pid and network namespaces and has no NET_ADMIN
    assert "pid" not in worker and "network_mode" not in worker and "NET_ADMIN" not in worker["cap_add"]
    readme = (ROOT / "README.md").read_text()
    deployment = readme[readme.index("Deployment (`docker-compose.yml`):"):readme.index("**Deployment behind TLS.**")]
    said = re.sub(r"\s+", " ", deployment)
    assert "no thread watch there, on purpose" in said, said
    assert "logs it once per process (`sandbox thread watch off:" in said, said
