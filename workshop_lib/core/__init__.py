"""What every Part builds on: the record types, the memory store and its scoped client,
the optional LLM client, connect(), and small notebook helpers (readable NameErrors)."""
