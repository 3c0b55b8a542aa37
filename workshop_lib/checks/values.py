"""What a learner's function returned, as plain values before a check compares it.

A check compares what the learner's function returned with the reference. A value whose class
the learner wrote (a `str` subclass whose `!=` is always False, a list whose `__eq__` says
yes) would decide that comparison itself. `plain(value)` rebuilds the value from its contents
with the exact built-in types (str, int, float, bool, bytes, None, list, tuple, dict, set,
frozenset) and the workshop's own record classes (dataclasses defined in workshop_lib), read
through the built-in types' own methods so no method of the learner's runs. Anything else
becomes an `Opaque` stand-in that equals only itself and shows the original's type and repr,
so a check still says what came back.
"""
from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from typing import Any, cast

MAX_DEPTH = 60  # deeper values are cut: a check never needs them, and recursion must stay bounded
_REPR_LIMIT = 300


MAX_ITEMS = 1_000_000  # items read from an iterator (a generator) before it counts as endless


class Opaque:
    """Stands for a value of a class that is neither built-in nor the workshop's; an iterable one
    (a generator) carries its items, read once, as plain values."""

    def __init__(self, type_name: str, text: str, items: list[Any] | None = None) -> None:
        self.type_name, self.text, self.items = type_name, text, items

    def __repr__(self) -> str:
        return self.text

    def __iter__(self) -> Iterator[Any]:
        if self.items is None:
            raise TypeError(f"'{self.type_name}' object is not iterable")
        return iter(self.items)


def _items(value: Any, keep: frozenset[int] | set[int], depth: int) -> list[Any] | None:
    """The items of an iterable object, read once (None when it is not iterable)."""
    if not hasattr(type(value), "__iter__"):
        return None
    out: list[Any] = []
    for item in value:
        if len(out) >= MAX_ITEMS:
            raise ValueError(f"it yielded more than {MAX_ITEMS:,} items")
        out.append(plain(item, keep, depth))
    return out


def _opaque(value: Any) -> Opaque:
    name = str.__str__(type(value).__name__) if isinstance(type(value).__name__, str) else "object"
    try:
        text = repr(value)
        text = str.__str__(text)[:_REPR_LIMIT] if isinstance(text, str) else f"<{name}>"
    except Exception:  # noqa: BLE001 - a repr that fails still leaves a readable stand-in
        text = f"<{name}>"
    # A class per stand-in named as the original, so `type(got).__name__` in a message still reads right.
    return cast(type[Opaque], type(name, (Opaque,), {}))(name, text)


def _workshop_record(cls: type) -> type | None:
    """The workshop dataclass `cls` is or derives from (the first in its MRO), else None."""
    mro: tuple[type, ...] = type.__getattribute__(cls, "__mro__")
    for klass in mro:
        if "__dataclass_fields__" in klass.__dict__ and _workshop_class(klass):
            return klass
    return None


def inputs(*values: Any) -> set[int]:
    """The ids of the check's own objects among `values` (records in its arguments, one level into
    lists, tuples and dicts): handed back by the learner's function, they keep their identity."""
    out: set[int] = set()
    for value in values:
        inner = list(value.values()) if type(value) is dict else value if type(value) in (list, tuple) else [value]
        out.update(id(v) for v in inner if _workshop_record(type(v)) is not None)
    return out


def plain(value: Any, keep: frozenset[int] | set[int] = frozenset(), _depth: int = 0) -> Any:
    """`value` rebuilt from exact built-in types and workshop records (see the module docstring);
    the objects whose ids are in `keep` (the check's own records, see `inputs`) are returned as they are."""
    if value is None or value is True or value is False or id(value) in keep:
        return value
    if _depth > MAX_DEPTH:
        return _opaque(value)
    deeper, kind = _depth + 1, type(value)  # type(), not isinstance: `__class__` can be faked
    done, out = _builtin_scalar(kind, value)
    if not done:
        done, out = _builtin_container(kind, value, keep, deeper)
    if done:
        return out
    record = _workshop_record(kind)
    if record is not None:
        return _rebuild(record, value, keep, deeper)
    if _workshop_class(kind):
        return value  # the workshop's own object (an engine, a registry): its behaviour is the workshop's
    shown = _opaque(value)  # its repr is taken before its items are read
    shown.items = _items(value, keep, deeper)
    return shown


def _builtin_scalar(kind: type, value: Any) -> tuple[bool, Any]:
    """(True, the value as an exact str, int, float or bytes) for an instance of one of them or of
    a subclass, read through the built-in type's own method; (False, None) for anything else."""
    if issubclass(kind, str):
        return True, str.__str__(value)
    if issubclass(kind, int):
        return True, int.__int__(value)
    if issubclass(kind, float):
        return True, float.__float__(value)
    if issubclass(kind, (bytes, bytearray)):
        return True, bytes(memoryview(value))
    return False, None


def _builtin_container(kind: type, value: Any, keep: frozenset[int] | set[int], deeper: int) -> tuple[bool, Any]:
    """(True, an exact list, tuple, dict, set or frozenset of plain items) for an instance of one of
    them or of a subclass, iterated through the built-in type's own method; (False, None) otherwise."""
    if issubclass(kind, list):
        return True, [plain(v, keep, deeper) for v in list.__iter__(value)]
    if issubclass(kind, tuple):
        return True, tuple(plain(v, keep, deeper) for v in tuple.__iter__(value))
    if issubclass(kind, dict):
        return True, {plain(k, keep, deeper): plain(v, keep, deeper) for k, v in dict.items(value)}
    if issubclass(kind, set):
        return True, {plain(v, keep, deeper) for v in set.__iter__(value)}
    if issubclass(kind, frozenset):
        return True, frozenset(plain(v, keep, deeper) for v in frozenset.__iter__(value))
    return False, None


def _workshop_class(cls: type) -> bool:
    """A class defined in workshop_lib: its module says so and holds it under its name."""
    module = cls.__dict__.get("__module__", "")
    if not isinstance(module, str) or not module.startswith("workshop_lib."):
        return False
    where = sys.modules.get(module)
    return where is not None and vars(where).get(type.__getattribute__(cls, "__name__")) is cls


def _rebuild(cls: type, value: Any, keep: frozenset[int] | set[int], depth: int) -> Any:
    """A new `cls` holding the plain fields of `value` (no __init__ or __post_init__ of anyone runs)."""
    out: Any = object.__new__(cls)
    for f in dataclasses.fields(cls):
        try:
            field_value = object.__getattribute__(value, f.name)
        except AttributeError:
            continue
        object.__setattr__(out, f.name, plain(field_value, keep, depth))
    return out
