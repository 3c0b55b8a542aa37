"""How the offline assistant answers one turn, above the Parts it composes.

`router.py` picks the handler a question goes to (Part 5's intents, extended), `answer.py` runs it
(Part 4's answer modes over the schema facts, the planner over the data, Part 5's grounded handlers,
Part 8's documents, Part 6's agent), `recall.py` answers from what the user told the assistant (Part
7's memories, joined with the data), `follow_up.py` reads a short follow-up with the record the thread
last named, `availability.py` answers stock per port from the catalog. Part 9's chat service
(`parts/chat/`) serves them; the links and the planner they use sit below the Parts (`assistant/`).
"""
