# vart developer tasks. Needs GNU make and Python 3.11 (bpy 5.0 is built for
# 3.11 only). Everything else is installed into $(VENV) by `make venv`.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3 2>/dev/null)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.stamp
BLENDER_EXT := $(PY) tools/blender_ext.py

.DEFAULT_GOAL := test
.PHONY: venv test test-solver build bench demo clean

venv: $(STAMP)

# bpy 5.0 wheels exist for Python 3.11 only.
CHECK_PY311 = import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "error: %s is Python %d.%d, bpy 5.0 needs 3.11 (delete $(VENV) if it was made with it; choose with make PYTHON=/path/to/python3.11)" % (sys.executable, *sys.version_info[:2]))

# The stamp is touched only after a complete install, so an interrupted
# install is retried and an unchanged requirements file costs nothing.
$(STAMP): requirements-dev.txt
	@if [ ! -x $(PY) ]; then \
	  [ -n "$(PYTHON)" ] || { echo "error: neither python3.11 nor python3 is on PATH; run make PYTHON=/path/to/python3.11" >&2; exit 1; }; \
	  $(PYTHON) -c '$(CHECK_PY311)' && echo "$(PYTHON) -m venv $(VENV)" && $(PYTHON) -m venv $(VENV); \
	fi
	@$(PY) -c '$(CHECK_PY311)'
	$(PY) -m pip install -r requirements-dev.txt
	@touch $@

test: $(STAMP)
	$(PY) -m pytest -q

test-solver: $(STAMP)
	$(PY) -m pytest -q tests/solver

# Build the extension zip into dist/ with Blender's own tool, validating the
# source tree first and the built archive after.
build: $(STAMP)
	$(BLENDER_EXT) validate .
	@mkdir -p dist
	rm -f dist/*.zip
	$(BLENDER_EXT) build --source-dir . --output-dir dist
	@for zip in dist/*.zip; do $(BLENDER_EXT) validate "$$zip" || exit 1; done

# The closed-chain drag benchmark of ../shared/bench (bench/run.py --help for options):
# one table row per problem with the ratio to the best peer of PEERS.md.
bench: $(STAMP)
	$(PY) bench/run.py

# Story 1 (camera tilt) on the hexapod, headless: build with vart's operators, bake, export
# CSV / JSON / .path and a picture into demo_out/, print the figures (demo/demo.py).
# DEMO_ARGS="--docs docs/demo.png" also refreshes the README's picture.
DEMO_ARGS ?=
demo: $(STAMP)
	$(PY) demo/demo.py $(DEMO_ARGS)

# Removes build and test output; keeps $(VENV) (delete it by hand to rebuild).
clean:
	rm -rf dist demo_out .pytest_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +
