"""What a learner's function calls back during a Part 6 check, served by the judge.

Part 6's checks hand the learner's code objects with behaviour: the agent loop gets a scripted
model, a tool registry and a clock; the count_rows tool reads the engine's read-only boundary;
both write to and read from the memory store. In the re-check those objects stay in the judge
(judge.py): the learner's process (recheck.py) gets a stand-in for each, built here, whose every
call is sent back over the pipe as plain data (wire.py) and answered by the judge with plain
data. The judge thus sees every call in order, runs it on its own objects and its own engine, and
decides the verdict from what it served and what the function returned. Nothing the learner's
process sends is run as code: the judge looks the method up in a fixed list per kind of object.

    learner's process                         judge
    stand-in .chat(messages, tools=...)  -->  the check's scripted model, its requests recorded
    stand-in .dispatch(id, name, args)   -->  the check's tool registry
    stand-in clock()                     -->  the check's clock
    eng.store.add/get/list/...           -->  the judge's own store (the check reads it)
    eng.supplychain.read_only_query(sql) -->  the judge's own boundary (the check watches it)
"""
from __future__ import annotations

import builtins
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from workshop_lib.tools.grading import wire

# The methods the judge runs for each kind of served object, by name; anything else is refused.
METHODS: dict[str, frozenset[str]] = {
    "llm": frozenset({"chat"}),
    "registry": frozenset({"schemas", "dispatch", "refuse", "tools", "tool_fn"}),
    "clock": frozenset({"__call__"}),
    "store": frozenset({"add", "get", "list", "list_thread_messages", "delete", "delete_thread", "update", "count"}),
    "query": frozenset({"read_only_query"}),
}
_CHAT_OPTIONS = ("tools", "tool_choice", "temperature")
_QUERY_OPTIONS = ("max_rows", "params")
MAX_CALLBACKS = 2000  # in one call of the learner's function: a loop that never stops is cut here


def kind_of(value: Any) -> str | None:
    """The kind of a check's argument that is served rather than sent (None: sent as plain data)."""
    from workshop_lib.checks import part6
    from workshop_lib.core.llm import LLM
    from workshop_lib.parts.agent.tools import ToolRegistry

    kind = type(value)
    if issubclass(kind, LLM):
        return "llm"
    if issubclass(kind, ToolRegistry):
        return "registry"
    if kind is part6._Clock:
        return "clock"
    return None


# ------------------------------------------------------------------ the judge's side
class Server:
    """Answers the callbacks of one call of the learner's function: `objects` are the check's objects
    sent as wire.Served (by number), `engine` the judge's own engine (store and boundary)."""

    def __init__(self, objects: list[Any], engine: Callable[[], Any] | None) -> None:
        self.objects, self.engine, self.count = objects, engine, 0

    def answer(self, message: dict) -> dict:
        out: dict[str, Any] = {"event": "answer", "seq": message.get("seq"), "cb": message.get("cb")}
        self.count += 1
        try:
            if self.count > MAX_CALLBACKS:
                raise RuntimeError(f"{MAX_CALLBACKS} calls back in one call: the function does not stop")
            value = self._run(message)
            out["value"] = wire.encode(value, [])
        except TimeoutError:
            raise  # the judge's own time limit for the check: it ends the check, not this call
        except Exception as exc:  # noqa: BLE001 - what the served object raised, the learner's code gets
            out.update(raised=type(exc).__name__, message=str(exc)[:1000])
        return out

    def _run(self, message: dict) -> Any:
        target, method = message.get("target"), message.get("method")
        args = wire.decode(message.get("args"), [])
        kwargs = wire.decode(message.get("kwargs"), [])
        if type(args) is not list or type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
            raise wire.Garbage("a callback's arguments are a list and a dict of names")
        if type(target) is int and 0 <= target < len(self.objects):
            obj = self.objects[target]
            kind = kind_of(obj)
        elif target in ("store", "query") and self.engine is not None:
            obj, kind = self.engine(), str(target)
        else:
            raise wire.Garbage("a callback to no object served")
        if kind is None or method not in METHODS[kind]:
            raise wire.Garbage(f"no method {str(method)[:40]!r} is served on the {kind}")
        return _call(kind, obj, str(method), args, kwargs)


def _call(kind: str, obj: Any, method: str, args: list, kwargs: dict) -> Any:
    """One allowed callback run on the judge's own object."""
    if kind == "llm":
        return obj.chat(*args[:1], **{k: v for k, v in kwargs.items() if k in _CHAT_OPTIONS})
    if kind == "clock":
        return obj()
    if kind == "query":
        return obj.supplychain.read_only_query(*args[:1], **{k: v for k, v in kwargs.items() if k in _QUERY_OPTIONS})
    if kind == "store":
        return getattr(obj.store, method)(*args, **kwargs)
    return _registry_call(obj, method, args, kwargs)


def _registry_call(obj: Any, method: str, args: list, kwargs: dict) -> Any:
    """A tool registry's callback: its tools' descriptions, one tool's function, or a method of its own."""
    if method == "tools":
        return {name: {"description": t.description, "parameters": t.parameters, "preview": t.preview}
                for name, t in obj.tools.items()}
    if method == "tool_fn":
        tool = obj.tools.get(args[0]) if args and type(args[0]) is str else None
        if tool is None:
            raise KeyError(args[0] if args else None)
        return tool.fn(*args[1:], **kwargs)
    return getattr(obj, method)(*args, **kwargs)


# ------------------------------------------------------------------ the learner's side
class Caller:
    """Sends one callback to the judge and waits for its answer (the learner's process is blocked in
    the learner's function meanwhile: nothing else is read from the pipe)."""

    def __init__(self, emit: Callable[..., None], receive: Callable[[], dict], seq: Any) -> None:
        self.emit, self.receive, self.seq, self.count = emit, receive, seq, 0

    def __call__(self, target: int | str, method: str, args: tuple, kwargs: dict) -> Any:
        from workshop_lib.checks import values

        self.count += 1
        cb = self.count
        self.emit(event="callback", seq=self.seq, cb=cb, target=target, method=method,
                  args=wire.encode(values.plain(list(args)), []), kwargs=wire.encode(values.plain(dict(kwargs)), []))
        while True:
            message = self.receive()
            if message.get("event") == "answer" and message.get("seq") == self.seq and message.get("cb") == cb:
                break
        if "raised" in message:
            raise _exception(str(message.get("raised"))[:60], str(message.get("message", ""))[:1000])
        return wire.decode(message.get("value"), [])


def _exception(name: str, text: str) -> Exception:
    """The exception a served call raised, rebuilt by its name: a built-in one, one of the workshop's
    a loop may catch (a refused query, a failed model call), or an Exception of that name."""
    from workshop_lib.core.llm import LLMError, LLMTimeout
    from workshop_lib.engines.readonly import SqlRefused

    known: dict[str, type] = {"SqlRefused": SqlRefused, "LLMError": LLMError, "LLMTimeout": LLMTimeout}
    cls = known.get(name) or vars(builtins).get(name)
    if isinstance(cls, type) and issubclass(cls, Exception):
        return cls(text)
    return type(name if name.isidentifier() else "Exception", (Exception,), {})(text)


class ModelStandIn:
    """The check's scripted model, as the learner's loop sees it."""

    def __init__(self, caller: Caller, n: int) -> None:
        self._caller, self._n = caller, n
        self.model = "scripted-model"

    def chat(self, messages: Any, **options: Any) -> Any:
        return self._caller(self._n, "chat", (messages,), options)

    def __repr__(self) -> str:
        return "<the check's scripted model>"


class _ToolFunction:
    def __init__(self, caller: Caller, n: int, name: str) -> None:
        self._caller, self._n, self.__name__ = caller, n, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._caller(self._n, "tool_fn", (self.__name__, *args), kwargs)


class RegistryStandIn:
    """The check's tool registry, as the learner's loop sees it: `tools` holds the workshop's Tool
    records, each with a function that runs the tool in the judge."""

    def __init__(self, caller: Caller, n: int) -> None:
        self._caller, self._n = caller, n
        self._tools: dict | None = None

    @property
    def tools(self) -> dict:
        from workshop_lib.parts.agent.tools import Tool

        if self._tools is None:
            listed = self._caller(self._n, "tools", (), {})
            self._tools = {name: Tool(name, str(t.get("description", "")), t.get("parameters") or {},
                                      _ToolFunction(self._caller, self._n, name), t.get("preview") is not False)
                           for name, t in (listed.items() if type(listed) is dict else [])}
        return self._tools

    def schemas(self) -> Any:
        return self._caller(self._n, "schemas", (), {})

    def dispatch(self, call_id: Any, name: Any, arguments: Any) -> Any:
        return self._caller(self._n, "dispatch", (call_id, name, arguments), {})

    def refuse(self, call_id: Any, name: Any, message: Any) -> Any:
        return self._caller(self._n, "refuse", (call_id, name, message), {})

    def __repr__(self) -> str:
        return "<the check's tool registry>"


class ClockStandIn:
    def __init__(self, caller: Caller, n: int) -> None:
        self._caller, self._n = caller, n

    def __call__(self) -> Any:
        return self._caller(self._n, "__call__", (), {})


class StoreStandIn:
    """The engine's memory store while the check runs the function: every call goes to the judge's store."""

    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    def __getattr__(self, name: str) -> Any:
        if name not in METHODS["store"]:
            raise AttributeError(f"the grader serves only {sorted(METHODS['store'])} of the store during a check")

        def method(*args: Any, **kwargs: Any) -> Any:
            return self._caller("store", name, args, kwargs)

        method.__name__ = name
        return method


def stand_in(caller: Caller) -> Callable[[Any, Any], Any]:
    """wire.decode's `stub`: the stand-in of served object number `n` of kind `kind`."""
    kinds: dict[str, type] = {"llm": ModelStandIn, "registry": RegistryStandIn, "clock": ClockStandIn}

    def build(kind: Any, n: Any) -> Any:
        cls = kinds.get(kind)
        if cls is None:
            raise wire.Garbage(f"no stand-in for a {str(kind)[:20]}")
        return cls(caller, n)

    return build


class _Forward:
    """read_only_query as the judge runs it: the learner's engine's own boundary is not used."""

    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    def __call__(self, sql: Any, **options: Any) -> Any:
        return self._caller("query", "read_only_query", (sql,), {k: v for k, v in options.items() if k in _QUERY_OPTIONS})


def serving(eng: Any, caller: Caller, store: bool, queries: bool,
            calls: list) -> contextlib.AbstractContextManager[None]:
    """While the learner's function runs: its engine's store (agent_turn) and read-only boundary
    (count_rows) served by the judge; with `queries`, the engine methods that skip the boundary are
    recorded in `calls` by the check's own watcher (reported to the judge, which trusts them only to
    take points away)."""
    from workshop_lib.checks import part6

    @contextlib.contextmanager
    def run() -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            if store:  # the Workspace connect() gave the engine (core/workspace.py) swaps its store
                stack.enter_context(eng._workspace().slot.replaced(StoreStandIn(caller)))
            if not queries:
                yield
                return
            schema = eng.supplychain
            saved = schema.__dict__.get("read_only_query", _UNSET)
            schema.read_only_query = _Forward(caller)
            try:
                spy = part6._Spy(eng)
                with spy.watching():
                    yield
                calls.extend(spy.calls)  # the judge keeps those that skip its boundary (the rest it served)
            finally:
                if saved is _UNSET:
                    schema.__dict__.pop("read_only_query", None)
                else:
                    schema.__dict__["read_only_query"] = saved

    return run()


_UNSET = object()

