"""One line of `workshop doctor`: the engines report their own health in it (`backend.doctor_checks()`),
so it lives with them; the doctor (tools/doctor.py) adds the workshop's checks."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Check:
    """One line of `workshop doctor`: what was checked, whether it passed, how to fix it."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "PASS" if self.ok else "FAIL"
        text = f"[{mark}] {self.name}: {self.detail}"
        if not self.ok and self.fix:
            text += f"\n       fix: {self.fix}"
        return text
