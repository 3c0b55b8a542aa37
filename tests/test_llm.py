"""The optional LLM client: configuration from the environment, and the chat wrapper.

The model is always replaced at the client interface (an object with
`chat.completions.create`), never by touching the network.
"""
from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from workshop_lib import config
from workshop_lib.core import llm
from workshop_lib.core.llm import LLM, LLMError, LLMTimeout

ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "WORKSHOP_LLM")


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in ENV:
        # setenv first so that monkeypatch restores the variable's absence afterwards:
        # a .env read during the test (load_dotenv writes os.environ) must not leak out.
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.setattr(config, "_REPO_ROOT", tmp_path)  # no .env from the real checkout
    return monkeypatch


def message(content="", tool_calls=None):
    return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=content, tool_calls=tool_calls))])


def tool_call(name, arguments):
    return SimpleNamespace(type="function", function=SimpleNamespace(name=name, arguments=arguments))


class FakeClient:
    """Same shape as openai.OpenAI for what we use: client.chat.completions.create(**kwargs)."""

    def __init__(self, respond):
        self.calls = []
        self.respond = respond
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **kwargs):
        self.calls.append(kwargs)
        return self.respond(**kwargs)


# ---------------------------------------------------------------- configuration
def test_unconfigured_means_no_model(clean_env):
    assert llm.settings() is None
    assert llm.get_llm() is None


def test_api_key_alone_uses_openai_default_model(clean_env):
    clean_env.setenv("OPENAI_API_KEY", "sk-test")
    assert llm.settings() == {"api_key": "sk-test", "base_url": "", "model": llm.DEFAULT_OPENAI_MODEL}
    model = llm.get_llm()
    assert isinstance(model, LLM) and model.model == llm.DEFAULT_OPENAI_MODEL


def test_local_endpoint_needs_a_model_name(clean_env):
    clean_env.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    with pytest.raises(ValueError, match="OPENAI_MODEL"):
        llm.settings()
    clean_env.setenv("OPENAI_MODEL", "llama3.1")
    s = llm.settings()
    assert s["model"] == "llama3.1" and s["api_key"] == "not-needed"  # type: ignore[index]
    assert llm.get_llm().client.base_url.host == "localhost"


def test_workshop_llm_off_wins(clean_env):
    clean_env.setenv("OPENAI_API_KEY", "sk-test")
    clean_env.setenv("WORKSHOP_LLM", "off")
    assert llm.get_llm() is None


def test_dotenv_is_read(clean_env, tmp_path):
    (tmp_path / ".env").write_text("# local\nOPENAI_API_KEY='sk-from-file'\nOPENAI_MODEL=gpt-test\n")
    assert llm.settings()["api_key"] == "sk-from-file"  # type: ignore[index]
    assert llm.settings()["model"] == "gpt-test"  # type: ignore[index]


# ---------------------------------------------------------------- the chat wrapper
def test_chat_passes_arguments_and_reads_tool_calls():
    client = FakeClient(lambda **kw: message("", [tool_call("select_items", '{"item_ids": ["A"]}')]))
    model = LLM(client, "fake-model", timeout=3)
    tools = [{"type": "function", "function": {"name": "select_items", "parameters": {}}}]
    reply = model.chat([{"role": "user", "content": "hi"}], tools=tools, tool_choice="required")
    sent = client.calls[0]
    assert sent["model"] == "fake-model" and sent["tools"] == tools and sent["tool_choice"] == "required"
    assert sent["timeout"] == 3 and sent["temperature"] == 0.0
    assert reply.tool_calls[0].name == "select_items" and reply.tool_calls[0].arguments == '{"item_ids": ["A"]}'
    assert reply.content == "" and reply.seconds >= 0


def test_complete_and_answer_from_context():
    client = FakeClient(lambda **kw: message("  Capacity is in TEU. "))
    model = LLM(client, "fake-model")
    assert model.answer_from_context("What unit?", ["CAPACITY_TEU is in TEU"]).strip() == "Capacity is in TEU."
    prompt = client.calls[0]["messages"]
    assert prompt[0]["role"] == "system" and "ONLY the facts" in prompt[0]["content"]
    assert "- CAPACITY_TEU is in TEU" in prompt[1]["content"]
    assert "tools" not in client.calls[0]


def test_slow_model_times_out_quickly():
    def slow(**kw):
        time.sleep(1.0)
        return message("late")

    model = LLM(FakeClient(slow), "fake-model", timeout=0.1)
    start = time.perf_counter()
    with pytest.raises(LLMTimeout):
        model.chat([{"role": "user", "content": "hi"}])
    assert time.perf_counter() - start < 0.8


def test_client_timeout_errors_are_timeouts():
    import httpx
    import openai

    request = httpx.Request("POST", "http://example.invalid/v1/chat/completions")

    def raise_(**kw):
        raise openai.APITimeoutError(request=request)  # type: ignore[arg-type]

    with pytest.raises(LLMTimeout):
        LLM(FakeClient(raise_), "m").chat([])

    def boom(**kw):
        raise ConnectionError("refused")

    with pytest.raises(LLMError, match="ConnectionError"):
        LLM(FakeClient(boom), "m").chat([])


def test_unexpected_response_shape():
    with pytest.raises(LLMError, match="unexpected response"):
        LLM(FakeClient(lambda **kw: SimpleNamespace(choices=[])), "m").chat([])


def test_none_content_becomes_empty_text():
    reply = LLM(FakeClient(lambda **kw: message(None)), "m").chat([])
    assert reply.content == "" and reply.tool_calls == []


def test_model_name_required():
    with pytest.raises(ValueError, match="model"):
        LLM(FakeClient(lambda **kw: message("x")), "")


@pytest.mark.parametrize("text, expected", [
    ('{"a": 1}', {"a": 1}),
    ('```json\n{"a": 1}\n```', {"a": 1}),
    ('```\n{"a": 1}\n```', {"a": 1}),
])
def test_parse_json_object(text, expected):
    assert llm.parse_json_object(text) == expected


@pytest.mark.parametrize("text", ["[1, 2]", "{not json", "", "null"])
def test_parse_json_object_rejects(text):
    with pytest.raises(LLMError):
        llm.parse_json_object(text)


def test_scripted_models_use_the_real_wrapper():
    model = llm.scripted(llm.fake_response("", [("select_items", '{"item_ids": ["X"]}')]))
    reply = model.chat([{"role": "user", "content": "pick"}], tools=[{"type": "function"}])
    assert reply.tool_calls[0].name == "select_items" and model.client.requests[0]["tools"]
    assert llm.scripted(lambda **kw: llm.fake_response("hi")).complete("s", "u") == "hi"

    def down(**kw):
        raise ConnectionError("no route")

    with pytest.raises(LLMError):
        llm.scripted(down).chat([])
