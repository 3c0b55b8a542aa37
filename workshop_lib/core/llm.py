"""An optional language model: the standard `openai` client on any OpenAI-compatible endpoint.

Nothing in the workshop needs a model. When one is configured, Part 4 can let it
phrase answers and Part 5 can let it classify intents and pick catalog items; every
one of those paths has a deterministic fallback.

Configuration (environment, or a git-ignored .env at the repo root):
    OPENAI_API_KEY    key for the endpoint (any non-empty value for a local Ollama)
    OPENAI_BASE_URL   e.g. http://localhost:11434/v1 for Ollama, or an OCI Generative AI
                      OpenAI-compatible URL; empty means api.openai.com
    OPENAI_MODEL      model name (required when OPENAI_BASE_URL is set)
    WORKSHOP_LLM=off  ignore any of the above (what the notebooks' checks assume)

Tests never touch the network: they build `LLM(client=fake, model=...)` where the fake
has the same `chat.completions.create(...)` shape as the openai client.
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Protocol

from workshop_lib import config
from workshop_lib.errors import WorkshopError

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT_S = 20.0


class LLMError(WorkshopError, RuntimeError):
    """The model call failed or returned something unusable; callers fall back."""


class LLMTimeout(LLMError):
    pass


def settings() -> dict[str, str] | None:
    """The endpoint settings, or None when no model is configured."""
    config.load_dotenv()
    if os.environ.get("WORKSHOP_LLM", "").strip().lower() in ("off", "0", "false", "none", "no"):
        return None
    key = os.environ.get("OPENAI_API_KEY", "").strip()
    base_url = os.environ.get("OPENAI_BASE_URL", "").strip()
    model = os.environ.get("OPENAI_MODEL", "").strip()
    if not key and not base_url:
        return None
    if base_url and not model:
        raise ValueError(
            f"OPENAI_BASE_URL is set ({base_url}) but OPENAI_MODEL is not. Fix: set OPENAI_MODEL to a model "
            "that endpoint serves (for Ollama, e.g. `llama3.1`), or unset OPENAI_BASE_URL."
        )
    return {"api_key": key or "not-needed", "base_url": base_url, "model": model or DEFAULT_OPENAI_MODEL}


def get_llm(*, timeout: float = DEFAULT_TIMEOUT_S) -> LLM | None:
    """An LLM when one is configured, else None."""
    s = settings()
    if s is None:
        return None
    from openai import OpenAI

    client = OpenAI(api_key=s["api_key"], base_url=s["base_url"] or None, timeout=timeout, max_retries=0)
    return LLM(client=client, model=s["model"], timeout=timeout)


@dataclass
class ToolCall:
    name: str
    arguments: str  # raw JSON text, as the model produced it
    id: str = ""    # the call's id; the tool result message must carry it back


@dataclass
class Reply:
    """What one chat call returned: text, tool calls, and how long it took."""

    content: str
    tool_calls: list[ToolCall]
    seconds: float


# A chat message or a tool schema as the OpenAI chat API takes it: a JSON object.
Message = Mapping[str, object]


class ContextAnswerer(Protocol):
    """What Part 4's answer step calls on a model: phrase an answer from the given facts only."""

    def answer_from_context(self, question: str, context: list[str]) -> str: ...


class ChatModel(ContextAnswerer, Protocol):
    """The model client the lesson code takes as `llm`: `LLM` below, or a test's stand-in."""

    def chat(self, messages: Sequence[Message], *, tools: Sequence[Message] | None = None,
             tool_choice: str | Message | None = None, timeout: float | None = None,
             temperature: float = 0.0, response_format: Message | None = None, **extra: object) -> Reply: ...

    def complete(self, system: str, user: str, *, timeout: float | None = None, temperature: float = 0.0,
                 response_format: Message | None = None) -> str: ...


class LLM:
    """A thin wrapper: one chat call with a hard time limit, answers as plain data."""

    # client: openai.OpenAI or a stand-in with its `chat.completions.create(**kwargs)`; what it
    # returns is read by attribute and its shape checked in chat(), so it stays untyped here.
    def __init__(self, client: Any, model: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        if not model or not isinstance(model, str):
            raise ValueError("model must be the model's name, e.g. 'gpt-4o-mini'")
        self.client = client
        self.model = model
        self.timeout = float(timeout)

    def __repr__(self) -> str:
        return f"<LLM {self.model}>"

    def chat(self, messages: Sequence[Message], *, tools: Sequence[Message] | None = None,
             tool_choice: str | Message | None = None, timeout: float | None = None,
             temperature: float = 0.0, response_format: Message | None = None, **extra: object) -> Reply:
        """One completion. Raises LLMTimeout past the time limit, LLMError on any failure."""
        limit = self.timeout if timeout is None else float(timeout)
        kwargs: dict[str, object] = {"model": self.model, "messages": messages, "temperature": temperature,
                                  "timeout": limit, **extra}
        if tools:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if response_format is not None:
            kwargs["response_format"] = response_format
        start = time.perf_counter()
        # The client's own timeout covers the network; the thread also bounds a client that hangs.
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        future = pool.submit(self.client.chat.completions.create, **kwargs)
        try:
            response = future.result(timeout=limit)
        except concurrent.futures.TimeoutError:
            raise LLMTimeout(f"the model did not answer within {limit:.1f} s") from None
        except Exception as exc:
            if "timeout" in type(exc).__name__.lower() or isinstance(exc, TimeoutError):
                raise LLMTimeout(f"the model call timed out: {exc}") from exc
            raise LLMError(f"the model call failed: {type(exc).__name__}: {exc}") from exc
        finally:
            pool.shutdown(wait=False)
        return _reply(response, time.perf_counter() - start)

    def complete(self, system: str, user: str, *, timeout: float | None = None, temperature: float = 0.0,
                 response_format: Message | None = None) -> str:
        """Plain text from a system + user prompt (response_format as the chat API takes it)."""
        return self.chat([{"role": "system", "content": system}, {"role": "user", "content": user}],
                         timeout=timeout, temperature=temperature, response_format=response_format).content

    def answer_from_context(self, question: str, context: list[str], *, timeout: float | None = None,
                            temperature: float = 0.0) -> str:
        """Part 4's optional phrasing step: answer only from the given facts."""
        facts = "\n".join(f"- {c}" for c in context)
        return self.complete(
            "You answer questions about a shipping database using ONLY the facts given. "
            "If the facts do not answer the question, say so. Be brief.",
            f"Facts:\n{facts}\n\nQuestion: {question}",
            timeout=timeout, temperature=temperature,
        )


def _reply(response: Any, seconds: float) -> Reply:
    """The text and tool calls of a chat completion (the client's object, read by attribute)."""
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError, TypeError) as exc:
        raise LLMError(f"unexpected response shape: {response!r:.200}") from exc
    calls = []
    for call in getattr(message, "tool_calls", None) or []:
        fn = getattr(call, "function", None)
        calls.append(ToolCall(name=str(getattr(fn, "name", "") or ""),
                              arguments=str(getattr(fn, "arguments", "") or ""),
                              id=str(getattr(call, "id", "") or "")))
    return Reply(content=str(getattr(message, "content", "") or ""), tool_calls=calls, seconds=seconds)


def parse_json_object(text: str) -> dict[str, object]:
    """The JSON object in a model's text (a ```json fence is tolerated); LLMError otherwise."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`")
        body = body[4:] if body.lower().startswith("json") else body
    try:
        value = json.loads(body)
    except (json.JSONDecodeError, TypeError) as exc:
        raise LLMError(f"not valid JSON: {text[:120]!r}") from exc
    if not isinstance(value, dict):
        raise LLMError(f"expected a JSON object, got {type(value).__name__}")
    return value


# ---------------------------------------------------------------- scripted models (demos and tests)
def fake_response(content: str | None = "", tool_calls: Sequence[tuple[str, str] | tuple[str, str, str]] | None = None
                  ) -> SimpleNamespace:
    """An object shaped like the openai client's chat completion (only what LLM.chat reads).
    tool_calls: (name, arguments) or (name, arguments, call_id) tuples."""
    calls = [SimpleNamespace(type="function", id=(call[2] if len(call) > 2 else f"call_{i}"),
                             function=SimpleNamespace(name=call[0], arguments=call[1]))
             for i, call in enumerate(tool_calls or [])]
    return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=content, tool_calls=calls or None))])


# A scripted reply: a response object, or a function of the request's keyword arguments.
Respond = SimpleNamespace | Callable[..., SimpleNamespace]


class ScriptedClient:
    """Stands in for openai.OpenAI: `chat.completions.create(**kwargs)` returns what `respond` returns.

    `respond` is a response object (see fake_response) or a function of the request's
    keyword arguments; if it raises, the call raises. Every request is kept in `.requests`.
    """

    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.requests: list[dict[str, object]] = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **kwargs: object) -> SimpleNamespace:
        self.requests.append(kwargs)
        return self.respond(**kwargs) if callable(self.respond) else self.respond


def scripted(respond: Respond, *, model: str = "scripted-model", timeout: float = DEFAULT_TIMEOUT_S) -> LLM:
    """An LLM whose replies are scripted: the real wrapper, a fake client, no network."""
    return LLM(ScriptedClient(respond), model, timeout=timeout)
