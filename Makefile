# vart developer tasks. Needs GNU make and a python3 to start with; everything else is
# installed into a venv per supported Blender by `make venv`.
#
# BLENDER chooses the Blender (bpy from PyPI) that venv, test, build, bench and demo run in:
# 4.2, 4.5 and 5.0 run on Python 3.11, 5.2 on Python 3.13. Each has its own cached venv, made
# from requirements/blender-<version>.txt: .venv for the default (5.0), .venvs/blender-<version>
# for the others.

BLENDERS := 4.2 4.5 5.0 5.2
DEFAULT_BLENDER := 5.0
BLENDER ?= $(DEFAULT_BLENDER)
ifeq ($(filter $(BLENDER),$(BLENDERS)),)
$(error BLENDER=$(BLENDER) is not supported; choose one of $(BLENDERS))
endif
PYTHON_VERSION := $(if $(filter 5.2,$(BLENDER)),3.13,3.11)

# A python3 to run the dev tools that pick interpreters (any version will do).
BOOT_PYTHON := $(shell command -v python3 2>/dev/null || command -v python 2>/dev/null)
# The interpreter a new venv is made with: PYTHON=... to choose, else the first working
# python<PYTHON_VERSION> on PATH, in pyenv's versions or the usual prefixes (tools/find_python.py).
PYTHON ?= $(shell $(BOOT_PYTHON) tools/find_python.py $(PYTHON_VERSION) 2>/dev/null)

VENV := $(if $(filter $(DEFAULT_BLENDER),$(BLENDER)),.venv,.venvs/blender-$(BLENDER))
REQUIREMENTS := requirements/blender-$(BLENDER).txt
PY := $(VENV)/bin/python
STAMP := $(VENV)/.stamp
BLENDER_EXT := $(PY) tools/blender_ext.py

.DEFAULT_GOAL := test
.PHONY: venv wheels test test-all test-solver lint build bench demo clean

venv: $(STAMP)

CHECK_PY = import sys; sys.exit(0 if sys.version_info[:2] == tuple(map(int, "$(PYTHON_VERSION)".split("."))) else "error: %s is Python %d.%d, Blender $(BLENDER) needs $(PYTHON_VERSION) (delete $(VENV) if it was made with it; choose with make PYTHON=/path/to/python$(PYTHON_VERSION))" % (sys.executable, *sys.version_info[:2]))

# The stamp is touched only after a complete install, so an interrupted
# install is retried and an unchanged requirements file costs nothing.
$(STAMP): $(REQUIREMENTS) requirements-dev.txt
	@if [ ! -x $(PY) ]; then \
	  [ -n "$(PYTHON)" ] || { $(BOOT_PYTHON) tools/find_python.py $(PYTHON_VERSION) >/dev/null; echo "error: Blender $(BLENDER) needs Python $(PYTHON_VERSION)" >&2; exit 1; }; \
	  $(PYTHON) -c '$(CHECK_PY)' && echo "$(PYTHON) -m venv $(VENV)" && $(PYTHON) -m venv $(VENV); \
	fi
	@$(PY) -c '$(CHECK_PY)'
	$(PY) -m pip install -q -r $(REQUIREMENTS)
	@touch $@

# The run-time wheels the manifest lists (pycollada and its dependencies), pinned with hashes
# in requirements/extension-wheels.txt, downloaded into wheels/ for every Python and platform
# the supported Blenders run on (tools/wheels.py). The zip cannot be built without them.
WHEELS_STAMP := wheels/.stamp
wheels: $(WHEELS_STAMP)
$(WHEELS_STAMP): requirements/extension-wheels.txt | $(STAMP)
	$(PY) tools/wheels.py fetch
	$(PY) tools/wheels.py check
	@touch $@

# The Khronos glTF validator (npm, pinned in tools/gltf_validator/package-lock.json) that the
# tests load vart's glTF export in; needs Node.js and npm, which the machine has.
NODE_STAMP := tools/gltf_validator/node_modules/.stamp
$(NODE_STAMP): tools/gltf_validator/package.json tools/gltf_validator/package-lock.json
	npm ci --prefix tools/gltf_validator --no-audit --no-fund --silent
	@touch $@

test: $(STAMP) $(WHEELS_STAMP) $(NODE_STAMP)
	$(PY) -m pytest -q

# The whole suite on every supported Blender, each in its own venv (what .ci/run runs).
# A Blender whose Python is not on this machine is skipped with the reason; the summary
# at the end names every version and its result.
test-all:
	$(BOOT_PYTHON) tools/test_matrix.py $(BLENDERS)

test-solver: $(STAMP)
	$(PY) -m pytest -q tests/solver

# Habits that catch mistakes before tests do: ruff (style, unused names, import order) on the
# whole tree, and mypy (numpy's stubs; Blender's API through fake-bpy-module) on the folders
# pyproject.toml's [tool.mypy] lists. In the default Blender's venv: numpy 2's stubs differ.
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy

# Build the extension zip into dist/ with Blender's own tool, validating the
# source tree first and the built archive after.
build: $(STAMP) $(WHEELS_STAMP)
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
demo: $(STAMP) $(WHEELS_STAMP)
	$(PY) demo/demo.py $(DEMO_ARGS)

# Removes build and test output; keeps the venvs (.venv, .venvs) and wheels/ (delete by hand
# to fetch again).
clean:
	rm -rf dist demo_out .pytest_cache .hypothesis
	find . -path ./.venvs -prune -o -path ./.venv -prune -o -name __pycache__ -type d -exec rm -rf {} +
