#!/usr/bin/env bash
# Runs once when the Codespace / dev container is created (devcontainer.json postCreateCommand).
# `make setup-oracle` installs the learner's packages into .venv, pinned by
# requirements/constraints.txt, waits for the database with a progress bar and runs the
# bootstrap (workshop oracle-bootstrap). Safe to run again by hand: every step skips what is done.
set -euo pipefail
cd "$(dirname "$0")/.."

# bubblewrap: `workshop grade` runs each learner notebook in its own sandbox (README, Grading).
if ! command -v bwrap >/dev/null && command -v apt-get >/dev/null; then
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null \
    || echo "bubblewrap could not be installed: workshop grade will refuse untrusted submissions here."
fi

echo "== Agent memory workshop: preparing Python and Oracle (about 5 minutes on first start) =="
make setup-oracle
echo "== Ready: open notebooks/part1/part1_setup_and_tour.ipynb (or run: make lab) =="
