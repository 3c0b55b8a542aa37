"""The OS sandbox each graded notebook runs in: bubblewrap (`bwrap`, a Debian package).

Every notebook's grading (nbgrader, its kernel and everything the kernel starts) runs in
its own bwrap sandbox, which sees only:

- its scratch folder, read-write, at /job (its course copy, database, HOME and TMPDIR);
- the workshop code snapshot read-only at /workshop (the `workshop_lib` package, which
  holds the checks; not `solutions/`, not the checkout);
- the Python installation and the venv read-only, and /usr read-only;
- a private /tmp, its own /proc (a pid namespace: no other process is visible), a
  minimal /dev, no network (a network namespace with only a down loopback), and no
  capabilities.

Nothing else exists inside: not the other notebooks' folders, not the submissions, not
the grades, not the instructor's home or checkout. `--die-with-parent` kills the whole
sandbox (its pid namespace) when the grader dies, even by `kill -9`.

`problem()` says why the sandbox cannot run here (no bwrap, as on macOS, or a kernel
without unprivileged user namespaces); `workshop grade` then refuses to grade unless the
instructor says the submissions are trusted.
"""
from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from pathlib import Path

JOB = "/job"            # the notebook's scratch folder, inside the sandbox
WORKSHOP = "/workshop"  # the read-only code snapshot (PYTHONPATH), inside the sandbox
SANDBOX_UID = 65534     # the uid the notebook has inside its user namespace
# /etc is not bound: only these files, which the dynamic loader and the time zone need.
ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/timezone")
PASSWD = f"grader:x:{SANDBOX_UID}:{SANDBOX_UID}:grader:{JOB}/home:/usr/sbin/nologin\n"
GROUP = f"grader:x:{SANDBOX_UID}:\n"


def bwrap() -> str | None:
    return shutil.which("bwrap")


def _python_roots() -> list[str]:
    """Folders the interpreter and the venv live in (read-only inside), outside /usr."""
    roots = []
    for p in {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve().parent.parent}:
        if not str(p).startswith("/usr/") and str(p) != "/usr":
            roots.append(str(p))
    # A venv inside another root is covered by it; bind the outermost only.
    return sorted(r for r in roots if not any(r != o and r.startswith(o + "/") for o in roots))


def command(argv: list[str], *, scratch: Path, workshop: Path, etc: Path) -> list[str]:
    """bwrap's command line running argv with scratch at /job and workshop at /workshop.

    `etc` holds the sandbox's passwd and group files (written by `write_etc`)."""
    exe = bwrap()
    if exe is None:
        raise RuntimeError("bubblewrap (bwrap) is not installed")
    cmd = [exe, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--hostname", "grading",
           "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        path = Path(top)
        if path.is_symlink():  # merged /usr (Debian, Ubuntu): /bin -> usr/bin
            cmd += ["--symlink", str(path.readlink()), top]
        elif path.is_dir():
            cmd += ["--ro-bind", top, top]
    for name in ETC_FILES:
        if Path(name).exists():
            cmd += ["--ro-bind", name, name]
    cmd += ["--ro-bind", str(etc / "passwd"), "/etc/passwd", "--ro-bind", str(etc / "group"), "/etc/group"]
    for root in _python_roots():
        cmd += ["--ro-bind", root, root]
    cmd += ["--ro-bind", str(workshop), WORKSHOP, "--bind", str(scratch), JOB, "--chdir", JOB]
    return cmd + ["--", *argv]


def write_etc(where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    (where / "passwd").write_text(PASSWD)
    (where / "group").write_text(GROUP)
    return where


@functools.lru_cache(maxsize=1)
def problem() -> str | None:
    """None when a notebook can be sandboxed here, else why not (said to the instructor)."""
    if not sys.platform.startswith("linux"):
        return (f"no OS sandbox on {sys.platform}: bubblewrap needs Linux namespaces (grade inside a Linux "
                "container or VM, see README.md)")
    exe = bwrap()
    if exe is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    probe = [exe, "--unshare-all", "--die-with-parent", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
             "--proc", "/proc", "--dev", "/dev", "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/lib", "/lib64"):
        path = Path(top)
        if path.is_symlink():
            probe += ["--symlink", str(path.readlink()), top]
        elif path.is_dir():
            probe += ["--ro-bind", top, top]
    try:
        run = subprocess.run([*probe, "--", "/usr/bin/env", "true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not start: {exc}"
    if run.returncode != 0:
        return ("bubblewrap cannot create namespaces here (unprivileged user namespaces disabled?): "
                + (run.stderr.strip().splitlines() or ["no message"])[-1])
    return None
