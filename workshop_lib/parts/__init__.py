"""Each Part's lesson code: scanner (Part 2), retrieval and evaluation (Part 3), gates and
calibration (Part 4), grounded (Part 5), agent (Part 6), chat (Part 9). A new Part adds its
module or package here and its checks in workshop_lib/checks (docs/architecture.md)."""
