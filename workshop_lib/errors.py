"""The base of the workshop's own exceptions.

Every error the workshop raises on purpose says what is wrong and how to put it right, so a
caller (the CLI, a notebook) can show the message without a traceback. Most classes write the
fix into the message; those that keep it apart set `fix` too. A class that callers used to catch as
a builtin (ValueError, RuntimeError) derives from it as well.

The tree (module under workshop_lib; tests/test_errors.py keeps it equal to the code):

    WorkshopError                               errors
        CalibrationRefused (ValueError)         parts.calibration
        CannotPlan                              parts.agent.sqlplan
        CatalogNotLoaded (RuntimeError)         parts.grounded
        CheckFailed                             checks
        CourseError (RuntimeError)              tools.course
        DatabaseFault (RuntimeError)            engines.base
        EmbeddingFailed (RuntimeError)          parts.ingest.embedding
        Garbage (ValueError)                    tools.grading.wire
        IndexInUse (RuntimeError)               parts.ingest.pipeline
        LLMError (RuntimeError)                 core.llm
            LLMTimeout                          core.llm
        ManifestError (ValueError)              parts.ingest.manifest
        MissingBinds (ValueError)               engines.database
        MissingColumns (ValueError)             parts.retrieval
        ModelUnavailable (RuntimeError)         engines.embedded.embedder
        NativeHybridUnavailable (RuntimeError)  parts.native_hybrid
        NoActiveIndex (RuntimeError)            parts.ingest.index
        NoMemoryStore (RuntimeError)            engines.base
        NoPlan                                  assistant.planner
            NotTheDatas                         assistant.planner
            Unexplained                         assistant.planner
        OracleConnectionError (RuntimeError)    engines.oracle.connection
        OracleWorkshopError (RuntimeError)      engines.oracle.errors
        PromotionRefused (RuntimeError)         parts.ingest.promotion
        Refused                                 parts.chat.app
        Rejected (ValueError)                   parts.ingest.documents
        RowShapeError (ValueError)              engines.rows
        SandboxUnavailable (RuntimeError)       tools.grading
        SchemaError (RuntimeError)              core.store
        SetError (ValueError)                   parts.chat.answer_sets
        SqlRefused (ValueError)                 engines.readonly
        StoreMissing (RuntimeError)             engines.base
        Unreadable (ValueError)                 tools.grading.summary

`workshop` (tools/cli.py, `main()`) catches WorkshopError once: it prints the message and the fix,
no traceback, and exits with status 1. Two signals derive from BaseException only, on purpose, so
that a learner's `except Exception` cannot swallow them: checks.LinesExceeded and
tools.grading.recheck._Endless.
"""
from __future__ import annotations


class WorkshopError(Exception):
    """An error raised on purpose: the message says what is wrong, `fix` how to put it right
    ("" when the message already says it)."""

    fix: str = ""

    def __init__(self, message: str = "", fix: str = "") -> None:
        super().__init__(message)
        if fix:
            self.fix = fix
