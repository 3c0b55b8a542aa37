"""Does a question ask for a figure worked out from others: a difference or a total?

"By how many TEU", "how much more", "what would it come to in total": the answer is a number no
single row holds. A handler that shows the rows without working it out answers another question,
so such an answer never carries a grounded badge. The words are arithmetic's own small closed
vocabulary (like "how much" for an amount), not phrasings of any one question.
"""
from __future__ import annotations

import re

_COMPARED = ("more|less|fewer|bigger|larger|smaller|heavier|lighter|longer|shorter|older|newer|younger|"
             "cheaper|dearer|earlier|later|higher|lower|faster|slower")
DIFFERENCE = re.compile(rf"\bby how (?:many|much)\b|\bhow (?:many|much) (?:{_COMPARED})\b|\bdifference\b|\bgap\b|"
                        r"\b(?:de combien|um wie ?viele?|cu[aá]nto m[aá]s)\b", re.I)
TOTAL = re.compile(r"\bin total\b|\btotal\b|\baltogether\b|\ball together\b|\bcombined\b|\badd(?:ed)? (?:it |them |those )?up\b|"
                   r"\bcomes? to\b|\bsum of\b|\bau total\b|\binsgesamt\b|\ben total\b", re.I)


def asks_difference(question: str) -> bool:
    return DIFFERENCE.search(question) is not None


def asks_total(question: str) -> bool:
    return TOTAL.search(question) is not None
