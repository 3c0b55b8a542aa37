"""Prepare an Oracle AI Database for the workshop: `workshop oracle-bootstrap` (or `make setup-oracle`).

Safe to re-run: every step checks first and prints what it did or why it skipped.

  wait           wait (with progress) until the database answers
  vector_memory  VECTOR_MEMORY_SIZE for in-memory vector indexes (the store searches exactly and needs
                 none; an HNSW index you build yourself does); restarts the container if needed
  users          users AGENT, SUPPLYCHAIN and SC_READER (run_sql's) with exactly the grants each needs
  model          download Oracle's augmented all-MiniLM-L12-v2 once, load it as ALL_MINILM_L12_V2
  store          the memory store (tables, Oracle Text index; no vector index) via MemoryStore
  data           SUPPLYCHAIN seed, user/agent profiles and the scanned schema memories
  check          the same Oracle checks as `workshop doctor`

SQL lives in setup/oracle/*.sql and workshop_lib/engines/oracle/sql.py; this file only runs it.
Settings come from the environment (see docs/oracle.md): ORACLE_DSN, ORACLE_APP_USER,
ORACLE_APP_PASSWORD, ORACLE_ADMIN_USER, ORACLE_ADMIN_PASSWORD, ORACLE_ADMIN_CDB_DSN,
ORACLE_SUPPLYCHAIN_PASSWORD, ORACLE_READER_USER, ORACLE_READER_PASSWORD, ORACLE_CONTAINER, ORACLE_ONNX_MODEL_FILE, ORACLE_WAIT_TIMEOUT.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import oracledb

from workshop_lib import config
from workshop_lib.core.connect import connect
from workshop_lib.engines.base import Engine
from workshop_lib.engines.oracle import sql as osql
from workshop_lib.engines.oracle import sqlfile
from workshop_lib.engines.oracle.connection import OracleConnectionError, connect_oracle, parse_size
from workshop_lib.engines.oracle.errors import CONTAINER, OracleWorkshopError
from workshop_lib.prepare import prepare

SQL_DIR = config.REPO_ROOT / "setup" / "oracle"  # beside the container's initdb scripts, which mount it
STEPS = ("wait", "vector_memory", "users", "model", "store", "data", "check")

LOCAL_DSN = "localhost:1521/FREEPDB1"
VECTOR_MEMORY_MB = 512          # written to the SPFILE (capped at 40% of SGA_TARGET by the SQL)
MIN_VECTOR_MEMORY_MB = 128      # what counts as "sized for HNSW" for this workshop's few thousand vectors
SUPPLYCHAIN_USER = "SUPPLYCHAIN"

# Oracle's pre-built augmented all-MiniLM-L12-v2 (tokenizer + model + pooling in one ONNX
# graph), linked from the AI Vector Search User's Guide. Tried in order: the OML-ai-models
# link first (it works); the older OML-Resources pre-authenticated link now answers "PAR
# does not exist" and stays only as a fallback in case the first one is withdrawn too. No
# checksum is published: the zip and the .onnx inside are checked by their known sizes
# (a different size is reported, not silently used), then by the 384-dimension smoke test.
MODEL_URLS = (
    "https://adwc4pm.objectstorage.us-ashburn-1.oci.customer-oci.com/p/"
    "TtH6hL2y25EypZ0-rrczRZ1aXp7v1ONbRBfCiT-BDBN8WLKQ3lgyW6RxCfIFLdA6/n/adwc4pm/b/OML-ai-models/o/"
    "all_MiniLM_L12_v2_augmented.zip",
    "https://adwc4pm.objectstorage.us-ashburn-1.oci.customer-oci.com/p/"
    "VBRD9P8ZFWkKvnfhrWxkpPe8K03-JIoM5h_8EJyJcpE80c108fuUjg7R5L5O7mMZ/n/adwc4pm/b/OML-Resources/o/"
    "all_MiniLM_L12_v2_augmented.zip",
)
MODEL_ZIP_BYTES = 122_537_890
MODEL_ONNX_BYTES = 133_322_334
MODEL_FILE = "all_MiniLM_L12_v2.onnx"
MODEL_MIN_BYTES = 50_000_000
UPLOAD_CHUNK = 8 * 1024 * 1024


# --------------------------------------------------------------------------- settings
@dataclass
class Settings:
    dsn: str
    root_dsn: str | None
    admin_user: str
    admin_password: str
    app_user: str
    app_password: str
    data_password: str
    reader_user: str
    reader_password: str
    container: str
    wait_timeout: float

    @classmethod
    def from_env(cls) -> Settings:
        config.load_dotenv()
        dsn = config.oracle_setting("ORACLE_DSN").strip()
        if not dsn:
            say("settings", f"ORACLE_DSN is not set; using the local container's {LOCAL_DSN}. "
                            f"Export it too so the notebooks use Oracle: export ORACLE_DSN={LOCAL_DSN}")
            dsn = LOCAL_DSN
        app_password = config.oracle_setting("ORACLE_APP_PASSWORD")
        return cls(
            dsn=dsn,
            root_dsn=os.environ.get("ORACLE_ADMIN_CDB_DSN") or cdb_root_dsn(dsn),
            admin_user=config.oracle_setting("ORACLE_ADMIN_USER") or "SYSTEM",
            admin_password=config.oracle_setting("ORACLE_ADMIN_PASSWORD"),
            app_user=(config.oracle_setting("ORACLE_APP_USER") or "AGENT").upper(),
            app_password=app_password,
            data_password=os.environ.get("ORACLE_SUPPLYCHAIN_PASSWORD") or app_password,
            reader_user=config.oracle_setting("ORACLE_READER_USER").upper(),
            reader_password=config.oracle_setting("ORACLE_READER_PASSWORD"),
            container=os.environ.get("ORACLE_CONTAINER") or CONTAINER,
            wait_timeout=float(os.environ.get("ORACLE_WAIT_TIMEOUT", "900")),
        )


def cdb_root_dsn(dsn: str) -> str | None:
    """The CDB root service of the workshop container (FREEPDB1 -> FREE), or None."""
    m = re.fullmatch(r"(.+/)FREEPDB1", dsn.strip(), re.I)
    return f"{m.group(1)}FREE" if m else None


def check_password(name: str, password: str) -> str:
    if not password or '"' in password or len(password) > 128:
        raise OracleWorkshopError("users", f"{name} must be 1-128 characters without a double quote",
                                  f"set a different {name}")
    return password


# --------------------------------------------------------------------------- output
def say(step: str, message: str) -> None:
    print(f"[{step}] {message}", flush=True)


def statements(file: str) -> dict[str, sqlfile.Statement]:
    return sqlfile.named(SQL_DIR / file)


def run(cur, stmt: sqlfile.Statement, binds: dict | None = None, **identifiers: str):
    text = stmt.render(**identifiers) if stmt.placeholders else stmt.text
    cur.execute(text, binds or {})
    return cur


def admin(settings: Settings, dsn: str | None = None, timeout: float = 60):
    return connect_oracle(settings.admin_user, settings.admin_password, dsn or settings.dsn,
                          timeout=timeout, what=f"Oracle ({settings.admin_user})")


# --------------------------------------------------------------------------- steps
PASSWORD_GRACE_S = 90  # how long a rejected password is retried after it is first rejected


def step_wait(settings: Settings) -> None:
    t0 = time.monotonic()
    container = find_container(settings.container)
    if container:
        wait_healthy(container, settings.wait_timeout, inspect=docker_health)
    conn = wait_for_database(lambda remaining: admin(settings, timeout=remaining), settings.wait_timeout)
    try:
        say("wait", f"database at {settings.dsn} answers (Oracle {conn.version}) after "
                    f"{time.monotonic() - t0:.0f} s")
    finally:
        conn.close()


def docker_health(container: str) -> str:
    """The container's health status ('starting', 'healthy', 'unhealthy'), '' when it has none."""
    probe = subprocess.run(["docker", "inspect", "--format", "{{if .State.Health}}{{.State.Health.Status}}{{end}}",
                            container], capture_output=True, text=True)
    return probe.stdout.strip() if probe.returncode == 0 else ""


def wait_healthy(container: str, timeout: float, *, inspect, sleep=time.sleep, clock=time.monotonic) -> bool:
    """Wait until docker reports the container healthy. On its first start the image opens the
    database, sets the passwords and runs the init scripts (ours restarts the database for vector
    memory) while its health check says "starting"; connecting before that meets a restart."""
    deadline = clock() + timeout
    status = inspect(container)
    if not status:
        return False  # no health check to wait for (or docker cannot tell): the connection loop decides
    if status != "healthy":
        say("wait", f"container {container} is {status}; waiting for docker to report it healthy")
    while status != "healthy":
        if clock() >= deadline:
            raise OracleWorkshopError("wait", f"container {container} is still {status!r} after {timeout:.0f} s",
                                      f"look at `docker logs {container}` for the reason")
        sleep(5)
        status = inspect(container)
    return True


def wait_for_database(connect, timeout: float, *, sleep=time.sleep, clock=time.monotonic):
    """Connect as the admin user. `connect(remaining_s)` retries transient errors itself; here a
    rejected password (ORA-01017) is retried for PASSWORD_GRACE_S from the FIRST time it is seen:
    a new container answers a few seconds before it has set the password from ORACLE_PASSWORD."""
    deadline = clock() + timeout
    first_rejected = None
    while True:
        try:
            return connect(max(1.0, deadline - clock()))
        except OracleWorkshopError as exc:
            if exc.code != "ORA-01017":
                raise
            now = clock()
            first_rejected = now if first_rejected is None else first_rejected
            if now - first_rejected > PASSWORD_GRACE_S or now >= deadline:
                raise
            say("wait", "password not accepted yet (a new container sets it right after starting); retrying")
            sleep(10)


def autonomous_service(cur, sqls) -> str | None:
    """The Autonomous Database service type (OLTP, DWCS, ...), or None on any other database."""
    try:
        value = run(cur, sqls["cloud_service"]).fetchone()[0]
    except oracledb.Error:
        return None
    return str(value) if value else None


def step_vector_memory(settings: Settings) -> None:
    sqls = statements("01_vector_memory.sql")
    needed = MIN_VECTOR_MEMORY_MB << 20
    conn = admin(settings)
    try:
        service = autonomous_service(conn.cursor(), sqls)
    finally:
        conn.close()
    if service:
        say("vector_memory", f"Autonomous Database ({service}): the service sizes the vector pool itself when the "
                             "HNSW index is created (VECTOR_MEMORY_SIZE reads 0 there and cannot be set): skipped")
        return
    if settings.root_dsn is None:
        _check_pdb_only(settings, sqls, needed)
        return
    try:
        root = admin(settings, settings.root_dsn, timeout=30)
    except (OracleConnectionError, OracleWorkshopError) as exc:
        say("vector_memory", f"cannot open the CDB root at {settings.root_dsn} ({str(exc).splitlines()[0]}); "
                             "checking the pluggable database only")
        _check_pdb_only(settings, sqls, needed)
        return
    try:
        cur = root.cursor()
        current = parse_size(run(cur, sqls["current_size"]).fetchone()[0])
        if current >= needed:
            say("vector_memory", f"VECTOR_MEMORY_SIZE is {current >> 20} MB: nothing to do")
        else:
            spfile = parse_size(run(cur, sqls["spfile_size"]).fetchone()[0])
            already_pending = spfile >= needed
            if not already_pending:
                out = cur.var(int)
                run(cur, sqls["set_in_spfile"], {"wanted_mb": VECTOR_MEMORY_MB, "set_mb": out})
                say("vector_memory", f"VECTOR_MEMORY_SIZE was {current >> 20} MB; wrote {out.getvalue()} MB to "
                                     "the SPFILE (a pool of 0 cannot grow while running: ORA-51950)")
            root.close()
            root = None
            _apply_with_restart(settings, sqls, needed, already_pending)
    except oracledb.Error as exc:
        raise OracleWorkshopError("vector_memory", exc) from exc
    finally:
        if root is not None:
            root.close()
    _set_pdb_limit(settings, sqls)


def _check_pdb_only(settings: Settings, sqls, needed: int) -> None:
    conn = admin(settings)
    try:
        cur = conn.cursor()
        try:
            value = parse_size(run(cur, sqls["current_size"]).fetchone()[0])
        except oracledb.Error as exc:
            say("vector_memory", f"skipped: cannot read VECTOR_MEMORY_SIZE ({str(exc).splitlines()[0]}); "
                                 "on Autonomous Database the service manages vector memory")
            return
    finally:
        conn.close()
    if value >= needed:
        say("vector_memory", f"VECTOR_MEMORY_SIZE is {value >> 20} MB in this database: nothing to do")
    else:
        say("vector_memory", f"VECTOR_MEMORY_SIZE is {value >> 20} MB here and the CDB root is not reachable "
                             "(set ORACLE_ADMIN_CDB_DSN to let the bootstrap change it). If creating the HNSW "
                             f"index fails with ORA-51962, ask your DBA for at least {MIN_VECTOR_MEMORY_MB} MB "
                             "(ALTER SYSTEM SET vector_memory_size = 512M SCOPE=SPFILE, then restart).")


def _current_root_size(settings: Settings, sqls, timeout: float) -> int:
    conn = admin(settings, settings.root_dsn, timeout=timeout)
    try:
        return parse_size(run(conn.cursor(), sqls["current_size"]).fetchone()[0])
    finally:
        conn.close()


def _apply_with_restart(settings: Settings, sqls, needed: int, already_pending: bool) -> None:
    if already_pending:
        # The container's first-start script (setup/oracle/initdb) may be restarting it right now.
        say("vector_memory", "the SPFILE already has the new size; waiting up to 2 minutes for the "
                             "database restart that applies it")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            time.sleep(10)
            try:
                if _current_root_size(settings, sqls, timeout=30) >= needed:
                    say("vector_memory", "applied by a database restart: done")
                    return
            except (OracleConnectionError, OracleWorkshopError):
                continue
    container = find_container(settings.container)
    if container is None:
        raise OracleWorkshopError(
            "vector_memory",
            "VECTOR_MEMORY_SIZE is set in the SPFILE but the database must restart to use it "
            "(and no Docker container could be restarted from here)",
            f"restart the database (workshop container: `docker restart {settings.container}`; with "
            "docker compose: `docker compose -f .devcontainer/docker-compose.yml restart oracle`), "
            "then run `make setup-oracle` again",
        )
    say("vector_memory", f"restarting the database container: docker restart {container} (about a minute)")
    result = subprocess.run(["docker", "restart", "-t", "120", container], capture_output=True, text=True)
    if result.returncode != 0:
        raise OracleWorkshopError("vector_memory", f"`docker restart {container}` failed: {result.stderr.strip()}",
                                  f"restart the database yourself (`docker restart {container}`) and re-run "
                                  "`make setup-oracle`")
    size = _current_root_size(settings, sqls, timeout=settings.wait_timeout)
    if size < needed:
        raise OracleWorkshopError("vector_memory", f"after the restart VECTOR_MEMORY_SIZE is still {size >> 20} MB",
                                  "check the alert log (`docker logs <container>`) for ORA-51954 / ORA-51950")
    say("vector_memory", f"database restarted: VECTOR_MEMORY_SIZE is now {size >> 20} MB")


def _set_pdb_limit(settings: Settings, sqls) -> None:
    conn = admin(settings)
    try:
        cur = conn.cursor()
        pdb = parse_size(run(cur, sqls["current_size"]).fetchone()[0])
        if pdb >= MIN_VECTOR_MEMORY_MB << 20:
            say("vector_memory", f"pluggable database limit is {pdb >> 20} MB: nothing to do")
            return
        root_mb = _current_root_size(settings, sqls, timeout=30) >> 20
        run(cur, sqls["set_pdb_limit"], {"mb": root_mb})
        say("vector_memory", f"pluggable database limit set to {root_mb} MB")
    except (oracledb.Error, OracleWorkshopError, OracleConnectionError) as exc:
        say("vector_memory", f"note: could not set the pluggable database's limit ({str(exc).splitlines()[0]}); "
                             "the CDB pool is configured, which is usually enough")
    finally:
        conn.close()


def find_container(preferred: str) -> str | None:
    """The Oracle container to restart: ORACLE_CONTAINER if it exists, else the only one publishing 1521."""
    if shutil.which("docker") is None:
        return None
    probe = subprocess.run(["docker", "inspect", "--format", "{{.Name}}", preferred], capture_output=True, text=True)
    if probe.returncode == 0:
        return preferred
    listing = subprocess.run(["docker", "ps", "--format", "{{.Names}}\t{{.Image}}\t{{.Ports}}"],
                             capture_output=True, text=True)
    if listing.returncode != 0:
        return None
    names = [line.split("\t")[0] for line in listing.stdout.splitlines()
             if "oracle-free" in line or ":1521->" in line or "1521/tcp" in line]
    return names[0] if len(names) == 1 else None


def step_users(settings: Settings) -> None:
    sqls = statements("02_users_and_grants.sql")
    check_password("ORACLE_APP_PASSWORD", settings.app_password)
    check_password("ORACLE_SUPPLYCHAIN_PASSWORD", settings.data_password)
    check_password("ORACLE_READER_PASSWORD", settings.reader_password)
    conn = admin(settings)
    try:
        cur = conn.cursor()
        tablespace = run(cur, sqls["default_tablespace"]).fetchone()[0]
        for user, password, quota, grants in (
            (settings.app_user, settings.app_password, True, (
                ("app_user_system_privileges", ("CREATE SESSION", "CREATE TABLE", "CREATE SEQUENCE", "CREATE VIEW",
                                                "CREATE PROCEDURE", "CREATE MINING MODEL"), True),
                ("app_user_text_role", ("CTXAPP",), True),
                ("app_user_ctx_ddl", (), True),
                ("app_user_dbms_vector", (), False),
                ("app_user_read_parameters", (), False),
            )),
            (SUPPLYCHAIN_USER, settings.data_password, True, (
                ("data_user_system_privileges", ("CREATE SESSION", "CREATE TABLE"), True),
            )),
            # run_sql's user: a session only (its SELECT grants come from SUPPLYCHAIN when seeding).
            (settings.reader_user, settings.reader_password, False, (
                ("reader_user_system_privileges", ("CREATE SESSION",), True),
            )),
        ):
            _create_user(cur, sqls, user, password, quota=quota, tablespace=tablespace)
            _grant_missing(cur, sqls, user, grants)
    except oracledb.Error as exc:
        raise OracleWorkshopError("users", exc) from exc
    finally:
        conn.close()


def _create_user(cur, sqls: dict, user: str, password: str, *, quota: bool, tablespace: str) -> None:
    """Create the user unless it exists (its password is then left as it is); quota on the default
    tablespace for a user that creates tables."""
    exists = run(cur, sqls["user_exists"], {"username": user}).fetchone()[0] > 0
    if exists:
        say("users", f"{user} exists (password left unchanged)")
    elif quota:
        run(cur, sqls["create_user"], {"username": user, "password": password})
        say("users", f"created {user} (default tablespace {tablespace})")
    else:
        run(cur, sqls["create_user_without_quota"], {"username": user, "password": password})
        say("users", f"created {user} (no quota: it creates nothing)")
    if quota:
        run(cur, sqls["quota"], username=user, tablespace=tablespace)


def _grant_missing(cur, sqls: dict, user: str, grants: tuple) -> None:
    """Run each grant whose privileges the user does not all hold yet; a required one that fails
    stops the step, an optional one is noted."""
    try:
        have = {r[0] for r in run(cur, sqls["granted"], {"username": user}).fetchall()}
    except oracledb.Error:
        have = set()
    done: list[str] = []
    skipped: list[str] = []
    for name, privileges, required in grants:
        if privileges and all(p in have for p in privileges):
            skipped.extend(privileges)
            continue
        try:
            run(cur, sqls[name], app_user=user, data_user=user, reader_user=user)
            done.append(name)
        except oracledb.Error as exc:
            if required:
                raise OracleWorkshopError(f"users: {name}", exc) from exc
            say("users", f"note: optional grant {name} to {user} failed ({str(exc).splitlines()[0]})")
    say("users", f"{user}: granted {', '.join(done) or 'nothing new'}"
                 + (f"; already had {', '.join(skipped)}" if skipped else ""))


def step_model(settings: Settings) -> None:
    sqls = statements("03_onnx_model.sql")
    conn = connect_oracle(settings.app_user, settings.app_password, settings.dsn, timeout=60,
                          what=f"Oracle ({settings.app_user})")
    try:
        cur = conn.cursor()
        if run(cur, sqls["model_exists"], {"model_name": osql.MODEL_NAME}).fetchone()[0]:
            dims = _smoke(cur)
            say("model", f"{osql.MODEL_NAME} already loaded ({dims} dims): skipped")
            return
        path = model_file()
        size = path.stat().st_size
        t0 = time.monotonic()
        blob = conn.createlob(oracledb.DB_TYPE_BLOB)
        from tqdm.auto import tqdm

        with open(path, "rb") as fh, tqdm(total=size, unit="B", unit_scale=True,
                                          desc=f"Uploading {path.name} to the database") as bar:
            offset = 1
            while chunk := fh.read(UPLOAD_CHUNK):
                blob.write(chunk, offset)
                offset += len(chunk)
                bar.update(len(chunk))
        say("model", f"loading {osql.MODEL_NAME} with DBMS_VECTOR.LOAD_ONNX_MODEL (about a minute)")
        run(cur, sqls["load_model"], {"model_name": osql.MODEL_NAME, "model_data": blob})
        dims = _smoke(cur)
        say("model", f"loaded {osql.MODEL_NAME} in {time.monotonic() - t0:.0f} s; smoke test: {dims} dims")
    except oracledb.Error as exc:
        raise OracleWorkshopError("model", exc) from exc
    finally:
        conn.close()


def _smoke(cur) -> int:
    cur.execute(osql.MODEL_DIMENSIONS)
    dims = int(cur.fetchone()[0])
    if dims != osql.DIM:
        raise OracleWorkshopError(
            "model", f"{osql.MODEL_NAME} returns {dims}-dimension vectors, expected {osql.DIM}",
            f"drop it as the workshop user: EXEC DBMS_DATA_MINING.DROP_MODEL('{osql.MODEL_NAME}'), "
            "then run `make setup-oracle` again")
    return dims


def model_file() -> Path:
    """The .onnx file: ORACLE_ONNX_MODEL_FILE, the cached copy, or a fresh download."""
    override = os.environ.get("ORACLE_ONNX_MODEL_FILE")
    cache = config.data_dir() / "models"
    cache.mkdir(parents=True, exist_ok=True)
    if override:
        src = Path(override).expanduser()
        if src.suffix.lower() == ".zip":
            return _extract(src, cache)
        _check_model_size(src)
        say("model", f"using ORACLE_ONNX_MODEL_FILE={src}")
        return src
    target = cache / MODEL_FILE
    if target.exists() and target.stat().st_size >= MODEL_MIN_BYTES:
        say("model", f"using the downloaded copy {target}")
        return target
    zip_path = cache / "all_MiniLM_L12_v2_augmented.zip"
    errors = []
    for url in MODEL_URLS:
        try:
            download(url, zip_path)
            check_size(zip_path, MODEL_ZIP_BYTES, "the downloaded zip")
            return _extract(zip_path, cache, remove=True)
        except (OSError, zipfile.BadZipFile, OracleWorkshopError) as exc:
            errors.append(f"{url.split('/o/')[0][:60]}...: {exc}")
    raise OracleWorkshopError(
        "model", "could not download the ONNX model: " + " | ".join(errors),
        "check the network, or download all_MiniLM_L12_v2_augmented.zip (linked from Oracle's AI Vector "
        "Search User's Guide) yourself and set ORACLE_ONNX_MODEL_FILE=/path/to/it.zip",
    )


def download(url: str, dest: Path) -> None:
    from tqdm.auto import tqdm

    part = dest.with_suffix(dest.suffix + ".part")
    with urllib.request.urlopen(url, timeout=60) as resp:
        total = int(resp.headers.get("Content-Length") or 0) or None
        with open(part, "wb") as fh, tqdm(total=total, unit="B", unit_scale=True,
                                          desc="Downloading all_MiniLM_L12_v2_augmented.zip") as bar:
            while chunk := resp.read(1 << 20):
                fh.write(chunk)
                bar.update(len(chunk))
    part.replace(dest)


def _extract(zip_path: Path, cache: Path, remove: bool = False) -> Path:
    with zipfile.ZipFile(zip_path) as zf:
        members = [m for m in zf.infolist() if m.filename.lower().endswith(".onnx")]
        if not members:
            raise OracleWorkshopError("model", f"{zip_path.name} holds no .onnx file",
                                      "download the augmented model zip again")
        member = max(members, key=lambda m: m.file_size)
        target = cache / MODEL_FILE
        with zf.open(member) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    _check_model_size(target)
    if member.file_size != MODEL_ONNX_BYTES:
        say("model", f"note: {member.filename} is {member.file_size:,} bytes, not the {MODEL_ONNX_BYTES:,} of "
                     "the published model; the smoke test after loading decides")
    if remove:
        zip_path.unlink(missing_ok=True)
    say("model", f"unzipped {member.filename} ({target.stat().st_size / 1e6:.0f} MB) to {target}")
    return target


def _check_model_size(path: Path) -> None:
    if not path.exists() or path.stat().st_size < MODEL_MIN_BYTES:
        raise OracleWorkshopError("model", f"{path} is missing or too small to be the model",
                                  "delete it and run `make setup-oracle` again to download it")


def check_size(path: Path, expected: int, what: str) -> None:
    """A download of another size is a different (or truncated) file: say so instead of loading it."""
    size = path.stat().st_size
    if size != expected:
        path.unlink(missing_ok=True)
        raise OracleWorkshopError("model", f"{what} is {size:,} bytes, expected {expected:,}",
                                  "the link may now serve another file: download all_MiniLM_L12_v2_augmented.zip "
                                  "from the link in Oracle's AI Vector Search User's Guide and set "
                                  "ORACLE_ONNX_MODEL_FILE=/path/to/it.zip")


def _engine(settings: Settings) -> Engine:
    return connect("oracle", dsn=settings.dsn, user=settings.app_user, password=settings.app_password, timeout=60)


def step_store(settings: Settings) -> None:
    eng = _engine(settings)
    try:
        before = eng.backend.object_names()
        eng.open_store()  # the default store, its missing objects created (never drops anything)
        after = eng.backend.object_names()
        created = [name for name, _ in osql.SCHEMA if name in after and name not in before]
        present = [name for name, _ in osql.SCHEMA if name in before]
        if created:
            say("store", f"created {', '.join(created)}" + (f"; already there: {', '.join(present)}" if present else ""))
        else:
            say("store", f"all {len(present)} objects already there ({', '.join(present)}): skipped")
    except OracleWorkshopError as exc:
        raise OracleWorkshopError(f"store: {exc.step}", exc.error) from exc
    finally:
        eng.close()


def step_data(settings: Settings) -> None:
    eng = _engine(settings)
    try:
        report = prepare(eng)
    except OracleWorkshopError as exc:
        raise OracleWorkshopError(f"data: {exc.step}", exc.error) from exc
    finally:
        eng.close()
    rows = ", ".join(f"{k.lower()}={v}" for k, v in report["rows"].items())
    say("data", f"SUPPLYCHAIN rows: {rows}")
    say("data", f"schema facts: {report['facts']} ({report['written']})")


def step_check(settings: Settings) -> None:
    eng = _engine(settings)
    try:
        checks = eng.backend.doctor_checks()
    finally:
        eng.close()
    for c in checks:
        say("check", c.line())
    failed = [c for c in checks if not c.ok]
    if failed:
        raise OracleWorkshopError("check", f"{len(failed)} check(s) failed: {', '.join(c.name for c in failed)}",
                                  failed[0].fix or "see the lines above")


RUNNERS = {
    "wait": step_wait, "vector_memory": step_vector_memory, "users": step_users, "model": step_model,
    "store": step_store, "data": step_data, "check": step_check,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="workshop oracle-bootstrap", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", choices=STEPS, help="run only this step (repeatable)")
    parser.add_argument("--skip", action="append", choices=STEPS, default=[], help="skip this step (repeatable)")
    args = parser.parse_args(argv)
    steps = [s for s in (args.only or STEPS) if s not in args.skip]
    t0 = time.monotonic()
    try:
        settings = Settings.from_env()
        say("settings", f"ORACLE_DSN={settings.dsn}, app user {settings.app_user}, admin {settings.admin_user}")
        for step in steps:
            t = time.monotonic()
            RUNNERS[step](settings)
            say(step, f"done in {time.monotonic() - t:.0f} s")
    except (OracleWorkshopError, OracleConnectionError) as exc:
        print(f"\nSETUP FAILED: {exc}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        print("\nInterrupted; re-run `make setup-oracle` to continue (finished steps are skipped).",
              file=sys.stderr)
        return 130
    print(f"\nOracle is ready for the workshop ({time.monotonic() - t0:.0f} s). "
          "Next: open notebooks/part1/part1_setup_and_tour.ipynb, or run `workshop doctor`.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
