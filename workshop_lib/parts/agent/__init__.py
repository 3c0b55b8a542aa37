"""Part 6: an agent that reads its memory on every turn and writes back to it.

tools.py (the registry: functions become OpenAI tools), readonly.py (run_sql's contract;
each engine enforces it), memory.py (thread messages, tool outputs, corrections, the context
card), toolbox.py (the four tools), loop.py (one turn: the reference for the Part's TODO),
offline.py (a rule-based stand-in for a chat model, for running with no API key).
"""
