"""The Oracle bootstrap's waiting logic, with fakes at the driver interface (no database).

Sequences replayed here are what a gvenzl/oracle-free container says on its first start:
the listener up before the service is registered, shutdown-time
errors while the init script restarts the database for vector memory, and ORA-01017
until the entrypoint has set the passwords.
"""
from __future__ import annotations

import oracledb
import pytest

from workshop_lib.engines.oracle import connection as oengine
from workshop_lib.engines.oracle.errors import OracleWorkshopError
from workshop_lib.tools import oracle_bootstrap as bootstrap


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.mark.parametrize("code", ["ORA-01089", "ORA-01090", "ORA-01094", "ORA-12516", "ORA-12518", "ORA-12519",
                                  "ORA-12520", "ORA-12521", "ORA-12514", "ORA-01033", "ORA-01109"])
def test_shutdown_and_listener_errors_are_transient(code):
    assert code in oengine.RETRYABLE


def test_connect_retries_a_restart_sequence_until_it_answers(monkeypatch):
    """connect_oracle keeps trying through the errors of a database restarting."""
    sequence = ["ORA-12514: listener does not currently know of service", "ORA-01089: immediate shutdown or close in progress",
                "ORA-01090: shutdown in progress", "ORA-12521: instance not known", "ORA-01033: ORACLE initialization in progress"]
    calls = []

    def fake(kwargs, remaining):
        calls.append(remaining)
        if sequence:
            raise oracledb.DatabaseError(sequence.pop(0))
        return "connection"

    monkeypatch.setattr(oengine, "_connect_within", fake)
    monkeypatch.setattr(oengine.time, "sleep", lambda s: None)
    assert oengine.connect_oracle("SYSTEM", "pw", "localhost:1521/FREEPDB1", timeout=60, progress=False) == "connection"
    assert len(calls) == 6


def _rejected() -> OracleWorkshopError:
    return OracleWorkshopError("connect", "ORA-01017: invalid credential or not authorized; logon denied")


def test_password_grace_starts_at_the_first_rejection():
    """A database that took 5 minutes to start, then rejects the password for 60 s: accepted."""
    clock = Clock()
    clock.now = 300.0  # time already spent reaching the listener does not eat the grace window
    answers = [_rejected()] * 6 + ["conn"]

    def connect(remaining):
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert bootstrap.wait_for_database(connect, 900, sleep=clock.sleep, clock=clock) == "conn"


def test_a_wrong_password_fails_after_the_grace_window():
    clock = Clock()

    def connect(remaining):
        raise _rejected()

    with pytest.raises(OracleWorkshopError) as err:
        bootstrap.wait_for_database(connect, 900, sleep=clock.sleep, clock=clock)
    assert err.value.code == "ORA-01017"
    assert bootstrap.PASSWORD_GRACE_S <= clock.now <= bootstrap.PASSWORD_GRACE_S + 10


def test_other_errors_are_not_retried_by_the_password_loop():
    def connect(remaining):
        raise OracleWorkshopError("connect", "ORA-28000: the account is locked")

    with pytest.raises(OracleWorkshopError, match="ORA-28000"):
        bootstrap.wait_for_database(connect, 900, sleep=lambda s: None, clock=Clock())


def test_waits_for_docker_health_before_connecting():
    clock = Clock()
    states = ["starting", "starting", "starting", "healthy"]
    seen = []

    def inspect(name):
        seen.append(name)
        return states.pop(0)

    assert bootstrap.wait_healthy("workshop-oracle", 600, inspect=inspect, sleep=clock.sleep, clock=clock) is True
    assert seen == ["workshop-oracle"] * 4 and clock.now == 15


def test_no_health_check_means_no_wait_and_unhealthy_times_out():
    assert bootstrap.wait_healthy("c", 600, inspect=lambda name: "", sleep=lambda s: None, clock=Clock()) is False
    clock = Clock()
    with pytest.raises(OracleWorkshopError, match="still 'unhealthy'"):
        bootstrap.wait_healthy("c", 60, inspect=lambda name: "unhealthy", sleep=clock.sleep, clock=clock)


def test_the_working_model_link_comes_first_and_sizes_are_checked(tmp_path):
    """Issue 12 item 2: the OML-Resources link answers "PAR does not exist"; OML-ai-models works."""
    assert "/b/OML-ai-models/" in bootstrap.MODEL_URLS[0] and "/b/OML-Resources/" in bootstrap.MODEL_URLS[1]
    good = tmp_path / "model.zip"
    good.write_bytes(b"x" * 10)
    with pytest.raises(OracleWorkshopError, match="is 10 bytes, expected 122,537,890"):
        bootstrap.check_size(good, bootstrap.MODEL_ZIP_BYTES, "the downloaded zip")
    assert not good.exists()  # a wrong download is not kept to be "used" next time
    ok = tmp_path / "ok.bin"
    ok.write_bytes(b"y" * 7)
    bootstrap.check_size(ok, 7, "a file")


def test_download_falls_back_to_the_second_link(tmp_path, monkeypatch):
    tried = []

    def fake_download(url, dest):
        tried.append(url)
        if len(tried) == 1:
            raise OSError("HTTP Error 404: PAR does not exist")
        raise OSError("offline")

    monkeypatch.setattr(bootstrap, "download", fake_download)
    monkeypatch.setattr(bootstrap.config, "data_dir", lambda: tmp_path)
    monkeypatch.delenv("ORACLE_ONNX_MODEL_FILE", raising=False)
    with pytest.raises(OracleWorkshopError, match="PAR does not exist"):
        bootstrap.model_file()
    assert tried == list(bootstrap.MODEL_URLS)


class _Cursor:
    def __init__(self, value=None, error=None):
        self.value, self.error, self.sql = value, error, None

    def execute(self, sql, binds=None):
        if self.error:
            raise self.error
        self.sql = sql
        return self

    def fetchone(self):
        return (self.value,)


def test_autonomous_database_is_detected_and_vector_memory_left_to_the_service():
    """Issue 12 item 5: on ADB, VECTOR_MEMORY_SIZE reads 0 and ALTER SYSTEM is refused; say so instead."""
    sqls = bootstrap.statements("01_vector_memory.sql")
    cur = _Cursor("OLTP")
    assert bootstrap.autonomous_service(cur, sqls) == "OLTP" and "CLOUD_SERVICE" in cur.sql  # type: ignore[operator]
    assert bootstrap.autonomous_service(_Cursor(None), sqls) is None
    assert bootstrap.autonomous_service(_Cursor(error=oracledb.DatabaseError("ORA-02003: invalid USERENV parameter")),
                                        sqls) is None


def test_vector_memory_step_skips_on_autonomous_database(monkeypatch, capsys):
    class Conn:
        def cursor(self):
            return _Cursor("DWCS")

        def close(self):
            pass

    monkeypatch.setattr(bootstrap, "admin", lambda settings, dsn=None, timeout=60: Conn())
    settings = bootstrap.Settings(dsn="adb_high", root_dsn=None, admin_user="ADMIN", admin_password="x",
                                  app_user="AGENT", app_password="y", data_password="y", reader_user="SC_READER",
                                  reader_password="z", container="c",
                                  wait_timeout=10)
    bootstrap.step_vector_memory(settings)
    assert "Autonomous Database (DWCS)" in capsys.readouterr().out


def test_workshop_user_settings_have_their_own_names_and_old_names_still_work(monkeypatch):
    """Issue 13: ORACLE_PASSWORD is the database image's SYS password; the workshop's AGENT user is
    ORACLE_APP_USER / ORACLE_APP_PASSWORD, with the older names read when the new ones are unset."""
    from workshop_lib import config

    for name in ("ORACLE_APP_USER", "ORACLE_APP_PASSWORD", "ORACLE_USER", "ORACLE_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    assert config.oracle_setting("ORACLE_APP_USER") == "AGENT"
    monkeypatch.setenv("ORACLE_PASSWORD", "old-style")
    assert config.oracle_setting("ORACLE_APP_PASSWORD") == "old-style"
    monkeypatch.setenv("ORACLE_APP_PASSWORD", "new-style")
    assert config.oracle_setting("ORACLE_APP_PASSWORD") == "new-style"


def test_users_step_creates_the_reader_with_a_session_only(monkeypatch, capsys):
    """Issue 27 item 1: run_sql's user gets CREATE SESSION and nothing else: no quota, no CREATE
    privilege, no role (its SELECT grants on the SUPPLYCHAIN tables come from SUPPLYCHAIN)."""
    executed: list[tuple[str, dict]] = []

    class Cur:
        def execute(self, sql, binds=None):
            executed.append((sql, dict(binds or {})))
            self.sql = sql
            return self

        def fetchone(self):
            return ("USERS",) if "property_value" in self.sql else (0,)

        def fetchall(self):
            return []

    class Conn:
        def cursor(self):
            return Cur()

        def close(self):
            pass

    monkeypatch.setattr(bootstrap, "admin", lambda settings, dsn=None, timeout=60: Conn())
    settings = bootstrap.Settings(dsn="h/S", root_dsn=None, admin_user="SYSTEM", admin_password="x",
                                  app_user="AGENT", app_password="Welcome_12345", data_password="Welcome_12345",
                                  reader_user="SC_READER", reader_password="Welcome_12345", container="c",
                                  wait_timeout=10)
    bootstrap.step_users(settings)
    reader = [(sql, binds) for sql, binds in executed if "SC_READER" in sql or binds.get("username") == "SC_READER"]
    created = [sql for sql, binds in reader if "CREATE USER" in sql]
    assert len(created) == 1 and "QUOTA" not in created[0]
    grants = [sql for sql, _ in reader if sql.startswith("GRANT")]
    assert grants == ["GRANT CREATE SESSION TO SC_READER"]
    assert not any(sql.startswith("ALTER USER SC_READER") for sql, _ in reader)  # no quota
    assert "created SC_READER" in capsys.readouterr().out
