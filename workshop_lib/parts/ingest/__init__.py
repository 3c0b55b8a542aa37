"""Part 8: the document lifecycle, one module per stage.

manifest (what gets in) -> documents (read and clean) -> sanitize (personal data) ->
chunking (windows of a profile) -> embedding (batches under a rate limit) -> index
(versioned tables, the alias view DOCS) -> promotion (golden queries gate the alias).
pipeline.ingest runs them in order; corpus names the shipped documents and profiles.
"""
