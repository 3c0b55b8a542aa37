"""A grading worker: a long-lived process that autogrades one notebook at a time.

    python -m workshop_lib.tools.grading.worker --reply-fd N

It reads one job per line (JSON) on stdin and answers on file descriptor N, which the
notebook's kernel does not inherit. For each job it runs nbgrader's autograde and
generate_feedback (NbGraderAPI) in that notebook's own scratch course, with the job's
scrubbed environment, then kills every process the notebook left behind. The worker is a
child subreaper on Linux, so a process that detaches from the kernel still ends up here.

While cells run it logs, per cell, when it started and how it ended (cells.jsonl): the
grader scores from that log when a notebook is killed half way, so cells graded before
keep their points. After a cell hits its time limit, cells that are neither a TODO nor a
check are skipped, so one infinite loop costs one timeout per graded cell at most.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import traceback
from pathlib import Path

from workshop_lib.tools import course
from workshop_lib.tools.grading import processes

SKIPPED_NOTE = "[grader] skipped: an earlier cell ran past its time limit, so only TODO and check cells still run\n"
TRUNCATED_NOTE = "\n[grader] output truncated: this cell printed more than {limit:,} characters\n"


def recording_execute_class():
    """nbgrader's Execute with a per-cell log, a skip rule after a timeout, and an output cap."""
    from nbclient.exceptions import DeadKernelError
    from nbformat.v4 import new_output
    from nbgrader.preprocessors import Execute
    from traitlets import Integer, Unicode

    class RecordingExecute(Execute):
        cells_log = Unicode("", help="JSON lines, one per cell event").tag(config=True)
        max_output_chars = Integer(100_000, help="characters of output kept per cell").tag(config=True)

        def preprocess(self, nb, resources=None, km=None, **kwargs):
            self._timed_out = False
            self._chars: dict[int, int] = {}
            return super().preprocess(nb, resources, **kwargs)

        def _log(self, **event) -> None:
            if self.cells_log:
                with open(self.cells_log, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(event) + "\n")

        def preprocess_cell(self, cell, resources, index):
            # nbconvert calls this once per cell (its execute_cell is bound to nbclient's own
            # coroutine, so an override of async_execute_cell would never be called).
            meta = cell.get("metadata", {}).get("nbgrader", {})
            grade_id = meta.get("grade_id", "")
            if cell.cell_type != "code":
                return super().preprocess_cell(cell, resources, index)
            if self._timed_out and not (meta.get("grade") or meta.get("solution")):
                cell.outputs = [new_output("stream", name="stderr", text=SKIPPED_NOTE)]
                self._log(cell=index, grade_id=grade_id, event="skipped")
                return cell, resources
            self._log(cell=index, grade_id=grade_id, event="start")
            try:
                return super().preprocess_cell(cell, resources, index)
            except DeadKernelError:
                self._log(cell=index, grade_id=grade_id, event="died")
                raise

        def on_cell_executed(self, **kwargs):
            super().on_cell_executed(**kwargs)
            cell, content = kwargs["cell"], kwargs["execute_reply"]["content"]
            meta = cell.get("metadata", {}).get("nbgrader", {})
            ename = content.get("ename", "") if content.get("status") == "error" else ""
            if ename == "CellTimeoutError":
                self._timed_out = True
            self._log(cell=kwargs["cell_index"], grade_id=meta.get("grade_id", ""), event="done",
                      status=content.get("status"), ename=ename, evalue=str(content.get("evalue", ""))[:2000])

        def output(self, outs, msg, display_id, cell_index):
            # Cap what one cell can print: a loop that prints megabytes must not fill memory.
            text = msg.get("content", {}).get("text", "") or ""
            used = self._chars.get(cell_index, 0)
            if used > self.max_output_chars:
                return None
            self._chars[cell_index] = used + len(text) + 1
            if used + len(text) > self.max_output_chars:
                outs.append(new_output("stream", name="stderr",
                                       text=TRUNCATED_NOTE.format(limit=self.max_output_chars)))
                return None
            return super().output(outs, msg, display_id, cell_index)

    return RecordingExecute


def grade_one(job: dict) -> dict:
    """Autograde and write feedback for one notebook in its scratch course."""
    from nbgrader.converters.autograde import Autograde


    os.environ.clear()
    os.environ.update(job["env"])
    tempfile.tempdir = None  # the module caches the first job's TMPDIR; each job has its own
    os.chdir(job["scratch"])
    recording = recording_execute_class()
    steps = [recording if p.__name__ == "Execute" else p for p in Autograde.class_traits()["autograde_preprocessors"].default()]
    nbgrader = course.api(
        Path(job["scratch"]) / "course", job["config_file"],
        Execute={"timeout": int(job["cell_timeout"])},
        RecordingExecute={"cells_log": job["cells_log"],  # the timeout above applies to the subclass too
                          "max_output_chars": int(job.get("max_output_chars", 100_000))},
        Autograde={"autograde_preprocessors": steps},
        LimitOutput={"max_lines": 200, "max_traceback": 60},
    )
    reply = {"id": job["id"]}
    try:
        graded = nbgrader.autograde(job["assignment"], job["student"], force=True, create=True)
        reply["autograded"] = bool(graded.get("success"))
        reply["log"] = (graded.get("log", "") + graded.get("error", ""))[-4000:]
        # Nothing the notebook started may outlive it and touch the files read next.
        reply["killed_leftovers"] = processes.kill_descendants(os.getpid())
        if reply["autograded"]:
            feedback = nbgrader.generate_feedback(job["assignment"], job["student"], force=True)
            reply["feedback"] = bool(feedback.get("success"))
    finally:
        reply["killed_leftovers"] = reply.get("killed_leftovers", 0) + processes.kill_descendants(os.getpid())
    return reply


def _die(*_args) -> None:
    processes.kill_descendants(os.getpid())
    os._exit(1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reply-fd", type=int, required=True)
    args = parser.parse_args()
    parent = os.getppid()
    processes.become_subreaper()
    # When the grader dies (even by kill -9) this worker is told, and takes its notebook's
    # processes with it (in the sandbox, bwrap --die-with-parent ends the whole pid namespace).
    signal.signal(signal.SIGTERM, _die)
    processes.die_with_parent(signal.SIGTERM)
    if os.getppid() != parent:  # the grader died before the line above
        _die()
    recording_execute_class()  # import nbgrader and nbclient now, before any learner code has run
    replies = os.fdopen(args.reply_fd, "w", buffering=1)
    os.set_inheritable(args.reply_fd, False)
    for line in sys.stdin:
        job = json.loads(line)
        try:
            reply = grade_one(job)
        except Exception as exc:  # noqa: BLE001 - reported to the grader, which decides
            reply = {"id": job.get("id"), "autograded": False, "log": "".join(traceback.format_exception(exc))[-4000:]}
        replies.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    main()
