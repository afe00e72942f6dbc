"""Browser tests: the real app served by a werkzeug thread on the test PostgreSQL, driven by
Debian's Chromium through Playwright. A background thread plays the grading worker, using the
worker's own database steps (worker.runs.claim / store_result)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.browser.helpers import CHROMIUM
from tests.web.conftest import course, limited_app, web  # noqa: F401 - shared fixtures


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (apt-get install -y chromium): browser tests need it")
    return CHROMIUM


@pytest.fixture
def live_server(app):
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=chromium_path,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"],
        )
        yield b
        b.close()


