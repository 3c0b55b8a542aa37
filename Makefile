# Two commands do everything: `make workshop` and `make test` (see README).
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: notebooks workshop setup install test test-oracle lab doctor reset grade bench bench-quick setup-oracle clean-venv

workshop: setup ## install, prepare the embedded engine, open JupyterLab on notebooks/ at Part 1
	$(BIN)/workshop lab

setup: install ## non-interactive: everything `workshop` does except starting JupyterLab
	$(BIN)/workshop setup

install: $(INSTALLED)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed; found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[notebooks,test]'
	touch $@

setup-oracle: install ## Oracle: wait for the DB, vector memory, users/grants, ONNX model, store, seed (safe to re-run)
	$(BIN)/python -m setup.bootstrap

test: install ## everything tests need, then the whole suite
	$(BIN)/python -m pytest

test-oracle: install ## the live Oracle lane (needs ORACLE_DSN)
	$(BIN)/python -m pytest -m oracle

doctor: install
	$(BIN)/workshop doctor

reset: install ## DESTRUCTIVE: asks before deleting stored memories
	$(BIN)/workshop reset

grade: install ## make grade SUBMISSIONS=path/to/folder
	$(BIN)/workshop grade $(SUBMISSIONS)

bench: install
	$(BIN)/python -m bench.run

bench-quick: install
	$(BIN)/python -m bench.run --quick

clean-venv:
	rm -rf $(VENV)

notebooks: install ## regenerate notebooks/ from solutions/ with nbgrader
	$(BIN)/python -m workshop_lib.release
