# Two commands do all the set-up: `make run` (the main job) and `make test` (every test).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint venv proto bench

# The rules core compiled by setup.py (mypyc); rebuilt when one of its sources changes.
NATIVE_SOURCES := server/kafana/games/tablic/capture.py server/kafana/games/tablic/state.py \
	bots/kafana_bots/sim.py
NATIVE := $(VENV)/.native
# The differential tests, run again on the pure build (KAFANA_PURE=1): it stays the reference.
PURE_TESTS := tests/games/tablic tests/bots/test_bots_sim.py tests/test_build.py \
	tests/reliability/test_cache_bounds_pure.py

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP) $(NATIVE)

$(NATIVE): $(STAMP) $(NATIVE_SOURCES)
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	touch $(NATIVE)

venv: $(NATIVE)

run: $(NATIVE)
	$(BIN)/kafana serve $(ARGS)

test: $(NATIVE)
	scripts/ensure-redis
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest
	KAFANA_PURE=1 $(BIN)/python -m pytest -q $(PURE_TESTS)

lint: $(NATIVE)
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy

bench: $(NATIVE)
	$(BIN)/python loadtests/bench_core.py
