-- The workshop's three database users and exactly the privileges they need.
-- Run by workshop_lib/tools/oracle_bootstrap.py as the administrator (SYSTEM, or ADMIN on
-- Autonomous Database) in the pluggable database. {app_user} (AGENT, from ORACLE_APP_USER),
-- {data_user} (SUPPLYCHAIN) and {reader_user} (SC_READER, from ORACLE_READER_USER) are
-- identifiers the bootstrap validates before filling them in; values are bind variables.
--
--   AGENT        owns the memory store and the embedding model; reads SUPPLYCHAIN.
--   SUPPLYCHAIN  owns the demo schema; grants SELECT on its tables to AGENT and SC_READER
--                when seeding.
--   SC_READER    the agent's run_sql runs as this user: CREATE SESSION and SELECT on the
--                SUPPLYCHAIN tables, nothing else (no quota, no CREATE privilege, no role), so
--                it cannot read AGENT's memories or create a function (SQL Language Reference,
--                CREATE USER and GRANT; Database Security Guide, "Least privilege").

-- name: user_exists
SELECT COUNT(*) FROM all_users WHERE username = :username;

-- name: default_tablespace
SELECT property_value FROM database_properties WHERE property_name = 'DEFAULT_PERMANENT_TABLESPACE';

-- name: create_user
-- The password is a bind value; the bootstrap rejects passwords containing a double quote.
DECLARE
  v_user VARCHAR2(128) := DBMS_ASSERT.SIMPLE_SQL_NAME(:username);
  v_ts   VARCHAR2(128);
BEGIN
  SELECT property_value INTO v_ts
    FROM database_properties WHERE property_name = 'DEFAULT_PERMANENT_TABLESPACE';
  EXECUTE IMMEDIATE 'CREATE USER ' || v_user || ' IDENTIFIED BY "' || :password || '"'
                 || ' DEFAULT TABLESPACE ' || DBMS_ASSERT.SIMPLE_SQL_NAME(v_ts)
                 || ' QUOTA UNLIMITED ON ' || DBMS_ASSERT.SIMPLE_SQL_NAME(v_ts);
END;
/

-- name: create_user_without_quota
-- For the reader: it creates nothing, so it gets no tablespace quota at all.
DECLARE
  v_user VARCHAR2(128) := DBMS_ASSERT.SIMPLE_SQL_NAME(:username);
BEGIN
  EXECUTE IMMEDIATE 'CREATE USER ' || v_user || ' IDENTIFIED BY "' || :password || '"';
END;
/

-- name: quota
ALTER USER {username} QUOTA UNLIMITED ON {tablespace};

-- name: granted
-- What a user already has, so the bootstrap can say what it granted and what it skipped.
SELECT privilege FROM dba_sys_privs WHERE grantee = :username
UNION
SELECT granted_role FROM dba_role_privs WHERE grantee = :username;

-- name: app_user_system_privileges
-- Tables, the store's identity sequence, views and procedures, plus the ONNX model
-- (LOAD_ONNX_MODEL creates a mining model in the user's schema).
GRANT CREATE SESSION, CREATE TABLE, CREATE SEQUENCE, CREATE VIEW, CREATE PROCEDURE, CREATE MINING MODEL
   TO {app_user};

-- name: app_user_text_role
-- Oracle Text application developer role (preferences and CTX_ packages); without it
-- creating the CONTEXT index can fail with ORA-29855.
GRANT CTXAPP TO {app_user};

-- name: app_user_ctx_ddl
-- Oracle recommends granting the package explicitly: roles are not active in stored PL/SQL.
GRANT EXECUTE ON CTXSYS.CTX_DDL TO {app_user};

-- name: app_user_dbms_vector
-- Optional: most databases already let every user run DBMS_VECTOR.
GRANT EXECUTE ON SYS.DBMS_VECTOR TO {app_user};

-- name: app_user_read_parameters
-- Optional, read-only: lets `workshop doctor` show VECTOR_MEMORY_SIZE.
GRANT SELECT ON SYS.V_$PARAMETER TO {app_user};

-- name: data_user_system_privileges
-- CREATE SEQUENCE: a spatial index (PORTS.LOCATION) creates its own table and sequence.
GRANT CREATE SESSION, CREATE TABLE, CREATE SEQUENCE TO {data_user};

-- name: reader_user_system_privileges
-- Only a session; its SELECT grants on the SUPPLYCHAIN tables come from SUPPLYCHAIN when
-- seeding (an object privilege is granted by the object's owner).
GRANT CREATE SESSION TO {reader_user};
