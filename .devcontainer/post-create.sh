#!/usr/bin/env bash
# Runs once when the Codespace / dev container is created (devcontainer.json postCreateCommand).
# `make setup-oracle` installs the package (pip install -e '.[notebooks,test]' into .venv),
# waits for the database with a progress bar and runs the bootstrap (python -m setup.bootstrap).
# Safe to run again by hand: every step skips what is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Agent memory workshop: preparing Python and Oracle (about 5 minutes on first start) =="
if make -n setup-oracle >/dev/null 2>&1; then
  make setup-oracle
else
  # Same steps, for a Makefile without the setup-oracle target.
  python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[notebooks,test]'
  .venv/bin/python -m setup.bootstrap
fi
.venv/bin/python -m ipykernel install --user --name workshop --display-name "Workshop (.venv)" >/dev/null 2>&1 || true
echo "== Ready: open notebooks/part1/part1_setup_and_tour.ipynb =="
