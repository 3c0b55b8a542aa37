"""ingest(): manifest -> read and clean -> sanitise -> chunk -> embed -> write, timed per stage.

Safe to re-run and to run twice at once: chunks are keyed by the hash of their text, so a
second run embeds and stores only what is missing, and concurrent writers insert each chunk
once. A table is 'building' until its last chunk is written; promotion refuses such a table,
so the alias always points to a complete one. The active table is never changed in place:
new content goes into a new profile's table and is promoted through the gate.
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workshop_lib.errors import WorkshopError
from workshop_lib.parts.ingest import chunking, corpus, documents, embedding, index, manifest, promotion, sanitize
from workshop_lib.progress import progress as progress_bar

if TYPE_CHECKING:
    from workshop_lib.engines.base import Engine

STAGES = ("read_clean", "sanitize", "chunk", "embed", "write")


class IndexInUse(WorkshopError, RuntimeError):
    """The ingest would change the table the alias points to."""


@dataclass
class IngestReport:
    table: str
    profile: str
    documents: int = 0
    rejected: list[tuple[str, str]] = field(default_factory=list)     # (doc_id or line, why)
    findings: Counter = field(default_factory=Counter)                # personal data per type
    protected: Counter = field(default_factory=Counter)               # identifiers left alone per type
    chunks: int = 0               # distinct chunks the manifest gives under this profile
    duplicates: int = 0           # chunks whose text another chunk already had (stored once)
    embedded: int = 0             # chunks embedded and written by this run
    already_stored: int = 0       # chunks a previous run had stored
    removed: int = 0              # stored chunks the manifest no longer gives
    status: str = ""
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    batches: embedding.BatchStats | None = None
    promotion: promotion.Promotion | None = None

    def throughput(self):
        """Seconds and chunks per second of each stage, as a table."""
        import pandas as pd

        # Embedding and writing handle only the chunks this run embedded (none on a re-run):
        # a stage that handled nothing says so instead of showing a rate.
        handled = {s: self.embedded if s in ("embed", "write") else self.chunks for s in STAGES}
        rows = [{"stage": s, "seconds": round(self.seconds[s], 3), "chunks": handled[s],
                 "chunks/s": f"{handled[s] / self.seconds[s]:,.1f}" if self.seconds[s] > 0 and handled[s]
                 else "nothing to do"}
                for s in STAGES]
        return pd.DataFrame(rows).set_index("stage")


def resolve_profile(entries: list[manifest.Entry], profile: str | corpus.Profile | None,
                    profiles: dict[str, corpus.Profile]) -> corpus.Profile:
    if isinstance(profile, corpus.Profile):
        return profile
    if profile is not None:
        if profile not in profiles:
            raise ValueError(f"unknown profile {profile!r}; the profiles are {', '.join(sorted(profiles))}")
        return profiles[profile]
    named = sorted({e.profile for e in entries if e.profile})
    if len(named) != 1:
        raise ValueError(f"choose a profile (the manifest names {named or 'none'}): pass profile=... "
                         f"(`--profile`); the profiles are {', '.join(sorted(profiles))}")
    return profiles[named[0]]


def prepare_chunks(entries: list[manifest.Entry], profile: corpus.Profile, token_spans: Callable[[str], list],
                   report: IngestReport, *, sanitize_mode: str = "redact", spans=chunking.window_spans,
                   progress: bool = True) -> list[chunking.Chunk]:
    """Read, clean, sanitise and chunk every document (no database involved); duplicates dropped."""
    out: dict[str, chunking.Chunk] = {}
    for entry in progress_bar(entries, desc="Reading", unit="doc", disable=not progress):
        started = time.perf_counter()
        try:
            text = documents.clean(documents.read_text(entry.path, root=entry.root))
            if not text:
                raise documents.Rejected("nothing is left after cleaning (only invisible characters or spaces)")
        except (documents.Rejected, OSError) as exc:
            report.rejected.append((entry.doc_id, f"{entry.where}: {exc}"))
            report.seconds["read_clean"] += time.perf_counter() - started
            continue
        t1 = time.perf_counter()
        report.seconds["read_clean"] += t1 - started
        clean = sanitize.sanitize(text, sanitize_mode, entry.lang)
        report.findings.update(clean.counts())
        report.protected.update(f.kind for f in clean.protected)
        t2 = time.perf_counter()
        report.seconds["sanitize"] += t2 - t1
        for chunk in chunking.chunk_document(clean.text, profile, token_spans, doc_id=entry.doc_id,
                                         source=entry.path.name, tags=entry.tags, lang=entry.lang, spans=spans):
            if chunk.hash in out:
                report.duplicates += 1
            else:
                out[chunk.hash] = chunk
        report.seconds["chunk"] += time.perf_counter() - t2
        report.documents += 1
    return list(out.values())


def _refuse_changing_the_active_index(eng: Engine, table: str, new: list, stale: list[str]) -> None:
    """The table the alias reads is never changed in place: new content goes into a new profile."""
    if (new or stale) and index.alias_target(eng) == table:
        raise IndexInUse(f"{table} is the active index and this manifest would change it ({len(new)} new, "
                         f"{len(stale)} removed chunks). Fix: put the new content in a new profile (a new table), "
                         "ingest it there and promote it through the golden queries.")


def _write_table(eng: Engine, table: str, new: list, stale: list[str], report: IngestReport, *,
                 embed: Callable[[list[str]], list[Any]], batch_size: int, rate_limit_per_min: int | None,
                 progress: bool) -> None:
    """Mark the table building, embed and write the new chunks batch by batch, delete the stale
    ones, mark it complete; the report counts and times each step."""
    index.mark_building(eng, table)

    def write(first: int, vectors: list[Any]) -> None:
        started = time.perf_counter()
        index.write_chunks(eng, table, new[first:first + len(vectors)], vectors)
        report.seconds["write"] += time.perf_counter() - started
        report.embedded += len(vectors)

    report.batches = embedding.embed_batches([c.text for c in new], embed, write, batch_size=batch_size,
                                             rate_limit_per_min=rate_limit_per_min, progress=progress)
    report.seconds["embed"] = report.batches.embed_s
    started = time.perf_counter()
    index.delete_chunks(eng, table, stale)
    report.removed = len(stale)
    index.mark_complete(eng, table)
    report.seconds["write"] += time.perf_counter() - started


def ingest(eng: Engine, manifest_path: Path | str = corpus.MANIFEST, *, profile: str | corpus.Profile | None = None,
           sanitize_mode: str = "redact", batch_size: int = 64, rate_limit_per_min: int | None = None,
           skip_bad: bool = False, promote: bool = False, progress: bool = True,
           spans=chunking.window_spans, embed: Callable[[list[str]], list[Any]] | None = None,
           profiles: dict[str, corpus.Profile] | None = None) -> IngestReport:
    """Ingest a manifest into its profile's table (see the module docstring). `embed` defaults
    to the engine's model; `spans` is the chunker's window function."""
    sanitize.check_mode(sanitize_mode)  # before any file is read
    profiles = corpus.load_profiles() if profiles is None else profiles
    parsed = manifest.read(manifest_path, profiles=set(profiles), skip_bad=skip_bad)
    chosen = resolve_profile(parsed.entries, profile, profiles)
    report = IngestReport(chosen.table, chosen.name)
    report.rejected += [(f"{p.file}:{p.line}", p.problem) for p in parsed.problems]
    chunks = prepare_chunks(parsed.entries, chosen, eng.model.token_spans, report, sanitize_mode=sanitize_mode, spans=spans,
                            progress=progress)
    report.chunks = len(chunks)

    table = chosen.table
    index.ensure_schema(eng)
    stored = index.stored_hashes(eng, table)
    new = [c for c in chunks if c.hash not in stored]
    stale = sorted(set(stored) - {c.hash for c in chunks})
    report.already_stored = len(chunks) - len(new)
    current = index.info(eng, table)
    _refuse_changing_the_active_index(eng, table, new, stale)
    index.ensure_table(eng, table)
    index.register(eng, table, chosen.as_json(), parsed.sha256)
    if new or stale or current is None or current.status != "complete":
        _write_table(eng, table, new, stale, report, embed=embed or eng.model.embed, batch_size=batch_size,
                     rate_limit_per_min=rate_limit_per_min, progress=progress)
    report.status = "complete"
    if promote:
        report.promotion = promotion.promote(eng, chosen)
    return report
