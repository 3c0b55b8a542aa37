"""The chat service: Part 4's answer modes and Part 5's grounded answers over HTTP.

    workshop serve [--host 127.0.0.1] [--port 8000]

`answer.py` decides how a question is answered, `telemetry.py` logs every decision in
the engine's database, `app.py` is the ASGI app (Starlette) with the chat page.
"""
