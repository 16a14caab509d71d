"""The child half of torchnative's worker protocol: standard library only, never imports torch.

A worker runs in its own interpreter (`python -I script`), ours or upstream's, never both in one
process. It prints progress as plain lines, messages to its parent as one line `@json {...}`, and
tracebacks to stderr (which the parent keeps in a log). The parent half is torchnative/children.py.
A step that raises ends the worker with a message naming the step, the exception type, the last
line of its message and the innermost file:line, so a failure is reported, never guessed.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
import traceback
from array import array
from pathlib import Path

MARK = "@json "
_T0 = time.perf_counter()
_ROOT = Path(__file__).resolve().parents[1]


def progress(message: str) -> None:
    print(f"[{time.perf_counter() - _T0:6.1f} s] {message}", flush=True)


def send(message: dict) -> None:
    print(MARK + json.dumps(message), flush=True)


def _short_path(filename: str) -> str:
    """A traceback file relative to site-packages (torch/nn/...) or to the repository."""
    path = Path(filename)
    if "site-packages" in path.parts:
        return str(Path(*path.parts[path.parts.index("site-packages") + 1 :]))
    return str(path.relative_to(_ROOT)) if path.is_relative_to(_ROOT) else filename


def _one(exc: BaseException) -> dict:
    lines = str(exc).strip().splitlines()
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{_short_path(frames[-1].filename)}:{frames[-1].lineno}" if frames else None
    return {"type": type(exc).__name__, "message": lines[-1] if lines else "", "where": where}


def describe(exc: BaseException, step: str) -> dict:
    """What failed, for the parent: step, exception type, last line of the message, file:line,
    and the root of the exception chain when there is one (often the more telling part)."""
    root = exc
    while True:
        inner = root.__cause__ or (None if root.__suppress_context__ else root.__context__)
        if inner is None:
            break
        root = inner
    return {"step": step, **_one(exc), "cause": _one(root) if root is not exc else None}


@contextlib.contextmanager
def step(name: str, announce: bool = True):
    """Runs one step; on any exception, reports it to the parent and exits with status 1."""
    start = time.perf_counter()
    if announce:
        progress(f"{name} ...")
    try:
        yield
    except Exception as exc:
        traceback.print_exc()
        send({"ok": False, "failure": describe(exc, name)})
        sys.exit(1)
    if announce:
        progress(f"{name}: done in {time.perf_counter() - start:.1f} s")


def commands():
    """The parent's commands, one per line, until `exit` or end of input."""
    for line in sys.stdin:
        command = line.strip()
        if command == "exit":
            return
        yield command


def locate_torch(expect_c: str | None) -> dict:
    """Before importing it: which torch package and which _C this interpreter will load.

    Raises AssertionError when the _C file is not the one the parent expects (a stale or wrong
    build must not be measured)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("this interpreter has no torch package")
    torch_dir = Path(spec.origin).parent
    found = sorted(torch_dir.glob("_C.cpython-*.so"))
    if len(found) != 1:
        raise AssertionError(f"expected one _C extension in {torch_dir}, found {found}")
    c_file = found[0].resolve()
    if expect_c is not None and c_file != Path(expect_c).resolve():
        raise AssertionError(f"torch._C would be {c_file}, expected {expect_c}")
    progress(f"torch to load: {spec.origin}")
    progress(f"torch._C to load: {found[0]} -> {c_file}")
    return {"torch_init": spec.origin, "c_file": str(c_file)}


def check_loaded(torch, located: dict) -> dict:
    """After importing it: the torch and _C actually loaded are the ones located beforehand."""
    torch_file = torch.__file__
    c_file = torch._C.__file__
    print(f"torch.__file__ = {torch_file}", flush=True)
    print(f"torch._C.__file__ = {c_file}", flush=True)
    if Path(torch_file).resolve() != Path(located["torch_init"]).resolve():
        raise AssertionError(f"loaded {torch_file}, expected {located['torch_init']}")
    if Path(c_file).resolve() != Path(located["c_file"]):
        raise AssertionError(f"loaded torch._C from {c_file}, expected {located['c_file']}")
    if not Path(torch_file).resolve().is_relative_to(Path(sys.prefix).resolve()):
        raise AssertionError(f"torch {torch_file} is not under this interpreter's {sys.prefix}")
    return {"torch_file": torch_file, "c_file": c_file, "version": torch.__version__}


def per_call(timer, request: dict, loops: dict, name: str) -> float:
    """Seconds per call of a timeit.Timer: the best of request["repeats"] repeats; the loop
    count is chosen once, at the first (warm-up) round, so that one repeat takes at least
    request["target_s"]."""
    if name not in loops:
        count = 1
        while timer.timeit(count) < request["target_s"]:
            count *= 2
        loops[name] = count
    return min(timer.repeat(repeat=request["repeats"], number=loops[name])) / loops[name]


def import_torch(request: dict):
    """A benchmark worker's start: locate torch (the _C the parent expects), import it, check
    that it is the one located, and set request["threads"]. Returns (torch, what was loaded)."""
    with step("locate torch", announce=False):
        located = locate_torch(request["expect_c"])
    with step("import torch"):
        import torch
    with step("check which torch was loaded", announce=False):
        loaded = check_loaded(torch, located)
    with step("set the thread count", announce=False):
        torch.set_num_threads(request["threads"])
        assert torch.get_num_threads() == request["threads"], torch.get_num_threads()
    return torch, loaded


def tensor_bytes(tensor) -> tuple[bytes, str]:
    """The exact bytes of a float32/float64 CPU tensor, row-major, and the route that read them.

    The NumPy bridge first; `tolist` (exact for both dtypes) where the bridge is missing, so
    that a missing bridge does not hide whether the values themselves agree."""
    tensor = tensor.detach()
    try:
        return tensor.contiguous().numpy().tobytes(), "numpy"
    except Exception:  # the route taken is reported beside the bytes
        pass
    code = {"torch.float32": "f", "torch.float64": "d"}[str(tensor.dtype)]
    flat = tensor.reshape(-1).tolist()
    return array(code, flat).tobytes(), "tolist"
