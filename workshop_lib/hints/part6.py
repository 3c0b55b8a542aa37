"""Hints for Part 6's TODOs: the count_rows tool and agent_turn."""
from workshop_lib.hints.table import F, TodoHints

TODOS = {
    "todo1_count_rows": TodoHints(
        nudge=("A tool is a plain Python function the model calls by name with JSON arguments. The model can send "
               "anything, so the tool normalises the name, refuses names that are not SUPPLYCHAIN tables with an "
               "error the model can read, and only then builds SQL."),
        general=("Keep the signature `count_rows(table: str) -> str` under @registry.tool; name = "
                 "table.strip().upper(); raise ValueError naming the valid tables when name is not in "
                 "SUPPLYCHAIN_TABLES; otherwise count with eng.supplychain.read_only_query and return the number as text."),
        outline=("@registry.tool\n"
                 "def count_rows(table: str) -> str:\n"
                 "    name = table.strip().upper()\n"
                 "    if name not in SUPPLYCHAIN_TABLES:\n"
                 "        raise ValueError(f\"unknown table {table!r}; the tables are: \" + ', '.join(sorted(SUPPLYCHAIN_TABLES)))\n"
                 "    return str(eng.supplychain.read_only_query(f'SELECT COUNT(*) AS N FROM {name}').rows[0][0])"),
        failures=(
            F("not_registered", r"no tool named 'count_rows'",
              "The registry learns the tool when the TODO cell runs: keep @registry.tool right above the def, keep the "
              "name count_rows, and run the cell."),
            F("parameters", r"one required string parameter `table`",
              "The model sees the parameters from the signature: exactly `def count_rows(table: str)`, no default, "
              "no other parameter name."),
            F("hand_typed_tables", r"your list of valid tables misses|not against a list typed by hand",
              "A real SUPPLYCHAIN table was refused because you validate against names you typed yourself. The cell "
              "above already builds SUPPLYCHAIN_TABLES from the data dictionary: test membership in that set, so a "
              "table is never forgotten and a new one is known at once."),
            F("partial_name_match", r"\((a fragment of a table name|an empty name)\) reached the database",
              "A piece of a name passed your test: `in` on a string (or any(name in t for t in ...)) asks 'is it a "
              "part of', and 'VOYAGE' and '' are parts of 'VOYAGES'. Compare the whole name with the set "
              "SUPPLYCHAIN_TABLES, whose `in` matches whole elements only."),
            F("not_validated_first", r"reached the database .*before it was refused",
              "A name you had not accepted yet went into SQL. Letting the query fail is not a validation (and the "
              "next name may be an injection): decide whether the name is in SUPPLYCHAIN_TABLES first, raise at once "
              "if not, and build the statement only after that test."),
            F("assert_validation", r"raised AssertionError\b.*expected ValueError",
              "An assert is not input validation: it raises AssertionError (which callers do not catch as a bad "
              "argument) and Python skips asserts entirely under -O. Use an if that raises ValueError with the "
              "message."),
            F("wrong_exception", r"raised \w+: .*; expected ValueError",
              "The refusal is right, its type is not: an unknown table is an argument with a bad value, which Python "
              "signals with ValueError. Raise ValueError (not KeyError, Exception or a custom type), keeping the "
              "message that lists the tables."),
            F("not_read_only", r"skips the read-only boundary",
              "The model decides what this tool runs, so it may only go through eng.supplychain.read_only_query, the one path "
              "that refuses writes and tables outside SUPPLYCHAIN. Do not use eng.query, the raw connection or "
              "another helper that returns counts."),
            F("cached_count", r"returned a number without running a query",
              "Your count came from somewhere other than a query made in this call (a dict filled earlier, a "
              "constant). Rows are added and deleted: run the COUNT each time the tool is called."),
            F("counted_in_python", r"counting the rows it returns stops at the cap",
              "Fetching the rows and taking len() is capped: read_only_query returns at most max_rows rows, so big "
              "tables come out short. Let the database count (COUNT(*)) and return the single number it gives."),
            F("count_value", r"the table has \d+ rows How to fix: count in SQL",
              "Your query counts, but the value you return is not the count: a COUNT(*) result is one row with one "
              "value. Return that value as text, not the number of rows in the result or another field."),
            F("lower_case_name", r"upper-case it",
              "Models send 'voyages' as often as 'VOYAGES': upper-case the name before looking it up."),
            F("spaces_in_name", r"spaces around the name",
              "Strip the name before looking it up: ' PORTS ' must count PORTS."),
            F("same_table", r"\(another table\) returned '\d+'|but the query that ran, .* does not read",
              "The count does not follow the table asked for: build the SQL from the validated name "
              "(FROM {name}), not from a fixed table."),
            F("not_a_number", r"return just the number",
              "The model reads your return value: give it just the count as text, str(rows[0][0]), not a table "
              "rendering or a sentence."),
            F("valid_name_failed", r"\) failed: ",
              "A valid table name failed: look at the error in the message; the name must be stripped and "
              "upper-cased before the membership test, and the SQL must go through eng.supplychain.read_only_query."),
            F("unknown_not_error", r"must be an error the model can read",
              "An unknown table is an error, not 0 rows: raise ValueError for any name not in SUPPLYCHAIN_TABLES "
              "(the registry turns it into an error result the model reads)."),
            F("error_without_tables", r"does not tell the model which tables exist",
              "The error should help the model retry: include the valid names, e.g. \"the tables are: \" + "
              "', '.join(sorted(SUPPLYCHAIN_TABLES)). Also make sure unknown names are refused at all."),
            F("injection", r"PORTS changed",
              "A name that is not checked went into SQL. Only a name found in SUPPLYCHAIN_TABLES may be put into the "
              "statement."),
        )),
    "todo2_agent_turn": TodoHints(
        nudge=("An agent turn is a bounded loop: ask the model (offering the tools); if it answers, you are done; "
               "if it asks for tools, run them, show the model their results, and ask again. Bound the loop by "
               "iterations and by time, and if it ends without an answer, ask once more without tools so there "
               "always is one. Log the question and the answer to the thread."),
        general=("Log the user message; messages = [system, user]; deadline = clock() + budget_s; for up to "
                 "max_iterations: stop if the deadline passed; reply = llm.chat(messages, tools=registry.schemas()); "
                 "no tool calls -> answer and break; else append loop.assistant_message(reply), then for each call "
                 "dispatch, store the output and append a tool message with its id. No answer -> one forced call "
                 "without tools. Log the answer; return loop.TurnResult."),
        outline=("memory.log_message(eng, thread_id, 'user', question)\n"
                 "messages = [{'role': 'system', 'content': loop.SYSTEM_PROMPT (+ context)}, {'role': 'user', 'content': question}]\n"
                 "deadline, answer = clock() + budget_s, None\n"
                 "for _ in range(max_iterations):\n"
                 "    if clock() >= deadline: break\n"
                 "    reply = llm.chat(messages, tools=registry.schemas())\n"
                 "    if not reply.tool_calls: answer = reply.content; break\n"
                 "    messages.append(loop.assistant_message(reply))\n"
                 "    for call in reply.tool_calls:\n"
                 "        result = registry.dispatch(call.id, call.name, call.arguments)\n"
                 "        memory.store_tool_output(eng, thread_id, result)\n"
                 "        messages.append({'role': 'tool', 'tool_call_id': call.id, 'content': result.content})\n"
                 "if answer is None: answer = llm.chat(messages + [{'role': 'user', 'content': loop.FORCE_ANSWER}]).content\n"
                 "memory.log_message(eng, thread_id, 'assistant', answer)\n"
                 "return loop.TurnResult(answer=answer, messages=messages)"),
        failures=(
            F("signature_changed", r"cannot be called as the TODO specifies",
              "The check calls your function the way the TODO's def line declares it, agent_turn(llm, registry, "
              "thread_id, question, *, context='', max_iterations=5, budget_s=60.0, clock=time.monotonic), the options "
              "passed by name: you renamed, dropped or added a required parameter. Put the def line back as given and "
              "run the cell again."),
            F("not_turn_result", r"not a TurnResult|expected a loop\.TurnResult",
              "agent_turn must return a loop.TurnResult object (its .answer and .messages are read by the cells "
              "below), not the answer string, a dict or a tuple with the same contents."),
            F("messages_not_returned", r"the TurnResult's messages hold",
              "TurnResult.messages must be the conversation the loop actually sent, the same list you appended the "
              "system, user, assistant and tool messages to, not an empty or fresh list or a copy taken before the "
              "loop."),
            F("empty_context_added", r"with context='' the system message should be",
              "With no context the system message is loop.SYSTEM_PROMPT unchanged. You add the separator (or the "
              "empty context) every time: add it only when context is not empty."),
            F("context_not_system", r"the context went into another message",
              "The context card belongs in the system message, right after loop.SYSTEM_PROMPT, not in a user (or "
              "any other) message: the model treats system text as its standing instructions, which a correction "
              "must be."),
            F("context_missing", r"the context never reached the model",
              "The `context` argument is never sent, so the corrections the user asked the agent to remember are "
              "lost. Put it into the first (system) message, after loop.SYSTEM_PROMPT, whenever it is not empty."),
            F("question_logged_late", r"the question must be logged FIRST|when the model was first called, the "
              r"thread held",
              "Log the user's question before the loop starts, not after it: if the turn fails or runs out of time, "
              "the thread must still show what was asked."),
            F("schemas_not_called", r"tools= was .*not a list of tool schemas",
              "You passed the method registry.schemas itself: without the parentheses nothing is called. The API "
              "wants the list that schemas() returns."),
            F("tool_objects", r"tools= held \w+ objects",
              "registry.tools holds the Python Tool objects; the model's API wants their JSON descriptions, one dict "
              "per tool, which registry.schemas() builds."),
            F("content_with_tool_calls", r"AND a tool call; your loop stopped on the text|decide on "
              r"reply\.tool_calls alone",
              "A reply can carry text AND tool calls ('Let me look that up.'). Whether the turn is over depends only "
              "on reply.tool_calls being empty, never on reply.content being non-empty."),
            F("reply_appended", r"a message your loop sent was a \w+, not a dict",
              "messages may hold only dicts with a role and content. The reply object is not one: convert it with "
              "loop.assistant_message(reply) before appending, and write each tool result as its own dict."),
            F("messages_rebuilt", r"sent exactly the messages of the first|created again inside the loop",
              "The second call saw none of the tool calls or results: `messages` is made anew on each pass. Create "
              "it once before the loop and only append to it inside."),
            F("full_output_sent", r"sent the tool's full output",
              "A dispatch result has two texts: result.content, the short preview the model reads, and result.full, "
              "which is what gets stored. Send the preview in the tool message; the model can fetch the rest."),
            F("failed_outputs_not_stored", r"outputs of failed tool calls must be stored",
              "You store only successful results. An error result is an output too (the model may come back to it): "
              "store every result dispatch returns, without testing result.ok."),
            F("force_answer_kept", r"the forced-answer instruction \(loop\.FORCE_ANSWER\)",
              "loop.FORCE_ANSWER is an instruction for the single forced call only: send it in a new list built for "
              "that call (messages + [...]) instead of appending it, so the conversation you return does not claim "
              "the user said it."),
            F("deadline_not_offset", r"stopped before its first model call|budget_s alone is a duration",
              "budget_s is a duration (seconds), the clock gives a point in time: comparing clock() with budget_s "
              "means the time ran out before you began. Turn the budget into a deadline by adding it to the clock's "
              "reading taken before the loop."),
            F("deadline_late", r"deadline was checked after the model call|check the deadline at the START",
              "Your deadline test comes after llm.chat, so a spent budget still buys one more call with tools. Test "
              "the deadline first thing in each pass, before calling the model."),
            F("deadline_equal", r"clock read exactly the deadline|> lets one more call through",
              "Reaching the deadline means the budget is spent, but your comparison lets one more call through when "
              "the clock reads exactly the deadline: the stop test must include equality."),
            F("answer_not_returned", r"without calling a tool, but your loop returned",
              "A reply without tool_calls IS the answer: take reply.content and return it in loop.TurnResult."),
            F("no_break", r"break out of the loop as soon",
              "Stop as soon as a reply has no tool calls (break), or the loop asks the model again for nothing."),
            F("no_tools_offered", r"the first model call had no tools",
              "Offer the tools on every normal call: llm.chat(messages, tools=registry.schemas())."),
            F("thread_not_logged", r"thread should hold",
              "The thread records the conversation: memory.log_message(eng, thread_id, 'user', question) at the "
              "start and memory.log_message(eng, thread_id, 'assistant', answer) before returning."),
            F("no_second_call", r"never called the model again",
              "After running the tools the loop must go round again so the model can read the results."),
            F("tool_calls_message_missing", r"did not contain the assistant's tool_calls message",
              "Before the tool results, append the assistant's own message that asked for them: "
              "messages.append(loop.assistant_message(reply)). The API rejects tool messages nobody asked for."),
            F("tool_message_order", r"right after the assistant's tool_calls message",
              "The order is: the assistant's tool_calls message, then one {'role': 'tool', ...} message per call, in "
              "the order of reply.tool_calls. Append every result (do not drop them) and the assistant message "
              "first."),
            F("tool_call_id", r"carry tool_call_id",
              "Each tool message must say which call it answers: {'role': 'tool', 'tool_call_id': call.id, "
              "'content': result.content}."),
            F("tool_content", r"the tool messages hold",
              "Send the tool's result text: result = registry.dispatch(call.id, call.name, call.arguments), then "
              "'content': result.content."),
            F("output_not_stored", r"tool_output memory",
              "Store every tool call's full output for later turns: memory.store_tool_output(eng, thread_id, result) "
              "for each result."),
            F("final_answer", r"after the tools the model answered 'done'",
              "Keep looping until a reply has no tool calls and return that reply's content, not an earlier one."),
            F("tool_crash", r"raised .*failing tool|failing tool.*raised",
              "Do not call the tool function yourself: registry.dispatch(call.id, call.name, call.arguments) never "
              "raises; a failing tool, an unknown name or bad JSON become an error result the model can read."),
            F("dispatch_errors", r"must each become an error result",
              "Run every call through registry.dispatch and send its result (errors included) back as a tool "
              "message: the model must see that a tool failed to recover."),
            F("endless_loop", r"does not stop|and never stopped",
              "The loop needs a cap: for _ in range(max_iterations), never while True."),
            F("forced_with_tools", r"still offered tools",
              "The forced final call must NOT pass tools=, or the model can ask for yet another tool: "
              "llm.chat(messages + [{'role': 'user', 'content': loop.FORCE_ANSWER}])."),
            F("iteration_cap", r"called the model with tools \d+ times",
              "Call the model with tools at most max_iterations times: for _ in range(max_iterations)."),
            F("forced_missing", r"exactly one more model call WITHOUT tools",
              "When the loop ends without an answer, make exactly one more call without tools that forces an answer "
              "(loop.FORCE_ANSWER), and return its content."),
            F("forced_answer", r"the forced call answered",
              "Return the content of the forced call as the answer."),
            F("budget", r"budget was ignored",
              "Take deadline = clock() + budget_s before the loop (use the clock argument, not time.time) and break "
              "when clock() >= deadline at the start of each iteration."),
            F("budget_forced", r"after the budget ran out",
              "Leaving the loop because time ran out still needs the one forced call without tools."),
        )),
}
