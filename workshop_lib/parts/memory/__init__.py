"""Memory over time: the write path (extract, consolidate), the running summary under a
budget, forgetting and expiry, and the card the agent reads (docs/architecture.md)."""
