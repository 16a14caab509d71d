"""Runs fuzz cases in child processes of one interpreter and isolates crashes; imports no torch.

Cases go to a child (child.py) in batches, for speed. A batch whose child dies or hangs keeps the
outcomes it printed; the case it was running (its last `S` line) is run again alone in a fresh
child, which decides whether that case crashes by itself, and the rest of the batch goes on in
another child.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from torchnative.envs import Env, worker_environ

CHILD = Path(__file__).resolve().parent / "child.py"
CASE_TIMEOUT_S = 20  # a case silent this long is a hang
BATCH = 400


def child_env(env: Env, inject: str | None) -> dict[str, str]:
    """The child's environment; faults (TN_FUZZ_INJECT, or inject when given) go to ours only."""
    environ = worker_environ(1)
    if inject is not None:
        environ["TN_FUZZ_INJECT"] = inject
    if env.name != "ours":
        environ.pop("TN_FUZZ_INJECT", None)
    return environ


def run_batch(env: Env, cases: list[dict], tmp: Path,
              inject: str | None) -> tuple[dict, str | None, str | None]:
    """Outcomes by id of the cases the child finished, the id it was running when it stopped
    early (or None), and how it stopped."""
    path = tmp / f"batch-{env.name}-{os.getpid()}-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(cases))
    proc = subprocess.Popen([str(env.python), "-I", str(CHILD), "run", str(path)], cwd="/",
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=child_env(env, inject))
    lines: queue.Queue = queue.Queue()

    def read():
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    done, running, how = {}, None, None
    while True:
        try:
            line = lines.get(timeout=CASE_TIMEOUT_S)
        except queue.Empty:
            proc.kill()
            how = f"no result within {CASE_TIMEOUT_S} s (hang)"
            break
        if line is None or line == "D":
            break
        if line.startswith("S "):
            running = line[2:]
        elif line.startswith("R "):
            rec = json.loads(line[2:])
            done[rec.pop("id")] = rec
            running = None
    code = proc.wait()
    path.unlink(missing_ok=True)
    if how is None and code != 0:
        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
    if how is None and line != "D":
        how = "stopped without finishing its batch"
    return done, running, how


def run_cases(env: Env, cases: list[dict], batch: int = BATCH, progress=None,
              inject: str | None = None) -> dict:
    """Outcome by case id for every case; a crash is {"ok": False, "crash": how}."""
    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="tn-fuzz-") as tmp:
        todo = [cases[i:i + batch] for i in range(0, len(cases), batch)]
        while todo:
            chunk = todo.pop(0)
            done, running, how = run_batch(env, chunk, Path(tmp), inject)
            out.update(done)
            if progress:
                progress(len(done))
            if how is None:
                continue
            rest = [c for c in chunk if c["id"] not in done]
            if running is not None and len(chunk) > 1:
                suspect = next(c for c in rest if c["id"] == running)
                alone, _, alone_how = run_batch(env, [suspect], Path(tmp), inject)
                out[running] = alone.get(running) or {"ok": False, "crash": alone_how}
                if running in alone:
                    out[running]["crash_in_batch"] = how
            elif running is not None:
                out[running] = {"ok": False, "crash": how}
            else:  # died between cases: our child's own fault, not a case's
                raise RuntimeError(f"{env.name} fuzz child {how} outside any case")
            rest = [c for c in rest if c["id"] != running]
            if rest:
                todo.insert(0, rest)
    return out
