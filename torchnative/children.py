"""The parent half of the worker protocol (the child half is torchnative/_child.py).

A Child is a worker script running under one environment's interpreter with `-I`, its working
directory `/`. Its progress lines are echoed with a label, its `@json` lines are messages, its
stderr goes to a log file. A child that dies or hangs yields a failure message like a step's.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

from torchnative._child import MARK
from torchnative.envs import Env, worker_environ


def format_failure(failure: dict, where: bool = True) -> str:
    """One line: which step failed, the exception type and last message line, where, and the
    root cause when the exception was raised from another."""
    def one(part: dict) -> str:
        text = part["type"] + (f": {part['message']}" if part.get("message") else "")
        return text + (f" (at {part['where']})" if where and part.get("where") else "")

    text = f"step \"{failure['step']}\": {one(failure)}"
    return text + (f"; caused by {one(failure['cause'])}" if failure.get("cause") else "")


class Child:
    """One worker process; `receive` returns its next message, `send` gives it a command."""

    def __init__(self, env: Env, script: Path, args: list[str], log: Path,
                 threads: int | None = None, echo: bool = True, label: str | None = None):
        self.env, self.log, self.echo = env, log, echo
        self.label = label or env.name
        self.last_progress = "start"
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log_file = open(log, "w")
        self.proc = subprocess.Popen(
            [str(env.python), "-I", str(script), *args], cwd="/", text=True, bufsize=1,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log_file,
            env=worker_environ(threads))
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def receive(self, timeout: float = 600) -> dict:
        """The next `@json` message; progress lines before it are echoed (and remembered)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.proc.kill()
                return self._failed("Timeout", f"no message within {timeout:.0f} s")
            if line is None:
                return self._died()
            if line.startswith(MARK):
                return json.loads(line[len(MARK):])
            self.last_progress = line.rstrip()
            if self.echo:
                print(f"  {self.label:>10} | {self.last_progress}", flush=True)

    def send(self, command: str) -> None:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def request(self, command: str, timeout: float = 600) -> dict:
        self.send(command)
        return self.receive(timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("exit\n")
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self._log_file.close()

    def _died(self) -> dict:
        code = self.proc.wait()
        if code < 0:
            what = f"killed by {signal.Signals(-code).name}"
        else:
            what = f"exited with status {code} without a message"
        tail = [line for line in self.log.read_text(errors="replace").splitlines() if line.strip()]
        return self._failed("WorkerDied", f"{what}; stderr: {tail[-1] if tail else '(empty)'}")

    def _failed(self, kind: str, message: str) -> dict:
        step = self.last_progress.split("] ", 1)[-1].removesuffix(" ...")
        return {"ok": False,
                "failure": {"step": step, "type": kind, "message": message, "where": None}}

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
