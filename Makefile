# Two commands do everything: `make workshop` and `make test` (see README). `make help` lists the rest.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# Every install pins every package to the committed lock (refresh it with `make lock`).
LOCK := requirements/constraints.txt
PIP := $(BIN)/python -m pip install --quiet --constraint $(LOCK)
LEARNER := $(VENV)/.installed-learner
TESTER := $(VENV)/.installed-test

.PHONY: help workshop setup install install-test test test-fast lint test-oracle lab doctor reset grade notebooks \
        eval-answers bench bench-quick bench-chat bench-ingest bench-grading bench-memory bench-baselines serve setup-oracle lock \
        clean-venv

help: ## this list
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## /  make \1\t/' | expand -t 24

workshop: setup ## install, prepare the embedded engine, open JupyterLab on notebooks/ at Part 1
	$(BIN)/workshop lab

setup: install ## everything `workshop` does except starting JupyterLab (non-interactive)
	$(BIN)/workshop setup

install: $(LEARNER) ## the learner's install: the package and JupyterLab, nothing for tests or benchmarks

install-test: $(TESTER) ## what `make test` needs: the learner's install plus nbgrader, pytest, ruff, bench packages

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] <= (3, 13) else "Python 3.11, 3.12 or 3.13 is needed; found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(LEARNER): pyproject.toml $(LOCK) | $(BIN)/python
	$(PIP) -e '.[notebooks]'
	@# before any test extra is installed: the learner's install must run the workshop alone
	$(BIN)/workshop --help >/dev/null
	touch $@

$(TESTER): pyproject.toml $(LOCK) $(LEARNER)
	$(PIP) -e '.[test]'
	touch $@

test: install-test ## everything tests need, then the linter, the layer contract, the type checker, the complexity gate and the whole suite (on every core)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python tests/complexity_gate.py
	$(BIN)/python -m pytest --durations=15  # one worker per core: pyproject's addopts (-n auto), tests/conftest.py's groups

test-fast: install-test ## the lane for working: linter, layer contract, type checker, complexity gate, every test but the slow ones (notebooks, grading, browsers, benchmarks), on every core
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python tests/complexity_gate.py
	$(BIN)/python -m pytest -m "not slow"

lint: install-test ## the linter alone
	$(BIN)/ruff check .

test-oracle: install-test ## the live Oracle lane (needs ORACLE_DSN)
	$(BIN)/python -m pytest -m oracle

setup-oracle: install ## Oracle: wait for the DB, vector memory, users/grants, ONNX model, store, seed (safe to re-run)
	$(BIN)/workshop oracle-bootstrap

lab: install ## JupyterLab on notebooks/ without re-running setup
	$(BIN)/workshop lab

doctor: install ## one PASS/FAIL line per thing the notebooks need, with the fix
	$(BIN)/workshop doctor

reset: install ## DESTRUCTIVE: asks before deleting stored memories
	$(BIN)/workshop reset

grade: install-test ## make grade SUBMISSIONS=path/to/folder
	$(BIN)/workshop grade $(SUBMISSIONS)

notebooks: install-test ## regenerate notebooks/ from solutions/ with nbgrader
	$(BIN)/workshop notebooks

bench: install-test ## retrieval quality and speed benchmarks
	$(BIN)/workshop bench retrieval

bench-quick: install-test ## the benchmark's smoke run
	$(BIN)/workshop bench retrieval --quick

bench-chat: install-test ## bounded load run against the chat service on loopback (20 clients, 2,000 requests)
	$(BIN)/workshop bench chat

bench-ingest: install-test ## Part 8's ingest throughput per stage: the corpus and 10,000 synthetic documents
	$(BIN)/workshop bench ingest

bench-memory: install-test ## what memory is worth: 8 scripted conversations x 4 memory modes (offline, ~10 s)
	$(BIN)/workshop bench memory

bench-baselines: install-test ## memory baselines side by side on the written conversations, dev and frozen test (offline, ~30 s)
	$(BIN)/workshop bench baselines

bench-grading: install-test ## grade a synthetic class of 40 learners x 8 Parts (2 of them looping, 1 hostile)
	$(BIN)/workshop bench grading

eval-answers: install ## the assistant measured end to end, without and with Part 8's documents (throw-away data)
	$(BIN)/workshop eval answers
	$(BIN)/workshop eval answers --docs

serve: setup ## the chat service and its page on http://127.0.0.1:8000/
	$(BIN)/workshop serve

lock: | $(BIN)/python ## refresh requirements/constraints.txt for every platform and Python 3.11-3.13
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --all-extras --universal --python-version 3.11 --output-file $(LOCK) --quiet

clean-venv: ## delete the virtual environment
	rm -rf $(VENV)
