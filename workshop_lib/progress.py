"""Progress bars that read the same live and in a saved notebook.

`tqdm.auto` draws a widget in Jupyter; a saved notebook or nbgrader's feedback HTML
keeps only the widget's text fallback, stuck at 0%. A plain text bar on stdout, redrawn
with carriage returns, is collapsed to its final state by JupyterLab and by nbconvert,
so what is saved is the finished bar.
"""
from __future__ import annotations

import sys
from typing import Any

from tqdm.std import tqdm


def progress(iterable: Any = None, **kwargs: Any) -> tqdm:
    kwargs.setdefault("file", sys.stdout)
    kwargs.setdefault("ncols", 88)
    kwargs.setdefault("mininterval", 0.25)
    return tqdm(iterable, **kwargs)
