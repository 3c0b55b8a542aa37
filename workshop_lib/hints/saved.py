"""The hint row as a saved notebook shows it: a readable line, never a dead widget.

A widget's view lives in the kernel that drew it. After a kernel restart and a page reload,
JupyterLab would draw a saved widget view as "Error displaying widget: model not found"
(its renderer outranks every other MIME type of the output). So the learner's JupyterLab
(`workshop lab`, setup/jupyter-learner/) saves notebooks through `pre_save_hook`, which drops
the widget view from the hint row's output and keeps its readable `text/html` and `text/plain`:
the saved notebook shows "run this cell for the hint buttons" until the cell runs again. The
page that is open keeps its live buttons (a save does not redraw it).
"""
from __future__ import annotations

from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MARK = "workshop_hint_row"   # output metadata key that marks the hint row's widget output


def readable(data: dict[str, Any]) -> dict[str, Any]:
    """The hint row's bundle without its widget view."""
    return {k: v for k, v in data.items() if k != WIDGET_VIEW}


def strip_hint_widgets(nb: dict[str, Any]) -> int:
    """Drop the widget view of every hint row output of a notebook (a JSON dict); returns how many."""
    dropped = 0
    for cell in nb.get("cells") or []:
        for out in cell.get("outputs") or [] if isinstance(cell, dict) else []:
            if not isinstance(out, dict) or not (out.get("metadata") or {}).get(MARK):
                continue
            data = out.get("data") or {}
            if WIDGET_VIEW in data:
                out["data"] = readable(data)
                dropped += 1
    return dropped


def pre_save_hook(model: dict[str, Any], **_: Any) -> None:
    """jupyter_server's ContentsManager.pre_save_hook: notebooks are saved with readable hint rows."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        strip_hint_widgets(model["content"])
