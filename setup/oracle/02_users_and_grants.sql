-- The workshop's two database users and exactly the privileges they need.
-- Run by setup/bootstrap.py as the administrator (SYSTEM) in the pluggable database.
-- {app_user} (AGENT, from ORACLE_USER) and {data_user} (SUPPLYCHAIN) are identifiers
-- the bootstrap validates before filling them in; values are bind variables.
--
--   AGENT        owns the memory store and the embedding model; reads SUPPLYCHAIN.
--   SUPPLYCHAIN  owns the demo schema; grants SELECT on its tables to AGENT when seeding.

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
