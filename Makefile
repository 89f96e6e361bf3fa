# `make up` runs the product, `make test` runs the tests; both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: up test test-ducklake test-docker docker-deps lint bench bench-more install clean browser-deps postgres-deps ducklake-deps

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "gpuprice needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

up: install
	$(BIN)/gpuprice up

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The dashboard's browser smoke test drives Debian's chromium (never a downloaded build);
# the CJK font is there so Chinese renders in its screenshots.
browser-deps:
	@if [ -x /usr/bin/chromium ] && dpkg -s fonts-wqy-microhei >/dev/null 2>&1; then \
		echo "browser-deps: chromium and fonts-wqy-microhei are installed"; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium fonts-wqy-microhei; \
	else \
		echo "browser-deps: not root, so not installing chromium fonts-wqy-microhei;" \
			"run 'sudo make browser-deps' (tests/browser fails without /usr/bin/chromium)"; \
	fi

# tests/deploy starts its own PostgreSQL (Debian's package) to check deploy/dagster.yaml.
postgres-deps:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		echo "postgres-deps: PostgreSQL is installed"; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql; \
	else \
		echo "postgres-deps: not root, so not installing postgresql;" \
			"run 'sudo make postgres-deps' (tests/deploy skips without it)"; \
	fi

# tests/deploy/test_ducklake*.py run the DuckLake recipe and the product's warehouse tests on
# a DuckLake in an environment of its own: the ducklake extension on PyPI loads only into
# DuckDB 1.5.5, not the product's 2.x; the rest is the product's own dependencies.
LAKE_VENV := .venv-ducklake
LAKE_STAMP := $(LAKE_VENV)/.installed-stamp
$(LAKE_STAMP): deploy/ducklake/requirements.txt deploy/ducklake/product_requirements.py pyproject.toml
	$(PYTHON) -m venv $(LAKE_VENV)
	$(LAKE_VENV)/bin/python deploy/ducklake/product_requirements.py > $(LAKE_VENV)/product-requirements.txt
	$(LAKE_VENV)/bin/python -m pip install --quiet -r deploy/ducklake/requirements.txt \
		-r $(LAKE_VENV)/product-requirements.txt
	@touch $(LAKE_STAMP)

ducklake-deps: $(LAKE_STAMP)

# Every warehouse test module on a PostgreSQL-catalog DuckLake, and make test's lake selection
# with the data path in S3 (a moto server); make test runs a selection of each.
test-ducklake: install postgres-deps ducklake-deps
	GPUPRICE_DUCKLAKE_FULL=1 $(BIN)/pytest tests/deploy/test_ducklake_product.py \
		tests/deploy/test_ducklake_s3.py

# Two workers (pytest-xdist), whole test files to each, so module fixtures are built once.
test: lint browser-deps postgres-deps ducklake-deps
	$(BIN)/pytest -n 2 --dist loadfile

# deploy/ as a user runs it, on a Docker engine this target installs and starts (as root:
# Debian's docker.io, the compose plugin from PyPI, local stand-ins for the two Docker Hub
# images; tests/deploy/docker/setup.sh). ~5 min from a fresh machine; .ci/run runs it after
# `make test`.
docker-deps:
	bash tests/deploy/docker/setup.sh

test-docker: install docker-deps
	GPUPRICE_DOCKER_TEST=1 $(BIN)/pytest tests/deploy/test_docker_deploy.py

# The figures of docs/PERFORMANCE.md beside their baselines: the warehouse at one and five
# years (bench/scale.py: ~30 min on 2 cores, ~33 GB of temporary disk, removed at the end;
# `make bench BENCH_YEARS=1` for the one-year size alone, ~6 min), then what a user waits
# for: `gpuprice run`, a 90-day backfill and `make up` from a fresh clone
# (bench/user_waits.py, ~10 min; the clone installs from the package registries), and the
# first render of every dashboard page (bench/dashboard_render.py, ~10 min at 1 and 5 years).
BENCH_YEARS ?= 1 5
bench: install
	$(BIN)/python bench/scale.py --years $(BENCH_YEARS)
	$(BIN)/python bench/user_waits.py --make-up
	$(BIN)/python bench/dashboard_render.py --years $(BENCH_YEARS)
	$(BIN)/python bench/recommend_startup.py
	$(BIN)/python bench/history_import.py

# The earlier, narrower benchmarks (demo backfill through Dagster with parsing and loading
# apart, derive on demo pages).
bench-more: install
	$(BIN)/python bench/backfill_throughput.py
	$(BIN)/python bench/derive_incremental.py

clean:
	rm -rf $(VENV) $(LAKE_VENV) var .pytest_cache
