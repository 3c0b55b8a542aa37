-- Runs once, when the workshop's Oracle container creates its database on first start
-- (.devcontainer/docker-compose.yml mounts this folder at /container-entrypoint-initdb.d;
-- gvenzl/oracle-free runs *.sql files there in SQL*Plus as SYS in the CDB root).
--
-- It writes VECTOR_MEMORY_SIZE (512 MB, at most 40% of SGA_TARGET) into the SPFILE and
-- restarts the instance, so the HNSW index can be created without a later restart.
-- setup/bootstrap.py checks the result and does the same itself when this did not run.

WHENEVER SQLERROR CONTINUE

DECLARE
  v_sga_mb NUMBER;
  v_mb     NUMBER;
BEGIN
  SELECT TRUNC(TO_NUMBER(value) / 1048576) INTO v_sga_mb FROM v$parameter WHERE name = 'sga_target';
  v_mb := CASE WHEN v_sga_mb > 0 THEN LEAST(512, TRUNC(v_sga_mb * 0.4)) ELSE 512 END;
  EXECUTE IMMEDIATE 'ALTER SYSTEM SET vector_memory_size = ' || TO_CHAR(v_mb) || 'M SCOPE = SPFILE';
END;
/

SHUTDOWN IMMEDIATE
STARTUP
