-- Vector memory for the HNSW index of the memory store.
--
-- HNSW vector indexes live in the Vector Pool, an SGA area sized by VECTOR_MEMORY_SIZE
-- (Oracle AI Vector Search User's Guide, "Size the Vector Pool"). Its default is 0, and
-- a pool of size 0 cannot be grown while the instance runs (ORA-51950): the value goes
-- into the SPFILE and the database restarts once. setup/bootstrap.py runs these
-- statements as the administrator (SYSTEM), in the CDB root unless noted, and restarts
-- the workshop container when needed (or tells you the command).

-- name: container_name
SELECT SYS_CONTEXT('USERENV', 'CON_NAME') AS con_name FROM dual;

-- name: cloud_service
-- Non-NULL on Autonomous Database (e.g. OLTP, DWCS, JSON), NULL elsewhere. There the service
-- manages the Vector Pool itself and SGA parameters cannot be set ("Vector Memory Pool
-- Automatic Management", Oracle Database New Features):
-- https://docs.oracle.com/en/database/oracle/oracle-database/26/nfcoa/vector-memory-management.html
SELECT SYS_CONTEXT('USERENV', 'CLOUD_SERVICE') AS cloud_service FROM dual;

-- name: current_size
SELECT value FROM v$parameter WHERE name = 'vector_memory_size';

-- name: spfile_size
SELECT MAX(value) AS value FROM v$spparameter WHERE name = 'vector_memory_size';

-- name: set_in_spfile
-- :wanted_mb is capped at 40% of SGA_TARGET: at more than 70% of the SGA the instance
-- would refuse to start (ORA-51954). :set_mb returns the value written.
DECLARE
  v_sga_mb NUMBER;
  v_mb     NUMBER;
BEGIN
  SELECT TRUNC(TO_NUMBER(value) / 1048576) INTO v_sga_mb FROM v$parameter WHERE name = 'sga_target';
  v_mb := CASE WHEN v_sga_mb > 0 THEN LEAST(:wanted_mb, TRUNC(v_sga_mb * 0.4)) ELSE :wanted_mb END;
  EXECUTE IMMEDIATE 'ALTER SYSTEM SET vector_memory_size = ' || TO_CHAR(v_mb) || 'M SCOPE = SPFILE';
  :set_mb := v_mb;
END;
/

-- name: set_pdb_limit
-- Run in the pluggable database (FREEPDB1): there the parameter is the most vector
-- memory that PDB may use, and it can be changed while the database runs.
BEGIN
  EXECUTE IMMEDIATE 'ALTER SYSTEM SET vector_memory_size = ' || TO_CHAR(TRUNC(:mb)) || 'M SCOPE = BOTH';
END;
/
