"""Tools for the agent: a function with type hints and a docstring becomes an OpenAI tool.

    registry = ToolRegistry()

    @registry.tool
    def count_rows(table: str) -> str:
        \"\"\"Count the rows of one SUPPLYCHAIN table.

        Args:
            table: the table name, e.g. VOYAGES
        \"\"\"

The schema the model sees is built from the signature (parameter types, which ones have
defaults) and the docstring (the first paragraph describes the tool, `Args:` lines describe
the parameters): nobody writes JSON schemas by hand. `dispatch` runs a call the model asked
for and never raises: an unknown tool, arguments that are not JSON or do not fit the
signature, and an exception inside the tool all become an error result the model can read.
"""
from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_ARGUMENT_CHARS = 64 * 1024   # a tool call's JSON arguments; the longest SQL the tool takes is 20,000
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object", list: "array"}


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict
    fn: Callable[..., Any]
    preview: bool = True          # False: the model always gets the whole output (fetch_tool_output)

    def schema(self) -> dict:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


@dataclass
class ToolResult:
    call_id: str
    name: str
    ok: bool
    content: str                  # what the model reads (a short preview for long outputs)
    full: str = ""                # the whole output, stored as a tool_output memory
    error: str = ""


def _json_type(annotation: Any) -> dict:
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)) and len(args) == 1:
        return _json_type(args[0])
    if origin in (list, tuple) and args:
        return {"type": "array", "items": _json_type(args[0])}
    if origin is typing.Literal:
        return {"type": "string", "enum": [str(a) for a in typing.get_args(annotation)]}
    base = origin or annotation
    if base not in _JSON_TYPES:
        raise TypeError(f"parameter type {annotation!r} has no JSON schema type; use str, int, float, bool, list or dict")
    return {"type": _JSON_TYPES[base]}


def _docstring_parts(doc: str) -> tuple[str, dict[str, str]]:
    doc = inspect.cleandoc(doc or "")
    head, _, rest = doc.partition("\nArgs:")
    described = {}
    for line in rest.splitlines():
        found = re.match(r"\s+(\w+)\s*(?:\([^)]*\))?:\s*(.+)", line)
        if found:
            described[found.group(1)] = found.group(2).strip()
    return " ".join(head.split()), described


def make_tool(fn: Callable[..., Any], name: str | None = None, preview: bool = True) -> Tool:
    """A Tool from a plain function (its type hints and docstring)."""
    description, described = _docstring_parts(fn.__doc__ or "")
    if not description:
        raise ValueError(f"{fn.__name__} needs a docstring: its first line tells the model what the tool does")
    hints = typing.get_type_hints(fn)
    properties, required = {}, []
    for pname, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ValueError(f"{fn.__name__}: *args / **kwargs cannot be described to a model")
        if pname not in hints:
            raise ValueError(f"{fn.__name__}: parameter {pname!r} needs a type hint")
        prop = _json_type(hints[pname])
        if pname in described:
            prop["description"] = described[pname]
        properties[pname] = prop
        if param.default is param.empty:
            required.append(pname)
    parameters = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return Tool(name or fn.__name__, description, parameters, fn, preview)


def _where(fn: Callable[..., Any]) -> tuple[str, str]:
    """Where a function was defined: a cell run twice gives the same module and qualified name."""
    return getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn))


@dataclass
class ToolRegistry:
    tools: dict[str, Tool] = field(default_factory=dict)
    preview_chars: int = 600   # what the model reads of a long output; the rest is one fetch away

    def tool(self, fn: Callable[..., Any] | None = None, *, name: str | None = None, preview: bool = True):
        """Decorator: register a function as a tool (@registry.tool, or @registry.tool(name=..., preview=False))."""
        def register(f: Callable[..., Any]) -> Callable[..., Any]:
            made = make_tool(f, name, preview)
            old = self.tools.get(made.name)
            # A notebook cell run again defines the same function anew: its latest version replaces
            # the tool. A different function under a taken name is still refused.
            if old is not None and _where(old.fn) != _where(f):
                raise ValueError(f"a tool named {made.name!r} is already registered")
            self.tools[made.name] = made
            return f
        return register(fn) if fn is not None else register

    def schemas(self) -> list[dict]:
        return [t.schema() for t in self.tools.values()]

    def dispatch(self, call_id: str, name: str, arguments: str) -> ToolResult:
        """Run one tool call. Never raises: every failure is an error result for the model."""
        try:
            return self._dispatch(call_id, name, arguments)
        except Exception as exc:  # noqa: BLE001 - the promise: a result, never an exception
            return _error(str(call_id), str(name), f"the call could not be run ({type(exc).__name__})")

    def refuse(self, call_id: str, name: str, message: str) -> ToolResult:
        """An error result for a call that is not run (the loop's budget is spent)."""
        return _error(call_id, name, message)

    def _dispatch(self, call_id: str, name: str, arguments: str) -> ToolResult:
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return _error(call_id, name, f"unknown tool {_clean(repr(name))[:100]}; the tools are: "
                                         f"{', '.join(sorted(self.tools))}")
        args, problem = _parsed_arguments(arguments)
        if problem is not None:
            return _error(call_id, name, problem)
        try:
            inspect.signature(tool.fn).bind(**args)
        except TypeError as exc:
            return _error(call_id, name, f"the arguments do not fit {name}: {exc}")
        try:
            output = tool.fn(**args)
        except RecursionError:
            return _error(call_id, name, "RecursionError: the input is nested too deeply")
        except Exception as exc:  # noqa: BLE001 - a failing tool is a result the model reads, never a crash
            return _error(call_id, name, f"{type(exc).__name__}: {exc}")
        return self._result(call_id, name, tool, output)

    def _result(self, call_id: str, name: str, tool: Tool, output: Any) -> ToolResult:
        """The tool's output as text; the model reads a preview of a long one, the rest is stored."""
        text = output if isinstance(output, str) else json.dumps(output, default=str)
        text = _clean(text)
        preview = text if not tool.preview or len(text) <= self.preview_chars else (
            text[:self.preview_chars] + f"... [{len(text):,} characters in all; fetch_tool_output('{call_id}') "
                                        "returns the rest]")
        return ToolResult(call_id, name, True, preview, full=text)


def _parsed_arguments(arguments: Any) -> tuple[dict, str | None]:
    """The call's arguments as a dict, or ({}, what is wrong with them): a JSON object in a string,
    at most MAX_ARGUMENT_CHARS long; none at all is {}."""
    if arguments is not None and not isinstance(arguments, str):
        return {}, "the arguments must be a JSON object in a string"
    if arguments and len(arguments) > MAX_ARGUMENT_CHARS:
        return {}, f"the arguments are {len(arguments):,} characters; the limit is {MAX_ARGUMENT_CHARS:,}"
    try:
        args = json.loads(arguments or "{}")
    except RecursionError:
        return {}, "the arguments are nested too deeply; send a flat JSON object"
    except (TypeError, ValueError) as exc:  # a 5,000-digit number is a ValueError too
        return {}, f"the arguments are not valid JSON ({_clean(str(exc))[:200]}); send a JSON object"
    if not isinstance(args, dict):
        return {}, "the arguments must be a JSON object"
    return args, None


def _clean(text: str) -> str:
    """Text any database and JSON encoder accepts: lone surrogates become U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)  # in a str every surrogate is lone (pairs decode to one code point)


def _error(call_id: str, name: str, message: str) -> ToolResult:
    message = _clean(message)
    text = json.dumps({"error": message})
    return ToolResult(call_id, name, False, text, full=text, error=message)
