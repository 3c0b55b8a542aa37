"""What every Part builds on: the record types, the memory store and its scoped client,
the optional LLM client, and small notebook helpers (progress bars, readable NameErrors)."""
