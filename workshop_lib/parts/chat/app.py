"""The chat service: an ASGI app (Starlette) over one connected engine.

    POST /chat            {question, thread_id?, user_id?, agent?} -> the answer, its mode and why
                          (agent: true lets Part 6's agent answer with its tools);
                          header X-Answer-Mode; `Accept: text/event-stream` streams progress
                          events and exactly one final `answer` event
    GET  /threads/{id}    the thread's messages (?user_id=: only the owner's threads; default the workshop
                          user); an answer's with its mode, sources, tool calls and decision_explain,
                          as it was sent (history.py)
    GET  /health          status; with the token (or when none is set) also engine, model, store,
                          telemetry, document index
    GET  /stats           answers per minute and mode (fallback spikes), totals
    GET  /                the chat page

Every answered request is logged in CHAT_INTERACTIONS. A refused request (4xx) stores
nothing and says what to fix, with an error id; an error inside answering gives a 500 with
an error id that is in the server's log, never a stack trace. Each request works in its
user's scope (eng.scoped(user_id)): memories, corrections, tool outputs and threads of one
user are never read for another. There is no authentication unless a token is set; then
every route but the page needs `Authorization: Bearer <token>`, a token in the query string
is refused (it would land in access logs: the page is opened as /#token=...), and /health
without it says only that the service is up. The server binds to 127.0.0.1 by default.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import re
import secrets
import threading
import time
import unicodedata
import uuid
from collections.abc import AsyncIterator
from importlib import resources
from typing import TYPE_CHECKING, Any

import anyio
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from workshop_lib import config
from workshop_lib.assistant import catalog_links, question_part
from workshop_lib.assistant.answering import follow_up, router
from workshop_lib.assistant.answering.answer import ChatAnswer, agent_answer, answer_question
from workshop_lib.assistant.answering.recall import (
    asks_a_day_of_theirs,
    catalog_of_their_own,
    its_own_sentence_holds,
    kept_sentence_answers,
    recall_answer,
    ship_as_theirs,
    thing_as_theirs,
    whose_told,
    with_their_parts,
    words_said,
)
from workshop_lib.core.arguments import MAX_SCOPE_ID_BYTES, check_id
from workshop_lib.errors import WorkshopError
from workshop_lib.parts.chat import history, telemetry
from workshop_lib.parts.ingest import index
from workshop_lib.parts.memory import personal, preferences, quotes, totals
from workshop_lib.parts.memory.writer import observe_user_turn

if TYPE_CHECKING:  # the engine interface, for annotations only (no import cycle)
    import pandas as pd

    from workshop_lib.engines.base import Engine

log = logging.getLogger("workshop.chat")

MAX_BODY_BYTES = 64 * 1024      # a chat message, with room to spare
MAX_QUESTION_CHARS = 2_000      # longer is not a question (and costs every retriever)
FIELDS = {"question", "thread_id", "user_id", "agent"}
BODY_READ_S = 30.0              # the server closes a connection whose body takes longer (server.BODY_TIMEOUT_S)


class Refused(WorkshopError):
    """A request the service will not answer: becomes a 4xx JSON error; nothing is stored."""

    def __init__(self, status: int, error: str, fix: str) -> None:
        super().__init__(error)
        self.status, self.error, self.fix = status, error, fix
        self.error_id = uuid.uuid4().hex[:12]

    def response(self) -> JSONResponse:
        log.info("refused %s: %s %s", self.error_id, self.status, self.error[:200])
        return JSONResponse({"error": self.error, "fix": self.fix, "error_id": self.error_id},
                            status_code=self.status)


def _lone_surrogate(value: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in value)


def _check_id(body: dict, name: str) -> str | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, str) and (_lone_surrogate(value) or "\x00" in value):
        raise Refused(422, f"`{name}` holds a lone surrogate or a NUL character, which no database stores",
                      f"send `{name}` as plain text")
    try:  # the same rule as the scope and the store: not blank, at most MAX_SCOPE_ID_BYTES in UTF-8
        check_id(value, name, max_bytes=MAX_SCOPE_ID_BYTES)
    except ValueError as exc:
        raise Refused(422, str(exc), f"send `{name}` as a non-blank string of at most {MAX_SCOPE_ID_BYTES} "
                      "bytes in UTF-8, or leave it out") from None
    return value


def is_blank(text: str) -> bool:
    """Nothing to read: only spaces, line breaks, control or format characters (zero-width
    space, BOM), i.e. Unicode categories Z and C. The page refuses the same set before sending."""
    return all(unicodedata.category(ch)[0] in "ZC" for ch in text)


def parse_chat_request(raw: bytes) -> dict[str, Any]:
    """The validated request, or Refused with what to fix."""
    body = _json_object(raw)
    _known_text_fields(body)
    question = _checked_question(body)
    agent = body.get("agent", False)
    if not isinstance(agent, bool):
        raise Refused(422, "`agent` must be true or false", 'send "agent": true to let the Part 6 agent answer')
    user_id = _check_id(body, "user_id")
    return {"question": question, "thread_id": _check_id(body, "thread_id"), "user_id": user_id, "agent": agent}


def _json_object(raw: bytes) -> dict[str, Any]:
    """The body read as a JSON object of at most MAX_BODY_BYTES, or Refused."""
    if len(raw) > MAX_BODY_BYTES:
        raise Refused(413, f"the request body is {len(raw):,} bytes; the limit is {MAX_BODY_BYTES:,}",
                      f"send a question of at most {MAX_QUESTION_CHARS:,} characters")
    try:
        body = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise Refused(400, "the body is JSON nested too deeply",
                      'send a flat JSON object like {"question": "Where is Tanger Med?"}') from None
    except (UnicodeDecodeError, ValueError) as exc:  # ValueError: also a number of more than 4,300 digits
        raise Refused(400, f"the body is not valid JSON ({str(exc)[:200]})",
                      'send JSON like {"question": "Where is Tanger Med?"} with Content-Type: application/json') from None
    if not isinstance(body, dict):
        raise Refused(422, f"the body must be a JSON object, not {type(body).__name__}",
                      'send {"question": "..."}')
    return body


def _known_text_fields(body: dict[str, Any]) -> None:
    """Refused for a field the request does not have, or a text field holding a lone surrogate."""
    unknown = sorted(set(body) - FIELDS)
    if unknown:
        raise Refused(422, f"unknown field(s): {', '.join(unknown)}", f"use only {', '.join(sorted(FIELDS))}")
    for name in sorted(FIELDS & set(body)):  # JSON may escape a lone surrogate, which no store can keep
        value = body[name]
        if isinstance(value, str) and not value.isascii() and any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            raise Refused(422, f"`{name}` is not valid text (a lone UTF-16 surrogate, e.g. a broken \\u escape)",
                          f"send `{name}` as UTF-8 text")


def _checked_question(body: dict[str, Any]) -> str:
    """The question: a string, not blank, at most MAX_QUESTION_CHARS, real text; or Refused."""
    question = body.get("question")
    if not isinstance(question, str):
        raise Refused(422, "`question` is missing or not a string", 'send {"question": "your question"}')
    if is_blank(question):
        raise Refused(422, "`question` is empty (nothing but spaces or invisible characters)",
                      "ask something, e.g. 'How is the IMO check digit computed?'")
    if len(question) > MAX_QUESTION_CHARS:
        raise Refused(413, f"`question` is {len(question):,} characters; the limit is {MAX_QUESTION_CHARS:,}",
                      "ask a shorter question")
    if _lone_surrogate(question):
        raise Refused(422, "`question` holds a lone surrogate (a broken \\u escape), which is not text",
                      "send the question as plain UTF-8 text")
    return question


async def _read_body(request: Request) -> bytes:
    """The body, read no further than the limit (a huge upload is refused without buffering it)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise Refused(413, f"the request body is {int(declared):,} bytes; the limit is {MAX_BODY_BYTES:,}",
                      f"send a question of at most {MAX_QUESTION_CHARS:,} characters")
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise Refused(413, f"the request body is over {MAX_BODY_BYTES:,} bytes",
                              f"send a question of at most {MAX_QUESTION_CHARS:,} characters")
            chunks.append(chunk)
    except ClientDisconnect:  # gone, or closed by the server for a body too slow: a line, not a traceback
        raise Refused(408, "the connection closed before the whole body arrived",
                      f"send the body in one go, within {BODY_READ_S:.0f} s of the headers") from None
    return b"".join(chunks)


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, default=str)}\n\n"


def _failure(exc: BaseException) -> JSONResponse:
    """A 500 with an error id; the traceback goes to the server's log, never to the client."""
    error_id = uuid.uuid4().hex[:12]
    log.error("chat error %s: %s", error_id, exc, exc_info=exc)
    return JSONResponse({"error": "the answer failed inside the service", "error_id": error_id,
                         "fix": "try again; if it keeps failing, give this error id to the instructor "
                                "(it is in the server's log)"}, status_code=500)


def _asks_beside_forgetting(turn: str) -> bool:
    """A sentence of the turn other than the request to forget asks something ("forget the rate. Who is
    our broker?")."""
    return any(not personal.FORGET.search(s) and (s.strip().endswith("?") or re.match(r"\W*(?:what|which|who|where|"
               r"when|why|how|is|are|can|could|do|does)\b", s, re.I)) for s in personal.sentences(turn))


def _previous_question(messages: list[Any]) -> str | None:
    """The thread's previous question as the data saw it: with a thing of theirs in its place ("their box" is
    WHSU6761127 there, which "and the ETA?" is about), else as the user asked it without its preferences."""
    answers = [m for m in messages if m.role == "assistant"]
    explain = ((answers[-1].metadata or {}).get("decision_explain") or {}) if answers else {}
    data_question = explain.get("data_question") if isinstance(explain, dict) else None
    if data_question:
        return str(data_question)
    asked = [m.content or "" for m in messages if m.role == "user"]
    return (preferences.without_stated(asked[-1], preferences.extract(asked[-1])) or None) if asked else None


def _memory_reply(text: str, mode: str, intent: str, reason: str, sources: list[dict[str, Any]] | None = None) -> ChatAnswer:
    """An answer of the personal-memory handler that asked no other handler: its sources are all it used."""
    used = sources or []
    return ChatAnswer(text, mode, {"intent": intent, "handler": "personal memory", "mode": mode, "reason": reason,
                                   "used_llm": "none"}, used, used, "all" if used else "none", None, False)


def _not_a_total(question: str, recalled: ChatAnswer | None) -> ChatAnswer | None:
    """A price they gave is no answer to what it comes to ("the rate I gave you ... our monthly spend?")."""
    if recalled is None or recalled.mode != "rag" or not totals.asks_a_total(question) or \
            recalled.decision_explain.get("reason") != "the remembered value itself":
        return recalled
    return dataclasses.replace(
        recalled, mode="fallback", used_chunks=[],
        answer=f"I can't work that total out offline; I have only one figure of it. {recalled.answer}",
        decision_explain={**recalled.decision_explain, "mode": "fallback",
                          "reason": "a total asked; the remembered value is one of its figures"})


def _only_asks_to_forget(turn: str) -> bool:
    """A sentence of the turn asks to forget something ("forget ...", not "what did I say to forget?"), and
    no other sentence asks anything."""
    return any(personal.asks_to_forget(s) for s in personal.sentences(turn)) and not _asks_beside_forgetting(turn)


def _noted_facts(applied: list[Any]) -> ChatAnswer:
    """A turn that only told a fact Part 7's writer kept: said back, as a fallback (nothing was looked up)."""
    return _noted_reply([a.candidate.text for a in applied], [a.stored_id for a in applied], "memory over time (Part 7)",
                        "the turn only states a fact of the user's; it was kept")


def _noted(stored: list[Any]) -> ChatAnswer:
    """A turn that only tells the assistant something of theirs: what was kept, said back. A fallback:
    nothing was looked up, and the memory is theirs, not a source."""
    # "The goods are in box X." then "Which vessel is that on?": what "that" points back at
    told = {"memory_id": stored[0].stored_id, "column": stored[0].subject} \
        if len(stored) == 1 and stored[0].subject.split(".")[0] in ("CONTAINERS", "VOYAGES", "VESSELS") else None
    return _noted_reply([w.text for w in stored], [w.stored_id for w in stored], "personal memory",
                        "the turn only states something of the user's; it was kept", told)


def _noted_reply(texts: list[str], stored_ids: list[Any], handler: str, reason: str,
                 told: dict[str, Any] | None = None) -> ChatAnswer:
    kept = "; ".join(f"\u201c{t.strip().rstrip('.!')}\u201d" for t in texts)
    explain: dict[str, Any] = {"intent": "PERSONAL_MEMORY", "handler": handler, "mode": "fallback", "reason": reason,
                               "used_llm": "none", "stored": stored_ids}
    if told is not None:
        explain["told"] = told
    return ChatAnswer(f"Noted: {kept}. Ask me about it whenever you need it.", "fallback", explain, [], [], "none", None,
                      False)


class ChatService:
    """What every route shares: the engine, the model, the request lock, the token and whether
    telemetry keeps questions' text. The plain methods do a route's work (in a worker thread);
    the async ones are the HTTP handlers `create_app` wires to the routes."""

    def __init__(self, eng: Engine, *, llm=None, store_question_text: bool = False, token: str | None = None) -> None:
        self.eng, self.llm, self.store_question_text, self.token = eng, llm, store_question_text, token
        # An engine with one connection shared by request threads (Oracle) serialises requests here;
        # the embedded engine serialises each statement itself and runs run_sql in a worker process,
        # so one slow request never holds up another (/health answers while an agent query runs).
        self.lock: contextlib.AbstractContextManager[Any] = (
            threading.Lock() if eng.traits.serialise_requests else contextlib.nullcontext())
        telemetry.ensure_table(eng)

    # ---------------------------------------------------------------- the work behind the routes
    def authorise(self, request: Request) -> None:
        """Refused (400) for a token in the URL; (401) without the right bearer token when one is set."""
        if "token" in request.query_params:
            raise Refused(400, "a token in the URL is refused: URLs are written to access logs",
                          "send the header `Authorization: Bearer <token>` (open the page as /#token=<token>)")
        if self.token is None:
            return
        sent = request.headers.get("authorization", "")
        if not secrets.compare_digest(sent.encode("utf-8", "replace"), f"Bearer {self.token}".encode()):
            raise Refused(401, "missing or wrong token", "send the header `Authorization: Bearer <token>`")

    def owned_thread(self, thread_id: str, user_id: str, fix: str) -> list:
        """The thread's messages, or Refused: 404 for an unknown thread, 403 for another user's."""
        messages = self.eng.store.list_thread_messages(thread_id)
        if not messages:
            raise Refused(404, f"unknown thread {thread_id!r}", fix)
        if messages[0].user_id != user_id:
            raise Refused(403, f"thread {thread_id!r} belongs to another user", "leave `thread_id` out to start "
                          "your own thread, or ask as the user who started it")
        return messages

    def answer(self, req: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """(the response body, the answer mode) for a validated request; the turn is kept in its
        thread and in the telemetry."""
        user_id = req["user_id"] or config.USER_ID
        scoped = self.eng.scoped(user_id)  # every read and write of this request: this user's scope only
        with self.lock:
            if req["thread_id"]:
                self.owned_thread(req["thread_id"], user_id, "leave `thread_id` out to start your own thread")
            thread_id = req["thread_id"] or f"chat-{uuid.uuid4().hex[:12]}"
            t0 = time.perf_counter()
            result = self._answer_turn(scoped, req, thread_id, user_id)
            latency_ms = (time.perf_counter() - t0) * 1000
            meta = history.answer_metadata(result)  # a reload shows the badge, sources and why
            self._keep_turn(req, thread_id, user_id, result, meta)
            telemetry.record(self.eng, question=req["question"], store_text=self.store_question_text,
                             thread_id=thread_id, user_id=user_id, mode=result.mode,
                             short_query_active=result.short_query_active, used_llm=result.used_llm,
                             latency_ms=latency_ms, embedding_cache_hit=result.embedding_cache_hit,
                             from_cache=result.from_cache, decision_explain=result.decision_explain)
        return {**result.payload(), "sources": meta["sources"], "tool_calls": meta["tool_calls"],
                "thread_id": thread_id, "latency_ms": round(latency_ms, 1)}, result.mode

    def _answer_turn(self, scoped: Engine, req: dict[str, Any], thread_id: str, user_id: str) -> ChatAnswer:
        """The answer in the user's preferred units and length (every answer path)."""
        # a preference stated in this turn applies from this turn on; the rest of the turn is what it asks
        held = preferences.settings(self.eng, user_id, self.eng.agent_id)
        stated = preferences.extract(req["question"], held)
        preferences.observe(self.eng, req["question"], user_id=user_id, agent_id=self.eng.agent_id, found=stated)
        asked = preferences.without_stated(req["question"], stated) if stated else req["question"]
        if stated and "?" not in asked and len(re.findall(r"\w+", asked)) <= 2:
            asked = ""  # ("Salut ! From now on, dates as DD/MM/YYYY": the greeting asks nothing; the preference is noted)
        result = self._answer_path(scoped, req, thread_id, user_id, asked) or ChatAnswer(
            preferences.noted(stated), "fallback", {"intent": "PREFERENCE", "handler": "preferences", "mode": "fallback",
                                                    "reason": "the turn only states how answers should be given",
                                                    "used_llm": "none"}, [], [], "none", None, False)
        prefs = preferences.settings(self.eng, user_id, self.eng.agent_id) if stated else held  # (read again when changed)
        rendered = preferences.render(result.answer, prefs) if prefs else result.answer
        return dataclasses.replace(result, answer=rendered) if rendered != result.answer else result

    def _answer_path(self, scoped: Engine, req: dict[str, Any], thread_id: str, user_id: str,
                     asked: str) -> ChatAnswer | None:
        """The answer: Part 6's agent when asked for, else the router's handler (the timed part). What the
        user says is observed whole; `asked` is what is left to answer (the turn without its preferences):
        None when nothing is."""
        if req.get("agent"):
            return agent_answer(scoped, req["question"], thread_id, llm=self.llm)  # logs the thread itself
        # What they say about their own things (their values, names, places, sums), and a question
        # about those things answered from their memory with the data (recall.py).
        kept = personal.observe(self.eng, req["question"], user_id=user_id, agent_id=self.eng.agent_id,
                                thread_id=thread_id)
        facts = self._kept_over_time(req["question"], kept, thread_id, user_id)
        if not asked.strip():
            return None
        if (said_back := self._kept_said_back(kept, asked, facts)) is not None:
            return said_back
        if (quoted := quotes.answer(self.eng, asked, user_id=user_id, agent_id=self.eng.agent_id)) is not None:
            # "which quote is the cheapest so far?": the prices they were quoted, compared
            return _memory_reply(quoted.text, "rag", "PERSONAL_MEMORY", "the quotes the user told, compared",
                                 [{"said": q.text, "said_at": q.said_at} for q in quoted.used])
        if (total := totals.answer(self.eng, asked, user_id=user_id, agent_id=self.eng.agent_id)) is not None:
            # "what do we spend a month on that lane?": their count times their price (or the catalog's)
            return _memory_reply(total.text, "rag", "PERSONAL_MEMORY", "a total worked out from the figures the user gave",
                                 total.sources)
        if (count := totals.told_count(self.eng, asked, user_id=user_id, agent_id=self.eng.agent_id)) is not None:
            # "how many boxes do we have on the Kyoto Express now?": their own count, not the manifests'
            return _memory_reply(count.text, "rag", "PERSONAL_MEMORY", "the count of their things the user told last",
                                 count.sources)
        if any(w.stored_id or w.forgotten for w in kept):
            # (the handler's answer with the parts it left out that their memory or the data answers, as below)
            return self._theirs_asked_beside(scoped, asked, kept, thread_id, user_id) or \
                whose_told(self.eng, asked, user_id=user_id, agent_id=self.eng.agent_id) or \
                with_their_parts(self.eng, self._the_part_asked(asked), answer_question(scoped, asked, llm=self.llm),
                                 user_id=user_id, agent_id=self.eng.agent_id, thread_id=thread_id)
        return self._about_theirs_or_handled(scoped, asked, thread_id, user_id)

    def _the_part_asked(self, turn: str) -> str:
        """The question of a turn that also tells something, "that ship" read as the ship the turn named ("got 3
        boxes on YM Tiptop's next departure. who runs that ship?"): the parts a handler's answer must cover."""
        asked = question_part.asked_part(turn) or turn
        return follow_up.pointed_at(self.eng, asked, turn) or asked

    def _theirs_asked_beside(self, scoped: Engine, turn: str, kept: list[Any], thread_id: str,
                             user_id: str) -> ChatAnswer | None:
        """"Zielony Dom's next box is on the Tessa. Who's their haulier again?": a turn that tells something and
        asks about their own things is answered from their memory, "their" being the one name of theirs the
        turn told; None when it asks nothing of theirs or their memory grounds no answer."""
        asked = question_part.asked_part(turn)
        if asked is None:
            return None
        names = {n for w in kept if w.stored_id for n in w.names}
        if len(names) == 1:
            asked = personal.pronouns_as(asked, names.pop())
        if not (personal.refers_to_own(asked) or personal.by_their_name(self.eng, asked, user_id=user_id,
                                                                         agent_id=self.eng.agent_id)):
            return None
        answered = self._about_theirs_or_handled(scoped, asked, thread_id, user_id)
        return answered if answered.mode in ("rag", "hybrid") else None

    def _kept_over_time(self, turn: str, kept: list[Any], thread_id: str, user_id: str) -> list[Any]:
        """Memory over time (Part 7): the rest of what the user states or asks to forget, in their own
        scope; a sentence kept as a personal memory is not stored a second time. The facts stored."""
        said = {w.text.strip() for w in kept if w.text}
        # (a sentence kept as two clauses, "our haulier is X and our office is in Y", is kept too)
        said |= {s.strip() for s in personal.sentences(turn) if any(k.rstrip(".") in s for k in said)}
        # ("Forget the Spanish, English again please" changes how answers are written: it forgets no memory)
        told = " ".join(s for s in personal.sentences(turn) if not (personal.FORGET.search(s) and preferences.extract(s)))
        applied = observe_user_turn(self.eng, told, user_id=user_id, agent_id=self.eng.agent_id, thread_id=thread_id,
                                    kept_elsewhere=frozenset(said))
        return [a for a in applied if a.stored_id and a.candidate.record_type == "fact" and a.candidate.op == "remember"]

    def _kept_said_back(self, kept: list[Any], asked: str, facts: list[Any]) -> ChatAnswer | None:
        """A turn that only asked to forget ("Done"), or offline only told something of theirs ("Noted"),
        a personal memory or a fact of Part 7's (`facts`); None when it asks something too."""
        if any(w.forgotten for w in kept) and not _asks_beside_forgetting(asked):
            # "ignore what I said about MSC, we go with Hapag-Lloyd now": what the turn told is said back too
            instead = "".join(f" I noted: \u201c{w.text.strip().rstrip('.!')}\u201d." for w in kept if w.stored_id)
            return _memory_reply(f"Done: I have forgotten that, and I will not use it in any answer again.{instead}",
                                 "fallback", "FORGET", "the turn only asks to forget something the user told")
        if not any(w.forgotten for w in kept) and _only_asks_to_forget(asked) and not router.destroys_data(asked):
            # "forget that phone number for Dunmore" when no memory holds one: nothing kept goes, and
            # the request is no question (their earlier words are not read back to them)
            return _memory_reply("I had not kept anything that matches that, so nothing was forgotten; what I keep of "
                                 "yours is unchanged.", "fallback", "FORGET",
                                 "the turn asks to forget something no kept memory holds")
        return self._only_told(kept, asked, facts)

    def _only_told(self, kept: list[Any], asked: str, facts: list[Any]) -> ChatAnswer | None:
        """Offline, a turn that only told something of theirs: a personal memory, or a fact of Part 7's ("Note that
        the letter of credit for that order expires on 20 June."), said back as noted; None otherwise."""
        if self.llm is not None or personal.asks_anything(asked) or catalog_links.described_need(asked, clear_lead=False):
            return None  # ("looking for a box that takes two Euro pallets side by side": a need, asked)
        stored = [w for w in kept if w.stored_id]
        if stored:
            return _noted(stored)
        return _noted_facts(facts) if facts and not kept else None

    def _about_theirs_or_handled(self, scoped: Engine, question: str, thread_id: str, user_id: str) -> ChatAnswer:
        """A turn that stated nothing: their memory with the data (recall.py), else the router's handler
        (a catalog answer that ignores a thing of theirs declined), else the last readings."""
        agent_id = self.eng.agent_id
        question, recalled = self._from_their_memory(question, thread_id, user_id)
        if recalled is not None:
            return with_their_parts(self.eng, question, recalled, user_id=user_id, agent_id=agent_id,
                                    thread_id=thread_id)
        answered = answer_question(scoped, question, llm=self.llm)
        theirs = catalog_of_their_own(self.eng, question, answered, user_id=user_id, agent_id=agent_id)
        if theirs is not None or answered.mode != "fallback":
            return theirs or with_their_parts(self.eng, question, answered, user_id=user_id, agent_id=agent_id,
                                              thread_id=thread_id)
        return self._when_no_handler_answered(scoped, question, answered, thread_id, user_id)

    def _from_their_memory(self, question: str, thread_id: str, user_id: str) -> tuple[str, ChatAnswer | None]:
        """_recalled, with a declined memory's own sentence when it holds what is asked (_its_sentence)."""
        question, recalled = self._recalled(question, thread_id, user_id)
        if recalled is not None and recalled.mode == "fallback":
            recalled = self._its_sentence(question, recalled, user_id)
        return question, recalled

    def _recalled(self, question: str, thread_id: str, user_id: str) -> tuple[str, ChatAnswer | None]:
        """(the question as asked of their things, the answer their memory gives, or None): "she" of the one ship
        they told ("how many days until she's due?"), and, when nothing else is recalled, "it" of their one box
        ("how many cartons of oil does it hold?" naming nothing)."""
        agent_id = self.eng.agent_id
        question = ship_as_theirs(self.eng, question, user_id=user_id, agent_id=agent_id) or question
        recalled = _not_a_total(question, recall_answer(self.eng, question, user_id=user_id, agent_id=agent_id,
                                                        thread_id=thread_id))
        if recalled is not None:
            return question, recalled
        asked = thing_as_theirs(self.eng, question, user_id=user_id, agent_id=agent_id)
        if asked is None:
            return question, None
        return asked, _not_a_total(asked, recall_answer(self.eng, asked, user_id=user_id, agent_id=agent_id,
                                                        thread_id=thread_id))

    def _when_no_handler_answered(self, scoped: Engine, question: str, answered: ChatAnswer, thread_id: str,
                                  user_id: str) -> ChatAnswer:
        """No handler answered: whose a record is by their words ("whose cargo is in X?"), a follow-up with what the
        thread's previous question named ("and the ETA?"), or the user's own words ("who inspected the Brightwater
        box?"), not read for a recipe or a greeting; else the handler's fallback."""
        agent_id = self.eng.agent_id
        # (an unsure router is no verdict on a day of theirs: "what's the paperwork deadline now?" led by a hair)
        off_topic = (answered.route or {}).get("label") in ("OUT_OF_SCOPE", "SMALL_TALK") and \
            not ((answered.route or {}).get("unsure") and asks_a_day_of_theirs(self.eng, question))
        return whose_told(self.eng, question, user_id=user_id, agent_id=agent_id) or \
            self._as_follow_up(scoped, question, thread_id, user_id) or (
            None if off_topic else words_said(self.eng, question, user_id=user_id, agent_id=agent_id)) or answered

    def _its_sentence(self, question: str, declined: ChatAnswer, user_id: str) -> ChatAnswer:
        """A memory read but declined ("your durban is Durban" for the tender's deadline): that memory's own
        sentence answers it when it holds the kind of value asked; else the fallback."""
        agent_id = self.eng.agent_id
        return kept_sentence_answers(self.eng, question, user_id=user_id, agent_id=agent_id) or \
            its_own_sentence_holds(self.eng, question, declined, user_id=user_id, agent_id=agent_id) or declined

    def _as_follow_up(self, scoped: Engine, question: str, thread_id: str, user_id: str) -> ChatAnswer | None:
        """The question read with the records the thread's previous question named, when a handler
        grounds that reading (the answer says how it was read); else None."""
        messages: list[Any] = list(self.eng.store.list_thread_messages(thread_id, last_n=2))
        if not messages:
            # "and the Ever Lunar?" opening a new session: what this user asked last, in their last thread
            theirs = self.eng.store.list("message", limit=None, user_id=user_id, agent_id=self.eng.agent_id, newest=2)
            messages = [m for m in theirs if m.thread_id != thread_id]
        said = [m.content for m in messages if m.role == "assistant"]
        reading = follow_up.read_with(self.eng, question, _previous_question(messages), said[-1] if said else None)
        if reading is None:
            return None
        # ("und bei CMA CGM?" after "und unsere Kundennummer bei Hapag-Lloyd?": a reading about their own things)
        own = self._from_their_memory(reading, thread_id, user_id)[1] if personal.refers_to_own(reading) else None
        answered = own or answer_question(scoped, reading, llm=self.llm)
        if answered.mode not in ("rag", "hybrid"):
            return None
        return dataclasses.replace(answered, answer=f"Reading it as \u201c{reading}\u201d: {answered.answer}")

    def _keep_turn(self, req: dict[str, Any], thread_id: str, user_id: str, result: ChatAnswer,
                   meta: dict[str, Any]) -> None:
        """The question and the answer with its metadata in the thread (the agent wrote its own turn)."""
        if req.get("agent"):
            history.attach_to_last_answer(self.eng, thread_id, meta)
            return
        self.eng.store.add([req["question"], result.answer], record_type="message", thread_ids=thread_id,
                           user_ids=user_id, agent_ids=self.eng.agent_id, roles=["user", "assistant"],
                           metadata=[None, meta])

    def read_thread(self, thread_id: str, user_id: str) -> list:
        with self.lock:
            return self.owned_thread(thread_id, user_id, "start one with POST /chat (as this `user_id`)")

    def health_details(self) -> dict[str, Any]:
        """What /health adds for a caller with the token: engine, model, store, telemetry, document index."""
        with self.lock:
            return {"engine": self.eng.name, "model": self.eng.model.name, "store_records": self.eng.store.count(),
                    "telemetry_rows": telemetry.count(self.eng), "documents": document_index_status(self.eng)}

    def modes_per_minute(self) -> pd.DataFrame:
        with self.lock:
            return telemetry.modes_per_minute(self.eng)

    # ---------------------------------------------------------------- the HTTP handlers
    async def chat(self, request: Request) -> Response:
        try:
            self.authorise(request)
            req = parse_chat_request(await _read_body(request))
        except Refused as refused:
            return refused.response()
        if "text/event-stream" in request.headers.get("accept", ""):
            return StreamingResponse(self._stream(req), media_type="text/event-stream",
                                     headers={"Cache-Control": "no-cache"})
        try:
            payload, mode = await anyio.to_thread.run_sync(self.answer, req)
        except Refused as refused:
            return refused.response()
        except Exception as exc:  # noqa: BLE001 - the client gets an error id, the log gets the traceback
            return _failure(exc)
        return JSONResponse(payload, headers={"X-Answer-Mode": mode, "X-Thread-Id": payload["thread_id"]})

    async def _stream(self, req: dict[str, Any]) -> AsyncIterator[str]:
        # Progress first, then exactly ONE final event: the grounded answer (never a draft to overwrite).
        yield _sse("progress", {"stage": "received"})
        yield _sse("progress", {"stage": "answering"})
        try:
            payload, _ = await anyio.to_thread.run_sync(self.answer, req)
        except Refused as refused:
            yield _sse("error", {"status": refused.status, "error": refused.error, "fix": refused.fix})
            return
        except Exception as exc:  # noqa: BLE001
            yield _sse("error", json.loads(bytes(_failure(exc).body)))
            return
        # The route the router actually took (decided while answering, so it is sent now, not guessed before).
        explain = payload.get("decision_explain") or {}
        yield _sse("progress", {"stage": "routed", "intent": explain.get("intent") or
                                ("AGENT" if req.get("agent") else None), "handler": explain.get("handler")})
        yield _sse("answer", payload)

    async def thread(self, request: Request) -> Response:
        try:
            self.authorise(request)
            thread_id = _check_id({"thread_id": request.path_params["thread_id"]}, "thread_id")
            assert thread_id is not None  # a path parameter is never missing
            user_id = _check_id(dict(request.query_params), "user_id") or config.USER_ID
            messages = await anyio.to_thread.run_sync(self.read_thread, thread_id, user_id)
        except Refused as refused:
            return refused.response()
        except Exception as exc:  # noqa: BLE001
            return _failure(exc)
        return JSONResponse(history.thread_payload(thread_id, messages))

    async def health(self, request: Request) -> Response:
        try:
            self.authorise(request)
        except Refused as refused:
            if refused.status != 401:
                return refused.response()
            # Without the token: only that the service is up (no store, telemetry or index figures).
            return JSONResponse({"status": "ok"})
        try:
            return JSONResponse({"status": "ok", **await anyio.to_thread.run_sync(self.health_details)})
        except Exception as exc:  # noqa: BLE001
            return _failure(exc)

    async def stats(self, request: Request) -> Response:
        try:
            self.authorise(request)
        except Refused as refused:
            return refused.response()
        return JSONResponse(_stats_payload(await anyio.to_thread.run_sync(self.modes_per_minute)))


def _stats_payload(table: pd.DataFrame) -> dict[str, Any]:
    """Answers per minute and mode as JSON, with the totals and the share of fallbacks."""
    totals = {m: int(table[m].sum()) for m in table.columns}
    total = sum(totals.values())
    return {"total": total, "modes": totals,
            "fallback_share": round(totals["fallback"] / total, 3) if total else None,
            "per_minute": [{"minute": str(minute), **{m: int(v) for m, v in row.items()}}
                           for minute, row in table.iterrows()]}


async def _page(request: Request) -> Response:
    return HTMLResponse(resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8"))


def create_app(eng: Engine, *, llm=None, store_question_text: bool = False, token: str | None = None) -> Starlette:
    """The app for one engine. `store_question_text`: keep questions' text in telemetry (else only a hash).
    `token`: require `Authorization: Bearer <token>` on every call but the page."""
    service = ChatService(eng, llm=llm, store_question_text=store_question_text, token=token)
    return Starlette(routes=[
        Route("/", _page), Route("/chat", service.chat, methods=["POST"]), Route("/threads/{thread_id}", service.thread),
        Route("/health", service.health), Route("/stats", service.stats),
    ])


class TokenRedactor(logging.Filter):
    """Blanks `token=...` in log records (uvicorn's access log writes every request's URL)."""

    _TOKEN = re.compile(r"(?i)(token=)[^&\s\"']*")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            args = record.args if isinstance(record.args, tuple) else (record.args,)
            record.args = tuple(self._TOKEN.sub(r"\1[redacted]", a) if isinstance(a, str) else a for a in args)
        if isinstance(record.msg, str):
            record.msg = self._TOKEN.sub(r"\1[redacted]", record.msg)
        return True


def uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's own logging set-up with TokenRedactor and the log budget (server.LogBudget: no flood
    of failing clients fills the disk) on every handler."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    cfg = copy.deepcopy(LOGGING_CONFIG)
    cfg.setdefault("filters", {})["redact_tokens"] = {"()": f"{__name__}.TokenRedactor"}
    cfg["filters"]["log_budget"] = {"()": "workshop_lib.parts.chat.server.LogBudget"}
    for handler in cfg["handlers"].values():
        handler.setdefault("filters", []).extend(["redact_tokens", "log_budget"])
    return cfg


def document_index_status(eng: Engine) -> dict[str, Any]:
    """Where Part 8's document alias points and whether that table is complete."""
    try:
        state = index.alias_state(eng)
    except Exception as exc:  # noqa: BLE001 - health reports, it does not fail
        return {"alias": None, "target": None, "complete": False, "note": f"could not read the alias: {exc}"}
    target = index.info(eng, state.target) if state.target else None
    return {"alias": state.alias, "target": state.target, "complete": state.target_complete if state.target else None,
            "chunks": target.chunks if target else None, "previous": state.previous,
            "note": "" if state.target else "no document index promoted yet (Part 8, or `workshop ingest --promote`)"}
