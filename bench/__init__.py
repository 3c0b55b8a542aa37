"""Retrieval quality and speed benchmarks (run: python -m bench.run [--quick]).

The numpy floor and the Python alternatives run single-threaded by default, like the
SQLite query they are compared with (one statement runs on one core), which also keeps
BLAS thread wake-ups out of the timings on a busy 2-core machine. Export
OPENBLAS_NUM_THREADS (or OMP_NUM_THREADS) before starting to change that; it only
takes effect if numpy has not been imported yet.
"""
import os
import sys

if "numpy" not in sys.modules:  # too late otherwise; then the floor uses numpy's default threads
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
