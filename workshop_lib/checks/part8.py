"""Hard-stop checks for Part 8's TODOs: the chunker's window arithmetic, and the promotion gate.

Each check runs the learner's function on named cases first (so the message can name the
mistake: no overlap, a tail window inside the previous one, a missing tail, no clamp, a
strict >, an ignored active index...), then on random cases against the reference in
workshop_lib.parts.ingest. A function that loops forever is stopped after a bounded number of lines.
"""
from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from workshop_lib.checks import CheckFailed, LinesExceeded, call_learner, checked_or_reference, describe_value, forget, line_limit, passed
from workshop_lib.parts.ingest.chunking import window_spans as reference_spans
from workshop_lib.parts.ingest.promotion import GoldenReport, PromotionDecision
from workshop_lib.parts.ingest.promotion import should_promote as reference_gate

TODO1 = "TODO 1 (window_spans)"
TODO2 = "TODO 2 (should_promote)"
TraceFunction = Callable[[FrameType, str, Any], Any]  # what sys.settrace takes and a tracer returns
MAX_LINES = 2_000_000  # the reference needs about 40 lines for the largest case here


@contextlib.contextmanager
def _time_limit(todo: str, what: str, fix: str = "") -> Iterator[None]:
    """Stop an endless loop after MAX_LINES lines of the learner's code (a line-counting trace:
    a loop that appends forever is stopped before it fills the memory, which a timer is not)."""
    count = 0
    endless = CheckFailed(todo, f"{what} ran more than {MAX_LINES:,} lines without returning: an endless loop",
                          fix or "make sure start moves forward by size - overlap on every pass and that the "
                          "loop stops once a window reaches n_units.")

    def local(frame: FrameType, event: str, _arg: Any) -> TraceFunction:
        nonlocal count
        if event == "line":
            count += 1
            if count > MAX_LINES:
                # This frame untraced first: the grader's re-check then tells the interpreter removing
                # this tracer (which raising does) from the learner's code tracing (recheck.py).
                frame.f_trace = None
                raise endless
        return local

    def calls(frame: FrameType, event: str, _arg: Any) -> TraceFunction | None:
        return local if "workshop_lib" not in frame.f_code.co_filename else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        with line_limit(MAX_LINES):  # where the function runs in another process, that process counts
            yield
    except LinesExceeded:
        raise endless from None
    finally:
        sys.settrace(previous)


# ------------------------------------------------------------------ TODO 1
INVALID_FIX = ("check the arguments first: raise ValueError unless size >= 1 and 0 <= overlap < size (with overlap >= "
               "size the window never moves forward, an endless loop; a negative overlap leaves gaps).")

def _spans(fn: Callable[..., Any], n: int, size: int, overlap: int) -> list[tuple[int, int]]:
    what = f"window_spans({n}, {size}, {overlap})"
    with _time_limit(TODO1, what):
        got = call_learner(TODO1, what, fn, n, size, overlap)
    try:
        return [(int(a), int(b)) for a, b in got]
    except (TypeError, ValueError):
        raise CheckFailed(TODO1, f"{what} returned {describe_value(got)}; expected a list of (start, end) pairs",
                          "append (start, end) tuples to a list and return the list.") from None


def _diagnose(n: int, size: int, overlap: int, got: list[tuple[int, int]], want: list[tuple[int, int]]) -> str:
    """What is wrong with `got`, in the learner's terms."""
    call = f"window_spans({n}, {size}, {overlap})"
    head = f"{call} returned {got}; expected {want}."
    why = (_end_mistake(n, got, want) or _pair_mistake(got, want) or _coverage_mistake(n, got)
           or _step_mistake(got, size, overlap))
    return f"{head} {why}" if why else head


def _end_mistake(n: int, got: list[tuple[int, int]], want: list[tuple[int, int]]) -> str | None:
    """Windows for an empty document, a window past the end, or one window too many at the end."""
    if n == 0 and got:
        return "An empty document has no windows: return []."
    if any(b > n for _, b in got):
        return (f"A window ends past n_units={n}: clamp the end with min(start + size, n_units), "
                "so the last window (or a document shorter than size) is shorter, not padded.")
    if len(got) == len(want) + 1 and got[:-1] == want:
        (a, b), (pa, pb) = got[-1], got[-2]
        return (f"The extra window ({a}, {b}) lies wholly inside ({pa}, {pb}): its text would be embedded "
                "twice. Stop once a window's end reaches n_units (break right after appending it).")
    return None


def _pair_mistake(got: list[tuple[int, int]], want: list[tuple[int, int]]) -> str | None:
    """The right starts with a wrong end: (start, length) pairs, inclusive ends, a last window moved back."""
    pairs = list(zip(got, want))
    return _lengths_for_ends(got, want, pairs) or _inclusive_end(pairs) or _last_moved_back(got, want)


def _lengths_for_ends(got: list[tuple[int, int]], want: list[tuple[int, int]],
                      pairs: list[tuple[tuple[int, int], tuple[int, int]]]) -> str | None:
    if len(got) == len(want) and any(gb != wb for (_, gb), (_, wb) in pairs) and all(
            ga == wa and gb == wb - wa for (ga, gb), (wa, wb) in pairs):
        return ("Your pairs hold (start, length); a window is (start, end), with end = min(start + size, "
                "n_units), the position where it stops.")
    return None


def _inclusive_end(pairs: list[tuple[tuple[int, int], tuple[int, int]]]) -> str | None:
    if pairs and all(ga == wa and gb in (wb - 1, wb) for (ga, gb), (wa, wb) in pairs) and any(
            gb == wb - 1 for (_, gb), (_, wb) in pairs):
        (ga, gb), (wa, wb) = next(((g, w) for g, w in pairs if g[1] == w[1] - 1))
        return (f"Your window ({ga}, {gb}) ends one unit early: the windows are half-open, so (start, end) "
                f"covers start .. end - 1, like text[start:end]. Use end = min(start + size, n_units) (here {wb}), "
                "not an inclusive end with - 1.")
    return None


def _last_moved_back(got: list[tuple[int, int]], want: list[tuple[int, int]]) -> str | None:
    if len(got) == len(want) and got[:-1] == want[:-1] and got[-1][1] == want[-1][1] and got[-1][0] < want[-1][0]:
        return (f"Your last window ({got[-1][0]}, {got[-1][1]}) was moved back to be a full window; it starts "
                f"at the previous start + size - overlap = {want[-1][0]} like every other, and is simply shorter "
                "(clamp only its end).")
    return None


def _coverage_mistake(n: int, got: list[tuple[int, int]]) -> str | None:
    """A tail of the document, or its beginning, in no window."""
    if got and got[-1][1] < n:
        return (f"The last window ends at {got[-1][1]} but the document has {n} units: the tail "
                f"{got[-1][1]}..{n} would never be embedded. Keep going until a window ends at n_units.")
    if got and got[0][0] != 0:
        return "The first window must start at 0, or the beginning of the document is lost."
    return None


def _step_mistake(got: list[tuple[int, int]], size: int, overlap: int) -> str | None:
    """Windows a steady step apart that is not size - overlap, named when it is size, overlap or their sum."""
    step = size - overlap
    starts = [a for a, _ in got]
    steps = {b - a for a, b in zip(starts, starts[1:])}
    if len(steps) != 1 or steps == {step}:
        return None
    (seen,) = steps
    if seen == size and overlap:
        return (f"Your windows do not overlap: each starts {size} (size) after the previous one. "
                f"The step is size - overlap = {step}, so neighbours share {overlap} units.")
    if seen == overlap:
        return f"Each window starts `overlap` units after the previous one; the step is size - overlap = {step}."
    if seen == size + overlap and overlap:
        return (f"Windows start size + overlap = {seen} apart, which leaves gaps; the step is "
                f"size - overlap = {step}.")
    return f"Each window starts {seen} units after the previous one; the step is size - overlap = {step}."


def check_window_spans(window_spans: Callable[[int, int, int], Any]) -> None:
    forget(TODO1)
    named = [(10, 4, 0, "no overlap: windows side by side"),
             (10, 4, 2, "overlap 2: the step is 4 - 2 = 2"),
             (12, 4, 2, "the last window ends exactly at n_units"),
             (11, 4, 3, "overlap 3: the step is 1"),
             (3, 5, 1, "a document shorter than one window"),
             (5, 5, 2, "a document exactly one window long"),
             (0, 4, 1, "an empty document"),
             (1, 1, 0, "one unit, windows of one"),
             (1500, 300, 50, "the v2 profile on a 1,500-character document")]
    for n, size, overlap, _why in named:
        got, want = _spans(window_spans, n, size, overlap), reference_spans(n, size, overlap)
        if got != want:
            raise CheckFailed(TODO1, _diagnose(n, size, overlap, got, want),
                              "start = 0; loop: end = min(start + size, n_units); append (start, end); stop if "
                              "end == n_units; start += size - overlap.")
    for size, overlap, why in [(4, 4, "overlap equal to size"), (4, 6, "overlap larger than size"),
                               (4, -1, "a negative overlap"), (0, 0, "size 0")]:
        what = f"window_spans(10, {size}, {overlap}) ({why})"
        try:
            with _time_limit(TODO1, what, INVALID_FIX):
                got = list(window_spans(10, size, overlap))  # list(): a generator raises when iterated
        except ValueError:
            continue
        except NotImplementedError:
            raise CheckFailed(TODO1, "not implemented yet", "replace `raise NotImplementedError()` with your code.") from None
        except CheckFailed:
            raise
        except Exception as exc:  # noqa: BLE001
            raise CheckFailed(TODO1, f"{what} raised {type(exc).__name__}: {exc}; expected ValueError",
                              "check the arguments first: raise ValueError unless size >= 1 and 0 <= overlap < size.") from None
        raise CheckFailed(TODO1, f"{what} returned {describe_value(got)} instead of raising ValueError", INVALID_FIX)
    rng = random.Random(7)
    for _ in range(300):
        size = rng.randint(1, 40)
        overlap, n = rng.randint(0, size - 1), rng.randint(0, 200)
        got, want = _spans(window_spans, n, size, overlap), reference_spans(n, size, overlap)
        if got != want:
            raise CheckFailed(TODO1, _diagnose(n, size, overlap, got, want) + " (a random case)",
                              "compare your loop with the steps in the markdown above the TODO.")
    passed(TODO1, f"{len(named)} named cases, 4 invalid arguments and 300 random cases agree with the reference",
           fn=window_spans)


# ------------------------------------------------------------------ TODO 2
def report(table: str, hits: int, n: int, k: int = 5) -> GoldenReport:
    # k (how many documents each question looks at) differs from n (how many questions ran), so a
    # recall computed as hits / k is caught.
    return GoldenReport(table, k, n, hits)


def _promote_by_k(candidate: GoldenReport, active: GoldenReport | None, bar: float) -> bool:
    """The gate with recall computed as hits / k: a mistake the check names."""
    if candidate.n == 0:
        return False
    mine = candidate.hits / candidate.k
    return mine >= bar and (active is None or mine >= active.hits / active.k)


def _decides_by_k(should_promote: Callable[..., Any]) -> bool:
    """Whether the learner's gate decides every case as hits / k would (and so is that mistake, not another)."""
    for _, candidate, active, bar, _ in gate_cases():
        try:
            if getattr(should_promote(candidate, active, bar), "promote", None) != _promote_by_k(candidate, active, bar):
                return False
        except Exception:  # noqa: BLE001 - a crash is reported by the case that caused it
            return False
    return True


RECALL_IS_HITS_OVER_N = ("recall is hits / n: n is how many golden questions ran, k how many documents each question "
                         "looks at (recall@k). candidate.recall is already hits / n; use it.")


def gate_cases() -> list[tuple[str, GoldenReport, GoldenReport | None, float, str]]:
    """(name, candidate, active, min_recall, why) for every rule of the gate."""
    return [
        ("the first promotion", report("DOCS_V1", 9, 10), None, 0.8,
         "nothing is active yet (active is None) and recall 0.90 reaches the bar 0.80"),
        ("recall exactly at the bar", report("DOCS_V1", 8, 10), None, 0.8,
         "recall 0.80 equal to min_recall 0.80 reaches the bar (>=)"),
        ("below the bar, nothing active", report("DOCS_V1", 7, 10), None, 0.8, "recall 0.70 < min_recall 0.80"),
        ("below the bar but better than the active", report("DOCS_V3", 7, 10), report("DOCS_V1", 6, 10), 0.8,
         "the bar applies whatever the active index scores: 0.70 < 0.80"),
        ("above the bar but worse than the active", report("DOCS_V3", 17, 20), report("DOCS_V2", 9, 10), 0.8,
         "0.85 reaches the bar but is worse than the active DOCS_V2's 0.90: never swap in a worse index"),
        ("as good as the active", report("DOCS_V2", 9, 10), report("DOCS_V1", 18, 20), 0.8,
         "0.90 equals the active's 0.90: not worse, so it may be promoted"),
        ("better than the active", report("DOCS_V2", 19, 20), report("DOCS_V1", 9, 10), 0.8,
         "0.95 reaches the bar and beats the active's 0.90"),
        ("no golden queries ran", report("DOCS_V2", 0, 0), None, 0.0,
         "a candidate evaluated on zero questions has no measured recall, even when the bar is 0"),
        ("a bar of 1.0", report("DOCS_V2", 10, 10), report("DOCS_V1", 10, 10), 1.0, "1.00 reaches 1.00 and ties the active"),
        ("just below the bar", report("DOCS_V2", 199, 250), None, 0.8,
         "recall 199/250 = 0.796 is below 0.80, even though it shows as 0.80 when rounded"),
        ("just worse than the active", report("DOCS_V3", 224, 250), report("DOCS_V2", 9, 10), 0.8,
         "recall 224/250 = 0.896 is worse than the active's 0.900, even though both show as 0.90 when rounded"),
        ("no hits, questions ran, bar 0", report("DOCS_V1", 0, 10), None, 0.0,
         "10 questions ran, so recall 0.00 is measured, and it reaches a bar of 0.0"),
    ]


def _hint(name: str, want: bool) -> str:
    return {
        "the first promotion": "active is None when nothing has been promoted yet: only compare with it when it is not None.",
        "recall exactly at the bar": "use candidate.recall >= min_recall (equal reaches the bar).",
        "below the bar, nothing active": "refuse when candidate.recall < min_recall.",
        "below the bar but better than the active": "check the bar first, whatever the active index scores.",
        "above the bar but worse than the active": "refuse when active is not None and candidate.recall < active.recall.",
        "as good as the active": "only a worse candidate is refused: use <, not <=, when comparing with active.recall.",
        "better than the active": "promote when the bar is reached and the candidate is not worse than the active.",
        "no golden queries ran": "refuse first when candidate.n == 0.",
        "a bar of 1.0": "compare with >= for the bar and < for the active.",
        "just below the bar": "compare the exact candidate.recall, never a rounded one: round only when you write the "
                              "reason.",
        "just worse than the active": "compare the exact recalls, never rounded ones: round only when you write the "
                                      "reason.",
        "no hits, questions ran, bar 0": "refuse for missing questions only when candidate.n == 0 (no questions ran); "
                                         "candidate.hits == 0 on 10 questions is a measured recall of 0.0.",
    }[name]


def _shown(value: float) -> set[str]:
    """The ways a reason may write a recall or a bar."""
    return {f"{value:.2f}", f"{value:.1f}", f"{value:.3f}", f"{value:g}", str(value), f"{value:.0%}", f"{value:.1%}",
            f"{value * 100:.0f}%", f"{value * 100:.1f}%", f"{value * 100:.0f} %"}


def _numbers_missing(candidate: GoldenReport, active: GoldenReport | None, bar: float, reason: str) -> list[str]:
    """Which numbers a reason leaves out: the candidate's recall always, the bar when it decided,
    the active's recall when it decided."""
    if candidate.n == 0:
        return []
    wanted: list[tuple[str, float, str | None]] = [
        ("the candidate's recall", candidate.recall, f"{candidate.hits}/{candidate.n}")]
    if candidate.recall < bar:
        wanted.append(("the bar", bar, None))
    elif active is not None and candidate.recall < active.recall:
        wanted.append((f"{active.table}'s recall", active.recall, f"{active.hits}/{active.n}"))
    return [f"{label} {value:.2f}" for label, value, hits in wanted
            if not any(form in reason for form in _shown(value)) and not (hits and hits in reason)]


def check_should_promote(should_promote: Callable[[GoldenReport, GoldenReport | None, float], Any]) -> None:
    forget(TODO2)
    for name, candidate, active, bar, why in gate_cases():
        what = f"should_promote(candidate={_short(candidate)}, active={_short(active)}, min_recall={bar})"
        try:
            got = call_learner(TODO2, what, should_promote, candidate, active, bar)
        except CheckFailed as failed:
            if candidate.n == 0 and "ZeroDivisionError" in failed.problem:
                raise CheckFailed(TODO2, f"case '{name}': {what} divided by zero: with no golden queries there is "
                                  "no recall to compute", "refuse first when candidate.n == 0; candidate.recall is "
                                  "already hits / n (0.0 when n is 0), so there is nothing to divide.") from None
            raise
        _expect_a_decision(name, what, got)
        want = reference_gate(candidate, active, bar).promote
        if got.promote != want and _decides_by_k(should_promote):
            raise CheckFailed(TODO2, f"case '{name}': {what} returned promote={got.promote}; expected {want}: you "
                              f"computed recall as hits / k ({candidate.hits}/{candidate.k} = "
                              f"{candidate.hits / candidate.k:.2f}) instead of hits / n ({candidate.hits}/{candidate.n} "
                              f"= {candidate.recall:.2f})", RECALL_IS_HITS_OVER_N)
        if got.promote != want:
            verb = "promote" if want else "refuse"
            raise CheckFailed(TODO2, f"case '{name}': {what} returned promote={got.promote}; expected {want} ({verb}): "
                              f"{why}", _hint(name, want))
        _expect_the_numbers(name, candidate, active, bar, got.reason)
    passed(TODO2, f"{len(gate_cases())} cases: first promotion, the bar, the active index, ties, no queries, recalls "
                  "that round alike, and reasons with their numbers", fn=should_promote)


def _expect_a_decision(name: str, what: str, got: Any) -> None:
    """A PromotionDecision whose promote is a bool and whose reason is words."""
    if not isinstance(got, PromotionDecision):
        raise CheckFailed(TODO2, f"{what} returned {describe_value(got)}; expected a PromotionDecision",
                          "return PromotionDecision(promote=True or False, reason=\"...\"): promote() reads both fields.")
    if not isinstance(got.promote, bool):
        raise CheckFailed(TODO2, f"case '{name}': PromotionDecision.promote is {describe_value(got.promote)}; it must be True "
                          "or False", "set promote to the result of your comparison, e.g. promote=False.")
    if not isinstance(got.reason, str) or not got.reason.strip():
        raise CheckFailed(TODO2, f"case '{name}': the PromotionDecision has no reason",
                          "say why in words, with the numbers: the log and `workshop alias status` show it.")


def _expect_the_numbers(name: str, candidate: GoldenReport, active: GoldenReport | None, bar: float,
                        reason: str) -> None:
    """The reason gives the numbers that decided (a recall of hits / k is named as that mistake)."""
    missing = _numbers_missing(candidate, active, bar, reason)
    by_k = candidate.hits / candidate.k
    if missing and candidate.n and any(form in reason for form in _shown(by_k)):
        raise CheckFailed(TODO2, f"case '{name}': the reason {reason[:90]!r} gives recall {by_k:.2f}, which is "
                          f"hits / k ({candidate.hits}/{candidate.k}); the recall is hits / n = "
                          f"{candidate.recall:.2f}", RECALL_IS_HITS_OVER_N)
    if missing:
        raise CheckFailed(TODO2, f"case '{name}': the reason {reason[:90]!r} does not give the numbers "
                          f"({', '.join(missing)})", "put the numbers that decided into the reason, e.g. "
                          "f\"{candidate.table}: recall {candidate.recall:.2f} is below the bar {min_recall:.2f}\": "
                          "the log and `workshop alias status` show it, and a reason without numbers cannot be "
                          "checked.")


def _short(r: GoldenReport | None) -> str:
    return "None" if r is None else f"{r.table} recall {r.hits}/{r.n}={r.recall:.2f}"


def spans_to_use(window_spans: Callable[..., Any]) -> Callable[..., Any]:
    """The chunker the cells below run: the learner's once its check passed, the reference
    otherwise (a chunker that never advances would hang the ingest, and the kernel with it)."""
    return checked_or_reference(TODO1, window_spans, reference_spans, "chunking.window_spans")


def gate_to_use(should_promote: Callable[..., Any]) -> Callable[..., Any]:
    """The promotion gate the cells below run: the learner's once its check passed, the reference otherwise."""
    return checked_or_reference(TODO2, should_promote, reference_gate, "promotion.should_promote")
