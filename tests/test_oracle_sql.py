"""Every Oracle statement of the workshop, checked without a database.

No Oracle database can run where the project is built, so each statement is parsed with
sqlglot's Oracle dialect: the named statements of workshop_lib/engines/oracle/sql.py and every
statement of every .sql file under setup/. What sqlglot cannot parse is listed ONCE in
UNPARSEABLE with the Oracle documentation page that defines the construct, and the test
requires that list to be exactly the set that fails, so it cannot rot. Where a rewrite
of the construct is known, the rest of the statement must still parse.

Also checked: the Oracle statements mirror the embedded ones (names, binds, columns),
the retrieval and schema statements use the documented Oracle features, and the
Codespaces / Docker / CI files parse, use the full image and run the same bootstrap.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sqlglot
import yaml
from sqlglot import exp

from workshop_lib import config
from workshop_lib.data.supplychain_data import TABLES
from workshop_lib.engines.embedded import sql as esql
from workshop_lib.engines.oracle import sql as osql
from workshop_lib.engines.oracle import sqlfile
from workshop_lib.engines.oracle.connection import bind_names

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "setup"

DOC = "https://docs.oracle.com/en/database/oracle/oracle-database/23"
# construct -> (what it is, Oracle documentation page, rewrite to plain SQL or None)
CONSTRUCTS = {
    "VECTOR_EMBEDDING": (
        "VECTOR_EMBEDDING(model USING expr AS data): in-database ONNX embedding",
        f"{DOC}/sqlrf/vector_embedding.html (SQL Language Reference, VECTOR_EMBEDDING)",
        (r"VECTOR_EMBEDDING\(\w+ USING (.+?) AS data\)", r"VECTOR_EMBEDDING_(\1)"),
    ),
    "VECTOR_TYPE": (
        "VECTOR(number_of_dimensions, FLOAT32) column type",
        f"{DOC}/vecse/create-tables-using-vector-data-type.html (Create Tables Using the VECTOR Data Type)",
        (r"VECTOR\(\d+, FLOAT32\)", "BLOB"),
    ),
    "CONTEXT_INDEX": (
        "CREATE INDEX ... INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')",
        f"{DOC}/ccapp/creating-context-index.html (Oracle Text: Creating a CONTEXT Index)",
        (r"\s+INDEXTYPE IS CTXSYS\.CONTEXT PARAMETERS \('[^']*'\)", ""),
    ),
    "CTX_OPTIMIZE_FULL": (
        "BEGIN CTX_DDL.OPTIMIZE_INDEX('index', 'FULL'); END; (Oracle Text garbage-collects deleted rows' tokens)",
        "https://docs.oracle.com/en/database/oracle/oracle-database/26/ccref/optimize_index.html "
        "(Oracle Text Reference, CTX_DDL.OPTIMIZE_INDEX)",
        (r"BEGIN CTX_DDL\.OPTIMIZE_INDEX\('(\w+)', 'FULL'\); END;", r"SELECT '\1' FROM dual"),
    ),
    "PREDICTION_USING": (
        "PREDICTION(model USING expr AS first_input, expr AS second_input): ONNX reranking pipeline",
        "https://docs.oracle.com/en/database/oracle/oracle-database/26/vecse/"
        "onnx-pipeline-models-reranking-pipeline.html (ONNX Pipeline Models: Reranking Pipeline)",
        (r"PREDICTION\(\w+ USING (.+?) AS first_input, (.+?) AS second_input\)", r"PREDICTION_(\1, \2)"),
    ),
    "PLSQL_BLOCK": (
        "PL/SQL anonymous block (sqlglot has no PL/SQL grammar)",
        f"{DOC}/lnpls/block.html (PL/SQL Language Reference, block)",
        None,
    ),
    "GRANT_SYSTEM_PRIVILEGE": (
        "GRANT system privileges or a role TO user (sqlglot parses only object grants)",
        f"{DOC}/sqlrf/GRANT.html (SQL Language Reference, GRANT)",
        None,
    ),
    "ALTER_USER_QUOTA": (
        "ALTER USER user QUOTA UNLIMITED ON tablespace",
        f"{DOC}/sqlrf/ALTER-USER.html (SQL Language Reference, ALTER USER)",
        None,
    ),
    "SPATIAL_INDEX": (
        "CREATE INDEX ... INDEXTYPE IS MDSYS.SPATIAL_INDEX_V2 PARAMETERS ('layer_gtype=POINT')",
        "https://docs.oracle.com/en/database/oracle/oracle-database/26/spatl/create-index.html "
        "(Spatial Developer's Guide, CREATE INDEX)",
        (r"\s+INDEXTYPE IS MDSYS\.SPATIAL_INDEX_V2 PARAMETERS \('[^']*'\)", ""),
    ),
    "HYBRID_VECTOR_INDEX": (
        "CREATE HYBRID VECTOR INDEX ... ON table (column) PARAMETERS ('MODEL model VECTOR_IDXTYPE IVF')",
        "https://docs.oracle.com/en/database/oracle/oracle-database/23/vecse/create-hybrid-vector-index.html "
        "(AI Vector Search User's Guide, CREATE HYBRID VECTOR INDEX)",
        (r"CREATE HYBRID VECTOR INDEX (\w+) ON (\w+) \((\w+)\)\s+PARAMETERS \('[^']*'\)", r"CREATE INDEX \1 ON \2 (\3)"),
    ),
    "ALTER_SESSION": (
        "ALTER SESSION SET CURRENT_SCHEMA = schema (unqualified names resolve in that schema)",
        f"{DOC}/sqlrf/ALTER-SESSION.html (SQL Language Reference, ALTER SESSION)",
        None,
    ),
    "SQLPLUS_COMMAND": (
        "SQL*Plus command, not SQL (run by SQL*Plus inside the gvenzl container)",
        f"{DOC}/sqpug/SQL-Plus-command-reference.html (SQL*Plus User's Guide, Command Reference)",
        None,
    ),
}

_INITDB = "setup/oracle/initdb/01_vector_memory.sql"
_GRANTS = "setup/oracle/02_users_and_grants.sql"
UNPARSEABLE = {
    # workshop_lib/engines/oracle/sql.py
    "CHUNK_INSERT_TEXT": ("VECTOR_EMBEDDING",),
    "SEARCH_BY_TEXT": ("VECTOR_EMBEDDING",),
    "SEARCH_SCOPED_KNN": ("VECTOR_EMBEDDING",),
    "HYBRID_RRF": ("VECTOR_EMBEDDING",),
    "VECTOR_RANKED": ("VECTOR_EMBEDDING",),
    "EMBED": ("VECTOR_EMBEDDING",),
    "MODEL_DIMENSIONS": ("VECTOR_EMBEDDING",),
    "RERANK_PREDICTION": ("PREDICTION_USING",),
    "SCHEMA.RECORD_CHUNKS[0]": ("VECTOR_TYPE",),
    "SCHEMA.RECORDS_TEXT_IX[0]": ("CONTEXT_INDEX",),
    "MEMORY.PURGE_DELETED[0]": ("CTX_OPTIMIZE_FULL",),
    "CATALOG.DDL[0]": ("VECTOR_TYPE",),
    "CATALOG.DDL[2]": ("VECTOR_TYPE",),
    "DOCS.TABLE_DDL[0]": ("VECTOR_TYPE",),
    "CATALOG.EMBED_TEXT": ("VECTOR_EMBEDDING",),
    "CATALOG.ITEM_INSERT": ("VECTOR_EMBEDDING",),
    "CATALOG.ITEM_UPDATE": ("VECTOR_EMBEDDING",),
    "RUN_SQL.SESSION_SCHEMA": ("ALTER_SESSION",),
    "SC_PORT_SPATIAL_INDEX": ("SPATIAL_INDEX",),
    "NATIVE_HYBRID.INDEX_DDL": ("HYBRID_VECTOR_INDEX",),
    # setup/**/*.sql
    "setup/oracle/01_vector_memory.sql:set_in_spfile": ("PLSQL_BLOCK",),
    "setup/oracle/01_vector_memory.sql:set_pdb_limit": ("PLSQL_BLOCK",),
    f"{_GRANTS}:create_user": ("PLSQL_BLOCK",),
    f"{_GRANTS}:quota": ("ALTER_USER_QUOTA",),
    f"{_GRANTS}:app_user_system_privileges": ("GRANT_SYSTEM_PRIVILEGE",),
    f"{_GRANTS}:app_user_text_role": ("GRANT_SYSTEM_PRIVILEGE",),
    f"{_GRANTS}:data_user_system_privileges": ("GRANT_SYSTEM_PRIVILEGE",),
    f"{_GRANTS}:create_user_without_quota": ("PLSQL_BLOCK",),
    f"{_GRANTS}:reader_user_system_privileges": ("GRANT_SYSTEM_PRIVILEGE",),
    "setup/oracle/03_onnx_model.sql:load_model": ("PLSQL_BLOCK",),
    f"{_INITDB}:WHENEVER SQLERROR CONTINUE": ("SQLPLUS_COMMAND",),
    f"{_INITDB}:DECLARE": ("PLSQL_BLOCK",),
    f"{_INITDB}:SHUTDOWN IMMEDIATE": ("SQLPLUS_COMMAND",),
    f"{_INITDB}:STARTUP": ("SQLPLUS_COMMAND",),
}

SAMPLE_IDENTIFIERS = {"app_user": "AGENT", "data_user": "SUPPLYCHAIN", "reader_user": "SC_READER", "username": "AGENT",
                      "tablespace": "USERS"}


# ----------------------------------------------------------------------- collection
def setup_statements() -> dict[str, sqlfile.Statement]:
    out = {}
    for path in sorted(SETUP.rglob("*.sql")):
        rel = path.relative_to(ROOT).as_posix()
        for stmt in sqlfile.load(path):
            key = f"{rel}:{stmt.name or stmt.text.splitlines()[0].strip()}"
            assert key not in out, f"two statements share the key {key}"
            out[key] = stmt
    return out


def all_statements() -> dict[str, tuple[str, str]]:
    """key -> (kind, SQL text with sample identifiers filled in)."""
    out = {name: ("sql", text) for name, text in osql.all_named_statements("T1_", tables=TABLES).items()}
    for key, stmt in setup_statements().items():
        text = stmt.render(**SAMPLE_IDENTIFIERS) if stmt.placeholders else stmt.text
        out[key] = (stmt.kind, text)
    return out


def parses(sql: str) -> bool:
    try:
        tree = sqlglot.parse_one(sql, read="oracle")
    except sqlglot.errors.ParseError:
        return False
    return tree is not None and not isinstance(tree, exp.Command)  # Command = "gave up, kept the text"


STATEMENTS = all_statements()


# ----------------------------------------------------------------------- parsing
def test_there_are_setup_sql_files_and_they_split_cleanly():
    files = sorted(p.relative_to(ROOT).as_posix() for p in SETUP.rglob("*.sql"))
    assert "setup/oracle/01_vector_memory.sql" in files
    assert "setup/oracle/02_users_and_grants.sql" in files
    assert "setup/oracle/03_onnx_model.sql" in files
    assert _INITDB in files
    for path in SETUP.rglob("*.sql"):
        sqlfile.named(path)  # duplicate names or an unterminated statement raise


def test_unparseable_list_is_exactly_what_sqlglot_cannot_parse():
    failing = {key for key, (kind, text) in STATEMENTS.items() if kind == "sqlplus" or not parses(text)}
    assert failing == set(UNPARSEABLE), (
        f"new failures (fix the SQL or list the construct with its Oracle doc page): "
        f"{sorted(failing - set(UNPARSEABLE))}; now parse, remove from UNPARSEABLE: "
        f"{sorted(set(UNPARSEABLE) - failing)}"
    )


def test_every_listed_construct_has_an_oracle_documentation_page():
    for key, constructs in UNPARSEABLE.items():
        for construct in constructs:
            what, doc, _ = CONSTRUCTS[construct]
            assert doc.startswith("https://docs.oracle.com/"), (key, construct)


@pytest.mark.parametrize("key", sorted(k for k, c in UNPARSEABLE.items()
                                       if all(CONSTRUCTS[x][2] for x in c)))
def test_rest_of_statement_parses_once_the_oracle_construct_is_rewritten(key):
    kind, text = STATEMENTS[key]
    for construct in UNPARSEABLE[key]:
        pattern, replacement = CONSTRUCTS[construct][2]  # type: ignore[misc]
        text, n = re.subn(pattern, replacement, text, flags=re.S)
        assert n, f"{key}: the {construct} construct is not in the statement any more"
    assert parses(text), f"{key} does not parse even without {UNPARSEABLE[key]}:\n{text}"


@pytest.mark.parametrize("key", sorted(k for k, (kind, _) in STATEMENTS.items() if kind == "plsql"))
def test_plsql_blocks_are_well_formed(key):
    _, text = STATEMENTS[key]
    assert re.match(r"^(DECLARE|BEGIN)\b", text), key
    assert text.rstrip().endswith("END;"), key
    no_literals = re.sub(r"'(?:[^']|'')*'", "''", text)
    assert no_literals.count("(") == no_literals.count(")"), key
    opened = len(re.findall(r"\b(?:BEGIN|CASE)\b", no_literals))
    assert opened == len(re.findall(r"\bEND\b", no_literals)), key


def test_sqlplus_commands_are_only_startup_shutdown_and_whenever():
    commands = {stmt.text for stmt in setup_statements().values() if stmt.kind == "sqlplus"}
    assert commands == {"WHENEVER SQLERROR CONTINUE", "SHUTDOWN IMMEDIATE", "STARTUP"}


def test_identifier_placeholders_are_validated():
    stmt = sqlfile.named(SETUP / "oracle" / "02_users_and_grants.sql")["app_user_text_role"]
    assert stmt.render(app_user="AGENT") == "GRANT CTXAPP TO AGENT"
    for bad in ("agent; DROP USER SYS", "AGENT--", '"AGENT"', "1AGENT", ""):
        with pytest.raises(ValueError):
            stmt.render(app_user=bad)
    with pytest.raises(ValueError, match="no value"):
        stmt.render()


def test_sqlfile_splitter_handles_literals_and_slash_terminators():
    text = (
        "-- name: a\nSELECT 'x;\ny' FROM dual;\n\n"
        "-- name: b\nBEGIN\n  NULL; -- not the end;\nEND;\n/\n"
        "-- name: c\nSELECT 1 FROM dual\n/\n"
        "SHUTDOWN IMMEDIATE\n"
    )
    stmts = sqlfile.parse(text)
    assert [(s.name, s.kind) for s in stmts] == [("a", "sql"), ("b", "plsql"), ("c", "sql"), (None, "sqlplus")]
    assert stmts[0].text == "SELECT 'x;\ny' FROM dual"
    assert stmts[1].text.endswith("END;")
    assert stmts[2].text == "SELECT 1 FROM dual"
    with pytest.raises(ValueError, match="not terminated"):
        sqlfile.parse("SELECT 1 FROM dual")


# ----------------------------------------------------------------------- mirror of the embedded module
def test_every_embedded_statement_exists_with_the_same_binds():
    for name in esql._NAMES:
        assert name in osql._NAMES, f"{name} is missing from workshop_lib/engines/oracle/sql.py"
        oracle = bind_names(getattr(osql, name))
        embedded = bind_names(getattr(esql, name))
        assert oracle == embedded, f"{name}: oracle binds {sorted(oracle)} != embedded {sorted(embedded)}"
    assert set(osql._NAMES) == set(esql._NAMES)


def _select_names(sql: str, dialect: str) -> list[str]:
    tree = sqlglot.parse_one(sql, read=dialect)
    return [e.alias_or_name.lower() for e in tree.selects]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", [n for n in esql._NAMES if getattr(esql, n).lstrip().upper().startswith(("SELECT", "WITH"))])
def test_result_columns_come_in_the_same_order(name):
    oracle = osql.statements("", osql.DIM).__dict__[name]
    for construct in UNPARSEABLE.get(name, ()):
        pattern, replacement = CONSTRUCTS[construct][2]  # type: ignore[misc]
        oracle = re.sub(pattern, replacement, oracle, flags=re.S)
    embedded = esql.statements("", 256).__dict__[name]
    assert _select_names(oracle, "oracle") == _select_names(embedded, "sqlite"), name


def test_schema_and_drop_have_the_same_shape():
    names = [n for n, _ in osql.SCHEMA]
    assert set(osql.DROP) == set(names)
    assert {"STORE_META", "THREADS", "RECORDS", "RECORD_CHUNKS"} <= set(names)
    ns = osql.statements("P_", osql.DIM)
    text = " ".join([s for _, ddl in ns.SCHEMA for s in ddl] + list(ns.DROP.values()))
    assert "{p}" not in text and "{dim}" not in text
    for name in osql._NAMES:
        assert "{p}" not in getattr(ns, name) and "{{p}}" not in getattr(ns, name)


def test_erasure_optimises_the_text_index_in_full_mode_and_reads_its_token_table():
    mem = osql.memory_statements("T1_")
    assert mem.PURGE_DELETED == ["BEGIN CTX_DDL.OPTIMIZE_INDEX('T1_RECORDS_TEXT_IX', 'FULL'); END;"]
    assert "FROM DR$T1_RECORDS_TEXT_IX$I WHERE token_text = UPPER(:tok)" in mem.TRACE_TEXT_TOKENS
    assert "T1_RECORDS_TEXT_IX" in " ".join(d for _, ddl in osql.statements("T1_", osql.DIM).SCHEMA for d in ddl)


def test_existing_objects_reads_user_objects():
    assert "user_objects" in osql.EXISTING_OBJECTS.lower()
    assert "'INDEX'" in osql.EXISTING_OBJECTS and "'TABLE'" in osql.EXISTING_OBJECTS


# ----------------------------------------------------------------------- documented Oracle features
def test_hybrid_rrf_is_one_statement_with_both_lists():
    sql = osql.HYBRID_RRF
    for needle in ("FULL OUTER JOIN", "999999", "VECTOR_DISTANCE", "CONTAINS(m.content, :kw, 1) > 0",
                   "SCORE(1)", "FETCH FIRST :k ROWS ONLY", "WHERE r_vec <= :n", "WHERE r_txt <= :n", "NVL(",
                   f"VECTOR_EMBEDDING({osql.MODEL_NAME} USING :q AS data)", "COSINE", ":rrf_k",
                   "ORDER BY rrf_score DESC"):
        assert needle in sql, needle
    assert sql.count(";") == 0
    assert sql.lstrip().startswith("WITH q_emb AS")
    # Issue 12 item 6: never ORDER BY a ROW_NUMBER alias of the same query block; and the
    # statement passes the same order lint the Part 3 check applies to learners' SQL.
    assert "ORDER BY r_vec" not in sql and "ORDER BY r_txt" not in sql
    from workshop_lib.checks.part3 import order_problems
    assert order_problems(sql) == []


def test_knowledge_filter_matches_the_embedded_rule():
    for name in ("KEYWORD_SEARCH", "HYBRID_RRF", "VECTOR_RANKED"):
        sql = getattr(osql, name)
        # This scope or the shared schema knowledge, in the same statement (core/scope.py).
        assert "((m.user_id = :u AND m.agent_id = :a) OR (m.user_id = :shared_u AND m.agent_id = :shared_a" in sql, name
        assert "m.record_id LIKE 'schema:%'" in sql and "AND m.record_type = 'memory'" in sql, name
        assert "JSON_VALUE(m.metadata, '$.kind')" in sql and "'tool_output'" in sql, name


def test_keyword_search_uses_contains_and_score():
    assert "CONTAINS(m.content, :kw, 1) > 0" in osql.KEYWORD_SEARCH
    assert "SCORE(1) AS score_txt" in osql.KEYWORD_SEARCH


def test_schema_uses_vector_columns_and_oracle_text_and_no_vector_index():
    ddl = " ".join(" ".join(d.split()) for _, stmts in osql.SCHEMA for d in stmts)
    assert "VECTOR({dim}, FLOAT32)" in ddl
    assert "VECTOR(384, FLOAT32)" in " ".join(" ".join(s.split()) for _, d in osql.statements("", 384).SCHEMA for s in d)
    # Exact search only (issue 36, risk 5): no statement asks for FETCH APPROX, so no HNSW
    # index is built, and one an earlier version built is dropped when the store is opened.
    assert "VECTOR INDEX" not in ddl and "NEIGHBOR GRAPH" not in ddl
    assert not any("APPROX" in text for text in osql.all_named_statements("T1_").values())
    assert osql.statements("T1_", osql.DIM).OBSOLETE == {
        "RECORD_CHUNKS_VEC_IX": "DROP INDEX IF EXISTS T1_RECORD_CHUNKS_VEC_IX"}
    assert "INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')" in ddl
    assert "CHECK (metadata IS JSON)" in ddl


def test_model_name_and_dimension():
    assert osql.MODEL_NAME == "ALL_MINILM_L12_V2" and osql.DIM == 384
    assert "VECTOR_DIMENSION_COUNT" in osql.MODEL_DIMENSIONS


def test_supplychain_ddl_covers_every_table_and_column():
    from workshop_lib.data.supplychain_data import TABLES

    for t in TABLES:
        ddl = osql.sc_create_table(t)
        for c in t.columns:
            assert re.search(rf"\b{c.name} {re.escape(c.oracle_type)}(?!\w)", ddl), (t.name, c.name)
        comments = osql.sc_comments(t)
        assert len(comments) == 1 + len(t.columns) + (1 if t.name == "PORTS" else 0)
    ports = next(t for t in TABLES if t.name == "PORTS")
    assert "LOCATION SDO_GEOMETRY" in osql.sc_create_table(ports)
    assert "SDO_GEOMETRY(2001, 4326, SDO_POINT_TYPE(longitude, latitude, NULL), NULL, NULL)" in osql.SC_SET_PORT_LOCATION
    with pytest.raises(ValueError):
        osql.sc_grant_select(ports, "agent; drop")


def test_vector_memory_sql_caps_the_size_and_uses_the_spfile():
    sqls = sqlfile.named(SETUP / "oracle" / "01_vector_memory.sql")
    block = sqls["set_in_spfile"].text
    assert "SCOPE = SPFILE" in block and "0.4" in block and ":wanted_mb" in block
    initdb = (ROOT / _INITDB).read_text()
    assert "SCOPE = SPFILE" in initdb and "LEAST(512" in initdb
    from workshop_lib.tools import oracle_bootstrap as bootstrap

    assert bootstrap.VECTOR_MEMORY_MB == 512


def test_grants_are_exactly_the_documented_ones():
    text = (SETUP / "oracle" / "02_users_and_grants.sql").read_text()
    for grant in ("CREATE MINING MODEL", "GRANT CTXAPP", "CTXSYS.CTX_DDL", "CREATE TABLE", "CREATE SEQUENCE",
                  "CREATE VIEW", "CREATE PROCEDURE", "QUOTA UNLIMITED"):
        assert grant in text, grant
    assert "GRANT DBA" not in text and "ANY " not in text.upper().replace("DBMS_", "")
    # run_sql's user: a session and nothing else (its SELECT grants come from SUPPLYCHAIN when seeding)
    reader = sqlfile.named(SETUP / "oracle" / "02_users_and_grants.sql")["reader_user_system_privileges"]
    assert reader.render(reader_user="SC_READER") == "GRANT CREATE SESSION TO SC_READER"
    assert "QUOTA" not in sqlfile.named(SETUP / "oracle" / "02_users_and_grants.sql")["create_user_without_quota"].text


# ----------------------------------------------------------------------- Codespaces, Docker, CI
def _jsonc(text: str) -> dict:
    return json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.M))


DEVCONTAINER = _jsonc((ROOT / ".devcontainer" / "devcontainer.json").read_text())
COMPOSE = yaml.safe_load((ROOT / ".devcontainer" / "docker-compose.yml").read_text())
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "oracle.yml").read_text())
POST_CREATE = (ROOT / ".devcontainer" / "post-create.sh").read_text()
IMAGE = "gvenzl/oracle-free:23-faststart"
BOOTSTRAP_COMMAND = "make setup-oracle"


def test_devcontainer():
    d = DEVCONTAINER
    assert d["dockerComposeFile"] == "docker-compose.yml" and d["service"] in COMPOSE["services"]
    assert d["hostRequirements"] == {"cpus": 4, "memory": "16gb"}
    ports = [str(p) for p in d["forwardPorts"]]
    assert "8888" in ports and any(p.endswith("1521") for p in ports)
    assert set(d["customizations"]["vscode"]["extensions"]) >= {"ms-toolsai.jupyter", "ms-python.python"}
    assert d["customizations"]["codespaces"]["openFiles"] == ["notebooks/part1/part1_setup_and_tour.ipynb"]
    assert "post-create.sh" in d["postCreateCommand"]


def test_devcontainer_environment_names_the_oracle_engine_and_passes_the_model_keys_through():
    env = DEVCONTAINER["containerEnv"]
    assert env["WORKSHOP_ENGINE"] == "oracle"
    assert env["ORACLE_DSN"].endswith(":1521/FREEPDB1")
    assert env["ORACLE_APP_USER"] == "AGENT"
    assert env["ORACLE_APP_PASSWORD"] == config.ORACLE_DEFAULTS["ORACLE_APP_PASSWORD"]
    assert "ORACLE_PASSWORD" not in env  # that name is the database image's SYS password
    assert env["ORACLE_ADMIN_PASSWORD"] == config.ORACLE_DEFAULTS["ORACLE_ADMIN_PASSWORD"]
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        assert env[key] == f"${{localEnv:{key}}}"


def test_compose_runs_the_full_oracle_image_with_health_and_volume():
    oracle = COMPOSE["services"]["oracle"]
    assert oracle["image"] == IMAGE and "slim" not in oracle["image"]
    assert oracle["environment"]["ORACLE_PASSWORD"] == config.ORACLE_DEFAULTS["ORACLE_ADMIN_PASSWORD"]
    assert "healthcheck.sh" in " ".join(oracle["healthcheck"]["test"])
    volumes = oracle["volumes"]
    named = [v.split(":")[0] for v in volumes if not v.startswith((".", "/"))]
    assert named and set(named) <= set(COMPOSE["volumes"])
    initdb = next(v for v in volumes if "container-entrypoint-initdb.d" in v)
    assert (ROOT / ".devcontainer" / initdb.split(":")[0]).resolve() == (ROOT / "setup/oracle/initdb").resolve()
    assert "1521:1521" in oracle["ports"]
    assert oracle["container_name"] == DEVCONTAINER["containerEnv"]["ORACLE_CONTAINER"]


def test_post_create_runs_the_bootstrap():
    assert BOOTSTRAP_COMMAND in POST_CREATE
    # make setup-oracle installs from the lock (Makefile) and then runs the bootstrap
    assert "--constraint $(LOCK)" in (ROOT / "Makefile").read_text()


def test_workflow_runs_the_same_bootstrap_then_the_oracle_tests():
    job = WORKFLOW["jobs"]["oracle"]
    service = job["services"]["oracle"]
    assert service["image"] == IMAGE
    assert "--health-cmd healthcheck.sh" in service["options"]
    runs = [s.get("run", "") for s in job["steps"]]
    python = next(s for s in job["steps"] if "setup-python" in s.get("uses", ""))
    assert str(python["with"]["python-version"]) == "3.11"
    assert any(r.strip() == BOOTSTRAP_COMMAND for r in runs)
    assert any(re.search(r"pytest -m oracle\b", r) for r in runs)
    assert runs.index(next(r for r in runs if r.strip() == BOOTSTRAP_COMMAND)) < \
        runs.index(next(r for r in runs if "pytest -m oracle" in r))
    assert job["env"]["ORACLE_DSN"] == "localhost:1521/FREEPDB1"
    # Issue 12 item 7: the bootstrap is told the service container's id, never greps `docker ps`.
    boot = next(s for s in job["steps"] if s.get("run", "").strip() == BOOTSTRAP_COMMAND)
    assert boot["env"]["ORACLE_CONTAINER"] == "${{ job.services.oracle.id }}"


def test_compose_workspace_can_reach_the_host_docker_engine():
    assert "/var/run/docker.sock:/var/run/docker-host.sock" in COMPOSE["services"]["workspace"]["volumes"]


def test_makefile_target_calls_the_bootstrap():
    makefile = (ROOT / "Makefile").read_text()
    m = re.search(r"^setup-oracle:.*\n((?:\t.*\n?)+)", makefile, re.M)
    if not m:
        pytest.skip("the Makefile has no setup-oracle target yet (see docs/oracle.md for the recipe)")
    assert "workshop oracle-bootstrap" in m.group(1)


# ----------------------------------------------------------------------- engine helpers (no database)
def test_bind_names_ignore_literals_and_comments():
    assert bind_names("SELECT ':x' FROM t WHERE a = :a -- :c\n AND b = :b_1") == {"a", "b_1"}
    assert bind_names(osql.CHUNK_INSERT_TEXT) == {"seq", "txt"}


def test_query_text_is_cut_only_where_the_model_alone_reads_it():
    from workshop_lib.engines.oracle.connection import embedding_only_binds

    for name in ("SEARCH_BY_TEXT", "HYBRID_RRF", "VECTOR_RANKED"):
        assert embedding_only_binds(getattr(osql, name)) == {"q"}, name
    assert embedding_only_binds(osql.EMBED) == {"q"}
    assert embedding_only_binds(osql.CHUNK_INSERT_TEXT) == set()      # :txt is also stored
    assert embedding_only_binds("INSERT INTO t (q) VALUES (:q)") == set()
    conn = _FakeConn()
    eng = _engine(conn=conn)
    eng.query(osql.EMBED, {"q": "y" * 5000})
    assert conn.executed[-1][1] == {"q": "y" * osql.EMBED_INPUT_CHARS}


class _FakeVar:
    def __init__(self, value=None):
        self.value = value

    def getvalue(self):
        return self.value


class _FakeRaw:
    def __init__(self, conn):
        self.conn, self.description, self.rowcount = conn, None, 0
        self.rows: list = []

    def execute(self, statement, params=None, **kwargs):
        assert kwargs == {"fetch_lobs": False}, "every execute asks for LOBs as str / bytes"
        self.conn.executed.append((statement, params))
        self.rows = list(self.conn.results.pop(0)) if self.conn.results else []
        self.description = [("c",)] if self.rows else None

    def prepare(self, statement):
        self.prepared = statement

    def bindnames(self):
        return sorted(n.upper() for n in bind_names(self.prepared))  # as the driver's parser names them

    def var(self, *_args, **_kwargs):
        return _FakeVar()

    def fetchone(self):
        return self.rows.pop(0) if self.rows else None

    def fetchall(self):
        rows, self.rows = self.rows, []
        return rows

    def close(self):
        pass


class _FakeConn:
    def __init__(self, results=None):
        self.executed: list = []
        self.results = list(results or [])
        self.commits = self.rollbacks = 0
        self.lobs: list = []

    def cursor(self):
        return _FakeRaw(self)

    def is_healthy(self):
        return True

    def commit(self):
        self.commits += 1

    def rollback(self):
        self.rollbacks += 1

    def createlob(self, kind, value):
        self.lobs.append(value)
        return ("LOB", len(value))


def _engine(results=None, conn=None):
    """An OracleEngine built by its own constructor, on a fake connection (`conn`, or a new one)."""
    from unittest import mock

    from workshop_lib.engines.oracle import engine as oengine

    fake = conn if conn is not None else _FakeConn(results)
    with mock.patch.object(oengine, "connect_oracle", lambda *_args, **_kwargs: fake):
        return oengine.OracleEngine(dsn="h:1/S", user="AGENT", password="x", timeout=1, progress=False)


def test_engine_cursor_binds_only_the_names_a_statement_uses():
    from workshop_lib.engines.oracle.connection import EMPTY_TEXT

    conn = _FakeConn()
    eng = _engine(conn=conn)
    params = {"seq": 7, "content": "", "meta": "{}", "unused": 1}
    with eng.transaction() as cur:
        cur.execute(osql.RECORD_SET_CONTENT.replace("{p}", ""), params)
    statement, binds = conn.executed[-1]
    assert binds == {"seq": 7, "content": EMPTY_TEXT}
    assert conn.commits == 1
    assert eng.backend.read_text(EMPTY_TEXT) == "" and eng.backend.read_text(None) is None and eng.backend.read_text("a") == "a"


def test_engine_rolls_back_on_error():
    conn = _FakeConn()
    eng = _engine(conn=conn)
    with pytest.raises(RuntimeError), eng.transaction() as cur:
        cur.execute("DELETE FROM t WHERE seq = :seq", {"seq": 1})
        raise RuntimeError("boom")
    assert conn.rollbacks == 1 and conn.commits == 0


def test_engine_bind_values():
    eng = _engine()
    assert eng.bind_value("q", "x" * 5000, embed_only=True) == "x" * osql.EMBED_INPUT_CHARS
    assert eng.bind_value("q", "x" * 3000) == "x" * 3000           # only texts the model alone reads are cut
    assert eng.bind_value("txt", "é" * 2500) == ("LOB", 2500)   # > 4000 bytes: bound as a CLOB
    assert eng.bind_value("txt", "a" * 4000) == "a" * 4000
    assert eng.bind_value("u_free", True) == 1
    assert eng.bind_value("content", "") == ""                       # only the store's RECORDS writes
    assert eng.bind_value("content", "", store_content=True) != ""


def test_engine_vector_param_is_float32_array():
    vec = _engine().backend.vector_param([1, 2.5])
    assert vec.typecode == "f" and list(vec) == [1.0, 2.5]


def test_engine_data_dictionary_has_the_embedded_shape():
    eng = _engine([
        [("VESSELS", "Ships.")],
        [("VESSELS", "IMO_NUMBER", "NUMBER", 22, 7, 0, "N", "IMO."),
         ("VESSELS", "CARRIER_ID", "NUMBER", 22, 6, 0, "N", None),
         ("VESSELS", "LENGTH_M", "NUMBER", 22, 5, 1, "Y", "Metres."),
         ("OTHER", "X", "VARCHAR2", 10, None, None, "Y", None)],
        [("VESSELS", "VESSELS_CARRIER_ID_FK", "CARRIER_ID", "CARRIERS", "CARRIER_ID")],
    ])
    cat = eng.supplychain.data_dictionary("supplychain")
    assert cat["tables"] == [{"owner": "SUPPLYCHAIN", "table": "VESSELS", "comment": "Ships."}]
    assert cat["columns"][0] == {"owner": "SUPPLYCHAIN", "table": "VESSELS", "column": "IMO_NUMBER",
                                 "data_type": "NUMBER", "type_detail": "NUMBER(7)", "nullable": False,
                                 "comment": "IMO."}
    assert cat["columns"][2]["type_detail"] == "NUMBER(5,1)" and cat["columns"][2]["nullable"] is True
    assert len(cat["columns"]) == 3
    assert cat["foreign_keys"] == [{"owner": "SUPPLYCHAIN", "table": "VESSELS", "columns": ["CARRIER_ID"],
                                    "ref_table": "CARRIERS", "ref_columns": ["CARRIER_ID"]}]


def test_engine_data_dictionary_of_an_unseeded_schema_says_what_to_do():
    with pytest.raises(RuntimeError, match="setup-oracle"):
        _engine([[]]).supplychain.data_dictionary("SUPPLYCHAIN")


def test_declared_types_round_trip_for_every_dataset_column():
    from workshop_lib.data.supplychain_data import TABLES
    from workshop_lib.engines.oracle.connection import declared_type, parse_declared

    for t in TABLES:
        for c in t.columns:
            assert declared_type(*parse_declared(c.oracle_type)) == (
                "TIMESTAMP(6)" if c.oracle_type == "TIMESTAMP" else c.oracle_type)


def test_parse_size():
    from workshop_lib.engines.oracle.connection import parse_size

    assert parse_size("512M") == 512 << 20 and parse_size("536870912") == 512 << 20
    assert parse_size("1G") == 1 << 30 and parse_size(None) == 0 and parse_size("0") == 0


def test_rerank_is_a_pass_through_without_a_reranker(monkeypatch):
    monkeypatch.delenv("ORACLE_RERANK_MODEL", raising=False)
    monkeypatch.delenv("ORACLE_RERANK_PARAMS", raising=False)
    conn = _FakeConn()
    eng = _engine(conn=conn)
    cands = [{"body": str(i)} for i in range(10)]
    assert eng.model.rerank("q", cands, top_k=3, content_key="body") == cands[:3]
    assert eng.model.reranker() is None and conn.executed == []


def test_rerank_with_dbms_vector_rerank_reorders(monkeypatch):
    monkeypatch.delenv("ORACLE_RERANK_MODEL", raising=False)
    monkeypatch.setenv("ORACLE_RERANK_PARAMS", '{"provider": "cohere", "credential_name": "C", '
                                              '"url": "https://example.invalid", "model": "m"}')
    result = json.dumps([{"index": "2", "score": "0.9"}, {"index": "0", "score": "0.5"},
                         {"index": "1", "score": "0.1"}])
    conn = _FakeConn([[(result,)]])
    eng = _engine(conn=conn)
    out = eng.model.rerank("q", [{"body": "a"}, {"body": "b"}, {"body": "c"}], top_k=2, content_key="body")
    assert [c["body"] for c in out] == ["c", "a"]
    statement, binds = conn.executed[-1]
    assert "DBMS_VECTOR.RERANK" in statement and json.loads(binds["docs"]) == {"documents": ["a", "b", "c"]}


def test_drop_objects_ignores_missing_objects():
    from workshop_lib.engines.oracle.errors import OracleWorkshopError

    conn = _FakeConn()
    eng = _engine(conn=conn)

    def failing(statement, params=None, **_kwargs):
        raise OracleWorkshopError("query", "ORA-00942: table or view does not exist")

    conn.cursor = lambda: type("C", (_FakeRaw,), {"execute": staticmethod(failing)})(conn)
    ns = osql.statements("T_", osql.DIM)
    eng.backend.drop_objects(ns.DROP, [n for n, _ in ns.SCHEMA])  # no exception


def test_count_tokens_is_a_reasonable_approximation():
    eng = _engine()
    assert eng.model.count_tokens("") == 0
    assert eng.model.count_tokens("Cargo capacity in TEU.") == 5
    assert 8 <= eng.model.count_tokens("ORA-00904: invalid identifier SUPPLYCHAIN.VESSELS") <= 16


def test_errors_name_the_step_the_code_and_the_fix():
    from workshop_lib.engines.oracle.errors import OracleWorkshopError, explain

    for code, fragment in (("ORA-29855", "DRG- line"), ("ORA-51962", "VECTOR_MEMORY_SIZE"),
                           ("ORA-01031", "grant"), ("ORA-12541", "docker compose"),
                           ("DPY-6005", "container"), ("ORA-40284", "setup-oracle")):
        found, _, fix = explain(f"{code}: something")
        assert found == code and fragment.lower() in fix.lower(), code
    err = OracleWorkshopError("store", "ORA-29855: error occurred in the execution of ODCIINDEXCREATE routine")
    assert "[store]" in str(err) and "ORA-29855" in str(err) and "-slim" in str(err)
    assert "needs" not in str(err) or "lacks the CTXAPP" not in str(err)  # ORA-29855 on a -slim image is not blamed on a missing CTXAPP grant


def test_the_cursor_binds_what_the_drivers_parser_names():
    """OracleCursor asks python-oracledb which binds a statement has (prepare + bindnames,
    parsed client-side) and passes only those; extra keys of a shared parameter dict are dropped."""
    from workshop_lib.engines.oracle.connection import OracleCursor

    class Raw:
        def __init__(self):
            self.calls = []

        def prepare(self, statement):
            self.calls.append(("prepare", statement))

        def bindnames(self):
            return ["Q", "TID_FREE"]

        def execute(self, statement, binds, **kwargs):
            self.calls.append(("execute", statement, binds))

    class Engine:
        def bind_value(self, name, value, *, embed_only=False, store_content=False):
            return value

    raw = Raw()
    OracleCursor(Engine(), raw).execute("SELECT 1 FROM dual WHERE :q = :tid_free", {"q": "x", "tid_free": 1, "u": "extra"})
    assert raw.calls == [("prepare", "SELECT 1 FROM dual WHERE :q = :tid_free"),
                         ("execute", "SELECT 1 FROM dual WHERE :q = :tid_free", {"q": "x", "tid_free": 1})]


def test_lobs_are_fetched_as_strings_per_execute_not_process_wide():
    """python-oracledb's defaults.fetch_lobs would change every other user of the driver in the
    process; the engine passes fetch_lobs=False to each execute instead (_FakeRaw checks it)."""
    import oracledb

    before = oracledb.defaults.fetch_lobs
    import workshop_lib.engines.oracle.engine  # noqa: F401

    assert oracledb.defaults.fetch_lobs is before is True
    eng = _engine([[("text",)]])
    assert eng.query("SELECT body FROM DOCS") == [("text",)]


# ----------------------------------------------------------------------- memory over time (MEMORY block)
def _memory_statements(module) -> dict[str, str]:
    return {k: v for k, v in vars(module.memory_statements("")).items() if isinstance(v, str)}


def test_memory_block_mirrors_the_embedded_one():
    oracle, embedded = _memory_statements(osql), _memory_statements(esql)
    assert set(oracle) == set(embedded)
    for name in oracle:
        assert bind_names(oracle[name]) == bind_names(embedded[name]), name
        if oracle[name].lstrip().upper().startswith(("SELECT", "WITH")):
            assert _select_names(oracle[name], "oracle") == _select_names(embedded[name], "sqlite"), name
    assert [n for n, _ in osql.MEMORY.MIGRATIONS] == [n for n, _ in esql.MEMORY.MIGRATIONS] == list(osql.MEMORY.DROP)
    for name, _ in osql.MEMORY.MIGRATIONS:
        assert f"MEMORY.MIGRATIONS.{name}[0]" in STATEMENTS  # parsed by the test above


@pytest.mark.parametrize("name", ["RECORD_LIST", "SEARCH_BY_TEXT", "SEARCH_BY_VECTOR", "SEARCH_SCOPED_KNN",
                                  "KEYWORD_SEARCH", "HYBRID_RRF", "VECTOR_RANKED"])
def test_every_read_statement_leaves_out_memories_that_are_not_valid(name):
    for module in (osql, esql):
        sql = module.statements("", module.DIM if module is osql else 256).__dict__[name]
        assert "MEMORY_STATUS ms WHERE ms.record_seq" in sql and "ms.status <> 'valid'" in sql, (module.__name__, name)
        assert "ms.expires_at <=" in sql, (module.__name__, name)
    both_legs = osql.statements("", osql.DIM).HYBRID_RRF
    assert both_legs.count("MEMORY_STATUS") == 2  # the vector and the full-text list


def test_memory_block_cites_the_oracle_documentation_of_its_constructs():
    source = Path(osql.__file__).read_text()
    block = source[source.index("# ---------------------------------------------------------------- memory over time"):]
    for page in ("sqlrf/CREATE-TABLE.html", "sqlrf/IS-JSON-condition.html", "sqlrf/TO_TIMESTAMP.html",
                 "sqlrf/SYS_EXTRACT_UTC.html", "sqlrf/Format-Models.html", "ccref/CTX_DDL-package.html"):
        assert f"https://docs.oracle.com/en/database/oracle/oracle-database/23/{page}" in block, page
    ddl = " ".join(s for _, stmts in osql.MEMORY.MIGRATIONS for s in stmts)
    for construct in ("ON DELETE CASCADE", "GENERATED ALWAYS AS IDENTITY", "IS JSON", "SYS_EXTRACT_UTC(SYSTIMESTAMP)"):
        assert construct in ddl, construct


def test_the_oracle_engine_traces_what_it_sends():
    from workshop_lib.engines.database import Sent

    conn = _FakeConn()
    eng = _engine(conn=conn)
    with eng.trace() as sent:
        eng.query("SELECT :a FROM dual", {"a": 1})
        with eng.transaction() as cur:
            cur.execute("DELETE FROM t WHERE seq = :seq", {"seq": 1})
    assert sent == [Sent("SELECT :a FROM dual", ("a",), "query"),
                    Sent("DELETE FROM t WHERE seq = :seq", ("seq",), "transaction")]
    assert not hasattr(eng, "conn")
