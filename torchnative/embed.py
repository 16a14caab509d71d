"""Running torchnative/_embed_worker.py under one environment and reading back its embeddings.

Used by the demo, tests/test_minilm.py and bench/minilm_bench.py. The parent never imports torch:
the embeddings come back as .npy files with their exact bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from torchnative.children import Child, format_failure
from torchnative.envs import Env, model_path

WORKER = Path(__file__).with_name("_embed_worker.py")


@dataclass
class EmbedRun:
    """One worker's outcome: ok with embeddings per dtype, or the failure it reported."""

    env: Env
    message: dict
    embeddings: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.message.get("ok"))

    @property
    def failure(self) -> dict | None:
        return self.message.get("failure")

    def describe_failure(self) -> str:
        return format_failure(self.failure) if self.failure else "no failure"


def start_embed(env: Env, sentences, dtypes, out_dir: Path, *, threads: int | None = None,
                rounds: bool = False, round_target_s: float = 0.2, repeats: int = 5,
                echo: bool = True,
                label: str | None = None) -> tuple[Child | None, EmbedRun]:
    """Starts the worker and waits for its embeddings; the Child stays open for timed rounds
    (None if the worker could not be started)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("embeddings_*.npy"):
        old.unlink()
    try:
        expect_c = str(env.expected_c())
    except FileNotFoundError as exc:
        failure = {"step": "find the _C file", "type": "FileNotFoundError", "message": str(exc),
                   "where": None}
        return None, EmbedRun(env, {"ok": False, "failure": failure})
    request = {"model": str(model_path()), "sentences": list(sentences), "dtypes": list(dtypes),
               "out_dir": str(out_dir), "expect_c": expect_c, "threads": threads,
               "rounds": rounds, "round_target_s": round_target_s, "repeats": repeats}
    child = Child(env, WORKER, [json.dumps(request)], out_dir / "worker.log", threads, echo, label)
    run = EmbedRun(env, child.receive())
    if run.ok:
        run.embeddings = {dtype: np.load(path) for dtype, path in run.message["files"].items()}
    return child, run


def run_embed(env: Env, sentences, dtypes, out_dir: Path, *, threads: int | None = None,
              echo: bool = True) -> EmbedRun:
    """Runs the worker to completion and returns its outcome."""
    child, run = start_embed(env, sentences, dtypes, out_dir, threads=threads, echo=echo)
    if child is not None:
        child.close()
    return run
