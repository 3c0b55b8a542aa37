"""The hint cell's button row: "hint", "stronger hint", "show outline" (after a confirmation).

With ipywidgets in a kernel the buttons call back into the kernel, which records the level
opened. The saved notebook shows a sentence instead of a widget repr (`text/plain` of the
bundle). Without ipywidgets (or outside a kernel) the same three levels are HTML <details>
sections, the outline behind a second "yes, show it" fold; opening those is not recorded,
so they point to hints.hint(...), which is.
"""
from __future__ import annotations

import html

from workshop_lib.hints import catalog, record, saved
from workshop_lib.hints.texts import open_level, text

BUTTONS = (("hint", 1), ("stronger hint", 2), ("show outline", 3))
CONFIRM = "The outline is close to the solution. Try the two hints first. Show it anyway?"


def _call(part: str, todo: str, level: int | None = None) -> str:
    number = int(todo.split("_", 1)[0][len("todo"):])
    return f"hints.hint({part!r}, {number}" + (f", level={level}" if level else "") + ")"


def plain(part: str, todo: str) -> str:
    return (f"Stuck? Hint buttons for TODO {todo.split('_', 1)[0][4:]} (run this cell in a live kernel), or "
            f"{_call(part, todo)}; each call shows the next level.")


def has_widgets() -> bool:
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


def show(part: str, todo: str) -> None:
    if not record.in_kernel():
        print(plain(part, todo))
        return
    from IPython.display import display

    if has_widgets():
        # Marked, so that a save keeps only its readable line (hints/saved.py): a restarted kernel
        # has no model for a saved widget view.
        display(_bundle(ButtonRow(part, todo).box, plain(part, todo)), raw=True, metadata={saved.MARK: True})
    else:
        display({"text/html": fallback_html(part, todo), "text/plain": plain(part, todo)}, raw=True)
    display({record.HINT_MIME: record.hint_payload(part, todo), "text/plain": record.hint_plain(part, todo)},
            raw=True, display_id=record.display_id(part, todo))


def _bundle(box, text: str) -> dict:
    data = box._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data
    # A readable line where widgets are not rendered, and what a saved notebook shows.
    return {**data, "text/plain": text, "text/html": f"<p class='workshop-hint-saved'>{html.escape(text)}</p>"}


class ButtonRow:
    def __init__(self, part: str, todo: str) -> None:
        import ipywidgets as w

        self.part, self.todo = part, todo
        self.buttons = [w.Button(description=label, tooltip=f"level {level}", layout=w.Layout(width="auto"))
                        for label, level in BUTTONS]
        for button, (_, level) in zip(self.buttons, BUTTONS):
            button.add_class(f"workshop-hint-{level}")
            button.on_click(lambda _b, level=level: self.clicked(level))
        self.yes = w.Button(description="yes, show the outline", button_style="warning", layout=w.Layout(width="auto"))
        self.no = w.Button(description="not yet", layout=w.Layout(width="auto"))
        self.yes.add_class("workshop-hint-confirm")
        self.yes.on_click(lambda _b: self.reveal(3))
        self.no.on_click(lambda _b: self.ask(False))
        self.confirm = w.HBox([w.HTML(html.escape(CONFIRM)), self.yes, self.no], layout=w.Layout(display="none"))
        self.text = w.HTML("")
        self.text.add_class("workshop-hint-text")
        self.box = w.VBox([w.HBox(self.buttons), self.confirm, self.text])

    def clicked(self, level: int) -> None:
        if level == 3:
            self.ask(True)
        else:
            self.reveal(level)

    def ask(self, show: bool) -> None:
        self.confirm.layout.display = "flex" if show else "none"

    def reveal(self, level: int) -> None:
        self.ask(False)
        title, body = open_level(self.part, self.todo, level)
        self.text.value = (f"<div style='white-space: pre-wrap; border-left: 3px solid #888; padding-left: 8px'>"
                           f"<b>{html.escape(title)}</b><br>{html.escape(body)}</div>")


def fallback_html(part: str, todo: int | str) -> str:
    """The three levels as folds, for a frontend without widgets (level 2 aims at the last failure known now)."""
    part, todo = catalog.part_key(part), catalog.todo_key(part, todo)
    failure = record.last_failure(part, todo)
    folds = [("hint", text(part, todo, 1)), ("stronger hint", text(part, todo, 2, failure))]
    parts = [f"<details><summary>{label}</summary><div style='white-space: pre-wrap'>{html.escape(body)}</div>"
             "</details>" for label, body in folds]
    parts.append(f"<details><summary>show outline</summary><p>{html.escape(CONFIRM)}</p><details>"
                 f"<summary>yes, show the outline</summary><pre>{html.escape(text(part, todo, 3))}</pre></details>"
                 "</details>")
    note = (f"<p style='font-size: smaller'>Opening these folds is not recorded; {html.escape(_call(part, todo))} "
            "is. The stronger hint follows the last failed check when this cell ran: run it again after a check "
            "fails.</p>")
    return "<div class='workshop-hints'>" + "".join(parts) + note + "</div>"
