"""Hints for Part 6's TODOs: the count_rows tool and agent_turn."""
from workshop_lib.hints.table import F, TodoHints

TODOS = {
    "todo1_count_rows": TodoHints(
        nudge=("A tool is a plain Python function the model calls by name with JSON arguments. The model can send "
               "anything, so the tool normalises the name, refuses names that are not SUPPLYCHAIN tables with an "
               "error the model can read, and only then builds SQL."),
        general=("Keep the signature `count_rows(table: str) -> str` under @registry.tool; name = "
                 "table.strip().upper(); raise ValueError naming the valid tables when name is not in "
                 "SUPPLYCHAIN_TABLES; otherwise count with eng.read_only_query and return the number as text."),
        outline=("@registry.tool\n"
                 "def count_rows(table: str) -> str:\n"
                 "    name = table.strip().upper()\n"
                 "    if name not in SUPPLYCHAIN_TABLES:\n"
                 "        raise ValueError(f\"unknown table {table!r}; the tables are: \" + ', '.join(sorted(SUPPLYCHAIN_TABLES)))\n"
                 "    return str(eng.read_only_query(f'SELECT COUNT(*) AS N FROM {name}').rows[0][0])"),
        failures=(
            F("not_registered", r"no tool named 'count_rows'",
              "The registry learns the tool when the TODO cell runs: keep @registry.tool right above the def, keep the "
              "name count_rows, and run the cell."),
            F("parameters", r"one required string parameter `table`",
              "The model sees the parameters from the signature: exactly `def count_rows(table: str)`, no default, "
              "no other parameter name."),
            F("lower_case_name", r"upper-case it",
              "Models send 'voyages' as often as 'VOYAGES': upper-case the name before looking it up."),
            F("spaces_in_name", r"spaces around the name",
              "Strip the name before looking it up: ' PORTS ' must count PORTS."),
            F("same_table", r"\(another table\) returned '\d+'",
              "The count does not follow the table asked for: build the SQL from the validated name "
              "(FROM {name}), not from a fixed table."),
            F("not_a_number", r"return just the number",
              "The model reads your return value: give it just the count as text, str(rows[0][0]), not a table "
              "rendering or a sentence."),
            F("valid_name_failed", r"\) failed: ",
              "A valid table name failed: look at the error in the message; the name must be stripped and "
              "upper-cased before the membership test, and the SQL must go through eng.read_only_query."),
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
            F("endless_loop", r"does not stop",
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
