"""The two engines behind one interface: `base` (the Engine ABC), `registry` (an engine by name), `embedded`
(SQLite + sqlite-vec + FTS5 + a bundled embedding model) and `oracle` (Oracle AI Database).
All SQL lives in `embedded/sql.py` and `oracle/sql.py`."""
