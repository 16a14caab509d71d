"""Where a published number came from: date, git commit, machine (for bench/, tools/status.py)."""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import subprocess
from pathlib import Path

from torchnative.envs import ROOT


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def git_commit() -> str:
    """The short commit of HEAD, with "+ uncommitted changes" when the working tree differs from
    it (modified tracked files or new files git does not ignore)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"{commit} + uncommitted changes" if dirty else commit


def machine() -> str:
    """nproc, CPU model (from /proc/cpuinfo) and the kernel, in one line."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    nproc = len(os.sched_getaffinity(0))
    return f"nproc {nproc}, {model}, {platform.system()} {platform.release()}"


def file_digest(path: Path) -> str:
    """The first 12 hex digits of a file's sha256 (to name exactly which _C was measured)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
