"""The `workshop` command: setup, doctor, reset, grade."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import typer

from . import config

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Agent-memory retrieval workshop: prepare, check and grade.")


def _connect(engine: str | None):
    from .engine import connect

    try:
        return connect(engine)
    except Exception as exc:  # noqa: BLE001 - show the message, not a traceback
        typer.secho(f"Could not open the {config.engine_name(engine)} engine: {exc}", fg="red", err=True)
        raise typer.Exit(2) from None


@app.command()
def setup(engine: str = typer.Option(None, help="oracle | embedded (default: $WORKSHOP_ENGINE or embedded)")):
    """Prepare the engine: memory store, SUPPLYCHAIN seed, scanned schema memories. Safe to re-run."""
    from .prepare import prepare

    eng = _connect(engine)
    report = prepare(eng)
    t = report["timings"]
    typer.echo(f"engine: {eng.name} ({eng.describe()})")
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
    from .doctor import checks

    eng = _connect(engine)
    results = checks(eng)
    for c in results:
        typer.secho(c.line(), fg="green" if c.ok else "red")
    if not all(c.ok for c in results):
        raise typer.Exit(1)


@app.command()
def reset(
    engine: str = typer.Option(None, help="oracle | embedded"),
    yes: bool = typer.Option(False, "--yes", help="do not ask for confirmation"),
):
    """DESTRUCTIVE: delete every stored memory and the seed, then start empty."""
    name = config.engine_name(engine)
    what = (f"the embedded database files in {config.data_dir()}" if name == "embedded"
            else "every memory-store table of the Oracle AGENT schema and Part 5's caches")
    if not yes and not typer.confirm(f"This deletes {what}. Continue?", default=False):
        typer.echo("Nothing deleted.")
        raise typer.Exit(0)
    if name == "embedded":
        shutil.rmtree(config.data_dir(), ignore_errors=True)
    else:
        from . import grounded
        from .store import MemoryStore, SchemaPolicy

        eng = _connect(name)
        MemoryStore(eng, schema_policy=SchemaPolicy.RECREATE)
        grounded.clear_caches(eng, embeddings=True)  # Part 5's caches hold answers built on the old memories
    typer.echo("Reset done. Run `workshop setup` to prepare the workshop again.")


@app.command()
def grade(
    submissions: Path = typer.Argument(..., help="folder of learner notebooks (any layout)"),
    out: Path = typer.Option(Path("grades"), help="where feedback HTML and grades.csv go"),
    timeout: int = typer.Option(120, help="seconds a single cell may run"),
):
    """Autograde a folder of learner notebooks with nbgrader; write feedback and grades.csv."""
    from .grading import grade_folder, per_learner, per_todo

    table = grade_folder(submissions, out, timeout=timeout)
    if not len(table):
        typer.echo("No notebooks found.")
        raise typer.Exit(1)
    typer.echo("Per TODO:\n" + per_todo(table).to_string() + "\n")
    typer.echo("Per learner:\n" + per_learner(table).to_string() + "\n")
    problems = table[~table["status"].isin(["passed"])]
    if len(problems):
        typer.echo("Not passed (first reason per row):")
        for r in problems.itertuples():
            typer.echo(f"  {r.student:12s} {r.assignment:6s} {r.cell:34s} {r.status[:110]}")
    typer.echo(f"\nWrote {out / 'grades.csv'} and feedback under {out / 'feedback'}")


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def bench(ctx: typer.Context,
          which: str = typer.Argument("retrieval", help="retrieval | chat (the chat service's load run)")):
    """Run a benchmark from the repository's bench/ folder (options go to it; try `workshop bench -- --help`)."""
    import subprocess

    modules = {"retrieval": "bench.run", "chat": "bench.chat_load"}
    if which not in modules:
        typer.secho(f"Unknown benchmark {which!r}; choose one of {', '.join(modules)}.", fg="red", err=True)
        raise typer.Exit(2)
    if not (config.REPO_ROOT / "bench").is_dir():
        typer.secho("The benchmarks live in the repository's bench/ folder: run this from a clone of the "
                    "workshop (`make bench`).", fg="red", err=True)
        raise typer.Exit(2)
    raise typer.Exit(subprocess.call([sys.executable, "-m", modules[which], *ctx.args], cwd=config.REPO_ROOT))


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="address to bind; 127.0.0.1 keeps it on this machine"),
    port: int = typer.Option(8000, help="TCP port"),
    engine: str = typer.Option(None, help="oracle | embedded"),
    token: str = typer.Option(None, envvar="WORKSHOP_CHAT_TOKEN",
                              help="require 'Authorization: Bearer TOKEN' (open the page as /?token=TOKEN)"),
    store_questions: bool = typer.Option(False, "--store-questions",
                                         help="keep each question's text in CHAT_INTERACTIONS (default: a hash only)"),
):
    """Start the chat service (POST /chat, GET /health, GET /stats, the page at /)."""
    import uvicorn

    from . import catalog
    from .chat.app import create_app
    from .llm import get_llm
    from .prepare import prepare

    eng = _connect(engine)
    prepare(eng, progress=False)
    catalog.seed(eng, progress=False)
    if host not in ("127.0.0.1", "localhost", "::1") and token is None:
        typer.secho(f"Warning: listening on {host} with no token: anyone who can reach this port can chat "
                    "and read /stats. Pass --token.", fg="yellow", err=True)
    typer.echo(f"Chat page: http://{host}:{port}/" + (f"?token={token}" if token else ""))
    uvicorn.run(create_app(eng, llm=get_llm(), store_question_text=store_questions, token=token),
                host=host, port=port, log_level="info")


def main() -> None:  # pragma: no cover
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":  # python -m workshop_lib.cli
    main()
