"""What crosses the pipe between the judge and the learner's process: plain data only.

A value is sent as JSON. Lists, str, int, float, bool and None are themselves; the rest is
tagged: a tuple {"$t": [...]}, a dict {"$d": [[key, value], ...]} (keys of any plain kind),
a set {"$s": [...]}, a frozenset {"$f": [...]}, bytes {"$b": hex}, a record of the workshop
(a dataclass defined in workshop_lib) {"$r": "module:Name", "v": {field: value}}, a function
of the workshop {"$fn": "module:name"}, one of the records the other side sent in this call
{"$a": index} (a record handed back keeps its identity), an object of the judge's that the
learner's code calls back (Part 6: the scripted model, the tool registry, the clock), which only the
judge sends, {"$cb": number, "kind": what it is}, and anything else, which only the learner's side
sends, {"$o": type name, "text": its repr, "items": [...] or null}. The learner's side builds a
stand-in for a "$cb" that sends each call back over the pipe (served.py); the judge answers it.

Decoding builds only these: the judge never calls a class or a function the learner's process
names, it rebuilds the workshop's own records field by field (no __init__ runs) and shows any
other object as an `Opaque` stand-in (workshop_lib.checks.values). Everything is bounded: a
message's size, its depth, the length of a type name.
"""
from __future__ import annotations

import dataclasses
import json
import sys
import types
from collections.abc import Callable
from typing import Any

from workshop_lib.checks.values import MAX_DEPTH, Opaque
from workshop_lib.errors import WorkshopError

MAX_MESSAGE = 16 * 1024 * 1024  # bytes in one line on the pipe


class Garbage(WorkshopError, ValueError):
    """A message that is not what the protocol sends."""


@dataclasses.dataclass(frozen=True)
class Served:
    """Sent in place of an object of the judge's that the learner's code may call back: number `n` of
    the call's served objects, of a kind the learner's side knows ("llm", "registry", "clock")."""

    kind: str
    n: int


def _workshop(module: Any) -> types.ModuleType | None:
    """A workshop module already imported (never one imported because the other side named it)."""
    if not isinstance(module, str) or not module.startswith("workshop_lib."):
        return None
    found = sys.modules.get(module)
    return found if isinstance(found, types.ModuleType) else None


def _record_class(name: Any) -> type:
    module, _, qualname = str(name).partition(":")
    where = _workshop(module)
    cls = vars(where).get(qualname) if where is not None else None
    if not isinstance(cls, type) or "__dataclass_fields__" not in cls.__dict__ or cls.__module__ != module:
        raise Garbage(f"not a record of the workshop: {str(name)[:80]}")
    return cls


def _function(name: Any) -> types.FunctionType:
    module, _, qualname = str(name).partition(":")
    where = _workshop(module)
    fn = vars(where).get(qualname) if where is not None else None
    if not isinstance(fn, types.FunctionType):
        raise Garbage(f"not a function of the workshop: {str(name)[:80]}")
    return fn


def _is_record(value: Any) -> bool:
    cls = type(value)
    home = _workshop(cls.__module__) if "__dataclass_fields__" in cls.__dict__ else None
    return home is not None and vars(home).get(cls.__name__) is cls


def encode(value: Any, records: list, known: dict[int, int] | None = None, depth: int = 0) -> Any:
    """`value` as JSON-ready data. Records met are appended to `records` (in the order met: the other
    side numbers them the same way); those in `known` (id -> index) are sent as {"$a": index}."""
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        # JSON has no NaN or infinity: those are sent by their repr
        return value if value == value and value not in (float("inf"), float("-inf")) else {"$x": repr(value)}
    if depth > MAX_DEPTH:
        return {"$o": kind.__name__, "text": "(too deep)", "items": None}
    if known is not None and id(value) in known:
        return {"$a": known[id(value)]}
    data = _built_in(value, kind, records, known, depth + 1)
    return data if data is not _NOT_BUILT_IN else _other(value, kind, records, known, depth + 1)


_NOT_BUILT_IN = object()  # what _built_in returns for a value it does not encode


def _built_in(value: Any, kind: type, records: list, known: dict[int, int] | None, deeper: int) -> Any:
    """A list, tuple, dict, set, frozenset or bytes as data; _NOT_BUILT_IN for anything else. The type
    is compared by identity, never by `==` or a dict lookup (a learner's metaclass can define both),
    and a subclass is not one of these: it goes on to _other."""
    if kind is list:
        return [encode(v, records, known, deeper) for v in value]
    if kind is tuple:
        return {"$t": [encode(v, records, known, deeper) for v in value]}
    if kind is dict:
        return {"$d": [[encode(k, records, known, deeper), encode(v, records, known, deeper)] for k, v in value.items()]}
    if kind is set:
        return {"$s": [encode(v, records, known, deeper) for v in value]}
    if kind is frozenset:
        return {"$f": [encode(v, records, known, deeper) for v in value]}
    if kind is bytes:
        return {"$b": value.hex()}
    return _NOT_BUILT_IN


def _other(value: Any, kind: type, records: list, known: dict[int, int] | None, deeper: int) -> Any:
    """A function or record of the workshop by name, an Opaque stand-in as itself, anything else by
    its type's name and object.__repr__ (its own __repr__ is the learner's code: never called)."""
    if kind is Served:
        return {"$cb": value.n, "kind": value.kind}
    name = _function_name(value)
    if name is not None:
        return {"$fn": name}
    if _is_record(value):
        return _record_data(value, kind, records, known, deeper)
    if isinstance(value, Opaque):
        items = None if value.items is None else [encode(v, records, known, deeper) for v in value.items]
        return {"$o": value.type_name, "text": value.text, "items": items}
    return {"$o": kind.__name__, "text": object.__repr__(value), "items": None}


def _function_name(value: Any) -> str | None:
    """The "module:name" of a function its workshop module binds under its own name, else None
    (another function is sent as an object: the other side can only look names up in the workshop)."""
    if not isinstance(value, types.FunctionType):
        return None
    module, name = str(value.__module__), str(value.__name__)
    home = _workshop(module)
    return f"{module}:{name}" if home is not None and vars(home).get(name) is value else None


def _record_data(value: Any, kind: type, records: list, known: dict[int, int] | None, deeper: int) -> dict:
    """A workshop record field by field, read with object.__getattribute__ (no __getattr__ of a
    subclass runs); it is numbered before its fields, as the other side numbers what it builds."""
    records.append(value)
    fields = {f.name: encode(object.__getattribute__(value, f.name), records, known, deeper)
              for f in dataclasses.fields(kind) if hasattr(value, f.name)}
    return {"$r": f"{kind.__module__}:{kind.__name__}", "v": fields}


def decode(data: Any, records: list, sent: list | None = None, depth: int = 0,
           stub: Callable[[Any, Any], Any] | None = None) -> Any:
    """A value from encode's data: plain built-ins, the workshop's records (built here, field by field),
    Opaque stand-ins. `sent` are the records this side sent in the call ({"$a": i}); records built
    are appended to `records`. `stub(kind, n)` builds the stand-in of a served object (the learner's
    side only: the judge passes none, and a "$cb" is then Garbage). Anything else raises Garbage."""
    if depth > MAX_DEPTH + 2:
        raise Garbage("nested too deep")
    kind = type(data)
    if data is None or kind in (bool, int, float, str):
        return data
    if kind is list:
        return [decode(v, records, sent, depth + 1, stub) for v in data]
    if kind is not dict or len(data) not in (1, 2, 3):
        raise Garbage(f"unexpected {kind.__name__}")
    tag = next(iter(data))
    if tag == "$cb":
        if stub is None or type(data["$cb"]) is not int or type(data.get("kind")) is not str:
            raise Garbage("a served object where none is expected")
        return stub(data["kind"], data["$cb"])
    handler = _TAGS.get(tag)
    if handler is None:
        raise Garbage(f"unknown tag {str(tag)[:20]}")
    try:
        return handler(data, lambda v: decode(v, records, sent, depth + 1, stub), records, sent)
    except (TypeError, ValueError) as exc:  # an unhashable key, a bad hex string
        raise Garbage(str(exc)[:200]) from None


def _sent(data: dict, _inner: Callable, _records: list, sent: list | None) -> Any:
    index = data["$a"]
    if sent is None or type(index) is not int or not 0 <= index < len(sent):
        raise Garbage("a reference to no record sent")
    return sent[index]


def _record(data: dict, inner: Callable, records: list, _sent: list | None) -> Any:
    cls = _record_class(data["$r"])
    values = data.get("v")
    if type(values) is not dict:
        raise Garbage("a record without fields")
    out: Any = object.__new__(cls)
    records.append(out)
    names = {f.name for f in dataclasses.fields(cls)}
    for key, value in values.items():
        if key in names:
            object.__setattr__(out, key, inner(value))
    return out


def _opaque(data: dict, inner: Callable, _records: list, _sent: list | None) -> Any:
    name = str(data["$o"])[:60]
    name = name if name.isidentifier() else "object"
    items = data.get("items")
    return type(name, (Opaque,), {})(name, str(data.get("text", ""))[:300],
                                     None if items is None else [inner(v) for v in _list(items)])


def _pairs(data: dict, inner: Callable, _records: list, _sent: list | None) -> dict:
    out: dict = {}
    for pair in _list(data["$d"]):
        if type(pair) is not list or len(pair) != 2:
            raise Garbage("a dict item that is not a pair")
        out[inner(pair[0])] = inner(pair[1])
    return out


_TAGS: dict[str, Callable[[dict, Callable, list, list | None], Any]] = {
    "$t": lambda d, inner, *_: tuple(inner(v) for v in _list(d["$t"])),
    "$d": _pairs,
    "$s": lambda d, inner, *_: {inner(v) for v in _list(d["$s"])},
    "$f": lambda d, inner, *_: frozenset(inner(v) for v in _list(d["$f"])),
    "$b": lambda d, *_: bytes.fromhex(str(d["$b"])),
    "$x": lambda d, *_: float(str(d["$x"])[:8]),
    "$fn": lambda d, *_: _function(d["$fn"]),
    "$a": _sent,
    "$r": _record,
    "$o": _opaque,
}


def _list(body: Any) -> list:
    if type(body) is not list:
        raise Garbage("expected a list")
    return body


def dumps(message: dict) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode("utf-8", "surrogatepass") + b"\n"


def loads(line: bytes) -> dict:
    """One message; Garbage unless it is a JSON object of a bounded size."""
    if len(line) > MAX_MESSAGE:
        raise Garbage("a message over the size limit")
    try:
        message = json.loads(line.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError) as exc:
        raise Garbage(f"not JSON: {str(exc)[:100]}") from None
    if type(message) is not dict:
        raise Garbage("not a JSON object")
    return message
