"""The judge: the instructor's checks, run in a process that never runs learner code.

    python -m workshop_lib.tools.grading.judge --reply-fd N --learner-in R --learner-out W

The grader starts it beside the learner's re-check process (recheck.py) for every notebook
whose checks are all in `SPLIT`, and joins the two with a pair of pipes it creates; the judge
alone holds the grader's reply channel. The judge reads the plan (the cells, from the
release and the submission) from the grader, not from the learner. When the learner's
process says it reached check cell N, the judge runs that cell's check itself, with
stand-ins: the learner's function becomes `LearnerFunction`, which sends each call's
arguments over the pipe as plain data (wire.py) and gets plain data back; an engine argument
is the judge's own engine, on its own copy of the prepared database. What comes back is
rebuilt from built-in types and the workshop's own records: no object of the learner's
reaches a check, and nothing the learner's process does touches the judge's memory, its
checks or its reply channel. Every wait is bounded: a call that does not answer in time, an
answer over the size limit or that is not the protocol's fails that check, and only it.

The learner's process also reports what its audit hook and snapshot saw (recheck.py); the
judge forwards that, and it can only take points away. A verdict's "passed" is the judge's.
"""
from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import dataclasses
import importlib
import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from workshop_lib.tools.grading import copies, served, wire

# The checks the judge runs, with the role of each argument of their cell: "fn" is the learner's
# function (called through the pipe), "engine" the judge's own engine (the learner's function uses
# the learner's engine, in its own process), "registry" the learner's tool registry (Part 6: its
# tools listed and called through the pipe, see LearnerRegistry).
SPLIT: dict[str, tuple[str, ...]] = {
    "check_comment_facts": ("fn", "engine"),
    "check_retrieve_knowledge": ("fn", "engine"),
    "check_hybrid_rrf": ("fn", "engine"),
    "check_decide_mode": ("fn",),
    "check_validate_selection": ("fn",),
    "check_render_answer": ("fn",),
    "check_count_rows": ("registry", "engine"),
    "check_agent_turn": ("fn", "engine"),
    "check_decide": ("fn",),
    "check_compact": ("fn",),
    "check_window_spans": ("fn",),
    "check_should_promote": ("fn",),
}
# What the judge serves to the learner's function while these checks call it (served.py): the
# engine's memory store (the agent loop logs its thread and stores tool outputs), or its read-only
# boundary (count_rows counts through it).
SERVES = {"check_agent_turn": "store", "check_count_rows": "queries"}
PART6 = ("check_count_rows", "check_agent_turn")


@contextlib.contextmanager
def in_process(names: tuple[str, ...]) -> Iterator[None]:
    """While the block runs, the checks `names` are not the judge's: a notebook with one of them is
    re-checked the old way, in the learner's process (bench/grading.py measures both paths)."""
    kept = {name: SPLIT.pop(name) for name in names if name in SPLIT}
    try:
        yield
    finally:
        SPLIT.update(kept)


# Checks that add records to the engine while they run (checks.part3.planted): the learner's process
# adds the same ones to its engine, so the learner's function reads what the judge's reference reads.
PLANTED = {"check_retrieve_knowledge", "check_hybrid_rrf"}
GRACE = 5.0           # seconds the learner's process gets beyond a call's own limit to answer
REPORT_WAIT = 10.0    # seconds to wait for its report after a check
MAX_TAMPER = 100      # tamper reports forwarded per notebook (a flood is cut)


def check_call(source: str) -> tuple[str, str, list[ast.expr]]:
    """(part module, check name, argument expressions) of a graded cell `checks.partN.check_x(a, b)`."""
    tree = ast.parse(source)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr) or not isinstance(tree.body[0].value, ast.Call):
        raise ValueError("a graded cell is one check call")
    call = tree.body[0].value
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute)
            and isinstance(func.value.value, ast.Name) and func.value.value.id == "checks"
            and func.value.attr.startswith("part") and func.value.attr[4:].isdigit()) or call.keywords:
        raise ValueError("a graded cell calls checks.<part>.<check>(...)")
    return func.value.attr, func.attr, list(call.args)


def split(cells: list[dict]) -> bool:
    """Whether the judge can run every check of this plan (else the old in-process re-check does)."""
    try:
        found = [check_call(c["source"]) for c in cells if c["kind"] == "check"]
    except (SyntaxError, ValueError):
        return False
    return bool(found) and all(name in SPLIT and len(args) == len(SPLIT[name]) and
                               all(isinstance(a, ast.Name) for a in args) for _, name, args in found)


def needs_engine(cells: list[dict]) -> bool:
    """Whether a check of this plan is given an engine (the judge then needs its copy of the database)."""
    return any("engine" in SPLIT.get(check_call(c["source"])[1], ()) for c in cells if c["kind"] == "check")


class Channel:
    """The judge's ends of the two pipes to the learner's process: messages in, bounded in size and time."""

    def __init__(self, read_fd: int, write_fd: int, on_tamper: Callable[[int, str], None]) -> None:
        self.read_fd, self.write_fd, self.on_tamper = read_fd, write_fd, on_tamper
        os.set_blocking(read_fd, False)
        os.set_blocking(write_fd, False)
        self.buffer = b""
        self.skipping = False   # inside a line over the size limit: dropped up to its end
        self.closed = False
        self.seq = 0            # of the calls sent (a late answer to an earlier call is told apart)

    def send(self, message: dict, deadline: float) -> None:
        data = wire.dumps(message)
        while data:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [self.write_fd], [], left)[1]:
                raise TimeoutError("the learner's process did not read what the judge sent in time")
            try:
                data = data[os.write(self.write_fd, data[:1 << 16]):]
            except BlockingIOError:
                continue
            except OSError as exc:
                self.closed = True
                raise EOFError("the learner's process has ended") from exc

    def receive(self, deadline: float) -> dict | None:
        """The next message (tamper reports are handed to on_tamper and skipped); None past the deadline.
        Raises wire.Garbage for a line that is not a message, EOFError once the process has ended."""
        while True:
            line = self._line(deadline)
            if line is None:
                return None
            message = wire.loads(line)
            if message.get("event") == "tamper":
                where = message.get("cell")
                self.on_tamper(where if type(where) is int else -1, str(message.get("what", ""))[:300])
                continue
            return message

    def _line(self, deadline: float) -> bytes | None:
        while True:
            at = self.buffer.find(b"\n")
            if at >= 0:
                line, self.buffer = self.buffer[:at], self.buffer[at + 1:]
                if self.skipping:
                    self.skipping = False
                    continue
                return line
            if len(self.buffer) > wire.MAX_MESSAGE:
                self.buffer, self.skipping = b"", True
                raise wire.Garbage("a message over the size limit")
            if self.closed:
                raise EOFError("the learner's process has ended")
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.read_fd], [], [], left)[0]:
                return None
            try:
                chunk = os.read(self.read_fd, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                self.closed = True
                continue
            if self.skipping and b"\n" not in chunk:
                continue
            self.buffer += chunk


class LearnerFunction:
    """Stands for the learner's function in a check: each call is sent to the learner's process and
    answered with plain data, or raises what the learner's function raised (by name, as a built-in
    exception or a plain Exception subclass of that name)."""

    def __init__(self, channel: Channel, name: str, deadline: float, cell_timeout: float, engine: str = "",
                 member: tuple[str, ...] = (), serves: str = "", judge_engine: Callable[[], Any] | None = None) -> None:
        self.channel, self.name, self.deadline, self.cell_timeout = channel, name, deadline, cell_timeout
        self.__name__ = member[-1] if member else name
        self.engine = engine    # the name of the learner's engine in its notebook (the check's engine argument)
        self.member = member    # a member of the named object to call (Part 6: registry.dispatch, a tool's fn)
        self.serves = serves    # what the judge serves during each call: "store", "queries" or "" (SERVES)
        self.judge_engine = judge_engine
        self.swapped: dict[str, str] = {}
        # Set by a check that reads the SQL the function sent (checks.part3.statements_sent): the learner's
        # process reports the statements its engine ran during each call, and they are added here.
        self.report_statements: list[str] | None = None
        self.reversed = False   # the learner's engine reads unordered rows in reverse during the calls
        self.dead = ""  # why the learner's process cannot be asked again during this check

    def __repr__(self) -> str:
        return f"<the learner's {'.'.join((self.name, *self.member))}>"

    @contextlib.contextmanager
    def with_global(self, name: str, value: Callable) -> Iterator[None]:
        """While the block runs, the learner's function sees the workshop's `value` as its global
        `name` (where it has that global): Part 5 charges a mistake in TODO 1 to TODO 1 only."""
        self.swapped[name] = wire.encode(value, [])["$fn"]
        try:
            yield
        finally:
            self.swapped.pop(name, None)

    @contextlib.contextmanager
    def reversed_reads(self) -> Iterator[None]:
        """While the block runs, the learner's engine reads unordered rows in reverse (Part 3's
        order check; the engine's own `unordered_reads_reversed`, entered in the learner's process)."""
        self.reversed = True
        try:
            yield
        finally:
            self.reversed = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.dead:
            raise TimeoutError(self.dead)
        self.channel.seq += 1
        sent: list = []
        mutable = [a for a in [*args, *kwargs.values()] if type(a) in (list, dict)]
        objects: list[Any] = []  # the check's objects served to this call (the model, the registry, the clock)
        args = tuple(_served(a, objects) for a in args)
        kwargs = {k: _served(v, objects) for k, v in kwargs.items()}
        message = self._message(self.channel.seq, args, kwargs, sent)
        reply = self._exchange(message, served.Server(objects, self.judge_engine))
        self._add_statements(reply)
        _add_engine_calls(reply)
        value, after = self._result(reply, sent)
        _changed_in_place(mutable, after)
        return value

    def get(self) -> Any:
        """The value of the member (not called), as plain data: Part 6 reads the registry's tools so."""
        self.channel.seq += 1
        message = {**self._message(self.channel.seq, (), {}, []), "get": True}
        return self._result(self._exchange(message, served.Server([], None)), [])[0]

    def _message(self, seq: int, args: tuple, kwargs: dict, sent: list) -> dict:
        """The call as the learner's process reads it: the arguments as plain data (the records in them
        appended to `sent`, so what comes back can name them), its time and line limits, and what the
        check asked to change or watch during it."""
        from workshop_lib import checks

        return {"event": "call", "seq": seq, "name": self.name,
                "args": wire.encode(list(args), sent), "kwargs": wire.encode(dict(kwargs), sent),
                "timeout": max(0.01, min(self.cell_timeout, self.deadline - time.monotonic())),
                "max_lines": checks.line_limit_now(), "globals": dict(self.swapped), "engine": self.engine,
                "statements": self.report_statements is not None, "reversed_reads": self.reversed,
                "member": list(self.member), "serves": self.serves}

    def _exchange(self, message: dict, server: served.Server) -> dict:
        """The call sent and its answer read, within its time limit and GRACE, its callbacks answered by
        `server` meanwhile. A process that ends, sends what is not the protocol or does not answer in
        time is not asked again during this check."""
        wait_until = time.monotonic() + message["timeout"] + GRACE
        try:
            self.channel.send(message, wait_until)
            return self._reply(message["seq"], message["timeout"], wait_until, server)
        except EOFError:
            self.dead = "the learner's process ended during the check"
            raise RuntimeError(self.dead) from None
        except wire.Garbage as exc:
            self.dead = f"the learner's process sent what the judge cannot read ({exc})"
            raise RuntimeError(self.dead) from None

    def _reply(self, seq: int, timeout: float, wait_until: float, server: served.Server) -> dict:
        """The answer to call `seq`: a late answer to an earlier call (one that timed out) is skipped, a
        callback of this call (served.py) is answered."""
        while True:
            reply = self.channel.receive(wait_until)
            if reply is None:
                self.dead = f"the learner's {self.name} did not answer within {timeout:.0f} s"
                raise TimeoutError(self.dead)
            if reply.get("seq") != seq:
                continue
            if reply.get("event") in ("return", "raised"):
                return reply
            if reply.get("event") == "callback":
                self.channel.send(server.answer(reply), wait_until)

    def _add_statements(self, reply: dict) -> None:
        statements = reply.get("statements")
        if self.report_statements is not None and type(statements) is list:
            # What the learner's process says it ran: inspected by the check, never run here (untrusted,
            # like Part 8's line count: the function's results are what the verdict rests on).
            self.report_statements += [s[:100_000] for s in statements[:1000] if type(s) is str]

    def _result(self, reply: dict, sent: list) -> tuple[Any, Any]:
        """(what the function returned, its list and dict arguments after the call), rebuilt from plain
        data; or what it raised, raised here."""
        try:
            if reply["event"] == "raised":
                raise _exception(reply)
            value = wire.decode(reply.get("value"), [], sent)
            after = wire.decode(reply.get("after"), [], sent)
        except wire.Garbage as exc:
            raise RuntimeError(f"the learner's process sent what the judge cannot read ({exc})") from None
        return value, after


def _served(value: Any, objects: list[Any]) -> Any:
    """A check's argument that the learner's code calls back (served.kind_of) as a wire.Served marker,
    the object kept in `objects`; any other value as it is."""
    kind = served.kind_of(value)
    if kind is None:
        return value
    objects.append(value)
    return wire.Served(kind, len(objects) - 1)


def _add_engine_calls(reply: dict) -> None:
    """The engine methods that skip the read-only boundary, as the learner's process reports them
    (count_rows): added to what the check's watcher saw. Untrusted: they can only fail the check."""
    from workshop_lib.checks import part6

    calls = reply.get("engine_calls")
    if type(calls) is list:
        part6.report_calls([(c[0], c[1][:1000]) for c in calls[:100] if type(c) is list and len(c) == 2
                            and type(c[0]) is str and type(c[1]) is str and c[0] != part6._BOUNDARY])


class LearnerRegistry:
    """Stands for the learner's tool registry in check_count_rows: `tools` as the learner's process
    lists them (each tool's function a LearnerFunction), `dispatch` called there."""

    def __init__(self, make: Callable[[tuple[str, ...]], LearnerFunction]) -> None:
        self._make = make
        self.dispatch = make(("dispatch",))
        self._tools: dict | None = None

    @property
    def tools(self) -> dict:
        if self._tools is None:
            listed = self._make(("tools",)).get()
            self._tools = dict(listed) if type(listed) is dict else {}
            for name, tool in self._tools.items():
                if type(name) is str and dataclasses.is_dataclass(tool) and not isinstance(tool, type):
                    object.__setattr__(tool, "fn", self._make(("tools", name, "fn")))
        return self._tools

    def __repr__(self) -> str:
        return "<the learner's tool registry>"


def _changed_in_place(mutable: list, after: Any) -> None:
    """An argument the function changed in place is changed here too (a check compares it with a copy)."""
    if type(after) is not list or len(after) != len(mutable):
        return
    for mine, theirs in zip(mutable, after):
        if type(mine) is list and type(theirs) is list:
            mine[:] = theirs
        elif type(mine) is dict and type(theirs) is dict:
            mine.clear()
            mine.update(theirs)


def _exception(reply: dict) -> BaseException:
    from workshop_lib import checks

    if reply.get("loop") is True:
        return checks.LinesExceeded()
    name = str(reply.get("type", "Exception"))[:60]
    text = str(reply.get("message", ""))[:1000]
    builtin = vars(builtins).get(name)
    if isinstance(builtin, type) and issubclass(builtin, Exception):
        exc: BaseException = builtin(text)
    else:
        exc = type(name if name.isidentifier() else "Exception", (Exception,), {})(text)
    exc.at_the_call = reply.get("at_call") is True  # type: ignore[attr-defined]
    return exc


class Judge:
    def __init__(self, job: dict, channel: Channel, emit: Callable[..., None]) -> None:
        self.job, self.channel, self.emit = job, channel, emit
        self.cell_timeout = float(job["cell_timeout"])
        self.deadline = time.monotonic() + float(job["budget"])
        self.eng: Any = None

    def engine(self) -> Any:
        if self.eng is None:
            from workshop_lib import connect

            self.eng = connect("embedded", path=self.job["data"])
        return self.eng

    def run(self) -> None:
        for index, item in enumerate(self.job["cells"]):
            if item["kind"] == "check" and not self.one(index, item):
                return  # the learner's process ended or ran out of time before this check: none later is reached
        self.emit(event="done")

    def _wait(self, event: str, cell: int, deadline: float) -> dict | None:
        while True:
            try:
                message = self.channel.receive(deadline)
            except wire.Garbage:
                continue
            except EOFError:
                return None
            if message is None or (message.get("event") == event and message.get("cell") == cell):
                return message

    def one(self, index: int, item: dict) -> bool:
        """One graded cell: wait until the learner's process reaches it, run its check, send the verdict.
        False when the cell is never reached."""
        gid = item["grade_id"]
        reached = self._wait("reached", index, self.deadline)
        if reached is None:
            return False
        changed = [str(c)[:300] for c in reached.get("changed", [])][:20] if type(reached.get("changed")) is list else []
        passed, message = self.judge(item["source"], index)
        report = None
        with contextlib.suppress(TimeoutError, EOFError):
            self.channel.send({"event": "end", "cell": index}, time.monotonic() + REPORT_WAIT)
            report = self._wait("report", index, time.monotonic() + REPORT_WAIT)
        if report is None:
            changed.append("the learner's process did not report after the check")
        else:
            more = report.get("changed")
            changed += [str(c)[:300] for c in more][:20] if type(more) is list else []
        self.emit(event="verdict", grade_id=gid, cell=index, passed=passed, message=message, changed=changed,
                  reference=report is not None and report.get("reference") is True, copied=self.copied(index, item))
        return True

    def copied(self, index: int, item: dict) -> bool:
        """Whether the learner's cells before this check define its TODO's function as a copy of the
        reference (copies.py)."""
        try:
            name = check_call(item["source"])[1]
            return copies.copies([c["source"] for c in self.job["cells"][:index] if c["kind"] == "learner"], name)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False

    def judge(self, source: str, index: int) -> tuple[bool, str]:
        from workshop_lib.checks import CheckFailed

        try:
            part, name, arg_nodes = check_call(source)
            fn = vars(importlib.import_module(f"workshop_lib.checks.{part}")).get(name)
            if name not in SPLIT or not callable(fn):
                raise ValueError(f"no check {part}.{name} the judge runs")
        except (SyntaxError, ValueError, ImportError) as exc:
            return False, f"grader: {exc}"
        deadline = min(self.deadline, time.monotonic() + self.cell_timeout)
        names = {role: node.id for node, role in zip(arg_nodes, SPLIT[name]) if isinstance(node, ast.Name)}

        def learner(role: str, member: tuple[str, ...] = ()) -> LearnerFunction:
            return LearnerFunction(self.channel, names[role], deadline, self.cell_timeout, names.get("engine", ""),
                                   member, SERVES.get(name, ""), self.engine)

        args = [learner("fn") if role == "fn" else LearnerRegistry(lambda member: learner("registry", member))
                if role == "registry" else self.engine() for role in SPLIT[name]]
        signal.setitimer(signal.ITIMER_REAL, self.cell_timeout + 2 * GRACE)
        try:
            fn(*args)
            return True, ""
        except CheckFailed as exc:
            return False, exc.message()[:1000]
        except BaseException as exc:  # noqa: BLE001 - a check that cannot finish fails
            return False, f"{type(exc).__name__}: {str(exc)[:500]}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _alarm(*_args: object) -> None:
    raise TimeoutError("the check ran past its time limit")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reply-fd", type=int, required=True)
    parser.add_argument("--learner-in", type=int, required=True)
    parser.add_argument("--learner-out", type=int, required=True)
    args = parser.parse_args()
    for fd in (args.reply_fd, args.learner_in, args.learner_out):
        os.set_inheritable(fd, False)
    job = json.loads(sys.stdin.readline())
    os.environ.clear()
    os.environ.update(job["env"])
    os.chdir(job["scratch"])
    null = os.open(os.devnull, os.O_WRONLY)  # the checks print; only the reply channel is read
    os.dup2(null, 1)
    os.dup2(null, 2)
    signal.signal(signal.SIGALRM, _alarm)
    nonce, reply_fd = job["nonce"], args.reply_fd
    tampered = [0]

    def emit(**line: Any) -> None:
        data = (json.dumps({"nonce": nonce, **line}) + "\n").encode()
        while data:
            data = data[os.write(reply_fd, data):]

    def on_tamper(cell: int, what: str) -> None:
        tampered[0] += 1
        if tampered[0] <= MAX_TAMPER:
            emit(event="tamper", cell=cell, what=what)

    import workshop_lib.checks  # noqa: F401 - before the first message: its import time is not a call's

    Judge(job, Channel(args.learner_in, args.learner_out, on_tamper), emit).run()
    os._exit(0)


if __name__ == "__main__":
    main()
