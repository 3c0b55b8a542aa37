"""Finding and ending every process a graded notebook started.

A kernel runs in its own session (jupyter_client starts it so), and a notebook can start
more processes that detach from it. On Linux the grading processes are child subreapers
(prctl PR_SET_CHILD_SUBREAPER): an orphan is re-parented to the nearest one instead of to
init, so walking the /proc tree from a worker finds everything its notebooks left behind.
Elsewhere (macOS) only the process group can be killed; the README says so. A worker
asks for a parent-death signal (prctl PR_SET_PDEATHSIG), so a grader killed by `kill -9`
does not leave it grading; in the sandbox, bwrap --die-with-parent ends the whole pid
namespace.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1


def become_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(sig: int = signal.SIGTERM) -> bool:
    """Ask Linux to send `sig` to this process when its parent (the grader's thread) dies."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _parents() -> dict[int, int]:
    """pid -> parent pid for every process we can see (Linux /proc)."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            # The command name may hold spaces or ')' : the fields after the last ')' are fixed.
            fields = stat.rsplit(")", 1)[1].split()
            out[int(name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    return out


def descendants(pid: int) -> list[int]:
    if not os.path.isdir("/proc"):
        return []
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_descendants(pid: int, rounds: int = 5) -> int:
    """SIGKILL every descendant of pid (repeatedly: a process may fork while we kill). Returns how many."""
    killed: set[int] = set()
    for _ in range(rounds):
        alive = [p for p in descendants(pid) if p not in killed or _exists(p)]
        if not alive:
            break
        for p in alive:
            try:
                os.kill(p, signal.SIGKILL)
                killed.add(p)
            except ProcessLookupError:
                pass
        _reap()
        time.sleep(0.05)
    return len(killed)


def kill_tree(pid: int) -> None:
    """End a process and everything below it (descendants first, so none is orphaned)."""
    try:
        os.kill(pid, signal.SIGSTOP)  # it cannot start more children while we walk its tree
    except ProcessLookupError:
        return
    kill_descendants(pid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(os.getpgid(pid), signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _exists(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return b") Z " not in fh.read()  # a zombie is already dead
    except OSError:
        return False


def _reap() -> None:
    """Collect exited children (orphans re-parented to a subreaper become its children)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
