# One entry point for people and CI. Everything a fresh machine needs is installed from here.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: install system-deps translations run test test-slow test-all lint bench screenshots clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) system-deps translations

# The compiled catalogue is built, not committed: .po files merge as text (see .gitattributes).
translations: $(STAMP)
	$(BIN)/pybabel compile --statistics -d app/translations

# bubblewrap is not needed (the sandbox uses namespaces directly), but chromium is for browser tests
# and nginx for the tests that run deploy/nginx.conf in front of gunicorn.
system-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null) || echo "chromium not installed: browser tests will be skipped"; \
	  else echo "chromium missing and not root: browser tests will be skipped"; fi; }
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { \
	  if [ "$$(id -u)" = 0 ]; then (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null) || echo "nginx not installed: proxy tests will be skipped"; \
	  else echo "nginx missing and not root: proxy tests will be skipped"; fi; }

run: install
	$(BIN)/autograder db upgrade
	$(BIN)/autograder demo
	$(BIN)/autograder run --host $(HOST) --port $(PORT)

# The fast lane: everything but the tests that start real services for minutes (marked `slow`:
# tests/reliability, tests/browser). CI runs both lanes (.ci/run).
test: install
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

test-slow: install
	$(BIN)/python -m pytest -m slow $(PYTEST_ARGS)

test-all: install
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .

bench: install
	$(BIN)/python bench/grade_one.py

clean:
	rm -rf $(VENV) instance .pytest_cache

screenshots: install
	SCREENSHOT_DIR=docs/screenshots $(BIN)/python -m pytest tests/browser -q
