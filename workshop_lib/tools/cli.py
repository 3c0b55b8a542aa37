"""The `workshop` command: setup, doctor, reset, lab, calibrate, ingest, alias, grade, hints, notebooks, oracle-bootstrap,
bench, serve, eval answers."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import typer

from workshop_lib import config
from workshop_lib.core.connect import connect
from workshop_lib.core.llm import get_llm
from workshop_lib.core.store import SchemaPolicy
from workshop_lib.data import catalog
from workshop_lib.engines.base import StoreMissing
from workshop_lib.engines.registry import engine_class
from workshop_lib.errors import WorkshopError
from workshop_lib.parts import calibration, grounded
from workshop_lib.parts.chat import answer_eval, answer_sets, baseline_eval, conversation_eval
from workshop_lib.parts.ingest import corpus, index, pipeline, promotion
from workshop_lib.parts.memory import baselines
from workshop_lib.prepare import prepare
from workshop_lib.tools.doctor import Check, checks
from workshop_lib.tools.grading import SandboxUnavailable, grade_folder, per_learner, per_todo, sandbox
from workshop_lib.tools.release import REPO, generate

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Agent-memory retrieval workshop: prepare, check and grade.")


def _engine_name(engine: str | None) -> str:
    """The chosen engine, or one line naming the valid values (no traceback)."""
    try:
        return config.engine_name(engine)
    except ValueError as exc:
        typer.secho(str(exc), fg="red", err=True)
        raise typer.Exit(2) from None


def _connect(engine: str | None, **options):
    config.load_dotenv()
    name = _engine_name(engine)
    try:
        return connect(name, **options)
    except StoreMissing:
        raise
    except Exception as exc:  # noqa: BLE001 - show the message, not a traceback
        typer.secho(f"Could not open the {name} engine: {exc}", fg="red", err=True)
        raise typer.Exit(2) from None


@app.command()
def setup(engine: str = typer.Option(None, help="oracle | embedded (default: $WORKSHOP_ENGINE or embedded)")):
    """Prepare the engine: memory store, SUPPLYCHAIN seed, scanned schema memories. Safe to re-run."""
    eng = _connect(engine)
    try:
        report = prepare(eng)
        described = str(eng)
        eng.close()  # release the store, so `workshop reset` does not see this process as a user
    except ValueError as exc:  # a setting or an argument out of range (a WorkshopError is main()'s)
        typer.secho(f"Setup stopped: {exc}", fg="red", err=True)
        raise typer.Exit(1) from None
    t = report["timings"]
    typer.echo(f"engine: {eng.name} ({described})")
    typer.echo("SUPPLYCHAIN rows: " + ", ".join(f"{k.lower()}={v}" for k, v in report["rows"].items()))
    typer.echo(f"schema facts: {report['facts']} ({json.dumps(report['written'])})")
    typer.echo(f"times: model+store {t['store_and_model_s']:.1f}s, seed {t['seed_s']:.1f}s, scan {t['scan_s']:.1f}s")
    typer.secho("Ready. Next: `workshop doctor`, or `make workshop` to open the notebooks.", fg="green")


LEARNER_JUPYTER_CONFIG = config.REPO_ROOT / "setup" / "jupyter-learner"
FIRST_NOTEBOOK = "part1/part1_setup_and_tour.ipynb"


def lab_command(extra: list[str]) -> tuple[list[str], dict[str, str]]:
    """The JupyterLab command line and environment `workshop lab` runs (tests start the same)."""
    notebooks = config.REPO_ROOT / "notebooks"
    # Root the server at notebooks/ (a file argument alone roots it at that file's folder,
    # hiding the other Parts) and open Part 1 inside it.
    cmd = [str(Path(sys.executable).with_name("jupyter")), "lab", f"--ServerApp.root_dir={notebooks}",
           str(notebooks / FIRST_NOTEBOOK)]
    if hasattr(os, "getuid") and os.getuid() == 0:
        cmd.append("--allow-root")  # containers often run as root; JupyterLab refuses that otherwise
    env = dict(os.environ)
    # Learners do not need nbgrader's instructor toolbar, Validate button or formgrader.
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(
        p for p in (str(LEARNER_JUPYTER_CONFIG), env.get("JUPYTER_CONFIG_PATH", "")) if p)
    return cmd + list(extra), env


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def lab(ctx: typer.Context):
    """Open JupyterLab on notebooks/ at Part 1 (extra options go to `jupyter lab`)."""
    cmd, env = lab_command(ctx.args)
    os.execvpe(cmd[0], cmd, env)


@app.command()
def doctor(engine: str = typer.Option(None, help="oracle | embedded")):
    """Check everything the notebooks need; each line says PASS or FAIL and the fix."""
    try:
        eng = _connect(engine, create=False)  # doctor reports a missing store; it never creates one
    except StoreMissing as exc:
        for what, path in exc.missing:
            typer.secho(Check(what, False, f"{path} does not exist yet", "run `workshop setup`").line(), fg="red")
        raise typer.Exit(1) from None
    try:
        results = checks(eng)
    finally:
        eng.close()
    for c in results:
        typer.secho(c.line(), fg="green" if c.ok else "red")
    if not all(c.ok for c in results):
        raise typer.Exit(1)


@app.command()
def reset(
    engine: str = typer.Option(None, help="oracle | embedded"),
    yes: bool = typer.Option(False, "--yes", help="do not ask for confirmation"),
    force: bool = typer.Option(False, "--force", help="reset even while other processes have the database open"),
):
    """DESTRUCTIVE: delete every stored memory and the seed, then start empty.

    Embedded: deletes only the workshop's own database files (never the data folder) and
    refuses while notebook kernels or servers have them open, unless --force."""
    config.load_dotenv()
    name = _engine_name(engine)
    plan = engine_class(name).traits.reset_plan(force)  # decided before anything is opened
    if not plan.what:
        typer.echo(plan.nothing)
        raise typer.Exit(0)
    if plan.refused:
        typer.secho(plan.refused, fg="red", err=True)
        raise typer.Exit(1)
    if not yes and not typer.confirm(f"This deletes {plan.what}. Continue?", default=False):
        typer.echo("Nothing deleted.")
        raise typer.Exit(0)
    for f in plan.files:
        f.unlink(missing_ok=True)
    if not plan.files:  # the store lives in the database: recreate its tables there
        eng = _connect(name)
        eng.open_store(SchemaPolicy.RECREATE)
        grounded.clear_caches(eng, embeddings=True)  # Part 5's caches hold answers built on the old memories
    if plan.after:
        typer.secho(plan.after, fg="yellow")
    typer.echo("Reset done. Run `workshop setup` to prepare the workshop again.")


@app.command()
def calibrate(engine: str = typer.Option(None, help="oracle | embedded (default: $WORKSHOP_ENGINE or embedded)"),
              write: bool = typer.Option(True, help="save the thresholds for this engine and model")):
    """Measure the relevance thresholds on the connected engine (Part 4's labelled pairs) and save them.

    Thresholds depend on the embedding model; the defaults for Oracle are the usual values for
    all-MiniLM-L12-v2, not measured. Run this once against a live database to replace them."""
    import datetime

    eng = _connect(engine)
    try:
        prepare(eng, progress=False)
        dist = calibration.similarity_distributions(eng)
        found = calibration.suggest_thresholds(dist.relevant, dist.irrelevant)
        name, model = eng.name, eng.model.name
    finally:
        eng.close()
    rates = found.pop("at_min_score")
    typer.echo(f"engine {name}, model {model}: {len(dist.relevant)} relevant and {len(dist.irrelevant)} "
               "irrelevant question-memory pairs")
    for key in config.CALIBRATED_KEYS:
        typer.echo(f"  {key:15s} {found[key]:.2f}   (default {config.THRESHOLDS[name].as_dict()[key]:.2f})")
    typer.echo(f"  at min_score: keeps {rates['tpr']:.0%} of relevant pairs, lets through {rates['fpr']:.0%} "
               "of irrelevant ones")
    if not write:
        return
    path = config.thresholds_path()
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        saved = {}
    saved[name] = {**found, "model": model, "pairs": [len(dist.relevant), len(dist.irrelevant)],
                   "calibrated_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(saved, indent=1) + "\n")
    typer.echo(f"Saved to {path}: every new connection to {name} with {model} uses these values.")


@app.command()
def ingest(manifest_path: Path = typer.Argument(None, help="a JSONL manifest (default: the shipped corpus)"),
           profile: str = typer.Option(None, help="chunking profile, e.g. v2 (default: the one the manifest names)"),
           promote: bool = typer.Option(False, "--promote", help="then run the golden queries and move the alias if they pass"),
           sanitize: str = typer.Option("redact", help="off | audit | redact"),
           skip_bad_lines: bool = typer.Option(False, "--skip-bad-lines", help="ingest the good lines of a manifest with errors"),
           batch_size: int = typer.Option(64, min=1, help="texts per embedding call"),
           rate_limit: int = typer.Option(None, min=1, help="at most this many embedding calls per minute"),
           engine: str = typer.Option(None, help="oracle | embedded")):
    """Part 8: read, clean, sanitise, chunk, embed and store a manifest's documents in its profile's table."""
    eng = _connect(engine)
    try:
        report = pipeline.ingest(eng, manifest_path or corpus.MANIFEST, profile=profile, sanitize_mode=sanitize,
                                 batch_size=batch_size, rate_limit_per_min=rate_limit, skip_bad=skip_bad_lines,
                                 promote=promote)
    except ValueError as exc:  # a bad option value (a bad manifest, an index in use... are main()'s)
        typer.secho(str(exc), fg="red", err=True)
        raise typer.Exit(1) from None
    finally:
        eng.close()
    typer.echo(f"{report.table} ({report.profile}): {report.documents} documents, {report.chunks} chunks "
               f"({report.duplicates} duplicates stored once); {report.embedded} embedded now, "
               f"{report.already_stored} already stored, {report.removed} removed; status {report.status}")
    if report.findings:
        typer.echo("personal data " + ("redacted" if sanitize == "redact" else "found") + ": "
                   + ", ".join(f"{k} {v}" for k, v in sorted(report.findings.items())))
    for what, why in report.rejected:
        typer.secho(f"  skipped {what}: {why}", fg="yellow")
    typer.echo(report.throughput().to_string())
    if report.promotion:
        decision = report.promotion.decision
        typer.secho(("promoted: " if decision.promote else "not promoted: ") + decision.reason,
                    fg="green" if decision.promote else "yellow")
    if report.rejected and not skip_bad_lines:  # documents refused when read (the manifest's lines were fine)
        typer.secho(f"{len(report.rejected)} document(s) could not be ingested (above, with their manifest line); "
                    "fix them, or pass --skip-bad-lines to accept skipping them.", fg="red", err=True)
        raise typer.Exit(1)
    if report.promotion:
        raise typer.Exit(0 if report.promotion.decision.promote else 3)


@app.command()
def alias(action: str = typer.Argument("status", help="status | promote | rollback"),
          profile: str = typer.Argument(None, help="for promote: the profile whose table to promote, e.g. v2"),
          engine: str = typer.Option(None, help="oracle | embedded")):
    """Part 8: the document alias DOCS: which table it reads, promote a profile's table, or roll back."""
    if action not in ("status", "promote", "rollback"):
        typer.secho(f"Unknown action {action!r}; choose status, promote or rollback.", fg="red", err=True)
        raise typer.Exit(2)
    profiles = corpus.load_profiles()
    if action == "promote" and profile not in profiles:
        typer.secho(f"`workshop alias promote` needs a profile: one of {', '.join(sorted(profiles))}.", fg="red", err=True)
        raise typer.Exit(2)
    eng = _connect(engine)
    try:
        if action == "promote":
            _alias_promote(eng, profiles[profile])
        elif action == "rollback":
            state = promotion.rollback(eng)
            typer.echo(f"rolled back: the alias reads {state.target} (rollback again goes to {state.previous})")
        else:
            _alias_status(eng)
    finally:
        eng.close()


def _alias_promote(eng, profile: corpus.Profile) -> None:
    """Promote a profile's table, or say why not (exit status 3)."""
    outcome = promotion.promote(eng, profile)
    typer.secho(("promoted: " if outcome.decision.promote else "refused: ") + outcome.decision.reason,
                fg="green" if outcome.decision.promote else "yellow")
    if not outcome.decision.promote:
        raise typer.Exit(3)


def _alias_status(eng) -> None:
    """Where the alias points, every index table, and the last five alias changes."""
    state = index.alias_state(eng)
    typer.echo(f"alias {state.alias} -> {state.target or '(none: nothing promoted yet)'}"
               + ("" if not state.target else " (complete)" if state.target_complete else " (NOT complete)")
               + (f"; rollback goes to {state.previous}" if state.previous else ""))
    for i in index.list_indexes(eng):
        mark = "*" if i.table == state.target else " "
        typer.echo(f" {mark} {i.table:12s} {i.status:9s} {i.docs:5d} docs {i.chunks:6d} chunks  "
                   f"{i.profile.get('unit')} {i.profile.get('size')}/{i.profile.get('overlap')}")
    for h in index.history(eng, 5):
        typer.echo(f"   {h['at'][:19]}  {h['action']:8s} {h['table']:10s} {h.get('reason', '')}")


@app.command()
def grade(
    submissions: Path = typer.Argument(..., help="folder with one sub-folder of notebooks per learner"),
    out: Path = typer.Option(Path("grades"), help="where feedback HTML, grades.csv and results.jsonl go"),
    cell_timeout: int = typer.Option(60, help="seconds a single cell may run"),
    budget: int = typer.Option(240, help="seconds one notebook may take in all"),
    workers: int = typer.Option(0, help="notebooks graded at once (0: one per CPU core)"),
    summary_only: bool = typer.Option(False, "--summary-only",
                                      help="no grading: per TODO pass rate, attempts, failures and hints, read from the "
                                           "notebooks as saved (for a live session)"),
    no_sandbox_i_trust_submissions: bool = typer.Option(
        False, "--no-sandbox-i-trust-submissions",
        help="grade without the OS sandbox (bubblewrap): every notebook can read and change your files"),
):
    """Autograde learner notebooks with nbgrader, in parallel, each in its own sandbox; write feedback and grades.csv.

    Re-running with the same --out skips notebooks already graded (same learner, Part and bytes)."""
    if summary_only:
        _summary_only(submissions, out)
        return

    if no_sandbox_i_trust_submissions:
        typer.secho("Grading WITHOUT a sandbox: each notebook runs as your user and can read or change any file "
                    "you can, and other learners' grades.", fg="yellow", err=True)
    try:
        table = grade_folder(submissions, out, cell_timeout=cell_timeout, notebook_budget=budget,
                             workers=workers or None, sandboxed=not no_sandbox_i_trust_submissions)
    except SandboxUnavailable as exc:
        typer.secho(f"Cannot sandbox the notebooks here: {exc}.\nGrade on Linux with bubblewrap (README.md, "
                    "Grading), or, only for submissions you trust, pass --no-sandbox-i-trust-submissions.",
                    fg="red", err=True)
        raise typer.Exit(2) from None
    if not no_sandbox_i_trust_submissions:
        typer.echo(f"Each notebook ran in its own bubblewrap sandbox ({sandbox.bwrap()}).")
    if not len(table):
        typer.echo("No notebooks found.")
        raise typer.Exit(1)
    table, failed = _class_summary(table, submissions, out)
    typer.echo("Per TODO:\n" + per_todo(table).to_string() + "\n")
    typer.echo("Per learner:\n" + per_learner(table).to_string() + "\n")
    graded = table["max_score"] > 0
    problems = table[(graded & ~table["status"].isin(["passed", "missing"]))
                     | table["status"].str.startswith(("skipped", "refused"))]
    review = table[table["status"].str.startswith("review")]
    if len(review):
        typer.secho(f"{len(review)} graded cell(s) flagged for review (0 points until you look; status 'review: ...'):",
                    fg="yellow")
        for r in review.itertuples():
            typer.echo(f"  {r.student:12s} {r.assignment:6s} {r.cell:34s} {r.status[:160]}")
    if len(problems):
        typer.echo("Not passed (first reason per row):")
        for r in problems.itertuples():
            typer.echo(f"  {r.student:12s} {r.assignment:6s} {r.cell or r.file:34s} {r.status[:110]}")
    typer.echo(f"\nWrote {out / 'grades.csv'} and feedback under {out / 'feedback'}")
    if failed:
        typer.secho(f"The class summary could not be written: {failed}", fg="red", err=True)
        raise typer.Exit(1)


def _summary_only(submissions: Path, out: Path) -> None:
    """`workshop grade --summary-only`: the class summary from the notebooks as saved."""
    from workshop_lib.tools.grading import summary  # heavy: nbformat and matplotlib, for this command only

    picture, unread = summary.from_folder(submissions, out)
    if unread:
        typer.secho("Not (fully) read, each costing only its own row:\n" + summary.report(unread), fg="yellow")
    if not len(picture):
        typer.echo("No workshop notebooks found.")
        raise typer.Exit(1)
    typer.echo("Per TODO (from the notebooks as saved; nothing was run):\n" + picture.to_string())
    typer.echo(f"\nWrote {out / 'summary.csv'} and {out / 'summary.png'}")


def _class_summary(table, submissions: Path, out: Path):
    """(grades after any hint penalty, why the summary failed or ""). The summary reads what learners
    wrote: whatever stops it must not stop the review list that `grade` prints after it."""
    from workshop_lib.tools.grading import summary  # heavy: nbformat and matplotlib, for this command only

    unread: list = []
    picture, failed = None, ""
    try:
        table, picture = summary.after_grading(table, submissions, out, unread)
    except Exception as exc:  # noqa: BLE001 - the course's files or the penalty setting; said after the lists
        failed = f"the hint penalty was NOT applied and no summary was written ({type(exc).__name__}: {exc})"
    if picture is not None:
        typer.echo("Where the class is stuck (attempts, failures and hints recorded in the notebooks):\n"
                   + picture.to_string() + "\n")
    if unread:
        typer.secho("The summary could not read (each costs only its own row):\n" + summary.report(unread) + "\n",
                    fg="yellow")
    if picture is None and not failed:
        failed = "see the lines above"
    return table, failed


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def bench(ctx: typer.Context,
          which: str = typer.Argument("retrieval", help="retrieval | chat (the chat service's load run) | grading | ingest (Part 8) | memory | "
                                                         "baselines (memory baselines on the written conversations)")):
    """Run a benchmark from the repository's bench/ folder (options go to it; try `workshop bench -- --help`)."""
    import subprocess

    modules = {"retrieval": "bench.run", "chat": "bench.chat_load", "grading": "bench.grading", "ingest": "bench.ingest",
               "memory": "bench.memory", "baselines": "bench.baselines"}
    if which not in modules:
        typer.secho(f"Unknown benchmark {which!r}; choose one of {', '.join(modules)}.", fg="red", err=True)
        raise typer.Exit(2)
    if not (config.REPO_ROOT / "bench").is_dir():
        typer.secho("The benchmarks live in the repository's bench/ folder: run this from a clone of the "
                    "workshop (`make bench`).", fg="red", err=True)
        raise typer.Exit(2)
    raise typer.Exit(subprocess.call([sys.executable, "-m", modules[which], *ctx.args], cwd=config.REPO_ROOT))


hints_app = typer.Typer(no_args_is_help=True, help="The hint cells under each TODO (instructors).")
app.add_typer(hints_app, name="hints")


@hints_app.command("insert")
def hints_insert(parts: list[str] = typer.Argument(None, help="Parts, e.g. part6 part8 (default: every Part)")):
    """Put a hint cell under every TODO cell of solutions/ (safe to re-run); then run `workshop notebooks`."""

    from workshop_lib.tools.hint_cells import insert  # heavy: nbformat, for this command only

    changed = insert(parts or None)
    for path in changed:
        typer.echo(f"updated {path.relative_to(REPO)}")
    typer.echo("hint cells already in place" if not changed else "now regenerate the learner notebooks: workshop notebooks")


@app.command()
def notebooks(parts: list[str] = typer.Argument(None, help="Parts to regenerate, e.g. part3 (default: every Part)")):
    """Regenerate the learner notebooks (notebooks/) from solutions/ with nbgrader (instructors)."""
    for path in generate(parts or None):
        typer.echo(f"wrote {path.relative_to(REPO)}")


@app.command(name="oracle-bootstrap")
def oracle_bootstrap(only: list[str] = typer.Option(None, help="run only this step (repeatable)"),
                     skip: list[str] = typer.Option(None, help="skip this step (repeatable)")):
    """Prepare an Oracle database for the workshop: wait, vector memory, users, model, store, data, check.

    Safe to re-run; each step says what it did or why it skipped (docs/oracle.md)."""
    from workshop_lib.tools import oracle_bootstrap as bootstrap  # heavy: python-oracledb, for this command only

    if not bootstrap.SQL_DIR.is_dir():
        typer.secho(f"The Oracle bootstrap's SQL files are not at {bootstrap.SQL_DIR}: install the workshop from a "
                    "clone of its repository (`make setup-oracle`).", fg="red", err=True)
        raise typer.Exit(2)

    argv = [arg for step in only or [] for arg in ("--only", step)] + [arg for step in skip or [] for arg in ("--skip", step)]
    raise typer.Exit(bootstrap.main(argv))


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="address to bind; 127.0.0.1 keeps it on this machine"),
    port: int = typer.Option(8000, help="TCP port"),
    engine: str = typer.Option(None, help="oracle | embedded"),
    token: str = typer.Option(None, envvar="WORKSHOP_CHAT_TOKEN",
                              help="require 'Authorization: Bearer TOKEN' (open the page as /#token=TOKEN)"),
    store_questions: bool = typer.Option(False, "--store-questions",
                                         help="keep each question's text in CHAT_INTERACTIONS (default: a hash only)"),
):
    """Start the chat service (POST /chat, GET /health, GET /stats, the page at /)."""
    from workshop_lib.parts.chat.app import create_app  # heavy: starlette, for this command only
    from workshop_lib.parts.chat.server import GuardedServer, server_config  # heavy: uvicorn, this command only

    eng = _connect(engine)
    prepare(eng, progress=False)
    catalog.seed(eng, progress=False)
    if host not in ("127.0.0.1", "localhost", "::1") and token is None:
        typer.secho(f"Warning: listening on {host} with no token: anyone who can reach this port can chat "
                    "and read /stats. Pass --token.", fg="yellow", err=True)
    # The token rides in the URL's fragment, which browsers never send (so no log holds it).
    typer.echo(f"Chat page: http://{host}:{port}/" + (f"#token={token}" if token else ""))
    # Header and body deadlines, a connection cap and a log budget: slow clients cannot hold it (server.py).
    GuardedServer(server_config(create_app(eng, llm=get_llm(), store_question_text=store_questions, token=token),
                                host=host, port=port, log_level="info")).run()


eval_app = typer.Typer(add_completion=False, no_args_is_help=True,
                       help="Measure the assistant end to end (workshop eval answers).")
app.add_typer(eval_app, name="eval")


@eval_app.command("answers")
def eval_answers(docs: bool = typer.Option(False, "--docs", help="ingest and promote Part 8's index first"),
                 agent: bool = typer.Option(False, "--agent", help="let Part 6's agent answer (as the page's toggle)"),
                 json_path: Path = typer.Option(None, "--json", help="where to write the results (default: "
                                                "eval-answers[-docs][-agent].json in the data folder)"),
                 sample_n: int = typer.Option(None, "--sample", min=1, help="only this many questions, spread over "
                                              "the categories"),
                 engine: str = typer.Option(None, help="oracle | embedded"),
                 question_set: Path = typer.Option(None, "--set", exists=True, dir_okay=False,
                                                   help="a written set (evals/*.jsonl) instead of the templates")):
    """Ask the chat service's answer path every evaluation question; print correct, confidently wrong,
    unhelpful, the per-category table, the router's confusion matrix and latency; write JSON and a plot.

    On the embedded engine it runs in a throw-away data folder (the learner's store is untouched);
    on Oracle it reads the connected database and --docs is refused (it would move the learner's alias)."""
    import tempfile


    name = _engine_name(engine)
    scratch_copies = engine_class(name).traits.scratch_copies
    if docs and not scratch_copies:
        typer.secho("--docs would ingest into and promote the learner's document alias on Oracle; run "
                    "`workshop ingest --promote` yourself first, then `workshop eval answers`.", fg="red", err=True)
        raise typer.Exit(2)
    stem = ("eval-answers" + (f"-{question_set.stem}" if question_set else "") + ("-docs" if docs else "")
            + ("-agent" if agent else ""))
    out = json_path or (config.data_dir() / f"{stem}.json")
    with tempfile.TemporaryDirectory(prefix="workshop-eval-") as scratch:
        eng = _connect(name, path=Path(scratch)) if scratch_copies else _connect(name)
        try:
            answer_eval.prepare_engine(eng, docs=docs)
            if question_set:
                cases = answer_sets.load(question_set, eng.query)
            else:
                cases = answer_eval.build_cases(eng)
            if sample_n:
                cases = answer_eval.sample(cases, sample_n)
            llm = get_llm()

            promoted = index.alias_state(eng).target is not None  # Oracle: what the learner promoted
            results = answer_eval.run(eng, cases, agent=agent, llm=llm, docs_promoted=promoted)
        finally:
            eng.close()
    s = answer_eval.summary(results)
    settings = {"engine": name, "set": str(question_set) if question_set else "templates", "docs": docs,
                "documents_promoted": promoted, "agent": agent, "sample": sample_n,
                "model": getattr(llm, "model", None) or "none (offline)"}
    typer.echo(f"workshop eval answers: engine {name}, documents {'promoted' if promoted else 'not promoted'}, "
               f"{'agent' if agent else 'chat answer path'}, model {settings['model']}")
    typer.echo(answer_eval.format_report(s))
    answer_eval.write_json(out, s, results, settings)
    plot = out.with_suffix(".png")
    answer_eval.plot_confusion(s, plot)
    typer.echo(f"results: {out}\nconfusion matrix plot: {plot}")


@eval_app.command("conversations")
def eval_conversations(question_set: Path = typer.Option(..., "--set", exists=True, dir_okay=False,
                                                         help="a written set of conversations (evals/conversations-*.jsonl)"),
                       json_path: Path = typer.Option(None, "--json", help="where to write the results"),
                       baseline: str = typer.Option(None, "--baseline",
                                                    help="memory baselines side by side: a name, names separated by "
                                                         "commas, or 'all' (no_memory, last_n, full_transcript, "
                                                         "transcript_search, summary, summary+memories, add_only)"),
                       docs: bool = typer.Option(False, "--docs", help="promote the bundled documents first (Part 8), "
                                                 "so turns about notices and procedures can be answered")):
    """Play every conversation of a set through the chat service's answer path (as POST /chat) on a
    throw-away embedded database; score the turns with an expectation, per memory ability.
    With --baseline: the memory baselines side by side, each read by the same offline reader."""
    import tempfile


    try:
        names = baselines.names(baseline) if baseline is not None else None
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--baseline") from None
    with tempfile.TemporaryDirectory(prefix="workshop-eval-") as scratch:
        eng = _connect("embedded", path=Path(scratch))
        try:
            answer_eval.prepare_engine(eng, docs=docs)
            if names is not None:
                measures = baseline_eval.run(eng, conversation_eval.load(question_set), names)
            else:
                results = conversation_eval.run(eng, conversation_eval.load(question_set))
        finally:
            eng.close()
    if names is not None:
        typer.echo(f"workshop eval conversations --baseline: {question_set.name}, offline reader")
        typer.echo(baseline_eval.report(measures, question_set.name))
        out = json_path or (config.data_dir() / f"baselines-{question_set.stem}.json")
        # a frozen set's individual answers are never written: only its table
        baseline_eval.write_json(out, measures, with_turns="frozen" not in question_set.parts)
        baseline_eval.plot(measures, out.with_suffix(".png"), f" ({question_set.stem})")
        typer.echo(f"results: {out}\nplot: {out.with_suffix('.png')}")
        return
    s = conversation_eval.summary(results)
    typer.echo(f"workshop eval conversations: {question_set.name}, chat answer path, offline, documents "
               f"{'promoted' if docs else 'not promoted'}")
    typer.echo(conversation_eval.format_report(s))
    out = json_path or (config.data_dir() / f"eval-{question_set.stem}.json")
    conversation_eval.write_json(out, s, results)
    typer.echo(f"results: {out}")


def main(argv: list[str] | None = None) -> int:
    """The `workshop` command. An error the workshop raises on purpose (WorkshopError) is caught here
    once: its message and fix on stderr, no traceback, exit status 1. Anything else is a bug and
    keeps its traceback."""
    try:
        app(args=argv, prog_name="workshop")
    except SystemExit as done:  # typer ends every command with one
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except KeyboardInterrupt:
        return 130
    except WorkshopError as exc:
        typer.secho(error_text(exc), fg="red", err=True)
        return 1
    return 0


def error_text(exc: WorkshopError) -> str:
    """What the user reads: the message, then the fix when the message does not already say it."""
    message = str(exc) or type(exc).__name__
    return message if not exc.fix or exc.fix in message else f"{message}\nFix: {exc.fix}"


if __name__ == "__main__":  # python -m workshop_lib.tools.cli
    sys.exit(main())
