# Two commands do all the set-up: `make run` (the main job) and `make test` (every test).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint venv proto bench lock client-dist

# The rules core compiled by setup.py (mypyc, and C for captures() and the simulator's
# playouts); rebuilt when one of its sources changes, or a module mypyc reads with them (what
# they import: kafana.games and kafana.errors), whose types the compiled code was built on.
NATIVE_SOURCES := server/kafana/games/tablic/capture.py server/kafana/games/tablic/state.py \
	bots/kafana_bots/sim.py server/kafana/games/tablic/_ccore.c \
	$(wildcard server/kafana/games/*.py server/kafana/games/tablic/*.py) server/kafana/errors.py
NATIVE := $(VENV)/.native
# The differential tests, run again on the pure build (KAFANA_PURE=1): it stays the reference.
PURE_TESTS := tests/games/tablic tests/bots/test_bots_sim.py tests/bots/test_bots_fast_playout.py \
	tests/test_build.py \
	tests/reliability/test_cache_bounds_pure.py

# Every dependency (build, server, tests, tools) pinned with hashes in requirements/lock.txt;
# `make lock` makes it anew from pyproject.toml and requirements/build.in. The project itself is
# then installed once, by $(NATIVE), built with the pinned mypyc (no isolated build: one compile).
LOCK := requirements/lock.txt
# uv installs the lock (pip took 48 s here, uv 10 s); pip installs uv itself, hashed too.
$(STAMP): pyproject.toml setup.py $(LOCK) requirements/uv.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --require-hashes --no-deps -r requirements/uv.txt
	$(BIN)/uv pip install -q --python $(BIN)/python --require-hashes --no-deps -r $(LOCK)
	touch $(STAMP)

$(NATIVE): $(STAMP) $(NATIVE_SOURCES)
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	touch $(NATIVE)

venv: $(NATIVE)

# buf (scripts/buf-check) from npm, pinned in package.json and package-lock.json.
NODE_TOOLS := node_modules/.installed
# and the web app's own (axe-core for the browser tests' accessibility checks).
$(NODE_TOOLS): package.json package-lock.json clients/web/package.json clients/web/package-lock.json
	npm ci --no-audit --no-fund
	npm ci --prefix clients/web --no-audit --no-fund
	touch $(NODE_TOOLS)

# gRPC on 50051 (--port), Connect and gRPC-Web for browsers on HTTP_PORT (--http).
HTTP_PORT ?= 8080
run: $(NATIVE)
	scripts/ensure-redis
	$(BIN)/kafana serve --http $(HTTP_PORT) $(ARGS)

# Test workers: one more than the cores (2 here), as many tests wait on servers, Redis and
# browsers: 746 s of tests with 2 workers, 555 s with 3 (7 Dec, one run each).
WORKERS ?= 3
test: $(NATIVE) $(NODE_TOOLS)
	scripts/ensure-redis
	scripts/ensure-chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	scripts/buf-check
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadfile
	KAFANA_PURE=1 $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadfile $(PURE_TESTS)

lint: $(NATIVE)
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy

bench: $(NATIVE)
	$(BIN)/python loadtests/bench_core.py

# Pin every dependency anew (then `make venv` installs exactly that; commit the lock file).
lock: $(NATIVE)
	$(BIN)/uv pip compile pyproject.toml requirements/build.in --extra dev --generate-hashes \
		--universal --python-version 3.11 -o $(LOCK)
	$(BIN)/uv pip compile requirements/uv.in --generate-hashes --universal --python-version 3.11 \
		-c $(LOCK) -o requirements/uv.txt

# The client-only wheel (SDK, generated code, rules core, bots; no server) into dist/.
client-dist: $(NATIVE)
	$(BIN)/python scripts/build_client.py --out dist
